"""Painting helpers of the scene: the background grid and the group titles layer."""

from __future__ import annotations

from collections.abc import Callable, Iterable

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


def _depth(frame: GroupFrameItem) -> int:
    """Nesting depth of a frame (0 = outermost), from the z value the group shapes give it."""
    return max(0, round((frame.zValue() + 10) / 0.01))


def _pin(pill: QRectF, area: QRectF, view: QRectF, top: float) -> QRectF:
    """``pill`` moved into ``view`` (its top at least ``top``) while it stays inside ``area``."""
    x = min(max(pill.left(), view.left() + 8), area.right() - pill.width() - 4)
    y = min(max(pill.top(), top), area.bottom() - pill.height() - 4)
    return QRectF(max(x, pill.left()), max(y, pill.top()), pill.width(), pill.height())


def _along_top(area: QRectF, width: float, height: float) -> list[QRectF]:
    """Places for a title along the top edge of a frame (device pixels): above it, then inside it,
    from the left, in steps of half a title."""
    step = max(24.0, width / 2)
    count = max(1, min(16, int((area.width() - width - 12) // step) + 1))
    return [QRectF(area.left() + 4 + i * step, y, width, height)
            for y in (area.top() - height - 2, area.top() + 4) for i in range(count)]


def title_pills(
    world: QTransform, rect: QRectF, frames: Iterable[GroupFrameItem], view: QRectF | None = None,
    free: Callable[[QRectF], bool] | None = None,
) -> list[tuple[QRectF, str, GroupFrameItem]]:
    """Where group titles go, in device pixels: ``(pill, text, frame)`` for each title shown.

    A frame's title sits in its header band when the band is tall enough for the text. When it
    is not (zoomed out), an outermost group's title goes above the frame, or, when that would
    cover another frame and the devices are drawn as plain boxes, inside the frame's top-left
    corner (inner groups have no title then).
    With ``view`` (the visible area, device pixels) a title whose place has scrolled out of
    sight is pinned to the top-left of the visible part of its frame, below the titles of the
    frames around it, so the groups under the window stay named at any zoom. A title that would
    cover another title is left out.

    ``free(scene_rect)`` says whether a place covers no device or collapsed box; with it, an
    outermost title whose place above the frame is taken slides along the frame's top edge (above
    it, then inside it) to the first place that covers nothing, so a frame with devices or another
    frame just above it keeps its title at the zoom the window opens with.
    """
    inverse = world.inverted()[0]
    scale = world.m11()
    fm = QFontMetricsF(style.label_font(8.5, bold=True))
    height = fm.height()
    shown = [f for f in frames if f.isVisible()]
    outer = [(f, world.mapRect(f.rect())) for f in shown if f.zValue() <= -9.999]
    pills: list[tuple[QRectF, str, GroupFrameItem]] = []
    header_fits = style.GROUP_HEADER * scale >= height
    for frame in sorted(shown, key=_depth):
        r = frame.rect()
        if not r.intersects(rect):
            continue
        text = "\u25be " + frame.title()
        width = fm.horizontalAdvance(text)
        area = world.mapRect(r)
        if area.width() < width + 28 or area.height() < height + 10:
            continue
        if header_fits:
            pill = QRectF(area.left() + 8, area.top() + 2, width + 12, height + 2)
        elif frame.zValue() <= -9.999:  # outermost frames: title above the frame when the header is tiny
            pill = QRectF(area.left() + 4, area.top() - height - 4, width + 12, height + 2)
            crowded = any(other is not frame and pill.intersects(a) for other, a in outer)
            if free is not None and (crowded or not free(inverse.mapRect(pill))):
                place = next((p for p in _along_top(area, width + 12, height + 2)
                              if not any(other is not frame and p.intersects(a) for other, a in outer)
                              and not any(p.intersects(q) for q, _, _ in pills) and free(inverse.mapRect(p))),
                             None)
                if place is not None:
                    pill, crowded = place, False
            if crowded:
                if scale >= style.LOD_BOX_ONLY:  # devices are drawn in detail: cover none
                    continue
                pill = QRectF(area.left() + 8, area.top() + 4, width + 12, height + 2)  # inside, top left
        else:
            continue
        if view is not None and not view.contains(pill):
            pill = _pin(pill, area, view, view.top() + 2 + _depth(frame) * (height + 5))
            if not view.contains(pill):
                continue
        if any(pill.intersects(p) for p, _, _ in pills):
            continue
        pills.append((pill, text, frame))
    return pills


def box_labels(
    world: QTransform, rect: QRectF, boxes: Iterable[CollapsedGroupItem], view: QRectF | None = None,
    titles: Iterable[QRectF] = (),
) -> list[tuple[QRectF, CollapsedGroupItem]]:
    """Where collapsed-group labels go, in device pixels: ``(text area, box)`` for each label shown.

    The label sits in the box's top-left corner; with ``view`` it is pinned inside the visible
    part of the box, so a box larger than the window still says what it is. A group title
    (``titles``, the pills of :func:`title_pills`) over that corner pushes the label down below it,
    or hides it when the box has no room left, so the two never print over each other.
    """
    titles = list(titles)
    scale = world.m11()
    height = QFontMetricsF(style.label_font(8.5, bold=True)).height()
    out = []
    for box in boxes:
        r = box.rect().translated(box.pos())
        if not box.isVisible() or not r.intersects(rect):
            continue
        if r.width() * scale < 60 or r.height() * scale < height + 6:
            continue
        area = world.mapRect(r)
        if view is not None:
            area = area.intersected(view)
            if area.width() < 60 or area.height() < height + 6:
                continue
        text = QRectF(area.left() + 8, area.top() + 5, area.width() - 16, area.height() - 10)
        below = [t.bottom() for t in titles if t.intersects(QRectF(text.left(), text.top(), text.width(), height))]
        if below:
            text.setTop(max(below) + 2)
            if text.height() < height:
                continue
        out.append((text, box))
    return out



def summary_lines(summary: str, fm: QFontMetricsF, width: float, room: int) -> list[str]:
    """A collapsed box's summary (``4 servers \u00b7 32 GPUs \u00b7 32 NICs``) over up to ``room`` lines of
    ``width``, broken between its parts; only the last line is elided when it all does not fit."""
    lines: list[str] = []
    for part in summary.split(" \u00b7 "):
        joined = f"{lines[-1]} \u00b7 {part}" if lines else part
        if lines and fm.horizontalAdvance(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(part)
    if len(lines) > room:
        lines = lines[:room - 1] + [" \u00b7 ".join(lines[room - 1:])]
    return [fm.elidedText(line, Qt.TextElideMode.ElideRight, width) for line in lines]

def paint_titles(
    painter: QPainter, rect: QRectF, frames: Iterable[GroupFrameItem], boxes: Iterable[CollapsedGroupItem],
    free: Callable[[QRectF], bool] | None = None,
) -> bool:
    """Group titles (see :func:`title_pills`) and collapsed-group labels (:func:`box_labels`) at a
    constant screen size, kept inside the painted device. Returns whether a title was pinned
    (moved from its place to stay in sight), so the view knows to repaint them all on a scroll."""
    world = painter.worldTransform()
    font = style.label_font(8.5, bold=True)
    fm = QFontMetricsF(font)
    height = fm.height()
    device = painter.device()
    view = QRectF(0, 0, device.width(), device.height()) if device is not None else None
    if view is not None:  # every title in sight, not only those in the part being repainted
        inverse, ok = world.inverted()
        if ok:
            rect = rect.united(inverse.mapRect(view))
    frames = list(frames)
    pills = title_pills(world, rect, frames, view, free)
    pinned = False
    painter.save()
    painter.resetTransform()
    painter.setFont(font)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    for pill, text, frame in pills:
        tl = world.map(frame.rect().topLeft())
        pinned = pinned or pill.left() > tl.x() + 9 or pill.top() > tl.y() + 5
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(_TITLE_FILL)
        painter.drawRoundedRect(pill, 4, 4)
        painter.setPen(style.SELECTION if frame.isSelected() else style.GROUP_TITLE)
        painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, text)
    small = style.label_font(7.5)
    fm_small = QFontMetricsF(small)
    for area, box in box_labels(world, rect, boxes, view, [p for p, _, _ in pills]):
        title, summary = box.texts()
        tl = world.map(box.rect().translated(box.pos()).topLeft())
        pinned = pinned or area.left() > tl.x() + 9 or area.top() > tl.y() + 6
        avail = area.width()
        painter.setFont(font)
        painter.setPen(style.SELECTION if box.isSelected() else style.GROUP_TITLE)
        text = fm.elidedText("\u25b8 " + title, Qt.TextElideMode.ElideMiddle, avail)
        painter.drawText(QRectF(area.left(), area.top(), avail, height), Qt.AlignmentFlag.AlignLeft, text)
        if area.height() >= 2 * height + 2 and summary:
            painter.setFont(small)
            painter.setPen(style.GROUP_TITLE)
            room = max(1, int((area.height() - height - 2) // fm_small.height()))
            for i, line in enumerate(summary_lines(summary, fm_small, avail, room)):
                painter.drawText(QRectF(area.left(), area.top() + 2 + height + i * fm_small.height(), avail,
                                        fm_small.height()), Qt.AlignmentFlag.AlignLeft, line)
    painter.restore()
    return pinned
