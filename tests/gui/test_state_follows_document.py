"""Every panel, field and status shows the document shown now, or says that it is computing."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF

from designer.generators import GENERATORS
from designer.gui.document.feed import DEBOUNCE_MS
from designer.gui.panels import live_runner
from designer.model import Design

SAMPLE = Path(__file__).resolve().parents[2] / "sample_designs" / "hgx-h100-server.json"


def fabric():
    return GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8, spines=2)


def open_live(qtbot, window, design=None):
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        window.document.set_design(design or fabric(), None)
    return blocker.args[0]


def test_live_turned_off_for_a_slow_design_is_on_again_for_the_next(window, qtbot, monkeypatch):
    monkeypatch.setattr(live_runner, "LIVE_LIMIT_S", 0.0)
    open_live(qtbot, window)
    assert not window.runner.live
    monkeypatch.setattr(live_runner, "LIVE_LIMIT_S", 1e9)
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000):
        assert window.open_path(str(SAMPLE))
    assert window.runner.live and window.live.live_action.isChecked() and window.analysis.live.isChecked()


def test_live_turned_off_by_the_user_stays_off(window, qtbot):
    window.live.live_action.setChecked(False)
    assert window.open_path(str(SAMPLE))
    assert not window.runner.live and "F5" in window.analysis.state.text()


def test_new_design_is_not_analyzing_forever(window, qtbot):
    open_live(qtbot, window)
    window.new_design()
    qtbot.wait(DEBOUNCE_MS + 100)
    assert not window.runner.pending()
    assert window.analysis.state.text() == "Nothing to analyze: the design is empty."
    for panel in window.live.panels.values():
        assert panel.info.text() == "Nothing to analyze: the design is empty."


def test_bottlenecks_table_empties_with_its_plot_on_another_design(window, qtbot):
    first = open_live(qtbot, window)
    bn = window.live.panels["bottlenecks"]
    assert first.report.bottlenecks and bn.table.rowCount() > 0
    window.live.live_action.setChecked(False)
    window.document.set_design(fabric(), None)
    assert bn.table.rowCount() == 0 and len(bn.bar_data()[0]) == 0
    assert bn.info.text() == "Not analyzed yet: press Analyze (F5)."


def test_rule_status_says_checking_until_the_check_of_this_design_ran(window, qtbot):
    window.editor.place_component("qm9700", QPointF(0, 0))
    window.checker.run()
    assert "clean" in window.rules_label.text() or "warning" in window.rules_label.text()
    window.document.set_design(fabric(), None)
    assert window.rules_label.text() == "design rules: checking\u2026" and window.checker.findings == []
    qtbot.waitUntil(lambda: "checking" not in window.rules_label.text(), timeout=5000)


def test_step_panel_names_the_chosen_workload_before_its_result(window, qtbot):
    window.live.live_action.setChecked(False)
    window.document.set_design(fabric(), None)
    assert window.analysis.set_workload("gpt3-1.3b-ddp")
    step = window.live.panels["step"]
    assert "Choose a workload" not in step.info.text()
    assert "gpt3-1.3b-ddp" in step.info.text().lower() and "F5" in step.info.text()


def test_inspector_refusal_note_goes_when_undo_restores_the_value(window):
    insp = window.inspector
    window.editor.place_component("qm9700", QPointF(0, 0))
    insp.refuse("tier is not allowed here")
    assert insp.notice.isVisibleTo(insp)
    window.actions_by_name["undo"].trigger()
    assert not insp.notice.isVisibleTo(insp)
    insp.refuse("tier is not allowed here")
    window.document.set_design(Design(), None)
    assert not insp.notice.isVisibleTo(insp)


def test_find_box_forgets_the_last_files_text(window):
    window.find_box.setText("leaf1")
    assert window.open_path(str(SAMPLE))
    assert window.find_box.text() == ""


def test_device_counts_follow_every_change_of_devices_and_only_those(window):
    """The inspector's contents and the status bar's GPUs read one count, made again after devices
    are added, removed or change kind, in this variant or another one, and not after other edits."""
    from collections import Counter

    from designer.model import Device, PortGroup

    doc = window.document
    doc.set_design(fabric(), None)
    d = doc.design
    truth = lambda: Counter(dev.kind for dev in doc.design.iter_devices())  # noqa: E731
    assert doc.device_kinds() == truth() and doc.device_kinds() is not doc.device_kinds()  # a copy each
    counted = doc._kinds
    link = next(iter(d.iter_links()))
    d.set_link_field(link.id, "failed", True)
    d.set_device_field(next(iter(d.iter_devices())).id, "name", "renamed")
    assert doc.device_kinds() == truth() and doc._kinds is counted  # not counted again
    d.add_device(Device("extra-gpu", "gpu", (PortGroup("p", 1, 400.0),)))
    assert doc.device_kinds() == truth() and doc.device_kinds()["gpu"] == truth()["gpu"]
    assert window.count_label.text().startswith(f"{truth()['gpu']} GPUs")
    d.set_device_field("extra-gpu", "kind", "storage")
    assert doc.device_kinds() == truth()
    d.remove_device("extra-gpu")
    assert doc.device_kinds() == truth()
    doc.new_variant()
    assert doc.design is not d and doc.device_kinds() == truth()
    doc.design.add_device(Device("only-here", "nic", (PortGroup("p", 1, 400.0),)))
    assert doc.device_kinds() == truth()
    doc.switch_variant(0)
    assert doc.design is d and doc.device_kinds() == truth()
    doc.set_design(Design(), None)
    assert doc.device_kinds() == Counter() and "empty" in window.inspector.d_counts.text()
