"""Capacity graph, ECMP routing, link load and max-min fairness."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from analysis_helpers import fat_tree_hosts, leaf_spine_hosts, rail_cluster, two_node_design

from designer.analysis.fabric.capacity import build_capacity_graph
from designer.analysis.fabric.context import build_context
from designer.analysis.fabric.load import flow_matrix, max_min_fair, traffic_loads, uniform_loads
from designer.analysis.fabric.routing import route_flows
from designer.generators import GENERATORS
from designer.model import Design
from designer.model.catalog import Catalog


def test_capacity_graph_rates_protocols_and_latency():
    d = GENERATORS["rail-optimized"].build(sus=1)
    cap = build_capacity_graph(d)
    i = cap.link_ids.index("su1-node1-gpu1--su1-node1-nic1")
    assert cap.protocol_name(i) == "pcie"
    j = next(k for k, lid in enumerate(cap.link_ids) if lid.startswith("su1-node1-nic1--"))
    assert cap.protocol_name(j) == "infiniband"
    assert cap.line_bytes_per_s[j] == pytest.approx(50e9)
    assert cap.effective_bytes_per_s[j] == pytest.approx(48e9)
    assert cap.wire_latency_s[j] > 0
    sw = cap.nodes_of_kind("switch")
    assert np.all(cap.node_latency_s[sw] == pytest.approx(150e-9))
    nv = cap.link_ids.index("su1-node1-gpu1--su1-node1-nvsw")
    assert cap.protocol_name(nv) == "nvlink" and cap.line_bytes_per_s[nv] == pytest.approx(450e9)


def test_ethernet_switch_gives_ethernet_links():
    d = rail_cluster(2, protocol="ethernet")
    cap = build_capacity_graph(d, Catalog())
    net = [cap.protocol_name(k) for k, lid in enumerate(cap.link_ids) if "--leaf" in lid]
    assert set(net) == {"ethernet"}


def test_ecmp_splits_equally_over_spines():
    # 2 leaves x 2 hosts, 4 uplinks per leaf over 4 spines: h0-0 -> h1-0 puts 1/4 on each uplink
    d = leaf_spine_hosts(2, 2, 4, 4)
    ctx = build_context(d, Catalog())
    pos = {g: i for i, g in enumerate(ctx.gpu_ids)}
    r = route_flows(ctx.fabric, ctx.router, np.array([pos["h0-0"]]), np.array([pos["h1-0"]]), np.array([8.0]))
    cap = ctx.cap
    m = cap.n_links
    up = [cap.link_ids.index(f"leaf0-u{u}") for u in range(4)]
    assert np.allclose(r.arc_load[up], 2.0)
    assert np.allclose(r.arc_load[[k + m for k in up]], 0.0)  # the reverse direction is idle
    assert r.arc_load.sum() == pytest.approx(8.0 * 4)  # access, uplink, downlink, access


def test_pair_and_destination_kernels_agree():
    d = fat_tree_hosts(4)
    ctx = build_context(d, Catalog())
    rng = np.random.default_rng(1)
    n = len(ctx.fabric.gpus)
    s = rng.integers(0, n, 40)
    t = rng.integers(0, n, 40)
    w = rng.random(40)
    fab, router = ctx.fabric, ctx.router
    cs, ct = fab.att_core[s], fab.att_core[t]
    keep = cs != ct
    a, _ = router.route_pairs(cs[keep], ct[keep], w[keep])
    dest, inv = np.unique(ct[keep], return_inverse=True)
    demand = np.zeros((len(dest), router.n))
    np.add.at(demand, (inv, cs[keep]), w[keep])
    b, _ = router.route(dest, demand)
    assert np.allclose(a, b)
    # and the per-pair fraction matrix reproduces both
    frac, ok = router.pair_fractions(cs[keep], ct[keep])
    assert ok.all()
    assert np.allclose(frac.T @ w[keep], a)
    assert np.allclose(np.asarray(frac.sum(axis=1)).ravel() > 0, True)


def test_uniform_loads_match_explicit_flows():
    d = rail_cluster(3, gpus=4, spines=2, uplinks_per_leaf=4)
    ctx = build_context(d, Catalog())
    n = len(ctx.fabric.gpus)
    agg, lost = uniform_loads(ctx.fabric, ctx.router, np.arange(n), 2.0)
    s, t = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    s, t = s.ravel(), t.ravel()
    off = s != t
    exp = route_flows(ctx.fabric, ctx.router, s[off], t[off], np.full(int(off.sum()), 2.0))
    assert lost == 0 and exp.unrouted_flows == 0
    assert np.allclose(agg, exp.arc_load)


def test_intra_server_traffic_stays_on_nvlink():
    ctx = build_context(two_node_design(), Catalog())
    r = route_flows(ctx.fabric, ctx.router, np.array([0]), np.array([1]), np.array([1.0]))
    used = np.flatnonzero(r.arc_load)
    links = {ctx.cap.link_ids[ctx.cap.arc_link(int(a))] for a in used}
    assert links == {"n1-gpu1--n1-nvsw", "n1-gpu2--n1-nvsw"}


def test_failed_link_is_routed_around():
    d = leaf_spine_hosts(2, 2, 2, 2)
    d.set_link_field("leaf0-u0", "failed", True)
    ctx = build_context(d, Catalog())
    assert ("leaf0-u0", "failed") in ctx.cap.excluded
    pos = {g: i for i, g in enumerate(ctx.gpu_ids)}
    r = route_flows(ctx.fabric, ctx.router, np.array([pos["h0-0"]]), np.array([pos["h1-0"]]), np.array([1.0]))
    k = ctx.cap.link_ids.index("leaf0-u1")
    assert r.arc_load[k] == pytest.approx(1.0)


def test_max_min_fair_progressive_filling():
    # three flows: f0 on a (cap 3), f1 on a+b, f2 on b (cap 10) -> f0 = f1 = 1.5, f2 = 8.5
    M = sp.csr_matrix(np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]))
    fs = max_min_fair(M, np.array([3.0, 10.0]))
    assert fs.rate_bytes_per_s.tolist() == pytest.approx([1.5, 1.5, 8.5])
    assert fs.bottleneck_arc.tolist() == [0, 0, 1]


def test_flow_matrix_rows_sum_to_path_lengths():
    ctx = build_context(leaf_spine_hosts(2, 2, 2, 2), Catalog())
    M = flow_matrix(ctx.fabric, ctx.router, np.array([0, 0]), np.array([1, 2]))
    # same leaf: 2 access arcs; other leaf: access + uplink (split) + downlink (split) + access = 4
    assert np.asarray(M.sum(axis=1)).ravel().tolist() == pytest.approx([2.0, 4.0])


def test_traffic_matrix_ranks_bottlenecks():
    ctx = build_context(leaf_spine_hosts(2, 4, 1, 1), Catalog())
    flows = [(f"h0-{i}", f"h1-{i}", 50e9) for i in range(4)]
    res = traffic_loads(ctx, flows)
    name, util, slowed = res.bottlenecks[0]
    assert name == "leaf0-u0" and util == pytest.approx(200e9 / (50e9 * 0.93))
    assert sorted(slowed) == [0, 1, 2, 3]
    assert res.fair_rate_bytes_per_s == pytest.approx([50e9 * 0.93 / 4] * 4)


def _designs_with_twins():
    return [GENERATORS["rail-optimized"].build(sus=2), fat_tree_hosts(4),
            GENERATORS["leaf-spine"].build(leaves=4, hosts_per_leaf=8, oversubscription=2.0),
            GENERATORS["clos3"].build(pods=2, leaves_per_pod=2, hosts_per_leaf=8)]


@pytest.mark.parametrize("k", range(4))
def test_twin_class_routing_equals_per_destination_routing(k):
    d = _designs_with_twins()[k]
    ctx = build_context(d)
    R, f = ctx.router, ctx.fabric
    cores = np.unique(f.att_core)
    W = np.bincount(np.unique(f.att_core, return_inverse=True)[1], weights=f.att_w) * (1 + np.arange(len(cores)) % 3)
    dem = np.zeros((len(cores), R.n))
    dem[:, cores] = np.outer(W, W)
    dem[np.arange(len(cores)), cores] = 0
    a, la, ea, oa = R.route(cores, dem, dest_weight=W)
    b, lb, eb, ob = R.uniform_classes(cores, W)
    assert la == lb == 0
    assert np.allclose(a, b) and np.allclose(ea, eb) and np.allclose(oa, ob)
    ra, qa = R.forward_bound(cores, W, ea)
    rb, qb = R.forward_bound_classes(cores, W, ea)
    assert np.allclose(ra, rb) and np.allclose(qa, qb)
    # explicit pairs, grouped by twins or not, agree with the per-destination push
    rng = np.random.default_rng(k)
    s, t = rng.choice(cores, 300), rng.choice(cores, 300)
    w = rng.random(300)
    m = s != t
    x, _ = R.route_pairs(s[m], t[m], w[m])
    y, _ = R.route_pairs(s[m], t[m], w[m], twins=False)
    dest, inv = np.unique(t[m], return_inverse=True)
    dm = np.zeros((len(dest), R.n))
    np.add.at(dm, (inv, s[m]), w[m])
    z, _ = R.route(dest, dm)
    assert np.allclose(x, z) and np.allclose(y, z)


def test_pxn_keeps_cross_rail_traffic_off_the_spine():
    d = rail_cluster(2, gpus=4, spines=2, uplinks_per_leaf=2)
    ctx = build_context(d, Catalog())
    flows = [("node1-gpu1", "node2-gpu3", 10e9)]
    plain = traffic_loads(ctx, flows)
    pxn = traffic_loads(ctx, flows, pxn=True)
    spine = [k for k, lid in enumerate(ctx.cap.link_ids) if "-up" in lid]
    assert plain.utilization[spine].max() > 0
    assert pxn.utilization[spine].max() == 0
    nv = ctx.cap.link_ids.index("node1-gpu3--node1-nvsw")
    assert pxn.utilization[nv] > 0 and plain.utilization[nv] == 0


def nvlink_board(links_per_gpu: int, gpus: int = 4) -> Design:
    """GPUs on one NVLink switch, each with ``links_per_gpu`` parallel links of 3200 / links_per_gpu Gb/s."""
    from designer.model import Design, Device, Link, PortGroup

    k = links_per_gpu
    d = Design(f"{k} links")
    d.extend(devices=[Device("v", "nvswitch", (PortGroup("nvl", gpus * k, 3200.0 / k, "nvlink"),))]
             + [Device(f"g{i}", "gpu", (PortGroup("nvl", k, 3200.0 / k, "nvlink"),)) for i in range(1, gpus + 1)],
             links=[Link(f"g{i}-{j}", f"g{i}", f"nvl{j}", "v", f"nvl{k * (i - 1) + j}", "nvlink")
                    for i in range(1, gpus + 1) for j in range(1, k + 1)])
    return d


def test_parallel_nvlink_links_share_the_traffic():
    # Two 1600G links per GPU carry what one 3200G link does: the ring, NVLS-free here, and the bisection.
    from designer.analysis import analyze

    one, two = (analyze(nvlink_board(k), sizes=[1 << 30], algorithms=["ring", "tree"]) for k in (1, 2))
    for a, b in zip(one.collectives, two.collectives, strict=True):
        assert b.busbw_bytes_per_s == pytest.approx(a.busbw_bytes_per_s, rel=1e-9)
    assert two.bisection.exact and two.bisection.lower_bytes_per_s == pytest.approx(one.bisection.lower_bytes_per_s)
    assert not any("NVLink" in n for n in two.notes)
    t1, t2 = (traffic_loads(build_context(nvlink_board(k), Catalog()), [("g1", "g2", 100e9)]) for k in (1, 2))
    assert t2.fair_rate_bytes_per_s[0] == pytest.approx(t1.fair_rate_bytes_per_s[0])


def test_gpus_linked_to_several_nvlink_switches_are_named_in_a_note():
    # Only the links to one NVLink switch (its hub) are routed; the note says so.
    from designer.analysis import analyze
    from designer.model import Design, Device, Link, PortGroup

    d = Design("two hubs")
    d.extend(devices=[Device(f"v{h}", "nvswitch", (PortGroup("nvl", 2, 1600.0, "nvlink"),)) for h in (1, 2)]
             + [Device(f"g{i}", "gpu", (PortGroup("nvl", 2, 1600.0, "nvlink"),)) for i in (1, 2)],
             links=[Link(f"g{i}-v{h}", f"g{i}", f"nvl{h}", f"v{h}", f"nvl{i}", "nvlink")
                    for i in (1, 2) for h in (1, 2)])
    notes = analyze(d, sizes=[1 << 20]).notes
    assert any("2 GPUs are linked to several NVLink switches" in n for n in notes)
    assert not any("NVLink switches" in n for n in analyze(GENERATORS["server"].build(), sizes=[8]).notes)


def _net_outflow(cap, load: np.ndarray) -> np.ndarray:
    """Per node: bytes leaving minus bytes arriving, from per-arc loads."""
    out = np.bincount(cap.arc_src, weights=load, minlength=cap.n_nodes)
    return out - np.bincount(cap.arc_dst, weights=load, minlength=cap.n_nodes)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("pxn", [False, True])
def test_every_routed_flow_is_a_path(seed, pxn):
    # The certified lower bounds rely on it: the arc loads of one flow s -> t conserve at every
    # node but s (sends the bytes) and t (receives them), or the flow is reported unrouted.
    from analysis_helpers import random_servers, two_linked_boards

    if seed < 2:
        d = two_linked_boards(nics=seed % 2 == 1)
    else:
        d = nvlink_board(3) if seed == 2 else random_servers(np.random.default_rng(3000 + seed))
    ctx = build_context(d, Catalog())
    cap, n = ctx.cap, ctx.n_gpus
    for s in range(n):
        for t in range(n):
            if s == t:
                continue
            r = route_flows(ctx.fabric, ctx.router, np.array([s]), np.array([t]), np.array([1.0]), pxn=pxn)
            net = _net_outflow(cap, r.arc_load)
            if r.unrouted_flows:
                continue
            want = np.zeros(cap.n_nodes)
            want[ctx.fabric.gpus[s]] += 1.0
            want[ctx.fabric.gpus[t]] -= 1.0
            np.testing.assert_allclose(net, want, atol=1e-9, err_msg=f"{ctx.gpu_ids[s]} -> {ctx.gpu_ids[t]}")
