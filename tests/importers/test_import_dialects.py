"""Dialects: SimAI files with a long id line, Slurm topology/block, detection that refuses what is none of them."""

from __future__ import annotations

import pytest
from import_helpers import DATA, imp

from designer.analysis.report import analyze
from designer.io.importers import ImportFileError, detect_format


def _simai(switches: int) -> str:
    """8 GPUs on one NVSwitch, each GPU on its own one of ``switches`` switches (ids past 4,000 characters)."""
    gpus, nvsw = 8, 1
    nodes = gpus + nvsw + switches
    links = [f"{g} 8 2400Gbps 0.000025ms 0" for g in range(gpus)]
    links += [f"{g} {9 + g} 400Gbps 0.0005ms 0" for g in range(gpus)]
    links += [f"{9 + s} {9 + s + 1} 400Gbps 0.0005ms 0" for s in range(switches - 1)]
    head = f"{nodes} 8 {nvsw} {switches} {len(links)} A100"
    return "\n".join([head, " ".join(str(i) for i in range(gpus, nodes)), *links]) + "\n"


def test_simai_is_detected_from_its_structure_however_long_its_id_line():
    text = _simai(1500)
    assert len(text.split("\n")[1]) > 4000
    assert detect_format(text) == "simai"
    design, report = imp(text, "big-simai")
    assert report.format == "simai" and sum(d.kind == "switch" for d in design.iter_devices()) == 1500
    real = (DATA / "Spectrum-X_128g_8gps_400Gbps_A100").read_text()
    assert detect_format(real) == "simai"


def test_a_header_that_cannot_hold_its_switches_is_not_simai():
    text = "10 8 4 9 3 A100\n" + " ".join(str(i) for i in range(13)) + "\n0 8 400Gbps 0.0005ms 0\n"
    with pytest.raises(ImportFileError, match="format not recognised"):
        detect_format(text)


BLOCK = """# GB200 NVL72 racks as Slurm blocks
BlockName=rack1 Nodes=gb[001-018]
BlockName=rack2 Nodes=gb[019-036]
BlockSizes=18,36
"""


def test_slurm_topology_block_is_nvlink_domain_blocks():
    design, report = imp(BLOCK, "topology.conf")
    assert report.format == "slurm-block"
    assert report.read["blocks"] == 2 and report.read["nodes"] == 36
    switches = {d.id: d.model for d in design.iter_devices() if d.kind == "nvswitch"}
    assert switches == {"block-rack1-nvsw": "nvl72-nvswitch", "block-rack2-nvsw": "nvl72-nvswitch"}
    assert design.properties["slurm_block_sizes"] == [18, 36]
    assert any("scale-out network" in e.what for e in report.guessed)
    rep = analyze(design, sizes=[1 << 30])
    assert rep.servers == 2 and rep.ranks == 144  # two NVLink domains of 72 GPUs


def test_slurm_block_overrides_and_contradictions():
    text = BLOCK + "BlockName=rack3 Nodes=gb[018-020]\n"
    design, report = imp(text, "topology.conf", server="h100-sxm", default_rate_gbps=200.0)
    assert {d.model for d in design.iter_devices() if d.kind == "gpu"} == {"h100-sxm"}
    assert sum(e.what.startswith("node gb0") for e in report.skipped) == 3
    nic_ports = {p.speed_gbps for d in design.iter_devices() if d.kind == "nic" for p in d.ports if p.kind == "network"}
    assert nic_ports == {200.0}
    with pytest.raises(ImportFileError, match="one plugin"):
        imp(BLOCK + "SwitchName=s1 Nodes=gb001\n", "topology.conf")
    with pytest.raises(ImportFileError, match="BlockSizes"):
        imp("BlockName=b1 Nodes=n1\nBlockSizes=18,x\n", "topology.conf")


def test_ibsim_example_files_read_as_written():
    from designer.io.importers import import_file

    design, report = import_file(DATA / "ibsim-net.2sw2path4hca2port")
    assert report.format == "ibsim"
    nics = {d.id: d for d in design.iter_devices() if d.kind == "nic"}
    assert len(nics) == 2 and all(d.port("p2") is not None for d in nics.values())  # 2-port adapters
    cables = [lk for lk in design.iter_links() if lk.medium == "optical"]
    assert len(cables) == 6 and not report.skipped  # 4 adapter cables, 2 between the switches
    assert not any(d.properties.get("loopback_cables") for d in design.iter_devices())
    design, report = import_file(DATA / "ibsim-net")
    assert sorted(d.kind for d in design.iter_devices() if d.kind in ("nic", "switch")) == ["nic", "nic", "switch",
                                                                                             "switch"]


def test_ibnetdiscover_ports_excerpt_from_an_edr_fabric():
    from designer.io.importers import import_file

    design, report = import_file(DATA / "infiniband_exporter-ibnetdiscover-test.out")
    assert report.format == "ibnetdiscover-ports"
    rates = {lk.properties.get("ib_rate") for lk in design.iter_links() if lk.medium == "optical"}
    assert rates == {"4xEDR"}
    assert {p.speed_gbps for d in design.iter_devices() if d.kind == "nic" for p in d.ports
            if p.kind == "network"} == {100.0}
