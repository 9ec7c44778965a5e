"""Bisection bounds that did not meet: split servers, meshes, odd tori, dragonflies; the notes that
name why and which side is likely the value; every new certificate checked against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from designer.analysis.bisection.bounds import bisection_bounds
from designer.analysis.fabric.context import build_context
from designer.generators import GENERATORS

GB = 400.0 / 8  # GB/s per 400G link, per direction
H100_NVLINK = 450.0  # GB/s per GPU, per direction


def bounds(design):
    b = bisection_bounds(build_context(design))
    return b.lower_bytes_per_s / 1e9, b.upper_bytes_per_s / 1e9, b


def brute_force_direct(design) -> float:
    """Minimum bisection (GB/s) of a design of GPUs joined only by direct links: every balanced split."""
    gpus = [d.id for d in design.iter_devices()]
    rate = {}
    for lk in design.iter_links():
        if lk.failed:
            continue
        port = design.device(lk.a_device).port(lk.a_port).speed_gbps
        key = (lk.a_device, lk.b_device)
        rate[key] = rate.get(key, 0.0) + port / 8
    n = len(gpus)
    best = np.inf
    for side in itertools.combinations(gpus, n // 2):
        a = set(side)
        best = min(best, sum(r for (x, y), r in rate.items() if (x in a) != (y in a)))
    return best


@pytest.mark.parametrize(("kind", "params", "expected"), [
    # 3 servers of 8 H100: 12 GPUs a side, one server split 4 / 4: 12 NICs + 4 GPUs' NVLink
    ("leaf-spine", {"leaves": 3, "hosts_per_leaf": 8}, 12 * GB + 4 * H100_NVLINK),
    ("rail-optimized", {"sus": 1, "nodes_per_su": 3}, 12 * GB + 4 * H100_NVLINK),
    ("rail-optimized", {"sus": 1, "nodes_per_su": 5}, 20 * GB + 4 * H100_NVLINK),
    # 2 SUs with a UFM appliance: 63 servers, 504 GPUs
    ("rail-optimized", {"sus": 2, "nodes_per_su": 32, "ufm": True}, 252 * GB + 4 * H100_NVLINK),
])
def test_odd_server_counts_meet_with_the_split_server_bound(kind, params, expected):
    lo, hi, b = bounds(GENERATORS[kind].build(**params))
    assert b.exact and lo == pytest.approx(expected) and hi == pytest.approx(expected)
    assert b.lower_method.startswith("split servers")
    assert not b.notes


@pytest.mark.parametrize(("dims", "links"), [((4, 4), 4), ((3, 4), 3), ((2, 3, 4), 6), ((4, 4, 4), 16), ((6, 6), 6)])
def test_meshes_meet_their_closed_form(dims, links):
    lo, hi, b = bounds(GENERATORS["torus"].build(dims=dims, wrap=False))
    assert b.exact and lo == pytest.approx(links * GB) and hi == pytest.approx(links * GB)
    assert b.lower_method.startswith("dimension-order routing")


@pytest.mark.parametrize("dims", [(4, 4), (4, 4, 4), (6, 4)])
def test_even_tori_stay_exact(dims):
    lo, hi, b = bounds(GENERATORS["torus"].build(dims=dims))
    assert b.exact and lo == pytest.approx(2 * np.prod(dims) / max(dims) * GB)


@pytest.mark.parametrize(("dims", "wrap", "fail"), [
    ((3, 3), True, None), ((3, 3), False, None), ((2, 5), True, None), ((2, 5), False, None), ((5, 2), True, 3),
    ((3, 3), True, 0), ((3, 3), False, 5), ((2, 2, 2), True, None), ((10,), False, 4), ((3, 3), True, 7),
])
def test_grid_certificates_are_sound_against_brute_force(dims, wrap, fail):
    d = GENERATORS["torus"].build(dims=dims, wrap=wrap)
    if fail is not None:
        d.set_link_field(d.links[fail].id, "failed", True)
    lo, hi, b = bounds(d)
    truth = brute_force_direct(d)
    assert lo <= truth * (1 + 1e-9) and truth <= hi * (1 + 1e-9)
    assert hi == pytest.approx(truth)  # at most 10 GPUs: every split is tried
    if fail is not None:
        assert not b.lower_method.startswith("dimension-order")  # a broken grid proves nothing


def test_an_odd_torus_says_why_and_which_side_is_likely():
    lo, hi, b = bounds(GENERATORS["torus"].build(dims=(5, 5)))
    assert not b.exact
    assert (lo, hi) == (pytest.approx(11 * GB), pytest.approx(12 * GB))  # 10.4 links rounded up to 11
    assert "rounded up to whole links" in b.lower_method
    note = next(n for n in b.notes if n.startswith("the bisection bounds do not meet"))
    assert "odd side (5)" in note and "upper bound) is likely the value" in note


def test_a_dragonfly_says_why():
    lo, hi, b = bounds(GENERATORS["dragonfly"].build(p=2, a=4, h=2))
    assert not b.exact and lo < hi
    assert any("dragonfly" in n and "global links" in n for n in b.notes)


def test_exact_bounds_carry_no_gap_note():
    _, _, b = bounds(GENERATORS["fat-tree"].build(k=4))
    assert b.exact and not any("do not meet" in n for n in b.notes)
