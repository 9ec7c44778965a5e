"""``analyze --explain``: the stated formula reproduces every time in the table."""

from pathlib import Path

import pytest

from designer.analysis.report import analyze
from designer.cli import main
from designer.io import load_design

SAMPLES = Path(__file__).resolve().parents[2] / "sample_designs"


@pytest.mark.parametrize("sample", ["superpod-h100-1su.json", "tpu-torus-4x4x8.json", "gb200-nvl72.json"])
@pytest.mark.parametrize("collective", ["allreduce", "alltoall", "allgather"])
def test_the_explained_formula_gives_each_time_in_the_table(sample, collective):
    report = analyze(load_design(SAMPLES / sample), collective=collective, sizes=[8, 1 << 20, 1 << 30])
    models = {a.algorithm: a for a in report.algorithms}
    assert report.collectives
    for row in report.collectives:
        a = models[row.algorithm]
        t = a.latency_s[row.protocol] + row.message_bytes * a.seconds_per_byte / a.bw_factor[row.protocol]
        assert t == pytest.approx(row.time_s, rel=1e-9)


def test_explain_prints_the_formula_bottleneck_and_busbw_factor_of_every_algorithm(capsys):
    assert main(["analyze", str(SAMPLES / "superpod-h100-1su.json"), "--sizes", "1GiB", "--explain"]) == 0
    out = capsys.readouterr().out
    report = analyze(load_design(SAMPLES / "superpod-h100-1su.json"), sizes=[1 << 30])
    assert "busbw = algbw x 1.992 (nccl-tests: 2(p-1)/p)" in out
    for a in report.algorithms:
        assert f"  {a.algorithm}: {a.formula}" in out
        assert f"set by link {a.bottleneck_link}" in out
    for link in report.bisection.cut_links[:10]:
        assert f"cut link {link}" in out
