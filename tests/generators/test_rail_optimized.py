"""Rail-optimized (DGX SuperPOD) fabric: published SU counts, rail wiring, 3 tiers at scale."""

from __future__ import annotations

import pytest
from generator_checks import assert_sound, kinds, network_links_between

from designer.generators import GeneratorError, build_rail_optimized

# NVIDIA DGX SuperPOD H100 reference architecture, Table 4 (calibration record superpod-h100-4su-fabric):
# SUs -> nodes, GPUs, leaf, spine, node(+UFM)-to-leaf cables, leaf-to-spine cables.
SUPERPOD_TABLE_4 = [
    (1, 31, 248, 8, 4, 252, 256),
    (2, 63, 504, 16, 8, 508, 512),
    (3, 95, 760, 24, 16, 764, 768),
    (4, 127, 1016, 32, 16, 1020, 1024),
]


@pytest.mark.parametrize(("sus", "nodes", "gpus", "leaves", "spines", "node_leaf", "leaf_spine"), SUPERPOD_TABLE_4)
def test_superpod_su_counts_match_the_published_table(sus, nodes, gpus, leaves, spines, node_leaf, leaf_spine):
    d = build_rail_optimized(sus=sus, ufm=True)
    c = kinds(d)
    assert c["nvswitch"] == nodes
    assert c["gpu"] == c["nic"] == gpus
    assert (c["leaf"], c["spine"], c["core"]) == (leaves, spines, 0)
    assert network_links_between(d, "node", "leaf") == node_leaf
    assert network_links_between(d, "leaf", "spine") == leaf_spine
    assert all(x.model == "qm9700" for x in d.iter_devices() if x.kind == "switch")
    assert_sound(d)


def test_rail_i_of_every_node_goes_to_leaf_i_of_its_su():
    d = build_rail_optimized(sus=2)
    for dev in d.iter_devices():
        if dev.kind == "nic":
            (link,) = [lk for lk in d.links_of(dev.id) if lk.medium not in ("pcie",)]
            leaf = d.device(link.other(dev.id))
            assert leaf.tier == "leaf"
            assert leaf.properties == {"su": dev.properties["su"], "rail": dev.properties["rail"]}
            assert leaf.id == f"su{dev.properties['su']}-leaf{dev.properties['rail']}"


def test_names_and_groups_are_readable():
    d = build_rail_optimized(sus=2)
    assert d.device("su2-node17-gpu3").properties == {"su": 2, "rail": 3}
    assert d.device("su2-node17-nic3").group == "su2-node17"
    assert d.device("su2-node17-nvsw").kind == "nvswitch"
    assert d.has_link("su2-node17-nic3--su2-leaf3")
    assert d.has_link("su2-node17-gpu3--su2-node17-nvsw")
    assert d.device("spine8").tier == "spine"
    server = d.group("su2-node17")
    assert server.kind == "server"
    assert d.group(server.parent).kind == "rack"
    assert d.group(d.group(server.parent).parent).id == "su2"


@pytest.mark.slow
def test_16k_gpus_need_three_tiers_512_leaf_512_spine_256_core(built_samples):
    d = built_samples["rail-optimized-16k-3tier.json"]  # build_rail_optimized(sus=64), with a title
    assert d.properties["sus"] == 64
    c = kinds(d)
    assert (c["gpu"], c["leaf"], c["spine"], c["core"]) == (16384, 512, 512, 256)
    assert d.properties["tiers"] == 3
    assert network_links_between(d, "leaf", "spine") == 16384
    assert network_links_between(d, "spine", "core") == 16384
    # Non-blocking: every switch has as many links up as down.
    for sid in ("su5-leaf3", "pod2-spine7"):
        tiers = [d.device(link.other(sid)).tier for link in d.links_of(sid)]
        assert len(tiers) == 64 and tiers.count("") + tiers.count("leaf") == 32


def test_two_tiers_up_to_8_sus_then_three():
    assert build_rail_optimized(sus=8, nodes_per_su=2).properties["tiers"] == 2
    assert build_rail_optimized(sus=9, nodes_per_su=2).properties["tiers"] == 3


def test_oversubscribed_leaves_have_fewer_uplinks():
    d = build_rail_optimized(sus=2, oversubscription=2.0)
    assert network_links_between(d, "leaf", "spine") == 16 * 16
    assert_sound(d)


