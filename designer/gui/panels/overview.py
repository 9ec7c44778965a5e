"""The overview (minimap): the whole design small, with the main view's area outlined.

It draws the scene's batched sketch (a few ``drawRects``/``drawLines`` calls, however big the
design), so it costs little to keep up to date. Click or drag in it to move the main view.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QSize, Qt
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen, QTransform
from PySide6.QtWidgets import QWidget

from designer.gui import style
from designer.gui.canvas.scene import DesignScene
from designer.gui.canvas.view import DesignView


class Overview(QWidget):
    def __init__(self, scene: DesignScene, main_view: DesignView) -> None:
        super().__init__()
        self.scene = scene
        self.main_view = main_view
        self.setMinimumSize(160, 110)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        main_view.viewport_changed.connect(self.update)
        scene.sketch_changed.connect(self.update)
        scene.refreshed.connect(self._on_scene_refreshed)

    def _on_scene_refreshed(self, rebuilt: bool) -> None:
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(300, 190)

    def transform(self) -> QTransform | None:
        """Scene -> widget transform that fits the design, or None for an empty design."""
        bounds = self.scene.sketch().bounds
        if bounds.isEmpty():
            return None
        m = max(bounds.width(), bounds.height()) * 0.04 + 10
        bounds = bounds.adjusted(-m, -m, m, m)
        s = min(self.width() / bounds.width(), self.height() / bounds.height())
        dx = (self.width() - bounds.width() * s) / 2 - bounds.left() * s
        dy = (self.height() - bounds.height() * s) / 2 - bounds.top() * s
        return QTransform(s, 0, 0, s, dx, dy)

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), style.BACKGROUND)
        t = self.transform()
        if t is not None:
            p.setTransform(t)
            self.scene.sketch().paint(p)
            pen = QPen(style.SELECTION, 1.5)
            pen.setCosmetic(True)
            p.setPen(pen)
            p.setBrush(QColor(30, 111, 217, 30))
            p.drawRect(self.main_view.visible_scene_rect())
        else:
            p.setPen(style.GROUP_TITLE)
            p.setFont(style.label_font(9))
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "empty design")
        p.end()

    def scene_pos(self, pos: QPointF) -> QPointF | None:
        t = self.transform()
        if t is None:
            return None
        inv, ok = t.inverted()
        return inv.map(pos) if ok else None

    def _jump(self, event: QMouseEvent) -> None:
        target = self.scene_pos(event.position())
        if target is not None:
            self.main_view.centerOn(target)
            self.main_view.viewport_changed.emit()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._jump(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._jump(event)
