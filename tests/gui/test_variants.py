"""Variants: duplicated in the window, each with its own undo history, saved in the design file, compared."""

from __future__ import annotations

from designer.generators import GENERATORS
from designer.io import load_designs
from designer.model import units


def fabric():
    return GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8, spines=2)


def test_new_variant_is_a_copy_with_its_own_history_and_saves_in_the_file(window, qtbot, tmp_path):
    doc = window.document
    doc.set_design(fabric(), None)
    main = doc.design
    assert window.live.new_variant("one spine")
    assert len(doc.variants) == 2 and doc.design is not main and doc.design.name == "one spine"
    assert doc.is_modified()
    assert window.live.variant_box.count() == 2 and window.live.variant_box.currentText() == "one spine"
    assert "one spine" in window.windowTitle()
    # edits go to the shown variant only, and undo there
    window.scene.select_devices(["spine1"])
    window.editor.delete_selection()
    assert not doc.design.has_device("spine1") and main.has_device("spine1")
    assert doc.undo_stack.canUndo()
    doc.switch_variant(0)
    assert doc.design is main and not doc.undo_stack.canUndo()
    assert window.scene.item_for_device("spine1") is not None
    window.live.step_variant(1)
    assert doc.design.name == "one spine"
    window.actions_by_name["undo"].trigger()
    assert doc.design.has_device("spine1")
    window.actions_by_name["redo"].trigger()
    # save writes both; reopening brings both back
    path = tmp_path / "variants.json"
    doc.save(path)
    assert not doc.is_modified()
    designs = load_designs(path)
    assert [d.name for d in designs] == [main.name, "one spine"]
    assert not designs[1].has_device("spine1") and designs[0].has_device("spine1")
    window.open_path(str(path))
    assert doc.variant_names() == [main.name, "one spine"] and doc.design.name == main.name


def test_recovery_keeps_the_variants(window, qtbot):
    doc = window.document
    doc.set_design(fabric(), None)
    window.live.new_variant("copy")
    assert window.recovery.autosave()
    designs = load_designs(window.recovery.design_path)
    assert [d.name for d in designs][1] == "copy"


def test_delete_variant(window, qtbot, dialogs):
    from PySide6.QtWidgets import QMessageBox

    doc = window.document
    doc.set_design(fabric(), None)
    window.live.new_variant("gone")
    dialogs.answer = QMessageBox.StandardButton.Yes
    assert window.live.delete_variant()
    assert len(doc.variants) == 1 and doc.design.name != "gone"
    assert not window.live.variant_box.isVisibleTo(window)
    assert not window.live.delete_variant()  # the last design stays
    dialogs.answer = QMessageBox.StandardButton.Discard  # closing at the end discards


def compare_without_a_spine(window, qtbot, workload: str = ""):
    """The fabric and a variant with one spine fewer, both analysed in the Compare panel."""
    doc = window.document
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000):
        doc.set_design(fabric(), None)
    if workload:
        with qtbot.waitSignal(window.runner.live_result, timeout=60_000):
            window.analysis.set_workload(workload)
    window.live.new_variant("one spine")
    window.scene.select_devices(["spine1"])
    window.editor.delete_selection()
    compare = window.live.compare
    window.live.docks["compare"].show()
    window.live.docks["compare"].raise_()
    qtbot.waitUntil(lambda: len([f for f in compare.figures.values() if not isinstance(f, str)]) == 2
                    and not compare._pending, timeout=60_000)
    return compare


def test_compare_panel_shows_each_variant_with_deltas(window, qtbot):
    doc = window.document
    compare = compare_without_a_spine(window, qtbot)
    labels, columns = compare.rows()
    assert labels[0].startswith("Bisection") and labels[-1] == "Cost"
    base, other = columns
    assert "(" not in base[0]
    assert "(-50%)" in other[0]  # half the spines: half the bisection
    switches = labels.index("Switches")
    assert base[switches] == "4" and other[switches].startswith("3 (")
    assert compare.table.columnCount() == 2 and compare.table.horizontalHeaderItem(1).text() == "one spine"
    assert len(compare.curves) == 2
    f = compare.figures[id(doc.variants[0])]
    assert base[0] == units.rate(f.report.bisection.lower_bytes_per_s)


def test_compare_panel_adds_the_workload_step(window, qtbot):
    doc = window.document
    compare = compare_without_a_spine(window, qtbot, "gpt3-1.3b-ddp")
    labels, (base, other) = compare.rows()
    assert labels[-2:] == ["Step (gpt3-1.3b-ddp)", "GPU idle"]
    f = compare.figures[id(doc.variants[0])]
    assert base[-2] == units.duration(f.step.step_time_s)
    assert base[-1] == units.percent(f.step.gpu_idle_fraction)
    assert other[-2].startswith(units.duration(compare.figures[id(doc.variants[1])].step.step_time_s))
