"""A step drawn part by part: one horizontal bar per row, coloured by the kind of part.

The Training step and Serving panels both show where a step's time goes this way; this base holds
what they share: the plot (time across, rows down), the figures line above it, one bar item per
kind drawn as pairs of points, bars sized to the rows whatever the panel's height.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QPen
from PySide6.QtWidgets import QLabel

from designer.gui.panels.plot_base import PlotPanel


class PartBarsPanel(PlotPanel):
    """Horizontal bars, one row per part of a step, the step's figures above them.

    ``kinds``: (key, legend label, colour) of each kind of part. :meth:`draw_rows` draws
    :attr:`categories` ((kind key, row label, seconds) per row). The CSV has each bar as a pair of
    points (0, row) .. (value, row), named by kind.
    """

    BAR_PX = 24

    def __init__(self, name: str, kinds: tuple[tuple[str, str, str], ...]) -> None:
        super().__init__(name)
        self.kinds = kinds
        pi = self.plot.getPlotItem()
        pi.setLabel("bottom", "time per step", units="s")
        pi.showGrid(x=True, y=False, alpha=0.25)
        pi.invertY(True)
        pi.setContentsMargins(6, 4, 10, 4)  # the longest row name clear of the edge, in pictures too
        pi.setMouseEnabled(x=True, y=False)
        self.figures = QLabel("")
        self.figures.setWordWrap(True)
        self.figures.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.layout_.addWidget(self.figures)
        self.layout_.addWidget(self.plot, 1)
        self.layout_.addWidget(self.info)
        self.bars: dict[str, pg.PlotDataItem] = {
            key: pi.plot(name=label, pen=self._bar_pen(colour, self.BAR_PX), connect="pairs")
            for key, label, colour in kinds}
        self.categories: list[tuple[str, str, float]] = []  # (kind key, row label, seconds)
        pi.getViewBox().sigResized.connect(self._fit_bars)

    @staticmethod
    def _bar_pen(colour: str, width: float) -> QPen:
        """A bar's pen: flat ends, so that a bar ends at its value (``pg.mkPen`` gives pens wider
        than 4 px round caps, which drew a zero-length part as a dot 24 px wide)."""
        pen = pg.mkPen(colour, width=width)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        return pen

    def _fit_bars(self, *_args) -> None:
        """Bars two thirds of a row high, whatever the panel's height."""
        rows = max(1, len(self.categories))
        row_px = self.plot.getPlotItem().getViewBox().height() / rows
        width = max(2.0, min(float(self.BAR_PX), 0.66 * row_px))
        for key, _label, colour in self.kinds:
            self.bars[key].setPen(self._bar_pen(colour, width))

    def draw_rows(self, categories: list[tuple[str, str, float]], top: float, scale: float = 1.0) -> None:
        """Show ``categories`` as the rows, each value over ``scale`` (the time axis' unit), the axis
        running to ``top`` (same unit as the values) and a little beyond."""
        self.categories = categories
        seconds = np.array([c[2] / scale for c in categories])
        for key, bar in self.bars.items():
            rows = [i for i, c in enumerate(categories) if c[0] == key]
            if not rows:
                bar.setData([], [])
                continue
            bar.setData(np.ravel([(0.0, seconds[i]) for i in rows]), np.repeat(np.array(rows, dtype=float), 2))
        self._fit_bars()
        if categories:
            pi = self.plot.getPlotItem()
            pi.setYRange(-0.6, len(categories) - 0.4, padding=0)
            pi.setXRange(0, top / scale * 1.05 or 1.0, padding=0)


__all__ = ["PartBarsPanel"]
