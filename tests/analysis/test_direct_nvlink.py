"""Direct GPU-to-GPU NVLink links (bridged pairs, cube-mesh, full mesh) are routed and analysed."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from designer.analysis import analyze
from designer.analysis.bisection.bounds import bisection_bounds
from designer.analysis.collectives.embedding import Embedder
from designer.analysis.collectives.times import collective_times
from designer.analysis.fabric.context import build_context
from designer.analysis.fabric.load import uniform_loads
from designer.analysis.fabric.routing import route_flows
from designer.model import Design, Device, Link, PortGroup
from designer.present.report_text import summary_lines

GIB8 = 8 << 30
#: Per-direction rate of each direct link, Gb/s (64 GB/s: an Infinity Fabric / xGMI-class link).
LINK_GBPS = 512.0

CUBE_MESH = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (4, 5), (4, 6), (4, 7), (5, 6), (5, 7), (6, 7),
             (0, 4), (1, 5), (2, 6), (3, 7)]


def servers(edges, g: int, n_servers: int = 1, nic_gbps: float = 400.0) -> Design:
    """``n_servers`` servers of ``g`` GPUs joined by direct NVLink ``edges``, one NIC per GPU on one switch."""
    d = Design()
    devs, links = [], []
    if n_servers > 1:
        devs.append(Device("sw", "switch", (PortGroup("p", n_servers * g, nic_gbps),)))
    deg = [sum(i in e for e in edges) for i in range(g)]
    for s in range(n_servers):
        used = [0] * g
        for i in range(g):
            devs.append(Device(f"s{s}g{i}", "gpu", (PortGroup("nvl", max(deg[i], 1), LINK_GBPS, "nvlink"),
                                                    PortGroup("pcie", 1, 512.0, "pcie"))))
            devs.append(Device(f"s{s}n{i}", "nic", (PortGroup("p", 1, nic_gbps), PortGroup("pcie", 1, 512.0, "pcie"))))
            links.append(Link(f"s{s}c{i}", f"s{s}g{i}", "pcie1", f"s{s}n{i}", "pcie1", "pcie"))
            if n_servers > 1:
                links.append(Link(f"s{s}e{i}", f"s{s}n{i}", "p1", "sw", f"p{s * g + i + 1}"))
        for a, b in edges:
            used[a] += 1
            used[b] += 1
            links.append(Link(f"s{s}v{a}-{b}", f"s{s}g{a}", f"nvl{used[a]}", f"s{s}g{b}", f"nvl{used[b]}", "nvlink"))
    d.extend(devices=devs, links=links)
    return d


def mesh(g: int) -> list[tuple[int, int]]:
    return list(itertools.combinations(range(g), 2))


def busbw(ctx, algorithm: str, collective: str = "allreduce") -> float:
    res = collective_times(ctx, collective, sizes=[GIB8])
    return next(r.busbw_bytes_per_s for r in res.rows if r.algorithm == algorithm)


def nvlink_rate(ctx) -> float:
    """Effective per-direction rate of one direct link (bytes/s), as the capacity graph has it."""
    cap = ctx.cap
    return float(cap.effective_bytes_per_s[cap.link_ids.index("s0v0-1")])


def test_bridged_pair_routes_over_the_bridge():
    ctx = build_context(servers([(0, 1)], 2))
    assert ctx.fabric.direct.any
    r = route_flows(ctx.fabric, ctx.router, np.array([0]), np.array([1]), np.array([3.0]))
    assert r.unrouted_flows == 0
    bridge = ctx.cap.link_ids.index("s0v0-1")
    assert r.arc_load[bridge] == pytest.approx(3.0)
    assert r.arc_load.sum() == pytest.approx(3.0)  # nothing through the NICs
    res = collective_times(ctx, sizes=[GIB8])
    assert not res.cannot_run
    # Two GPUs, one link: busbw = algbw = the link's effective rate (less latency).
    assert busbw(ctx, "ring") == pytest.approx(nvlink_rate(ctx), rel=0.01)


def test_full_mesh_rings_use_every_link():
    ctx = build_context(servers(mesh(8), 8))
    E = Embedder(ctx, np.arange(8))
    rings = E.rings[0]
    assert len(rings) == 7  # K8 with both directions: 7 link-disjoint directed Hamiltonian cycles
    used = set()
    for ring in rings:
        arcs = set(zip(ring.tolist(), np.roll(ring, -1).tolist(), strict=True))
        assert not arcs & used
        used |= arcs
    assert len(used) == 56  # every direction of every link
    # Ring busbw: 7 rings, each link direction carries one of them: 7 x one link's effective rate.
    assert busbw(ctx, "ring") == pytest.approx(7 * nvlink_rate(ctx), rel=0.01)
    assert collective_times(ctx, sizes=[GIB8]).rows[0].selected
    # The tree's chain goes along each ring in turn: a link direction carries at most two chains'
    # 1/7 (one reducing, one broadcasting), so busbw = 2(p-1)/p x 7/2 x rate x 0.9 (NCCL's tree factor).
    assert busbw(ctx, "tree") == pytest.approx(1.75 * 3.5 * 0.9 * nvlink_rate(ctx), rel=0.02)


def test_cube_mesh_two_hop_pairs_split_over_common_neighbours():
    ctx = build_context(servers(CUBE_MESH, 8))
    r = route_flows(ctx.fabric, ctx.router, np.array([0]), np.array([5]), np.array([1.0]))
    ids = ctx.cap.link_ids
    m = ctx.cap.n_links
    load = {ids[k % m]: float(v) for k, v in enumerate(r.arc_load) if v > 0}
    # 0 and 5 are not linked; their common neighbours are GPUs 1 and 4 (NVLink through a GPU).
    assert load == pytest.approx({"s0v0-1": 0.5, "s0v1-5": 0.5, "s0v0-4": 0.5, "s0v4-5": 0.5})
    assert len(Embedder(ctx, np.arange(8)).rings[0]) == 4  # 4 links per GPU: 4 disjoint rings
    assert busbw(ctx, "ring") == pytest.approx(4 * nvlink_rate(ctx), rel=0.01)


def test_all_to_all_loads_match_explicit_pair_flows():
    ctx = build_context(servers(CUBE_MESH, 8))
    members = np.arange(8)
    agg, lost = uniform_loads(ctx.fabric, ctx.router, members, 1.0)
    i, j = np.nonzero(~np.eye(8, dtype=bool))
    explicit = route_flows(ctx.fabric, ctx.router, i, j, np.ones(len(i))).arc_load
    assert lost == 0
    np.testing.assert_allclose(agg, explicit)
    assert busbw(ctx, "pairwise", "alltoall") > 0


def test_mesh_bisection_counts_the_direct_links():
    ctx = build_context(servers(mesh(8), 8))
    b = bisection_bounds(ctx)
    # Halving K8 cuts 4 x 4 = 16 links of 64 GB/s per direction.
    assert b.lower_bytes_per_s == pytest.approx(16 * LINK_GBPS / 8 * 1e9, rel=1e-6)
    assert b.upper_bytes_per_s == pytest.approx(b.lower_bytes_per_s)


def test_bridged_servers_ring_is_nic_bound():
    """4 chassis of 4 bridged pairs: each pair is an NVLink domain, the ring crosses the network
    between them and goes over each bridge once per channel (no hand-back through the bridge)."""
    ctx = build_context(servers([(0, 1), (2, 3), (4, 5), (6, 7)], 8, n_servers=4))
    E = Embedder(ctx, np.arange(ctx.n_gpus))
    assert E.m == 16 and E.g_min == 2
    nic = float(ctx.cap.effective_bytes_per_s[ctx.cap.link_ids.index("s0e0")])
    assert busbw(ctx, "ring") == pytest.approx(2 * nic, rel=0.02)


def test_failed_bridge_falls_back_to_the_network():
    design = servers([(0, 1)], 2, n_servers=2)
    design.set_link_field("s0v0-1", "failed", True)
    ctx = build_context(design)
    assert ctx.fabric.direct.dom[0] == -1  # s0g0 is no longer in a direct domain
    assert ctx.fabric.direct.dom[2] >= 0  # the second server's bridge still works
    res = collective_times(ctx, sizes=[GIB8])
    assert not res.cannot_run
    r = route_flows(ctx.fabric, ctx.router, np.array([0]), np.array([1]), np.array([1.0]))
    assert r.unrouted_flows == 0
    assert r.arc_load[ctx.cap.link_ids.index("s0e0")] == pytest.approx(1.0)  # through the NIC


def test_analyze_reports_direct_links_without_no_route():
    rep = analyze(servers(mesh(4), 4, n_servers=2), sizes=[GIB8])
    text = "\n".join(summary_lines(rep))
    assert "no path" not in text and "cannot run" not in text
    assert "2 servers" in text


def test_direct_roce_mesh_between_nics_routes():
    """Four single-GPU hosts whose NICs are cabled to each other (no switch): every pair has a path
    over its own link, and the ring runs at one link's effective rate."""
    d = Design()
    devs, links = [], []
    n = 4
    for i in range(n):
        devs.append(Device(f"g{i}", "gpu", (PortGroup("pcie", 1, 512.0, "pcie"),)))
        devs.append(Device(f"n{i}", "nic", (PortGroup("p", n - 1, 400.0), PortGroup("pcie", 1, 512.0, "pcie"))))
        links.append(Link(f"c{i}", f"g{i}", "pcie1", f"n{i}", "pcie1", "pcie"))
    used = [0] * n
    for a, b in itertools.combinations(range(n), 2):
        used[a] += 1
        used[b] += 1
        links.append(Link(f"e{a}{b}", f"n{a}", f"p{used[a]}", f"n{b}", f"p{used[b]}"))
    d.extend(devices=devs, links=links)
    ctx = build_context(d)
    res = collective_times(ctx, sizes=[GIB8])
    assert not res.cannot_run
    link = float(ctx.cap.effective_bytes_per_s[ctx.cap.link_ids.index("e01")])
    assert busbw(ctx, "ring") == pytest.approx(link, rel=0.01)
    i, j = np.nonzero(~np.eye(n, dtype=bool))
    r = route_flows(ctx.fabric, ctx.router, i, j, np.ones(len(i)))
    assert r.unrouted_flows == 0


def test_formulas_say_how_the_rings_go_round_direct_servers():
    res = collective_times(build_context(servers(CUBE_MESH, 8)), sizes=[GIB8])
    ring = next(m for m in res.models if m.algorithm == "ring")
    assert "along 4 link-disjoint rings" in ring.formula
    hgx = collective_times(build_context(servers(mesh(4), 4, n_servers=2)), sizes=[GIB8])
    assert "along 2 link-disjoint rings" in next(m for m in hgx.models if m.algorithm == "tree").formula
