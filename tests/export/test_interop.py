"""designer.interop.to_networkx: the analyzer's figures checked with networkx's own algorithms."""

from __future__ import annotations

import networkx as nx
import pytest

from designer.analysis import analyze
from designer.generators import GENERATORS
from designer.interop import to_networkx
from designer.model.catalog import link_rate_gbps

DESIGNS = {
    "server": lambda: GENERATORS["server"].build(),
    "leaf-spine 2:1": lambda: GENERATORS["leaf-spine"].build(leaves=4, hosts_per_leaf=8, gpus_per_node=4,
                                                             oversubscription=2.0),
    "leaf-spine 1:1": lambda: GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8, gpus_per_node=4),
    "rail-optimized": lambda: GENERATORS["rail-optimized"].build(sus=1),
}


def _flow_graph(g: nx.MultiGraph) -> nx.DiGraph:
    """Parallel links summed; each direction of a link carries its line rate (bytes/s per direction)."""
    flow = nx.DiGraph()
    for a, b, data in g.edges(data=True):
        if not data["used"]:
            continue
        for u, v in ((a, b), (b, a)):
            cap = flow.get_edge_data(u, v, {"capacity": 0.0})["capacity"]
            flow.add_edge(u, v, capacity=cap + data["line_bytes_per_s"])
    return flow


def _halves_flow(g: nx.MultiGraph, left: set[str], right: set[str]) -> float:
    flow = _flow_graph(g)
    for n in left:
        flow.add_edge("_source", n, capacity=float("inf"))
    for n in right:
        flow.add_edge(n, "_sink", capacity=float("inf"))
    return nx.maximum_flow_value(flow, "_source", "_sink")


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_graph_has_every_device_and_link(name):
    design = DESIGNS[name]()
    g = to_networkx(design)
    assert g.number_of_nodes() == design.device_count()
    assert g.number_of_edges() == design.link_count()
    for link in design.iter_links():
        data = g.edges[link.a_device, link.b_device, link.id]
        assert data["line_rate_gbps"] == link_rate_gbps(design, link)
        assert data["medium"] == link.medium and data["length_m"] == link.length_m


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_max_flow_between_the_halves_of_the_best_cut_is_the_bisection_upper_bound(name):
    """The cut the analyzer reports is a minimum cut between the halves it separates (max-flow min-cut),
    and the max-flow between those halves lies within the certified bounds."""
    design = DESIGNS[name]()
    rep = analyze(design, sizes=[1 << 20])
    b = rep.bisection
    g = to_networkx(design)
    cut = set(b.cut_links)
    cut_value = sum(d["line_bytes_per_s"] for _, _, k, d in g.edges(keys=True, data=True) if k in cut)
    assert cut_value == pytest.approx(b.upper_bytes_per_s, rel=1e-9)
    rest = nx.MultiGraph(g)
    rest.remove_edges_from([(a, bb, k) for a, bb, k in g.edges(keys=True) if k in cut])
    gpus = {n for n, kind in g.nodes(data="kind") if kind == "gpu"}
    # the sides of the cut: every cut link joins a component of one side to one of the other
    comps = list(nx.connected_components(rest))
    comp_of = {n: i for i, c in enumerate(comps) for n in c}
    crossing = nx.Graph()
    crossing.add_nodes_from(range(len(comps)))
    crossing.add_edges_from((comp_of[a], comp_of[bb]) for a, bb, k in g.edges(keys=True) if k in cut)
    assert nx.is_bipartite(crossing)
    colour = nx.bipartite.color(crossing)
    left = {n for n in gpus if colour[comp_of[n]] == 0}
    right = gpus - left
    assert abs(len(left) - len(right)) <= 1
    flow = _halves_flow(g, left, right)
    assert flow == pytest.approx(b.upper_bytes_per_s, rel=1e-9)
    assert flow >= b.lower_bytes_per_s * (1 - 1e-9)


@pytest.mark.parametrize("name", ["leaf-spine 1:1", "leaf-spine 2:1", "rail-optimized"])
def test_max_flow_between_any_halves_is_at_least_the_lower_bound(name):
    """The lower bound is certified: no split of the GPUs into halves carries less (sampled splits)."""
    import random

    design = DESIGNS[name]()
    b = analyze(design, sizes=[1 << 20]).bisection
    g = to_networkx(design)
    gpus = sorted(n for n, kind in g.nodes(data="kind") if kind == "gpu")
    rng = random.Random(7)
    splits = [gpus[: len(gpus) // 2]] + [rng.sample(gpus, len(gpus) // 2) for _ in range(3)]
    for left in splits:
        flow = _halves_flow(g, set(left), set(gpus) - set(left))
        assert flow >= b.lower_bytes_per_s * (1 - 1e-9)


def test_oversubscription_halves_the_bisection_as_networkx_sees_it():
    full = DESIGNS["leaf-spine 1:1"]()
    g = to_networkx(full)
    leaves = sorted(n for n, t in g.nodes(data="tier") if t == "leaf")
    spines = {n for n, t in g.nodes(data="tier") if t == "spine"}
    up = sum(d["line_bytes_per_s"] for a, b, d in g.edges(data=True) if {a, b} & spines and {a, b} & {leaves[0]})
    down = sum(d["line_bytes_per_s"] for a, b, d in g.edges(data=True)
               if leaves[0] in (a, b) and not ({a, b} & spines))
    assert up == pytest.approx(down)  # 1:1: as much up as down
    b = analyze(full, sizes=[1 << 20]).bisection
    assert b.exact and b.lower_bytes_per_s == pytest.approx(up)  # two leaves: the cut is one leaf's uplinks


def test_tiers_and_protocols():
    g = to_networkx(DESIGNS["rail-optimized"]())
    tiers = {d["tier"] for _, _, d in g.edges(data=True)}
    assert {"nvlink", "pcie", "access", "leaf-spine"} <= tiers
    protos = {d["protocol"] for _, _, d in g.edges(data=True)}
    assert protos <= {"nvlink", "pcie", "infiniband", "ethernet"}
    for _, _, d in g.edges(data=True):
        assert d["effective_bytes_per_s"] <= d["line_bytes_per_s"]
    assert g.graph["format"] == "topo-designer-graph"
