"""The live analysis panels: pyqtgraph plots fed with numpy arrays from each analysis result.

Each panel is a :class:`~designer.gui.panels.plot_base.PlotPanel` (PNG and CSV export in its
plot's context menu). Panels update with ``setData`` on arrays, never
item by item, and read every figure from the report (:class:`designer.analysis.Report`), so they
show what ``topo-designer analyze`` prints.

- :class:`UtilisationPanel`: per-link utilisation split by tier, as a sorted profile or a
  histogram, with each tier's mean and maximum; hover names the link, a click selects it.
- :class:`~designer.gui.panels.bottlenecks_panel.BottlenecksPanel`: the most loaded links, table first.
- :class:`CurvesPanel`: time and busbw against message size, one curve per algorithm.
- :class:`BisectionPanel`: the certified interval and its cut.
- :class:`StepPanel`: a workload's training step: compute against exposed communication, GPU
  idle fraction and the cost of idle GPU time (when the analysis dock has a workload).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
)

from designer.analysis.fabric.tiers import TIER_LABELS, TIERS
from designer.gui.panels.bottlenecks_panel import BottlenecksPanel
from designer.gui.panels.live_runner import LiveResult
from designer.gui.panels.plot_base import (
    ALGORITHM_COLOURS,
    TIER_COLOURS,
    PlotPanel,
    compact_legend,
    log_ticks,
    plot_pen,
    set_axis_label,
    set_legend_entries,
)
from designer.gui.panels.serving_panel import ServingPanel
from designer.gui.panels.step_panel import StepPanel
from designer.model import units
from designer.present.report_text import cannot_run_text

if TYPE_CHECKING:
    from designer.analysis import Report


# ---------------------------------------------------------------------------- utilisation
class UtilisationPanel(PlotPanel):
    """Per-link utilisation by tier (sorted profile or histogram), mean and max per tier."""

    #: a link was clicked (its id)
    link_activated = Signal(str)

    def __init__(self) -> None:
        super().__init__("Utilisation")
        self.mode = QComboBox()
        self.mode.addItem("Sorted profile", "profile")
        self.mode.addItem("Histogram", "histogram")
        self.mode.setToolTip("Sorted profile: each tier's links from the busiest to the idlest; histogram: how many "
                             "links at each utilisation")
        self.mode.currentIndexChanged.connect(lambda _i: self._redraw())
        top = QHBoxLayout()
        top.addWidget(QLabel("Show"))
        top.addWidget(self.mode)
        top.addStretch(1)
        self.layout_.addLayout(top)
        self.layout_.addWidget(self.plot, 1)
        self.layout_.addWidget(self.info)
        self.hover = QLabel("")
        self.hover.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.layout_.addWidget(self.hover)
        self.legend = compact_legend(self.plot, (6, -6))
        top.addWidget(self.legend_toggle(self.legend))
        # tens of thousands of links per tier: draw each curve at about the plot's pixel width, peaks kept
        self.plot.getPlotItem().setDownsampling(auto=True, mode="peak")
        self.plot.getPlotItem().setClipToView(True)
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.mean_lines: dict[str, pg.PlotDataItem] = {}
        self._order: dict[str, np.ndarray] = {}  # tier -> link rows, busiest first
        self._report: Report | None = None
        self.plot.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.plot.scene().sigMouseClicked.connect(self._on_mouse_clicked)

    def show_result(self, result: LiveResult | None) -> None:
        self._report = result.report if result is not None else None
        self._baseline = result.baseline if result is not None else None
        self._redraw()

    def tiers(self) -> dict[str, np.ndarray]:
        """Rows of the report's link table per tier present, busiest first."""
        return dict(self._order)

    def _redraw(self) -> None:
        rep = self._report
        links = rep.links if rep is not None else None
        self._order = {}
        if links is not None and len(links):
            util = links.utilization
            for t, name in enumerate(TIERS):
                rows = np.flatnonzero(links.tier == t)
                if len(rows):
                    self._order[name] = rows[np.argsort(-util[rows], kind="stable")]
        histogram = self.mode.currentData() == "histogram"
        pi = self.plot.getPlotItem()
        set_axis_label(pi, "left", "links" if histogram else "utilisation (%)")
        pi.getAxis("left").enableAutoSIPrefix(False)  # never "m%" on a nearly idle fabric
        set_axis_label(pi, "bottom", "utilisation (%)" if histogram else "links of the tier, busiest first (%)")
        for name in list(self.curves):
            if name not in self._order:
                pi.removeItem(self.curves.pop(name))
                pi.removeItem(self.mean_lines.pop(name))
        entries = []
        self._tier_lines: list[str] = []
        for name, rows in self._order.items():
            u = links.utilization[rows] * 100.0
            curve = self.curves.get(name)
            if curve is None:
                curve = self.curves[name] = pi.plot(name=TIER_LABELS[name])
                self.mean_lines[name] = pi.plot(name=f"{TIER_LABELS[name]} mean")
            colour = TIER_COLOURS[name]
            mean, top = float(u.mean()), float(u.max())
            if histogram:
                counts, edges = np.histogram(u, bins=20, range=(0.0, 100.0))
                curve.setData(edges, counts, stepMode="center", fillLevel=0, brush=QColor(colour).lighter(170),
                              pen=plot_pen(colour))
                top_count = max(1, int(counts.max()))
                self.mean_lines[name].setData([mean, mean], [0, top_count], pen=plot_pen(colour, 1, True))
            else:
                x = (np.arange(len(u)) + 0.5) * (100.0 / len(u))
                curve.setData(x, u, stepMode=None, fillLevel=None, brush=None, pen=plot_pen(colour, 2.0))
                self.mean_lines[name].setData([0.0, 100.0], [mean, mean], pen=plot_pen(colour, 1, True))
            entries.append((curve, f"{TIER_LABELS[name]}: max {units.percent(top / 100)}"))
            self._tier_lines.append(f"{TIER_LABELS[name]}: max {units.percent(top / 100)}, mean "
                                    f"{units.percent(mean / 100)} (dashed), {units.count(len(u), 'link')}")
        set_legend_entries(self.legend, entries)  # curves made above added themselves: one entry per tier
        self.show_legend(bool(entries))
        if not histogram:
            pi.setYRange(0, 100, padding=0.02)
            pi.setXRange(0, 100, padding=0.01)
        else:
            pi.enableAutoRange()
        self.set_info(*self._summary())

    def _summary(self) -> tuple[str, str]:
        """(the line under the plot, how to read it)."""
        rep = self._report
        if rep is None:
            return "No analysis yet.", ""
        if not len(rep.links):
            return "No link carries this traffic (see the report's notes).", ""
        sel = next((r for r in rep.selected() if r.message_bytes == rep.link_use_bytes), None)
        algo = sel.algorithm if sel else "\u2014"
        text = (f"{rep.collective} of {units.size(rep.link_use_bytes)} with {algo}: max "
                f"{units.percent(float(rep.links.utilization.max()))}")
        base = getattr(self, "_baseline", None)
        if base is not None and len(base.links):
            text += f" (without failures {units.percent(float(base.links.utilization.max()))})"
        detail = ("The fraction of the collective's time each link is busy (its busier direction), by tier.\n"
                  + "\n".join(self._tier_lines) + "\nHover the profile to name a link; click to select it.")
        return text, detail

    def link_at(self, x: float, y: float) -> int | None:
        """The link-table row under plot coordinates (profile mode), or None."""
        rep = self._report
        if rep is None or not self._order or self.mode.currentData() != "profile":
            return None
        best, best_d = None, 6.0  # within 6 percentage points
        for rows in self._order.values():
            i = int(x / 100.0 * len(rows))
            if 0 <= i < len(rows):
                d = abs(rep.links.utilization[rows[i]] * 100.0 - y)
                if d < best_d:
                    best, best_d = int(rows[i]), d
        return best

    def _mouse_point(self, pos) -> tuple[float, float] | None:
        vb = self.plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(pos):
            return None
        p = vb.mapSceneToView(pos)
        return p.x(), p.y()

    def describe_row(self, row: int) -> str:
        lk = self._report.links[row]  # type: ignore[union-attr]
        return (f"{lk.id}: {units.percent(lk.utilization)} busy, {units.rate(lk.load_bytes_per_s)} of "
                f"{units.rate(lk.capacity_bytes_per_s)} ({lk.direction}, {lk.protocol})")

    def _on_mouse_moved(self, pos) -> None:
        pt = self._mouse_point(pos)
        row = self.link_at(*pt) if pt else None
        text = self.describe_row(row) if row is not None else ""
        self.hover.setText(text)
        self.plot.setToolTip(text)

    def _on_mouse_clicked(self, event) -> None:
        pt = self._mouse_point(event.scenePos())
        row = self.link_at(*pt) if pt else None
        if row is not None and self._report is not None:
            self.link_activated.emit(self._report.links.ids[row])


