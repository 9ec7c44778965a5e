"""The window's serving analysis: the dock's serving choice, its figure, and the Serving panel."""

from __future__ import annotations

import pytest

from designer.analysis.serving.model import serving_analysis
from designer.generators import GENERATORS
from designer.io.workload_file import load_serving
from designer.model import units


def superpod():
    """One scalable unit of 32 DGX H100 servers: room for every serving preset's instances."""
    return GENERATORS["rail-optimized"].build(sus=1)


def open_live(qtbot, window, design):
    with qtbot.waitSignal(window.runner.live_result, timeout=120_000) as blocker:
        window.document.set_design(design, None)
    return blocker.args[0]


def test_a_serving_workload_fills_the_serving_panel(window, qtbot, tmp_path):
    open_live(qtbot, window, superpod())
    with qtbot.waitSignal(window.runner.live_result, timeout=120_000) as blocker:
        assert window.analysis.set_serving("llama3-70b-serve")
    res = blocker.args[0]
    assert res.serving is not None and res.serving_error == ""
    expected = serving_analysis(window.document.design, load_serving("llama3-70b-serve"), window.document.catalog)
    assert res.serving.tpot_s == pytest.approx(expected.tpot_s)
    panel = window.live.panels["serving"]
    labels = [c[1] for c in panel.categories]
    assert labels[0] == "prefill: compute" and "decode: memory" in labels
    assert "prefill: KV-cache transfer" in labels and "decode: tensor-parallel all-reduce" in labels
    # The bars of a phase add up to its step: where each token's time goes.
    decode = sum(c[2] for c in panel.categories if c[1].startswith("decode:"))
    assert decode == pytest.approx(expected.decode.step_s)
    assert f"TPOT <b>{units.duration(expected.tpot_s)}</b>" in panel.figures.text()
    assert window.analysis.served.isVisibleTo(window.analysis)
    assert f"TTFT {units.duration(expected.ttft_s)}" in window.analysis.served.text()
    assert window.live.docks["serving"].isVisibleTo(window)
    assert "Serving 'llama3-70b-serve'" in window.analysis.details.toPlainText()
    assert panel.export_csv(tmp_path / "serving.csv").read_text().count("\n") >= 2
    with qtbot.waitSignal(window.runner.live_result, timeout=120_000) as blocker:
        window.analysis.set_serving("")
    assert blocker.args[0].serving is None and panel.categories == []
    assert not window.analysis.served.isVisibleTo(window.analysis)


def test_serving_that_does_not_fit_says_why(window, qtbot):
    open_live(qtbot, window, GENERATORS["server"].build())
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        window.analysis.set_serving("deepseek-v3-serve")
    res = blocker.args[0]
    assert res.serving is None and "the design has 8 GPUs" in res.serving_error
    assert "the design has 8 GPUs" in window.live.panels["serving"].info.text()
    assert "cannot serve" in window.analysis.served.text()


def test_an_unreadable_serving_file_is_a_dialog(window, qtbot, dialogs, tmp_path):
    open_live(qtbot, window, GENERATORS["server"].build())
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "topo-designer-serving", "version": 1}')
    assert not window.analysis.set_serving(str(bad))
    assert dialogs.kinds() == ["critical"]
    assert window.analysis.serving.currentData() == ""
    assert window.runner.traffic.serving is None
