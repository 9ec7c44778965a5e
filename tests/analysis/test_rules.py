"""Design rules name the offending devices and links and say what to do."""

import pytest

from designer.analysis.common.findings import findings_by_item
from designer.analysis.rules.check import check_design
from designer.model import Design, Device, Link, PortGroup
from designer.model.catalog import builtin_catalog

NET = (PortGroup("p", 8, 400.0, "network"),)
GPU = (PortGroup("nvl", 1, 3600.0, "nvlink"), PortGroup("pcie", 1, 512.0, "pcie"))
NIC = (PortGroup("p", 1, 400.0, "network"), PortGroup("pcie", 1, 512.0, "pcie"))
#: The 400G catalog cable of each medium (a network link without a cable is a finding of its own).
CABLE = {"passive_copper": "dac-400g-ndr", "active_copper": "acc-400g", "aoc": "aoc-400g", "optical": "sr4-400g-mm"}


def node(d: Design, i: int, leaf: str, leaf_port: int, length_m: float = 2.0, medium: str = "passive_copper"):
    d.add_device(Device(f"gpu{i}", "gpu", GPU, model="h100-sxm"))
    d.add_device(Device(f"nic{i}", "nic", NIC, model="connectx-7-400g"))
    d.add_link(Link(f"pcie{i}", f"gpu{i}", "pcie1", f"nic{i}", "pcie1", medium="pcie", length_m=0.1))
    d.add_link(Link(f"net{i}", f"nic{i}", "p1", leaf, f"p{leaf_port}", medium=medium, length_m=length_m,
                    cable=CABLE.get(medium, "")))


def clean() -> Design:
    d = Design()
    d.add_device(Device("leaf1", "switch", NET, model="qm9700", tier="leaf"))
    for i in range(1, 4):
        node(d, i, "leaf1", i)
    return d


def codes(d):
    return [f.code for f in check_design(d, builtin_catalog())]


def test_a_clean_design_has_no_findings():
    assert codes(clean()) == []


def test_copper_beyond_reach_is_an_error_naming_the_link():
    d = clean()
    d.set_link_field("net2", "length_m", 12.0)
    (f,) = check_design(d)
    assert f.code == "reach" and f.severity == "error" and f.links == ("net2",)
    assert "12 m" in f.message and "optics" in f.message


def test_speed_mismatch_names_both_ends():
    d = clean()
    d.set_device_field("nic3", "ports", (PortGroup("p", 1, 200.0), PortGroup("pcie", 1, 512.0, "pcie")))
    (f,) = check_design(d)
    assert f.code == "speed-mismatch" and "nic3:p1" in f.message and "200 Gb/s" in f.message


def test_gpu_without_network_path_is_reported():
    d = clean()
    d.remove_link("net3")
    found = {f.code: f for f in check_design(d)}
    assert found["gpu-unreachable"].devices == ("gpu3",)


def test_failed_link_cuts_a_gpu_off():
    d = clean()
    d.set_link_field("net1", "failed", True)
    assert "gpu-unreachable" in codes(d)


def test_duplicate_links_between_an_endpoint_and_a_switch():
    d = clean()
    d.set_device_field("nic1", "ports", (PortGroup("p", 2, 400.0), PortGroup("pcie", 1, 512.0, "pcie")))
    d.set_device_field("nic1", "model", "")
    d.add_link(Link("dup", "nic1", "p2", "leaf1", "p8", medium="passive_copper", length_m=1, cable="dac-400g-ndr"))
    (f,) = [f for f in check_design(d) if f.code == "duplicate-link"]
    assert set(f.links) == {"net1", "dup"}


def test_nic_without_gpu_and_unconnected_devices():
    d = clean()
    d.remove_link("pcie2")
    d.add_device(Device("lonely", "switch", NET))
    found = {f.code: f for f in check_design(d)}
    assert found["nic-without-gpu"].devices == ("nic2",)
    assert found["unconnected"].devices == ("lonely",)


def test_more_ports_than_the_model_is_an_error():
    d = clean()
    d.set_device_field("leaf1", "ports", (PortGroup("p", 80, 400.0),))
    (f,) = [f for f in check_design(d) if f.code == "model-ports"]
    assert "80 network ports" in f.message and "qm9700" in f.message


def test_medium_must_fit_the_port_kind():
    d = clean()
    d.set_link_field("pcie1", "medium", "optical")
    assert "medium-port-kind" in codes(d)


@pytest.mark.parametrize("sev", ["error", "warning"])
def test_findings_index_by_item(sev):
    d = clean()
    d.set_link_field("net2", "length_m", 50.0)
    d.set_device_field("nic3", "ports", (PortGroup("p", 1, 200.0), PortGroup("pcie", 1, 512.0, "pcie")))
    by_dev, by_link = findings_by_item(check_design(d))
    assert sev in {f.severity for fs in by_link.values() for f in fs}
    assert "nic3" in by_dev
