"""validate reports first what the bill of materials would count at 0 W, $0 or cannot buy: custom
devices with no figures, network links with no cable, twin-port cages holding two media."""

from designer.analysis.bom.bill import bill_of_materials
from designer.analysis.rules.check import check_design
from designer.model import Design, Device, Link, PortGroup

NET = (PortGroup("p", 8, 400.0),)
TWIN = (PortGroup("p", 8, 400.0, per_cage=2),)


def pair(a: Device, b: Device, **link) -> Design:
    d = Design("pair")
    d.add_device(a)
    d.add_device(b)
    d.add_link(Link("l1", a.id, "p1", b.id, "p1", **{"medium": "passive_copper", "length_m": 1.0, **link}))
    return d


def by_code(d: Design) -> dict:
    return {f.code: f for f in check_design(d)}


def test_a_custom_device_without_figures_is_a_warning_worded_like_the_bom():
    d = pair(Device("leaf1", "switch", NET, model="qm9700"), Device("nas", "storage", NET),
             cable="dac-400g-ndr")
    f = by_code(d)["unpriced"]
    assert f.severity == "warning" and f.devices == ("nas",)
    assert "counted at 0 W, $0" in f.message
    assert any("1 custom device with no catalog model" in n and "counted at 0 W, $0" in n
               for n in bill_of_materials(d).notes)
    d.set_device_property("nas", "price_usd", 12000.0)
    assert "unpriced" not in by_code(d)


def test_a_network_link_without_a_cable_is_a_warning_but_a_board_link_is_not():
    d = pair(Device("leaf1", "switch", NET, model="qm9700"), Device("leaf2", "switch", NET, model="qm9700"))
    f = by_code(d)["no-cable"]
    assert f.severity == "warning" and f.links == ("l1",)
    assert any("1 network link with no cable chosen: counted at 0 W, $0" in n for n in bill_of_materials(d).notes)
    d.set_link_field("l1", "cable", "dac-400g-ndr")
    assert check_design(d) == []


def test_a_mixed_twin_port_cage_is_an_error_naming_device_ports_and_media():
    d = Design("cage")
    d.add_device(Device("leaf1", "switch", TWIN, model="qm9700"))
    d.add_device(Device("spine1", "switch", TWIN, model="qm9700"))
    d.add_link(Link("l1", "leaf1", "p1", "spine1", "p1", medium="passive_copper", length_m=2.0,
                    cable="dac-400g-ndr"))
    d.add_link(Link("l2", "leaf1", "p2", "spine1", "p3", medium="optical", length_m=20.0, cable="sr4-400g-mm"))
    found = [f for f in check_design(d) if f.code == "mixed-cage"]
    assert [f.devices for f in found] == [("leaf1",)]
    assert found[0].severity == "error" and set(found[0].links) == {"l1", "l2"}
    assert "p1" in found[0].message and "p2" in found[0].message
