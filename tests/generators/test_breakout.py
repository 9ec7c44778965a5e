"""Switch port breakout (an 800G port as 2 x 400G or 4 x 200G) and the higher-radix switches."""

from __future__ import annotations

from collections import Counter

import pytest
from generator_checks import assert_sound, kinds, network_links_between

from designer.analysis import analyze
from designer.analysis.bom.bill import bill_of_materials
from designer.analysis.common.cages import cage_of, mixed_cages
from designer.analysis.rules.check import check_design
from designer.generators import GENERATORS, GeneratorError, build_rail_optimized
from designer.model import Design, Device, Link, PortGroup
from designer.model.catalog import builtin_catalog


def test_catalog_lists_the_published_breakouts_and_the_144_port_quantum_x800():
    cat = builtin_catalog()
    assert cat.component("sn5600").breakouts == (2, 4)
    assert cat.component("tomahawk5-64x800").breakouts == (2, 4)
    assert cat.component("qm9700").breakouts == (2,)
    q = cat.component("q3400")
    assert (q.ports[0].count, q.ports[0].speed_gbps, q.specs["protocol"], q.specs["sharp"]) == (144, 800, "infiniband",
                                                                                               True)
    for comp in (cat.component("sn5600"), q):
        assert all(comp.sources.get(f) for f in ("ports", "power_w", "price_usd", "latency_ns"))
    assert cat.component("sn5600").sources["specs.breakout"]


def test_a_broken_out_leaf_has_twice_the_ports_at_half_the_speed_in_the_same_cages():
    d = build_rail_optimized(sus=2, switch="sn5600", breakout=2)
    (group,) = [g for g in d.device("su1-leaf1").ports if g.kind == "network"]
    assert (group.count, group.speed_gbps, group.lanes, group.per_cage) == (128, 400.0, 4, 2)
    assert d.device("spine1").ports == d.device("su1-leaf1").ports
    assert_sound(d)
    assert mixed_cages(d) == []
    # Every NIC link runs at 400G: the NIC's speed, no mismatch warning.
    rates = {link.cable for link in d.links_of("su1-leaf1")}
    assert all(builtin_catalog().cables[c].rate_gbps == 400 for c in rates)


def test_breakout_doubles_the_reach_of_one_spine_layer():
    # A 64-port spine reaches 64 leaves (8 SUs of 8 rails), split 2 ways 128 leaves (16 SUs).
    small = {"nodes_per_su": 2, "switch": "sn5600"}
    assert build_rail_optimized(sus=9, **small).properties["tiers"] == 3
    assert build_rail_optimized(sus=16, breakout=2, **small).properties["tiers"] == 2
    assert build_rail_optimized(sus=17, breakout=2, **small).properties["tiers"] == 3
    # The 144-port Quantum-X800 reaches 144 leaves = 18 SUs in two tiers.
    assert build_rail_optimized(sus=18, switch="q3400", **{"nodes_per_su": 2}).properties["tiers"] == 2
    assert build_rail_optimized(sus=19, switch="q3400", **{"nodes_per_su": 2}).properties["tiers"] == 3


@pytest.mark.parametrize("kind", ["leaf-spine", "clos3", "fat-tree", "rail-optimized", "nvl72", "dragonfly"])
def test_every_switched_generator_breaks_its_switch_ports_out(kind):
    params = {} if kind == "nvl72" else {"switch": "sn5600"}
    d = GENERATORS[kind].build(breakout=2, **params)
    switches = [x for x in d.iter_devices() if x.kind == "switch"]
    assert switches and all(x.ports[0].speed_gbps == 400 and x.ports[0].per_cage == 2 for x in switches)
    assert mixed_cages(d) == []
    assert not [f for f in check_design(d) if f.severity == "error"]


def test_breakouts_the_catalog_does_not_list_are_refused_naming_the_allowed_ones():
    with pytest.raises(GeneratorError, match=r"qm9700 cannot break each port out 4 ways \(its ports split 2 ways\); "
                                             r"use switch port breakout = 1 \(--breakout 1\)"):
        build_rail_optimized(sus=1, breakout=4)
    with pytest.raises(GeneratorError, match="q3400 cannot break each port out 2 ways .the catalog lists no breakout"):
        build_rail_optimized(sus=1, switch="q3400", breakout=2)


def _switch(ports: tuple[PortGroup, ...]) -> Design:
    d = Design("one switch")
    d.add_device(Device("sw", "switch", ports, model="sn5600"))
    return d


