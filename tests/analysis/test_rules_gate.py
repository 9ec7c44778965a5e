"""``validate`` is the gate: what ``analyze`` leaves out and ``bom`` prices at $0 is a finding first."""

import pytest

from designer.analysis.bom.bill import bill_of_materials
from designer.analysis.fabric.capacity import build_capacity_graph
from designer.analysis.rules.check import check_design
from designer.model import Design, Device, Link, PortGroup
from designer.model.catalog import Cable, builtin_catalog

NET = (PortGroup("p", 8, 400.0, "network"),)
GPU = (PortGroup("nvl", 1, 3600.0, "nvlink"), PortGroup("pcie", 1, 512.0, "pcie"))
NIC = (PortGroup("p", 1, 400.0, "network"), PortGroup("pcie", 1, 512.0, "pcie"))


def node(d: Design, i: int, leaf: str | None, leaf_port: int = 1, length_m: float = 2.0):
    d.add_device(Device(f"gpu{i}", "gpu", GPU, model="h100-sxm"))
    d.add_device(Device(f"nic{i}", "nic", NIC, model="connectx-7-400g"))
    d.add_link(Link(f"pcie{i}", f"gpu{i}", "pcie1", f"nic{i}", "pcie1", medium="pcie", length_m=0.5,
                    cable="pcie-board"))
    if leaf is not None:
        d.add_link(Link(f"net{i}", f"nic{i}", "p1", leaf, f"p{leaf_port}", medium="passive_copper",
                        length_m=length_m, cable="dac-400g-ndr"))


def clean(n: int = 3) -> Design:
    d = Design()
    d.add_device(Device("leaf1", "switch", NET, model="qm9700", tier="leaf"))
    for i in range(1, n + 1):
        node(d, i, "leaf1", i)
    return d


def found(d, catalog=None):
    return {f.code: f for f in check_design(d, catalog or builtin_catalog())}


def notes(d, catalog=None) -> tuple[list[str], list[str]]:
    cat = catalog or builtin_catalog()
    return list(build_capacity_graph(d, cat).notes), list(bill_of_materials(d, cat).notes)


def test_the_helper_design_is_clean():
    assert found(clean()) == {}


def test_an_unknown_model_is_an_error_in_the_words_of_analyze_and_bom():
    d = clean()
    d.set_device_field("leaf1", "model", "qm9999")
    f = found(d)["unknown-model"]
    assert f.severity == "error" and f.devices == ("leaf1",)
    words = "model 'qm9999' is not in the catalog"
    assert f.message.startswith(f"leaf1: {words}")
    analyze_notes, bom_notes = notes(d)
    assert any(n.startswith(words + " (1 device: leaf1)") for n in analyze_notes)
    assert any(n.startswith(words + " (1 device: leaf1)") and "0 W, $0" in n for n in bom_notes)


def test_a_custom_device_without_a_model_is_not_unknown():
    d = clean()
    d.set_device_field("leaf1", "model", "")
    assert "unknown-model" not in found(d)


def test_an_unknown_cable_is_an_error_in_the_words_of_analyze_and_bom():
    d = clean()
    d.set_link_field("net2", "cable", "dac-9000")
    f = found(d)["unknown-cable"]
    assert f.severity == "error" and f.links == ("net2",)
    words = "cable 'dac-9000' is not in the catalog"
    assert f.message.startswith(f"net2: {words}")
    analyze_notes, bom_notes = notes(d)
    assert any(n.startswith(words + " (1 link: net2)") for n in analyze_notes)
    assert any(n.startswith(words + " (1 link: net2)") and "0 W, $0" in n for n in bom_notes)
    assert not any("with no cable chosen" in n for n in bom_notes)  # that note is for links naming none


def test_a_zero_metre_network_cable_is_a_warning_and_bom_says_the_same():
    d = clean()
    d.set_link_field("net1", "length_m", 0.0)
    f = found(d)["zero-length"]
    assert f.severity == "warning" and f.links == ("net1",)
    assert "0 m long: a 0 m cable cannot be bought" in f.message and "1 m" in f.message
    _, bom_notes = notes(d)
    assert any("(net1) is 0 m long: a 0 m cable cannot be bought" in n for n in bom_notes)


def test_zero_metre_board_connections_are_fine():
    d = clean()
    d.set_link_field("pcie1", "length_m", 0.0)
    assert found(d) == {}
    assert not any("0 m long" in n for n in notes(d)[1])


def test_a_zero_rate_cable_in_a_user_catalog_is_a_zero_capacity_error():
    cat = builtin_catalog()
    dead = Cable("dead-dac", "dead DAC", "passive_copper", 0.0, 3.0)
    cat.cables["dead-dac"] = dead
    try:
        d = clean()
        d.set_link_field("net3", "cable", "dead-dac")
        f = found(d, cat)
        assert f["zero-capacity"].severity == "error" and f["zero-capacity"].links == ("net3",)
        assert "cable dead-dac carries 0 Gb/s" in f["zero-capacity"].message
        assert "cable-rate" not in f  # one finding, not two
        cap = build_capacity_graph(d, cat)
        assert ("net3", "zero capacity") in cap.excluded
        assert any("1 zero-capacity link " in n for n in cap.notes)
    finally:
        del cat.cables["dead-dac"]


