"""The Compare panel: the design's variants side by side under the same traffic.

Every variant (Design > New Variant) is analysed with the traffic chosen in the analysis dock
(collective, algorithm; all GPUs, since a selection or group of one variant may not exist in
another) and priced with the bill of materials, in a worker thread. Inactive variants cannot
change, so their results are kept until the traffic changes; the shown variant is re-analysed
after each live result. The plot overlays each variant's busbw (or time) curve of the selected
algorithm; the table gives each figure and its change against the first variant (the file's
main design).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QObject, QRunnable, Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHeaderView, QSplitter, QTableWidget, QTableWidgetItem

from designer.analysis.bom.bill import Bom
from designer.analysis.common.constants import DEFAULT_SIZES_BYTES
from designer.gui.document.document import Document
from designer.gui.document.feed import Lane
from designer.gui.panels.live_runner import AnalysisRunner, Traffic
from designer.gui.panels.plot_base import PlotPanel, compact_legend, log_ticks, plot_pen
from designer.model import DesignError, units
from designer.model.snapshot import DesignSnapshot
from designer.present.bom_text import cost_text, power_text

if TYPE_CHECKING:
    from designer.analysis import Report
    from designer.analysis.training import StepReport

#: A change smaller than this fraction is shown as none (model noise, not a difference between designs).
SAME = 0.005
#: The message sizes of the table's time rows.
TABLE_SIZES = (1 << 20, 256 << 20, 8 << 30)
VARIANT_COLOURS = ("#1E6FD9", "#E07A00", "#2E7D32", "#C2185B", "#6B3FA0", "#5C6B7A", "#00838F", "#8D6E63")


@dataclass(frozen=True)
class VariantFigures:
    """One variant analysed and priced."""

    name: str
    report: Report
    bom: Bom | None
    bom_error: str = ""
    #: the workload's step on the variant (None: no workload chosen, or ``step_error`` says why)
    step: StepReport | None = None
    step_error: str = ""


class _Signals(QObject):
    done = Signal(int, int, object)  # generation, variant index, VariantFigures or str (error)


class _Job(QRunnable):
    def __init__(self, generation: int, index: int, snapshot: DesignSnapshot, traffic: Traffic, catalog: Any,
                 signals: _Signals, cancel: threading.Event) -> None:
        super().__init__()
        self.generation, self.index, self.snapshot = generation, index, snapshot
        self.traffic, self.catalog, self.signals, self.cancel = traffic, catalog, signals, cancel

    def run(self) -> None:
        if self.cancel.is_set():
            return
        from designer.analysis import analyze
        from designer.analysis.bom.bill import bill_of_materials

        t = self.traffic
        try:
            design = self.snapshot.build()
            sizes = sorted({*DEFAULT_SIZES_BYTES, *TABLE_SIZES, t.size})
            report = analyze(design, self.catalog, collective=t.collective, sizes=sizes, at_bytes=t.size,
                             prefer=t.algorithm)
            try:
                bom, why = bill_of_materials(design, self.catalog), ""
            except DesignError as e:
                bom, why = None, str(e)
            step, step_error = None, ""
            if t.workload is not None:
                from designer.analysis.training import step_analysis

                try:
                    step = step_analysis(design, t.workload, self.catalog)
                except DesignError as e:
                    step_error = str(e)
            out: object = VariantFigures(design.name, report, bom, why, step, step_error)
        except DesignError as e:
            out = str(e)
        except Exception as e:  # noqa: BLE001 - a bug must not take the window down
            out = f"{type(e).__name__}: {e}"
        if not self.cancel.is_set():
            self.signals.done.emit(self.generation, self.index, out)


#: Panel height from which the overlaid curves show under the table, pixels.
CURVES_FROM_PX = 320


class ComparePanel(PlotPanel):
    """Variants' collective curves overlaid, and a table of their figures with deltas."""

    def __init__(self, document: Document, runner: AnalysisRunner) -> None:
        super().__init__("Compare")
        self.document = document
        self.runner = runner
        pi = self.plot.getPlotItem()
        pi.setLogMode(x=True, y=True)
        pi.setLabel("bottom", "message size per GPU")
        pi.setLabel("left", "busbw (per direction)")
        pi.getAxis("bottom").setTicks([log_ticks(8, 8 << 30, units.size, base=1024)])
        for axis in ("bottom", "left"):
            pi.getAxis(axis).enableAutoSIPrefix(False)
        self.legend = compact_legend(self.plot, (-6, -6))
        self.curves: list[pg.PlotDataItem] = []
        self.table = QTableWidget(0, 0)
        self.table.verticalHeader().setDefaultSectionSize(20)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        split = QSplitter(Qt.Orientation.Vertical)  # the table first: it holds the figures
        split.addWidget(self.table)
        split.addWidget(self.plot)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        self.plot.setMinimumHeight(80)
        self.layout_.addWidget(split, 1)
        self.layout_.addWidget(self.info)
        self.feed = runner.feed
        self._lane = Lane(self.feed.pool)  # one variant at a time: a worker stays free for the live analysis
        self._signals = _Signals()
        self._signals.done.connect(self._on_job_done)
        self.generation = 0
        self._cancel = threading.Event()
        self.figures: dict[int, VariantFigures | str] = {}  # id(design) -> result
        self._traffic: Traffic | None = None
        self._pending: set[int] = set()
        self._queued = False
        document.variants_changed.connect(self.schedule)
        runner.live_result.connect(self._on_runner_live_result)
        self.schedule()

    # ------------------------------------------------------------------ runs
    def schedule(self) -> None:
        """Refresh at the next event-loop turn (the signals of one change come as one refresh)."""
        if not self._queued:
            self._queued = True
            QTimer.singleShot(0, self._on_queued)

    def _on_queued(self) -> None:
        self._queued = False
        if shiboken6.isValid(self):
            self.refresh()

    def _on_runner_live_result(self, _result: object) -> None:
        self.figures.pop(id(self.document.design), None)  # the shown variant may have been edited
        self.schedule()

    def refresh(self) -> None:
        """Analyse the variants whose figures are missing (all of them when the traffic changed)."""
        t = self.runner.traffic
        traffic = Traffic(t.collective, t.size, "all", t.algorithm, t.workload)
        if traffic != self._traffic:
            self.figures.clear()
            self._traffic = traffic
        variants = self.document.variants
        live = set(map(id, variants))
        for key in list(self.figures):
            if key not in live:
                del self.figures[key]
        self._draw()
        if len(variants) < 2 or not self.isVisible():
            return
        self._cancel.set()  # queued jobs of an older refresh end before they start
        self._cancel = threading.Event()
        self.generation += 1
        self._pending = set()
        for i, d in enumerate(variants):
            if id(d) not in self.figures:
                self._pending.add(id(d))
                # the shown variant as the feed read it for this edit; the others are not edited
                snap = self.feed.snapshot() if d is self.document.design else DesignSnapshot.capture(d)
                self._lane.start(_Job(self.generation, i, snap, traffic, self.document.catalog,
                                      self._signals, self._cancel))
        if self._pending:
            self.info.setText(f"Analysing {units.count(len(self._pending), 'variant')}\u2026")

    def showEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self.schedule()

    def shutdown(self) -> None:
        self._cancel.set()
        self.feed.pool.waitForDone(30_000)

    def _on_job_done(self, generation: int, index: int, out: object) -> None:
        if generation != self.generation or index >= len(self.document.variants):
            return
        key = id(self.document.variants[index])
        self.figures[key] = out  # type: ignore[assignment]
        self._pending.discard(key)
        self._draw()

    # ------------------------------------------------------------------ drawing
    def rows(self) -> tuple[list[str], list[list[str]]]:
        """(row labels, one column of texts per variant), the change against the first variant in brackets."""
        variants = self.document.variants
        figs = [self.figures.get(id(d)) for d in variants]
        base = figs[0] if figs and isinstance(figs[0], VariantFigures) else None
        coll = self._traffic.collective if self._traffic else "allreduce"
        labels = ["Bisection (per direction)"] + [f"{coll} {units.size(s)}" for s in TABLE_SIZES] + [
            "Max utilisation", "Switches", "Cables", "Power", "Cost"]
        workload = self._traffic.workload if self._traffic else None
        if workload is not None:
            labels += [f"Step ({workload.name})", "GPU idle"]
        columns = []
        for f in figs:
            if not isinstance(f, VariantFigures):
                columns.append([f if isinstance(f, str) else "\u2026"] + [""] * (len(labels) - 1))
                continue
            lo = f.report.bisection.lower_bytes_per_s
            col = [self._with_delta(units.rate(lo), lo, base.report.bisection.lower_bytes_per_s if base else None,
                                    f is base) if lo is not None else "n/a (fewer than 2 GPUs)"]
            for s in TABLE_SIZES:
                t = _time_at(f.report, s)
                tb = _time_at(base.report, s) if base else None
                col.append(self._with_delta(units.duration(t), t, tb, f is base) if t else "cannot run")
            umax = float(f.report.links.utilization.max()) if len(f.report.links) else 0.0
            col.append(units.percent(umax))
            if f.bom is None:
                col += [f.bom_error or "\u2014"] * 4
            else:
                b = base.bom if base else None
                for value, ref, text in (
                    (f.bom.quantity("switch"), b.quantity("switch") if b else None, None),
                    (f.bom.quantity("cable"), b.quantity("cable") if b else None, None),
                    (f.bom.total_power_w, b.total_power_w if b else None, power_text(f.bom.total_power_w)),
                    (f.bom.total_price_usd, b.total_price_usd if b else None, cost_text(f.bom.total_price_usd)),
                ):
                    col.append(self._with_delta(text if text is not None else f"{value:,}", value, ref, f is base))
            if workload is not None:
                st, sb = f.step, base.step if base else None
                if st is None:
                    col += [f"cannot run: {f.step_error}" if f.step_error else "\u2014", ""]
                else:
                    col.append(self._with_delta(units.duration(st.step_time_s), st.step_time_s,
                                                sb.step_time_s if sb else None, f is base))
                    col.append(units.percent(st.gpu_idle_fraction))
            columns.append(col)
        return labels, columns

    @staticmethod
    def _with_delta(text: str, value: float, ref: float | None, is_base: bool) -> str:
        if is_base or ref is None or not ref or abs(value / ref - 1) < SAME:
            return text
        return f"{text} ({units.change(value / ref - 1)})"

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """On a short panel (docked at 1280 x 800) the curves give way: the table keeps every row it can."""
        super().resizeEvent(event)
        self.plot.setVisible(self.height() >= CURVES_FROM_PX)

    def _draw(self) -> None:
        variants = self.document.variants
        pi = self.plot.getPlotItem()
        for c in self.curves:
            pi.removeItem(c)
        self.curves = []
        self.legend.clear()
        values: list[float] = []
        for i, d in enumerate(variants):
            f = self.figures.get(id(d))
            if not isinstance(f, VariantFigures):
                continue
            x, y = _selected_curve(f.report)
            ok = y > 0
            curve = pi.plot(x[ok], y[ok], name=f.name or f"Variant {i + 1}",
                            pen=plot_pen(VARIANT_COLOURS[i % len(VARIANT_COLOURS)], 3.0 if d is self.document.design
                                     else 1.6))
            self.curves.append(curve)
            values.extend(y[ok].tolist())
        self.legend.clear()
        for c in self.curves:
            self.legend.addItem(c, c.name())
        self.legend.setVisible(bool(self.curves))
        self.set_left_ticks(log_ticks(min(values), max(values), units.rate) if values else [])
        labels, columns = self.rows() if len(variants) > 1 else ([], [])
        self.table.clear()
        self.table.setRowCount(len(labels))
        self.table.setColumnCount(len(columns))
        self.table.setVerticalHeaderLabels(labels)
        self.table.setHorizontalHeaderLabels(self.document.variant_names()[:len(columns)])
        for c, col in enumerate(columns):
            for r, text in enumerate(col):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if "(+" in text or "(-" in text:
                    worse = _worse(labels[r], text)
                    item.setForeground(QColor("#C62828") if worse else QColor("#2E7D32"))
                self.table.setItem(r, c, item)
        if len(variants) < 2:
            self.set_info("One design: Design \u25b8 New Variant duplicates it as a variant to compare with.")
        elif not self._pending:
            self.set_info(f"{units.count(len(variants), 'variant')} under the same traffic, all GPUs",
                          "In brackets the change against the first variant (the file's main design), green when "
                          "better, red when worse. Curves: the selected algorithm's busbw.")


def _worse(label: str, text: str) -> bool:
    """A rise is worse for times, utilisation, counts, power and cost; a fall is worse for bisection."""
    up = "(+" in text
    return not up if label.startswith("Bisection") else up


def _time_at(report: Report, size: int) -> float:
    row = next((r for r in report.collectives if r.selected and r.message_bytes == size), None)
    return row.time_s if row is not None else 0.0


def _selected_curve(report: Report) -> tuple[np.ndarray, np.ndarray]:
    rows = [r for r in report.collectives if r.selected]
    return (np.array([r.message_bytes for r in rows], dtype=float),
            np.array([r.busbw_bytes_per_s for r in rows], dtype=float))


__all__ = ["ComparePanel", "VariantFigures"]
