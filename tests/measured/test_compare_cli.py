"""``topo-designer compare``: a 2-node H100 design against real 2-node logs; JSON; one-line errors."""

from __future__ import annotations

import json

import pytest
from measured_helpers import ABCI_A100, H100_2N, H100_2N_HALF, h100_two_nodes

from designer.analysis.common import constants as K
from designer.analysis.fabric.context import build_context
from designer.analysis.measured.compare import compare_run, verdict_of
from designer.analysis.measured.reasons import likely_reasons
from designer.cli.entry import main
from designer.io import save_design
from designer.io.measured.nccl_tests import read_nccl_tests
from designer.model.units import size


@pytest.fixture(scope="module")
def design_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("compare") / "h100-2n.json"
    save_design(h100_two_nodes(), path)
    return path


def test_every_size_with_both_figures_and_the_ratio(design_file, capsys, tmp_path):
    out = tmp_path / "cmp.json"
    assert main(["compare", str(design_file), str(H100_2N_HALF), "--json", str(out)]) == 0
    text = capsys.readouterr().out
    runs = read_nccl_tests(H100_2N_HALF)
    for run in runs:
        for row in run.rows:
            line = next(x for x in text.splitlines() if x.strip().startswith(size(row.size_bytes) + " "))
            assert "x " in line and "GB/s" in line
    assert "bandwidth-bound 32 MiB .. 16 GiB (10 sizes)" in text and "slower than predicted" in text
    doc = json.loads(out.read_text())
    assert doc["format"] == "topo-designer-compare" and len(doc["runs"]) == 2
    a2a = doc["runs"][0]
    assert a2a["collective"] == "alltoall" and len(a2a["sizes"]) == 10
    for s, row in zip(a2a["sizes"], runs[0].rows, strict=True):
        assert {"measured_busbw", "predicted_busbw", "ratio"} <= set(s)
        assert s["measured_busbw"] == pytest.approx(row.best.busbw_bytes_per_s)
        assert s["ratio"] == pytest.approx(s["predicted_time_s"] / s["measured_time_s"])
        assert s["regime"] == "bandwidth-bound"
    # This cluster's all-to-all runs at half the 400G NIC prediction: the reason says so.
    assert a2a["ranges"][0]["median_ratio"] == pytest.approx(0.49, abs=0.02)
    assert any(r["code"] == "nic-rate" and "half" in r["text"] for r in a2a["reasons"])


def test_sendrecv_on_a_healthy_pair_is_as_predicted(design_file):
    ctx = build_context(h100_two_nodes())
    comp = compare_run(ctx, read_nccl_tests(H100_2N)[1])
    assert comp.collective == "sendrecv" and comp.ranges[0].verdict == "as predicted"
    # One 400G NIC carries rank 7 -> 8: its effective rate of 50 GB/s predicted, 45.87 measured.
    nic = K.INFINIBAND_EFFICIENCY * 50e9
    assert comp.sizes[-1].predicted_busbw == pytest.approx(nic, rel=0.01)
    assert comp.sizes[-1].ratio == pytest.approx(45.87e9 / nic, rel=0.01)


def test_ranks_follow_host_names_when_the_design_has_them():
    ctx = build_context(h100_two_nodes(("cnode2-002", "cnode2-001")))
    comp = compare_run(ctx, read_nccl_tests(H100_2N_HALF)[0])
    assert comp.ranks.how == "the log's host names"
    # Rank 0 runs on cnode2-001, which is the design's second server.
    assert comp.ranks.gpus[0].startswith("su1-node2-") and comp.ranks.gpus[8].startswith("su1-node1-")
    assert likely_reasons(ctx, comp)


def test_verdict_bounds():
    assert verdict_of(0.84) == "slower than predicted" and verdict_of(0.86) == "as predicted"
    assert verdict_of(1.16) == "faster than predicted"


def test_mismatched_rank_count_is_one_line_exit_2(design_file, capsys):
    assert main(["compare", str(design_file), str(ABCI_A100)]) == 2
    err = capsys.readouterr().err
    assert "128 ranks on 16 hosts" in err and "give --gpus" in err and len(err.strip().splitlines()) == 1
    assert main(["compare", str(design_file), str(H100_2N), "--gpus", "su1-node1"]) == 2
    assert "--gpus su1-node1 selects 8 GPUs" in capsys.readouterr().err


def test_broken_logs_exit_2(design_file, capsys, tmp_path):
    lines = H100_2N.read_text().splitlines()
    cut = tmp_path / "cut.log"
    cut.write_text("\n".join(lines[:29]) + "\n")
    assert main(["compare", str(design_file), str(cut)]) == 2
    assert "cut short" in capsys.readouterr().err
    text = H100_2N.read_text()
    row = next(x for x in text.splitlines() if x.strip().startswith("8589934592"))
    wrong = tmp_path / "wrong.log"
    wrong.write_text(text.replace(row, row.replace("      0  ", "     12  ", 1)))
    assert main(["compare", str(design_file), str(wrong)]) == 2
    err = capsys.readouterr().err
    assert "12 wrong values at 8 GiB" in err and len(err.strip().splitlines()) == 1
    assert main(["compare", str(design_file), str(tmp_path / "missing.log")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_json_never_writes_over_a_log(design_file, capsys, tmp_path):
    log = tmp_path / "run.log"
    log.write_text(H100_2N.read_text())
    assert main(["compare", str(design_file), str(log), "--json", str(log)]) == 2
    capsys.readouterr()
    assert log.read_text() == H100_2N.read_text()
