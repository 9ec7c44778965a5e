"""Torus / mesh, hypercube and dragonfly: counts, neighbours, port budgets, refusals."""

from __future__ import annotations

import math

import pytest
from generator_checks import assert_sound, kinds, network_links_between

from designer.generators import GeneratorError, build_dragonfly, build_hypercube, build_torus


@pytest.mark.parametrize("dims", [(4, 4), (4, 4, 8), (3, 5), (8,), (4, 4, 4, 2)])
def test_torus_has_one_node_per_coordinate_and_n_links_each(dims):
    d = build_torus(dims=dims)
    nodes = math.prod(dims)
    assert d.device_count() == nodes
    # Every ring of size k > 2 has k links; a ring of size 2 has 1 (no duplicate link).
    expected = sum(nodes // k * (k if k > 2 else 1) for k in dims)
    assert d.link_count() == expected
    assert_sound(d)


def test_torus_4x4x8_neighbours_wrap_around():
    d = build_torus(dims=(4, 4, 8))
    assert d.device_count() == 128 and d.link_count() == 384
    assert d.link_at("chip-3-0-0", "t1").b == "chip-0-0-0:t2"
    assert d.link_at("chip-0-0-7", "t5").b == "chip-0-0-0:t6"
    assert all(len(d.links_of(x.id)) == 6 for x in d.iter_devices())
    assert d.device("chip-1-2-3").properties["coords"] == [1, 2, 3]


def test_mesh_has_no_wrap_around():
    d = build_torus(dims=(4, 4, 4), wrap=False)
    assert d.link_count() == 3 * 3 * 16
    assert d.link_at("chip-3-0-0", "t1") is None


def test_torus_racks_use_copper_inside_and_longer_cables_between():
    d = build_torus(dims=(4, 4, 8))
    racks = {x.group for x in d.iter_devices()}
    assert racks == {"rack-0-0-0", "rack-0-0-1"}
    for link in d.iter_links():
        same = d.device(link.a_device).group == d.device(link.b_device).group
        if same:
            assert link.medium in ("passive_copper", "active_copper")


def test_torus_refuses_a_single_node_and_zero_sizes():
    with pytest.raises(GeneratorError, match="give 1 accelerator; need at least 2"):
        build_torus(dims=(1, 1))
    with pytest.raises(GeneratorError, match=r"torus: dims \(each size\) must be >= 1, got 0"):
        build_torus(dims=(4, 0))


@pytest.mark.parametrize("n", [1, 2, 5, 7])
def test_hypercube_has_2n_nodes_and_n_2n_minus_1_links(n):
    d = build_hypercube(n=n)
    assert d.device_count() == 2 ** n
    assert d.link_count() == n * 2 ** (n - 1)
    for link in d.iter_links():
        a = int(link.a_device[4:], 2)
        b = int(link.b_device[4:], 2)
        assert bin(a ^ b).count("1") == 1
    assert_sound(d)


def test_hypercube_refuses_zero_dimensions():
    with pytest.raises(GeneratorError, match="hypercube: n must be >= 1, got 0"):
        build_hypercube(n=0)


def test_balanced_dragonfly_has_one_global_link_per_group_pair():
    p, a, h = 4, 8, 4
    d = build_dragonfly(p=p, a=a, h=h)
    g = a * h + 1
    assert kinds(d)["router"] == g * a
    assert kinds(d)["gpu"] == g * a * p
    assert network_links_between(d, "node", "router") == g * a * p
    router_links = network_links_between(d, "router", "router")
    assert router_links == g * a * (a - 1) // 2 + g * (g - 1) // 2
    pairs = set()
    for link in d.iter_links():
        ga, gb = link.a_device.split("-")[0], link.b_device.split("-")[0]
        if ga != gb and "router" in link.a_device and "router" in link.b_device:
            pairs.add(frozenset((ga, gb)))
    assert len(pairs) == g * (g - 1) // 2
    for dev in d.iter_devices():
        if dev.tier == "router":
            assert len(d.links_of(dev.id)) == p + (a - 1) + h
    assert_sound(d)


def test_small_dragonfly_spreads_extra_global_links():
    d = build_dragonfly(p=2, a=4, h=2, g=5, gpus_per_node=2)
    assert network_links_between(d, "router", "router") == 5 * 6 + 10 * 2
    assert_sound(d)


def test_dragonfly_refuses_too_many_groups_and_too_few_ports():
    with pytest.raises(GeneratorError, match="g=40 groups need 39 global links per group but a\\*h = 32"):
        build_dragonfly(g=40)
    with pytest.raises(GeneratorError, match="each router needs 40 terminal \\+ 7 local \\+ 20 global ports"):
        build_dragonfly(p=40, h=20, gpus_per_node=8)
