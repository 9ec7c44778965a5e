"""Painting helpers of the scene: the background grid and the group titles layer."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QTransform

from designer.gui import style
from designer.gui.canvas.items import CollapsedGroupItem, GroupFrameItem

_TITLE_FILL = QColor(255, 255, 255, 215)


def paint_grid(painter: QPainter, rect: QRectF) -> None:
    """Light grid lines every five snap steps, when they are at least 12 px apart."""
    scale = painter.worldTransform().m11()
    step = style.GRID * 5
    if step * scale < 12:
        return
    painter.setPen(style.GRID_COLOUR)
    left = int(rect.left() // step) * step
    top = int(rect.top() // step) * step
    lines = []
    x = left
    while x < rect.right():
        lines.append((QPointF(x, rect.top()), QPointF(x, rect.bottom())))
        x += step
    y = top
    while y < rect.bottom():
        lines.append((QPointF(rect.left(), y), QPointF(rect.right(), y)))
        y += step
    for p1, p2 in lines:
        painter.drawLine(p1, p2)


def title_pills(
    world: QTransform, rect: QRectF, frames: Iterable[GroupFrameItem]
) -> list[tuple[QRectF, str, GroupFrameItem]]:
    """Where group titles go, in device pixels: ``(pill, text, frame)`` for each title shown.

    A frame's title sits in its header band, or above the frame for an outermost group whose
    header is too thin at this zoom, unless it would cover another frame there (a frame just
    above, at low zoom) or another title: then that title is left out rather than overlapped.
    """
    scale = world.m11()
    fm = QFontMetricsF(style.label_font(8.5, bold=True))
    height = fm.height()
    shown = [f for f in frames if f.isVisible()]
    outer = [(f, world.mapRect(f.rect())) for f in shown if f.zValue() <= -9.999]
    pills: list[tuple[QRectF, str, GroupFrameItem]] = []
    for frame in shown:
        r = frame.rect()
        if not r.intersects(rect):
            continue
        text = "\u25be " + frame.title()
        width = fm.horizontalAdvance(text)
        if r.width() * scale < width + 28 or r.height() * scale < height + 10:
            continue
        tl = world.map(r.topLeft())
        if style.GROUP_HEADER * scale >= height:
            pill = QRectF(tl.x() + 8, tl.y() + 2, width + 12, height + 2)
        elif frame.zValue() <= -9.999:  # outermost frames: title above the frame when the header is tiny
            pill = QRectF(tl.x() + 4, tl.y() - height - 4, width + 12, height + 2)
            if any(other is not frame and pill.intersects(area) for other, area in outer):
                continue
        else:
            continue
        if any(pill.intersects(p) for p, _, _ in pills):
            continue
        pills.append((pill, text, frame))
    return pills


def paint_titles(
    painter: QPainter, rect: QRectF, frames: Iterable[GroupFrameItem], boxes: Iterable[CollapsedGroupItem]
) -> None:
    """Group titles (see :func:`title_pills`) and collapsed-group labels at a constant screen size."""
    world = painter.worldTransform()
    scale = world.m11()
    font = style.label_font(8.5, bold=True)
    fm = QFontMetricsF(font)
    height = fm.height()
    pills = title_pills(world, rect, frames)
    painter.save()
    painter.resetTransform()
    painter.setFont(font)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    for pill, text, frame in pills:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(_TITLE_FILL)
        painter.drawRoundedRect(pill, 4, 4)
        painter.setPen(style.SELECTION if frame.isSelected() else style.GROUP_TITLE)
        painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, text)
    small = style.label_font(7.5)
    fm_small = QFontMetricsF(small)
    for box in boxes:
        r = box.rect().translated(box.pos())
        if not box.isVisible() or not r.intersects(rect):
            continue
        w_px = r.width() * scale
        if w_px < 60 or r.height() * scale < height + 6:
            continue
        title, summary = box.texts()
        tl = world.map(r.topLeft())
        avail = w_px - 16
        painter.setFont(font)
        painter.setPen(style.SELECTION if box.isSelected() else style.GROUP_TITLE)
        text = fm.elidedText("\u25b8 " + title, Qt.TextElideMode.ElideMiddle, avail)
        painter.drawText(QRectF(tl.x() + 8, tl.y() + 5, avail, height), Qt.AlignmentFlag.AlignLeft, text)
        if r.height() * scale >= 2 * height + 12 and summary:
            painter.setFont(small)
            painter.setPen(style.GROUP_TITLE)
            text = fm_small.elidedText(summary, Qt.TextElideMode.ElideRight, avail)
            painter.drawText(QRectF(tl.x() + 8, tl.y() + 7 + height, avail, fm_small.height()),
                             Qt.AlignmentFlag.AlignLeft, text)
    painter.restore()

