"""Measurements in the window: load, the Measured panel, the measured heat-map, points on the curves, Fail."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from designer.io import load_design

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_designs" / "superpod-h100-1su.json"
MEASURED = ROOT / "sample_designs" / "measured"
FILES = [str(MEASURED / n) for n in ("example-all_reduce-2nodes.log", "example-counters-t0.prom",
                                     "example-counters-t60.prom")]
SLOW = "su1-node2-nic3--su1-leaf3"


def open_sample(qtbot, window):
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000):
        window.document.set_design(load_design(SAMPLE), SAMPLE)


def test_load_shows_the_story_and_the_measured_heat_map(window, qtbot):
    open_sample(qtbot, window)
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000):  # the run's GPUs are timed
        window.measured.load(FILES)
    m = window.measured
    assert m.doc is not None and len(m.doc["runs"]) == 1 and len(m.doc["counters"]["links"]) == 16
    # The second heat-map mode: measured utilisation, the predicted overlay off.
    assert m.overlay_action.isChecked() and not window.live.overlay_on
    util = window.scene.marks.utilisation
    assert util is not None and util[SLOW] == m.doc["counters"]["links"][0]["utilisation"] > 0.4
    assert window.scene.marks.halo_ids("measured") == {SLOW}  # the flagged link stands out
    # A link without counters is unknown, not idle: it keeps its media colours.
    assert window.scene.marks.bundle_utilisation(["su1-leaf1--spine1"]) is None
    assert window.scene.marks.bundle_utilisation([SLOW]) == util[SLOW]
    window.live.overlay_action.setChecked(True)  # the modes exclude each other
    assert not m.overlay_action.isChecked() and window.scene.marks.utilisation != util
    # The curves panel times the run's collective on its 16 GPUs and plots the measured points over it.
    assert window.analysis.traffic().gpus == tuple(m.doc["runs"][0]["gpus"])
    curves = window.live.panels["curves"]
    x, y = curves.measured.getData()
    sizes = [s["size"] for s in m.doc["runs"][0]["sizes"] if s["measured_busbw"] > 0]
    assert np.allclose(10 ** np.asarray(x), sizes)
    # The panel lists the findings, each with a one-click failure what-if.
    tree = m.panel.tree
    texts = [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]
    assert any(t.startswith("measured-link-errors") for t in texts)
    row = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
               if tree.topLevelItem(i).text(0).startswith("measured-link-errors"))
    tree.itemClicked.emit(row, 0)  # a click shows the link on the canvas
    assert window.scene.selectedItems()
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000):
        m.panel.fail_buttons[SLOW].click()
    assert window.document.design.link(SLOW).failed
    window.document.undo_stack.undo()
    assert not window.document.design.link(SLOW).failed


def test_export_html_gains_the_section(window, qtbot, tmp_path):
    from designer.present.export import prepare, write_html

    open_sample(qtbot, window)
    window.measured.load(FILES[:1])
    out = tmp_path / "r.html"
    write_html(prepare(window.document.design, sizes=[1 << 30]), out, measured=window.measured.doc)
    assert "Measured against predicted" in out.read_text()
    json.dumps(window.measured.doc)  # plain data, as the JSON has it
    window.measured.clear()
    assert window.measured.doc is None and window.scene.marks.utilisation is None
    window.measured.load(FILES)
    assert window.measured.doc is not None
    window.document.set_design(load_design(SAMPLE), None)  # another design: the measurements are forgotten
    assert window.measured.doc is None and not window.measured.overlay_action.isChecked()


def test_a_bad_file_is_one_line(window, qtbot, tmp_path, dialogs, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    bad = tmp_path / "cut.log"
    bad.write_text("\n".join(Path(FILES[0]).read_text().splitlines()[:30]) + "\n")
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", lambda *a, **k: ([str(bad)], ""))
    window.measured.choose_files()
    assert dialogs.kinds() == ["critical"] and "cut short" in dialogs.shown[0][1]
    assert window.measured.doc is None


def test_counters_without_time_stamps_ask_the_interval(window, qtbot, monkeypatch):
    from PySide6.QtWidgets import QInputDialog

    open_sample(qtbot, window)
    asked = []

    def get_double(*args, **kwargs):
        asked.append(args[2])
        return 30.0, True

    monkeypatch.setattr(QInputDialog, "getDouble", get_double)
    perfquery = ROOT / "tests" / "data" / "measured" / "perfquery" / "0x7cfe9003009ce5b0.out"
    window.measured.load([str(perfquery)], ask_interval=window.measured._ask_interval)
    assert asked and "since the counters were reset" in asked[0]
    # The sample design has no such GUID: every port is listed as not mapped, nothing is dropped silently.
    assert window.measured.doc["counters"]["seconds"] == 30.0 and len(window.measured.doc["counters"]["unmapped"]) == 2
