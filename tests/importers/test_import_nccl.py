"""NCCL topology XML: one server from real dumps and provider files, and broken XML."""

from __future__ import annotations

import pytest
from import_helpers import DATA, imp

from designer.analysis.rules.check import check_design
from designer.io.importers import ImportFileError, detect_format, import_file


def test_full_dump_of_an_8x_a100_server():
    design, report = import_file(DATA / "simccl-topo_8A100_4CX6.xml")
    assert report.format == "nccl"
    gpus = [d for d in design.iter_devices() if d.kind == "gpu"]
    assert len(gpus) == 8 and {g.model for g in gpus} == {"a100-sxm"}
    # 6 NVSwitches x 2 links per GPU: 12 NVLinks of 25 GB/s, the A100's 2.4 Tb/s, to one nvswitch device.
    nvl = gpus[0].port("nvl1")
    assert nvl.speed_gbps == 2400.0 and nvl.lanes == 12
    assert design.device("node1-nvsw").kind == "nvswitch"
    nics = [d for d in design.iter_devices() if d.kind == "nic"]
    assert len(nics) == 5 and {d.port("p1").speed_gbps for d in nics} == {200.0}
    # Each GPU has a PCIe link to the NIC nearest it in the PCIe tree.
    pcie = {lk.a_device: lk.b_device for lk in design.iter_links() if lk.medium == "pcie"}
    assert len(pcie) == 8 and pcie["node1-gpu1"] == pcie["node1-gpu2"]
    assert gpus[0].properties["numa"] == 0 and gpus[0].properties["pci_busid"] == "0000:13:00.0"
    codes = {f.code for f in check_design(design)}
    assert not codes & {"model-ports", "medium-port-kind", "gpu-unreachable", "nic-host-bottleneck"}
    assert [g.kind for g in design.iter_groups()] == ["server"]


def test_provider_files_known_by_pci_class():
    design, report = import_file(DATA / "azhpc-images-ndv4-topo.xml")
    assert sum(d.kind == "gpu" for d in design.iter_devices()) == 8
    nics = [d for d in design.iter_devices() if d.kind == "nic"]
    # HDR InfiniBand known only by its class: the fastest standard rate its PCIe 4.0 x16 link carries.
    assert {d.port("p1").speed_gbps for d in nics} == {200.0}
    assert any("known only by its PCI class (InfiniBand)" in e.reason for e in report.guessed)
    assert any(e.what == "NVLink" for e in report.skipped)
    p4d, rep = import_file(DATA / "aws-ofi-nccl-p4d-24xl-topo.xml")  # comments, 2 GPUs per NIC
    assert {d.port("p1").speed_gbps for d in p4d.iter_devices() if d.kind == "nic"} == {100.0}
    assert not [f for f in check_design(p4d) if f.code == "nic-host-bottleneck"]


def test_a_file_with_no_device_is_refused():
    with pytest.raises(ImportFileError, match="no GPU or NIC"):
        import_file(DATA / "aws-ofi-nccl-p5.48xl-topo.xml")


def test_detection_and_broken_xml():
    assert detect_format((DATA / "simccl-topo_8A100_4CX6.xml").read_text()) == "nccl"
    with pytest.raises(ImportFileError, match=r"line 4: not well-formed XML \(mismatched tag\)"):
        imp('<system version="1">\n<cpu numaid="0">\n<pci busid="x" class="0x030200">\n</system>\n', "cut.xml")
    with pytest.raises(ImportFileError, match="entities"):
        imp('<!DOCTYPE s [<!ENTITY a "b">]>\n<system version="1"><cpu numaid="0"/></system>', "e.xml",
            format="nccl")


def test_direct_nvlinks_between_gpus():
    xml = ('\ufeff<system version="1">\r\n <cpu numaid="0">\r\n'
           '  <pci busid="0000:01:00.0" class="0x030200" link_speed="16 GT/s" link_width="16">\r\n'
           '   <gpu dev="0" sm="70"><nvlink target="0000:02:00.0" count="2" tclass="0x030200"/></gpu></pci>\r\n'
           '  <pci busid="0000:02:00.0" class="0x030200" link_speed="16 GT/s" link_width="16">\r\n'
           '   <gpu dev="1" sm="70"><nvlink target="0000:01:00.0" count="2" tclass="0x030200"/></gpu></pci>\r\n'
           '  <pci busid="0000:03:00.0" class="0x020000" link_speed="16 GT/s" link_width="16">'
           '<nic><net name="mlx5_0" speed="100000" port="1"/><net name="mlx5_1" speed="fast" port="2"/></nic>'
           '</pci>\r\n </cpu>\r\n</system>\r\n')
    design, report = imp(xml, "v100.xml")
    nv = [lk for lk in design.iter_links() if lk.medium == "nvlink"]
    assert len(nv) == 1 and design.device("node1-gpu1").port("nvp1").speed_gbps == 400.0
    assert design.device("node1-nic1").port_count == 2 + 2
    assert any("is not a rate" in e.reason for e in report.guessed)
