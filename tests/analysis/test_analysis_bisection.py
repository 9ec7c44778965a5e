"""Bisection bounds: soundness against brute force, closed forms met exactly."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from analysis_helpers import (
    fat_tree_hosts,
    hypercube_gpus,
    leaf_spine_hosts,
    rail_cluster,
    random_servers,
    torus_gpus,
    two_linked_boards,
)

from designer.analysis.bisection.bounds import bisection_bounds
from designer.analysis.fabric.context import build_context
from designer.model import Design, Device, Link, PortGroup
from designer.model.catalog import Catalog

GB = 400.0 / 8  # GB/s per 400G link, per direction


def bounds(design):
    b = bisection_bounds(build_context(design, Catalog()))
    return b.lower_bytes_per_s / 1e9, b.upper_bytes_per_s / 1e9, b


def random_design(rng: np.random.Generator, n_end: int, n_sw: int) -> Design:
    """Endpoints (GPUs with several ports) and switches joined by random links of random speeds."""
    speeds = [100.0, 200.0, 400.0]
    d = Design("random")
    devs = [Device(f"g{i}", "gpu", (PortGroup("p", 16, 400.0),)) for i in range(n_end)]
    devs += [Device(f"s{i}", "switch", (PortGroup("p", 32, 400.0),)) for i in range(n_sw)]
    names = [x.id for x in devs]
    used = {x: 0 for x in names}
    links = []
    # a random spanning tree keeps it connected, then extra links
    order = list(rng.permutation(len(names)))
    pairs = [(order[i], order[int(rng.integers(0, i))]) for i in range(1, len(order))]
    for _ in range(int(rng.integers(0, 2 * len(names)))):
        a, b = rng.choice(len(names), size=2, replace=False)
        pairs.append((int(a), int(b)))
    for k, (a, b) in enumerate(pairs):
        na, nb = names[a], names[b]
        if used[na] >= 16 or used[nb] >= 16:
            continue
        used[na] += 1
        used[nb] += 1
        links.append(Link(f"l{k}", na, f"p{used[na]}", nb, f"p{used[nb]}"))
    d.extend(devices=devs, links=links)
    # random port speeds: a link runs at the slower of its two ends
    for x in devs:
        if rng.random() < 0.3:
            sp = float(rng.choice(speeds))
            d.set_device_field(x.id, "ports", (PortGroup("p", 16 if x.kind == "gpu" else 32, sp),))
    return d


def balanced_splits(items: list) -> list[set]:
    """One side of every split of ``items`` into floor(n/2) and ceil(n/2), each split once."""
    n = len(items)
    if n % 2:
        return [set(c) for c in itertools.combinations(items, n // 2)]
    return [{items[0], *c} for c in itertools.combinations(items[1:], n // 2 - 1)]


def brute_force_bisection(design: Design) -> float:
    """Minimum over balanced endpoint splits and every switch assignment of the cut, by enumeration."""
    from designer.analysis.fabric.capacity import build_capacity_graph

    cap = build_capacity_graph(design, Catalog())
    gpus = [i for i in range(cap.n_nodes) if cap.node_ids[i].startswith("g")]
    sw = [i for i in range(cap.n_nodes) if i not in gpus]
    # every switch assignment at once: rows = assignments
    bits = np.array(list(itertools.product((False, True), repeat=len(sw))), dtype=bool)
    if not sw:
        bits = np.zeros((1, 0), dtype=bool)
    best = np.inf
    for side_a in balanced_splits(gpus):
        side = np.zeros((len(bits), cap.n_nodes), dtype=bool)
        side[:, sorted(side_a)] = True
        side[:, sw] = bits
        cut = side[:, cap.a] != side[:, cap.b]
        best = min(best, float((cut * cap.line_bytes_per_s).sum(axis=1).min()))
    return best / 1e9


@pytest.mark.parametrize("seed", range(16))
def test_random_graphs_brute_force_within_bounds(seed):
    rng = np.random.default_rng(seed)
    n_end = int(rng.integers(4, 15))
    n_sw = int(rng.integers(0, 5))
    d = random_design(rng, n_end, n_sw)
    lo, hi, _ = bounds(d)
    truth = brute_force_bisection(d)
    assert lo <= truth * (1 + 1e-9)
    assert truth <= hi * (1 + 1e-9)
    assert lo > 0
    if n_end <= 10:  # every split is tried: the upper bound is the minimum
        assert hi == pytest.approx(truth, rel=1e-9)


@pytest.mark.parametrize("k", [4, 6])
def test_fat_tree_closed_form(k):
    lo, hi, b = bounds(fat_tree_hosts(k))
    assert b.exact
    assert lo == pytest.approx(k**3 / 8 * GB, rel=1e-9)
    assert hi == pytest.approx(k**3 / 8 * GB, rel=1e-9)
    assert len(b.cut_links) == k**3 // 8


@pytest.mark.parametrize(("leaves", "hosts", "up"), [(4, 4, 4), (4, 4, 2), (8, 6, 2), (6, 8, 2), (4, 4, 8)])
def test_leaf_spine_any_oversubscription(leaves, hosts, up):
    lo, hi, b = bounds(leaf_spine_hosts(leaves, hosts, up, spines=2))
    n = leaves * hosts
    expected = min(n / 2 * GB, leaves / 2 * up * GB)
    assert b.exact
    assert lo == pytest.approx(expected, rel=1e-9)
    assert hi == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("dims", [(4, 4), (6, 6), (4, 4, 4)])
def test_torus_closed_form(dims):
    k, n = dims[0], len(dims)
    lo, hi, b = bounds(torus_gpus(dims))
    assert b.exact
    assert lo == pytest.approx(2 * k ** (n - 1) * GB, rel=1e-9)


@pytest.mark.parametrize("dim", [2, 3, 4, 5])
def test_hypercube_closed_form(dim):
    lo, hi, b = bounds(hypercube_gpus(dim))
    assert b.exact
    assert lo == pytest.approx(2**dim / 2 * GB, rel=1e-9)


def test_gpu_servers_count_nvlink_as_links():
    # 4 servers x 8 GPUs, rail leaves + 2 spines: splitting servers 2|2 cuts 16 NIC links.
    lo, hi, b = bounds(rail_cluster(4, spines=2, uplinks_per_leaf=4))
    assert b.exact and lo == pytest.approx(16 * GB)
    # One server: any 4|4 split cuts four GPUs' NVLink (450 GB/s each).
    from analysis_helpers import single_server

    lo, hi, b = bounds(single_server(8))
    assert b.exact and lo == pytest.approx(4 * 450.0)


def test_oversubscribed_rails_bound_by_spine():
    # 8 nodes, 8 rails, each leaf 8 down / 2 up -> 4:1; a 4|4 node split is limited by the uplinks
    # Rails keep a node split local to each leaf, so the best cut is still 32 NIC links, but the
    # routing certificates only prove what the 4:1 uplinks can carry: the interval is honest, not exact.
    lo, hi, b = bounds(rail_cluster(8, spines=2, uplinks_per_leaf=2))
    assert hi == pytest.approx(32 * GB)
    assert 0 < lo < hi and not b.exact


@pytest.mark.parametrize(
    ("kind", "params", "expected_links"),
    [
        ("fat-tree", {"k": 4}, 4**3 / 8),
        ("fat-tree", {"k": 6}, 6**3 / 8),
        ("leaf-spine", {"leaves": 4, "hosts_per_leaf": 16, "oversubscription": 1.0}, 32),  # N/2 host links
        ("leaf-spine", {"leaves": 4, "hosts_per_leaf": 16, "oversubscription": 2.0}, 4 / 2 * 8),  # L/2 * u
        ("leaf-spine", {"leaves": 6, "hosts_per_leaf": 24, "oversubscription": 3.0}, 6 / 2 * 8),
        ("torus", {"dims": (4, 4, 4)}, 2 * 4**2),
        ("hypercube", {"n": 4}, 2**4 / 2),
        ("rail-optimized", {"sus": 2, "oversubscription": 2.0}, 512 / 2 / 2),
    ],
)
def test_generator_designs_meet_closed_forms(kind, params, expected_links):
    from designer.generators import GENERATORS

    b = bisection_bounds(build_context(GENERATORS[kind].build(**params)))
    assert b.exact
    assert b.lower_bytes_per_s == pytest.approx(expected_links * 50e9, rel=1e-9)
    assert b.upper_bytes_per_s == pytest.approx(expected_links * 50e9, rel=1e-9)


def test_one_nvlink_domain_hose_bound_ignores_the_network():
    from designer.generators import GENERATORS

    b = bisection_bounds(build_context(GENERATORS["nvl72"].build()))
    # 36 GPUs' NVLink (900 GB/s each) is proven; the cut found also pays their 800G NICs.
    assert b.lower_bytes_per_s == pytest.approx(36 * 900e9)
    assert b.upper_bytes_per_s == pytest.approx(36 * 1000e9)
    assert not b.exact


@pytest.mark.parametrize("nics", [False, True])
def test_linked_nvlink_switches_keep_the_lower_bound_sound(nics):
    # Traffic g1 -> g3 must cross the thin X-Y link (or the network): it cannot hop from X to g3.
    d = two_linked_boards(nics=nics)
    lo, hi, b = bounds(d)
    truth = brute_force_bisection(d)
    assert truth == pytest.approx(12.5 + (100.0 if nics else 0.0))
    assert lo <= truth * (1 + 1e-9)
    assert truth <= hi * (1 + 1e-9)
    assert lo <= hi * (1 + 1e-9)


def min_bisection_by_max_flow(design: Design) -> float:
    """Exact minimum bisection (GB/s): every balanced GPU split, each with an exact min cut (networkx)."""
    import networkx as nx

    from designer.analysis.fabric.capacity import build_capacity_graph

    cap = build_capacity_graph(design, Catalog())
    gpus = [i for i in range(cap.n_nodes) if cap.node_ids[i].startswith("g")]
    g = nx.DiGraph()
    for a, b, c in zip(cap.a.tolist(), cap.b.tolist(), cap.line_bytes_per_s.tolist(), strict=True):
        for u, v in ((a, b), (b, a)):
            old = g.get_edge_data(u, v, {"capacity": 0.0})["capacity"]
            g.add_edge(u, v, capacity=old + c / 1e9)
    best = np.inf
    for side_a in balanced_splits(gpus):
        h = g.copy()
        for x in gpus:
            h.add_edge("S", x) if x in side_a else h.add_edge(x, "T")  # no capacity attribute: infinite
        best = min(best, nx.minimum_cut_value(h, "S", "T"))
    return best


@pytest.mark.parametrize("seed", range(24))
def test_random_servers_within_bounds(seed):
    d = random_servers(np.random.default_rng(1000 + seed))
    lo, hi, b = bounds(d)
    truth = min_bisection_by_max_flow(d)
    assert lo <= truth * (1 + 1e-9) + 1e-9
    assert hi == pytest.approx(truth, rel=1e-9)  # at most 10 GPUs: every split is tried


def _cut_check(design: Design, b) -> tuple[float, int, int]:
    """Capacity (bytes/s) of ``b.cut_links`` recomputed from the design and the catalog, and the GPU
    counts of the two sides those links separate (raises if they separate no two-sided split)."""
    import networkx as nx

    from designer.model.catalog import builtin_catalog

    cables = builtin_catalog().cables
    cut = set(b.cut_links)
    capacity = 0.0
    for lid in cut:
        link = design.link(lid)
        assert not link.failed
        rates = [design.device(dev).port(p).speed_gbps for dev, p in ((link.a_device, link.a_port),
                                                                         (link.b_device, link.b_port))]
        if link.cable in cables:
            rates.append(cables[link.cable].rate_gbps)
        capacity += min(rates) / 8 * 1e9
    # Components without the cut links, 2-coloured along the cut links: each cut link must join
    # two sides; pieces of the component graph may be flipped independently to balance the GPUs.
    g = nx.Graph()
    g.add_nodes_from(d.id for d in design.devices)
    g.add_edges_from((x.a_device, x.b_device) for x in design.links if not x.failed and x.id not in cut)
    comp = {v: i for i, c in enumerate(nx.connected_components(g)) for v in c}
    gpus = [0] * (max(comp.values()) + 1)
    for d in design.devices:
        if d.kind == "gpu":
            gpus[comp[d.id]] += 1
    h = nx.Graph()
    h.add_nodes_from(range(len(gpus)))
    h.add_edges_from((comp[design.link(lid).a_device], comp[design.link(lid).b_device]) for lid in cut)
    assert nx.is_bipartite(h), "a cut link joins two devices of the same side"
    reachable = {(0, 0)}  # GPU counts (side A, side B) reachable by flipping pieces
    for piece in nx.connected_components(h):
        colour = nx.bipartite.color(h.subgraph(piece))
        na = sum(gpus[c] for c in piece if colour[c] == 0)
        nb = sum(gpus[c] for c in piece if colour[c] == 1)
        reachable = {(a + x, b_ + y) for a, b_ in reachable for x, y in ((na, nb), (nb, na))}
    n = sum(gpus)
    assert (n // 2, n - n // 2) in reachable, f"the cut does not split the {n} GPUs in halves"
    return capacity, n // 2, n - n // 2


@pytest.mark.parametrize(
    ("kind", "params"),
    [
        ("server", {}),
        ("nvl72", {}),
        ("fat-tree", {"k": 4}),
        ("leaf-spine", {"leaves": 4, "hosts_per_leaf": 16, "oversubscription": 2.0}),
        ("rail-optimized", {"sus": 1, "oversubscription": 2.0}),
        ("torus", {"dims": (4, 4, 2)}),
        ("hypercube", {"n": 5}),
        ("dragonfly", {}),
        ("clos3", {}),
    ],
)
def test_reported_cut_is_a_balanced_split_of_the_reported_capacity(kind, params):
    from designer.generators import GENERATORS

    d = GENERATORS[kind].build(**params)
    b = bisection_bounds(build_context(d))
    assert b.cut_links
    capacity, _, _ = _cut_check(d, b)
    assert capacity == pytest.approx(b.upper_bytes_per_s, rel=1e-12)
    assert b.lower_bytes_per_s <= b.upper_bytes_per_s * (1 + 1e-9)


def test_min_cut_refines_capacities_that_are_not_whole_megabits():
    # 2:1 leaf-spine at 400.0015 Gb/s (not a whole number of Mb/s): the cut is still found at the uplinks.
    gbps = 400.0015
    lo, hi, b = bounds(leaf_spine_hosts(4, 4, 2, spines=2, gbps=gbps))
    expected = 4 / 2 * 2 * gbps / 8
    assert b.exact
    assert hi == pytest.approx(expected, rel=1e-12)
