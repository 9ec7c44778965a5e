"""Gestures interrupted: Escape, or the design changing under a drag (an undo by shortcut)."""

from __future__ import annotations

from gui_helpers import scene_point
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest

from designer.io import design_to_text

LEFT, NONE = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
CTRL = Qt.KeyboardModifier.ControlModifier


def _at_100(window, x: float, y: float) -> None:
    window.view.zoom_reset()
    window.view.centerOn(x, y)


def test_undo_during_a_move_drag_ends_the_drag_without_an_error(window):
    ed = window.editor
    a = ed.place_component("qm9700", QPointF(0, 0))
    b = ed.place_component("qm9700", QPointF(200, 0))
    ed.connect_ports(a, None, b, None)
    _at_100(window, 100, 0)
    window.view.setFocus()
    vp = window.view.viewport()
    QTest.mousePress(vp, LEFT, NONE, scene_point(window, 200, 0))
    QTest.mouseMove(vp, scene_point(window, 260, 60))
    QTest.mouseMove(vp, scene_point(window, 300, 100))
    assert window.view.interaction is not None
    QTest.keyClick(window.view, Qt.Key.Key_Z, CTRL)  # undoes the link: the dragged device stays
    assert window.view.interaction is None
    before = design_to_text(window.document.design)
    count = window.document.undo_stack.count()
    QTest.mouseRelease(vp, LEFT, NONE, scene_point(window, 300, 100))
    assert design_to_text(window.document.design) == before
    assert window.document.undo_stack.count() == count
    item = window.scene.device_items[b]
    assert (item.pos().x(), item.pos().y()) == (200, 0)  # drawn where the model has it


def test_undo_removing_the_dragged_device_ends_the_drag(window):
    ed = window.editor
    a = ed.place_component("qm9700", QPointF(0, 0))
    _at_100(window, 0, 0)
    window.view.setFocus()
    vp = window.view.viewport()
    QTest.mousePress(vp, LEFT, NONE, scene_point(window, 0, 0))
    QTest.mouseMove(vp, scene_point(window, 50, 50))
    QTest.mouseMove(vp, scene_point(window, 100, 100))
    QTest.keyClick(window.view, Qt.Key.Key_Z, CTRL)  # undoes the placing of the dragged device
    assert window.document.design.device_count() == 0 and a not in window.scene.device_items
    QTest.mouseRelease(vp, LEFT, NONE, scene_point(window, 100, 100))  # was: UnknownIdError
    assert window.document.undo_stack.index() == 0 and window.document.design.device_count() == 0


def test_redo_during_a_link_drag_ends_it_and_removes_the_rubber_line(window):
    ed = window.editor
    a = ed.place_component("qm9700", QPointF(0, 0))
    ed.place_component("qm9700", QPointF(0, -200))
    window.document.undo_stack.undo()  # the second switch goes; redo brings it back mid-drag
    _at_100(window, 0, -100)
    window.view.setFocus()
    vp = window.view.viewport()
    QTest.mousePress(vp, LEFT, Qt.KeyboardModifier.AltModifier, scene_point(window, 0, 0))
    QTest.mouseMove(vp, scene_point(window, 0, -100))
    assert window.view.interaction is not None
    window.document.undo_stack.redo()
    assert window.view.interaction is None
    QTest.mouseRelease(vp, LEFT, Qt.KeyboardModifier.AltModifier, scene_point(window, 0, -200))
    assert window.document.design.link_count() == 0
    assert set(window.scene.device_items) == {a, "switch-2"}
    assert len(window.scene.items()) == 2  # no dashed line left behind


def test_escape_during_a_move_puts_the_selection_back(window):
    ed = window.editor
    a = ed.place_component("qm9700", QPointF(0, 0))
    _at_100(window, 0, 0)
    window.view.setFocus()
    vp = window.view.viewport()
    QTest.mousePress(vp, LEFT, NONE, scene_point(window, 0, 0))
    QTest.mouseMove(vp, scene_point(window, 50, 50))
    QTest.mouseMove(vp, scene_point(window, 100, 100))
    assert window.scene.device_items[a].pos() != QPointF(0, 0)
    QTest.keyClick(window.view, Qt.Key.Key_Escape)
    QTest.mouseRelease(vp, LEFT, NONE, scene_point(window, 100, 100))
    assert window.scene.device_items[a].pos() == QPointF(0, 0)
    assert window.document.undo_stack.count() == 1 and window.document.design.device(a).x == 0