@pytest.mark.parametrize("gbps", [5e-324, 1e-300, 5e-4])
def test_a_port_too_slow_to_carry_anything_is_reported_like_the_analysis_excludes_it(gbps):
    d = clean()
    d.set_device_field("nic2", "ports", (PortGroup("p", 1, gbps), PortGroup("pcie", 1, 512.0, "pcie")))
    d.set_device_field("nic2", "model", "")
    codes = [(f.code, f.links or f.devices) for f in check_design(d)]
    assert ("zero-capacity", ("net2",)) in codes
    assert ("out-of-range", ("nic2",)) in codes  # a file holding it could not be read back
    flagged = {f.links[0] for f in check_design(d) if f.code == "zero-capacity"}
    excluded = {lid for lid, why in build_capacity_graph(d).excluded if why == "zero capacity"}
    assert flagged == excluded == {"net2"}


def test_lengths_and_speeds_a_file_cannot_hold_are_errors_in_memory():
    d = clean()
    # set_link_field refuses such a length; a link built in code can still hold one.
    link = d.link("net1")
    d.remove_link("net1")
    d.add_link(Link("net1", link.a_device, link.a_port, link.b_device, link.b_port, medium=link.medium,
                    length_m=1e300, cable=link.cable))
    assert found(d)["out-of-range"].links == ("net1",)
    d = clean()
    d.set_device_field("leaf1", "ports", (PortGroup("p", 8, 2e5),))
    d.set_device_field("leaf1", "model", "")
    assert "200 Tb/s, outside 1 Mb/s .. 100 Tb/s" in found(d)["out-of-range"].message


def test_an_optical_cable_without_a_catalog_transceiver_is_a_warning():
    cat = builtin_catalog()
    cat.cables["bare-fibre"] = Cable("bare-fibre", "fibre, no optics", "optical", 400.0, 100.0)
    try:
        d = clean()
        d.set_link_field("net1", "medium", "optical")
        d.set_link_field("net1", "cable", "bare-fibre")
        f = found(d, cat)["no-transceiver"]
        assert f.severity == "warning" and f.links == ("net1",)
        assert any("2 optical link ends have no catalog transceiver" in n for n in notes(d, cat)[1])
    finally:
        del cat.cables["bare-fibre"]


# ------------------------------------------------------------------------ GPU islands
def gpu_message(d) -> str:
    return found(d)["gpu-unreachable"].message


def test_gpus_with_no_links_at_all_are_all_isolated():
    d = Design()
    for i in range(1, 5):
        d.add_device(Device(f"gpu{i}", "gpu", GPU, model="h100-sxm"))
    msg = gpu_message(d)
    assert msg.startswith("4 GPUs are in 4 separate islands; none can reach another")
    assert "no path to the other" not in msg
    assert found(d)["gpu-unreachable"].devices == ("gpu1", "gpu2", "gpu3", "gpu4")


def test_one_straggler_is_singular_and_told_to_cable_its_nic():
    d = clean(4)
    d.remove_link("net4")
    msg = gpu_message(d)
    assert msg.startswith("1 GPU has no path to the other 3 GPUs over working links (gpu4)")
    assert "cable NIC nic4 to a fabric switch" in msg


def test_several_stragglers_are_plural():
    d = clean(5)
    d.remove_link("net4")
    d.remove_link("net5")
    msg = gpu_message(d)
    assert msg.startswith("2 GPUs in 2 islands have no path to the largest island of 3 GPUs")
    assert "cable NICs nic4, nic5 to a fabric switch" in msg


def two_leaves(per_leaf: int = 2, spine: bool = False) -> Design:
    d = Design()
    for leaf in ("leaf1", "leaf2"):
        d.add_device(Device(leaf, "switch", NET, model="qm9700", tier="leaf"))
    i = 0
    for leaf in ("leaf1", "leaf2"):
        for port in range(1, per_leaf + 1):
            i += 1
            node(d, i, leaf, port)
    if spine:
        d.add_device(Device("spine1", "switch", NET, model="qm9700", tier="spine"))
        d.add_link(Link("up1", "leaf1", "p8", "spine1", "p1", medium="passive_copper", length_m=2.0,
                        cable="dac-400g-ndr"))
    return d


def test_equal_islands_behind_unjoined_leaves_name_the_switches_not_the_nics():
    msg = gpu_message(two_leaves())
    assert msg.startswith("4 GPUs are split into 2 islands (2, 2 GPUs) that cannot reach each other")
    assert "NIC" not in msg
    assert "leaf1, leaf2" in msg and "not joined" in msg


def test_a_leaf_left_off_the_spine_is_named():
    d = two_leaves(per_leaf=2, spine=True)
    d.add_device(Device("gpu9", "gpu", GPU, model="h100-sxm"))
    d.add_device(Device("nic9", "nic", NIC, model="connectx-7-400g"))
    d.add_link(Link("pcie9", "gpu9", "pcie1", "nic9", "pcie1", medium="pcie", length_m=0.5, cable="pcie-board"))
    d.add_link(Link("net9", "nic9", "p1", "leaf1", "p3", medium="passive_copper", length_m=2.0,
                    cable="dac-400g-ndr"))
    msg = gpu_message(d)
    assert msg.startswith("2 GPUs have no path to the other 3 GPUs")
    assert "switch leaf2 is not joined to the other GPUs' switches (e.g. spine1)" in msg
    assert "NIC" not in msg


def test_a_failed_uplink_is_named_as_what_to_bring_back():
    d = two_leaves(spine=True)
    d.add_link(Link("up2", "leaf2", "p8", "spine1", "p2", medium="passive_copper", length_m=2.0,
                    cable="dac-400g-ndr"))
    assert "gpu-unreachable" not in found(d)
    d.set_link_field("up2", "failed", True)
    assert "bring back failed link up2" in gpu_message(d)
