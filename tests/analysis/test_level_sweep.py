"""Deep graphs (meshes) push demand one BFS level at a time: the same loads as whole-DAG passes."""

from __future__ import annotations

import numpy as np
import pytest

import designer.analysis.fabric.ecmp as ecmp
from designer.analysis import analyze
from designer.analysis.fabric.context import build_context
from designer.generators import GENERATORS


@pytest.mark.parametrize("params", [{"dims": "7x5", "wrap": False}, {"dims": "9"}, {"dims": "3x4x5", "wrap": False}],
                         ids=str)
def test_level_by_level_push_equals_repeated_passes(monkeypatch, params):
    design = GENERATORS["torus"].build(**params)
    results = []
    for threshold in (10**9, 1):
        monkeypatch.setattr(ecmp, "LEVEL_SWEEP_MIN", threshold)
        r = build_context(design).router
        cores, w = np.arange(r.n), np.linspace(1.0, 2.0, r.n)
        demand = np.outer(w, w)
        np.fill_diagonal(demand, 0.0)
        load, lost, eta, omega = r.route(cores, demand, dest_weight=w)
        row, qmax = r.forward_bound(cores, w, eta)
        results.append((load, eta, omega, row, qmax, lost))
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_a_disconnected_part_keeps_its_demand_unrouted(monkeypatch):
    design = GENERATORS["torus"].build(dims="6x6", wrap=False)
    for link in [lk for lk in design.iter_links() if lk.a_device == "chip-2-0" or lk.b_device == "chip-2-0"]:
        design.set_link_field(link.id, "failed", True)
    out = []
    for threshold in (10**9, 1):
        monkeypatch.setattr(ecmp, "LEVEL_SWEEP_MIN", threshold)
        rep = analyze(design, sizes=[1 << 20])
        out.append((rep.bisection.lower_bytes_per_s, rep.bisection.upper_bytes_per_s))
    assert out[0] == out[1]


@pytest.mark.parametrize("name, params, failed", [
    ("rail-optimized", {"sus": 2, "ufm": False}, 0), ("rail-optimized", {"sus": 2, "ufm": False}, 3),
    ("dragonfly", {}, 2), ("torus", {"dims": "7x5", "wrap": False}, 2), ("fat-tree", {}, 1),
], ids=str)
@pytest.mark.parametrize("threshold", [10**9, 1], ids=["passes", "levels"])
def test_pair_fractions_are_the_push_of_a_unit_demand(monkeypatch, name, params, failed, threshold):
    """Per-pair fractions follow only the arcs of each pair's shortest paths: the very numbers (and
    the same sparse layout) that pushing a unit demand down the destination's whole DAG gives."""
    monkeypatch.setattr(ecmp, "LEVEL_SWEEP_MIN", threshold)
    design = GENERATORS[name].build(**params)
    network = [lk.id for lk in design.iter_links() if lk.medium not in ("nvlink", "pcie")]
    for lid in network[1::7][:failed]:
        design.set_link_field(lid, "failed", True)
    r = build_context(design).router
    rng = np.random.default_rng(7)
    s, t = rng.integers(0, r.n, 300), rng.integers(0, r.n, 300)
    s, t = s[s != t], t[s != t]
    frac, ok = r.pair_fractions(s, t)
    demand = np.zeros((len(s), r.n))
    demand[np.arange(len(s)), s] = 1.0
    _, rows, unrouted = r.push(r.distances(t), demand, rows=True)
    assert np.array_equal(ok, unrouted == 0)
    assert np.array_equal(frac.indptr, rows.indptr) and np.array_equal(frac.indices, rows.indices)
    assert np.array_equal(frac.data, rows.data)
    assert frac.nnz and ok.any()
