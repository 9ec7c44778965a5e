"""Design rules on the canvas: re-check after edits and mark what breaks a rule.

Designs up to :data:`AUTO_CHECK_DEVICES` devices are checked when the document's feed is quiet
after an edit (settled, and the live analysis done with it: the check never delays its result;
:mod:`designer.gui.document.feed`): on the UI thread up to :data:`IN_PLACE_CHECK_DEVICES` devices
(a few milliseconds), else in the feed's worker pool on the feed's snapshot. Larger designs are
checked on demand (F7), in the pool too, so an edit never waits for a 16k-GPU connectivity check.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QRunnable, Signal

from designer.analysis.common.findings import Finding
from designer.analysis.rules.check import check_design
from designer.gui.canvas.scene import DesignScene
from designer.gui.document.document import Document
from designer.gui.document.feed import DesignFeed
from designer.model import Design, units
from designer.model.catalog import Catalog
from designer.model.snapshot import DesignSnapshot

#: Designs of at most this many devices are checked after every edit; larger ones when asked (F7).
AUTO_CHECK_DEVICES = 5000
#: Designs of at most this many devices are checked on the UI thread (a few ms); larger ones in the
#: feed's worker pool, from the edit's one snapshot, so that a check never holds the window up.
IN_PLACE_CHECK_DEVICES = 1000
#: The status bar's colours for the rule count: errors, warnings only, clean.
ERROR_COLOUR, WARNING_COLOUR, CLEAN_COLOUR = "#D62828", "#B26A00", "#2E7D32"


def rules_summary(errors: int, warnings: int) -> str:
    """The status bar's rule count as rich text: red when there are errors, amber for warnings only.

    >>> rules_summary(0, 1)
    "<span style='color:#B26A00'>design rules: 1 warning</span>"
    >>> rules_summary(2, 0)
    "<span style='color:#D62828'>design rules: 2 errors</span>"
    """
    parts = [units.count(n, what) for n, what in ((errors, "error"), (warnings, "warning")) if n]
    colour = ERROR_COLOUR if errors else WARNING_COLOUR if warnings else CLEAN_COLOUR
    return f"<span style='color:{colour}'>design rules: {', '.join(parts) or 'clean'}</span>"


class _Signals(QObject):
    done = Signal(int, object, float)  # generation, findings, seconds


class _Job(QRunnable):
    def __init__(self, owner: RuleChecker, state: DesignSnapshot, catalog: Catalog, signals: _Signals) -> None:
        super().__init__()
        self.owner, self.generation = owner, owner.generation
        self.state, self.catalog, self.signals = state, catalog, signals

    def run(self) -> None:
        if self.generation != self.owner.generation:
            return  # an edit since has its own check (or none is wanted): this one would only hold the worker
        t0 = time.perf_counter()
        findings = check_design(self.state.build(), self.catalog)
        self.signals.done.emit(self.generation, findings, time.perf_counter() - t0)


class RuleChecker(QObject):
    """Runs ``check_design`` after the design stops changing; marks findings in the scene."""

    #: (number of errors, number of warnings)
    checked = Signal(int, int)
    #: a large design changed and was not re-checked automatically
    stale = Signal()
    #: another design is shown, or a check runs in the worker: no count holds until ``checked``
    checking = Signal()

    def __init__(self, document: Document, scene: DesignScene, feed: DesignFeed) -> None:
        super().__init__(document)
        self.document = document
        self.scene = scene
        self.feed = feed
        self.findings: list[Finding] = []
        self.last_duration_s = 0.0
        self.generation = 0
        #: the feed's revision the last check ran on (running or done): the feed turning quiet
        #: again on that revision (the live analysis finishing after F7) changes nothing
        self.checked_revision = -1
        self.stopped = False
        self._signals = _Signals()
        self._signals.done.connect(self._on_job_done)
        feed.quiet.connect(self._on_feed_quiet)
        document.design_replaced.connect(self._on_document_design_replaced)
        self._on_document_design_replaced(document.design)

    def _on_document_design_replaced(self, _design: Design) -> None:
        if self.stopped:
            return
        self.generation += 1  # a check of the last design still running is void
        self.findings = []
        self.checking.emit()  # checked when the feed settles with the new design

    def stop(self) -> None:
        """No more checks (the window is closing): a pending or running one is dropped."""
        self.stopped = True
        self.generation += 1

    def _on_feed_quiet(self, _aspects: frozenset[str]) -> None:
        if not self.stopped:
            self._check_or_say_stale()

    def _check_or_say_stale(self) -> None:
        if self.checked_revision == self.feed.revision:
            return  # this very design is checked, or its check is running: keep it
        if self.document.design.device_count() <= AUTO_CHECK_DEVICES:
            self.run()
        else:
            self.generation += 1  # a running check is now out of date
            self.stale.emit()

    def run(self) -> None:
        """Check now: in place for a small design, in a worker thread for a large one."""
        self.generation += 1
        self.checked_revision = self.feed.revision
        design = self.document.design
        if design.device_count() <= IN_PLACE_CHECK_DEVICES:
            t0 = time.perf_counter()
            findings = check_design(design, self.document.catalog)
            self._apply(findings, time.perf_counter() - t0)
        else:
            self.checking.emit()
            # The design is read in slices between event-loop turns, not at once on the UI thread
            # (a second at 131,072 GPUs); an edit meanwhile drops the reading, and its quiet checks again.
            generation = self.generation
            self.feed.snapshot_later(lambda _revision, snapshot: self._start(generation, snapshot))

    def _start(self, generation: int, snapshot: DesignSnapshot) -> None:
        if generation == self.generation:
            self.feed.pool.start(_Job(self, snapshot, self.document.catalog, self._signals))

    def _on_job_done(self, generation: int, findings: list[Finding], seconds: float) -> None:
        if generation == self.generation:
            self._apply(findings, seconds)

    def _apply(self, findings: list[Finding], seconds: float) -> None:
        if self.scene.design is None:  # detached: the window has closed
            return
        self.last_duration_s = seconds
        self.findings = findings
        by_dev: dict[str, list[str]] = {}
        by_link: dict[str, list[str]] = {}
        for f in findings:
            text = f"{f.severity}: {f.message}"
            if f.links:
                for lid in f.links:
                    by_link.setdefault(lid, []).append(text)
            else:
                for did in f.devices:
                    by_dev.setdefault(did, []).append(text)
        self.scene.set_findings(by_dev, by_link)
        errors = sum(1 for f in findings if f.severity == "error")
        self.checked.emit(errors, len(findings) - errors)
