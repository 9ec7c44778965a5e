"""k-ary fat-tree (Al-Fares et al.): k^3/4 hosts, 5k^2/4 switches, textbook wiring."""

from __future__ import annotations

import pytest
from generator_checks import assert_sound, kinds, network_links_between

from designer.generators import GeneratorError, build_fat_tree


def test_fat_tree_k8_has_128_hosts_and_80_switches():
    d = build_fat_tree(k=8)
    c = kinds(d)
    assert c["gpu"] == c["nic"] == 128
    assert c["edge"] + c["aggregation"] + c["core"] == 80
    assert (c["edge"], c["aggregation"], c["core"]) == (32, 32, 16)
    assert_sound(d)


@pytest.mark.parametrize(("k", "gpus_per_node"), [(2, 1), (4, 1), (6, 1), (8, 8), (12, 4), (16, 1)])
def test_fat_tree_has_k3_over_4_hosts_and_5k2_over_4_switches(k, gpus_per_node):
    d = build_fat_tree(k=k, gpus_per_node=gpus_per_node)
    c = kinds(d)
    assert c["gpu"] == k ** 3 // 4
    assert sum(1 for x in d.iter_devices() if x.kind == "switch") == 5 * k * k // 4
    half = k // 2
    assert network_links_between(d, "node", "edge") == k ** 3 // 4
    assert network_links_between(d, "edge", "aggregation") == k * half * half
    assert network_links_between(d, "aggregation", "core") == k * half * half
    if k <= 8:
        assert_sound(d)


def test_fat_tree_wiring_follows_al_fares():
    k, half = 8, 4
    d = build_fat_tree(k=k)
    for p in range(1, k + 1):
        for e in range(1, half + 1):
            peers = {link.other(f"pod{p}-edge{e}") for link in d.links_of(f"pod{p}-edge{e}")}
            assert {f"pod{p}-agg{a}" for a in range(1, half + 1)} <= peers
        for a in range(1, half + 1):
            cores = {link.other(f"pod{p}-agg{a}") for link in d.links_of(f"pod{p}-agg{a}")} - {
                f"pod{p}-edge{e}" for e in range(1, half + 1)}
            assert cores == {f"core{c}" for c in range((a - 1) * half + 1, a * half + 1)}
    # Every switch uses exactly k ports.
    for dev in d.iter_devices():
        if dev.kind == "switch":
            assert len(d.links_of(dev.id)) == k


def test_fat_tree_refuses_odd_k():
    with pytest.raises(GeneratorError, match="fat-tree: k must be even and at least 2, got 7"):
        build_fat_tree(k=7)


def test_fat_tree_refuses_k_beyond_the_switch_radix():
    with pytest.raises(GeneratorError, match="fat-tree: k=66 needs 66-port switches but qm9700 has 64"):
        build_fat_tree(k=66)


def test_fat_tree_refuses_servers_that_do_not_fill_a_pod():
    with pytest.raises(GeneratorError, match=r"9 hosts per pod .k=6. is not a multiple of .* \(--gpus-per-node 8\)"):
        build_fat_tree(k=6, gpus_per_node=8)


def test_fat_tree_tiers_are_rows_core_on_top():
    d = build_fat_tree(k=4)
    ys = {t: {x.y for x in d.iter_devices() if x.tier == t} for t in ("core", "aggregation", "edge")}
    assert max(ys["core"]) < min(ys["aggregation"])
    assert max(ys["aggregation"]) < min(ys["edge"])
    assert max(ys["edge"]) < min(x.y for x in d.iter_devices() if x.kind in ("gpu", "nic"))
