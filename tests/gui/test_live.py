"""Live analysis: the analysis follows edits, panels and overlay show its result, failures, view state."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint

from designer.generators import GENERATORS
from designer.gui import style
from designer.gui.document.feed import DEBOUNCE_MS
from designer.gui.panels import live_runner
from designer.model import units


def fabric():
    return GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8, spines=2)


def wait_result(qtbot, window, timeout=60_000):
    with qtbot.waitSignal(window.runner.live_result, timeout=timeout) as blocker:
        pass
    return blocker.args[0]


def open_live(qtbot, window, design=None):
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        window.document.set_design(design or fabric(), None)
    return blocker.args[0]


def test_deleting_a_spine_reanalyses_and_lowers_bisection(window, qtbot):
    first = open_live(qtbot, window)
    window.live.set_overlay(True)
    before = first.report.bisection.lower_bytes_per_s
    assert window.scene.marks.utilisation is not None
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        window.scene.select_devices(["spine1"])
        window.editor.delete_selection()
    after = blocker.args[0]
    assert after.report.bisection.lower_bytes_per_s < before
    # the panels and the overlay show the new result
    bis = window.live.panels["bisection"]
    assert units.rate(after.report.bisection.lower_bytes_per_s) in bis.figures.text()
    util = window.live.panels["utilisation"]
    assert set(util.tiers()) >= {"access", "leaf-spine"}
    spine_links = {lk.id for lk in window.document.design.links_of("spine2")}
    assert spine_links <= set(window.scene.marks.utilisation)
    assert not any(lid.startswith("spine1") for lid in window.scene.marks.utilisation)


def test_a_stale_result_never_overwrites_a_newer_one(window, qtbot):
    open_live(qtbot, window)
    runner = window.runner
    got = []
    runner.live_result.connect(got.append)
    runner.start()
    old_generation = runner.generation
    window.scene.select_devices(["spine1"])
    window.editor.delete_selection()  # a newer edit while the first run may still be going
    qtbot.waitUntil(lambda: bool(got) and runner.generation > old_generation and not runner.running,
                    timeout=60_000)
    qtbot.wait(300)
    final = got[-1]
    assert final.report.design.switches == 3
    assert runner.report is final.report
    # a result of an old generation is ignored
    runner._on_job_finished(old_generation, got[0])
    assert runner.report is final.report


def test_fail_and_restore_are_undoable_and_the_figures_return(window, qtbot):
    first = open_live(qtbot, window)
    menu = None
    item = window.scene.item_for_device("spine1")
    window.view.centerOn(item)
    pos = window.view.mapFromScene(item.sceneBoundingRect().center())
    menu = window.live.context_menu(QPoint(pos.x(), pos.y()))
    assert menu is not None
    fail = next(a for a in menu.actions() if a.text().startswith("Fail spine1"))
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        fail.trigger()
    failed = blocker.args[0]
    assert all(lk.failed for lk in window.document.design.links_of("spine1"))
    assert failed.baseline is not None
    assert failed.report.bisection.lower_bytes_per_s < failed.baseline.bisection.lower_bytes_per_s
    assert failed.baseline.bisection.lower_bytes_per_s == first.report.bisection.lower_bytes_per_s
    assert window.analysis.failures.isVisibleTo(window.analysis) and "failed" in window.analysis.failures.text()
    assert window.document.undo_stack.undoText().startswith("Fail spine1")
    bundle = next(b for b in window.scene.bundle_items.values()
                  if set(window.scene.bundle_link_ids(b.key)) <= {lk.id for lk in
                                                                    window.document.design.links_of("spine1")})
    assert bundle.draw_pen().color() == style.FAILED_COLOUR
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        window.document.undo_stack.undo()
    restored = blocker.args[0]
    assert restored.baseline is None
    assert restored.report.bisection == first.report.bisection
    assert [r.time_s for r in restored.report.collectives] == [r.time_s for r in first.report.collectives]
    assert np.array_equal(restored.report.links.utilization, first.report.links.utilization)
    assert not window.analysis.failures.isVisibleTo(window.analysis)


def test_moving_renaming_collapsing_do_not_rerun(window, qtbot):
    open_live(qtbot, window)
    runner = window.runner
    generation = runner.generation
    design = window.document.design
    window.editor.move_devices({"spine1": (123.0, 456.0)}) if hasattr(window.editor, "move_devices") else \
        design.move_devices({"spine1": (123.0, 456.0)})
    design.set_device_field("spine1", "name", "Spine One")
    if design.groups:
        window.editor.set_collapsed([design.groups[0].id], True)
    qtbot.wait(DEBOUNCE_MS + 250)
    assert runner.generation == generation and not runner.running
    assert not runner.is_stale()


def test_changing_only_the_size_reruns_without_rebuilding_routes(window, qtbot):
    first = open_live(qtbot, window)
    builds = window.runner.builds
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        window.analysis.set_size(1 << 20)
    second = blocker.args[0]
    assert window.runner.builds == builds
    assert not second.built_routes and second.report.link_use_bytes == 1 << 20
    assert first.report.link_use_bytes != second.report.link_use_bytes
    # and a fixed algorithm
    i = window.analysis.algorithm.findData("ring")
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        window.analysis.algorithm.setCurrentIndex(i)
    third = blocker.args[0]
    assert window.runner.builds == builds
    assert {r.algorithm for r in third.report.selected()} == {"ring"}
    # an edit of the fabric does rebuild them
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        window.scene.select_devices(["spine2"])
        window.editor.delete_selection()
    assert blocker.args[0].built_routes and window.runner.builds == builds + 1


def test_the_panels_show_what_the_report_says(window, qtbot):
    from designer.analysis import analyze

    result = open_live(qtbot, window)
    report = result.report
    fresh = analyze(window.document.design, at_bytes=live_runner.DEFAULT_SIZE)
    assert report.bisection == fresh.bisection
    assert np.array_equal(report.links.utilization, fresh.links.utilization)
    panels = window.live.panels
    table = panels["bottlenecks"].table
    assert table.rowCount() == len(report.bottlenecks)
    for i, bn in enumerate(report.bottlenecks):
        assert table.item(i, 1).text() == bn.link
        assert table.item(i, 2).text() == units.percent(bn.utilization)
    curves = panels["curves"]
    for algo, curve in curves.curves.items():
        x, y = curve.getOriginalDataset()
        rows = [r for r in report.collectives if r.algorithm == algo and r.busbw_bytes_per_s > 0]
        assert list(x) == [r.message_bytes for r in rows]
        assert list(y) == [r.busbw_bytes_per_s for r in rows]
    chosen = next(r for r in report.selected() if r.message_bytes == live_runner.DEFAULT_SIZE)
    assert units.duration(chosen.time_s) in window.analysis.allreduce.text()
    util = panels["utilisation"]
    for tier, rows in util.tiers().items():
        x, y = util.curves[tier].getOriginalDataset()
        assert np.allclose(np.sort(y)[::-1], np.sort(report.links.utilization[rows] * 100)[::-1])
    # hover names a link and its load
    row = util.link_at(1.0, float(report.links.utilization[util.tiers()["access"][0]] * 100))
    assert row is not None and report.links.ids[row] in util.describe_row(row)
    assert "B/s" in util.describe_row(row)


def test_overlay_colours_links_and_bundles_by_the_maximum(window, qtbot):
    result = open_live(qtbot, window)
    window.live.set_overlay(True)
    assert window.legend.utilisation
    report = result.report
    util = dict(zip(report.links.ids, report.links.utilization.tolist(), strict=True))
    for bundle in window.scene.bundle_items.values():
        ids = window.scene.bundle_link_ids(bundle.key)
        expected = max(util.get(i, 0.0) for i in ids)
        colour = style.utilisation_colours()[style.utilisation_step(expected)]
        assert bundle.draw_pen().color() == colour
    haloed = [b for b in window.scene.bundle_items.values() if b.halo() is not None]
    assert haloed
    window.live.set_overlay(False)
    assert window.scene.marks.utilisation is None and not window.legend.utilisation
    assert all(b.halo() is None for b in window.scene.bundle_items.values())
    assert not window.document.is_modified()


def test_show_the_cut_highlights_its_links(window, qtbot):
    result = open_live(qtbot, window)
    bis = window.live.panels["bisection"]
    assert bis.cut_button.isEnabled()
    bis.cut_button.setChecked(True)
    cut = set(result.report.bisection.cut_links)
    assert window.scene.marks.halo_ids("cut") == cut
    haloed = {lid for b in window.scene.bundle_items.values() if b.halo() is not None
              for lid in window.scene.bundle_link_ids(b.key)}
    assert cut <= haloed
    bis.cut_button.setChecked(False)
    assert not window.scene.marks.halo_ids("cut")


def test_a_slow_design_switches_to_on_demand(window, qtbot, monkeypatch):
    monkeypatch.setattr(live_runner, "LIVE_LIMIT_S", 0.0)
    open_live(qtbot, window)
    assert not window.runner.live and not window.live.live_action.isChecked()
    assert "F5" in window.analysis.state.text() or "F5" in window.statusBar().currentMessage()
    generation = window.runner.generation
    window.scene.select_devices(["spine1"])
    window.editor.delete_selection()
    qtbot.wait(DEBOUNCE_MS + 200)
    assert window.runner.generation == generation  # on demand: nothing ran
    assert "press Analyze" in window.analysis.state.text()
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000):
        window.actions_by_name["analyze"].trigger()
    window.live.live_action.setChecked(True)
    assert window.runner.live


def test_a_run_can_be_cancelled(window, qtbot, monkeypatch):
    import threading

    gate = threading.Event()
    real = live_runner.analyzer()

    def slow(*args, **kwargs):
        progress = kwargs["progress"]
        progress("routes", 0, 4)
        gate.wait(10)
        progress("bisection", 1, 4)  # raises: cancelled
        return real(*args, **kwargs)

    monkeypatch.setattr(live_runner, "analyzer", lambda: slow)
    window.runner.set_live(False)
    window.document.set_design(fabric(), None)
    got = []
    window.runner.live_result.connect(got.append)
    window.runner.start()
    with qtbot.waitSignal(window.runner.slow, timeout=5_000):
        pass
    assert window.analysis._busy.isVisibleTo(window.analysis) and window.live.cancel_action.isEnabled()
    window.analysis.cancel.click()
    gate.set()
    qtbot.wait(300)
    assert not window.runner.running and got == []
    assert "cancelled" in window.analysis.state.text()


def test_participants_and_collective_choices(window, qtbot):
    open_live(qtbot, window)
    design = window.document.design
    gpus = [d.id for d in design.iter_devices() if d.kind == "gpu"][:8]
    window.scene.select_devices(gpus)
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        i = window.analysis.gpus.findData("selection")
        window.analysis.gpus.setCurrentIndex(i)
        window.analysis.gpus.activated.emit(i)
    assert blocker.args[0].report.ranks == 8
    assert "(8)" in window.analysis.gpus.currentText()
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        window.analysis.collective.setCurrentIndex(window.analysis.collective.findData("alltoall"))
    assert blocker.args[0].report.collective == "alltoall"
    assert window.analysis.collective_label.text() == "All-to-all"


def test_clicking_the_curves_sets_the_size(window, qtbot):
    open_live(qtbot, window)
    curves = window.live.panels["curves"]
    assert curves.size_at(np.log10(3e6)) == 1 << 22 or curves.size_at(np.log10(3e6)) == 1 << 21
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        curves.size_chosen.emit(1 << 24)
    assert blocker.args[0].report.link_use_bytes == 1 << 24
    assert window.analysis.size.currentData() == 1 << 24


@pytest.mark.parametrize("key", ["utilisation", "curves", "bottlenecks", "bisection", "step"])
def test_each_panel_exports_its_picture_and_data(window, qtbot, tmp_path, key):
    open_live(qtbot, window)
    if key == "step":  # the step panel draws a workload's step
        with qtbot.waitSignal(window.runner.live_result, timeout=60_000):
            window.analysis.set_workload("gpt3-1.3b-ddp")
    panel = window.live.panels[key]
    png = panel.export_png(tmp_path / f"{key}.png", width=600)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    csv = panel.export_csv(tmp_path / f"{key}.csv").read_text()
    assert csv.count("\n") >= 2
    texts = [a.text() for a in panel.plot.getPlotItem().getViewBox().menu.actions()]
    assert any("PNG" in t for t in texts) and any("CSV" in t for t in texts)


def test_panels_dock_under_the_canvas_with_room_for_it(make_window, qtbot):
    for size in ((1440, 900), (1280, 800)):
        w = make_window()
        w.resize(*size)
        qtbot.waitExposed(w)
        qtbot.wait(50)
        assert w.view.width() >= size[0] / 2
        for key in ("utilisation", "curves"):
            dock = w.docks[key]
            assert dock.isVisible() and dock.height() >= 180
        assert w.view.height() >= 300


def test_a_workload_adds_its_training_step_to_the_panels(window, qtbot):
    from designer.analysis.training import step_analysis
    from designer.io.workload_file import load_workload

    open_live(qtbot, window)
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        assert window.analysis.set_workload("gpt3-1.3b-ddp")
    res = blocker.args[0]
    expected = step_analysis(window.document.design, load_workload("gpt3-1.3b-ddp"), window.document.catalog)
    assert res.step is not None and res.step_error == ""
    assert res.step.step_time_s == pytest.approx(expected.step_time_s)
    panel = window.live.panels["step"]
    labels = [c[1] for c in panel.categories]
    assert labels[0] == "compute" and "dp allreduce, network" in labels
    assert [c[2] for c in panel.categories][0] == pytest.approx(expected.compute_s)
    assert units.percent(expected.gpu_idle_fraction) in panel.figures.text()
    assert window.analysis.step.isVisibleTo(window.analysis)
    assert f"MFU {units.percent(expected.mfu)}" in window.analysis.step.text()
    assert window.live.docks["step"].isVisibleTo(window)
    # failures: the step is compared with the design without them
    link = next(lk.id for lk in window.document.design.iter_links()
                if {lk.a_device, lk.b_device} & {"spine1"})
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        window.editor.set_failed([link], True, "fail link")
    failed = blocker.args[0]
    assert failed.baseline_step is not None
    assert failed.baseline_step.step_time_s == pytest.approx(expected.step_time_s)
    assert "without failures" in panel.figures.text()
    # back to no workload: the step row goes, the panel says how to get one
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        window.analysis.set_workload("")
    assert blocker.args[0].step is None and not window.analysis.step.isVisibleTo(window.analysis)
    assert panel.categories == []


def test_a_workload_that_does_not_fit_says_why(window, qtbot):
    open_live(qtbot, window)
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        window.analysis.set_workload("llama3-70b")
    res = blocker.args[0]
    assert res.step is None and "32 GPUs" in res.step_error
    assert "32 GPUs" in window.live.panels["step"].info.text()
    assert "cannot predict" in window.analysis.step.text()


def test_an_unreadable_workload_file_is_a_dialog(window, qtbot, dialogs, tmp_path):
    open_live(qtbot, window)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert not window.analysis.set_workload(str(bad))
    assert dialogs.kinds() == ["critical"]
    assert window.analysis.workload.currentData() == ""
    assert window.runner.traffic.workload is None


def test_a_lone_edit_starts_at_once_and_a_burst_waits_for_the_last_edit(window, qtbot):
    open_live(qtbot, window)
    runner = window.runner
    link = next(lk.id for lk in window.document.design.iter_links() if "spine1" in (lk.a_device, lk.b_device))
    window.editor.set_failed([link], True, "fail link")
    assert window.feed.timer.isActive() and window.feed.timer.interval() == 0  # idle: no debounce
    window.document.undo_stack.undo()  # a second edit while the first is in hand
    assert window.feed.timer.isActive() and window.feed.timer.interval() == DEBOUNCE_MS
    result = wait_result(qtbot, window)
    while runner.running or window.feed.timer.isActive():
        result = wait_result(qtbot, window)
    assert result.baseline is None and not any(lk.failed for lk in window.document.design.iter_links())


def test_hovering_a_link_with_the_overlay_on_tells_its_utilisation(window, qtbot):
    from designer.gui.canvas.describe import describe_item

    result = open_live(qtbot, window)
    bundle = next(iter(window.scene.bundle_items.values()))
    assert "utilisation" not in describe_item(window.scene, bundle)
    window.live.set_overlay(True)
    ids = window.scene.bundle_link_ids(bundle.key)
    rows = {lid: i for i, lid in enumerate(result.report.links.ids)}
    top = max(result.report.links.utilization[rows[i]] if i in rows else 0.0 for i in ids)
    assert f"utilisation {units.percent(top)}" in describe_item(window.scene, bundle)
    window.live.set_overlay(False)
    assert "utilisation" not in describe_item(window.scene, bundle)


def test_failing_a_link_reuses_the_intact_design_as_the_baseline(window, qtbot):
    first = open_live(qtbot, window)
    runner = window.runner
    builds, base_builds = runner.builds, runner.base_builds
    link = next(lk.id for lk in window.document.design.iter_links() if "spine1" in (lk.a_device, lk.b_device))
    with qtbot.waitSignal(runner.live_result, timeout=60_000) as blocker:
        window.editor.set_failed([link], True, "fail link")
    failed = blocker.args[0]
    assert runner.builds == builds + 1 and runner.base_builds == base_builds  # the last run's design served
    assert failed.baseline is not None
    assert failed.baseline.bisection == first.report.bisection
    assert [r.time_s for r in failed.baseline.collectives] == [r.time_s for r in first.report.collectives]
    # restoring the link (undo) gives the intact design again: its baseline serves, routes and results kept
    with qtbot.waitSignal(runner.live_result, timeout=60_000) as blocker:
        window.document.undo_stack.undo()
    restored = blocker.args[0]
    assert runner.builds == builds + 1 and not restored.built_routes and restored.baseline is None
    assert restored.report.bisection == first.report.bisection
    assert [r.time_s for r in restored.report.collectives] == [r.time_s for r in first.report.collectives]
    assert restored.report.links.utilization.tolist() == first.report.links.utilization.tolist()
    with qtbot.waitSignal(runner.live_result, timeout=60_000):
        window.scene.select_devices(["spine2"])
        window.editor.delete_selection()
    # after a structural edit, the next failure again finds its baseline in the last run (nothing built)
    with qtbot.waitSignal(runner.live_result, timeout=60_000) as blocker:
        window.editor.set_failed([link], True, "fail link")
    assert blocker.args[0].baseline is not None and runner.base_builds == base_builds
    # a failure restored after a structural edit is the new structure's baseline, not the old one
    with qtbot.waitSignal(runner.live_result, timeout=60_000) as blocker:
        window.document.undo_stack.undo()
    assert not blocker.args[0].built_routes
    assert all("spine2" not in lid for lid in blocker.args[0].report.links.ids)


def test_hashed_routing_from_the_dock_adds_its_figures(window, qtbot):
    first = open_live(qtbot, window)
    assert not window.analysis.hashed.isVisibleTo(window.analysis)
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        window.analysis.routing.setCurrentIndex(window.analysis.routing.findData("hashed"))
    res = blocker.args[0]
    assert res.traffic.routing == "hashed" and res.report.routing.mode == "hashed"
    h = res.report.routing.hashed
    assert h is not None and h.mean_time_s >= h.fluid_time_s
    assert window.analysis.hashed.isVisibleTo(window.analysis)
    assert units.duration(h.mean_time_s) in window.analysis.hashed.text()
    # the collective table itself stays on the fluid split
    assert [r.time_s for r in res.report.collectives] == [r.time_s for r in first.report.collectives]
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000):
        window.analysis.routing.setCurrentIndex(window.analysis.routing.findData("fluid"))
    assert not window.analysis.hashed.isVisibleTo(window.analysis)
