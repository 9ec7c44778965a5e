"""The legend: what the colours, dashes and widths on the canvas mean."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from designer.gui import style


class Legend(QWidget):
    """Device kinds (box colours) and link media (line colour and dash), and the width scale."""

    ROW = 19

    def __init__(self) -> None:
        super().__init__()
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)

    def _rows(self) -> int:
        return max(len(style.KIND_STYLES), len(style.MEDIUM_STYLES)) + 2

    def sizeHint(self) -> QSize:
        return QSize(250, 12 + self._rows() * self.ROW)

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        f = style.label_font(8.5)
        p.setFont(f)
        col = self.width() / 2
        y = 8
        for ks in style.KIND_STYLES.values():
            p.setPen(ks.accent)
            p.setBrush(ks.fill)
            p.drawRoundedRect(QRectF(8, y + 2, 20, 13), 3, 3)
            p.fillRect(QRectF(9, y + 4, 3, 9), ks.accent)
            p.setPen(self.palette().text().color())
            p.drawText(QRectF(34, y, col - 36, self.ROW), Qt.AlignmentFlag.AlignVCenter, ks.title)
            y += self.ROW
        y = 8
        for ms in style.MEDIUM_STYLES.values():
            pen = QPen(ms.colour, 2.6)
            pen.setStyle(ms.dash)
            p.setPen(pen)
            p.drawLine(QPointF(col, y + 9.5), QPointF(col + 24, y + 9.5))
            p.setPen(self.palette().text().color())
            p.drawText(QRectF(col + 30, y, self.width() - col - 30, self.ROW), Qt.AlignmentFlag.AlignVCenter, ms.title)
            y += self.ROW
        y = 8 + self._rows() * self.ROW - 2 * self.ROW + 4
        p.setPen(QPen(style.WARNING, 2.6))
        p.drawLine(QPointF(8, y + 9.5), QPointF(28, y + 9.5))
        p.setPen(self.palette().text().color())
        p.drawText(QRectF(34, y, self.width() - 36, self.ROW), Qt.AlignmentFlag.AlignVCenter,
                   "breaks a design rule (hover for why)")
        y += self.ROW
        x = 8.0
        for gbps, label in ((100, "100G"), (400, "400G"), (3600, "3.6T")):
            p.setPen(QPen(style.MIXED_MEDIUM.colour, style.link_width_px(gbps)))
            p.drawLine(QPointF(x, y + 9.5), QPointF(x + 18, y + 9.5))
            p.setPen(self.palette().text().color())
            p.drawText(QRectF(x + 21, y, 40, self.ROW), Qt.AlignmentFlag.AlignVCenter, label)
            x += 62
        p.drawText(QRectF(x, y, self.width() - x, self.ROW), Qt.AlignmentFlag.AlignVCenter, "width = bandwidth")
        p.end()
