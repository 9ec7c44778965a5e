"""Port counters: real perfquery and infiniband_exporter dumps, ibdiagnet formats, rates, mapping, findings."""

from __future__ import annotations

import pytest
from measured_helpers import DATA, PERFQUERY

from designer.analysis.common.errors import AnalysisError
from designer.analysis.measured.ports import map_ports, port_uses
from designer.cli.entry import main
from designer.io import load_design, save_design
from designer.io.importers import ImportOptions, import_file
from designer.io.measured import MeasuredFileError
from designer.io.measured.counters import parse_counters, read_counters

SWITCH = PERFQUERY / "0x7cfe9003009ce5b0.out"
HCAS = (PERFQUERY / "0x7cfe9003003b4b96.out", PERFQUERY / "0x7cfe9003003b4bde.out")


@pytest.fixture(scope="module")
def fabric():
    """The fabric these counters came from, imported from its own ibnetdiscover lines (GUIDs kept)."""
    design, _ = import_file(PERFQUERY / "ibnetdiscover-test.out", ImportOptions())
    return design


def test_perfquery_extended_counters_in_bytes():
    ports = {(c.node, c.port): c for c in read_counters(SWITCH)}
    assert set(ports) == {("0x7cfe9003009ce5b0", 1), ("0x7cfe9003009ce5b0", 2)}
    p1 = ports[("0x7cfe9003009ce5b0", 1)]
    assert p1.values["xmit_data"] == 36298026860928 * 4  # PortXmitData counts 4-byte words
    assert p1.values["xmit_wait"] == 22730501 and p1.widths["xmit_data"] == 64
    assert read_counters(PERFQUERY / "0x506b4b03005c2740.out")[0].values["link_downed"] == 1
    for hca in HCAS:
        (only,) = read_counters(hca)
        assert only.port == 1 and only.values["rcv_data"] > 0
    with pytest.raises(MeasuredFileError, match="empty"):
        read_counters(PERFQUERY / "0x506b4b0300cc02a6.out")
    (detail,) = read_counters(PERFQUERY / "rcv-error" / "0x7cfe9003009ce5b0-1.out")
    assert detail.values["local_physical_errors"] == 0


def test_the_exporter_reads_the_same_bytes_as_perfquery():
    prom = {(c.node, c.port): c for f in ("infiniband-exporter-switch.prom", "infiniband-exporter-hca.prom")
            for c in read_counters(DATA / f)}
    pq = {(c.node, c.port): c for f in (SWITCH, *HCAS) for c in read_counters(f)}
    assert set(pq) <= set(prom)
    for key, c in pq.items():
        for name in ("xmit_data", "rcv_data", "xmit_wait", "symbol_errors", "link_downed"):
            assert prom[key].values[name] == c.values[name], (key, name)
    assert prom[("0x7cfe9003009ce5b0", 1)].node_name == "ib-i1l1s01"
    assert prom[("0x7cfe9003003b4bde", 1)].values["rate_bytes_per_s"] == 12.5e9


def test_ibdiagnet_pm_and_db_csv():
    pm = ("-------------------------------------------------------\n"
          "Port=10 Lid=0x06b7 GUID=0x7cfe9003009ce5b0 Device=53000 Port Name=ib-i1l1s01/P10\n"
          "-------------------------------------------------------\n"
          "symbol_error_counter=0x0000000000000003\nlink_downed_counter=0x0000000000000000\n"
          "port_xmit_data=0x00000000ffffffff\nport_xmit_data_extended=0x0000000100000000\n"
          "port_rcv_data_extended=0x0000000000000010\nport_xmit_wait=NA\n")
    (c,) = parse_counters(pm, "ibdiagnet2.pm")
    assert c.node == "0x7cfe9003009ce5b0" and c.port == 10 and c.node_name == "ib-i1l1s01/P10"
    assert c.values["xmit_data"] == (1 << 32) * 4 and c.widths["xmit_data"] == 64  # the extended one wins
    assert c.values["symbol_errors"] == 3 and "xmit_wait" not in c.values
    csv = ("START_PM_INFO\nNodeGUID,PortNumber,SymbolErrorCounter,PortXmitDataExtended,PortRcvDataExtended\n"
           "0x7cfe9003009ce5b0,10,0,100,200\n0x7cfe9003009ce5b0,11,0x2,300,400\nEND_PM_INFO\n")
    got = {c.port: c for c in parse_counters(csv, "ibdiagnet2.db_csv")}
    assert got[11].values == {"symbol_errors": 2, "xmit_data": 1200, "rcv_data": 1600}
    with pytest.raises(MeasuredFileError, match="END_PM_INFO"):
        parse_counters(csv.replace("END_PM_INFO\n", ""), "cut.db_csv")
    with pytest.raises(MeasuredFileError, match="not a counter file"):
        parse_counters("hello\n", "x.txt")


