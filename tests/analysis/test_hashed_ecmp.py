"""Hashed ECMP: each flow pinned to one equal-cost path over seeded draws, against the fluid split."""

import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from designer.analysis import analyze
from designer.analysis.collectives.hashed import hashed_arc_loads, hashed_collective, routing_mode
from designer.analysis.collectives.times import collective_times
from designer.analysis.common.errors import AnalysisError
from designer.analysis.fabric.context import build_context
from designer.analysis.fabric.routing import route_flows
from designer.cli import main
from designer.generators import GENERATORS
from designer.io import save_design

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "resources" / "schema" / "report.schema.json").read_text())
GIB = 1 << 30


def two_leaves(switch="tomahawk5-64x800"):
    """2 leaves of 2 one-GPU servers, 2 spines, one uplink from each leaf to each spine."""
    return GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=2, gpus_per_node=1, spines=2, switch=switch)


def positions(ctx, *ids):
    return np.array([ctx.gpu_ids.index(i) for i in ids])


def uplink_arcs(ctx, leaf):
    """Capacity-graph arcs leaf -> spine."""
    cap = ctx.cap
    src, dst = cap.arc_src, cap.arc_dst
    names = np.array(cap.node_ids, dtype=object)
    return np.flatnonzero((names[src] == leaf) & np.char.startswith(names[dst].astype(str), "spine"))


def test_two_flows_on_two_uplinks_collide_half_the_time():
    ctx = build_context(two_leaves())
    src = positions(ctx, "node1-gpu1", "node2-gpu1")
    dst = positions(ctx, "node3-gpu1", "node4-gpu1")
    up = uplink_arcs(ctx, "leaf1")
    assert len(up) == 2
    loads = hashed_arc_loads(ctx, src, dst, np.ones(2), draws=4000, seed=1)[:, up]
    assert np.allclose(loads.sum(axis=1), 2.0)            # every draw carries both flows up
    peak = loads.max(axis=1)                              # in flows: 1 (apart) or 2 (together)
    assert set(np.unique(peak).tolist()) == {1.0, 2.0}
    assert np.mean(peak == 2.0) == pytest.approx(0.5, abs=0.03)     # P(collision) = 1/2
    assert peak.mean() == pytest.approx(1.5, abs=0.03)              # E[max] = 1.5 flows
    assert np.quantile(peak, 0.99, method="higher") == 2.0          # p99 = 2 flows
    fluid = route_flows(ctx.fabric, ctx.router, src, dst, np.ones(2)).arc_load[up]
    assert np.allclose(fluid, 1.0)                        # the fluid split: one flow's worth on each


def test_the_mean_of_the_draws_is_the_fluid_split():
    """Per-hop uniform choice over the equal-cost links has the fluid split as its expectation."""
    ctx = build_context(GENERATORS["leaf-spine"].build(leaves=4, hosts_per_leaf=32, oversubscription=2,
                                                       switch="tomahawk5-64x800"))
    res = collective_times(ctx, "allreduce", ["ring"], [GIB])
    src, dst, w = res.models[0].phases[0].flows
    fluid = route_flows(ctx.fabric, ctx.router, src, dst, w).arc_load[ctx.fabric.core_arc]
    mean = hashed_arc_loads(ctx, src, dst, w, draws=3000, seed=3)[:, ctx.fabric.core_arc].mean(axis=0)
    used = fluid > 0
    assert np.all(mean[~used] == 0)                       # hashing never leaves the shortest paths
    assert np.allclose(mean[used], fluid[used], rtol=0.1)


