"""The analysis dock: the analyzer's summary of the current design, recomputed on demand.

The analyzer (``designer.analysis.analyze``) runs in a worker thread (QThreadPool) on a snapshot
of the design (:class:`designer.model.snapshot.DesignSnapshot`), so the window keeps responding; when the design
changes after an analysis, the dock says the result is stale. Other panels (the live pyqtgraph
panels of a later issue) subscribe with :meth:`AnalysisRunner.add_listener` or the
``result_ready`` signal and receive the same frozen report.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.analysis import Report
from designer.gui.document.document import Document
from designer.model import Design, DesignError, units
from designer.model.snapshot import DesignSnapshot
from designer.present.report_text import summary_lines

SIZES = [2**10, 2**16, 2**20, 2**24, 2**26, 2**28, 2**30, 2**32]
DEFAULT_SIZE = 2**28


def analyzer() -> Callable[[Design], Any]:
    """The analyzer the dock runs (``designer.analysis.analyze`` with the document's catalog)."""
    from designer.analysis import analyze

    return analyze


class _Signals(QObject):
    finished = Signal(int, object, float)  # generation, report, seconds
    failed = Signal(int, str)


class _Job(QRunnable):
    def __init__(self, generation: int, state: DesignSnapshot, func: Callable[[Design], Any],
                 signals: _Signals) -> None:
        super().__init__()
        self.generation = generation
        self.state = state
        self.func = func
        self.signals = signals

    def run(self) -> None:
        t0 = time.perf_counter()
        try:
            report = self.func(self.state.build())
        except DesignError as e:
            self.signals.failed.emit(self.generation, str(e))
            return
        except Exception as e:  # noqa: BLE001 - a bug in the analyzer must not take the window down
            self.signals.failed.emit(self.generation, f"{type(e).__name__}: {e}")
            return
        self.signals.finished.emit(self.generation, report, time.perf_counter() - t0)


class AnalysisRunner(QObject):
    """Runs the analyzer off the UI thread and hands each report to its listeners."""

    started = Signal()
    result_ready = Signal(object)  # the report
    failed = Signal(str)

    def __init__(self, document: Document, pool: QThreadPool | None = None) -> None:
        super().__init__(document)
        self.document = document
        self.pool = pool or QThreadPool.globalInstance()
        self.generation = 0
        self.running = False
        self.report: Any = None
        self.seconds = 0.0
        self._signals = _Signals()
        self._signals.finished.connect(self._on_job_finished)
        self._signals.failed.connect(self._on_job_failed)
        self._listeners: list[Callable[[Any], None]] = []

    def add_listener(self, listener: Callable[[Any], None]) -> None:
        """Call ``listener(report)`` with every new report (the hook for live panels)."""
        self._listeners.append(listener)

    def start(self) -> bool:
        """Analyze a copy of the current design in the thread pool; the result arrives later."""
        analyze = analyzer()
        catalog = self.document.catalog

        def func(design: Design) -> Any:
            return analyze(design, catalog)

        self.generation += 1
        self.running = True
        self.started.emit()
        self.pool.start(_Job(self.generation, DesignSnapshot.capture(self.document.design), func, self._signals))
        return True

    def _on_job_finished(self, generation: int, report: Any, seconds: float) -> None:
        if generation != self.generation:
            return
        self.running = False
        self.report = report
        self.seconds = seconds
        self.result_ready.emit(report)
        for listener in self._listeners:
            listener(report)

    def _on_job_failed(self, generation: int, message: str) -> None:
        if generation == self.generation:
            self.running = False
            self.failed.emit(message)


class AnalysisDock(QWidget):
    """Bisection with its bounds, the selected all-reduce at a chosen size, top bottlenecks."""

    #: a bottleneck link was clicked (its id)
    link_activated = Signal(str)

    def __init__(self, document: Document, runner: AnalysisRunner) -> None:
        super().__init__()
        self.document = document
        self.runner = runner
        self.size = QComboBox()
        for s in SIZES:
            self.size.addItem(units.size(s), s)
        self.size.setCurrentIndex(SIZES.index(DEFAULT_SIZE))
        self.button = QPushButton("Analyze")
        self.button.setToolTip("Run the analyzer on the current design (F5)")
        self.state = QLabel("Not analyzed yet.")
        self.state.setWordWrap(True)
        self.bisection = QLabel("\u2014")
        self.bisection.setWordWrap(True)
        self.allreduce = QLabel("\u2014")
        self.allreduce.setWordWrap(True)
        self.bottlenecks = QTableWidget(0, 2)
        self.bottlenecks.setHorizontalHeaderLabels(["Link", "Utilisation"])
        self.bottlenecks.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.bottlenecks.verticalHeader().hide()
        self.bottlenecks.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.bottlenecks.setToolTip("click a link to find it on the canvas")
        self.bottlenecks.cellClicked.connect(self._on_bottleneck_clicked)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.details.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        top = QHBoxLayout()
        top.addWidget(QLabel("All-reduce size"))
        top.addWidget(self.size, 1)
        top.addWidget(self.button)
        form = QFormLayout()
        form.addRow("Bisection", self.bisection)
        form.addRow("All-reduce", self.allreduce)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 6)
        lay.addLayout(top)
        lay.addWidget(self.state)
        lay.addLayout(form)
        lay.addWidget(QLabel("Top bottlenecks"))
        lay.addWidget(self.bottlenecks, 1)
        lay.addWidget(QLabel("Report"))
        lay.addWidget(self.details, 1)
        #: where later issues put live panels (pyqtgraph plots fed by ``runner.add_listener``)
        self.panel_area = QVBoxLayout()
        lay.addLayout(self.panel_area)
        self.button.clicked.connect(self.runner.start)
        self.size.currentIndexChanged.connect(lambda _i: self.show_report(self.runner.report))
        runner.started.connect(self._on_runner_started)
        runner.result_ready.connect(self.show_report)
        runner.failed.connect(self._on_runner_failed)
        document.design_replaced.connect(self._on_document_design_replaced)
        self._design: Design | None = None
        self._on_document_design_replaced(document.design)

    def _content_signals(self, design: Design) -> list[tuple[Any, Callable[..., None]]]:
        """The model events that can change an analysis (not moves, names or collapsing)."""
        stale = self._on_design_content_changed
        return [
            (design.device_added, stale),
            (design.device_removed, stale),
            (design.link_added, stale),
            (design.link_removed, stale),
            (design.link_changed, stale),
            (design.device_changed, self._on_design_device_changed),
            (design.group_changed, self._on_design_group_changed),
        ]

    def _on_document_design_replaced(self, design: Design) -> None:
        if self._design is not None:
            for signal, slot in self._content_signals(self._design):
                signal.disconnect(slot)
        self._design = design
        for signal, slot in self._content_signals(design):
            signal.connect(slot)
        self.runner.report = None
        self.show_report(None)

    def _on_design_device_changed(self, _device_id: str, field: str, _old: Any, _new: Any) -> None:
        if field != "name":
            self._on_design_content_changed()

    def _on_design_group_changed(self, _group_id: str, field: str, _old: Any, _new: Any) -> None:
        if field in ("parent", "kind"):
            self._on_design_content_changed()

    def _on_design_content_changed(self, *_args: Any) -> None:
        if self.runner.report is not None:
            self.state.setText("The design changed since this analysis: press Analyze to update.")

    def _on_runner_started(self) -> None:
        self.state.setText("Analyzing\u2026")
        self.button.setEnabled(False)

    def _on_runner_failed(self, message: str) -> None:
        self.state.setText(f"Analysis failed: {message}")
        self.button.setEnabled(True)

    def show_report(self, report: Report | None) -> None:
        self.button.setEnabled(True)
        if report is None:
            self.bisection.setText("\u2014")
            self.allreduce.setText("\u2014")
            self.bottlenecks.setRowCount(0)
            self.details.setPlainText("")
            return
        self.state.setText(f"Analyzed in {self.runner.seconds:.2f} s.")
        b = report.bisection
        if b.endpoints < 2:
            self.bisection.setText("needs at least two GPUs")
        elif b.exact:
            self.bisection.setText(f"{units.rate(b.lower_bytes_per_s)} per direction (exact: bounds meet)")
        else:
            self.bisection.setText(
                f"{units.rate(b.lower_bytes_per_s)} \u2013 {units.rate(b.upper_bytes_per_s)} "
                "per direction (certified bounds)"
            )
        size = self.size.currentData()
        rows = [r for r in report.collectives if r.message_bytes == size]
        chosen = next((r for r in rows if r.selected), rows[0] if rows else None)
        if chosen is None:
            self.allreduce.setText(f"no {report.collective} estimate at {units.size(size)}")
        else:
            self.allreduce.setText(
                f"{units.duration(chosen.time_s)} over {units.count(report.ranks, 'GPU')} with {chosen.algorithm} "
                f"({chosen.protocol}); busbw {units.rate(chosen.busbw_bytes_per_s)}"
            )
        bns = list(report.bottlenecks)[:10]
        self.bottlenecks.setRowCount(len(bns))
        for i, bn in enumerate(bns):
            self.bottlenecks.setItem(i, 0, QTableWidgetItem(bn.link))
            self.bottlenecks.setItem(i, 1, QTableWidgetItem(units.percent(bn.utilization)))
        self.details.setPlainText("\n".join(summary_lines(report, max_rows=8)))

    def _on_bottleneck_clicked(self, row: int, _column: int) -> None:
        item = self.bottlenecks.item(row, 0)
        if item is not None:
            self.link_activated.emit(item.text())
