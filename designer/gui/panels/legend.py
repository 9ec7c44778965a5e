"""The legend: what the colours, dashes and widths on the canvas mean."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from designer.gui import style


class Legend(QWidget):
    """Device kinds (box colours) and link media (line colour and dash), and the width scale."""

    ROW = 19

    def __init__(self) -> None:
        super().__init__()
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        #: links are coloured by utilisation (the colour bar replaces the media rows)
        self.utilisation = False

    def set_utilisation_scale(self, on: bool) -> None:
        """Show the utilisation colour bar (the canvas overlay is on) or the media."""
        self.utilisation = on
        self.updateGeometry()
        self.update()

    def _rows(self) -> int:
        media = 4 if self.utilisation else len(style.MEDIUM_STYLES)
        return len(style.KIND_STYLES) + media + 4

    def sizeHint(self) -> QSize:
        return QSize(230, 10 + self._rows() * self.ROW)

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setFont(style.label_font(8.5))
        text = self.palette().text().color()
        y = 6.0
        width = self.width()

        def label(s: str) -> None:
            p.setPen(text)
            p.drawText(QRectF(40, y, width - 42, self.ROW), Qt.AlignmentFlag.AlignVCenter, s)

        for ks in style.KIND_STYLES.values():
            p.setPen(ks.accent)
            p.setBrush(ks.fill)
            p.drawRoundedRect(QRectF(8, y + 3, 24, 13), 3, 3)
            p.fillRect(QRectF(9, y + 5, 3, 9), ks.accent)
            label(ks.title)
            y += self.ROW
        if self.utilisation:
            y = self._paint_scale(p, y, text)
        else:
            for ms in style.MEDIUM_STYLES.values():
                pen = QPen(ms.colour, 2.6)
                pen.setStyle(ms.dash)
                p.setPen(pen)
                p.drawLine(QPointF(8, y + 9.5), QPointF(32, y + 9.5))
                label(ms.title)
                y += self.ROW
        for level, words in ((style.ERROR, "design-rule error (hover: why)"),
                             (style.WARN, "design-rule warning (hover: why)")):
            p.setPen(QPen(style.flag_colour(level), 2.6))
            p.drawLine(QPointF(8, y + 9.5), QPointF(32, y + 9.5))
            label(words)
            y += self.ROW
        p.setPen(QPen(style.SELECTION, 2))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRoundedRect(QRectF(8, y + 3, 24, 13), 3, 3)
        label("collapsed group: double-click")
        y += self.ROW
        x = 8.0
        for gbps, name in ((100, "100G"), (400, "400G"), (3600, "3.6T")):
            p.setPen(QPen(style.MIXED_MEDIUM.colour, style.link_width_px(gbps)))
            p.drawLine(QPointF(x, y + 9.5), QPointF(x + 16, y + 9.5))
            p.setPen(text)
            p.drawText(QRectF(x + 19, y, 40, self.ROW), Qt.AlignmentFlag.AlignVCenter, name)
            x += 56
        p.end()

    def _paint_scale(self, p: QPainter, y: float, text: QColor) -> float:
        """The utilisation colour bar (0 % .. 100 %) and the halo of the busiest links."""
        p.setPen(text)
        p.drawText(QRectF(8, y, self.width() - 10, self.ROW), Qt.AlignmentFlag.AlignVCenter,
                   "link utilisation (busier direction)")
        y += self.ROW
        colours = style.utilisation_colours()
        left, width = 8.0, max(60.0, self.width() - 24.0)
        step = width / len(colours)
        for i, c in enumerate(colours):
            p.fillRect(QRectF(left + i * step, y + 3, step + 0.6, 11), c)
        y += self.ROW
        p.setPen(text)
        for frac, align in ((0.0, Qt.AlignmentFlag.AlignLeft), (0.5, Qt.AlignmentFlag.AlignHCenter),
                            (1.0, Qt.AlignmentFlag.AlignRight)):
            x = left + frac * width
            box = QRectF(x - (0 if frac == 0 else 40 if frac == 1 else 20), y - 4, 40, self.ROW)
            p.drawText(box, align | Qt.AlignmentFlag.AlignTop, f"{frac:.0%}")
        y += self.ROW
        pen = QPen(style.BOTTLENECK_HALO, 9)
        p.setPen(pen)
        p.drawLine(QPointF(8, y + 9.5), QPointF(32, y + 9.5))
        p.setPen(text)
        p.drawText(QRectF(40, y, self.width() - 42, self.ROW), Qt.AlignmentFlag.AlignVCenter, "busiest links")
        return y + self.ROW
