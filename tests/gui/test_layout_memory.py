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


def test_the_first_start_size_fits_a_smaller_screen():
    from PySide6.QtCore import QRect

    from designer.gui.window.main_window import FIRST_START_SIZE, first_start_size

    assert first_start_size(QRect(0, 0, 1920, 1080)) == FIRST_START_SIZE == (1440, 900)
    assert first_start_size(QRect(0, 0, 1280, 800)) == (1280, 800)
    assert first_start_size(QRect(0, 24, 1280, 776)) == (1280, 776)  # a panel takes the top
    assert first_start_size(None) == FIRST_START_SIZE


def test_a_new_window_is_no_larger_than_the_screen(qtbot, tmp_path, catalog):
    from designer.gui.window.main_window import MainWindow

    w = MainWindow(catalog, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(w)
    free, least = w.screen().availableGeometry(), w.minimumSizeHint()  # the test screen is 800x800
    assert w.width() <= max(free.width(), least.width()) and w.height() <= max(free.height(), least.height())
    assert (w.width(), w.height()) != (1440, 900)
    w.document.undo_stack.setClean()
    w.close()


def test_the_first_start_fits_the_design_into_the_canvas_as_shown(make_window, qtbot, tmp_path, catalog):
    """The fit waits for the docks' first-start sizes: the design fills the canvas's width or height."""
    from designer.gui.window.app import show_window
    from designer.gui.window.main_window import MainWindow
    from designer.io import load_design
    from designer.model.shipped import sample_designs_dir

    make_window().close()  # the fixture's settings, without a saved arrangement
    window = MainWindow(catalog, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window)
    window.resize(1440, 900)
    window.document.set_design(load_design(sample_designs_dir() / "superpod-h100-1su.json"), None)
    show_window(window)
    view = window.view
    shown = view.mapFromScene(window.scene.itemsBoundingRect()).boundingRect()
    port = view.viewport().rect()
    assert shown.width() >= 0.85 * port.width() or shown.height() >= 0.85 * port.height(), (shown, port)
