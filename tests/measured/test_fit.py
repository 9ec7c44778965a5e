"""compare --fit: the per-medium efficiency fitted to a measurement, saved as a catalog overlay and read back."""

from __future__ import annotations

import json

import pytest
from measured_helpers import H100_2N_HALF, PERFQUERY, h100_two_nodes

from designer.analysis.common import constants as K
from designer.analysis.fabric.context import build_context
from designer.analysis.measured.compare import compare_run
from designer.cli.entry import main
from designer.io import save_design
from designer.io.catalog_files import load_catalog
from designer.io.measured.nccl_tests import read_nccl_tests
from designer.model.catalog import CatalogError


def test_fit_writes_an_overlay_that_brings_the_prediction_to_the_measurement(tmp_path, capsys):
    design = tmp_path / "h100.json"
    save_design(h100_two_nodes(), design)
    overlay = tmp_path / "fitted.json"
    all_to_all = tmp_path / "a2a.log"
    all_to_all.write_text(H100_2N_HALF.read_text().split("# Collective test starting: sendrecv_perf")[0])
    assert main(["compare", str(design), str(all_to_all), "--fit", str(overlay)]) == 0
    out = capsys.readouterr().out
    assert f"infiniband: {K.INFINIBAND_EFFICIENCY:.3g} -> 0.4" in out and f"saved to {overlay}" in out
    doc = json.loads(overlay.read_text())
    entry = doc["efficiency"]["infiniband"]
    assert entry["value"] == pytest.approx(0.47, abs=0.01) and "a2a.log:3" in entry["source"]
    catalog = load_catalog([overlay], include_user=False)
    assert catalog.efficiency == {"infiniband": entry["value"]}
    ctx = build_context(h100_two_nodes(), catalog)
    comp = compare_run(ctx, read_nccl_tests(all_to_all)[0])
    assert comp.ranges[0].median_ratio == pytest.approx(1.0, abs=0.02)
    assert any("infiniband efficiency 0.47" in n for n in comp.notes)  # shown, never silent
    from designer.present.assumptions import catalog_rows

    row = next(r for r in catalog_rows(h100_two_nodes(), catalog) if r["kind"] == "efficiency")
    assert row["item"] == "infiniband" and "compare --fit" in row["source"]  # and in the reports' assumptions
    # The overlay reaches every command through --catalog, and leaves nothing behind in the process.
    assert main(["--catalog", str(overlay), "analyze", str(design), "--sizes", "1GiB"]) == 0
    assert "infiniband efficiency 0.47" in capsys.readouterr().out
    assert main(["analyze", str(design), "--sizes", "1GiB"]) == 0
    assert "infiniband efficiency 0.47" not in capsys.readouterr().out
    assert main(["--catalog", str(overlay), "analyze", str(design), "--sizes", "1GiB"]) == 0
    assert "infiniband efficiency 0.47" in capsys.readouterr().out


@pytest.mark.parametrize("entry, message", [
    ({"ib": {"value": 0.9, "source": "x"}}, "medium must be one of"),
    ({"infiniband": {"value": 1.2, "source": "x"}}, "at most 1"),
    ({"infiniband": {"value": 0.9}}, "source"),
    ({"infiniband": 0.9}, "object with value and source"),
])
def test_bad_overlays_are_refused(tmp_path, entry, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "topo-designer-catalog", "version": 1, "efficiency": entry}))
    with pytest.raises(CatalogError, match=message):
        load_catalog([path], include_user=False)


def test_fit_needs_logs(tmp_path, capsys):
    design = tmp_path / "h100.json"
    save_design(h100_two_nodes(), design)
    counters = str(PERFQUERY / "0x7cfe9003009ce5b0.out")
    assert main(["compare", str(design), "--counters", counters, "--interval", "10", "--fit",
                 str(tmp_path / "o.json")]) == 2
    assert "--fit needs nccl-tests logs" in capsys.readouterr().err
    assert not (tmp_path / "o.json").exists()
