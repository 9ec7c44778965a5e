"""The canvas view: zoom, pan, level of detail, drops, and dispatch of mouse gestures.

Wheel zooms around the cursor (Ctrl/Shift + wheel scrolls); +/- zoom, arrow keys pan, middle
button or Space + drag pans. A left drag starting on a port draws a link; Alt + drag from a
device (or any drag in connect mode) connects devices; a drag on a selected object moves the
selection; a drag on the background draws a rubber band.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QMimeData, QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent, QKeyEvent, QMouseEvent, QPainter, QWheelEvent
from PySide6.QtWidgets import QGraphicsItem, QGraphicsView

from designer.gui import style
from designer.gui.canvas.interactions import (
    Interaction,
    MoveSelectionInteraction,
    NewLinkInteraction,
    PanInteraction,
)
from designer.gui.canvas.items import BOX_TYPE, BUNDLE_TYPE, DEVICE_TYPE, FRAME_TYPE, DeviceItem
from designer.gui.style import LOD_SKETCH

if TYPE_CHECKING:
    from designer.gui.canvas.editor import Editor
    from designer.gui.canvas.scene import DesignScene

EMPTY_TITLE = "Empty design"
EMPTY_HINT = (
    "Drag components from the palette onto the canvas, or build a fabric with "
    "Design \u25b8 Generate\u2026 (Ctrl+Alt+G). Open a design with Ctrl+O or drop its file here."
)
#: Height of the band along the top of the window where pinned titles go (pixels; three times as
#: wide along the left edge).
_PIN_BAND = 100
MIN_SCALE = 0.004
MAX_SCALE = 6.0


class DesignView(QGraphicsView):
    """A view of a :class:`DesignScene` that turns mouse gestures into editor requests."""

    zoom_changed = Signal(float)
    viewport_changed = Signal()

    def __init__(self, scene: DesignScene, editor: Editor) -> None:
        super().__init__(scene)
        self.design_scene = scene
        self.editor = editor
        self.interaction: Interaction | None = None
        self.connect_mode = False
        self._space = False
        self._was_empty = True
        #: the view shows the whole design as zoom_to_fit left it (no zoom since): a resize refits
        self.fitted = False
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        flags = QGraphicsView.OptimizationFlag
        self.setOptimizationFlags(flags.DontSavePainterState | flags.DontAdjustForAntialiasing)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheNone)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setRubberBandSelectionMode(Qt.ItemSelectionMode.IntersectsItemShape)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setAcceptDrops(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        scene.refreshed.connect(self._on_scene_refreshed)
        self.horizontalScrollBar().valueChanged.connect(self.viewport_changed)
        self.verticalScrollBar().valueChanged.connect(self.viewport_changed)

    # ------------------------------------------------------------------ zoom and pan
    def scale_factor(self) -> float:
        return self.transform().m11()

    def zoom_by(self, factor: float) -> None:
        current = self.scale_factor()
        factor = max(MIN_SCALE / current, min(MAX_SCALE / current, factor))
        self.scale(factor, factor)
        self.fitted = False
        self._zoomed()

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        """Keep showing the whole design while it was fitted (the window's first layout, a dock
        opened or closed); a view the user zoomed keeps its zoom."""
        super().resizeEvent(event)
        if self.fitted and not event.size().isEmpty() and event.size() != event.oldSize():
            self.zoom_to_fit()

    def _zoomed(self) -> None:
        self.design_scene.set_sketched(self.scale_factor() < LOD_SKETCH)
        self.zoom_changed.emit(self.scale_factor())
        self.viewport_changed.emit()

    def zoom_in(self) -> None:
        self.zoom_by(1.25)

    def zoom_out(self) -> None:
        self.zoom_by(0.8)

    def zoom_reset(self) -> None:
        """Actual size (100 %), centred on the selection, or on what the window centres now."""
        selected = self.design_scene.selectedItems()
        if selected:
            area = QRectF()
            for item in selected:
                area = area.united(item.sceneBoundingRect())
            centre = area.center()
        else:
            centre = self.mapToScene(self.viewport().rect().center())
        anchor = self.transformationAnchor()
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
        self.zoom_by(1.0 / self.scale_factor())
        self.setTransformationAnchor(anchor)
        self.centerOn(centre)
        self.viewport_changed.emit()

    def zoom_to_fit(self, rect: QRectF | None = None) -> None:
        """Show everything (or ``rect``) with a margin; never enlarge beyond 150 %."""
        everything = self.design_scene.itemsBoundingRect()
        if rect is None:
            rect = everything
        if rect.isEmpty():
            rect = QRectF(-400, -300, 800, 600)
        margin = max(rect.width(), rect.height()) * 0.03 + 20
        rect = rect.adjusted(-margin, -margin, margin, margin)
        self.setSceneRect(everything.united(rect).adjusted(-2000, -2000, 2000, 2000))
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        if self.scale_factor() > 1.5:
            self.zoom_by(1.5 / self.scale_factor())
        self.centerOn(rect.center())
        self._zoomed()
        self.fitted = True

    def cancel_interaction(self) -> None:
        """End the gesture in progress (Escape, or the design changed under it) without an edit."""
        if self.interaction is not None:
            interaction, self.interaction = self.interaction, None
            interaction.cancel()

    def _on_scene_refreshed(self, rebuilt: bool) -> None:
        """Keep the scroll range around everything, with room to place things beyond it.

        A change of the design during a gesture (an undo by shortcut while dragging) ends the
        gesture: its items may be gone or elsewhere, so finishing it would edit stale things.
        """
        self.cancel_interaction()
        empty = self.is_empty()
        if empty != self._was_empty:  # the hint comes or goes: repaint all of it, not just the items
            self._was_empty = empty
            self.viewport().update()
        r = self.design_scene.itemsBoundingRect().adjusted(-2000, -2000, 2000, 2000)
        if not self.sceneRect().contains(r):
            self.setSceneRect(self.sceneRect().united(r))

    def is_empty(self) -> bool:
        d = self.design_scene.design
        return d is None or d.device_count() == 0

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        """Above the scene: on an empty design, say how to start (a blank canvas looks broken)."""
        super().drawForeground(painter, rect)
        if not self.is_empty():
            return
        painter.save()
        painter.resetTransform()
        area = QRectF(self.viewport().rect()).adjusted(40, 40, -40, -40)
        painter.setPen(style.GROUP_TITLE)
        painter.setFont(style.label_font(13, bold=True))
        head = QRectF(area.left(), area.center().y() - 40, area.width(), 28)
        painter.drawText(head, Qt.AlignmentFlag.AlignCenter, EMPTY_TITLE)
        painter.setFont(style.label_font(10))
        body = QRectF(area.left(), head.bottom() + 6, area.width(), 60)
        painter.drawText(body, Qt.AlignmentFlag.AlignHCenter | Qt.TextFlag.TextWordWrap, EMPTY_HINT)
        painter.restore()

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        if self.is_empty() or self.design_scene.titles_pinned:
            # the hint, and titles pinned inside the window, stay put: repaint them, not scroll their pixels
            self.viewport().update()
        elif self.design_scene.frames or self.design_scene.boxes:
            # a title may become pinned along the top or left edge
            vp = self.viewport().rect()
            self.viewport().update(QRect(0, 0, vp.width(), _PIN_BAND))
            self.viewport().update(QRect(0, 0, _PIN_BAND * 3, vp.height()))

    def centre_on_item(self, item: QGraphicsItem, zoom: float | None = 1.0) -> None:
        if zoom is not None and self.scale_factor() < zoom:
            self.zoom_by(zoom / self.scale_factor())
        self.centerOn(item)
        self.viewport_changed.emit()

    def visible_scene_rect(self) -> QRectF:
        return self.mapToScene(self.viewport().rect()).boundingRect()

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier):
            super().wheelEvent(event)
            return
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.zoom_by(1.2**steps)
        event.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        step = 60
        h, v = self.horizontalScrollBar(), self.verticalScrollBar()
        if key == Qt.Key.Key_Escape and self.interaction is not None:
            self.cancel_interaction()
        elif key == Qt.Key.Key_Left:
            h.setValue(h.value() - step)
        elif key == Qt.Key.Key_Right:
            h.setValue(h.value() + step)
        elif key == Qt.Key.Key_Up:
            v.setValue(v.value() - step)
        elif key == Qt.Key.Key_Down:
            v.setValue(v.value() + step)
        elif key == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
        else:
            super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = False
            self.viewport().unsetCursor()
        super().keyReleaseEvent(event)

    # ------------------------------------------------------------------ gestures
    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.cancel_interaction()
        button = event.button()
        if button == Qt.MouseButton.MiddleButton or (button == Qt.MouseButton.LeftButton and self._space):
            self.interaction = PanInteraction(self, event)
            event.accept()
            return
        if button != Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        scene_pos = self.mapToScene(event.position().toPoint())
        item = self._item_at(scene_pos)
        if item is None:
            super().mousePressEvent(event)  # rubber band
            return
        mods = event.modifiers()
        t = item.type()
        if t == DEVICE_TYPE:
            assert isinstance(item, DeviceItem)
            visible = item.ports_visible(self.scale_factor())
            port = item.port_at(item.mapFromScene(scene_pos)) if visible else None
            if port is not None or self.connect_mode or mods & Qt.KeyboardModifier.AltModifier:
                self.interaction = NewLinkInteraction(self, item, port)
                event.accept()
                return
        if mods & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier):
            item.setSelected(not item.isSelected())
            event.accept()
            return
        if not item.isSelected():
            self.design_scene.clearSelection()
            item.setSelected(True)
        if t in (DEVICE_TYPE, BOX_TYPE, FRAME_TYPE):
            self.interaction = MoveSelectionInteraction(self, item, scene_pos)
        event.accept()

    def _item_at(self, scene_pos: QPointF) -> QGraphicsItem | None:
        for item in self.design_scene.items(scene_pos):
            if item.type() in (DEVICE_TYPE, BOX_TYPE, BUNDLE_TYPE, FRAME_TYPE):
                return item
        return None

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self.interaction is not None:
            self.interaction.mouse_move(event)
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self.interaction is not None:
            interaction, self.interaction = self.interaction, None
            interaction.mouse_release(event)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        item = self._item_at(self.mapToScene(event.position().toPoint()))
        if item is not None and item.type() in (FRAME_TYPE, BOX_TYPE):
            self.editor.set_collapsed([item.group_id], item.type() == FRAME_TYPE)  # type: ignore[attr-defined]
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    # ------------------------------------------------------------------ drops
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self.editor.accepts_drop(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if self.editor.accepts_drop(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        pos = self.mapToScene(event.position().toPoint())
        if self.handle_drop(event.mimeData(), pos):
            event.acceptProposedAction()
        else:
            event.ignore()

    def handle_drop(self, mime: QMimeData, scene_pos: QPointF) -> bool:
        self.setFocus()
        return self.editor.drop(mime, scene_pos)