def test_three_tier_partial_last_pod_is_sound():
    d = build_rail_optimized(sus=5, nodes_per_su=4, tiers=3, sus_per_pod=2)
    assert kinds(d)["leaf"] == 40
    assert {x.properties.get("pod") for x in d.iter_devices() if x.tier == "spine"} == {1, 2, 3}
    assert_sound(d)


def test_rail_optimized_refuses_impossible_parameters():
    with pytest.raises(GeneratorError, match="each leaf needs 40 host \\+ 40 uplink ports but qm9700 has 64"):
        build_rail_optimized(nodes_per_su=40)
    with pytest.raises(GeneratorError, match=r"UFM appliance links \(--ufm-links N\) must be 1..8"):
        build_rail_optimized(ufm=True, ufm_links=9)
    with pytest.raises(GeneratorError, match=r"72 leaves need one port each on .* use switch tiers = 3 \(--tiers 3\)"):
        build_rail_optimized(sus=9, nodes_per_su=2, tiers=2)
    with pytest.raises(GeneratorError, match="rail-optimized: sus must be >= 1, got 0"):
        build_rail_optimized(sus=0)
    with pytest.raises(GeneratorError, match="tiers must be 2, 3 or 0"):
        build_rail_optimized(tiers=1)
    with pytest.raises(GeneratorError, match=r"ufm takes one server slot: .* \(--nodes-per-su 2\)"):
        build_rail_optimized(nodes_per_su=1, ufm=True)


def test_large_fabrics_lay_out_about_twice_as_wide_as_tall():
    for sus in (4, 16):
        d = build_rail_optimized(sus=sus)
        xs = [x.x for x in d.iter_devices()]
        ys = [x.y for x in d.iter_devices()]
        assert 1.2 <= (max(xs) - min(xs)) / (max(ys) - min(ys)) <= 3.5


def test_layout_has_tiers_as_rows_rails_in_order_and_racks_in_columns():
    d = build_rail_optimized(sus=2)
    y = {t: [x.y for x in d.iter_devices() if x.tier == t] for t in ("spine", "leaf")}
    assert max(y["spine"]) < min(y["leaf"])
    boxes = []
    for su in (1, 2):
        members = [x for x in d.iter_devices() if x.properties.get("su") == su]
        leaf_y = max(x.y for x in members if x.tier == "leaf")
        assert all(x.y > leaf_y for x in members if not x.tier)
        boxes.append((min(x.x for x in members), max(x.x for x in members),
                      min(x.y for x in members), max(x.y for x in members)))
    (ax0, ax1, ay0, ay1), (bx0, bx1, by0, by1) = boxes
    assert ax1 < bx0 or ay1 < by0, "the two SUs' areas overlap"
    for su in (1, 2):
        leaf_x = [d.device(f"su{su}-leaf{r}").x for r in range(1, 9)]
        assert leaf_x == sorted(leaf_x)
        nodes_x = [d.device(f"su{su}-node{m}-nic1").x for m in range(1, 33)]
        # The SU is a wide block: a few columns of whole racks (4 nodes each), not one tall stack.
        assert 2 <= len(set(nodes_x)) <= 8
        for rack in range(8):
            assert len({nodes_x[rack * 4 + i] for i in range(4)}) == 1
        assert min(leaf_x) <= min(nodes_x) and max(leaf_x) >= max(nodes_x)
    positions = [(x.x, x.y) for x in d.iter_devices()]
    assert len(positions) == len(set(positions))


def test_cables_follow_reach_copper_in_rack_optics_between():
    d = build_rail_optimized(sus=1, ufm=True)
    media = {link.medium for link in d.iter_links()}
    assert media <= {"nvlink", "pcie", "passive_copper", "active_copper", "optical"}
    for link in d.iter_links():
        if link.medium == "passive_copper":
            assert link.length_m <= 3.0
    forced = build_rail_optimized(sus=1, nodes_per_su=4, cable="dr4-400g-sm")
    assert {lk.cable for lk in forced.iter_links() if lk.medium not in ("nvlink", "pcie")} == {"dr4-400g-sm"}
    aoc = build_rail_optimized(sus=1, nodes_per_su=4, long_medium="aoc", copper_max_m=0.1)
    assert {lk.medium for lk in aoc.iter_links() if lk.medium not in ("nvlink", "pcie")} == {"aoc"}
