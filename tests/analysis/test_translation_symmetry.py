"""Tori and hypercubes are routed from one root: the same loads, shares and bounds as every root."""

from __future__ import annotations

import numpy as np
import pytest

from designer.analysis import analyze
from designer.analysis.fabric.context import build_context
from designer.generators import GENERATORS


def _contexts(design):
    """The same design's context twice: with its port labels, and with the symmetry switched off."""
    sym = build_context(design)
    plain = build_context(design)
    plain.router.arc_labels = None
    plain.router.arc_label_source = None
    plain.router._cayley = None
    return sym, plain


def _assert_same_uniform_routing_and_bound(r, plain, weight: float) -> None:
    """Router ``r`` (with its shortcuts) gives the uniform loads, shares and hose forward bound of
    the plain per-destination push ``plain``, every core node weighing ``weight``."""
    n = r.n
    cores, w = np.arange(n), np.full(n, weight)
    load, lost, eta, omega = r.uniform_classes(cores, w)
    demand = np.outer(w, w)
    np.fill_diagonal(demand, 0.0)
    load0, lost0, eta0, omega0 = plain.route(cores, demand, dest_weight=w)
    assert lost == lost0 == 0.0
    np.testing.assert_allclose(load, load0, rtol=1e-9)
    np.testing.assert_allclose(eta, eta0, rtol=1e-12)
    np.testing.assert_allclose(omega, omega0, rtol=1e-9)
    row, qmax = r.forward_bound_classes(cores, w, eta)
    row0, qmax0 = plain.forward_bound(cores, w, eta0)
    qmax0[cores] = 1.0
    np.testing.assert_allclose(row, row0, rtol=1e-9)
    np.testing.assert_allclose(qmax, qmax0, rtol=1e-12)


SYMMETRIC = [
    ("torus", {"dims": "5x5x5"}),
    ("torus", {"dims": "4x6"}),  # rings of 4: opposite nodes are twins
    ("torus", {"dims": "3x3x3x3"}),
    ("hypercube", {"n": 7}),
]


@pytest.mark.parametrize(("kind", "params"), SYMMETRIC, ids=lambda v: str(v))
def test_symmetric_uniform_routing_equals_the_per_destination_push(kind, params):
    sym, plain = _contexts(GENERATORS[kind].build(**params))
    r = sym.router
    assert r.translations() is not None
    assert plain.router.translations() is None
    _assert_same_uniform_routing_and_bound(r, plain.router, 2.0)


def test_switched_fabrics_are_turned_down_before_their_ports_are_read():
    # Leaves and spines differ in degree: the labels (one pass over the design's links) are never needed.
    ctx = build_context(GENERATORS["rail-optimized"].build(sus=2, nodes_per_su=4))
    assert ctx.router.translations() is None
    assert ctx.router.arc_labels is None


@pytest.mark.parametrize(("kind", "params"), [
    ("torus", {"dims": "6x6", "wrap": False}),  # a mesh: corners are not like the middle
    ("torus", {"dims": "2x4x4"}),  # a ring of 2 is one link, left by port 1 at one end and port 2 at the other
    ("leaf-spine", {"leaves": 4, "hosts_per_leaf": 8}),
    ("dragonfly", {}),
], ids=lambda v: str(v))
def test_fabrics_without_translation_symmetry_are_routed_per_destination(kind, params):
    ctx = build_context(GENERATORS[kind].build(**params))
    assert ctx.router.translations() is None


def test_a_failed_link_breaks_the_symmetry_and_the_bounds_follow_the_real_graph():
    design = GENERATORS["torus"].build(dims="5x5x5")
    link = next(iter(design.iter_links()))
    design.set_link_field(link.id, "failed", True)
    sym, plain = _contexts(design)
    assert sym.router.translations() is None
    a, b = analyze(design, sizes=[1 << 20]), analyze(design, sizes=[1 << 20], context=plain)
    assert a.bisection.lower_bytes_per_s == b.bisection.lower_bytes_per_s


def test_symmetric_tori_and_hypercubes_keep_their_closed_form_bisection():
    # 2 k^(n-1) b for a k-ary n-cube torus, N/2 b for a hypercube (b = 400 Gb/s = 50 GB/s).
    torus = analyze(GENERATORS["torus"].build(dims="8x8x8"), sizes=[1 << 20])
    assert torus.bisection.exact
    assert torus.bisection.lower_bytes_per_s == pytest.approx(2 * 8 ** 2 * 50e9)
    cube = analyze(GENERATORS["hypercube"].build(n=9), sizes=[1 << 20])
    assert cube.bisection.exact
    assert cube.bisection.lower_bytes_per_s == pytest.approx(2 ** 9 / 2 * 50e9)


