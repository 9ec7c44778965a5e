"""ibnetdiscover and ibdiagnet: the real PSMN X5 dump, messy variants, directors, SHARP, broken input."""

from __future__ import annotations

import pytest
from import_helpers import X5_DUMP, X5_SLURM, X5_SPINE, imp, switch_pairs, tiers, x5_options

from designer.analysis.rules.check import check_design
from designer.io import design_to_text
from designer.io.importers import ImportFileError, import_bytes, import_file


@pytest.fixture(scope="module")
def x5():
    return import_file(X5_DUMP, x5_options())


def test_x5_reads_every_switch_adapter_and_cable(x5):
    design, report = x5
    kinds = {}
    for d in design.iter_devices():
        kinds[d.kind] = kinds.get(d.kind, 0) + 1
    assert kinds == {"switch": 11, "nic": 89, "gpu": 89}
    assert report.format == "ibnetdiscover"
    assert report.read["cables"] == 159
    # Every cable is listed from both ends: none of it is a duplicate or a contradiction.
    assert not report.skipped
    rates = sorted({lk.properties.get("ib_rate") for lk in design.iter_links() if lk.medium != "pcie"})
    assert rates == ["4xDDR", "4xQDR"]
    # Host names come from the node-name map.
    assert design.device("x5570comp1-hca1").properties["guid"] == "H-003048c74e4a0000"


def test_x5_inferred_spines_match_the_cluster_s_own_list(x5):
    design, report = x5
    truth = {line.strip() for line in X5_SPINE.read_text().splitlines() if line.strip() and not line.startswith("#")}
    spines = {d.properties["guid"] for d in design.iter_devices() if d.tier == "spine"}
    assert spines == truth
    assert sorted(tiers(design).values()).count("leaf") == 6
    assert any(e.what == "tiers" for e in report.guessed)
    # The one spine that hangs off two others is said to be a guess, with its line.
    odd = [e for e in report.guessed if e.what == "S-0008f105001086a2"]
    assert odd and odd[0].line == 156


def test_x5_slurm_topology_gives_the_same_switch_hierarchy(x5):
    design, _ = x5
    slurm, report = import_file(X5_SLURM, x5_options(default_rate_gbps=32.0))
    assert switch_pairs(slurm) == switch_pairs(design)
    assert tiers(slurm) == tiers(design)
    assert report.format == "slurm"

    def hosts_by_leaf(d):
        devs = {x.id: x for x in d.iter_devices()}
        out: dict[str, set] = {}
        for lk in d.iter_links():
            for s, h in ((devs[lk.a_device], devs[lk.b_device]), (devs[lk.b_device], devs[lk.a_device])):
                if s.kind == "switch" and h.kind == "nic":
                    out.setdefault(s.id, set()).add(h.group)
        return out

    # The same 89 hosts under the same 6 leaves (the map names the dump's hosts as Slurm does).
    assert hosts_by_leaf(slurm) == hosts_by_leaf(design)
    assert sum(len(v) for v in hosts_by_leaf(design).values()) == 89


def test_degraded_links_are_design_rule_findings(x5):
    design, _ = x5
    findings = check_design(design)
    degraded = [f for f in findings if f.code == "degraded-link"]
    assert len(degraded) == 23
    assert "4xDDR" in degraded[0].message
    hit = {f.links[0] for f in degraded}
    assert not [f for f in findings if f.code == "speed-mismatch" and set(f.links) <= hit]


def test_imported_fabric_analyses_like_a_drawn_one(x5):
    from designer.analysis.report import analyze

    design, _ = x5
    report = analyze(design, sizes=[1 << 20, 1 << 30])
    assert report.ranks == 89 and report.servers == 89
    # 89 hosts, the slowest at 16 Gb/s (4xDDR): the bisection lies between a few and 89 x 32 Gb/s / 2.
    assert 0 < report.bisection.lower_bytes_per_s <= report.bisection.upper_bytes_per_s <= 89 * 4e9 / 2
    assert report.selected()
    assert report.bottlenecks


def _messy(text: str) -> bytes:
    lines = text.split("\n")
    body = "\r\n".join(["user@head:~$ ibnetdiscover", "ibwarn: [1234] mad_rpc_open_port: something", *lines])
    return b"\xef\xbb\xbf" + body.encode() + b"\r\n\r\n\r\n   \r\n"


