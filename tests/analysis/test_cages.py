"""Twin-port cages: one medium and one module per cage, and the bill of materials counts per cage."""

from __future__ import annotations

from designer.analysis.bom.bill import bill_of_materials
from designer.analysis.common.cages import MixedCage, cage_of, mixed_cages
from designer.model import Design, Device, Link, PortGroup

TWIN = (PortGroup("p", 8, 400.0, per_cage=2),)
SINGLE = (PortGroup("p", 8, 400.0),)


def _pair(ports: tuple[PortGroup, ...], links: list[tuple[str, str, float]]) -> Design:
    """leaf1 -- spine1 links on ports p1, p2...: (medium, cable, length) each."""
    d = Design("pair")
    d.add_device(Device("leaf1", "switch", ports, model="qm9700", tier="leaf"))
    d.add_device(Device("spine1", "switch", ports, model="qm9700", tier="spine"))
    for i, (medium, cable, length) in enumerate(links, start=1):
        d.add_link(Link(f"l{i}", "leaf1", f"p{i}", "spine1", f"p{i}", medium=medium, length_m=length, cable=cable))
    return d


OPTIC = ("optical", "sr4-400g-mm", 20.0)
OPTIC_SM = ("optical", "dr4-400g-sm", 20.0)
COPPER = ("passive_copper", "dac-400g-ndr", 2.0)
ACTIVE = ("active_copper", "acc-400g", 4.0)


def test_cage_of_numbers_cages_from_one_and_skips_single_port_groups():
    dev = Device("s", "switch", TWIN + (PortGroup("m", 1, 1.0, kind="pcie"),))
    assert [cage_of(dev, f"p{i}") for i in range(1, 6)] == [(0, 1), (0, 1), (0, 2), (0, 2), (0, 3)]
    assert cage_of(dev, "m1") is None
    assert cage_of(Device("n", "nic", SINGLE), "p1") is None


def test_optics_beside_copper_in_one_cage_is_found_with_device_ports_and_media():
    d = _pair(TWIN, [COPPER, COPPER, OPTIC, COPPER])
    found = mixed_cages(d)
    assert [(m.device, m.cage, m.ports, m.media) for m in found] == [
        ("leaf1", 2, ("p3", "p4"), ("optical mma4z00-ns400", "passive_copper")),
        ("spine1", 2, ("p3", "p4"), ("optical mma4z00-ns400", "passive_copper")),
    ]
    assert found[0].links == ("l3", "l4")
    msg = found[0].message
    assert "leaf1" in msg and "cage 2" in msg and "p3 optical mma4z00-ns400" in msg and "p4 passive copper" in msg


def test_two_optics_needing_different_modules_or_two_copper_kinds_also_mix():
    assert [m.cage for m in mixed_cages(_pair(TWIN, [OPTIC, OPTIC_SM]))] == [1, 1]
    assert [m.cage for m in mixed_cages(_pair(TWIN, [COPPER, ACTIVE]))] == [1, 1]


def test_one_medium_per_cage_single_port_groups_and_free_ports_are_fine():
    assert mixed_cages(_pair(TWIN, [COPPER, COPPER, OPTIC, OPTIC, ACTIVE])) == []
    assert mixed_cages(_pair(SINGLE, [COPPER, OPTIC, ACTIVE, OPTIC_SM])) == []


def test_mixed_cage_is_a_record_with_a_message():
    m = MixedCage("leaf1", 16, ("p31", "p32"), ("optical mma4z00-ns400", "active_copper"), ("a", "b"))
    assert m.message.startswith("leaf1: cage 16 mixes media (p31 optical mma4z00-ns400, p32 active copper)")


def test_bom_counts_a_twin_module_per_cage_not_per_two_optical_ends():
    # Optics on p1 and p3 sit in two cages (each beside copper): two twin modules per switch, not one.
    bom = bill_of_materials(_pair(TWIN, [OPTIC, COPPER, OPTIC, COPPER]))
    assert bom.quantity("transceiver", item="mma4z00-ns") == 4
    assert any("4 twin-port cages mix media" in n and "leaf1 cage 1" in n for n in bom.notes)


def test_bom_counts_each_module_of_a_cage_that_mixes_modules():
    bom = bill_of_materials(_pair(TWIN, [OPTIC, OPTIC_SM]))
    assert bom.quantity("transceiver", item="mma4z00-ns") == 2
    assert bom.quantity("transceiver", item="mms4x00-ns") == 2
    assert any("mix media" in n for n in bom.notes)


def test_bom_of_clean_cages_has_no_cage_note():
    bom = bill_of_materials(_pair(TWIN, [OPTIC, OPTIC, OPTIC]))
    assert bom.quantity("transceiver", item="mma4z00-ns") == 4
    assert not any("cage" in n for n in bom.notes)
