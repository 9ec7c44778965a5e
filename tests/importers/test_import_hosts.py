"""Hosts as servers and tiers from structure: DGX-style dumps, UFM hosts on spines, directors, overrides."""

from __future__ import annotations

import pytest
from import_helpers import DATA, X5_DUMP, imp, superpod_dump, tiers, x5_options

from designer.analysis.report import analyze
from designer.io.importers import ImportFileError, ImportOptions, import_bytes, import_file, read_server_template


def _servers(design):
    return {g.id: g for g in design.iter_groups() if g.kind == "server"}


def _gpus_of(design, host):
    return sorted(d.id for d in design.iter_devices() if d.kind == "gpu" and d.group == host)


@pytest.mark.parametrize("style", ["hca", "mlx5", "bare"])
def test_the_adapters_of_a_dgx_are_one_server_with_its_nvlink_board(style):
    design, report = imp(superpod_dump(sus=1, hosts_per_su=4, spines=2, style=style), "pod.topo")
    servers = _servers(design)
    assert len(servers) == 5 and servers["dgx001"].properties["server"] == "8 x a100-sxm on hgx-a100-nvswitch"
    devs = {d.id: d for d in design.iter_devices()}
    assert [devs[g].model for g in _gpus_of(design, "dgx001")] == ["a100-sxm"] * 8
    assert devs["dgx001-nvsw"].model == "hgx-a100-nvswitch"
    # Each GPU reaches its own adapter over PCIe and the others over NVLink.
    pcie = {(lk.a_device, lk.b_device) for lk in design.iter_links() if lk.medium == "pcie"}
    assert ("dgx001-gpu3", "dgx001-hca3") in pcie
    assert sum(1 for lk in design.iter_links() if lk.medium == "nvlink" and lk.b_device == "dgx001-nvsw") == 8
    # The UFM host (2 adapters on two spines) keeps its adapters and no GPU.
    assert _gpus_of(design, "ufm01") == []
    assert any("read as 8 x a100-sxm" in e.reason for e in report.guessed)
    assert any("ufm01" in e.reason for e in report.guessed)
    assert report.read["hosts"] == 5 and report.read["servers"] == 4


def test_a_superpod_analyses_as_its_hosts_with_eight_nics_of_bandwidth():
    design, _ = imp(superpod_dump(sus=2, hosts_per_su=4, spines=4), "pod.topo")
    rep = analyze(design, sizes=[1 << 30])
    assert rep.servers == 8 and rep.ranks == 64
    best = max(t.busbw_bytes_per_s for t in rep.collectives if t.algorithm in ("ring", "tree"))
    # Eight 4xHDR adapters a host: 8 x 25 GB/s per direction; a real DGX A100 reaches most of it.
    assert 0.6 * 200e9 < best <= 200e9


def test_ndr_hosts_are_an_h100_board_and_quantum2_port_labels_read():
    design, report = imp(superpod_dump(sus=1, hosts_per_su=4, spines=2, speed="NDR", quantum2=True), "q2.topo")
    assert not [e for e in report.skipped if e.what != "SHARP aggregation node" and "SHARP" not in e.what]
    devs = {d.id: d for d in design.iter_devices()}
    assert devs["dgx004-gpu8"].model == "h100-sxm" and devs["dgx004-nvsw"].model == "hgx-h100-nvswitch"
    rates = {lk.properties.get("ib_rate") for lk in design.iter_links() if lk.medium == "optical"}
    assert rates == {"4xNDR"}


def test_server_model_and_none_and_xml_override_the_guess():
    text = superpod_dump(sus=1, hosts_per_su=2, spines=2)
    design, report = imp(text, "pod.topo", server="h200-sxm")
    assert {d.model for d in design.iter_devices() if d.kind == "gpu"} == {"h200-sxm"}
    assert any("(the server given)" in e.reason for e in report.guessed)
    design, _ = imp(text, "pod.topo", server="none")
    assert len(_gpus_of(design, "dgx001")) == 8 and not any(d.kind == "nvswitch" for d in design.iter_devices())
    template = read_server_template(DATA / "simccl-topo_8A100_4CX6.xml")
    assert template.gpus == 8 and template.nics == 5
    design, _ = import_bytes(text.encode(), "pod.topo", ImportOptions(server_template=template))
    rep = analyze(design, sizes=[1 << 30])
    assert rep.servers == 2 and rep.ranks == 16  # two DGX hosts; the UFM host has no GPU
    with pytest.raises(ImportFileError, match="no NVLink switch for this GPU"):
        imp(text, "pod.topo", server="l40s")


