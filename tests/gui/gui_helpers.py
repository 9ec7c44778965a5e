"""Helpers that drive the designer window the way a user does (mouse, drag and drop)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication


def scene_point(window, x: float, y: float) -> QPoint:
    """Viewport pixel position of a scene point."""
    return window.view.mapFromScene(QPointF(x, y))


def drop_from_palette(window, payload: str, x: float, y: float) -> None:
    """Drop a palette entry (its real drag MIME data) on the canvas at scene (x, y)."""
    item = window.palette.item_for(payload)
    assert item is not None, payload
    mime = window.palette.tree.mimeData([item])
    send_drop(window.view.viewport(), mime, scene_point(window, x, y))


def send_drop(widget, mime, pos: QPoint) -> bool:
    """What a drag does on arrival: enter, move, drop. Returns whether the drop was accepted."""
    left, none = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    action = Qt.DropAction.CopyAction
    for cls in (QDragEnterEvent, QDragMoveEvent):
        try:  # PySide6 >= 6.12 takes a QPointF (QPoint deprecated); earlier versions a QPoint
            event = cls(QPointF(pos), action, mime, left, none)
        except TypeError:
            event = cls(QPoint(pos), action, mime, left, none)
        QApplication.sendEvent(widget, event)
    drop = QDropEvent(QPointF(pos), action, mime, left, none)
    QApplication.sendEvent(widget, drop)
    return drop.isAccepted()


def drag(window, start: QPoint, end: QPoint, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    """Press at ``start``, move through the middle to ``end``, release (viewport pixels)."""
    vp = window.view.viewport()
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, modifiers, start)
    mid = QPoint((start.x() + end.x()) // 2, (start.y() + end.y()) // 2)
    QTest.mouseMove(vp, mid)
    QTest.mouseMove(vp, end)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, modifiers, end)


def port_point(window, device_id: str, port: str) -> QPoint:
    item = window.scene.device_items[device_id]
    return window.view.mapFromScene(item.mapToScene(item.port_centre(port)))
