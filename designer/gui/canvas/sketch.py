"""The zoomed-out picture of a scene, drawn in a handful of batched calls.

Below :data:`designer.gui.style.LOD_SKETCH` zoom, items stop painting themselves (they get
``ItemHasNoContents`` but stay selectable and hit-testable) and the scene draws this sketch
instead: one ``drawRects`` per device colour and one ``drawLines`` per link pen, rather than one
Python ``paint()`` call per item. The overview (minimap) draws the same sketch.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import compress
from operator import attrgetter
from typing import TYPE_CHECKING

from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QPainter, QPen

from designer.gui import style
from designer.gui.canvas.items import box_fill
from designer.model import Design
from designer.model.geometry import device_box

if TYPE_CHECKING:
    from designer.gui.canvas.scene import DesignScene

_FAILED = attrgetter("failed")


class Sketch:
    """Rectangles and lines of everything shown, grouped by how they are drawn."""

    def __init__(self, scene: DesignScene) -> None:
        self.frames: dict[str, list[QRectF]] = defaultdict(list)
        self.devices: dict[str, list[QRectF]] = defaultdict(list)  # kind (or "flagged:<level>") -> rects
        self.boxes: dict[str, list[QRectF]] = defaultdict(list)  # group kind -> collapsed boxes
        #: boxes holding a device with a design-rule finding, by the worst level (red or amber edge)
        self.flagged_boxes: dict[str, list[QRectF]] = defaultdict(list)
        self.lines: dict[int, list[QLineF]] = defaultdict(list)  # id(pen) -> lines (pens are shared)
        self.pens: dict[int, QPen] = {}
        self.selected_rects: list[QRectF] = []
        self.selected_lines: list[QLineF] = []
        self.bounds = QRectF()
        for frame in scene.frames.values():
            if frame.isVisible():
                r = frame.rect().translated(frame.pos())
                self.frames[frame.kind].append(r)
                if frame.isSelected():
                    self.selected_rects.append(r)
        for bundle in scene.bundle_items.values():
            p1, p2 = bundle.ends()
            off = bundle.pos()
            line = QLineF(p1 + off, p2 + off)
            pen = bundle.draw_pen()
            key = id(pen)
            if key not in self.pens:
                self.pens[key] = pen
            self.lines[key].append(line)
            if bundle.isSelected():
                self.selected_lines.append(line)
        devices = self.devices
        selected = self.selected_rects
        for item in scene.device_items.values():
            r = item.rect().translated(item.pos())
            devices[f"flagged:{item.flagged}" if item.flagged else item.kind].append(r)
            if item.isSelected():
                selected.append(r)
        for box in scene.boxes.values():
            if box.isVisible():
                r = box.rect().translated(box.pos())
                self.boxes[box.kind].append(r)
                if box.flagged:
                    self.flagged_boxes[box.flagged].append(r)
                if box.isSelected():
                    self.selected_rects.append(r)
        #: devices whose links are all down (a failed switch), where they are even inside a
        #: collapsed box (the box covers its members' places; the rest of it did not fail)
        self.failed_rects: list[QRectF] = []
        for did in failed_devices(scene.design) if scene.design is not None else ():
            dev = scene.design.device(did)
            w, h = device_box(dev.kind, dev.port_count)
            self.failed_rects.append(QRectF(dev.x - w / 2, dev.y - h / 2, w, h))
        for group in (*self.frames.values(), *self.devices.values(), *self.boxes.values()):
            for r in group:
                self.bounds = self.bounds.united(r)

    def paint(self, painter: QPainter) -> None:
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        border = QPen(style.GROUP_BORDER, 1)
        border.setCosmetic(True)
        painter.setPen(border)
        for kind, rects in self.frames.items():
            painter.setBrush(style.GROUP_FILLS.get(kind, style.GROUP_FILLS["custom"]))
            painter.drawRects(rects)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for key, lines in self.lines.items():
            # solid and at most 2 px: dashes and wide strokes cost a lot and show little when small
            pen = QPen(self.pens[key].color(), min(self.pens[key].widthF(), 2.0))
            pen.setCosmetic(True)
            painter.setPen(pen)
            painter.drawLines(lines)
        painter.setPen(Qt.PenStyle.NoPen)
        for kind, rects in self.devices.items():
            if kind.startswith("flagged:"):
                painter.setBrush(style.flag_colour(kind.partition(":")[2]))
            else:
                painter.setBrush(style.KIND_STYLES.get(kind, style.KIND_STYLES["storage"]).accent)
            painter.drawRects(rects)
        if self.boxes:
            edge = QPen(style.GROUP_BORDER, 1)
            edge.setCosmetic(True)
            painter.setPen(edge)
            for kind, rects in self.boxes.items():
                painter.setBrush(box_fill(kind))  # the colour the box has when zoomed in
                painter.drawRects(rects)
        for level, rects in self.flagged_boxes.items():
            edge = QPen(style.flag_colour(level), 2.5)
            edge.setCosmetic(True)
            painter.setPen(edge)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRects(rects)
        if self.failed_rects:
            edge = QPen(style.FAILED_EDGE, style.FAILED_EDGE_PX)
            edge.setCosmetic(True)
            painter.setPen(edge)
            painter.setBrush(style.FAILED_COLOUR)
            painter.drawRects(self.failed_rects)
        if self.selected_rects or self.selected_lines:
            sel = QPen(style.SELECTION, 2.5)
            sel.setCosmetic(True)
            painter.setPen(sel)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRects(self.selected_rects)
            painter.drawLines(self.selected_lines)
        painter.restore()


def failed_devices(design: Design) -> list[str]:
    """Devices with links, every one of them failed (a switch, NIC or GPU taken out of service)."""
    links = design.links
    failed = list(compress(links, map(_FAILED, links)))  # a column at a time: 655,360 links at 131,072 GPUs
    touched = dict.fromkeys(end for lk in failed for end in (lk.a_device, lk.b_device))
    return [did for did in touched if all(lk.failed for lk in design.links_of(did))]