def test_hosts_regex_and_host_map_group_adapters():
    text = ('Switch\t8 "S-0000000000000001"\t# "leaf"\n'
            '[1]\t"H-00000000000000a1"[1]\t# "n1 port0" lid 2 4xEDR\n'
            '[2]\t"H-00000000000000a2"[1]\t# "n1 port1" lid 3 4xEDR\n'
            '[3]\t"H-00000000000000a3"[1]\t# "n2 port0" lid 4 4xEDR\n\n'
            'Ca\t1 "H-00000000000000a1"\t# "n1 port0"\n[1]\t"S-0000000000000001"[1]\t# lid 2 4xEDR\n\n'
            'Ca\t1 "H-00000000000000a2"\t# "n1 port1"\n[1]\t"S-0000000000000001"[2]\t# lid 3 4xEDR\n\n'
            'Ca\t1 "H-00000000000000a3"\t# "n2 port0"\n[1]\t"S-0000000000000001"[3]\t# lid 4 4xEDR\n')
    design, _ = imp(text, "t.topo")
    assert len(_servers(design)) == 3  # "n1 port0" names no host by itself
    design, _ = imp(text, "t.topo", hosts_regex=r"^(?P<host>n\d+) ")
    assert sorted(_servers(design)) == ["n1", "n2"]
    design, _ = imp(text, "t.topo", host_map={"a1": "alpha", "a2": "alpha", "a3": "beta"})
    assert sorted(_servers(design)) == ["alpha", "beta"]


def test_x5_keeps_one_gpu_per_adapter_and_its_five_spines():
    design, report = import_file(X5_DUMP, x5_options())
    assert sorted(tiers(design).values()).count("spine") == 5
    assert not report.read.get("servers") and report.read["gpus stamped behind adapters"] == 89


def test_a_spine_carrying_a_management_host_stays_a_spine():
    # No GPU host is recognised (EDR adapters imply no platform): a switch whose switch cables all go to
    # leaves is a spine, though it carries a UFM adapter.
    text = superpod_dump(sus=1, hosts_per_su=3, rails=4, spines=2, sharp=False, speed="EDR")
    design, report = imp(text, "pod.topo")
    assert sorted(tiers(design).values()) == ["leaf"] * 4 + ["spine"] * 2
    assert sum("a spine that also carries hosts" in e.reason for e in report.guessed) == 2


def test_ufm_host_on_spines_of_a_gpu_fabric_does_not_collapse_tiers():
    design, report = imp(superpod_dump(sus=2, hosts_per_su=2, spines=4), "pod.topo")
    t = sorted(tiers(design).values())
    assert t.count("leaf") == 16 and t.count("spine") == 4


def test_director_blades_vote_by_role():
    lines = []
    spare = "S-00000000000000f9"
    line_blades = [f"S-00000000000000c{i}" for i in range(1, 3)]
    fabric_blades = [f"S-00000000000000d{i}" for i in range(1, 3)]
    leaf = "S-0000000000000011"
    desc = {b: f"MF0;dir1:CS7500/L0{i}/U1" for i, b in enumerate(line_blades, 1)}
    desc.update({b: f"MF0;dir1:CS7500/S0{i}/U1" for i, b in enumerate(fabric_blades, 1)})
    desc[spare] = "MF0;dir1:CS7500/L09/U1"
    desc[leaf] = "leaf"
    cables = [(leaf, 1, "H-00000000000000a1", 1), (leaf, 2, line_blades[0], 1), (leaf, 3, line_blades[1], 1)]
    p = 10
    for lb in line_blades + [spare]:
        for fb in fabric_blades:
            p += 1
            cables.append((lb, p, fb, p))
    ports: dict[str, list[str]] = {}
    for a, pa, b, pb in cables:
        ports.setdefault(a, []).append(f'[{pa}]\t"{b}"[{pb}]\t# "{desc.get(b, "n1 HCA-1")}" lid 1 4xEDR')
        ports.setdefault(b, []).append(f'[{pb}]\t"{a}"[{pa}]\t# "{desc.get(a, "n1 HCA-1")}" lid 1 4xEDR')
    for sw in [leaf, *line_blades, *fabric_blades, spare]:
        sysimg = "sysimgguid=0x0000000000000777" if sw != leaf else f"sysimgguid=0x{sw[2:]}"
        lines += ["", sysimg, f'Switch\t36 "{sw}"\t# "{desc[sw]}" enhanced port 0 lid 1', *ports[sw]]
    lines += ["", 'Ca\t1 "H-00000000000000a1"\t# "n1 HCA-1"', *ports["H-00000000000000a1"]]
    design, report = imp("\n".join(lines) + "\n", "dir.topo")
    t = tiers(design)
    assert t[leaf] == "leaf" and {t[b] for b in line_blades} == {"spine"} and {t[b] for b in fabric_blades} == {"core"}
    # The spare line blade (no cable down) is 2 hops up by distance but sits with its peers.
    assert t[spare] == "spine"
    assert any(e.what == spare and "close call" in e.reason for e in report.guessed)


