"""What every live analysis panel shares: a titled pyqtgraph plot with PNG and CSV export.

:class:`PlotPanel` adds *Export picture (PNG)* and *Export data (CSV)* to its plot's context menu
through pyqtgraph's exporters (``ImageExporter``, ``CSVExporter``; the CSV columns are named after
the curves), thins named left-axis ticks to the plot's height, and keeps the line under the plot
short (how to read it shows on hover). The helpers (compact legends, log-axis ticks named through
:mod:`designer.model.units`, pens) and the colours per tier and per algorithm serve every panel
(:mod:`designer.gui.panels.plots`, :mod:`designer.gui.panels.compare`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pyqtgraph.exporters as pg_exporters
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from designer.gui.panels.live_runner import LiveResult

pg.setConfigOptions(antialias=True, background="w", foreground="#3A4350")

#: A colour per tier (the canvas' media palette where they match).
TIER_COLOURS = {
    "nvlink": "#6B3FA0",
    "pcie": "#8C8C8C",
    "direct": "#C2185B",
    "access": "#2E7D32",
    "leaf-spine": "#1E6FD9",
    "spine-core": "#E07A00",
    "switch": "#5C6B7A",
}
ALGORITHM_COLOURS = {
    "ring": "#1E6FD9", "tree": "#2E7D32", "hierarchical": "#E07A00", "nvls": "#6B3FA0", "sharp": "#C2185B",
    "pairwise": "#1E6FD9", "bidir-ring": "#00838F", "multi-dim": "#8E24AA", "halving-doubling": "#8E24AA",
}


def compact_legend(plot: pg.PlotWidget, offset: tuple[int, int], columns: int = 1) -> pg.LegendItem:
    """A compact legend on a translucent white ground (negative offsets anchor right / bottom), its
    entries in ``columns`` columns so that it stays short on a low panel."""
    return plot.addLegend(offset=offset, labelTextSize="8pt", brush=pg.mkBrush(255, 255, 255, 215),
                          pen=pg.mkPen("#C9CED6"), verSpacing=-6, colCount=columns)


def set_legend_entries(legend: pg.LegendItem, entries: list[tuple[pg.PlotDataItem, str]]) -> None:
    """Show ``entries`` (item, label) in ``legend``. When it already shows the same items (a live
    edit: the same curves, new figures in their names) only the changed labels are set, in place;
    rebuilding it is a third of a plot's redraw. Each entry's sample is painted from its item, so a
    new pen shows without it."""
    items = [id(item) for item, _label in entries]
    if getattr(legend, "shown_items", None) == items and len(legend.items) == len(entries):
        changed = [(text, label) for (_sample, text), (_item, label) in zip(legend.items, entries, strict=True)
                   if text.text != label]
        for text, label in changed:
            text.setText(label)
        if changed:
            legend.updateSize()
        return
    legend.clear()
    for item, label in entries:
        legend.addItem(item, label)
    legend.shown_items = items


def set_axis_label(pi: pg.PlotItem, side: str, text: str, units: str | None = None) -> None:
    """``pi.setLabel(side, text, units=units)``, skipped when the axis already shows it: each call
    lays the axis out again, and a panel redrawn after every live edit mostly keeps its labels."""
    axis = pi.getAxis(side)
    if axis.labelText == text and axis.labelUnits == (units or "") and axis.label.isVisible():
        return
    pi.setLabel(side, text, units=units)


def log_ticks(lo: float, hi: float, fmt: Callable[[float], str], base: float = 10.0, every: int = 1
               ) -> list[tuple[float, str]]:
    """Ticks at powers of ``base`` between ``lo`` and ``hi`` (values > 0) for a log axis, named by ``fmt``."""
    if not (lo > 0 and hi > 0):
        return []
    k0, k1 = int(np.floor(np.log(lo) / np.log(base))), int(np.ceil(np.log(hi) / np.log(base)))
    return [(k * np.log10(base), fmt(base ** k)) for k in range(k0, k1 + 1) if k % every == 0]


def plot_pen(colour: str, width: float = 1.6, dash: bool = False) -> pg.mkPen:
    return pg.mkPen(colour, width=width, style=Qt.PenStyle.DashLine if dash else Qt.PenStyle.SolidLine)


class PlotPanel(QWidget):
    """A titled pyqtgraph plot with PNG and CSV export in its context menu."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.plot = pg.PlotWidget()
        self.plot.setMenuEnabled(True)
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.getPlotItem().hideButtons()
        self._left_ticks: list[tuple[float, str]] = []
        self._thinning = False
        self.info = QLabel("No analysis yet.")
        self.info.setWordWrap(True)
        self.info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(4, 4, 4, 4)
        self.layout_.setSpacing(3)
        menu = self.plot.getPlotItem().getViewBox().menu
        menu.addSeparator()
        self.export_png_action = QAction("Export picture (PNG)\u2026", menu)
        self.export_png_action.triggered.connect(lambda: self._export_dialog("png"))
        self.export_csv_action = QAction("Export data (CSV)\u2026", menu)
        self.export_csv_action.triggered.connect(lambda: self._export_dialog("csv"))
        menu.addAction(self.export_png_action)
        menu.addAction(self.export_csv_action)

    def legend_toggle(self, legend: pg.LegendItem) -> QCheckBox:
        """A *Legend* check box that shows or hides ``legend`` (a legend may sit on the curves of a short
        panel); :meth:`show_legend` keeps the choice when the entries change."""
        self.legend_box = QCheckBox("Legend")
        self.legend_box.setChecked(True)
        self.legend_box.setToolTip("Show the legend on the plot (hide it to see the curves under it)")
        self._legend = legend
        self.legend_box.toggled.connect(lambda on: legend.setVisible(on and bool(legend.items)))
        return self.legend_box

    def show_legend(self, has_entries: bool) -> None:
        """The legend shows when it has entries and its check box is on."""
        box = getattr(self, "legend_box", None)
        self._legend.setVisible(has_entries and (box is None or box.isChecked()))

    def set_left_ticks(self, ticks: list[tuple[float, str]]) -> None:
        """Named ticks on the left axis (e.g. one per decade of a log axis), thinned to every second,
        third... one whenever the plot is too short for them to stay apart (re-done on resize)."""
        self._left_ticks = ticks
        if not self._thinning:
            self.plot.getPlotItem().getViewBox().sigResized.connect(self._thin_left_ticks)
            self._thinning = True
        self._thin_left_ticks()

    def _thin_left_ticks(self, *_args) -> None:
        ticks = self._left_ticks
        height = self.plot.getPlotItem().getViewBox().height()
        every = max(1, int(np.ceil(len(ticks) * 15.0 / height))) if height > 0 and ticks else 1
        self.plot.getPlotItem().getAxis("left").setTicks([ticks[::every]])  # none without data

    def has_data(self) -> bool:
        """Whether the plot shows anything (a picture of it is worth making)."""
        for item in self.plot.getPlotItem().listDataItems():
            x, _ = item.getData()
            if x is not None and len(x):
                return True
        return False

    def headline(self) -> str:
        """The panel's main figure in one line of plain text (a picture's caption): its figures line when
        it has one, else the line under the plot."""
        figures = getattr(self, "figures", None)
        text = figures.text() if isinstance(figures, QLabel) and figures.text() else self.info.text()
        return re.sub(r"\s+", " ", re.sub(r"<br\s*/?>", "; ", re.sub(r"<(?!br)[^>]+>", "", text))).strip()

    def set_info(self, text: str, detail: str = "") -> None:
        """The line under the plot, kept short; ``detail`` (how to read it) shows on hover."""
        self.info.setText(text)
        self.info.setToolTip(detail or text)

    def _export_dialog(self, kind: str) -> None:
        filt = "PNG image (*.png)" if kind == "png" else "CSV table (*.csv)"
        path, _ = QFileDialog.getSaveFileName(self, f"Export {self.name}", f"{self.name.lower()}.{kind}", filt)
        if path:
            (self.export_png if kind == "png" else self.export_csv)(path)

    def export_png(self, path: str | Path, width: int | None = None) -> Path:
        """The plot as a PNG picture (pyqtgraph ImageExporter)."""
        exporter = pg_exporters.ImageExporter(self.plot.getPlotItem())
        if width:
            exporter.parameters()["width"] = int(width)
        exporter.export(str(path))
        return Path(path)

    def export_csv(self, path: str | Path) -> Path:
        """The plotted data as CSV, one column pair per curve (pyqtgraph CSVExporter)."""
        pg_exporters.CSVExporter(self.plot.getPlotItem()).export(str(path))
        return Path(path)

    def show_result(self, result: LiveResult | None) -> None:  # pragma: no cover - overridden
        raise NotImplementedError