# ---------------------------------------------------------------------------- collective curves
class CurvesPanel(PlotPanel):
    """Time and busbw against message size, per algorithm; a click sets the size."""

    size_chosen = Signal(int)

    def __init__(self) -> None:
        super().__init__("Collective curves")
        self.what = QComboBox()
        self.what.addItem("Bus bandwidth", "busbw")
        self.what.addItem("Time", "time")
        self.what.currentIndexChanged.connect(lambda _i: self._redraw())
        top = QHBoxLayout()
        top.addWidget(QLabel("Show"))
        top.addWidget(self.what)
        top.addStretch(1)
        self.layout_.addLayout(top)
        self.layout_.addWidget(self.plot, 1)
        self.layout_.addWidget(self.info)
        pi = self.plot.getPlotItem()
        pi.setLogMode(x=True, y=True)
        pi.setLabel("bottom", "message size per GPU")
        pi.getAxis("bottom").setTicks([log_ticks(8, 8 << 30, units.size, base=1024)])
        for axis in ("bottom", "left"):
            pi.getAxis(axis).enableAutoSIPrefix(False)  # the ticks carry their units
        self.legend = compact_legend(self.plot, (-6, -6), columns=2)
        top.addWidget(self.legend_toggle(self.legend))
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.baseline_curve = pi.plot(name="without failures")
        self.ceiling = pg.InfiniteLine(angle=0, pen=plot_pen("#D62828", 1, True), movable=False,
                                       label="line rate", labelOpts={"position": 0.3, "color": "#D62828"})
        self.marker = pg.InfiniteLine(angle=90, pen=plot_pen("#5C6B7A", 1, True), movable=False)
        self.point = pg.ScatterPlotItem(size=9, brush=pg.mkBrush("#D62828"), pen=pg.mkPen("w"))
        pi.addItem(self.ceiling, ignoreBounds=True)
        pi.addItem(self.marker, ignoreBounds=True)
        pi.addItem(self.point)
        #: Measured points (nccl-tests runs loaded in the window): one scatter per run of the shown collective.
        self.measured = pg.ScatterPlotItem(size=8, symbol="x", pen=pg.mkPen("#D9480F", width=2),
                                           brush=pg.mkBrush("#D9480F"), name="measured")
        pi.addItem(self.measured)
        self._measured: list[tuple[str, str, np.ndarray, np.ndarray, np.ndarray]] = []
        self._result: LiveResult | None = None
        self._legend_under: bool | None = None  # the legend's corner: under the curves (busbw) or above
        self.plot.scene().sigMouseClicked.connect(self._on_mouse_clicked)

    def show_result(self, result: LiveResult | None) -> None:
        self._result = result
        self._redraw()

    def set_measured(self, runs: list[tuple[str, str, np.ndarray, np.ndarray, np.ndarray]]) -> None:
        """Measured points over the predicted curves: (collective, label, sizes, busbw, time) per run; the
        runs of the collective the panel shows are plotted (docs/measured.md)."""
        self._measured = list(runs)
        self._redraw()

    def _measured_points(self, collective: str, busbw: bool) -> tuple[np.ndarray, np.ndarray, str]:
        xs, ys, labels = [], [], []
        for coll, label, sizes, bw, t in self._measured:
            if coll != collective:
                continue
            y = bw if busbw else t
            ok = (y > 0) & (sizes > 0)
            xs.append(sizes[ok])
            ys.append(y[ok])
            labels.append(label)
        if not xs:
            return np.zeros(0), np.zeros(0), ""
        return np.concatenate(xs), np.concatenate(ys), ", ".join(labels)

    def series(self, report: Report, algorithm: str) -> tuple[np.ndarray, np.ndarray]:
        """(sizes, values) of one algorithm's curve as plotted."""
        rows = [r for r in report.collectives if r.algorithm == algorithm]
        x = np.array([r.message_bytes for r in rows], dtype=float)
        y = np.array([r.busbw_bytes_per_s if self.what.currentData() == "busbw" else r.time_s for r in rows])
        return x, y

    def _redraw(self) -> None:
        pi = self.plot.getPlotItem()
        busbw = self.what.currentData() == "busbw"
        set_axis_label(pi, "left", "busbw (per direction)" if busbw else "time")
        if self._legend_under != busbw:  # anchoring lays the legend out again: only when it moves
            self._legend_under = busbw
            if busbw:
                self.legend.anchor((1, 1), (1, 1), offset=(-6, -6))  # under the rising curves
            else:
                self.legend.anchor((0, 0), (0, 0), offset=(6, 6))  # above them
        res = self._result
        rep = res.report if res is not None else None
        algos = list(dict.fromkeys(r.algorithm for r in rep.collectives)) if rep is not None else []
        for name in list(self.curves):
            if name not in algos:
                pi.removeItem(self.curves.pop(name))
        entries = []
        chosen = None
        if rep is not None:
            chosen = next((r for r in rep.selected() if r.message_bytes == rep.link_use_bytes), None)
        for algo in algos:
            curve = self.curves.get(algo)
            if curve is None:
                curve = self.curves[algo] = pi.plot(name=algo)
            x, y = self.series(rep, algo)
            ok = y > 0
            sel = chosen is not None and chosen.algorithm == algo
            curve.setData(x[ok], y[ok], pen=plot_pen(ALGORITHM_COLOURS.get(algo, "#5C6B7A"), 3.2 if sel else 1.3),
                          symbol="o" if sel else None, symbolSize=4, symbolBrush=ALGORITHM_COLOURS.get(algo, "#5C6B7A"))
            entries.append((curve, f"{algo} (selected)" if sel else algo))
        base = res.baseline if res is not None else None
        if base is not None and chosen is not None:
            x, y = self.series(base, chosen.algorithm)
            ok = y > 0
            self.baseline_curve.setData(x[ok], y[ok], pen=plot_pen("#8C8C8C", 1.5, True))
            entries.append((self.baseline_curve, f"{chosen.algorithm} without failures"))
        else:
            self.baseline_curve.setData([], [])
        mx, my, mlabel = np.zeros(0), np.zeros(0), ""
        if rep is not None:
            mx, my, mlabel = self._measured_points(rep.collective, busbw)
        self.measured.setData(np.log10(mx), np.log10(my))
        if len(mx):
            entries.append((self.measured, f"measured ({mlabel})"))
        set_legend_entries(self.legend, entries)
        self.show_legend(bool(entries))
        values = [r.busbw_bytes_per_s if busbw else r.time_s for r in rep.collectives] if rep is not None else []
        values = [v for v in values if v > 0] + [float(v) for v in my]
        if busbw and rep is not None and rep.ceiling_busbw_bytes_per_s > 0:
            values.append(rep.ceiling_busbw_bytes_per_s)
        self.set_left_ticks(log_ticks(min(values), max(values), units.rate if busbw else units.duration)
                            if values else [])
        if rep is not None and rep.link_use_bytes:
            self.marker.setPos(np.log10(rep.link_use_bytes))
            self.marker.show()
        else:
            self.marker.hide()
        if busbw and rep is not None and rep.ceiling_busbw_bytes_per_s > 0:
            text = f"line rate {units.rate(rep.ceiling_busbw_bytes_per_s)}"
            self.ceiling.label.setFormat(text)
            self.ceiling.label.setText(text)  # now: the format alone is read only when the line moves in view
            self.ceiling.setPos(np.log10(rep.ceiling_busbw_bytes_per_s))
            self.ceiling.show()
        else:
            self.ceiling.hide()
        if chosen is not None:
            v = chosen.busbw_bytes_per_s if busbw else chosen.time_s
            self.point.setData([np.log10(chosen.message_bytes)], [np.log10(v)] if v > 0 else [0])
        else:
            self.point.setData([], [])
        self.set_info(*self._summary(rep, chosen, base))

    def _summary(self, rep: Report | None, chosen, base: Report | None) -> tuple[str, str]:
        """(the line under the plot, how it was obtained)."""
        if rep is None:
            return "No analysis yet.", ""
        if chosen is None:
            why = cannot_run_text(rep)
            if why:
                return f"{rep.collective} cannot run: no path between some GPUs (hover for why).", why
            return f"No {rep.collective} estimate (see the report's notes).", ""
        text = (f"{chosen.algorithm} ({chosen.protocol}): {units.duration(chosen.time_s)} for "
                f"{units.size(chosen.message_bytes)} over {units.count(rep.ranks, 'GPU')}, busbw "
                f"{units.rate(chosen.busbw_bytes_per_s)}")
        detail = (f"{rep.collective} of {units.size(chosen.message_bytes)} over {units.count(rep.ranks, 'GPU')}: "
                  f"{chosen.algorithm} ({chosen.protocol}) {units.duration(chosen.time_s)}, busbw "
                  f"{units.rate(chosen.busbw_bytes_per_s)}.\nLine rate: {chosen.algorithm} with its bottleneck "
                  f"{rep.ceiling_link} at line rate, no latency.\nClick the plot to choose the size.")
        if base is not None:
            b = next((r for r in base.collectives if r.algorithm == chosen.algorithm
                      and r.message_bytes == chosen.message_bytes), None)
            if b is not None and b.time_s > 0:
                change = units.change(chosen.time_s / b.time_s - 1)
                text += f" (without failures {units.duration(b.time_s)}, {change})"
                detail += f"\nWithout failures: {units.duration(b.time_s)}."
        return text, detail

    def size_at(self, x_log10: float) -> int:
        """The power-of-two message size nearest a plot position (log10 bytes), within 8 B .. 8 GiB."""
        k = int(round(x_log10 / np.log10(2)))
        return int(2 ** min(33, max(3, k)))

    def _on_mouse_clicked(self, event) -> None:
        vb = self.plot.getPlotItem().getViewBox()
        pos = event.scenePos()
        if event.button() != Qt.MouseButton.LeftButton or not vb.sceneBoundingRect().contains(pos):
            return
        self.size_chosen.emit(self.size_at(vb.mapSceneToView(pos).x()))