def _later(text: str, words: int, symbol_errors: int) -> str:
    """A second sample of a perfquery dump: data counters grown by ``words`` words, symbol errors added."""
    out = []
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name in ("PortXmitData", "PortRcvData"):
            line = f"{name}:{'.' * 10}{int(value.strip('.')) + words}"
        elif name == "SymbolErrorCounter":
            line = f"{name}:{'.' * 10}{int(value.strip('.')) + symbol_errors}"
        out.append(line)
    return "\n".join(out)


def test_two_samples_give_rates_mapped_by_guid_and_findings(fabric, tmp_path):
    before = [c for f in (SWITCH, *HCAS) for c in read_counters(f)]
    after = []
    for f in (SWITCH, *HCAS):
        later = tmp_path / f.name
        later.write_text(_later(f.read_text(), words=75_000_000_000 // 4, symbol_errors=5 if f == HCAS[1] else 0))
        after += read_counters(later)
    uses, seconds, notes = port_uses(after, before, 10.0)
    m = map_ports(fabric, uses, None, seconds, notes)
    # 75 GB in 10 s each way: 7.5 GB/s, 60% of a 100 Gb/s EDR link.
    hca = next(p for p in m.ports if p.node == "0x7cfe9003003b4bde")
    assert hca.device == "o0001-hca1" and hca.xmit_bytes_per_s == pytest.approx(7.5e9)
    use = m.links[hca.link]
    assert use.utilisation == pytest.approx(0.6) and use.errors == {"symbol_errors": 5}
    assert any(f.code == "measured-link-errors" and hca.link in f.links and "5 symbol errors in 10 s" in f.message
               for f in m.findings)
    # The switch's port 2 leads to a node this excerpt of the fabric does not hold: listed, not dropped.
    assert any("p2" in u for u in m.unmapped)
    with pytest.raises(AnalysisError, match="--interval"):
        port_uses(after, before, None)


def test_saturated_and_reset_counters_are_said():
    basic = ("# Port counters: Lid 5 port 1 (CapMask: 0x1400)\nPortSelect:......1\nSymbolErrorCounter:....65535\n"
             "PortXmitData:..........4294967295\nPortRcvData:...........10\n")
    (c,) = parse_counters(basic, "0x0002c90300a0b0c1.out")
    assert c.widths["xmit_data"] == 32 and c.widths["symbol_errors"] == 16
    _, _, notes = port_uses([c], None, 1.0)
    assert any("xmit_data reads its 32-bit maximum (saturated)" in n for n in notes)
    assert any("symbol_errors reads its 16-bit maximum" in n for n in notes)
    earlier_text = basic.replace("PortRcvData:...........10", "PortRcvData:...........20")
    (earlier,) = parse_counters(earlier_text, "0x0002c90300a0b0c1.out")
    uses, _, notes = port_uses([c], [earlier], 1.0)
    assert uses[0].rcv_bytes_per_s is None and any("went down between the samples" in n for n in notes)


def test_below_rate_from_the_exporter(fabric, tmp_path):
    slow = (DATA / "infiniband-exporter-hca.prom").read_text().replace(
        'infiniband_hca_rate_bytes_per_second{guid="0x7cfe9003003b4bde"} 1.25e+10',
        'infiniband_hca_rate_bytes_per_second{guid="0x7cfe9003003b4bde"} 6.25e+09')
    uses, seconds, notes = port_uses(parse_counters(slow, "hca.prom"), None, 60.0)
    m = map_ports(fabric, uses, None, seconds, notes)
    assert [f.code for f in m.findings] == ["measured-below-rate"]
    assert "50 Gb/s" in m.findings[0].message and "100 Gb/s" in m.findings[0].message


def test_compare_counters_cli(fabric, tmp_path, capsys):
    path = tmp_path / "ib.json"
    save_design(fabric, path)
    assert load_design(path).device_count() == fabric.device_count()
    out = tmp_path / "c.json"
    assert main(["compare", str(path), "--counters", str(SWITCH), *map(str, HCAS), "--interval", "86400",
                 "--json", str(out)]) == 0
    import json

    doc = json.loads(out.read_text())
    assert doc["runs"] == [] and len(doc["counters"]["links"]) == 3
    assert any("no link at p2" in u for u in doc["counters"]["unmapped"])
    assert main(["compare", str(path), "--counters", str(SWITCH)]) == 2
    assert "--interval" in capsys.readouterr().err
    assert main(["compare", str(path)]) == 2
    assert "give nccl-tests logs" in capsys.readouterr().err


def test_dcgm_exporter_nvlink_and_pcie_map_to_the_gpu_links(tmp_path):
    """dcgm-exporter's DCGM_FI_PROF_* fields are rates (bytes/s); GPUs map by host and index."""
    from measured_helpers import h100_two_nodes

    design = h100_two_nodes(("cnode3-002", "cnode3-003"))
    text = "\n".join([
        "# HELP DCGM_FI_PROF_NVLINK_TX_BYTES The rate of data transmitted over NVLink, in bytes per second.",
        "# TYPE DCGM_FI_PROF_NVLINK_TX_BYTES gauge",
        'DCGM_FI_PROF_NVLINK_TX_BYTES{gpu="2",UUID="GPU-x",device="nvidia2",modelName="NVIDIA H100 80GB HBM3",'
        'Hostname="cnode3-003"} 225000000000',
        'DCGM_FI_PROF_NVLINK_RX_BYTES{gpu="2",UUID="GPU-x",device="nvidia2",Hostname="cnode3-003"} 2.2e+11',
        'DCGM_FI_PROF_PCIE_TX_BYTES{gpu="2",UUID="GPU-x",device="nvidia2",Hostname="cnode3-003"} 3.2e+10',
        'DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL{gpu="2",UUID="GPU-x",Hostname="cnode3-003"} 4',
        'DCGM_FI_PROF_NVLINK_TX_BYTES{gpu="0",UUID="GPU-y",Hostname="elsewhere"} 1e9', ""])
    uses, seconds, notes = port_uses(parse_counters(text, "dcgm.prom"), None, None)
    m = map_ports(design, uses, None, seconds, notes)
    nvl = next(p for p in m.ports if p.medium == "nvlink" and p.node_name == "cnode3-003")
    gpu = [d.id for g in design.groups if g.name == "cnode3-003" for d in design.all_members(g.id)
           if d.kind == "gpu"][2]
    assert nvl.device == gpu and design.link(nvl.link).medium == "nvlink"
    assert nvl.xmit_bytes_per_s == 225e9 and m.links[nvl.link].utilisation == pytest.approx(0.5)
    assert any(p.medium == "pcie" and p.link for p in m.ports)
    assert [f.code for f in m.findings] == ["measured-link-errors"]  # 4 NVLink CRC errors (one sample: since reset)
    assert any("elsewhere" in u for u in m.unmapped)


def test_node_exporter_rdma_devices_map_to_the_servers_nics():
    """node_exporter's infiniband collector: bytes already, by host and RDMA device (mlx5_N in number order)."""
    from measured_helpers import h100_two_nodes

    design = h100_two_nodes(("gpu-a", "gpu-b"))

    def sample(t: float, sent: float) -> str:
        lines = ["# TYPE node_infiniband_port_data_transmitted_bytes_total counter"]
        for dev in ("mlx5_0", "mlx5_1", "mlx5_10", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6"):
            lines.append(f'node_infiniband_port_data_transmitted_bytes_total{{device="{dev}",instance="gpu-b:9100",'
                         f'port="1"}} {sent + (1e12 if dev == "mlx5_10" else 0):.0f} {int(t * 1000)}')
        lines.append('node_infiniband_link_downed_total{device="mlx5_10",instance="gpu-b:9100",port="1"} '
                     f'{1 if t else 0} {int(t * 1000)}')
        lines.append('node_infiniband_port_data_transmitted_bytes_total{device="mlx5_0",instance="other:9100",'
                     f'port="1"}} 5 {int(t * 1000)}')
        return "\n".join(lines) + "\n"

    before = parse_counters(sample(0.0, 0.0), "t0.prom")
    after = parse_counters(sample(10.0, 2.5e11), "t10.prom")
    uses, seconds, notes = port_uses(after, before, None)
    assert seconds == 10.0  # from the samples' time stamps
    m = map_ports(design, uses, None, seconds, notes)
    nics = [d.id for g in design.groups if g.name == "gpu-b" for d in design.all_members(g.id) if d.kind == "nic"]
    by_dev = {p.node.split(":")[2]: p for p in m.ports if p.node.startswith("nic:gpu-b")}
    assert by_dev["mlx5_10"].device == nics[7] and by_dev["mlx5_2"].device == nics[2]  # mlx5_10 sorts last
    assert m.links[by_dev["mlx5_0"].link].utilisation == pytest.approx(0.5)  # 25 GB/s of a 400G link
    assert [f.code for f in m.findings] == ["measured-link-errors"] and by_dev["mlx5_10"].link in m.findings[0].links
    assert any("other" in u and "no server" in u for u in m.unmapped)
    assert any("k-th NIC" in n for n in m.notes)
