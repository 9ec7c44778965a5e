"""Bill of materials: device, cable and optics counts, length buckets, power and cost."""

from __future__ import annotations

import pytest

from designer.analysis.bom.bill import bill_of_materials, length_bucket
from designer.generators import build_rail_optimized, build_server
from designer.model import Design, Device, Link, PortGroup
from designer.model.catalog import builtin_catalog
from designer.present.documents import bom_to_dict

SUPERPOD_TABLE_4 = [  # SUs, GPUs, leaf, spine, node(+UFM)-leaf cables, leaf-spine cables (NVIDIA RA Table 4)
    (1, 248, 8, 4, 252, 256),
    (2, 504, 16, 8, 508, 512),
    (3, 760, 24, 16, 764, 768),
    (4, 1016, 32, 16, 1020, 1024),
]


@pytest.mark.parametrize(("sus", "gpus", "leaves", "spines", "node_leaf", "leaf_spine"), SUPERPOD_TABLE_4)
def test_bom_reports_the_superpod_switch_and_cable_counts(sus, gpus, leaves, spines, node_leaf, leaf_spine):
    bom = bill_of_materials(build_rail_optimized(sus=sus, ufm=True))
    assert bom.quantity("gpu", item="h100-sxm") == gpus
    assert bom.quantity("nic", item="connectx-7-400g") == gpus
    assert bom.quantity("switch", item="qm9700", tier="leaf") == leaves
    assert bom.quantity("switch", item="qm9700", tier="spine") == spines
    assert bom.quantity("cable", between="node-leaf") == node_leaf
    assert bom.quantity("cable", between="leaf-spine") == leaf_spine
    assert bom.quantity("cable") == node_leaf + leaf_spine
    assert dict(bom.board_links) == {"nvlink": gpus, "pcie": gpus}


@pytest.mark.parametrize(
    ("length_m", "bucket"),
    [(0.5, "<=1 m"), (1.0, "<=1 m"), (1.01, "<=3 m"), (5.0, "<=5 m"), (10.0, "<=10 m"), (30.0, "<=30 m"),
     (100.0, "<=100 m"), (100.5, ">100 m")],
)
def test_length_buckets(length_m, bucket):
    assert length_bucket(length_m) == bucket


def _pair(per_cage: int, links: int, cable: str, length_m: float, medium: str) -> Design:
    d = Design("pair")
    ports = (PortGroup("p", 8, 400.0, per_cage=per_cage),)
    d.add_device(Device("leaf1", "switch", ports, model="qm9700", tier="leaf"))
    d.add_device(Device("spine1", "switch", ports, model="qm9700", tier="spine"))
    for i in range(1, links + 1):
        d.add_link(Link(f"l{i}", "leaf1", f"p{i}", "spine1", f"p{i}", medium=medium, length_m=length_m, cable=cable))
    return d


def test_twin_port_cages_share_one_module_per_two_optical_ends():
    bom = bill_of_materials(_pair(2, 3, "sr4-400g-mm", 20.0, "optical"))
    # 3 ends on each switch -> ceil(3/2) = 2 twin-port modules per switch.
    assert bom.quantity("transceiver", item="mma4z00-ns") == 4
    assert bom.quantity("transceiver") == 4


def test_single_port_cages_take_one_module_per_end():
    bom = bill_of_materials(_pair(1, 3, "sr4-400g-mm", 20.0, "optical"))
    assert bom.quantity("transceiver", item="mma4z00-ns400") == 6


def test_aoc_and_copper_need_no_transceivers_and_draw_power_at_both_ends():
    cat = builtin_catalog()
    bom = bill_of_materials(_pair(2, 2, "aoc-400g", 20.0, "aoc"), cat)
    assert bom.quantity("transceiver") == 0
    (line,) = [x for x in bom.lines if x.category == "cable"]
    aoc = cat.cable("aoc-400g")
    assert line.unit_power_w == pytest.approx(2 * aoc.power_w_per_end)
    assert line.unit_price_usd == pytest.approx(aoc.price_usd + aoc.price_usd_per_m * 20.0)
    assert line.between == "leaf-spine" and line.length_bucket == "<=30 m"


def test_totals_are_the_sum_of_the_lines_with_catalog_figures():
    cat = builtin_catalog()
    bom = bill_of_materials(_pair(2, 3, "sr4-400g-mm", 20.0, "optical"), cat)
    qm = cat.component("qm9700")
    fibre = cat.cable("sr4-400g-mm")
    twin = cat.transceivers["mma4z00-ns"]
    assert bom.total_power_w == pytest.approx(2 * qm.power_w + 4 * twin.power_w)
    assert bom.total_price_usd == pytest.approx(
        2 * qm.price_usd + 3 * (fibre.price_usd + fibre.price_usd_per_m * 20.0) + 4 * twin.price_usd)
    data = bom_to_dict(bom)
    assert data["totals"]["switch"] == 2 and data["totals"]["cable"] == 3 and data["totals"]["transceiver"] == 4
    assert data["totals"]["power_w"] == pytest.approx(bom.total_power_w)


def test_server_bom_counts_devices_and_no_cables():
    bom = bill_of_materials(build_server())
    assert (bom.quantity("gpu"), bom.quantity("nic"), bom.quantity("nvswitch"), bom.quantity("cable")) == (8, 8, 1, 0)
    gpu = builtin_catalog().component("h100-sxm")
    assert bom.total_power_w >= 8 * gpu.power_w


def test_unpriced_devices_and_unknown_cables_are_noted_not_guessed():
    d = Design("odd")
    net = (PortGroup("p", 2, 400.0),)
    d.add_device(Device("a", "switch", net))
    d.add_device(Device("b", "storage", net, properties={"power_w": 500.0, "price_usd": 1000.0}))
    d.add_link(Link("l", "a", "p1", "b", "p1", medium="optical", length_m=7.0))
    bom = bill_of_materials(d)
    assert bom.total_power_w == pytest.approx(500.0)
    assert bom.total_price_usd == pytest.approx(1000.0)
    assert any("no catalog model" in n for n in bom.notes)
    assert any("with no cable chosen" in n for n in bom.notes)
    assert any("no catalog transceiver" in n for n in bom.notes)
    assert bom.quantity("cable", between="node-node") == 1