def test_ibsim_net_file_reads_hca_records_and_widths():
    net = ('# ibsim net\nSwitch\t8 "Switch1"\n[1]\t"Hca1"[1]\tw=2 s=4\n[2]\t"Hca2"[2]\n[3]\t"Switch2"[3]\n\n'
           'Switch 8 "Switch2"\n[3]\t"Switch1"[3]\n\nHca\t2 "Hca1"\n[1]\t"Switch1"[1]\tw=2 s=4\n\n'
           'Hca\t2 "Hca2"\n[2]\t"Switch1"[2]\n')
    design, report = imp(net, "net")
    assert report.format == "ibsim"
    kinds = sorted(d.kind for d in design.iter_devices() if d.kind != "gpu")
    assert kinds == ["nic", "nic", "switch", "switch"]
    assert not [e for e in report.skipped if e.what.startswith("cable")]  # no phantom loopback
    assert not any(d.properties.get("loopback_cables") for d in design.iter_devices())
    rates = sorted(lk.properties.get("ib_rate", "") for lk in design.iter_links() if lk.medium == "optical")
    assert "4xQDR" in rates


def test_cli_host_map_server_and_bad_options(tmp_path, capsys):
    from designer.cli.entry import main

    dump = tmp_path / "pod.topo"
    dump.write_text(superpod_dump(sus=1, hosts_per_su=2, spines=2))
    out = tmp_path / "pod.json"
    assert main(["import", str(dump), "-o", str(out), "--server", "b200", "-q"]) == 0
    from designer.io import load_design

    design = load_design(out)
    assert {d.model for d in design.iter_devices() if d.kind == "nvswitch"} == {"hgx-b200-nvswitch"}
    assert main(["import", str(dump), "-o", str(out), "--hosts", "(", "-q"]) == 2
    assert main(["import", str(dump), "-o", str(out), "--server", "nonesuch", "-q"]) == 2
    err = capsys.readouterr().err
    assert "not a regular expression" in err and "not a GPU or NVLink switch model" in err
    assert "Traceback" not in err


def test_bom_of_an_imported_pod_has_one_line_per_model_and_agrees_with_analyze():
    from designer.analysis.bom.bill import bill_of_materials
    from designer.analysis.rules.check import check_design

    design, _ = imp(superpod_dump(sus=2, hosts_per_su=4, spines=4), "pod.topo")
    bom = bill_of_materials(design)
    devices = [(line.category, line.item if line.category != "nic" else line.name, line.tier, line.quantity)
               for line in bom.lines if line.category in ("gpu", "nic", "nvswitch", "switch")]
    assert ("gpu", "a100-sxm", "", 64) in devices and ("nvswitch", "hgx-a100-nvswitch", "", 8) in devices
    assert [d for d in devices if d[0] == "nic"] == [("nic", "host adapter, 1 x 200 Gb/s", "", 66)]
    switches = {(d[2], d[3]) for d in devices if d[0] == "switch"}
    assert switches == {("leaf", 16), ("spine", 4)}
    assert any("8 servers of one template: 8 x a100-sxm on hgx-a100-nvswitch" in n for n in bom.notes)
    assert bom.quantity("gpu") == analyze(design, sizes=[1 << 20]).ranks
    # validate: nothing about GPU islands (every GPU reaches every other)
    assert not [f for f in check_design(design) if "island" in f.code]