# ---------------------------------------------------------------------------- bisection
class BisectionPanel(PlotPanel):
    """The certified bisection interval (and without failures), with a button to show the cut."""

    show_cut = Signal(bool)

    def __init__(self) -> None:
        super().__init__("Bisection")
        self.interval = self.plot.plot(name="certified bounds")
        self.baseline = self.plot.plot(name="without failures")
        pi = self.plot.getPlotItem()
        pi.setLabel("bottom", "bisection bandwidth per direction", units="B/s")
        self._rows(False)
        self.plot.setMaximumHeight(140)
        self.cut_button = QPushButton("Show the cut")
        self.cut_button.setCheckable(True)
        self.cut_button.setToolTip("Highlight on the canvas the links of the cut that proves the upper bound")
        self.cut_button.toggled.connect(self.show_cut.emit)
        self.figures = QLabel("")
        self.figures.setWordWrap(True)
        self.figures.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = QFont(self.figures.font())
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.figures.setFont(font)
        self.layout_.addWidget(self.figures)
        self.layout_.addWidget(self.plot)
        row = QHBoxLayout()
        row.addWidget(self.cut_button)
        row.addStretch(1)
        self.layout_.addLayout(row)
        self.layout_.addWidget(self.info, 1)
        self.cut_links: tuple[str, ...] = ()

    def _rows(self, failures: bool) -> None:
        """One row (the design) or, with failures, two (the design and the same without its failures)."""
        pi = self.plot.getPlotItem()
        pi.getAxis("left").setTicks([[(1, "with failures"), (0, "without")] if failures else [(1, "design")]])
        pi.setYRange(-0.6 if failures else 0.4, 1.6, padding=0)

    def show_result(self, result: LiveResult | None) -> None:
        rep = result.report if result is not None else None
        base = result.baseline if result is not None else None
        self._rows(base is not None and rep is not None)
        self.cut_links = rep.bisection.cut_links if rep is not None else ()
        self.cut_button.setEnabled(bool(self.cut_links))
        if rep is None or rep.bisection.endpoints < 2:
            self.interval.setData([], [])
            self.baseline.setData([], [])
            self.figures.setText("needs at least two GPUs" if rep is not None else "")
            self.info.setText("No analysis yet." if rep is None else "")
            return
        b = rep.bisection
        self.interval.setData([b.lower_bytes_per_s, b.upper_bytes_per_s], [1, 1], pen=plot_pen("#1E6FD9", 10),
                              symbol="|", symbolSize=22, symbolPen=plot_pen("#1E6FD9", 2))
        if base is not None:
            bb = base.bisection
            self.baseline.setData([bb.lower_bytes_per_s, bb.upper_bytes_per_s], [0, 0], pen=plot_pen("#8C8C8C", 10),
                                  symbol="|", symbolSize=22, symbolPen=plot_pen("#8C8C8C", 2))
        else:
            self.baseline.setData([], [])
        hi = max(b.upper_bytes_per_s, base.bisection.upper_bytes_per_s if base is not None else 0.0)
        self.plot.getPlotItem().setXRange(0, hi * 1.08 if hi > 0 else 1, padding=0)
        if b.exact:
            text = f"<b>{units.rate(b.lower_bytes_per_s)}</b> per direction, exact (the bounds meet)"
        else:
            text = (f"<b>{units.rate(b.lower_bytes_per_s)} \u2013 {units.rate(b.upper_bytes_per_s)}</b> per "
                    "direction, certified bounds")
        if base is not None:
            bb = base.bisection
            delta = b.lower_bytes_per_s / bb.lower_bytes_per_s - 1 if bb.lower_bytes_per_s > 0 else 0.0
            upper = "" if bb.exact else " \u2013 " + units.rate(bb.upper_bytes_per_s)
            text += f"<br>without failures: {units.rate(bb.lower_bytes_per_s)}{upper} ({units.change(delta)})"
        self.figures.setText(text)
        self.info.setText(f"Lower bound: {b.lower_method}. Upper bound: {b.upper_method}; its cut has "
                          f"{units.count(len(b.cut_links), 'link')}. Over {units.count(b.endpoints, 'GPU')}, "
                          "at line rate.")


PANELS: dict[str, tuple[str, Callable[[], PlotPanel]]] = {
    "utilisation": ("Utilisation", UtilisationPanel),
    "curves": ("Collective curves", CurvesPanel),
    "bottlenecks": ("Bottlenecks", BottlenecksPanel),
    "bisection": ("Bisection", BisectionPanel),
    "step": ("Training step", StepPanel),
    "serving": ("Serving", ServingPanel),
}
