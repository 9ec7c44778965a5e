"""The live analysis: the analyzer follows every edit of the design, off the UI thread.

:class:`AnalysisRunner` follows the document through its :class:`~designer.gui.document.feed.DesignFeed`.
An edit that can change a result (devices, links, ports, models, tiers, failures, grouping) makes
the shown result stale at once; when the feed settles (at once for an edit to an idle window, else
the feed's debounce after the last of a quick series: a held Ctrl+Z, a quick series of deletes),
the feed's snapshot of the design (read once per edit, in slices between event-loop turns, and
shared with the other background consumers) is analysed in the feed's worker pool. Moves,
renames, collapsing and the description change no figure and start nothing.

A newer edit always wins: every run has a generation number, results of older generations are
dropped, and an older run still going is cancelled at its next stage (``analyze(progress=...)``).
The runner's jobs run in one lane of the feed's pool, one after another, so the cached context
(capacity graph, routes and the memoised models of :func:`designer.analysis.analyze`) is used by
one thread at a time: a change of message size or algorithm re-uses the routes of the last run.

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
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QRunnable, QTimer, Signal

from designer.analysis.serving.workload import ServingWorkload
from designer.analysis.training.workload import Workload
from designer.gui.document.document import Document
from designer.gui.document.feed import ALL, FABRIC, FAILURES, GROUPING, DesignFeed, Lane
from designer.model import Design, DesignError, units
from designer.model.bulk import built_to_keep, release_gradually, release_kept
from designer.model.catalog import Catalog
from designer.model.snapshot import DesignSnapshot

if TYPE_CHECKING:
    from designer.analysis import Report
    from designer.analysis.serving.model import ServingReport
    from designer.analysis.training.step import StepReport

LIVE_LIMIT_S = 2.0
PROGRESS_AFTER_MS = 500
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
        if (c.rev != self.rev and c.base_design is not None and c.base_rev == self.struct_rev
                and not self.snapshot.any_failed_link()):
            # The last failed link is restored (an undo): the design is its baseline again, whose
            # routes and memoised results are kept, so nothing is built or routed again.
            if c.design is not None and c.design is not c.base_design:
                release_gradually(c.design)
            c.design, c.ctx, c.rev, c.struct_rev = c.base_design, c.base_ctx, self.rev, self.struct_rev
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
    reading = Signal()  # Analyze (F5) waits for the design to be read (in slices: a large design)
    result_ready = Signal(object)  # the report
    live_result = Signal(object)  # the LiveResult (report, baseline without failures, seconds)
    failed = Signal(str)
    progress = Signal(str, int, int)  # stage, done, total (runs longer than PROGRESS_AFTER_MS)
    slow = Signal(bool)  # a run has gone on longer than PROGRESS_AFTER_MS (True) / ended (False)
    stale = Signal()  # the design or the traffic changed since the shown result
    live_changed = Signal(bool, str)  # live on/off, and why
    cancelled = Signal()

    def __init__(self, document: Document, feed: DesignFeed) -> None:
        super().__init__(document)
        self.document = document
        self.feed = feed
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
        self._awaiting = False  # a run was asked for and waits for the feed's snapshot
        self._asked = False  # Analyze (F5) was asked for and has not started yet
        self._job_key: tuple[int, Traffic] | None = None  # the revision and traffic of the last run
        self._unsettled = False  # an edit that changes a figure, not yet settled
        self._cache = _Cache()
        self._lane = Lane(feed.pool)  # one job at a time: the cache is the worker's alone
        self._cancel: threading.Event | None = None
        self._listeners: list[Callable[[Any], None]] = []
        self._signals = _Signals()
        self._signals.finished.connect(self._on_job_finished)
        self._signals.failed.connect(self._on_job_failed)
        self._signals.progress.connect(self._on_job_progress)
        self._slow_timer = QTimer(self)
        self._slow_timer.setSingleShot(True)
        self._slow_timer.setInterval(PROGRESS_AFTER_MS)
        self._slow_timer.timeout.connect(lambda: self.slow.emit(True))
        self._run_started = 0.0
        feed.add_busy_probe(lambda: self.running or self._awaiting)
        feed.edited.connect(self._on_feed_edited)
        feed.settled.connect(self._on_feed_settled)
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
            self.schedule()

    def pending(self) -> bool:
        """An analysis is running or about to (an edit not yet settled, the design being read)."""
        return self.running or self._awaiting or (self.live and self._unsettled)

    def is_stale(self) -> bool:
        return self.result is None or self._shown != (self.rev, self.traffic)

    def schedule(self) -> None:
        """Analyse the design as it is now, once the feed has read it (in slices, between turns)."""
        self._awaiting = True
        self.feed.snapshot_later(self._on_feed_snapshot)

    def start(self) -> bool:
        """Analyse the design as it is now (F5), even when it was analysed already, in the worker.

        The design is the feed's reading of this revision: at once when it was read already (every
        small design), else read in slices between event-loop turns (``reading`` is emitted), so
        that the window answers while a large design is read (131,072 GPUs: a second). An edit
        meanwhile does not lose the request: it runs once the edit settles.
        """
        self._asked = True
        self._awaiting = True
        self.feed.snapshot_later(self._on_feed_snapshot)
        if self._awaiting:
            self.reading.emit()
        return True

    def cancel(self) -> None:
        """Stop the run in progress (its result will not be shown)."""
        if self._cancel is not None:
            self._cancel.set()
        self._awaiting = False
        self._asked = False
        if self.running:
            self.generation += 1
            self._finish_run()
            self.cancelled.emit()
        else:
            self.slow.emit(False)  # an Analyze (F5) still reading the design shows its progress until now
            self.feed.work_done()

    def shutdown(self) -> None:
        """Cancel everything and wait for the worker (the window is closing)."""
        self.cancel()
        self.feed.pool.waitForDone(30_000)

    # ------------------------------------------------------------------ the feed
    def _on_document_design_replaced(self, design: Design) -> None:
        self.cancel()
        release_kept()  # what the worker built for the last design goes back to the collector
        self.report = None
        self.result = None
        self.seconds = 0.0
        self._shown: tuple[int, Traffic] | None = None
        self.rev += 1
        self.struct_rev += 1
        self._unsettled = bool(design.device_count())  # the feed settles with it at the next turn
        if self.traffic.gpus not in ("all",):
            self.traffic = replace(self.traffic, gpus="all")  # another design's GPUs mean nothing here
        if self._live_off_for_design:
            self.set_live(True, "live analysis is on again for this design")
            self._awaiting = False  # asked when the feed settles, if there is anything to analyse
        self.result_ready.emit(None)

    def _on_feed_edited(self, aspects: frozenset[str]) -> None:
        """An edit: a new revision when it can change a figure (moves, renames, collapsing cannot)."""
        if not aspects & {FABRIC, GROUPING, FAILURES}:
            return
        self.rev += 1
        if aspects & {FABRIC, GROUPING}:
            self.struct_rev += 1
        self._awaiting = False  # the design read for an older revision is not analysed
        self._unsettled = True
        self.stale.emit()

    def _on_feed_settled(self, aspects: frozenset[str]) -> None:
        if not aspects & {FABRIC, GROUPING, FAILURES}:
            return
        self._unsettled = False
        if self._asked:
            self.start()  # Analyze (F5) was pressed while the design was being read, and then edited
        elif self.live and (aspects != ALL or self.document.design.device_count()):  # a new empty design: nothing
            self.schedule()

    def _on_feed_snapshot(self, _revision: int, snapshot: DesignSnapshot) -> None:
        if not self._awaiting:
            return
        self._awaiting = False
        asked, self._asked = self._asked, False
        key = (self.rev, self.traffic)
        if not asked and self._job_key == key and (self.running or self._shown == key):
            self.feed.work_done()
            return  # this revision and traffic are being analysed or shown already (F5 came first)
        self._submit(snapshot)

    def _submit(self, snap: DesignSnapshot) -> None:
        if self._cancel is not None:
            self._cancel.set()  # an older run stops at its next stage, a queued one before it starts
        self._cancel = threading.Event()
        self.generation += 1
        rev = self.rev
        self._job_key = (rev, self.traffic)
        job = _Job(self.generation, rev, self.struct_rev, snap, self.traffic, self.document.catalog, self._cache,
                   self._signals, self._cancel)
        if not self.running:
            self._run_started = time.perf_counter()
            self._slow_timer.start()
        self.running = True
        self.started.emit()
        self._lane.start(job)

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
        self.feed.work_done()  # the panels have the result: the rules check and the bill may run

    def _on_job_failed(self, generation: int, message: str) -> None:
        if generation == self.generation:
            self._finish_run()
            self._shown = self._job_key
            self.failed.emit(message)
            self.feed.work_done()


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
