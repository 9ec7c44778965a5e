"""The analysis dock: runs the analyzer off the UI thread and shows its summary."""

from __future__ import annotations

from pathlib import Path

from designer.gui.panels.analysis_dock import AnalysisRunner
from designer.io import load_design

SAMPLES = Path(__file__).resolve().parents[2] / "sample_designs"


def test_analyze_runs_in_a_worker_and_fills_the_dock(window, qtbot):
    window.document.set_design(load_design(SAMPLES / "hgx-h100-server.json"), None)
    seen = []
    window.runner.add_listener(seen.append)
    with qtbot.waitSignal(window.runner.result_ready, timeout=60_000):
        window.actions_by_name["analyze"].trigger()
        assert window.runner.running  # the UI thread did not wait for the result
    dock = window.analysis
    assert len(seen) == 1 and seen[0] is window.runner.report
    assert "exact" in dock.bisection.text() and "B/s" in dock.bisection.text()
    assert "nvls" in dock.allreduce.text() or "ring" in dock.allreduce.text()
    assert "Bisection" in dock.details.toPlainText()
    # renaming, moving or collapsing cannot change the figures: the result stays current
    design = window.document.design
    window.scene.select_devices([design.devices[0].id])
    window.inspector.v_name.setText("renamed")
    window.inspector.v_name.editingFinished.emit()
    window.editor.set_collapsed([g.id for g in design.groups], True)
    assert "changed" not in dock.state.text()
    # a change of the fabric makes the result stale, and says so
    window.editor.set_collapsed([g.id for g in design.groups], False)
    link = next(lk for lk in design.iter_links() if lk.medium == "nvlink")
    design.set_link_field(link.id, "failed", True)
    assert "changed" in dock.state.text()


def test_bottleneck_row_expands_its_groups_and_selects_its_link(window, qtbot):
    window.document.set_design(load_design(SAMPLES / "superpod-h100-1su.json"), None)
    assert any(g.collapsed for g in window.document.design.groups)
    with qtbot.waitSignal(window.runner.result_ready, timeout=120_000):
        window.runner.start()
    dock = window.analysis
    table = window.live.panels["bottlenecks"].table
    assert table.rowCount() > 0
    link_id = table.item(0, 1).text()
    table.cellDoubleClicked.emit(0, 0)
    assert link_id in window.scene.selected_link_ids()
    # expanding the groups to show the link is view state, not an edit
    assert not window.document.is_modified() and window.document.undo_stack.count() == 0
    design = window.document.design
    link = design.link(link_id)
    for dev in (link.a_device, link.b_device):
        assert not any(design.group(g).collapsed for g in design.ancestors(design.device(dev).group))
    assert "changed" not in dock.state.text()


def test_a_stale_result_is_dropped(window, qtbot):
    runner: AnalysisRunner = window.runner
    window.document.set_design(load_design(SAMPLES / "hgx-h100-server.json"), None)
    got = []
    runner.result_ready.connect(got.append)
    runner.start()
    first = runner.generation
    with qtbot.waitSignal(runner.result_ready, timeout=60_000):
        runner.start()
    qtbot.wait(50)
    assert runner.generation == first + 1 and len(got) == 1


def test_snapshot_is_independent_and_equal():
    from designer.io import design_to_text
    from designer.model.snapshot import DesignSnapshot

    design = load_design(SAMPLES / "hgx-h100-server.json")
    state = DesignSnapshot.capture(design)
    dev = design.devices[0]
    design.set_device_field(dev.id, "name", "changed after capture")
    design.set_device_property(dev.id, "rail", 7)
    copy = state.build()
    assert copy.device(dev.id).name == "" and "rail" not in copy.device(dev.id).properties
    design.set_device_field(dev.id, "name", "")
    design.set_device_property(dev.id, "rail", None)
    assert design_to_text(copy) == design_to_text(design)


