"""The analysis dock: the analyzer's summary of the current design, recomputed on demand.

The analyzer runs in a worker thread (QThreadPool) on a copy of the design, so the window keeps
responding; a result that arrives after the design changed is shown as stale. Other panels (the
live pyqtgraph panels of a later issue) subscribe with :meth:`AnalysisRunner.add_listener` or the
``result_ready`` signal and receive the same frozen report.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.gui.document import Document
from designer.gui.style import format_bytes, format_bytes_per_s, format_seconds
from designer.model import Design

SIZES = [2**10, 2**16, 2**20, 2**24, 2**26, 2**28, 2**30, 2**32]
DEFAULT_SIZE = 2**28


def analyzer() -> Callable[[Design], Any] | None:
    """``designer.analysis.analyze`` if this build has it."""
    try:
        from designer.analysis import analyze  # type: ignore[attr-defined]
    except ImportError:
        return None
    return analyze


class _Signals(QObject):
    finished = Signal(int, object, float)  # generation, report, seconds
    failed = Signal(int, str)


class _Job(QRunnable):
    def __init__(self, generation: int, design: Design, func: Callable[[Design], Any], signals: _Signals) -> None:
        super().__init__()
        self.generation = generation
        self.design = design
        self.func = func
        self.signals = signals

    def run(self) -> None:
        t0 = time.perf_counter()
        try:
            report = self.func(self.design)
        except Exception as e:  # noqa: BLE001 - reported in the dock, the window keeps running
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

    def available(self) -> bool:
        return analyzer() is not None

    def start(self) -> bool:
        func = analyzer()
        if func is None:
            self.failed.emit("the analyzer is not part of this build")
            return False
        self.generation += 1
        self.running = True
        self.started.emit()
        self.pool.start(_Job(self.generation, self.document.design.copy(), func, self._signals))
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


def _get(obj: Any, *names: str, default: Any = None) -> Any:
    """First attribute or key of ``obj`` among ``names`` (reports are dataclasses or dicts)."""
    for name in names:
        if isinstance(obj, dict) and name in obj:
            return obj[name]
        if hasattr(obj, name):
            return getattr(obj, name)
    return default


class AnalysisDock(QWidget):
    """Bisection with its bounds, the selected all-reduce at a chosen size, top bottlenecks."""

    def __init__(self, document: Document, runner: AnalysisRunner) -> None:
        super().__init__()
        self.document = document
        self.runner = runner
        self.size = QComboBox()
        for s in SIZES:
            self.size.addItem(format_bytes(s), s)
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
        if not runner.available():
            self.state.setText("The analyzer is not part of this build.")
            self.button.setEnabled(False)

    def _on_document_design_replaced(self, design: Design) -> None:
        if self._design is not None:
            self._design.changed.disconnect(self._on_design_changed)
        self._design = design
        design.changed.connect(self._on_design_changed)
        self.runner.report = None
        self.show_report(None)

    def _on_design_changed(self) -> None:
        if self.runner.report is not None:
            self.state.setText("The design changed since this analysis: press Analyze to update.")

    def _on_runner_started(self) -> None:
        self.state.setText("Analyzing\u2026")
        self.button.setEnabled(False)

    def _on_runner_failed(self, message: str) -> None:
        self.state.setText(f"Analysis failed: {message}")
        self.button.setEnabled(self.runner.available())

    def show_report(self, report: Any) -> None:
        self.button.setEnabled(self.runner.available())
        if report is None:
            self.bisection.setText("\u2014")
            self.allreduce.setText("\u2014")
            self.bottlenecks.setRowCount(0)
            return
        self.state.setText(f"Analyzed in {self.runner.seconds:.2f} s.")
        bis = _get(report, "bisection")
        lo = _get(bis, "lower_bytes_per_s", "lower", default=0.0) or 0.0
        hi = _get(bis, "upper_bytes_per_s", "upper", default=0.0) or 0.0
        exact = _get(bis, "exact", default=False)
        if exact:
            self.bisection.setText(f"{format_bytes_per_s(lo)} per direction (exact: bounds meet)")
        else:
            self.bisection.setText(f"between {format_bytes_per_s(lo)} and {format_bytes_per_s(hi)} per direction")
        size = self.size.currentData()
        rows = [
            c for c in _get(report, "collectives", default=()) or ()
            if _get(c, "collective") == "allreduce" and _get(c, "message_bytes") == size
        ]
        chosen = next((c for c in rows if _get(c, "selected")), rows[0] if rows else None)
        if chosen is None:
            self.allreduce.setText(f"no all-reduce estimate at {format_bytes(size)}")
        else:
            self.allreduce.setText(
                f"{format_seconds(_get(chosen, 'time_s', default=0.0))} with {_get(chosen, 'algorithm')}; "
                f"busbw {format_bytes_per_s(_get(chosen, 'busbw_bytes_per_s', default=0.0))}"
            )
        bns = list(_get(report, "bottlenecks", default=()) or ())[:10]
        self.bottlenecks.setRowCount(len(bns))
        for i, b in enumerate(bns):
            self.bottlenecks.setItem(i, 0, QTableWidgetItem(str(_get(b, "link", "id", default=""))))
            util = _get(b, "utilization", "utilisation", default=0.0) or 0.0
            self.bottlenecks.setItem(i, 1, QTableWidgetItem(f"{util:.0%}"))