def test_a_seed_gives_the_same_draws():
    ctx = build_context(two_leaves())
    src, dst = positions(ctx, "node1-gpu1", "node2-gpu1"), positions(ctx, "node3-gpu1", "node4-gpu1")
    a = hashed_arc_loads(ctx, src, dst, np.ones(2), draws=64, seed=7)
    b = hashed_arc_loads(ctx, src, dst, np.ones(2), draws=64, seed=7)
    c = hashed_arc_loads(ctx, src, dst, np.ones(2), draws=64, seed=8)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    d = two_leaves()
    r1 = analyze(d, sizes=[GIB], routing="hashed", hash_seed=5).routing.hashed
    r2 = analyze(d, sizes=[GIB], routing="hashed", hash_seed=5).routing.hashed
    assert np.array_equal(r1.time_s, r2.time_s) and r1.draws == 32 and r1.seed == 5


def test_fluid_and_adaptive_give_todays_results_and_hashing_leaves_the_table_alone():
    d = GENERATORS["leaf-spine"].build(leaves=4, hosts_per_leaf=32, switch="tomahawk5-64x800")
    sizes = [1 << 20, GIB]
    fluid = analyze(d, sizes=sizes, routing="fluid")
    adaptive = analyze(d, sizes=sizes, routing="adaptive")
    hashed = analyze(d, sizes=sizes, routing="hashed")
    assert fluid.collectives == adaptive.collectives == hashed.collectives
    assert np.array_equal(fluid.links.utilization, adaptive.links.utilization)
    assert fluid.routing.hashed is None and adaptive.routing.hashed is None
    assert not any(n.startswith("collisions") for n in fluid.notes + adaptive.notes)
    h = hashed.routing.hashed
    sel = next(r for r in hashed.collectives if r.selected and r.message_bytes == GIB)
    assert h.algorithm == sel.algorithm and h.fluid_time_s == pytest.approx(sel.time_s, rel=1e-12)
    assert h.fluid_max_utilization == pytest.approx(float(np.max(hashed.links.utilization)), rel=1e-9)
    assert np.all(h.time_s >= h.fluid_time_s * (1 - 1e-12))  # a pinned path is never faster than the split
    assert any(n.startswith("collisions") for n in hashed.notes)


def test_default_routing_by_fabric_type():
    assert routing_mode(build_context(two_leaves("tomahawk5-64x800"))).mode == "hashed"
    assert routing_mode(build_context(two_leaves("qm9700"))).mode == "adaptive"   # InfiniBand
    assert routing_mode(build_context(two_leaves("sn5600"))).mode == "adaptive"   # Spectrum-X class
    d = two_leaves("sn5600")
    for dev in d.devices:
        if dev.kind == "switch":
            d.set_device_property(dev.id, "adaptive_routing", False)
    assert routing_mode(build_context(d)).mode == "hashed"
    torus = build_context(GENERATORS["torus"].build(dims=(4, 4, 2)))
    assert routing_mode(torus).mode == "fluid"
    r = routing_mode(torus, "hashed")
    assert (r.mode, r.by_default) == ("hashed", False)
    with pytest.raises(AnalysisError):
        routing_mode(torus, "ecmp")
    with pytest.raises(AnalysisError):
        routing_mode(torus, "hashed", draws=0)


def slowdown(gen, **kw):
    d = GENERATORS[gen].build(switch="tomahawk5-64x800", **kw)
    return analyze(d, algorithms=["ring"], sizes=[GIB], routing="hashed").routing.hashed


@pytest.mark.parametrize("oversub", [1.0, 2.0])
def test_a_rail_optimized_fabric_loses_less_to_collisions_than_a_leaf_spine(oversub):
    """128 GPUs under the same ring all-reduce: on a leaf-spine each leaf's 8 ring channels leave
    over its uplinks and hash into one another; on a rail-optimized fabric each rail leaf carries
    one channel per boundary, so there is nothing to collide with."""
    ls = slowdown("leaf-spine", leaves=4, hosts_per_leaf=32, oversubscription=oversub)
    rail = slowdown("rail-optimized", sus=4, nodes_per_su=4, oversubscription=oversub)
    assert ls.flows > 0 and rail.flows > 0
    assert rail.mean_slowdown < 1.005
    assert ls.mean_slowdown > 1.1
    assert ls.p99_slowdown >= ls.mean_slowdown
    assert ls.mean_max_utilization > ls.fluid_max_utilization