def test_large_designs_are_checked_in_a_worker(window, qtbot, monkeypatch):
    from designer.gui.canvas import checks

    monkeypatch.setattr(checks, "AUTO_CHECK_DEVICES", 10)
    monkeypatch.setattr(checks, "IN_PLACE_CHECK_DEVICES", 5)

    def at_once():
        raise AssertionError("the check read the design at once on the UI thread")

    monkeypatch.setattr(window.feed, "snapshot", at_once)  # read in slices between turns instead
    window.document.set_design(load_design(SAMPLES / "hgx-h100-server.json"), None)
    qtbot.waitUntil(lambda: not window.feed.timer.isActive())  # the feed has settled with the new design
    stale = []
    window.checker.stale.connect(lambda: stale.append(True))
    window.checker._check_or_say_stale()
    assert stale and "F7" in window.rules_label.text()
    with qtbot.waitSignal(window.checker.checked, timeout=30_000):
        window.actions_by_name["check"].trigger()
        assert "checking" in window.rules_label.text()  # in the worker: no count until it is done
        # the live analysis of this same design finishing meanwhile keeps the check running
        window.feed.quiet.emit(frozenset({"fabric"}))
        assert "F7" not in window.rules_label.text()
    assert "clean" in window.rules_label.text()
    window.feed.quiet.emit(frozenset({"fabric"}))  # nor does it make a checked design stale
    assert "clean" in window.rules_label.text()


def test_mid_sized_designs_are_checked_after_each_edit_off_the_ui_thread(window, qtbot, monkeypatch):
    import threading

    from designer.gui.canvas import checks

    monkeypatch.setattr(checks, "IN_PLACE_CHECK_DEVICES", 5)
    on_ui_thread = []
    real = checks.check_design
    monkeypatch.setattr(checks, "check_design", lambda *a: on_ui_thread.append(
        threading.current_thread() is threading.main_thread()) or real(*a))
    design = load_design(SAMPLES / "hgx-h100-server.json")
    with qtbot.waitSignal(window.checker.checked, timeout=30_000):
        window.document.set_design(design, None)
    link = next(iter(window.document.design.iter_links())).id
    with qtbot.waitSignal(window.checker.checked, timeout=30_000):
        window.editor.set_failed([link], True, "fail link")
    assert on_ui_thread and not any(on_ui_thread)  # checked after each edit, never on the UI thread
    expected = real(window.document.design, window.document.catalog)
    assert expected and [f.message for f in window.checker.findings] == [f.message for f in expected]


def _read_in_slices(window, qtbot, monkeypatch, live):
    """The 1-SU SuperPOD with live analysis ``live``, settled, and the feed reading 20 records a turn
    (as a design of millions of records is read); the feed may never read it at once."""
    import designer.gui.document.feed as feed

    window.document.set_design(load_design(SAMPLES / "superpod-h100-1su.json"), None)
    window.runner.set_live(live)
    qtbot.waitUntil(lambda: not window.runner.pending(), timeout=120_000)
    monkeypatch.setattr(feed, "CAPTURE_ROWS_PER_STEP", 20)

    def at_once():
        raise AssertionError("Analyze read the design at once on the UI thread")

    monkeypatch.setattr(window.feed, "snapshot", at_once)
    return window.runner


def test_analyze_reads_a_large_design_between_turns_of_the_event_loop(window, qtbot, monkeypatch):
    runner = _read_in_slices(window, qtbot, monkeypatch, live=False)
    dock = window.analysis
    with qtbot.waitSignal(runner.result_ready, timeout=120_000):
        window.actions_by_name["analyze"].trigger()
        assert not runner.running and runner.pending()  # still reading: the window answers meanwhile
        assert "reading the design" in dock.state.text() and dock._busy.isVisibleTo(dock)
        assert window.live.cancel_action.isEnabled()
    assert not dock._busy.isVisibleTo(dock) and runner.report is not None


def test_analyze_pressed_while_the_design_is_read_survives_an_edit(window, qtbot, monkeypatch):
    runner = _read_in_slices(window, qtbot, monkeypatch, live=False)
    design = window.document.design
    runner.start()
    assert runner.pending() and not runner.running
    with qtbot.waitSignal(runner.result_ready, timeout=120_000):
        design.set_link_field(next(design.iter_links()).id, "failed", True)  # an edit before the reading ends
    assert runner.report is not None and not runner.is_stale()  # the edited design was analysed


def test_cancel_while_the_design_is_read_ends_the_request(window, qtbot, monkeypatch):
    runner = _read_in_slices(window, qtbot, monkeypatch, live=False)
    dock = window.analysis
    got = []
    runner.result_ready.connect(got.append)
    runner.start()
    assert dock._busy.isVisibleTo(dock)
    dock.cancel.click()
    assert not dock._busy.isVisibleTo(dock) and not runner.pending()
    assert not window.live.cancel_action.isEnabled()
    qtbot.wait(300)
    assert got == [] and not runner.running
