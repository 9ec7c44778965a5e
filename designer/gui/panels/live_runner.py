"""The live analysis: the analyzer follows every edit of the design, off the UI thread.

:class:`AnalysisRunner` listens to the document's model events. An edit that can change a result
(devices, links, ports, models, tiers, failures, grouping) restarts a debounce timer
(:data:`DEBOUNCE_MS`); when it fires, the design is read into a snapshot in slices between event-loop
turns (:meth:`designer.model.snapshot.DesignSnapshot.capture_steps`) and analysed in a worker
thread. Moves, renames, collapsing and the description change no figure and start nothing.

An edit made while the runner is idle (no run going or waiting) starts at once; the edits that
follow while it is busy (held Ctrl+Z, a quick series of deletes) wait until :data:`DEBOUNCE_MS`
after the last of them, and only that state is analysed.

A newer edit always wins: every run has a generation number, results of older generations are
dropped, and an older run still going is cancelled at its next stage (``analyze(progress=...)``).
One worker thread runs the jobs in order, so the cached context (capacity graph, routes and the
memoised models of :func:`designer.analysis.analyze`) is used by one thread at a time: a change
of message size or algorithm re-uses the routes of the last run.

When the design has failed links, the same traffic is also analysed on the design without
failures (cached until the fabric itself changes), so panels can show what the failures cost.

A run that took longer than :data:`LIVE_LIMIT_S` switches the runner to on-demand (F5 runs);
runs longer than :data:`PROGRESS_AFTER_MS` show progress and can be cancelled.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from designer.analysis import Report
from designer.analysis.serving.model import ServingReport
from designer.analysis.serving.workload import ServingWorkload
from designer.analysis.training import StepReport, Workload
from designer.gui.document.document import Document
from designer.model import Design, DesignError, units
from designer.model.bulk import built_to_keep, release_gradually, release_kept
from designer.model.catalog import Catalog
from designer.model.snapshot import DesignSnapshot, SnapshotCapture

DEBOUNCE_MS = 200
LIVE_LIMIT_S = 2.0
PROGRESS_AFTER_MS = 500
#: Records read per event-loop turn when a design is captured for a run.
CAPTURE_ROWS_PER_STEP = 10_000
DEFAULT_SIZE = 2**28


@dataclass(frozen=True)
class Traffic:
    """What the analysis times: a collective of ``size`` bytes over ``gpus`` with ``algorithm``.

    ``gpus`` is ``"all"``, a group id, or a tuple of GPU ids; ``algorithm`` None means the fastest
    (as NCCL's tuner picks), otherwise that algorithm is selected at every size. With a
    ``workload``, each run also predicts its training step
    (:func:`designer.analysis.training.step_analysis`) on the same context.
    """

    collective: str = "allreduce"
    size: int = DEFAULT_SIZE
    gpus: str | tuple[str, ...] = "all"
    algorithm: str | None = None
    #: a training job to predict the step of on this design (None: no step analysis)
    workload: Workload | None = None
    #: how flows cross the switches: "fluid", "hashed" (ECMP) or "adaptive"; None: by fabric type
    routing: str | None = None
    #: a serving workload to predict TTFT and TPOT of on this design (None: no serving analysis)
    serving: ServingWorkload | None = None

    def routes_key(self) -> tuple[Any, ...]:
        """What the routes depend on (size and algorithm choice do not change them)."""
        return (self.collective, self.gpus)


@dataclass(frozen=True)
class LiveResult:
    """One finished run: the report, the report without failures (None when nothing failed)."""

    report: Report
    baseline: Report | None
    seconds: float
    traffic: Traffic
    #: whether the capacity graph and routes were built for this run (False: re-used)
    built_routes: bool
    #: the workload's training step on the design (None: no workload, or it does not fit: ``step_error``)
    step: StepReport | None = None
    #: the same step without failures (None when nothing failed)
    baseline_step: StepReport | None = None
    #: why the workload could not be analysed on this design ("" when it was, or none was given)
    step_error: str = ""
    #: the serving workload on the design (None: none chosen, or it does not fit: ``serving_error``)
    serving: ServingReport | None = None
    #: why the serving workload could not be analysed on this design
    serving_error: str = ""


class Cancelled(Exception):
    """A run was cancelled (by the user, or because a newer edit superseded it)."""


def analyzer() -> Callable[..., Report]:
    """The analyzer the runner calls (``designer.analysis.analyze``); tests may replace it."""
    from designer.analysis import analyze

    return analyze


class _Cache:
    """The worker's state: designs and contexts by revision (touched by the worker thread only)."""

    def __init__(self) -> None:
        self.rev: int | None = None
        self.struct_rev: int | None = None
        self.design: Design | None = None
        self.ctx: Any = None
        self.base_rev: int | None = None
        self.base_design: Design | None = None
        self.base_ctx: Any = None
        self.builds = 0  # how many times routes were built (for tests and the benchmark)
        self.base_builds = 0  # the same for the design without failures


class _Signals(QObject):
    finished = Signal(int, object)  # generation, LiveResult
    failed = Signal(int, str)
    progress = Signal(int, str, int, int)  # generation, stage, done, total


class _Job(QRunnable):
    def __init__(self, generation: int, rev: int, struct_rev: int, snapshot: DesignSnapshot, traffic: Traffic,
                 catalog: Catalog | None, cache: _Cache, signals: _Signals, cancel: threading.Event) -> None:
        super().__init__()
        self.generation, self.rev, self.struct_rev = generation, rev, struct_rev
        self.snapshot, self.traffic, self.catalog = snapshot, traffic, catalog
        self.cache, self.signals, self.cancel = cache, signals, cancel

    def _check(self, stage: str, done: int, total: int) -> None:
        if self.cancel.is_set():
            raise Cancelled
        self.signals.progress.emit(self.generation, stage, done, total)

    def run(self) -> None:
        if self.cancel.is_set():
            return
        t0 = time.perf_counter()
        try:
            result = self._analyse(t0)
        except Cancelled:
            return
        except DesignError as e:
            self.signals.failed.emit(self.generation, str(e))
            return
        except Exception as e:  # noqa: BLE001 - a bug in the analyzer must not take the window down
            self.signals.failed.emit(self.generation, f"{type(e).__name__}: {e}")
            return
        self.signals.finished.emit(self.generation, result)

    def _analyse(self, t0: float) -> LiveResult:
        from designer.analysis import build_context

        c = self.cache
        built = False
        if c.rev != self.rev or c.design is None:
            old, old_ctx, old_struct = c.design, c.ctx, c.struct_rev
            c.rev, c.struct_rev, c.design, c.ctx = None, None, None, None
            if (old is not None and old_struct == self.struct_rev and c.base_rev != self.struct_rev
                    and not any(lk.failed for lk in old.iter_links())):
                # the last run's design is this one without its failures (a link was just failed):
                # it is the baseline, routes and memoised results included
                if c.base_design is not None:
                    release_gradually(c.base_design)
                c.base_design, c.base_ctx, c.base_rev = old, old_ctx, old_struct
            elif old is not None and old is not c.base_design:
                release_gradually(old)  # a slice at a time: freeing it at once stalls the window
            del old, old_ctx
            self._check("routes", 0, 4)
            with built_to_keep():  # no collector pass over all of it while the window waits for the lock
                design = self.snapshot.build()
                c.ctx = build_context(design, self.catalog)
            c.design, c.rev, c.struct_rev = design, self.rev, self.struct_rev
            c.builds += 1
            built = True
        analyze = analyzer()
        t = self.traffic
        kwargs = dict(collective=t.collective, gpus=t.gpus, at_bytes=t.size, prefer=t.algorithm,
                      progress=self._check, routing=t.routing)
        report = analyze(c.design, self.catalog, context=c.ctx, **kwargs)
        baseline = None
        failed = [lk.id for lk in c.design.iter_links() if lk.failed]
        if failed:
            if c.base_rev != self.struct_rev or c.base_design is None:
                old = c.base_design
                c.base_rev, c.base_design, c.base_ctx = None, None, None
                if old is not None:
                    release_gradually(old)
                del old
                c.base_builds += 1
                with built_to_keep():
                    base = self.snapshot.build()
                    with base.batch():
                        for lid in failed:
                            base.set_link_field(lid, "failed", False)
                    c.base_ctx = build_context(base, self.catalog)
                c.base_design, c.base_rev = base, self.struct_rev
            baseline = analyze(c.base_design, self.catalog, context=c.base_ctx, **kwargs)
        step = base_step = None
        step_error = ""
        if t.workload is not None:
            from designer.analysis.training import step_analysis

            self._check("training step", 4, 4)
            try:
                step = step_analysis(c.ctx, t.workload, self.catalog)
                if baseline is not None:
                    base_step = step_analysis(c.base_ctx, t.workload, self.catalog)
            except DesignError as e:  # the job does not fit this design (WorkloadError is one)
                step_error = str(e)
        served, serving_error = None, ""
        if t.serving is not None:
            from designer.analysis.serving.model import serving_analysis

            self._check("serving", 4, 4)
            try:
                served = serving_analysis(c.ctx, t.serving, self.catalog)
            except DesignError as e:  # the instances or the weights do not fit this design
                serving_error = str(e)
        return LiveResult(report, baseline, time.perf_counter() - t0, t, built, step, base_step, step_error,
                          served, serving_error)


class AnalysisRunner(QObject):
    """Runs the analyzer off the UI thread, live after edits or on demand, and hands out results."""

    started = Signal()
    result_ready = Signal(object)  # the report
    live_result = Signal(object)  # the LiveResult (report, baseline without failures, seconds)
    failed = Signal(str)
    progress = Signal(str, int, int)  # stage, done, total (runs longer than PROGRESS_AFTER_MS)
    slow = Signal(bool)  # a run has gone on longer than PROGRESS_AFTER_MS (True) / ended (False)
    stale = Signal()  # the design or the traffic changed since the shown result
    live_changed = Signal(bool, str)  # live on/off, and why
    cancelled = Signal()

    def __init__(self, document: Document, pool: QThreadPool | None = None) -> None:
        super().__init__(document)
        self.document = document
        if pool is None:
            pool = QThreadPool(self)
            pool.setMaxThreadCount(1)  # one job at a time: the cache is the worker's alone
        self.pool = pool
        self.generation = 0
        self.running = False
        self.report: Report | None = None
        self.result: LiveResult | None = None
        self.seconds = 0.0
        self.live = True
        self._live_off_for_design = False
        self.traffic = Traffic()
        self.rev = 0  # content revision: every edit that can change a figure
        self.struct_rev = 0  # the same without failing or restoring links
        self._snapshot: tuple[int, DesignSnapshot] | None = None
        self._capture: SnapshotCapture | None = None
        self._cache = _Cache()
        self._cancel: threading.Event | None = None
        self._listeners: list[Callable[[Any], None]] = []
        self._signals = _Signals()
        self._signals.finished.connect(self._on_job_finished)
        self._signals.failed.connect(self._on_job_failed)
        self._signals.progress.connect(self._on_job_progress)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self.timer.timeout.connect(self._on_timer_timeout)
        self._capture_timer = QTimer(self)
        self._capture_timer.setInterval(0)
        self._capture_timer.timeout.connect(self._on_capture_timer_timeout)
        self._slow_timer = QTimer(self)
        self._slow_timer.setSingleShot(True)
        self._slow_timer.setInterval(PROGRESS_AFTER_MS)
        self._slow_timer.timeout.connect(lambda: self.slow.emit(True))
        self._run_started = 0.0
        self._design: Design | None = None
        document.design_replaced.connect(self._on_document_design_replaced)
        self._on_document_design_replaced(document.design)

    # ------------------------------------------------------------------ public
    @property
    def builds(self) -> int:
        """How many times the worker built a capacity graph and routes (re-use shows as no change)."""
        return self._cache.builds

    @property
    def base_builds(self) -> int:
        """How many times the worker built the design without failures (re-used when it can be)."""
        return self._cache.base_builds

    def add_listener(self, listener: Callable[[Any], None]) -> None:
        """Call ``listener(report)`` with every new report."""
        self._listeners.append(listener)

    def set_live(self, on: bool, why: str = "", *, automatic: bool = False) -> None:
        """Live (run after every edit) or on demand (F5).

        ``automatic``: turned off for this design only (its analysis is too slow to follow every
        edit); the next design shown is live again. A choice of the user's holds for every design.
        """
        self._live_off_for_design = automatic and not on
        if on == self.live:
            return
        self.live = on
        self.live_changed.emit(on, why)
        if on and self.is_stale():
            self.schedule()

    def set_traffic(self, traffic: Traffic) -> None:
        """What to time; a change re-runs at once when live (the routes are re-used when they can be)."""
        if traffic == self.traffic:
            return
        self.traffic = traffic
        self.stale.emit()
        if self.live:
            self.schedule(0)

    def pending(self) -> bool:
        """An analysis is running or about to (debounce, snapshot in progress)."""
        return self.running or self.timer.isActive() or self._capture is not None

    def is_stale(self) -> bool:
        return self.result is None or self._shown != (self.rev, self.traffic)

    def schedule(self, delay_ms: int = DEBOUNCE_MS) -> None:
        """Run after ``delay_ms`` without another edit (the debounce)."""
        self.timer.start(delay_ms)

    def start(self) -> bool:
        """Analyse the design as it is now (F5): read it at once and run in the worker."""
        self.timer.stop()
        self._capture_timer.stop()
        self._capture = None
        if self._snapshot is None or self._snapshot[0] != self.rev:
            self._snapshot = (self.rev, DesignSnapshot.capture(self.document.design))
        self._submit()
        return True

    def cancel(self) -> None:
        """Stop the run in progress (its result will not be shown)."""
        if self._cancel is not None:
            self._cancel.set()
        self.timer.stop()
        self._capture_timer.stop()
        self._capture = None
        if self.running:
            self.generation += 1
            self._finish_run()
            self.cancelled.emit()

    def shutdown(self) -> None:
        """Cancel everything and wait for the worker (the window is closing)."""
        self.cancel()
        self.pool.clear()
        self.pool.waitForDone(30_000)

    # ------------------------------------------------------------------ model events
    def _content_signals(self, design: Design) -> list[tuple[Any, Callable[..., None]]]:
        edit = self._on_design_edited
        return [
            (design.device_added, edit),
            (design.device_removed, edit),
            (design.link_added, edit),
            (design.link_removed, edit),
            (design.link_changed, self._on_design_link_changed),
            (design.device_changed, self._on_design_device_changed),
            (design.group_changed, self._on_design_group_changed),
            (design.changed, self._on_design_changed),
        ]

    def _on_document_design_replaced(self, design: Design) -> None:
        if self._design is not None:
            for signal, slot in self._content_signals(self._design):
                signal.disconnect(slot)
        self._design = design
        for signal, slot in self._content_signals(design):
            signal.connect(slot)
        self.cancel()
        release_kept()  # what the worker built for the last design goes back to the collector
        self.report = None
        self.result = None
        self.seconds = 0.0
        self._shown: tuple[int, Traffic] | None = None
        self.rev += 1
        self.struct_rev += 1
        self._snapshot = None
        self._pending = False
        if self.traffic.gpus not in ("all",):
            self.traffic = replace(self.traffic, gpus="all")  # another design's GPUs mean nothing here
        if self._live_off_for_design:
            self.set_live(True, "live analysis is on again for this design")
            self.timer.stop()  # scheduled below, if there is anything to analyse
        self.result_ready.emit(None)
        if self.live and design.device_count():
            self.schedule(0)

    def _on_design_device_changed(self, _device_id: str, field: str, _old: Any, _new: Any) -> None:
        if field != "name":
            self._on_design_edited()

    def _on_design_group_changed(self, _group_id: str, field: str, _old: Any, _new: Any) -> None:
        if field in ("parent", "kind"):
            self._on_design_edited()

    def _on_design_link_changed(self, _link_id: str, field: str, _old: Any, _new: Any) -> None:
        self.rev += 1
        if field != "failed":
            self.struct_rev += 1
        self._pending = True

    def _debounce_ms(self) -> int:
        """0 for an edit to an idle runner (leading edge), :data:`DEBOUNCE_MS` while one is in hand."""
        idle = not self.running and not self.timer.isActive() and self._capture is None
        return 0 if idle else DEBOUNCE_MS

    def _on_design_edited(self, *_args: Any) -> None:
        self.rev += 1
        self.struct_rev += 1
        self._pending = True

    def _on_design_changed(self) -> None:
        """Once per primitive or batch: the moment to (re)start the debounce."""
        if not self._pending:
            return
        self._pending = False
        self._capture_timer.stop()
        self._capture = None
        self.stale.emit()
        delay = self._debounce_ms()
        if self.live:
            self.schedule(delay)

    # ------------------------------------------------------------------ the run
    def _on_timer_timeout(self) -> None:
        if self._snapshot is not None and self._snapshot[0] == self.rev:
            self._submit()
            return
        self._capture = DesignSnapshot.capture_steps(self.document.design, CAPTURE_ROWS_PER_STEP)
        self._capture_rev = self.rev
        self._on_capture_timer_timeout()
        if self._capture is not None:
            self._capture_timer.start()

    def _on_capture_timer_timeout(self) -> None:
        cap = self._capture
        if cap is None or self._capture_rev != self.rev:
            self._capture_timer.stop()
            self._capture = None
            return
        with built_to_keep():  # the rows read so far are never scanned by the collector
            complete = cap.step()
        if complete:
            self._capture_timer.stop()
            self._capture = None
            assert cap.result is not None
            self._snapshot = (self._capture_rev, cap.result)
            self._submit()

    def _submit(self) -> None:
        assert self._snapshot is not None
        if self._cancel is not None:
            self._cancel.set()  # an older run stops at its next stage
        self.pool.clear()
        self._cancel = threading.Event()
        self.generation += 1
        rev, snap = self._snapshot
        self._job_key = (rev, self.traffic)
        job = _Job(self.generation, rev, self.struct_rev, snap, self.traffic, self.document.catalog, self._cache,
                   self._signals, self._cancel)
        if not self.running:
            self._run_started = time.perf_counter()
            self._slow_timer.start()
        self.running = True
        self.started.emit()
        self.pool.start(job)

    def _finish_run(self) -> None:
        self.running = False
        self._slow_timer.stop()
        self.slow.emit(False)

    def _on_job_progress(self, generation: int, stage: str, done: int, total: int) -> None:
        if generation == self.generation:
            self.progress.emit(stage, done, total)

    def _on_job_finished(self, generation: int, result: LiveResult) -> None:
        if generation != self.generation:
            return  # a newer edit or traffic choice has its own run: this one is stale
        self._finish_run()
        self.result = result
        self.report = result.report
        self.seconds = result.seconds
        self._shown = self._job_key
        self.live_result.emit(result)
        self.result_ready.emit(result.report)
        for listener in self._listeners:
            listener(result.report)
        if self.live and result.seconds > LIVE_LIMIT_S and result.built_routes:
            self.set_live(False, f"the last analysis took {units.duration(result.seconds)}: live analysis is off "
                                 "for this design; press F5 to analyze, or turn Analysis \u25b8 Live back on",
                          automatic=True)
        if self._shown != (self.rev, self.traffic) and self.live:
            self.schedule()

    def _on_job_failed(self, generation: int, message: str) -> None:
        if generation == self.generation:
            self._finish_run()
            self._shown = self._job_key
            self.failed.emit(message)


def waiting_text(runner: AnalysisRunner, design: Design, workload: str = "") -> str:
    """What a panel without a result says: computing, nothing to compute, or how to start."""
    if not design.device_count():
        return "Nothing to analyze: the design is empty."
    what = f" {workload}" if workload else ""
    if runner.pending():
        return f"Analyzing{what}\u2026"
    if runner.live:
        return f"Not analyzed yet{what and ' for' + what}."
    return f"Not analyzed yet{what and ' for' + what}: press Analyze (F5)."