def test_oversubscription_makes_collisions_worse():
    assert (slowdown("leaf-spine", leaves=4, hosts_per_leaf=32, oversubscription=2.0).mean_slowdown
            > slowdown("leaf-spine", leaves=4, hosts_per_leaf=32, oversubscription=1.0).mean_slowdown)


def test_phases_not_routed_flow_by_flow_keep_their_fluid_time():
    ctx = build_context(GENERATORS["server"].build())
    res = collective_times(ctx, "allreduce", ["nvls"], [GIB])
    h = hashed_collective(ctx, res.models[0], GIB, draws=4)
    assert not h.modelled and np.allclose(h.time_s, h.fluid_time_s)


def test_report_json_and_text_carry_the_hashed_figures(tmp_path, capsys):
    path = tmp_path / "ls.json"
    save_design(GENERATORS["leaf-spine"].build(leaves=4, hosts_per_leaf=32, switch="qm9700"), path)
    out = tmp_path / "r.json"
    assert main(["analyze", str(path), "--sizes", "1GiB", "--routing", "hashed", "--hash-draws", "8",
                 "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Routing: hashed (asked for" in text and "hashed ECMP" in text and "note: collisions:" in text
    data = json.loads(out.read_text())
    jsonschema.validate(data, SCHEMA)
    r = data["routing"]
    assert r["mode"] == "hashed" and r["hashed"]["draws"] == 8
    assert r["hashed"]["time_s"]["p99"] >= r["hashed"]["time_s"]["mean"] >= r["hashed"]["time_s"]["fluid"]
    assert main(["analyze", str(path), "--sizes", "1GiB", "--routing", "hashed", "--hash-draws", "4", "--explain"]) == 0
    assert "hashed ECMP: each of" in capsys.readouterr().out
    assert main(["analyze", str(path), "--sizes", "1GiB", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    jsonschema.validate(data, SCHEMA)
    assert data["routing"]["mode"] == "adaptive" and data["routing"]["by_default"]
    assert data["routing"]["hashed"] is None


@pytest.mark.parametrize("args,word", [
    (["--routing", "ecmp"], "--routing ecmp"),
    (["--hash-draws", "0"], "--hash-draws 0"),
    (["--hash-draws", "many"], "--hash-draws many"),
    (["--hash-draws", "20000"], "--hash-draws 20000"),
    (["--hash-seed", "-1"], "--hash-seed -1"),
])
def test_cli_refuses_bad_routing_options_in_one_line(tmp_path, capsys, args, word):
    path = tmp_path / "d.json"
    save_design(two_leaves(), path)
    assert main(["analyze", str(path), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and word in err


@pytest.mark.parametrize("gen,kw", [
    ("clos3", dict(pods=2, leaves_per_pod=2, hosts_per_leaf=16, switch="tomahawk5-64x800")),
    ("torus", dict(dims=(4, 4, 2))),
])
def test_the_mean_is_the_fluid_split_on_three_tiers_and_direct_links(gen, kw):
    """Twin leaves of one pod (two hops through their spines), pods joined through the core, and
    a torus whose GPUs route themselves: every kind of hop keeps the fluid split as its mean."""
    ctx = build_context(GENERATORS[gen].build(**kw))
    rng = np.random.default_rng(11)
    n = ctx.n_gpus
    src = rng.integers(0, n, 300)
    dst = (src + rng.integers(1, n, 300)) % n
    w = rng.uniform(0.5, 2.0, 300)
    fluid = route_flows(ctx.fabric, ctx.router, src, dst, w).arc_load[ctx.fabric.core_arc]
    loads = hashed_arc_loads(ctx, src, dst, w, draws=2000, seed=2)[:, ctx.fabric.core_arc]
    assert np.allclose(loads.sum(axis=1), loads.sum(axis=1)[0])   # every draw routes every byte, same hop count
    assert np.allclose(loads.mean(axis=0), fluid, rtol=0.08, atol=0.02 * fluid.max())
