"""Concurrency and routing as one model: every group of a communicator pinned to paths together
under hashed ECMP, in the training step (and so in whatif, scan, scale, advise and sweeps)."""

from __future__ import annotations

import pytest

from designer.analysis.collectives.hashed import routing_mode
from designer.analysis.fabric.context import build_context
from designer.analysis.training import step_analysis
from designer.analysis.training.placement import place
from designer.analysis.training.traffic import communicator
from designer.generators import GENERATORS
from designer.io.workload_file import load_workload

ETH = {"switch": "tomahawk5-64x800", "breakout": 2}  # Ethernet without adaptive routing: hashed by default


@pytest.fixture(scope="module")
def fabrics():
    rail = GENERATORS["rail-optimized"].build(sus=2, **ETH)
    tor = GENERATORS["leaf-spine"].build(leaves=16, hosts_per_leaf=32, **ETH)
    return rail, tor


def _dp(step):
    return next(p for p in step.phases if p.name == "dp")


def test_a_plain_ethernet_fabric_times_the_step_under_hashing(fabrics):
    rail, _ = fabrics
    w = load_workload("llama3-70b")
    hashed = step_analysis(rail, w)
    assert hashed.routing == "hashed"
    fluid = step_analysis(rail, w, routing="fluid")
    assert fluid.routing == "fluid" and fluid.step_time_p99_s is None
    assert hashed.step_time_p99_s >= hashed.step_time_s >= fluid.step_time_s
    assert _dp(hashed).slowdown_p99 >= _dp(hashed).slowdown >= _dp(fluid).slowdown
    assert step_analysis(GENERATORS["rail-optimized"].build(sus=2), w).routing == "adaptive"  # InfiniBand


def test_a_non_rail_top_of_rack_fabric_pays_for_collisions_the_fluid_split_hides(fabrics):
    """The same switches, NICs and links: rail-optimized (each rail's NICs on one leaf) against
    top-of-rack leaves (a server's eight NICs on its own leaf). Every data-parallel ring runs at
    once; under the fluid split the two fabrics read alike, hashed ECMP separates them."""
    rail, tor = fabrics
    w = load_workload("llama3-70b")
    f_rail, f_tor = (step_analysis(d, w, routing="fluid") for d in (rail, tor))
    assert f_tor.step_time_s == pytest.approx(f_rail.step_time_s, rel=1e-3)
    h_rail, h_tor = (step_analysis(d, w) for d in (rail, tor))
    assert _dp(h_tor).slowdown > 2 * _dp(h_rail).slowdown
    assert h_tor.step_time_s > h_rail.step_time_s * 1.01


def test_hash_draws_are_seeded_and_all_groups_count_together(fabrics):
    _, tor = fabrics
    w = load_workload("llama3-70b")
    ctx = build_context(tor)
    pl = place(ctx, w)
    rt_a = routing_mode(ctx, "hashed", draws=16, seed=3)
    all_groups = communicator(ctx, "dp", pl.dp, "reducescatter", [1 << 24], rt_a)
    again = communicator(build_context(tor), "dp", pl.dp, "reducescatter", [1 << 24], rt_a)
    assert all_groups.slowdown == again.slowdown and all_groups.routing == "hashed"
    one_group = communicator(ctx, "dp", pl.dp[:1], "reducescatter", [1 << 24], rt_a)
    assert all_groups.slowdown > one_group.slowdown >= 1.0
    assert all_groups.time(1 << 24, tail=True) >= all_groups.time(1 << 24)


def test_analyze_concurrent_times_every_group_of_a_layout(tmp_path, capsys, fabrics):
    import json

    from designer.analysis.training.concurrent import parse_layout
    from designer.analysis.training.workload import WorkloadError
    from designer.cli import main
    from designer.io import save_design

    _, tor = fabrics
    path = tmp_path / "tor.json"
    save_design(tor, path)
    assert main(["analyze", str(path), "--concurrent", "--layout", "tp8,pp4,dp", "--sizes", "1GiB",
                 "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)["concurrent"]
    assert doc["routing"] == "hashed" and doc["layout"] == {"tp": 8, "cp": 1, "pp": 4, "dp": 16}
    dp = next(r for r in doc["rows"] if r["name"] == "dp")
    assert dp["groups"] == 32 and dp["group_size"] == 16
    assert dp["time_p99_s"] >= dp["time_s"] > dp["alone_s"]
    assert main(["analyze", str(path), "--concurrent", "--layout", "tp8,pp4,dp", "--sizes", "1GiB",
                 "--routing", "fluid"]) == 0
    out = capsys.readouterr().out
    assert "Concurrent: every group of TP 8, PP 4, DP 16 at once, fluid routing" in out
    assert main(["analyze", str(path), "--concurrent"]) == 2  # no layout: one line, exit 2
    assert "--concurrent needs a layout" in capsys.readouterr().err
    with pytest.raises(WorkloadError, match="tp8,pp4,dp"):
        parse_layout("tp8,tp4")


def test_a_layout_whose_groups_cannot_run_reads_cannot_run_in_text_and_null_in_json(tmp_path, capsys):
    """GPUs with no working path between them (an 8-GPU server whose NICs are not cabled, as an NCCL
    topology file imports): the concurrent timing is infinite, which the text says in words and the JSON
    holds as null (JSON has no infinity), never a traceback."""
    import json

    from designer.cli import main
    from designer.io import save_design

    design = GENERATORS["server"].build()
    for link in [lk for lk in design.links if lk.medium == "nvlink"]:
        design.remove_link(link.id)
    path = tmp_path / "islands.json"
    save_design(design, path)
    assert main(["analyze", str(path), "--concurrent", "--layout", "tp8,dp", "--sizes", "1GiB", "--json", "-"]) == 0
    rows = json.loads(capsys.readouterr().out)["concurrent"]["rows"]
    assert rows and all(r["time_s"] is None and r["alone_s"] is None for r in rows)
    assert main(["analyze", str(path), "--concurrent", "--layout", "tp8,dp", "--sizes", "1GiB"]) == 0
    out = capsys.readouterr().out
    assert "cannot run" in out and "inf s" not in out
