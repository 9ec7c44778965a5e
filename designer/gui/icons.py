"""Toolbar icons, drawn as simple line art so they look the same on every platform.

An SVG in ``resources/icons/<name>.svg`` replaces the drawn icon of that name.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPen, QPixmap
from PySide6.QtWidgets import QStyle

from designer.model.shipped import resources_dir

INK = QColor("#38434F")
ACCENT = QColor("#1E6FD9")
_CACHE: dict[str, QIcon] = {}


def icon(name: str, style: QStyle | None = None) -> QIcon:
    if name in _CACHE:
        return _CACHE[name]
    svg = Path(resources_dir()) / "icons" / f"{name}.svg"
    if svg.is_file():
        ic = QIcon(str(svg))
    else:
        ic = QIcon()
        for size in (16, 24, 32):
            ic.addPixmap(_draw(name, size))
    _CACHE[name] = ic
    return ic


def _draw(name: str, size: int) -> QPixmap:
    pm = QPixmap(size, size)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.scale(size / 24.0, size / 24.0)
    pen = QPen(INK, 1.8, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin)
    p.setPen(pen)
    p.setBrush(Qt.BrushStyle.NoBrush)
    accent = QPen(ACCENT, 1.8, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin)
    if name == "new":
        path = QPainterPath(QPointF(6, 3))
        for x, y in ((14, 3), (19, 8), (19, 21), (6, 21)):
            path.lineTo(x, y)
        path.closeSubpath()
        p.drawPath(path)
        p.drawPolyline([QPointF(14, 3), QPointF(14, 8), QPointF(19, 8)])
    elif name == "open":
        p.drawPolyline([QPointF(3, 19), QPointF(3, 5), QPointF(9, 5), QPointF(11, 7), QPointF(19, 7), QPointF(19, 10)])
        p.setPen(accent)
        p.drawPolygon([QPointF(3, 19), QPointF(7, 10), QPointF(22, 10), QPointF(18, 19)])
    elif name == "save":
        p.drawRoundedRect(QRectF(4, 4, 16, 16), 2, 2)
        p.drawRect(QRectF(8, 4, 8, 5))
        p.setPen(accent)
        p.drawRect(QRectF(7, 13, 10, 7))
    elif name in ("undo", "redo"):
        if name == "redo":
            p.translate(24, 0)
            p.scale(-1, 1)
        path = QPainterPath(QPointF(9, 6))
        path.lineTo(4, 10)
        path.lineTo(9, 14)
        p.drawPath(path)
        arc = QPainterPath(QPointF(4, 10))
        arc.cubicTo(QPointF(14, 10), QPointF(21, 11), QPointF(19, 19))
        p.setPen(accent)
        p.drawPath(arc)
    elif name == "cut":
        p.drawEllipse(QRectF(4, 14, 6, 6))
        p.drawEllipse(QRectF(14, 14, 6, 6))
        p.setPen(accent)
        p.drawLine(QPointF(9, 15), QPointF(17, 3))
        p.drawLine(QPointF(15, 15), QPointF(7, 3))
    elif name == "copy":
        p.drawRoundedRect(QRectF(8, 8, 12, 13), 2, 2)
        p.setPen(accent)
        p.drawPolyline([QPointF(5, 16), QPointF(4, 16), QPointF(4, 3), QPointF(15, 3), QPointF(15, 5)])
    elif name == "paste":
        p.drawRoundedRect(QRectF(5, 5, 14, 16), 2, 2)
        p.setPen(accent)
        p.drawRoundedRect(QRectF(9, 3, 6, 4), 1, 1)
        p.drawLine(QPointF(9, 12), QPointF(15, 12))
        p.drawLine(QPointF(9, 16), QPointF(15, 16))
    elif name == "delete":
        p.drawLine(QPointF(4, 6), QPointF(20, 6))
        p.drawPolyline([QPointF(9, 6), QPointF(9, 3), QPointF(15, 3), QPointF(15, 6)])
        p.setPen(QPen(QColor("#D62828"), 1.8))
        p.drawPolygon([QPointF(6, 6), QPointF(7, 21), QPointF(17, 21), QPointF(18, 6)])
    elif name in ("find", "zoom_in", "zoom_out"):
        p.drawEllipse(QRectF(3, 3, 13, 13))
        p.drawLine(QPointF(14.5, 14.5), QPointF(21, 21))
        p.setPen(accent)
        if name != "find":
            p.drawLine(QPointF(6.5, 9.5), QPointF(12.5, 9.5))
        if name == "zoom_in":
            p.drawLine(QPointF(9.5, 6.5), QPointF(9.5, 12.5))
    elif name == "zoom_fit":
        for x, y, dx, dy in ((3, 3, 1, 1), (21, 3, -1, 1), (3, 21, 1, -1), (21, 21, -1, -1)):
            p.drawPolyline([QPointF(x, y + 5 * dy), QPointF(x, y), QPointF(x + 5 * dx, y)])
        p.setPen(accent)
        p.drawRect(QRectF(8, 8, 8, 8))
    elif name == "connect":
        p.drawRoundedRect(QRectF(2, 14, 7, 7), 1.5, 1.5)
        p.drawRoundedRect(QRectF(15, 3, 7, 7), 1.5, 1.5)
        p.setPen(accent)
        p.drawLine(QPointF(8, 15), QPointF(16, 9))
    elif name == "collapse":
        p.drawRoundedRect(QRectF(3, 3, 18, 18), 2, 2)
        p.setPen(accent)
        p.drawRect(QRectF(7, 7, 4, 4))
        p.drawRect(QRectF(13, 7, 4, 4))
        p.drawRect(QRectF(7, 13, 4, 4))
        p.drawRect(QRectF(13, 13, 4, 4))
    elif name == "generate":
        p.drawLine(QPointF(12, 4), QPointF(5, 12))
        p.drawLine(QPointF(12, 4), QPointF(19, 12))
        p.setPen(accent)
        for x in (5, 12, 19):
            p.drawEllipse(QPointF(x, 18), 2.5, 2.5)
        p.drawEllipse(QPointF(12, 4), 2.0, 2.0)
        p.setPen(pen)
        p.drawLine(QPointF(12, 6), QPointF(12, 15.5))
    elif name == "analyze":
        p.drawPolyline([QPointF(3, 3), QPointF(3, 21), QPointF(21, 21)])
        p.setPen(accent)
        p.drawPolyline([QPointF(6, 17), QPointF(10, 11), QPointF(14, 14), QPointF(20, 6)])
    p.end()
    return pm
