"""Every standard shortcut of the issue, pressed on the canvas, does its job."""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

CTRL, SHIFT = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier
K = Qt.Key


def _press(window, key, mods=Qt.KeyboardModifier.NoModifier) -> None:
    window.activateWindow()
    window.view.setFocus()
    QApplication.processEvents()
    QTest.keyClick(window.view, key, mods)


def test_edit_shortcuts_on_the_canvas(window):
    d = window.document.design
    ed = window.editor
    a = ed.place_component("qm9700", QPointF(0, 0))
    b = ed.place_component("qm9700", QPointF(300, 0))
    ed.connect_ports(a, None, b, None)
    _press(window, K.Key_Z, CTRL)
    assert d.link_count() == 0
    _press(window, K.Key_Z, CTRL | SHIFT)
    assert d.link_count() == 1
    _press(window, K.Key_Z, CTRL)
    _press(window, K.Key_Y, CTRL)
    assert d.link_count() == 1
    _press(window, K.Key_A, CTRL)
    assert window.scene.selected_device_ids() == [a, b]
    _press(window, K.Key_C, CTRL)
    _press(window, K.Key_V, CTRL)
    assert d.device_count() == 4 and d.link_count() == 2  # the link among the copies came along
    _press(window, K.Key_D, CTRL)
    assert d.device_count() == 6 and d.link_count() == 3
    _press(window, K.Key_Delete)
    assert d.device_count() == 4
    window.scene.select_devices([b])
    _press(window, K.Key_Backspace)
    assert not d.has_device(b) and d.link_count() == 1
    window.scene.select_devices([a])
    _press(window, K.Key_X, CTRL)
    assert not d.has_device(a)
    _press(window, K.Key_V, CTRL)
    assert d.device_count() == 3


def test_view_and_find_shortcuts(window):
    ed = window.editor
    ed.place_component("qm9700", QPointF(0, 0))
    window.view.zoom_reset()
    _press(window, K.Key_Plus, CTRL)
    assert abs(window.view.scale_factor() - 1.25) < 1e-9
    _press(window, K.Key_Minus, CTRL)
    assert abs(window.view.scale_factor() - 1.0) < 1e-9
    ed.place_component("qm9700", QPointF(4000, 3000))
    _press(window, K.Key_0, CTRL)
    assert window.view.scale_factor() < 0.5  # fits both devices
    _press(window, K.Key_F, CTRL)
    assert QApplication.focusWidget() is window.find_box
    QTest.keyClicks(window.find_box, "switch-2")
    QTest.keyClick(window.find_box, K.Key_Return)
    assert window.scene.selected_device_ids() == ["switch-2"]


def test_file_shortcuts(window, dialogs, monkeypatch, tmp_path):
    target = tmp_path / "keys.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(target), ""))
    window.editor.place_component("qm9700", QPointF(0, 0))
    _press(window, K.Key_S, CTRL)  # no file yet: Save asks where
    assert target.is_file() and not window.isWindowModified()
    window.editor.place_component("qm9700", QPointF(200, 0))
    other = tmp_path / "other.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(other), ""))
    _press(window, K.Key_S, CTRL | SHIFT)
    assert other.is_file() and window.document.path == other.resolve()
    _press(window, K.Key_N, CTRL)
    assert window.document.design.device_count() == 0 and window.document.path is None
    _press(window, K.Key_O, CTRL)
    assert window.document.path == target.resolve() and window.document.design.device_count() == 1
    assert dialogs.shown == []  # nothing was unsaved at New or Open
    window.editor.place_component("qm9700", QPointF(200, 0))
    dialogs.answer = QMessageBox.StandardButton.Cancel
    _press(window, K.Key_N, CTRL)
    assert dialogs.kinds() == ["question"] and window.document.design.device_count() == 2


def test_escape_cancels_a_link_drag_started_from_a_port(window):
    from gui_helpers import port_point

    ed = window.editor
    a = ed.place_component("qm9700", QPointF(0, 0))
    ed.place_component("qm9700", QPointF(0, -300))
    window.view.zoom_by(2.0 / window.view.scale_factor())  # ports show
    window.view.centerOn(0, 0)
    vp = window.view.viewport()
    start = port_point(window, a, "p1")
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(vp, start + start.__class__(0, -40))
    assert window.view.interaction is not None
    _press(window, K.Key_Escape)
    assert window.view.interaction is None
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    assert window.document.design.link_count() == 0 and len(window.scene.items()) == 2
