"""The analysis dock: the traffic controls, the run's state, and the key figures of the last result.

The analysis itself runs in :class:`designer.gui.panels.live_runner.AnalysisRunner` (live after every
edit, or on demand with F5); this dock chooses what it times (collective, message size,
participants, algorithm: every change re-runs), shows progress with Cancel for long runs, and the
headline figures (bisection, the collective's time, the busiest link, what failures cost). The
pyqtgraph panels (:mod:`designer.gui.panels.plots`) draw the same result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from designer.analysis.collectives.names import ALGORITHMS, COLLECTIVE_TITLES, COLLECTIVES
from designer.analysis.common.constants import DEFAULT_SIZES_BYTES
from designer.analysis.serving.workload import ServingWorkload
from designer.analysis.training.workload import Workload
from designer.gui.document.document import Document
from designer.gui.panels.live_runner import (
    DEFAULT_SIZE,
    AnalysisRunner,
    LiveResult,
    Traffic,
    analyzer,
    waiting_text,
)
from designer.io.workload_file import load_serving, load_workload, preset_names, serving_preset_names
from designer.model import Design, DesignError, units
from designer.present.report_text import cannot_run_text, routing_lines, summary_lines
from designer.present.serving_text import serving_lines
from designer.present.step_text import step_lines, tokens, usd

if TYPE_CHECKING:
    from designer.analysis import Report
    from designer.analysis.training.step import StepReport

SIZES = list(DEFAULT_SIZES_BYTES)
STAGE_LABELS = {"routes": "building routes", "bisection": "bounding the bisection",
                "collectives": "timing the collectives", "link use": "loading the links",
                "training step": "predicting the training step", "serving": "predicting serving"}
#: the workload list's entries that are not workloads
NO_WORKLOAD, OPEN_WORKLOAD = "", "\0open"

__all__ = ["AnalysisDock", "AnalysisRunner", "analyzer"]



#: How the training choices read, short enough for the dock's half-width list (the serving ones
#: read ``No serving`` / ``Serve: NAME``); the export dialog offers the same.
NO_TRAINING = "No training"


def training_choice(name: str) -> str:
    """``Train: llama3-70b``: a training workload in a list of choices."""
    return f"Train: {name}"


class AnalysisDock(QWidget):
    """Traffic controls, run state (progress, Cancel, live or on demand) and the headline figures."""

    #: the user asked to use the canvas selection as participants: the window answers with GPU ids
    selection_wanted = Signal()

    def __init__(self, document: Document, runner: AnalysisRunner) -> None:
        super().__init__()
        self.document = document
        self.runner = runner
        self._build_traffic_controls()
        self._build_job_choices()
        self._build_run_state()
        self._build_figures()
        self._lay_out()
        self._selected_gpus: tuple[str, ...] = ()
        self._fill_algorithms()
        self.button.clicked.connect(self.runner.start)
        for combo in (self.collective, self.size, self.algorithm, self.routing):
            combo.currentIndexChanged.connect(self._on_traffic_edited)
        self.collective.currentIndexChanged.connect(lambda _i: self._fill_algorithms())
        self.gpus.activated.connect(self._on_gpus_activated)
        self.workload.activated.connect(self._on_workload_activated)
        self.serving.activated.connect(self._on_serving_activated)
        self.runner.started.connect(self._on_runner_started)
        self.runner.reading.connect(self._on_runner_reading)
        self.runner.live_result.connect(self.show_result)
        self.runner.result_ready.connect(self._on_runner_result_ready)
        self.runner.failed.connect(self._on_runner_failed)
        self.runner.stale.connect(self._on_runner_stale)
        self.runner.slow.connect(self._busy.setVisible)
        self.runner.progress.connect(self._on_runner_progress)
        self.runner.live_changed.connect(self._on_runner_live_changed)
        self.runner.cancelled.connect(lambda: self.state.setText("Analysis cancelled: press Analyze (F5) to run it."))
        self.document.design_replaced.connect(self._on_document_design_replaced)
        self._design: Design | None = None
        self._on_document_design_replaced(self.document.design)
        self._set_failures_visible(False)
        self._set_step_visible(False)
        self._set_served_visible(False)
        self._show_hashed(None)

    def _build_traffic_controls(self) -> None:
        """What is timed: the collective, the message size, the GPUs, the algorithm, the routing."""
        self.collective = QComboBox()
        for c in COLLECTIVES:
            self.collective.addItem(COLLECTIVE_TITLES[c], c)
        self.collective.setToolTip("The collective to time (NCCL's algorithms for it)")
        self.size = QComboBox()
        for s in SIZES:
            self.size.addItem(units.size(s), s)
        self.size.setCurrentIndex(SIZES.index(DEFAULT_SIZE))
        self.size.setToolTip("Message size per GPU (bytes, as nccl-tests counts it); utilisation and bottlenecks "
                             "are at this size")
        self.gpus = QComboBox()
        self.gpus.setToolTip("Which GPUs take part: all, the canvas selection (taken when chosen), or a group")
        self.algorithm = QComboBox()
        self.algorithm.setToolTip("Auto: the fastest at each size, as NCCL's tuner picks; or a fixed algorithm "
                                  "(NCCL_ALGO)")
        self.routing = QComboBox()
        for label, mode in (("Routing: by fabric", None), ("Routing: fluid ECMP split", "fluid"),
                            ("Routing: hashed ECMP", "hashed"), ("Routing: adaptive", "adaptive")):
            self.routing.addItem(label, mode)
        self.routing.setToolTip("How flows cross the switches: by fabric (hashed on Ethernet without adaptive "
                                "routing, adaptive on InfiniBand and Spectrum-X), or one mode for the analysis; "
                                "hashed pins each flow to one equal-cost path and reports the mean and p99 time over "
                                "seeded draws (docs/analysis.md)")

    def _build_job_choices(self) -> None:
        """The training workload and the serving model to predict, presets or files."""
        self.workload = QComboBox()
        for combo in (self.routing, self.workload):  # long item names must not widen the dock
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(10)
        self.workload.setToolTip("A training job to predict the step of on this design: GPU idle time, MFU, the cost "
                                 "of idle GPUs (docs/workload-format.md); the Step panel draws it")
        self.workload.addItem(NO_TRAINING, NO_WORKLOAD)
        for name in preset_names():
            self.workload.addItem(training_choice(name), name)
        self.workload.addItem("Open workload file\u2026", OPEN_WORKLOAD)
        self._workloads: dict[str, Workload] = {}
        self._workload_key = NO_WORKLOAD
        self.serving = QComboBox()
        self.serving.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.serving.setMinimumContentsLength(10)
        self.serving.setToolTip("A model to serve on this design: time to first token, time per output token, "
                                "tokens/s per GPU and what bounds them (docs/serving.md); the Serving panel draws it")
        self.serving.addItem("No serving", NO_WORKLOAD)
        for name in serving_preset_names():
            self.serving.addItem(f"Serve: {name}", name)
        self.serving.addItem("Open serving file\u2026", OPEN_WORKLOAD)
        self._servings: dict[str, ServingWorkload] = {}
        self._serving_key = NO_WORKLOAD

    def _build_run_state(self) -> None:
        """Analyze, Live, the state line, the progress bar and Cancel."""
        self.button = QPushButton("Analyze")
        self.button.setToolTip("Run the analyzer on the current design now (F5)")
        self.live = QCheckBox("Live")
        self.live.setToolTip("Re-analyse after every edit (Analysis \u25b8 Live)")
        self.live.setChecked(self.runner.live)
        self.live.toggled.connect(self._on_live_toggled)
        self.state = QLabel("Not analyzed yet.")
        self.state.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setRange(0, 4)
        self.progress.setTextVisible(True)
        self.cancel = QPushButton("Cancel")
        self.cancel.setToolTip("Stop this analysis (Esc in the dock)")
        self.cancel.clicked.connect(self.runner.cancel)

    def _build_figures(self) -> None:
        """The headline figures and the report text."""
        self.bisection = QLabel("\u2014")
        self.allreduce = QLabel("\u2014")
        self.busiest = QLabel("\u2014")
        self.failures = QLabel("")
        self.step = QLabel("\u2014")
        self.served = QLabel("\u2014")
        self.hashed = QLabel("")
        for lab in (self.bisection, self.allreduce, self.busiest, self.failures, self.step, self.served, self.hashed):
            lab.setWordWrap(True)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.details.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.details.setMinimumHeight(36)  # on a low screen the report gives way before the figures

    def _lay_out(self) -> None:
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setColumnStretch(0, 1)  # two lists a row, half the dock each whatever they hold
        grid.setColumnStretch(1, 1)
        grid.addWidget(self.collective, 0, 0)
        grid.addWidget(self.size, 0, 1)
        grid.addWidget(self.gpus, 1, 0)
        grid.addWidget(self.algorithm, 1, 1)
        grid.addWidget(self.workload, 2, 0)
        grid.addWidget(self.routing, 2, 1)
        grid.addWidget(self.serving, 3, 0, 1, 2)
        run = QHBoxLayout()
        run.addWidget(self.button)
        run.addWidget(self.live)
        run.addStretch(1)
        busy = QHBoxLayout()
        busy.addWidget(self.progress, 1)
        busy.addWidget(self.cancel)
        self._busy = QWidget()
        self._busy.setLayout(busy)
        busy.setContentsMargins(0, 0, 0, 0)
        self._busy.hide()
        form = QFormLayout()
        self.collective_label = QLabel("All-reduce")
        form.addRow("Bisection", self.bisection)
        form.addRow(self.collective_label, self.allreduce)
        form.addRow("Busiest link", self.busiest)
        self.failures_label = QLabel("Failures")
        form.addRow(self.failures_label, self.failures)
        self.step_label = QLabel("Training step")
        form.addRow(self.step_label, self.step)
        self.served_label = QLabel("Serving")
        form.addRow(self.served_label, self.served)
        self.hashed_label = QLabel("Hashed ECMP")
        form.addRow(self.hashed_label, self.hashed)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 6)
        lay.addLayout(grid)
        lay.addLayout(run)
        lay.addWidget(self.state)
        lay.addWidget(self._busy)
        lay.addLayout(form)
        lay.addWidget(QLabel("Report"))
        lay.addWidget(self.details, 1)

    # ------------------------------------------------------------------ traffic
    def _fill_algorithms(self) -> None:
        current = self.algorithm.currentData()
        self.algorithm.blockSignals(True)
        self.algorithm.clear()
        self.algorithm.addItem("Auto (fastest)", None)
        for a in ALGORITHMS[self.collective.currentData()]:
            self.algorithm.addItem(a, a)
        i = self.algorithm.findData(current)
        self.algorithm.setCurrentIndex(max(0, i))
        self.algorithm.blockSignals(False)

    def _fill_participants(self) -> None:
        design = self.document.design
        self.gpus.blockSignals(True)
        self.gpus.clear()
        self.gpus.addItem("All GPUs", "all")
        self.gpus.addItem("Selected GPUs\u2026", "selection")
        shown = 0
        for g in design.groups:
            if g.kind == "server" or shown >= 300:
                continue
            self.gpus.addItem(f"{g.name or g.id} ({g.kind})" if g.kind else (g.name or g.id), g.id)
            shown += 1
        self.gpus.setCurrentIndex(0)
        self.gpus.blockSignals(False)

    def set_selected_gpus(self, gpu_ids: list[str]) -> None:
        """The participants for "Selected GPUs" (the window passes the canvas selection's GPUs)."""
        self._selected_gpus = tuple(gpu_ids)
        i = self.gpus.findData("selection")
        self.gpus.setItemText(i, f"Selected GPUs ({len(gpu_ids):,})")
        self.gpus.setCurrentIndex(i)
        self._on_traffic_edited()

    def _on_gpus_activated(self, _index: int) -> None:
        if self.gpus.currentData() == "selection":
            self.selection_wanted.emit()
        else:
            self._on_traffic_edited()

    def traffic(self) -> Traffic:
        """The traffic the controls describe."""
        gpus: str | tuple[str, ...] = self.gpus.currentData() or "all"
        if gpus == "selection":
            gpus = self._selected_gpus or "all"
        return Traffic(self.collective.currentData(), int(self.size.currentData()), gpus,
                       self.algorithm.currentData(), self._workloads.get(self._workload_key),
                       self.routing.currentData(), self._servings.get(self._serving_key))

    def set_workload(self, key: str) -> bool:
        """Choose the workload by preset name or file path ("" for none); False (and a dialog) when unreadable."""
        if key and key not in self._workloads:
            try:
                self._workloads[key] = load_workload(key)
            except (DesignError, OSError) as e:
                QMessageBox.warning(self, "Workload", f"Cannot use this workload: {e}")
                self._show_workload_key()
                return False
            if self.workload.findData(key) < 0:
                self.workload.insertItem(self.workload.count() - 1, training_choice(self._workloads[key].name), key)
        self._workload_key = key
        self._show_workload_key()
        self._on_traffic_edited()
        return True

    def _show_workload_key(self) -> None:
        self.workload.blockSignals(True)
        self.workload.setCurrentIndex(max(0, self.workload.findData(self._workload_key)))
        self.workload.blockSignals(False)
        w = self._workloads.get(self._workload_key)
        self.workload.setToolTip(w.description if w is not None and w.description else self.workload.toolTip())

    def _on_workload_activated(self, _index: int) -> None:
        key = self.workload.currentData()
        if key == OPEN_WORKLOAD:
            path, _ = QFileDialog.getOpenFileName(self, "Open a workload", "", "Workload files (*.json);;All files (*)")
            if not path:
                self._show_workload_key()
                return
            key = path
        self.set_workload(key)

    def set_serving(self, key: str) -> bool:
        """Choose the serving workload by preset name or file path ("" for none); False (and a dialog) when
        unreadable."""
        if key and key not in self._servings:
            try:
                self._servings[key] = load_serving(key)
            except (DesignError, OSError) as e:
                QMessageBox.warning(self, "Serving workload", f"Cannot use this serving workload: {e}")
                self._show_serving_key()
                return False
            if self.serving.findData(key) < 0:
                self.serving.insertItem(self.serving.count() - 1, f"Serve: {self._servings[key].name}", key)
        self._serving_key = key
        self._show_serving_key()
        self._on_traffic_edited()
        return True

    def _show_serving_key(self) -> None:
        self.serving.blockSignals(True)
        self.serving.setCurrentIndex(max(0, self.serving.findData(self._serving_key)))
        self.serving.blockSignals(False)

    def _on_serving_activated(self, _index: int) -> None:
        key = self.serving.currentData()
        if key == OPEN_WORKLOAD:
            path, _ = QFileDialog.getOpenFileName(self, "Open a serving workload", "",
                                                  "Serving files (*.json);;All files (*)")
            if not path:
                self._show_serving_key()
                return
            key = path
        self.set_serving(key)

    def set_size(self, size: int) -> None:
        """Choose the message size (the curves panel's click); re-runs like any traffic change."""
        i = self.size.findData(int(size))
        if i >= 0:
            self.size.setCurrentIndex(i)

    def _on_traffic_edited(self, *_args: Any) -> None:
        self.collective_label.setText(COLLECTIVE_TITLES[self.collective.currentData()])
        self.runner.set_traffic(self.traffic())

    def _on_live_toggled(self, on: bool) -> None:
        self.runner.set_live(on)

    # ------------------------------------------------------------------ runner
    def _on_document_design_replaced(self, _design: Design) -> None:
        self._fill_participants()
        self._selected_gpus = ()
        self.show_result(None)
        self.state.setText(waiting_text(self.runner, self.document.design))

    def _on_runner_started(self) -> None:
        self.state.setText("Analyzing\u2026")
        self.progress.setRange(0, 4)
        self.progress.setValue(0)
        self.progress.setFormat("starting")

    def _on_runner_reading(self) -> None:
        self.state.setText("Analyzing: reading the design\u2026")
        self.progress.setRange(0, 0)  # busy (a bar with no count shows no words: the state says them)
        self._busy.show()  # with Cancel; hidden when the run ends or is cancelled (``slow``)

    def _on_runner_progress(self, stage: str, done: int, total: int) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self.progress.setFormat(STAGE_LABELS.get(stage, stage))

    def _on_runner_stale(self) -> None:
        if self.runner.result is not None:
            self.state.setText("The design changed since this analysis: "
                               + ("updating\u2026" if self.runner.live else "press Analyze (F5) to update."))

    def _on_runner_live_changed(self, on: bool, why: str) -> None:
        self.live.blockSignals(True)
        self.live.setChecked(on)
        self.live.blockSignals(False)
        if why:
            self.state.setText(why[0].upper() + why[1:] + ".")

    def _on_runner_failed(self, message: str) -> None:
        self.state.setText(f"Analysis failed: {message}")

    def _on_runner_result_ready(self, report: Report | None) -> None:
        if report is None:
            self.show_result(None)

    def _show_hashed(self, report: Report | None) -> None:
        r = report.routing if report is not None else None
        h = r.hashed if r is not None else None
        on = h is not None and h.modelled and bool(h.flows)
        self.hashed.setVisible(on)
        self.hashed_label.setVisible(on)
        if on:
            self.hashed.setText(f"{units.duration(h.mean_time_s)} mean, {units.duration(h.p99_time_s)} p99; "
                                f"fluid split {units.duration(h.fluid_time_s)}")
            self.hashed.setToolTip("\n".join(routing_lines(report)))

    def _set_step_visible(self, on: bool) -> None:
        self.step.setVisible(on)
        self.step_label.setVisible(on)

    def _set_served_visible(self, on: bool) -> None:
        self.served.setVisible(on)
        self.served_label.setVisible(on)

    def _show_served(self, result: LiveResult) -> None:
        if result.traffic.serving is None:
            self._set_served_visible(False)
            return
        self._set_served_visible(True)
        rep = result.serving
        if rep is None:
            self.served.setText(f"cannot serve: {result.serving_error}")
            return
        self.served.setText(f"TTFT {units.duration(rep.ttft_s)}, TPOT {units.duration(rep.tpot_s)}, "
                            f"{units.figures(rep.output_tokens_per_s_per_gpu)} tokens/s per GPU; {rep.bound}-bound")
        self.served.setToolTip(f"{rep.workload}: the network is {units.percent(rep.network_share_ttft)} of TTFT and "
                               f"{units.percent(rep.network_share_tpot)} of TPOT. The Serving panel shows where the "
                               "time goes.")

    def _set_failures_visible(self, on: bool) -> None:
        self.failures.setVisible(on)
        self.failures_label.setVisible(on)

    def show_result(self, result: LiveResult | None) -> None:
        if result is None:
            for lab in (self.bisection, self.allreduce, self.busiest):
                lab.setText("\u2014")
            self._set_failures_visible(False)
            self._set_step_visible(False)
            self._set_served_visible(False)
            self._show_hashed(None)
            self.details.setPlainText("")
            return
        report = result.report
        mode = "live" if self.runner.live else "on demand"
        self.state.setText(f"Analyzed in {units.duration(result.seconds)} ({mode}).")
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
        chosen = self._chosen(report)
        why = cannot_run_text(report)
        self.allreduce.setToolTip(why)
        if chosen is None and why:
            self.allreduce.setText(f"{report.collective} cannot run: no path between some GPUs (details below)")
        elif chosen is None:
            self.allreduce.setText(f"no {report.collective} estimate at {units.size(report.link_use_bytes)}")
        else:
            self.allreduce.setText(
                f"{units.duration(chosen.time_s)} for {units.size(chosen.message_bytes)} over "
                f"{units.count(report.ranks, 'GPU')} with {chosen.algorithm} ({chosen.protocol}); "
                f"busbw {units.rate(chosen.busbw_bytes_per_s)}"
            )
        if report.bottlenecks:
            bn = report.bottlenecks[0]
            self.busiest.setText(f"{bn.link}: {units.percent(bn.utilization)} busy ({bn.protocol})")
        else:
            self.busiest.setText("\u2014")
        self._show_failures(result)
        self._show_hashed(report)
        lines = summary_lines(report, max_rows=8)
        self._show_step(result)
        if result.step is not None:
            lines = [*step_lines(result.step), "", *lines]
        elif result.step_error:
            lines = [f"Workload {result.traffic.workload.name!r}: {result.step_error}", "", *lines]
        self._show_served(result)
        if result.serving is not None:
            lines = [*serving_lines(result.serving), "", *lines]
        elif result.serving_error:
            lines = [f"Serving {result.traffic.serving.name!r}: {result.serving_error}", "", *lines]
        self.details.setPlainText("\n".join(lines))

    def _show_step(self, result: LiveResult) -> None:
        if result.traffic.workload is None:
            self._set_step_visible(False)
            return
        self._set_step_visible(True)
        st: StepReport | None = result.step
        if st is None:
            self.step.setText(f"cannot predict: {result.step_error}")
            return
        text = (f"{units.duration(st.step_time_s)}, GPUs idle {units.percent(st.gpu_idle_fraction)}, "
                f"MFU {units.percent(st.mfu)}")
        base = result.baseline_step
        if base is not None and base.step_time_s > 0:
            text += f" (failures: {units.change(st.step_time_s / base.step_time_s - 1)})"
        self.step.setText(text)
        tip = (f"{result.traffic.workload.name}: {units.percent(st.comm_idle_fraction)} of the step waiting for "
               f"communication; {tokens(st.tokens_per_s)} tokens/s")
        if st.gpu_hour_usd > 0:
            tip += f"; idle GPUs cost {usd(st.idle_cost_per_day_usd)} per day"
        self.step.setToolTip(tip + ". The Training step panel shows where the time goes.")

    @staticmethod
    def _chosen(report: Report):
        rows = [r for r in report.collectives if r.message_bytes == report.link_use_bytes]
        return next((r for r in rows if r.selected), rows[0] if rows else None)

    def _show_failures(self, result: LiveResult) -> None:
        base = result.baseline
        if base is None:
            self._set_failures_visible(False)
            return
        rep = result.report
        failed = sum(1 for lk in self.document.design.iter_links() if lk.failed)
        parts = [f"{units.count(failed, 'link')} failed"]
        bl, bb = rep.bisection.lower_bytes_per_s, base.bisection.lower_bytes_per_s
        if bl is not None and bb:
            parts.append(f"bisection {units.change(bl / bb - 1)}")
        now, before = self._chosen(rep), self._chosen(base)
        if now is not None and before is not None and before.time_s > 0:
            parts.append(f"{rep.collective} {units.change(now.time_s / before.time_s - 1)} time")
        elif before is not None and now is None:
            parts.append(f"{rep.collective} cannot run")
        if len(rep.links) and len(base.links):
            parts.append(f"max utilisation {units.percent(float(rep.links.utilization.max()))} "
                         f"(was {units.percent(float(base.links.utilization.max()))})")
        self.failures.setText("; ".join(parts))
        self._set_failures_visible(True)