@pytest.mark.parametrize(("kind", "params"), SYMMETRIC, ids=lambda v: str(v))
def test_translated_distances_and_flows_equal_the_breadth_first_ones(kind, params):
    sym, plain = _contexts(GENERATORS[kind].build(**params))
    r, p = sym.router, plain.router
    rng = np.random.default_rng(7)
    targets = rng.choice(r.n, size=min(r.n, 40), replace=False)
    rows = rng.integers(0, len(targets), size=500)
    nodes = rng.integers(0, r.n, size=500)
    np.testing.assert_array_equal(r._target_distances(targets)[rows, nodes], p.distances(targets)[rows, nodes])
    s, t = rng.integers(0, r.n, size=300), rng.integers(0, r.n, size=300)
    amount = rng.random(300)
    load, lost = r.route_pairs(s, t, amount)
    load0, lost0 = p.route_pairs(s, t, amount)
    assert lost == lost0
    np.testing.assert_allclose(load, load0, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(r.hops(s, t), p.hops(s, t))


def test_routing_towards_more_destinations_than_one_table_holds_goes_a_table_at_a_time(monkeypatch):
    import designer.analysis.fabric.twins as twins

    sym, plain = _contexts(GENERATORS["torus"].build(dims="5x5x5"))
    monkeypatch.setattr(twins, "TRANSLATED_ROWS_MAX", 10 * sym.router.n)  # 10 destinations a table
    rng = np.random.default_rng(3)
    s, t = rng.integers(0, 125, size=400), rng.integers(0, 125, size=400)
    amount = rng.random(400)
    assert sym.router._targets_per_table(125) == 10
    load, lost = sym.router.route_pairs(s, t, amount)
    load0, lost0 = plain.router.route_pairs(s, t, amount)
    np.testing.assert_allclose(load, load0, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(sym.router.hops(s, t), plain.router.hops(s, t))


def test_hypercube_distances_are_popcounts_of_group_elements(monkeypatch):
    import designer.analysis.fabric.twins as twins

    sym, plain = _contexts(GENERATORS["hypercube"].build(n=7))
    monkeypatch.setattr(twins, "TRANSLATED_ROWS_MAX", 10 * sym.router.n)  # no table is needed at all
    coord = sym.router.xor_coordinates()
    assert sorted(coord.tolist()) == list(range(128))
    assert sym.router._targets_per_table(128) == 128
    assert build_context(GENERATORS["torus"].build(dims="5x5x5")).router.xor_coordinates() is None
    rng = np.random.default_rng(4)
    s, t = rng.integers(0, 128, size=400), rng.integers(0, 128, size=400)
    amount = rng.random(400)
    np.testing.assert_array_equal(sym.router.hops(s, t), plain.router.hops(s, t))
    load, lost = sym.router.route_pairs(s, t, amount)
    load0, lost0 = plain.router.route_pairs(s, t, amount)
    np.testing.assert_allclose(load, load0, rtol=1e-9, atol=1e-12)
    assert lost == lost0 == 0.0


@pytest.mark.parametrize(("kind", "params"), [("torus", {"dims": "6x6", "wrap": False}), ("hypercube", {"n": 6})],
                         ids=lambda v: str(v))
def test_explicit_flows_in_small_growing_batches_route_as_the_per_destination_push(monkeypatch, kind, params):
    import designer.analysis.fabric.twins as twins

    monkeypatch.setattr(twins, "CHUNK_ELEMENTS", 40)  # a batch of one group first, then growing
    r = build_context(GENERATORS[kind].build(**params)).router
    rng = np.random.default_rng(5)
    s, t = rng.integers(0, r.n, size=300), rng.integers(0, r.n, size=300)
    w = rng.random(300)
    m = s != t
    load, lost = r.route_pairs(s[m], t[m], w[m])
    dest, inv = np.unique(t[m], return_inverse=True)
    demand = np.zeros((len(dest), r.n))
    np.add.at(demand, (inv, s[m]), w[m])
    load0, lost0 = r.route(dest, demand)
    np.testing.assert_allclose(load, load0, rtol=1e-9, atol=1e-12)
    assert lost == 0.0


MIRRORED = [
    ({"dims": "6x6", "wrap": False}, 4),
    ({"dims": "4x5x3", "wrap": False}, 8),  # odd sides: the middle layer is its own mirror image
    ({"dims": "7", "wrap": False}, 2),
]


@pytest.mark.parametrize(("params", "size"), MIRRORED, ids=lambda v: str(v))
def test_mirrored_meshes_route_one_destination_per_orbit_as_the_per_destination_push(params, size):
    design = GENERATORS["torus"].build(**params)
    r = build_context(design).router
    plain = build_context(design).router
    plain._mirrors = (None,)
    group = r.mirrors()
    assert group is not None and len(group[0]) == size
    assert plain.mirrors() is None
    _assert_same_uniform_routing_and_bound(r, plain, 2.0)


def test_a_failed_link_leaves_only_the_mirrors_that_keep_it_in_place():
    design = GENERATORS["torus"].build(dims="5x5", wrap=False)
    design.set_link_field("chip-0-2--chip-1-2", "failed", True)  # mirrored along y it stays, along x it moves
    r = build_context(design).router
    assert len(r.mirrors()[0]) == 2
    n = r.n
    cores, w = np.arange(n), np.ones(n)
    load, *_ = r.uniform_classes(cores, w)
    demand = np.ones((n, n))
    np.fill_diagonal(demand, 0.0)
    load0, _ = r.route(cores, demand)
    np.testing.assert_allclose(load, load0, rtol=1e-9)
    assert build_context(GENERATORS["torus"].build(dims="5x5x5")).router.mirrors() is None  # a torus: translations


@pytest.mark.parametrize(("kind", "params", "link", "size"), [
    ("torus", {"dims": "6x6x6"}, "chip-0-0-0--chip-1-0-0", 8),  # mirrors through the link, and across it
    ("torus", {"dims": "5x5"}, "chip-0-0--chip-1-0", 4),
    ("hypercube", {"n": 6}, "node000000--node000001", 2),  # the flip of the link's own bit
], ids=lambda v: str(v))
def test_a_torus_or_hypercube_with_a_failed_link_keeps_the_mirrors_through_it(kind, params, link, size):
    design = GENERATORS[kind].build(**params)
    design.set_link_field(link, "failed", True)
    r = build_context(design).router
    plain = build_context(design).router
    plain._mirrors = (None,)
    assert r.translations() is None and len(r.mirrors()[0]) == size
    _assert_same_uniform_routing_and_bound(r, plain, 1.5)
