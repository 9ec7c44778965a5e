"""The shown design as background work reads it: what an edit changed, one debounce, one snapshot.

Every consumer that works off the UI thread (the live analysis, the design-rule check, the bill of
materials, the variant comparison) follows the document through one :class:`DesignFeed` instead
of listening to the model, timing and copying the design on its own:

- ``edited(aspects)`` once per edit (a primitive, or a batch): which kinds of thing it changed
  (:data:`FABRIC`, :data:`FAILURES`, :data:`NAMES`, :data:`GROUPING`, :data:`LAYOUT`), so a
  consumer can say at once that what it shows is out of date, or ignore the edit.
- ``settled(aspects)`` when the edits stop: at once for an edit to an idle feed (leading edge),
  else :data:`DEBOUNCE_MS` after the last of a quick series (a held Ctrl+Z), with every aspect
  changed since the last ``settled``; at the next event-loop turn with :data:`ALL` when another
  design is shown (after every panel has taken it). The one debounce of the window.
- ``quiet(aspects)``: settled, and the live analysis (a busy consumer) is done with it: the
  rules check and the bill wait for it, so they never delay the analysis' result.
- :meth:`snapshot` / :meth:`snapshot_later`: the design read into a
  :class:`~designer.model.snapshot.DesignSnapshot` once per revision, whoever asks first (later in
  slices of :data:`CAPTURE_ROWS_PER_STEP` records between event-loop turns, so a 16k-GPU design
  never freezes the window), shared by every consumer: one copy per edit.
- :attr:`pool`: the one worker pool (:data:`WORKER_THREADS` threads) every consumer's jobs run
  in; a consumer whose jobs share state runs them in a :class:`Lane` (one after another, and a
  queued job never holds a thread while it waits).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from designer.gui.document.document import Document
from designer.model import Design
from designer.model.bulk import built_to_keep
from designer.model.snapshot import DesignSnapshot, SnapshotCapture

DEBOUNCE_MS = 200
#: Records read per event-loop turn when the design is captured in slices.
CAPTURE_ROWS_PER_STEP = 10_000
#: Worker threads: one for a long analysis, one so that a count or a check does not wait for it.
WORKER_THREADS = 2

#: Devices or links added or removed; a device's ports, model, tier, kind or properties; a link's
#: medium, cable or length.
FABRIC = "fabric"
#: A link failed or restored (the what-if).
FAILURES = "failures"
#: A device renamed.
NAMES = "names"
#: A device moved to another group; a group's parent or kind.
GROUPING = "grouping"
#: Positions, a group's name or collapsed flag, the design's name or description.
LAYOUT = "layout"
ALL = frozenset((FABRIC, FAILURES, NAMES, GROUPING, LAYOUT))


class DesignFeed(QObject):
    """Follows the document's shown design for every background consumer (see the module)."""

    edited = Signal(object)  # frozenset of aspects, once per edit
    settled = Signal(object)  # frozenset of aspects since the last settled, after the debounce
    #: settled, and no busy consumer (the live analysis) still works on it: for the work that may
    #: wait (the rules check, the bill), so that it never delays the analysis' result
    quiet = Signal(object)

    def __init__(self, document: Document) -> None:
        super().__init__(document)
        self.document = document
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(WORKER_THREADS)
        self.revision = 0
        self._edit: set[str] = set()
        self._unsettled: set[str] = set()
        self._snapshot: tuple[int, DesignSnapshot] | None = None
        self._capture: SnapshotCapture | None = None
        self._capture_rev = -1
        self._waiting: list[Callable[[int, DesignSnapshot], None]] = []
        self._busy: list[Callable[[], bool]] = []
        self._unquiet: set[str] = set()
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self._on_timer_timeout)
        self._capture_timer = QTimer(self)
        self._capture_timer.setInterval(0)
        self._capture_timer.timeout.connect(self._on_capture_timer_timeout)
        self._design: Design | None = None
        document.design_replaced.connect(self._on_document_design_replaced)
        self._on_document_design_replaced(document.design)

    # ------------------------------------------------------------------ public
    def add_busy_probe(self, probe: Callable[[], bool]) -> None:
        """``probe()`` says a consumer is still working on an earlier edit: the next edit waits
        for the debounce instead of settling at once, and ``quiet`` waits for its
        :meth:`work_done`."""
        self._busy.append(probe)

    def idle(self) -> bool:
        return not self.timer.isActive() and self._capture is None and not any(p() for p in self._busy)

    def capturing(self) -> bool:
        return self._capture is not None

    def snapshot(self) -> DesignSnapshot:
        """The design as it is now, read once per revision (at once, on the UI thread)."""
        if self._snapshot is None or self._snapshot[0] != self.revision:
            cap = self._capture
            if cap is not None and self._capture_rev == self.revision:
                with built_to_keep():  # a reading in slices of this revision: finish it now
                    while not cap.step():
                        pass
                self._deliver(cap)
            else:
                self._stop_capture()
                self._snapshot = (self.revision, DesignSnapshot.capture(self.document.design))
        assert self._snapshot is not None
        return self._snapshot[1]

    def snapshot_later(self, callback: Callable[[int, DesignSnapshot], None]) -> None:
        """Call ``callback(revision, snapshot)`` with the design as it is now, read in slices
        between event-loop turns (at once when this revision was read already). An edit before
        the reading ends drops the callback: its consumer hears ``settled`` again."""
        if self._snapshot is not None and self._snapshot[0] == self.revision:
            callback(*self._snapshot)
            return
        self._waiting.append(callback)
        if self._capture is None or self._capture_rev != self.revision:
            self._capture = DesignSnapshot.capture_steps(self.document.design, CAPTURE_ROWS_PER_STEP)
            self._capture_rev = self.revision
            self._on_capture_timer_timeout()
            if self._capture is not None:
                self._capture_timer.start()

    def shutdown(self) -> None:
        """No more work (the window is closing): wait for the jobs still running."""
        self.timer.stop()
        self._stop_capture()
        self.pool.clear()
        self.pool.waitForDone(30_000)

    # ------------------------------------------------------------------ model events
    def _content_signals(self, design: Design) -> list[tuple[Any, Callable[..., None]]]:
        return [
            (design.device_added, self._on_design_fabric_changed),
            (design.device_removed, self._on_design_fabric_changed),
            (design.link_added, self._on_design_fabric_changed),
            (design.link_removed, self._on_design_fabric_changed),
            (design.group_added, self._on_design_layout_changed),
            (design.group_removed, self._on_design_layout_changed),
            (design.devices_moved, self._on_design_layout_changed),
            (design.design_changed, self._on_design_layout_changed),
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
        self._stop_capture()
        self.revision += 1
        self._snapshot = None
        self._edit.clear()
        self._unquiet.clear()
        self._unsettled = set(ALL)  # another design: everything changed, settled at the next turn
        self.timer.start(0)

    def _on_design_fabric_changed(self, *_args: Any) -> None:
        self._edit.add(FABRIC)

    def _on_design_layout_changed(self, *_args: Any) -> None:
        self._edit.add(LAYOUT)

    def _on_design_link_changed(self, _link_id: str, field: str, _old: Any, _new: Any) -> None:
        self._edit.add(FAILURES if field == "failed" else FABRIC)

    def _on_design_device_changed(self, _device_id: str, field: str, _old: Any, _new: Any) -> None:
        self._edit.add(NAMES if field == "name" else GROUPING if field == "group" else FABRIC)

    def _on_design_group_changed(self, _group_id: str, field: str, _old: Any, _new: Any) -> None:
        self._edit.add(GROUPING if field in ("parent", "kind") else LAYOUT)

    def _on_design_changed(self) -> None:
        """Once per primitive or batch: a new revision, ``edited``, and the debounce (re)started."""
        if not self._edit:
            return
        aspects = frozenset(self._edit)
        self._edit.clear()
        idle = self.idle()
        self.revision += 1
        self._stop_capture()
        self._unsettled |= aspects
        self.edited.emit(aspects)
        self.timer.start(0 if idle else DEBOUNCE_MS)

    def _on_timer_timeout(self) -> None:
        aspects = frozenset(self._unsettled)
        self._unsettled.clear()
        if aspects:
            self._unquiet |= aspects
            self.settled.emit(aspects)
            self.work_done()

    def work_done(self) -> None:
        """A busy consumer finished (or dropped) its work: ``quiet`` if nothing else is going on."""
        if self._unquiet and not self.timer.isActive() and not any(p() for p in self._busy):
            aspects = frozenset(self._unquiet)
            self._unquiet.clear()
            self.quiet.emit(aspects)

    # ------------------------------------------------------------------ reading in slices
    def _stop_capture(self) -> None:
        self._capture_timer.stop()
        self._capture = None
        self._waiting = []

    def _on_capture_timer_timeout(self) -> None:
        cap = self._capture
        if cap is None or self._capture_rev != self.revision:
            self._stop_capture()
            return
        with built_to_keep():  # the rows read so far are never scanned by the collector
            complete = cap.step()
        if complete:
            self._deliver(cap)

    def _deliver(self, cap: SnapshotCapture) -> None:
        assert cap.result is not None
        waiting = self._waiting
        self._capture_timer.stop()
        self._capture = None
        self._waiting = []
        self._snapshot = (self._capture_rev, cap.result)
        for callback in waiting:
            callback(*self._snapshot)


class Lane:
    """One consumer's jobs in the feed's pool, one after another (in the order started).

    The next job is handed to the pool only when the one before it has ended, so a job waiting
    for its turn never holds one of the pool's threads: another consumer's job takes it.
    """

    def __init__(self, pool: QThreadPool) -> None:
        self._pool = pool
        self._lock = threading.Lock()
        self._queue: deque[QRunnable] = deque()
        self._busy = False

    def start(self, job: QRunnable) -> None:
        with self._lock:
            if self._busy:
                self._queue.append(job)
                return
            self._busy = True
        self._pool.start(_LaneRun(self, job))

    def _done(self) -> None:
        with self._lock:
            if not self._queue:
                self._busy = False
                return
            job = self._queue.popleft()
        self._pool.start(_LaneRun(self, job))


class _LaneRun(QRunnable):
    def __init__(self, lane: Lane, job: QRunnable) -> None:
        super().__init__()
        self.lane, self.job = lane, job

    def run(self) -> None:
        try:
            self.job.run()
        finally:
            self.lane._done()
