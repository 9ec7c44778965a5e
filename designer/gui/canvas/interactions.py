"""Mouse gestures on the canvas as objects: move a selection, draw a new link, pan.

The view starts one interaction per gesture and forwards mouse events to it until it ends.
Interactions change items only visually while the mouse moves; at the end they ask the editor
for one undo command (one "Move" per drag, one "Connect" per link).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QLineF, QPointF, Qt
from PySide6.QtGui import QColor, QMouseEvent, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsLineItem

from designer.gui.canvas.items import BOX_TYPE, DEVICE_TYPE, FRAME_TYPE, CollapsedGroupItem, DeviceItem
from designer.gui.canvas.shown import ShownKey
from designer.gui.style import GRID, SELECTION

if TYPE_CHECKING:
    from designer.gui.canvas.view import DesignView


def snap(value: float, grid: float = GRID) -> float:
    return round(value / grid) * grid


class Interaction:
    """One gesture; ``done`` is set when it has ended."""

    def __init__(self, view: DesignView) -> None:
        self.view = view
        self.done = False

    def mouse_move(self, event: QMouseEvent) -> None:
        pass

    def mouse_release(self, event: QMouseEvent) -> None:
        self.done = True

    def cancel(self) -> None:
        self.done = True


class MoveSelectionInteraction(Interaction):
    """Drag the selected devices, collapsed groups and group frames; snap to the grid.

    Items move visually while dragging and bundles follow; on release one MoveDevicesCommand
    moves the devices (for a group: all of its members) by the snapped offset.
    """

    def __init__(self, view: DesignView, anchor: QGraphicsItem, press_scene: QPointF) -> None:
        super().__init__(view)
        self.anchor = anchor
        scene = view.design_scene
        self.press = press_scene
        self.anchor_start = anchor.pos() if anchor.type() != FRAME_TYPE else anchor.boundingRect().center()
        items: dict[int, QGraphicsItem] = {}
        for item in scene.selectedItems():
            if item.type() in (DEVICE_TYPE, BOX_TYPE, FRAME_TYPE):
                items[id(item)] = item
                if item.type() == FRAME_TYPE:
                    for inner in _frame_contents(view, item.group_id):  # type: ignore[attr-defined]
                        items[id(inner)] = inner
        self.items = list(items.values())
        self.start = {id(it): it.pos() for it in self.items}
        self.shown = []
        for it in self.items:
            if it.type() == DEVICE_TYPE:
                self.shown.append(ShownKey.device(it.device_id))  # type: ignore[attr-defined]
            elif it.type() == BOX_TYPE:
                self.shown.append(ShownKey.group(it.group_id))  # type: ignore[attr-defined]
        self.offset = QPointF()
        self.moved = False

    def mouse_move(self, event: QMouseEvent) -> None:
        pos = self.view.mapToScene(event.position().toPoint())
        raw = pos - self.press
        if not self.moved and abs(raw.x()) + abs(raw.y()) < 3:
            return
        target = self.anchor_start + raw
        offset = QPointF(snap(target.x()) - self.anchor_start.x(), snap(target.y()) - self.anchor_start.y())
        if offset == self.offset:
            return
        self.offset = offset
        self.moved = True
        self.move_to(offset)

    def move_to(self, offset: QPointF) -> None:
        """Show the selection shifted by ``offset`` (scene units) from where the drag started."""
        for it in self.items:
            it.setPos(self.start[id(it)] + offset)
        self.view.design_scene.update_bundles_of(self.shown)

    def mouse_release(self, event: QMouseEvent) -> None:
        self.done = True
        for it in self.items:  # frames go back: their rect is recomputed from the model
            if it.type() == FRAME_TYPE:
                it.setPos(0, 0)
        if self.moved and (self.offset.x() or self.offset.y()):
            self.view.editor.commit_move(self.items, self.offset)
        elif not self.moved:
            # a click (no drag) on one of several selected items selects just that item
            scene = self.view.design_scene
            if len(scene.selectedItems()) > 1:
                scene.clearSelection()
                self.anchor.setSelected(True)

    def cancel(self) -> None:
        """Abandon the drag: items go back to where the model has them (it may have changed meanwhile)."""
        self.view.design_scene.restore_positions(self.items)
        self.done = True


def _frame_contents(view: DesignView, group_id: str) -> list[QGraphicsItem]:
    """Shown items inside an expanded group: member devices, sub-frames and collapsed sub-groups."""
    scene = view.design_scene
    design = scene.design
    assert design is not None
    out: list[QGraphicsItem] = []
    stack = [group_id]
    while stack:
        gid = stack.pop()
        for dev in design.members(gid):
            item = scene.device_items.get(dev.id)
            if item is not None:
                out.append(item)
        for child in design.child_groups(gid):
            if child.id in scene.boxes:
                out.append(scene.boxes[child.id])
            elif child.id in scene.frames:
                out.append(scene.frames[child.id])
                stack.append(child.id)
    return out


class NewLinkInteraction(Interaction):
    """Drag from a port (or a device) to a port (or a device) to connect them."""

    def __init__(self, view: DesignView, source: DeviceItem, port: str | None) -> None:
        super().__init__(view)
        self.source = source
        self.port = port
        start = source.mapToScene(source.port_centre(port)) if port else source.pos()
        self.line = QGraphicsLineItem(QLineF(start, start))
        pen = QPen(QColor(SELECTION), 2, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self.line.setPen(pen)
        self.line.setZValue(100)
        view.scene().addItem(self.line)

    def _target(self, scene_pos: QPointF) -> tuple[QGraphicsItem | None, str | None]:
        for item in self.view.scene().items(scene_pos):
            if item is self.line or item is self.source:
                continue
            if item.type() == DEVICE_TYPE:
                assert isinstance(item, DeviceItem)
                visible = item.ports_visible(self.view.scale_factor())
                return item, item.port_at(item.mapFromScene(scene_pos)) if visible else None
            if item.type() == BOX_TYPE:
                return item, None
        return None, None

    def mouse_move(self, event: QMouseEvent) -> None:
        pos = self.view.mapToScene(event.position().toPoint())
        target, port = self._target(pos)
        end = target.mapToScene(target.port_centre(port)) if (target is not None and port) else pos  # type: ignore[attr-defined]
        self.line.setLine(QLineF(self.line.line().p1(), end))

    def mouse_release(self, event: QMouseEvent) -> None:
        self.done = True
        self.view.scene().removeItem(self.line)
        pos = self.view.mapToScene(event.position().toPoint())
        target, port = self._target(pos)
        if target is None:
            return
        if isinstance(target, CollapsedGroupItem):
            self.view.editor.status(f"expand {target.group_id} to connect to one of its devices")
            return
        assert isinstance(target, DeviceItem)
        self.view.editor.connect_ports(self.source.device_id, self.port, target.device_id, port)

    def cancel(self) -> None:
        if shiboken6.isValid(self.line) and self.line.scene() is not None:
            self.view.scene().removeItem(self.line)
        self.done = True


class PanInteraction(Interaction):
    """Drag the canvas with the middle button (or Space + left button)."""

    def __init__(self, view: DesignView, event: QMouseEvent) -> None:
        super().__init__(view)
        self.last = event.position()
        view.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)

    def mouse_move(self, event: QMouseEvent) -> None:
        delta = event.position() - self.last
        self.last = event.position()
        h, v = self.view.horizontalScrollBar(), self.view.verticalScrollBar()
        h.setValue(h.value() - int(delta.x()))
        v.setValue(v.value() - int(delta.y()))

    def mouse_release(self, event: QMouseEvent) -> None:
        self.done = True
        self.view.viewport().unsetCursor()

    def cancel(self) -> None:
        self.done = True
        self.view.viewport().unsetCursor()
