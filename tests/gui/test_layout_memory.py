"""The window remembers the user's dock arrangement from one session to the next."""

from PySide6.QtWidgets import QApplication


def test_dock_arrangement_is_restored_in_the_next_window(make_window):
    first = make_window()
    assert first.docks["legend"].isVisible()
    first.docks["legend"].hide()
    first.document.undo_stack.setClean()
    assert first.close()
    second = make_window()
    QApplication.processEvents()
    assert not second.docks["legend"].isVisible()
    assert second.docks["analysis"].isVisible()


def test_without_a_saved_arrangement_the_analysis_gets_the_most_room(make_window):
    window = make_window()
    QApplication.processEvents()
    right = [window.docks[k].height() for k in ("inspector", "overview", "analysis")]
    assert right[2] == max(right)
