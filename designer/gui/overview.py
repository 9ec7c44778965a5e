"""The overview (minimap): the whole design small, with the main view's area outlined.

Click or drag in the overview to move the main view there. It draws the same scene at a tiny
scale, where items paint their cheapest level of detail.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPen, QResizeEvent
from PySide6.QtWidgets import QGraphicsView

from designer.gui.scene import DesignScene
from designer.gui.view import DesignView


class Overview(QGraphicsView):
    def __init__(self, scene: DesignScene, main_view: DesignView) -> None:
        super().__init__(scene)
        self.main_view = main_view
        self.setInteractive(False)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setRenderHints(QPainter.RenderHint.Antialiasing)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)
        self.setMinimumSize(160, 110)
        main_view.viewport_changed.connect(self.viewport().update)
        scene.refreshed.connect(lambda _rebuilt: self.fit())

    def fit(self) -> None:
        rect = self.scene().itemsBoundingRect()
        if not rect.isEmpty():
            m = max(rect.width(), rect.height()) * 0.04
            self.fitInView(rect.adjusted(-m, -m, m, m), Qt.AspectRatioMode.KeepAspectRatio)
        self.viewport().update()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit()

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        area = self.main_view.visible_scene_rect()
        pen = QPen(QColor("#1E6FD9"), 1.5)
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.setBrush(QColor(30, 111, 217, 30))
        painter.drawRect(area)

    def _jump(self, event: QMouseEvent) -> None:
        self.main_view.centerOn(self.mapToScene(event.position().toPoint()))
        self.main_view.viewport_changed.emit()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._jump(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._jump(event)

    def wheelEvent(self, event) -> None:  # noqa: ANN001 - no zooming the overview
        event.accept()
