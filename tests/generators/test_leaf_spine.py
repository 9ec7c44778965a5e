"""Leaf-spine and 3-tier Clos: counts, oversubscription, equal links per spine, port budgets."""

from __future__ import annotations

import pytest
from generator_checks import assert_sound, kinds, network_links_between

from designer.generators import GeneratorError, build_clos3, build_leaf_spine


def test_leaf_spine_16_leaves_8_spines_32_hosts_is_non_blocking():
    d = build_leaf_spine(leaves=16, spines=8, hosts_per_leaf=32)
    c = kinds(d)
    assert (c["leaf"], c["spine"], c["gpu"], c["nic"]) == (16, 8, 512, 512)
    assert network_links_between(d, "node", "leaf") == 512
    assert network_links_between(d, "leaf", "spine") == 512
    for s in range(1, 9):
        peers = [link.other(f"spine{s}") for link in d.links_of(f"spine{s}")]
        assert sorted(set(peers)) == sorted(f"leaf{i}" for i in range(1, 17))
        assert all(peers.count(f"leaf{i}") == 4 for i in range(1, 17))
    assert_sound(d)


def test_leaf_spine_oversubscription_2_to_1_halves_the_uplinks():
    d = build_leaf_spine(leaves=16, hosts_per_leaf=32, oversubscription=2.0)
    assert network_links_between(d, "leaf", "spine") == 16 * 16
    assert kinds(d)["spine"] == 4
    assert d.properties["oversubscription"] == 2.0
    assert_sound(d)


def test_leaf_spine_servers_sit_under_their_top_of_rack_leaf():
    d = build_leaf_spine(leaves=2, hosts_per_leaf=16)
    for link in d.links_of("leaf1"):
        other = d.device(link.other("leaf1"))
        if other.kind == "nic":
            assert other.id.startswith(("node1-", "node2-"))
            assert link.medium == "passive_copper"


def test_leaf_spine_refuses_more_links_than_ports():
    message = "leaf-spine: each leaf needs 40 host \\+ 40 uplink ports but qm9700 has 64"
    with pytest.raises(GeneratorError, match=message):
        build_leaf_spine(hosts_per_leaf=40)


def test_leaf_spine_refuses_uneven_spines_and_overfull_spines():
    with pytest.raises(GeneratorError, match="32 uplinks per leaf cannot be spread evenly over 5 spines"):
        build_leaf_spine(spines=5)
    with pytest.raises(GeneratorError, match="each spine needs 80 x 1 leaf ports but qm9700 has 64"):
        build_leaf_spine(leaves=80, spines=32)
    with pytest.raises(GeneratorError, match="80 leaves need one port each on every spine but qm9700 has 64"):
        build_leaf_spine(leaves=80)


def test_leaf_spine_refuses_partial_servers_and_fractional_uplinks():
    with pytest.raises(GeneratorError, match=r"\(--hosts-per-leaf 12\) is not a multiple of .* \(--gpus-per-node 8\)"):
        build_leaf_spine(hosts_per_leaf=12)
    with pytest.raises(GeneratorError, match="uplinks per leaf .* must be a whole number >= 1, got 10.6667"):
        build_leaf_spine(oversubscription=3.0)


def test_leaf_spine_refuses_zero_leaves():
    with pytest.raises(GeneratorError, match="leaf-spine: leaves must be >= 1, got 0"):
        build_leaf_spine(leaves=0)


def test_clos3_defaults_have_pods_spines_and_core_planes():
    d = build_clos3()
    c = kinds(d)
    assert (c["leaf"], c["spine"], c["core"], c["gpu"]) == (32, 32, 16, 1024)
    assert network_links_between(d, "leaf", "spine") == 32 * 32
    assert network_links_between(d, "spine", "core") == 32 * 32
    # Spine S of every pod reaches only the cores of plane S (2 cores per plane).
    cores = {link.other("pod3-spine2") for link in d.links_of("pod3-spine2")} - {f"pod3-leaf{i}" for i in range(1, 9)}
    assert cores == {"core3", "core4"}
    assert_sound(d)


def test_clos3_oversubscribed_at_both_tiers():
    d = build_clos3(oversubscription=2.0, spine_oversubscription=2.0)
    assert network_links_between(d, "leaf", "spine") == 32 * 16
    assert network_links_between(d, "spine", "core") == 32 * 16 // 2
    assert_sound(d)


def test_clos3_refuses_too_many_pods_for_the_core():
    with pytest.raises(GeneratorError, match="clos3: 65 pods need one port each on every core but qm9700 has 64"):
        build_clos3(pods=65, leaves_per_pod=1, hosts_per_leaf=8)