def test_crlf_bom_prompt_and_trailing_blanks_read_the_same():
    clean = X5_DUMP.read_text()
    a, _ = import_bytes(clean.encode(), "x5", x5_options())
    b, report = import_bytes(_messy(clean), "x5", x5_options())
    assert design_to_text(a) == design_to_text(b)
    junk = [e for e in report.skipped if "before the first record" in e.reason]
    assert junk and junk[0].line == 1 and junk[0].what == "lines 1-2"


def test_records_not_separated_by_blank_lines():
    clean = X5_DUMP.read_text()
    packed = "\n".join(line for line in clean.split("\n") if line.strip())
    a, _ = import_bytes(clean.encode(), "x5", x5_options())
    b, _ = import_bytes(packed.encode(), "x5", x5_options())
    assert design_to_text(a) == design_to_text(b)


DIRECTOR = """\
vendid=0x2c9
sysimgguid=0xaaaa000000000001
switchguid=0xaaaa000000000010(aaaa000000000010)
Switch\t40 "S-aaaa000000000010"\t\t# "MF0;dir1:CS7500/L01/U1" enhanced port 0 lid 2 lmc 0
[1]\t"H-bbbb000000000001"[1](bbbb000000000002) \t\t# "gpu01 mlx5_0" lid 10 4xNDR
[2]\t"H-bbbb000000000003"[1](bbbb000000000004) \t\t# "gpu02 mlx5_0" lid 11 4xNDR
[3]\t"H-bbbb000000000005"[1](bbbb000000000006) \t\t# "gpu02 mlx5_1" lid 12 4xHDR
[20]\t"S-aaaa000000000020"[1]\t\t# "MF0;dir1:CS7500/S01/U1" lid 3 4xNDR
[21]\t"S-aaaa000000000020"[2]\t\t# "MF0;dir1:CS7500/S01/U1" lid 3 4xNDR
[30]\t"S-aaaa000000000010"[31]\t\t# "MF0;dir1:CS7500/L01/U1" lid 2 4xNDR
[37]\t"H-cccc000000000001"[1](cccc000000000002) \t\t# "Mellanox Technologies Aggregation Node" lid 9 4xNDR

vendid=0x2c9
sysimgguid=0xaaaa000000000001
switchguid=0xaaaa000000000020(aaaa000000000020)
Switch\t40 "S-aaaa000000000020"\t\t# "MF0;dir1:CS7500/S01/U1" enhanced port 0 lid 3 lmc 0
[1]\t"S-aaaa000000000010"[20]\t\t# "MF0;dir1:CS7500/L01/U1" lid 2 4xNDR
[2]\t"S-aaaa000000000010"[21]\t\t# "MF0;dir1:CS7500/L01/U1" lid 2 4xNDR

Ca\t1 "H-cccc000000000001"\t\t# "Mellanox Technologies Aggregation Node"
[1](cccc000000000002) \t"S-aaaa000000000010"[37]\t\t# lid 9 lmc 0 "MF0;dir1:CS7500/L01/U1" lid 2 4xNDR

Ca\t2 "H-bbbb000000000003"\t\t# "gpu02 mlx5_0"
[1](bbbb000000000004) \t"S-aaaa000000000010"[2]\t\t# lid 11 lmc 0 "MF0;dir1:CS7500/L01/U1" lid 2 4xNDR
"""


def test_director_blades_share_a_chassis_sharp_and_loopback():
    design, report = imp(DIRECTOR, "dir.ibnet")
    leaf, spine = design.device("S-aaaa000000000010"), design.device("S-aaaa000000000020")
    assert leaf.group == spine.group == "chassis-dir1"
    assert (leaf.tier, spine.tier) == ("leaf", "spine")
    assert leaf.properties["sharp"] is True and leaf.properties["protocol"] == "infiniband"
    assert leaf.properties["loopback_cables"] == [[30, 31]]
    # Two adapters described "gpu02 ..." are one host; the aggregation node is not a host.
    assert {g.id for g in design.iter_groups() if g.kind == "server"} == {"gpu01", "gpu02"}
    assert not [d for d in design.iter_devices() if "cccc" in d.id]
    codes = [f.code for f in check_design(design)]
    assert "loopback-cable" in codes and "degraded-link" in codes  # the HDR port on an NDR leaf
    rates = {lk.properties.get("ib_rate") for lk in design.iter_links()}
    assert {"4xNDR", "4xHDR"} <= rates
    assert max(p.speed_gbps for p in leaf.ports) == 400.0
    whats = " ".join(e.what + " " + e.reason for e in report.skipped)
    assert "SHARP aggregation node" in whats and "loopback" in whats
    # gpu01's adapter is named only by the leaf's port line: an undeclared peer, reported.
    assert any(e.what == "H-bbbb000000000001" for e in report.guessed)


