"""One feed for all background work: one debounce, one snapshot of the shown design per edit."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF

from designer.gui.document import feed as feed_module
from designer.gui.panels import bom_dock
from designer.io import load_design
from designer.model.snapshot import DesignSnapshot

SAMPLE = Path(__file__).resolve().parents[2] / "sample_designs" / "hgx-h100-server.json"


def _count_captures(monkeypatch) -> list[str]:
    calls: list[str] = []
    capture, steps = DesignSnapshot.capture.__func__, DesignSnapshot.capture_steps.__func__

    def counted(cls, design, *a, **k):
        calls.append("capture")
        return capture(cls, design, *a, **k)

    def counted_steps(cls, design, *a, **k):
        calls.append("steps")
        return steps(cls, design, *a, **k)

    monkeypatch.setattr(DesignSnapshot, "capture", classmethod(counted))
    monkeypatch.setattr(DesignSnapshot, "capture_steps", classmethod(counted_steps))
    return calls


def test_an_edit_is_read_once_for_the_analysis_the_bill_and_the_comparison(window, qtbot, monkeypatch):
    monkeypatch.setattr(bom_dock, "THREAD_ABOVE", 10)  # the bill counted in the worker, on a snapshot
    window.document.set_design(load_design(SAMPLE), None)
    window.live.new_variant("B")  # the comparison analyses the shown variant too
    for key in ("bom", "compare"):
        window.docks[key].show()
    window.docks["bom"].raise_()
    qtbot.waitUntil(lambda: not window.runner.pending() and window.bom.bom is not None, timeout=60_000)
    qtbot.wait(300)
    calls = _count_captures(monkeypatch)
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000):
        window.editor.place_component("qm9700", QPointF(2000, 0))
    qtbot.waitUntil(lambda: not window.bom.counting and window.bom.bom.quantity("switch") >= 1, timeout=60_000)
    qtbot.wait(300)
    assert len(calls) == 1, calls  # before: the runner, the bill and the comparison each read it


def test_one_debounce_settles_a_burst_once_and_a_lone_edit_at_once(window, qtbot):
    feed = window.feed
    qtbot.waitUntil(lambda: not feed.timer.isActive())
    settled: list[frozenset] = []
    feed.settled.connect(settled.append)
    window.runner.set_live(False)  # nothing running: the feed is idle
    window.editor.place_component("qm9700", QPointF(0, 0))
    assert feed.timer.interval() == 0  # an edit to an idle window settles at the next turn
    window.editor.place_component("qm9700", QPointF(300, 0))
    assert feed.timer.interval() == feed_module.DEBOUNCE_MS  # the next one waits for the burst to end
    qtbot.waitUntil(lambda: bool(settled), timeout=2000)
    qtbot.wait(feed_module.DEBOUNCE_MS + 100)
    assert settled == [frozenset({feed_module.FABRIC})]  # the two edits settled once, together
    moved = len(settled)
    window.editor.commit_move([window.scene.device_items["switch-1"]], QPointF(40, 0))
    qtbot.waitUntil(lambda: len(settled) > moved, timeout=2000)
    assert settled[-1] == frozenset({feed_module.LAYOUT})  # a move: no consumer recomputes a figure


def test_a_lane_runs_its_jobs_in_turn_without_holding_a_thread_while_they_wait(qtbot):
    import threading

    from PySide6.QtCore import QRunnable, QThreadPool

    class Job(QRunnable):
        def __init__(self, name, log, gate=None):
            super().__init__()
            self.name, self.log, self.gate = name, log, gate

        def run(self):
            if self.gate is not None:
                self.gate.wait(10)
            self.log.append(self.name)

    pool = QThreadPool()
    pool.setMaxThreadCount(2)
    lane = feed_module.Lane(pool)
    log: list[str] = []
    gate = threading.Event()
    lane.start(Job("first", log, gate))  # holds one thread until the gate opens
    lane.start(Job("second", log))  # waits for its turn in the lane, not on a thread
    pool.start(Job("other", log))  # the pool's second thread is free for it
    qtbot.waitUntil(lambda: log == ["other"], timeout=5000)
    gate.set()
    qtbot.waitUntil(lambda: log == ["other", "first", "second"], timeout=5000)
    pool.waitForDone()


def test_the_rules_check_waits_for_the_analysis_result(window, qtbot):
    window.document.set_design(load_design(SAMPLE), None)
    qtbot.waitUntil(lambda: not window.runner.pending() and window.runner.result is not None, timeout=60_000)
    order: list[str] = []
    window.runner.live_result.connect(lambda _r: order.append("analysis"))
    window.checker.checked.connect(lambda *_a: order.append("rules"))
    window.editor.place_component("qm9700", QPointF(2000, 0))
    qtbot.waitUntil(lambda: "rules" in order, timeout=60_000)
    assert order == ["analysis", "rules"]  # the check on the UI thread never delays the panels
