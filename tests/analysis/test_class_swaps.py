"""Twin classes that swaps of whole classes map onto each other are routed once per orbit: the same
loads, shares and hose bound as routing every destination."""

from __future__ import annotations

import numpy as np
import pytest
from analysis_helpers import fat_tree_hosts

from designer.analysis import analyze
from designer.analysis.fabric.context import build_context
from designer.analysis.fabric.swaps import Orbits
from designer.generators import GENERATORS


def _fabrics():
    return {
        "rail-optimized 3-tier": GENERATORS["rail-optimized"].build(sus=8, tiers=3, sus_per_pod=2),
        "fat tree k=8": GENERATORS["fat-tree"].build(k=8),
        "clos3": GENERATORS["clos3"].build(pods=4, leaves_per_pod=2, hosts_per_leaf=8),
        "fat tree k=4": fat_tree_hosts(4),
    }


def _uniform(ctx):
    f = ctx.fabric
    cores, inv = np.unique(f.att_core, return_inverse=True)
    return cores, np.bincount(inv, weights=f.att_w)


def _orbits(design):
    """The design's router, its cores and their weights, and the orbits of its twin classes."""
    ctx = build_context(design)
    r = ctx.router
    cores, w = _uniform(ctx)
    classes = r.twin_classes(cores)
    wn = np.zeros(r.n)
    wn[cores] = w
    return r, cores, w, classes, r.class_orbits(cores, classes, wn)


def _per_destination(r, cores, w, eta):
    dem = np.zeros((len(cores), r.n))
    dem[:, cores] = np.outer(w, w)
    dem[np.arange(len(cores)), cores] = 0
    load, lost, eta0, omega = r.route(cores, dem, dest_weight=w)
    row, qmax = r.forward_bound(cores, w, eta if eta is not None else eta0)
    qmax[cores] = 1.0
    return load, lost, eta0, omega, row, qmax


@pytest.mark.parametrize("name", list(_fabrics()))
def test_one_class_per_orbit_routes_as_every_destination(name):
    r, cores, w, classes, orbits = _orbits(_fabrics()[name])
    assert not orbits.trivial and orbits.times.sum() == len(classes)  # the shortcut is taken
    load, lost, eta, omega = r.uniform_classes(cores, w)
    row, qmax = r.forward_bound_classes(cores, w, eta)
    load0, lost0, eta0, omega0, row0, qmax0 = _per_destination(r, cores, w, eta)
    assert lost == lost0 == 0
    np.testing.assert_allclose(load, load0, rtol=1e-9, atol=1e-9 * load0.max())
    np.testing.assert_allclose(eta, eta0, rtol=1e-12)
    np.testing.assert_allclose(omega, omega0, rtol=1e-9, atol=1e-9 * omega0.max())
    np.testing.assert_allclose(row, row0, rtol=1e-9, atol=1e-9 * row0.max())
    np.testing.assert_allclose(qmax, qmax0, rtol=1e-12)


def test_a_broken_symmetry_keeps_its_classes_apart_and_the_answer_right():
    d = _fabrics()["rail-optimized 3-tier"]
    # one spine-to-core link of the first pod gone: that pod is like no other
    gone = next(lk.id for lk in d.iter_links() if "spine" in lk.a_device and "core" in lk.b_device)
    d.remove_links([gone])
    r, cores, w, classes, orbits = _orbits(d)
    # the broken pod alone, the others still one orbit (found by trying another class first)
    assert sorted(orbits.times[orbits.times > 0].tolist()) == [1, len(classes) - 1]
    load, lost, eta, omega = r.uniform_classes(cores, w)
    load0, lost0, eta0, omega0, row0, qmax0 = _per_destination(r, cores, w, eta)
    np.testing.assert_allclose(load, load0, rtol=1e-9, atol=1e-9 * load0.max())
    np.testing.assert_allclose(eta, eta0, rtol=1e-12)
    row, qmax = r.forward_bound_classes(cores, w, eta)
    np.testing.assert_allclose(row, row0, rtol=1e-9, atol=1e-9 * row0.max())


def test_weights_that_differ_between_classes_keep_them_apart():
    r, cores, w, classes, _ = _orbits(_fabrics()["clos3"])
    wn = np.zeros(r.n)
    wn[cores] = w
    wn[classes[1]] *= 2.0  # the second class's GPUs send twice as much
    orbits = r.class_orbits(cores, classes, wn)
    assert orbits.times[1] == 1  # routed on its own
    w2 = wn[cores]
    load, *_ = r.uniform_classes(cores, w2)
    load0, *_ = _per_destination(r, cores, w2, None)
    np.testing.assert_allclose(load, load0, rtol=1e-9, atol=1e-9 * load0.max())


def test_orbit_sums_spread_over_the_arcs_a_group_exchanges():
    orbits = Orbits(np.array([2, 0]), np.array([0, 0, 1]), np.array([0, 1, 0, 1]))
    assert orbits.mean_over_arcs(np.array([1.0, 2.0, 3.0, 6.0])).tolist() == [2.0, 4.0, 2.0, 4.0]
    assert orbits.max_over_arcs(np.array([1.0, 2.0, 3.0, 6.0])).tolist() == [3.0, 6.0, 3.0, 6.0]
    assert orbits.max_over_nodes(np.array([1.0, 5.0, 2.0])).tolist() == [5.0, 5.0, 2.0]
    assert not orbits.trivial


def test_the_report_of_a_symmetric_fabric_is_what_routing_every_class_gives(monkeypatch):
    d = GENERATORS["rail-optimized"].build(sus=8, tiers=3, sus_per_pod=2)
    fast = analyze(d)
    from designer.analysis.fabric import swaps

    monkeypatch.setattr(swaps.ClassSwaps, "_class_swaps", lambda self, cores, classes: [])
    plain = analyze(d)
    assert fast.bisection.lower_bytes_per_s == pytest.approx(plain.bisection.lower_bytes_per_s, rel=1e-9)
    assert fast.bisection.upper_bytes_per_s == pytest.approx(plain.bisection.upper_bytes_per_s, rel=1e-9)
    assert [c.time_s for c in fast.collectives] == pytest.approx([c.time_s for c in plain.collectives], rel=1e-9)