def test_contradictions_are_skipped_with_their_line():
    text = DIRECTOR.replace('[2]\t"H-bbbb000000000003"[1](bbbb000000000004)',
                            '[2]\t"H-bbbb000000000001"[1](bbbb000000000002)', 1)
    text = text.replace("[37]", "[41]")
    design, report = imp(text, "c.ibnet")
    reasons = {e.line: e.reason for e in report.skipped}
    assert "already cabled" in reasons[6]
    assert any("port 41 of a 40-port node" in r for r in reasons.values())
    assert design.device_count() > 0


def test_ibdiagnet_link_list():
    lst = (
        "{ SW Ports:24 SystemGUID:0008f10400411f56 NodeGUID:0008f10400411f56 PortGUID:0008f10400411f56 "
        "VenID:000008F1 DevID:5A5A0000 Rev:000000A0 {ISR9024D Voltaire} LID:0004 PN:0E } "
        "{ CA Ports:02 SystemGUID:0002c90200231d83 NodeGUID:0002c90200231d80 PortGUID:0002c90200231d81 "
        "VenID:000002C9 DevID:62820000 Rev:000000A0 {node5 HCA-1} LID:0003 PN:01 } PHY=4x LOG=ACT SPD=5\n"
        "{ SW Ports:24 SystemGUID:0008f10400411f56 NodeGUID:0008f10400411f56 PortGUID:0008f10400411f56 "
        "VenID:000008F1 DevID:5A5A0000 Rev:000000A0 {ISR9024D Voltaire} LID:0004 PN:0F } "
        "{ CA Ports:02 SystemGUID:0002c90200231d93 NodeGUID:0002c90200231d90 PortGUID:0002c90200231d91 "
        "VenID:000002C9 DevID:62820000 Rev:000000A0 {node6 HCA-1} LID:0005 PN:01 } PHY=4x LOG=DWN SPD=5\n"
    )
    design, report = imp(lst, "ibdiagnet.lst")
    assert report.format == "ibdiagnet-lst"
    sw = design.device("S-0008f10400411f56")
    assert sw.port_count == 36 and sw.tier == "leaf"
    link = next(lk for lk in design.iter_links() if lk.medium != "pcie")
    assert (link.a_port, link.properties["ib_rate"]) == ("p14", "4xDDR")
    assert any("not active" in e.reason for e in report.skipped)


@pytest.mark.parametrize(("text", "words"), [
    ('Switch\t99999 "S-1"\t# "x"\n[1]\t"H-2"[1]\t# lid 1 4xQDR\n', "line 1: Switch 'S-1' claims 99,999 ports"),
    ("just some words\nand more words\n", "format not recognised"),
    ('Switch\t36 "S-1"\n' + "garbage line\n" * 30, "not an ibnetdiscover line"),
    ("\n\n  \n", "file is empty"),
])
def test_broken_input_is_refused_with_the_reason(text, words):
    with pytest.raises(ImportFileError) as err:
        imp(text, "bad.txt")
    assert words in str(err.value)
    assert "\n" not in str(err.value)


def test_binary_input_is_refused():
    with pytest.raises(ImportFileError, match="binary"):
        imp(b"\x00\x01\x02" * 100, "bad.bin")


def test_missing_speeds_take_the_fabric_s_common_rate():
    lines = X5_DUMP.read_text().split("\n")
    # Both sightings of one cable lose their speed: the cable of the adapter H-003048c707b60000.
    at = [i for i, line in enumerate(lines) if "3048c707b6" in line]
    for i in at:
        lines[i] = lines[i].replace("4xDDR", "")
    design, report = import_bytes("\n".join(lines).encode(), "x5", x5_options())
    guessed = [e for e in report.guessed if "no speed given" in e.reason]
    # 4xQDR carries 32 Gb/s (40 Gb/s signalling, 8b/10b).
    assert len(guessed) == 1 and "32 Gb/s" in guessed[0].reason and guessed[0].line
    assert report.counts["guessed"]["rate"] == 1


