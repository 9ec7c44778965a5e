"""Collectives on tori, meshes and hypercubes of direct chip links (designer/analysis/collectives/direct.py).

Each expected time is the hand formula of the algorithm: latency = ring base + steps x (direct step +
the longest wire), bandwidth = S x (seconds per byte the algorithm's busiest link needs per phase).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from analysis_helpers import hypercube_gpus, torus_gpus

from designer.analysis.collectives.direct_grid import hamiltonian_cycle, snake
from designer.analysis.collectives.times import collective_times
from designer.analysis.common import constants as K
from designer.analysis.fabric.capacity import P_DIRECT
from designer.analysis.fabric.context import build_context
from designer.generators import GENERATORS

GIB8 = 8 << 30
B_EFF = 400 / 8 * 1e9 * K.DIRECT_EFFICIENCY  # 400 Gb/s per direction, after the direct-link efficiency


def _rows(res, size):
    return {r.algorithm: r for r in res.rows if r.message_bytes == size}


def _expected_time(ctx, steps, seconds_per_byte, size):
    wire = float(ctx.cap.wire_latency_s[ctx.cap.protocol == P_DIRECT].max())
    lat = K.BASE_LATENCY_S[("ring", "Simple")] + steps * (K.DIRECT_STEP_LATENCY_S["Simple"] + wire)
    return lat + size * seconds_per_byte


def test_direct_links_are_their_own_protocol():
    ctx = build_context(GENERATORS["torus"].build(dims=(4, 4)))
    assert set(ctx.cap.protocol.tolist()) == {P_DIRECT}
    assert ctx.cap.protocol_name(0) == "direct"
    line = ctx.cap.line_bytes_per_s
    assert np.allclose(ctx.cap.effective_bytes_per_s, line * K.DIRECT_EFFICIENCY)


def test_torus_4x4x4_per_dimension_all_reduce_matches_the_hand_formula():
    ctx = build_context(GENERATORS["torus"].build(dims=(4, 4, 4), link_speed_gbps=400))
    res = collective_times(ctx, sizes=[1 << 20, GIB8])
    p, n = 64, 3
    # n shards, rotated dimension order; on each line two rings of half a shard: a link carries
    # (k-1)/k x f/2 per direction at phase i (f = 1/n, 1/(n k), 1/(n k^2)); twice (reduce-scatter, all-gather)
    spb = 2 * sum(3 / 4 * (1 / n) / 4**i / 2 for i in range(n)) / B_EFF
    assert spb == pytest.approx((1 - 1 / p) / (n * B_EFF), rel=1e-12)
    steps = 2 * n * (4 - 1)
    rows = _rows(res, GIB8)
    md = rows["multi-dim"]
    t = _expected_time(ctx, steps, spb, GIB8)
    assert md.time_s == pytest.approx(t, rel=1e-9)
    assert md.busbw_bytes_per_s == pytest.approx(GIB8 / t * 2 * (p - 1) / p, rel=1e-9)
    # busbw tends to (links per chip) x effective rate: 6 x 46.875 GB/s
    assert 0.99 * 6 * B_EFF < md.busbw_bytes_per_s < 6 * B_EFF
    assert md.selected and md.protocol == "Simple"
    # the ring follows the Hamiltonian cycle: one link's worth; the bidirectional ring two
    assert rows["ring"].busbw_bytes_per_s == pytest.approx(B_EFF, rel=0.01)
    bidir = _expected_time(ctx, 2 * (p - 1), (p - 1) / p / B_EFF, GIB8)
    assert rows["bidir-ring"].time_s == pytest.approx(bidir, rel=1e-9)
    assert {"ring", "tree", "bidir-ring", "multi-dim"} == set(rows)
    assert all(r.algorithm == "multi-dim" for r in res.rows if r.selected)
    mdl = next(m for m in res.models if m.algorithm == "multi-dim")
    assert "per-dimension rings" in mdl.formula and "18 steps" in mdl.formula


def test_per_dimension_reduce_scatter_and_all_gather_are_half_the_all_reduce():
    ctx = build_context(GENERATORS["torus"].build(dims=(4, 4, 4)))
    ar = next(m for m in collective_times(ctx, sizes=[GIB8]).models if m.algorithm == "multi-dim")
    for coll in ("reducescatter", "allgather"):
        res = collective_times(ctx, coll, sizes=[GIB8])
        rows = _rows(res, GIB8)
        assert rows["multi-dim"].selected
        mdl = next(m for m in res.models if m.algorithm == "multi-dim")
        assert mdl.seconds_per_byte == pytest.approx(ar.seconds_per_byte / 2, rel=1e-12)
        t = _expected_time(ctx, 3 * 3, ar.seconds_per_byte / 2, GIB8)
        assert rows["multi-dim"].time_s == pytest.approx(t, rel=1e-9)


def test_hypercube_halving_doubling():
    ctx = build_context(GENERATORS["hypercube"].build(n=6))
    res = collective_times(ctx, sizes=[1 << 10, GIB8])
    p, n = 64, 6
    rows = _rows(res, GIB8)
    assert set(rows) == {"ring", "tree", "bidir-ring", "halving-doubling"}
    # step i: each dimension carries a shard of 1/n / 2^i, half of it each way over its one link
    spb = 2 * sum((1 / n) / 2**i / 2 for i in range(n)) / B_EFF
    assert spb == pytest.approx(2 * (p - 1) / p / (n * B_EFF), rel=1e-12)
    hd = rows["halving-doubling"]
    assert hd.time_s == pytest.approx(_expected_time(ctx, 2 * n, spb, GIB8), rel=1e-9)
    assert hd.selected and hd.busbw_bytes_per_s == pytest.approx(n * B_EFF, rel=0.01)
    # the latency-bound end: 2 log2 p steps beat the 2 (p - 1) of the rings
    small = _rows(res, 1 << 10)
    assert small["halving-doubling"].selected
    bidir = _expected_time(ctx, 2 * (p - 1), (p - 1) / p / B_EFF, GIB8)
    assert rows["bidir-ring"].time_s == pytest.approx(bidir, rel=1e-9)
    assert "Gray code" in next(m.formula for m in res.models if m.algorithm == "bidir-ring")


def test_mesh_8x8_runs_the_bidirectional_path_algorithm():
    ctx = build_context(GENERATORS["torus"].build(dims=(8, 8), wrap=False))
    res = collective_times(ctx, sizes=[GIB8])
    p = 64
    rows = _rows(res, GIB8)
    # paths: the end links carry (k-1)/k of a shard each way; shards 1/2 then 1/16
    spb = 2 * sum(7 / 8 * (1 / 2) / 8**i for i in range(2)) / B_EFF
    assert spb == pytest.approx((p - 1) / p / B_EFF, rel=1e-12)
    md = rows["multi-dim"]
    assert md.time_s == pytest.approx(_expected_time(ctx, 2 * 2 * 7, spb, GIB8), rel=1e-9)
    assert md.selected
    mdl = next(m for m in res.models if m.algorithm == "multi-dim")
    assert "8x8 mesh" in mdl.formula and "path" in mdl.formula
    assert {"ring", "tree", "bidir-ring"} <= set(rows)


def test_a_failed_wrap_link_turns_its_line_into_a_path():
    d = GENERATORS["torus"].build(dims=(4, 4, 4))
    d.set_link_field("chip-3-0-0--chip-0-0-0", "failed", True)
    ctx = build_context(d)
    res = collective_times(ctx, sizes=[GIB8])
    rows = _rows(res, GIB8)
    # That line's end links carry 3/4 of a shard each way (a ring's half would be 3/8): dimension 0
    # costs twice the others, and the shards are sized to balance the phases. The best shares by a
    # brute-force search over a 0.001 grid (reduce-scatter, in units of 1 / B_EFF per byte):
    c = np.array([3 / 4, 3 / 8, 3 / 8])
    g = np.linspace(0, 1, 1001)
    s0, s1 = np.meshgrid(g, g, indexing="ij")
    s2 = 1 - s0 - s1
    ok = s2 >= 0
    sh = (s0, s1, s2)
    total = sum(np.maximum.reduce([c[(j + i) % 3] * sh[j] / 4**i for j in range(3)]) for i in range(3))
    best = float(np.min(np.where(ok, total, np.inf)))
    equal = sum(3 / 4 * (1 / 3) / 4**i for i in range(3))  # equal thirds: dimension 0 sets every phase
    md = rows["multi-dim"]
    mdl = next(m for m in res.models if m.algorithm == "multi-dim")
    assert mdl.seconds_per_byte == pytest.approx(2 * best / B_EFF, rel=2e-3)
    assert md.time_s == pytest.approx(_expected_time(ctx, 18, mdl.seconds_per_byte, GIB8), rel=1e-9)
    assert best < 0.8 * equal and md.busbw_bytes_per_s > 3 * B_EFF
    assert any("runs as a path" in x and "chip-3-0-0--chip-0-0-0" in x for x in res.notes)
    assert "bidir-ring" in rows  # its cycle uses no wrap-around link
    assert not res.cannot_run


def test_a_failed_link_in_the_middle_of_a_mesh_line_stops_multi_dim_and_moves_the_cycle():
    d = GENERATORS["torus"].build(dims=(8, 8), wrap=False)
    d.set_link_field("chip-3-0--chip-4-0", "failed", True)
    ctx = build_context(d)
    res = collective_times(ctx, sizes=[GIB8])
    cannot = dict(res.cannot_run)
    assert set(cannot) == {"multi-dim"}
    assert "chip-3-0--chip-4-0" in cannot["multi-dim"] and "every line" in cannot["multi-dim"]
    rows = _rows(res, GIB8)
    assert set(rows) == {"ring", "tree", "bidir-ring"} and rows["bidir-ring"].selected
    # a mirror image of the cycle avoids the link: still one hop a flow, the same time as unfailed
    bidir = _expected_time(ctx, 2 * 63, 63 / 64 / B_EFF, GIB8)
    assert rows["bidir-ring"].time_s == pytest.approx(bidir, rel=1e-9)
    assert any("moved" in x and "chip-3-0--chip-4-0" in x for x in res.notes)
    assert rows["ring"].busbw_bytes_per_s == pytest.approx(B_EFF, rel=0.01)  # the ring follows it too


def test_a_ring_of_chips_with_a_failed_link_has_no_cycle_left():
    d = GENERATORS["torus"].build(dims=(8,))
    d.set_link_field("chip-0--chip-1", "failed", True)
    res = collective_times(build_context(d), sizes=[GIB8])
    cannot = dict(res.cannot_run)
    assert set(cannot) == {"bidir-ring"} and "every mirror and shift" in cannot["bidir-ring"]
    # multi-dim runs the line as a path starting after the failed link: (k-1)/k of S each way, twice
    md = _rows(res, GIB8)["multi-dim"]
    assert md.time_s == pytest.approx(_expected_time(build_context(d), 2 * 7, 2 * 7 / 8 / B_EFF, GIB8), rel=1e-9)


def test_two_failed_links_in_one_torus_line_cut_it():
    d = GENERATORS["torus"].build(dims=(4, 4, 4))
    for lid in ("chip-0-0-0--chip-0-0-1", "chip-0-0-2--chip-0-0-3"):
        d.set_link_field(lid, "failed", True)
    res = collective_times(build_context(d), sizes=[GIB8])
    cannot = dict(res.cannot_run)
    assert "chip-0-0-0--chip-0-0-1" in cannot["multi-dim"] and "chip-0-0-2--chip-0-0-3" in cannot["multi-dim"]


def test_without_generator_coordinates_a_torus_or_hypercube_is_read_from_its_links():
    hand = collective_times(build_context(torus_gpus((4, 4, 4))), sizes=[GIB8])  # no coords properties
    made = collective_times(build_context(GENERATORS["torus"].build(dims=(4, 4, 4))), sizes=[GIB8])
    a, b = _rows(hand, GIB8), _rows(made, GIB8)
    assert set(a) == set(b) == {"ring", "tree", "bidir-ring", "multi-dim"}
    assert a["multi-dim"].busbw_bytes_per_s == pytest.approx(b["multi-dim"].busbw_bytes_per_s, rel=1e-3)
    cube = collective_times(build_context(hypercube_gpus(5)), sizes=[GIB8])
    assert _rows(cube, GIB8)["halving-doubling"].selected
    # rings of 2 (one link, left by different ports at its two ends) are not read from the links
    ctx = build_context(torus_gpus((2, 4)))
    res = collective_times(ctx, sizes=[GIB8])
    assert {r.algorithm for r in res.rows} == {"ring", "tree"}
    asked = collective_times(ctx, sizes=[GIB8], algorithms=["multi-dim"])
    assert not asked.rows and "multi-dim: not available" in asked.notes[0]
    hc = collective_times(build_context(GENERATORS["hypercube"].build(n=3)), sizes=[GIB8], algorithms=["multi-dim"])
    assert "halving-doubling" in hc.notes[0]


def test_a_box_of_the_chips_is_a_grid_other_subsets_are_not():
    ctx = build_context(GENERATORS["torus"].build(dims=(4, 4)))
    box = collective_times(ctx, sizes=[GIB8], members=np.arange(8))  # x in {0, 1}: a 2x4 block, rings of 4 along y
    assert "2x4 torus" in next(m.formula for m in box.models if m.algorithm == "multi-dim")
    res = collective_times(ctx, sizes=[GIB8], members=np.arange(7))
    assert {r.algorithm for r in res.rows} == {"ring", "tree"}


@pytest.mark.parametrize("dims", [(4, 4, 4), (2, 3), (3, 4, 5), (6, 5), (2, 2, 2, 2), (2,), (5, 2)])
def test_hamiltonian_cycles_step_between_neighbours(dims):
    cyc = hamiltonian_cycle(dims, (False,) * len(dims))
    assert len({tuple(c) for c in cyc.tolist()}) == int(np.prod(dims)) == len(cyc)
    step = np.abs(cyc - np.roll(cyc, -1, axis=0))
    if len(cyc) > 2:
        assert (step.sum(axis=1) == 1).all()  # mesh links only: no wrap-around needed


def test_no_cycle_on_odd_meshes_and_paths():
    assert hamiltonian_cycle((3, 3), (False, False)) is None
    assert hamiltonian_cycle((5,), (False,)) is None
    assert len(hamiltonian_cycle((5,), (True,))) == 5
    path = snake((3, 3, 3))
    assert (np.abs(np.diff(path, axis=0)).sum(axis=1) == 1).all()
    assert {tuple(c) for c in path.tolist()} == set(itertools.product(range(3), repeat=3))
    ctx = build_context(GENERATORS["torus"].build(dims=(3, 3), wrap=False))
    res = collective_times(ctx, sizes=[GIB8], algorithms=["bidir-ring", "multi-dim"])
    assert {r.algorithm for r in res.rows} == {"multi-dim"}
    assert "odd" in res.notes[0]


def test_a_sub_cube_of_a_hypercube_is_a_hypercube():
    ctx = build_context(GENERATORS["hypercube"].build(n=6))
    res = collective_times(ctx, sizes=[GIB8], members=np.arange(8, 16))  # labels 8..15: bit 3 shared
    mdl = next(m for m in res.models if m.algorithm == "halving-doubling")
    assert "3-dimensional hypercube" in mdl.formula
    p, n = 8, 3
    spb = 2 * (p - 1) / p / (n * B_EFF)
    assert mdl.seconds_per_byte == pytest.approx(spb, rel=1e-12)


def test_unequal_sides_get_shards_sized_to_balance_the_phases():
    """4x4x8: equal thirds leave the long dimension's phase the slowest; shares 35/35/30 balance the
    first phase (3/8 x 0.35 = 7/16 x 0.30 per byte of one link's rate) and cut the time by 6.9%."""
    ctx = build_context(GENERATORS["torus"].build(dims=(4, 4, 8), link_speed_gbps=400))
    res = collective_times(ctx, sizes=[GIB8], algorithms=["multi-dim"])
    mdl = res.models[0]
    c = np.array([3 / 8, 3 / 8, 7 / 16])  # (k-1)/k/2 per direction, rings of 4, 4, 8

    def rs_time(sh):  # reduce-scatter, in units of 1 / B_EFF per byte
        sides = (4, 4, 8)
        return sum(max(c[(j + i) % 3] * sh[j] / np.prod([sides[(j + t) % 3] for t in range(i)]) for j in range(3))
                   for i in range(3))

    assert rs_time([0.35, 0.35, 0.30]) == pytest.approx(0.1791015625)
    assert rs_time([1 / 3] * 3) / rs_time([0.35, 0.35, 0.30]) == pytest.approx(1.0687, rel=1e-3)
    assert mdl.seconds_per_byte == pytest.approx(2 * rs_time([0.35, 0.35, 0.30]) / B_EFF, rel=1e-6)
    assert "35% / 35% / 30%" in mdl.formula
    # still under the all-reduce bound of 6 links per chip
    assert res.rows[0].busbw_bytes_per_s < 6 * B_EFF