def test_the_port_budget_rule_accepts_a_listed_breakout_and_nothing_beyond_it():
    listed = builtin_catalog().component("sn5600").broken_out(4).ports
    assert not [f for f in check_design(_switch(listed)) if f.code == "model-ports"]
    # 128 ports at the full 800G is no breakout: more ports than the model has.
    too_fast = (PortGroup("p", 128, 800.0, per_cage=2),)
    assert [f for f in check_design(_switch(too_fast)) if f.code == "model-ports"]
    # Eight ways is not listed.
    eight = (PortGroup("p", 512, 100.0, per_cage=8),)
    assert [f for f in check_design(_switch(eight)) if f.code == "model-ports"]


def test_four_200g_optical_ends_in_one_cage_share_one_800g_twin_port_module():
    d = Design("4x200G")
    d.add_device(Device("leaf", "switch", builtin_catalog().component("sn5600").broken_out(4).ports, model="sn5600",
                        tier="leaf"))
    for i in range(1, 5):
        d.add_device(Device(f"nic{i}", "nic", (PortGroup("p", 1, 200.0),)))
        d.add_link(Link(f"l{i}", f"nic{i}", "p1", "leaf", f"p{i}", medium="optical", length_m=10,
                        cable="sr4-400g-mm"))
    assert {cage_of(d.device("leaf"), f"p{i}") for i in range(1, 5)} == {(0, 1)}
    bom = bill_of_materials(d)
    assert bom.quantity("transceiver", item="mma4z00-ns") == 1
    assert bom.quantity("transceiver", item="mma4z00-ns400") == 4


def test_bill_of_materials_counts_one_twin_module_per_optical_leaf_cage():
    d = build_rail_optimized(sus=2, switch="sn5600", breakout=2)
    bom = bill_of_materials(d)
    optical_cages: Counter[str] = Counter()
    nic_ends = 0
    for link in d.iter_links():
        if link.medium != "optical":
            continue
        for dev_id, port in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
            dev = d.device(dev_id)
            where = cage_of(dev, port)
            if where is None:
                nic_ends += 1
            else:
                optical_cages[f"{dev_id}:{where}"] += 1
    assert bom.quantity("transceiver", item="mma4z00-ns") == len(optical_cages)
    assert bom.quantity("transceiver", item="mma4z00-ns400") == nic_ends
    assert set(optical_cages.values()) <= {1, 2}


def test_a_broken_out_fabric_analyses_at_the_split_rate():
    d = build_rail_optimized(sus=1, nodes_per_su=4, switch="sn5600", breakout=2)
    rep = analyze(d, sizes=[1 << 20])
    # 32 GPUs, each behind one 400G NIC: half of them x 400 Gb/s crosses a balanced cut.
    assert rep.bisection.exact
    assert rep.bisection.lower_bytes_per_s == pytest.approx(16 * 400e9 / 8)


@pytest.mark.slow
def test_131072_gpus_on_broken_out_64_port_switches():
    d = build_rail_optimized(sus=512, switch="sn5600", breakout=2)
    c = kinds(d)
    assert (c["gpu"], c["leaf"], c["spine"], c["core"]) == (131072, 4096, 2048, 1024)
    assert d.properties["tiers"] == 3
    assert network_links_between(d, "leaf", "spine") == 131072
    assert network_links_between(d, "spine", "core") == 131072
    # Non-blocking: as many links up as down (a leaf uses 64 of its 128 ports: 32 servers, 32 uplinks).
    for sid, used in (("su5-leaf3", 64), ("pod2-spine7", 128)):
        tiers = [d.device(link.other(sid)).tier for link in d.links_of(sid)]
        assert len(tiers) == used and tiers.count("") + tiers.count("leaf") == used // 2


def test_a_broken_out_fabric_records_its_breakout_and_rebuilds_with_it():
    from designer.cli.fabric_family import rebuild

    d = build_rail_optimized(sus=2, nodes_per_su=4, switch="sn5600", breakout=2)
    assert d.properties["breakout"] == 2
    assert build_rail_optimized(sus=2, nodes_per_su=4).properties["breakout"] == 1  # every option is recorded
    bigger = rebuild(d, 2.0)
    assert bigger.properties["sus"] == 4
    assert bigger.device("su4-leaf1").ports == d.device("su1-leaf1").ports