def test_a_large_fabric_imports_whole():
    """200 switches and 1,500 adapters in more than 1 MB of dump (benchmarks/bench_import.py times
    the same shape of dump; no timing here)."""
    lines = []
    leaves, spines, hosts_per_leaf = 100, 100, 15
    for s in range(spines):
        lines.append(f'switchguid=0x{0x100000 + s:x}\nSwitch\t128 "S-{0x100000 + s:016x}"\t# "spine{s}" lid {s}')
        for lf in range(leaves):
            lines.append(f'[{lf + 1}]\t"S-{0x200000 + lf:016x}"[{s + 1 + hosts_per_leaf}]\t# "leaf{lf}" lid 1 4xNDR')
    for lf in range(leaves):
        lines.append(f'switchguid=0x{0x200000 + lf:x}\nSwitch\t128 "S-{0x200000 + lf:016x}"\t# "leaf{lf}" lid {lf}')
        for h in range(hosts_per_leaf):
            lines.append(f'[{h + 1}]\t"H-{0x300000 + lf * 100 + h:016x}"[1]\t# "n{lf}-{h} HCA-1" lid 1 4xNDR')
        for s in range(spines):
            lines.append(f'[{s + 1 + hosts_per_leaf}]\t"S-{0x100000 + s:016x}"[{lf + 1}]\t# "spine" lid 1 4xNDR')
    for lf in range(leaves):
        for h in range(hosts_per_leaf):
            lines.append(f'Ca\t1 "H-{0x300000 + lf * 100 + h:016x}"\t# "n{lf}-{h} HCA-1"')
            lines.append(f'[1]\t"S-{0x200000 + lf:016x}"[{h + 1}]\t# lid 1 lmc 0 "leaf" lid 1 4xNDR')
    raw = "\n".join(lines).encode()
    design, report = imp(raw, "big.ibnet")
    assert report.read["switches"] == 200 and report.read["adapters"] == 1500 and len(raw) > 1_000_000
    assert sum(1 for d in design.iter_devices() if d.kind == "switch") == 200


def test_latin1_text_and_port_zero():
    text = DIRECTOR.replace('"gpu01 mlx5_0" lid 10', '"gpu01 caf\u00e9" lid 10', 1)
    text = text.replace("[21]\t\"S-aaaa000000000020\"[2]", "[21]\t\"S-aaaa000000000020\"[0]", 1)
    design, report = imp(text.encode("latin-1"), "latin.ibnet")
    enc = [e for e in report.guessed if e.what == "text encoding"]
    assert enc and enc[0].line == 5 and "Latin-1" in enc[0].reason
    assert any("management port" in e.reason for e in report.skipped)
    assert design.device_count() > 0


def test_ibnetdiscover_ports_listing():
    text = (
        "CA    44    1 0x0002c9030000000a 4x QDR - SW     7   14 0x0002c90300000001 ( 'node1 HCA-1' - 'leaf1' )\n"
        "SW     7   14 0x0002c90300000001 4x QDR - CA    44    1 0x0002c9030000000a ( 'leaf1' - 'node1 HCA-1' )\n"
        "SW     7    1 0x0002c90300000001 4x QDR - SW     9    3 0x0002c90300000002 ( 'leaf1' - 'spine1' )\n"
        "SW     9    3 0x0002c90300000002 4x QDR - SW     7    1 0x0002c90300000001 ( 'spine1' - 'leaf1' )\n"
        "SW     7    2 0x0002c90300000001 4x SDR\n"
        "CA    45    1 0x0002c9030000000b 4x DDR - SW     7   15 0x0002c90300000001 ( 'node2 HCA-1' - 'leaf1' )\n"
    )
    design, report = imp(text, "ports.txt")
    assert report.format == "ibnetdiscover-ports"
    assert {d.id: d.tier for d in design.iter_devices() if d.kind == "switch"} == \
        {"S-0002c90300000001": "leaf", "S-0002c90300000002": "spine"}
    assert {g.id for g in design.iter_groups()} == {"node1", "node2"}
    assert report.read["cables"] == 3
    assert [f.code for f in check_design(design) if f.code == "degraded-link"] == ["degraded-link"]
