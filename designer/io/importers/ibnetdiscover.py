"""InfiniBand fabrics: ``ibnetdiscover`` output (also ``--ports``), and ibdiagnet's link list (``.lst``).

ibnetdiscover prints one record per node: ``vendid=``/``sysimgguid=``/``switchguid=`` lines, a
header (``Switch 36 "S-0008f105..." # "description" ... lid 9``, ``Ca 1 "H-..."``, ``Rt``), then
one line per cabled port: ``[1] "S-0008f105..."[15] # "peer description" lid 16 4xQDR``. Every
cable is listed from both ends. ibdiagnet's ``.lst`` gives one line per cable with both ends in
braces and ``PHY=4x LOG=ACT SPD=10`` (lanes, state, Gb/s per lane).

Read: switches (port count, description, system image GUID), host adapters, cables with their
width and speed (1x..12x, SDR..XDR). Blades of a director switch share a system image GUID: they
stay separate switches grouped into one chassis. SHARP aggregation nodes (adapters described as
"Aggregation Node") are in-network reduction engines inside a switch: not hosts, they mark their
switch ``sharp``. A node-name map names hosts and switches. Tiers are inferred.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from designer.io.importers.base import (
    ImportFileError,
    ImportOptions,
    ImportReport,
    guid_key,
)
from designer.io.importers.fabric import Fabric
from designer.io.importers.hosts import host_of
from designer.io.importers.ib_rates import ibsim_speed, ibsim_width, link_gbps, speed_of_signal
from designer.model import Design
from designer.model.units import line_rate

NAME = "ibnetdiscover"
TITLE = "InfiniBand ibnetdiscover / ibdiagnet"

_MAX_NODE_PORTS = 4096

_KV = re.compile(r"^(vendid|devid|sysimgguid|switchguid|caguid|rtguid)\s*=\s*(\S+)", re.IGNORECASE)
_HEADER = re.compile(r'^(Switch|Ca|Hca|Rt)\s+(\d+)\s+"([^"]*)"\s*(.*)$')
#: A port line: ``[1] "peer"[15]``, with the port GUID (``[1](0002c9030001)``) or, on Quantum-2 switches,
#: the front-panel label (``[1](1/1/1)``: cage, split...) after either port number.
_PORT = re.compile(r'^\[(\d+)\](?:\(([^)]*)\))?\s*"([^"]*)"\s*\[(\d+)\](?:\(([^)]*)\))?\s*(.*)$')
#: ibsim ``net`` files: ``w=`` / ``s=`` after a port line (LinkWidthEnabled, LinkSpeedEnabled bits).
_IBSIM_OPT = re.compile(r"(?:^|\s)([ws])=(\d+)\b")
_RATE = re.compile(r"\b(\d+)[xX]\s*(SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR)\b")
_QUOTED = re.compile(r'"([^"]*)"')
#: A switch's part number in its node description (``MF0;leaf1:MQM8700/U1``, ``SwitchX -  Mellanox ...``).
_SWITCH_PART = re.compile(r":(M?Q[MS]\d{4}[\w-]*|CS\d{4}|SB\d{4}|MSB\d{4}|IS\d{4}|SX\d{4}|MSX\d{4})(?:/|$)")
_CHASSIS_DESC = re.compile(r"^(?:MF0;)?([^:;]+):([^/]+)/(.+)$")
_LST_NODE = re.compile(
    r"\{\s*(SW|CA|RT)\s+Ports:([0-9A-Fa-f]+)\s+SystemGUID:([0-9A-Fa-f]+)\s+NodeGUID:([0-9A-Fa-f]+)"
    r"(?:\s+\w+:[0-9A-Fa-f]+)*\s+\{([^}]*)\}\s+LID:([0-9A-Fa-f]+)\s+PN:([0-9A-Fa-f]+)\s*\}")
_LST_LINK = re.compile(r"PHY=(\d+)x\s+LOG=(\w+)\s+SPD=([\d.]+)")
#: ``ibnetdiscover --ports``: one line per port, ``SW 7 14 0x0002c90300000001 4x QDR - CA 44 1 0x... ( 'a' - 'b' )``.
_PORTS_END = r"(SW|CA|RT)\s+(\d+)\s+(\d+)\s+(0x[0-9A-Fa-f]+)"
_PORTS_LINE = re.compile(rf"^\s*{_PORTS_END}\s+(\d+)[xX]\s+(SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR)\b"
                         rf"(?:\s+-\s+{_PORTS_END}\s*(?:\(\s*'([^']*)'\s*-\s*'([^']*)'\s*\))?)?", re.MULTILINE)


def sniff(text: str) -> int:
    """How sure the text is ibnetdiscover (or ibdiagnet .lst) output, 0..100."""
    head = text[:200_000]
    headers = len(re.findall(r'^(?:Switch|Ca|Hca|Rt)\s+\d+\s+"', head, re.MULTILINE))
    ports = len(re.findall(r'^\[\d+\](?:\([^)]*\))?\s*"', head, re.MULTILINE))
    lst = len(re.findall(r"^\{\s*(?:SW|CA|RT)\s+Ports:", head, re.MULTILINE))
    if headers and ports:
        return 95
    if _PORTS_LINE.search(head):
        return 90
    if lst:
        return 90
    if headers or re.search(r"^(?:switchguid|caguid|sysimgguid)=", head, re.MULTILINE):
        return 60
    return 0


def _rate(comment: str) -> tuple[float | None, str]:
    """The data rate and label of a port line's ``4xQDR`` (ibnetdiscover) or ``w=``/``s=`` (ibsim)."""
    found = _RATE.findall(comment)
    if found:
        width, speed = found[-1]
        return link_gbps(int(width), speed), f"{width}x{speed.upper()}"
    opts = dict(_IBSIM_OPT.findall(comment.split("#", 1)[0]))
    width = ibsim_width(int(opts["w"])) if "w" in opts else 0
    speed = ibsim_speed(int(opts["s"])) if "s" in opts else ""
    if width and speed:
        return link_gbps(width, speed), f"{width}x{speed}"
    return None, ""


class _Record:
    __slots__ = ("kind", "ports", "key", "desc", "line", "sysimg", "links")

    def __init__(self, kind: str, ports: int, key: str, desc: str, line: int, sysimg: str) -> None:
        self.kind, self.ports, self.key, self.desc, self.line, self.sysimg = kind, ports, key, desc, line, sysimg
        self.links: list[tuple[int, str, int, float | None, str, int]] = []


def _parse_ibnetdiscover(lines: list[str], report: ImportReport) -> list[_Record]:
    src = report.source
    records: list[_Record] = []
    peer_desc: dict[str, tuple[str, int]] = {}  # a peer's description, as its neighbours' port lines give it
    current: _Record | None = None
    sysimg = ""
    junk_before: list[int] = []
    unknown: list[tuple[int, str]] = []
    recognised = 0
    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _KV.match(line)
        if m:
            recognised += 1
            key = m.group(1).lower()
            if key == "sysimgguid":
                sysimg = guid_key(m.group(2))
            elif key == "vendid":
                current = None
            continue
        m = _HEADER.match(line)
        if m:
            recognised += 1
            kind, count, key, rest = m.group(1), int(m.group(2)), m.group(3), m.group(4)
            if kind == "Hca":  # ibsim's net files
                kind = "Ca"
                report.format = "ibsim"
            if not key:
                raise ImportFileError(f"{src}: line {n}: a {kind} with an empty name")
            if count < 1 or count > _MAX_NODE_PORTS:
                raise ImportFileError(f"{src}: line {n}: {kind} {key!r} claims {count:,} ports "
                                      f"(a node has 1 to {_MAX_NODE_PORTS:,})")
            q = _QUOTED.search(rest.split("#", 1)[1]) if "#" in rest else None
            current = _Record(kind, count, key, q.group(1) if q else "", n, sysimg)
            records.append(current)
            sysimg = ""
            continue
        m = _PORT.match(line)
        if m:
            recognised += 1
            if current is None:
                report.skip(f"port line {line[:60]!r}", "not under a Switch, Ca or Rt header", n, "orphan port")
                continue
            port, peer, peer_port = int(m.group(1)), m.group(3), int(m.group(4))
            rate, label = _rate(m.group(6))
            current.links.append((port, peer, peer_port, rate, label, n))
            q = _QUOTED.search(m.group(6))
            if q and peer not in peer_desc:
                peer_desc[peer] = (q.group(1), n)
            continue
        if not records:
            junk_before.append(n)
        else:
            unknown.append((n, line))
    if junk_before:
        first, last = junk_before[0], junk_before[-1]
        where = f"lines {first}-{last}" if last != first else f"line {first}"
        report.skip(where, "before the first record (a shell prompt or a title): ignored", first, "junk")
    for n, line in unknown:
        report.skip(f"{line[:60]!r}", "not an ibnetdiscover line: ignored", n, "unreadable")
    if not records:
        raise ImportFileError(f"{src}: no Switch, Ca or Rt record: not ibnetdiscover output")
    # Nodes named only by their neighbours' port lines (a dump cut short, or run with -s): their
    # description and highest port come from those lines.
    declared = {r.key for r in records}
    top_port: dict[str, int] = defaultdict(int)
    for r in records:
        for _, peer, peer_port, *_ in r.links:
            top_port[peer] = max(top_port[peer], peer_port)
    for peer in sorted(set(top_port) - declared):
        desc, n = peer_desc.get(peer, ("", 0))
        kind = "Switch" if peer.startswith("S-") else "Rt" if peer.startswith("R-") else "Ca"
        records.append(_Record(kind, max(1, top_port[peer]), peer, desc, n, ""))
        report.guess(peer, f"no record of its own: a {'switch' if kind == 'Switch' else 'host adapter'} read from "
                     "its neighbours' port lines", n, "undeclared peer")
    if len(unknown) > max(20, recognised // 5):
        n, line = unknown[0]
        raise ImportFileError(f"{src}: line {n}: not an ibnetdiscover line ({len(unknown):,} such lines): "
                              f"{line[:60]!r}")
    return records


def _parse_lst(lines: list[str], report: ImportReport) -> list[_Record]:
    src = report.source
    nodes: dict[str, _Record] = {}
    bad = 0
    recognised = 0
    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        ends = _LST_NODE.findall(line)
        link = _LST_LINK.search(line)
        if len(ends) != 2 or not link:
            if recognised:
                bad += 1
            report.skip(f"{line[:60]!r}", "not an ibdiagnet link line: ignored", n,
                        "unreadable" if recognised else "junk")
            continue
        recognised += 1
        width, state, lane = int(link.group(1)), link.group(2).upper(), float(link.group(3))
        recs = []
        for kind, ports, system, node_guid, desc, _lid, _pn in ends:
            prefix = {"SW": "S", "CA": "H", "RT": "R"}[kind]
            key = f"{prefix}-{node_guid.lower()}"
            rec = nodes.get(key)
            if rec is None:
                count = int(ports, 16)
                if count < 1 or count > _MAX_NODE_PORTS:
                    raise ImportFileError(f"{src}: line {n}: {key} claims {count:,} ports")
                rec = nodes[key] = _Record({"SW": "Switch", "CA": "Ca", "RT": "Rt"}[kind], count, key, desc.strip(),
                                           n, guid_key(system))
            recs.append(rec)
        if state != "ACT":
            report.skip(f"cable {recs[0].key}[{int(ends[0][6], 16)}] - {recs[1].key}[{int(ends[1][6], 16)}]",
                        f"link state {state}, not active: carries nothing", n, "inactive")
            continue
        speed = speed_of_signal(lane)
        rate = link_gbps(width, speed) if speed else width * lane
        label = f"{width}x{speed}" if speed else f"{width}x{lane:g}G/lane"
        recs[0].links.append((int(ends[0][6], 16), recs[1].key, int(ends[1][6], 16), rate, label, n))
    if not nodes:
        raise ImportFileError(f"{src}: no ibdiagnet link line ('{{ SW Ports:.. }} {{ CA ..}} PHY=4x LOG=ACT SPD=..')")
    if bad > max(20, recognised // 5):
        raise ImportFileError(f"{src}: {bad:,} lines are not ibdiagnet link lines")
    return list(nodes.values())


def _parse_ports(lines: list[str], report: ImportReport) -> list[_Record]:
    """``ibnetdiscover --ports`` output: nodes known by GUID, their port counts from the ports listed."""
    src = report.source
    nodes: dict[str, _Record] = {}
    bad = 0
    recognised = 0
    kinds = {"SW": "Switch", "CA": "Ca", "RT": "Rt"}
    prefix = {"SW": "S", "CA": "H", "RT": "R"}

    def node(kind: str, guid: str, port: int, desc: str, n: int) -> _Record:
        key = f"{prefix[kind]}-{guid[2:].lower().zfill(16)}"
        rec = nodes.get(key)
        if rec is None:
            rec = nodes[key] = _Record(kinds[kind], port, key, desc, n, "")
        rec.ports = max(rec.ports, port)
        if desc and not rec.desc:
            rec.desc = desc
        return rec

    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _PORTS_LINE.match(line)
        if not m:
            if recognised:
                bad += 1
            report.skip(f"{line[:60]!r}", "not an ibnetdiscover --ports line: ignored", n,
                        "unreadable" if recognised else "junk")
            continue
        recognised += 1
        kind, _lid, port, guid, width, speed = m.group(1), m.group(2), int(m.group(3)), m.group(4), m.group(5), \
            m.group(6).upper()
        if port > _MAX_NODE_PORTS or (m.group(9) and int(m.group(9)) > _MAX_NODE_PORTS):
            raise ImportFileError(f"{src}: line {n}: port {max(port, int(m.group(9) or 0)):,} (a node has at most "
                                  f"{_MAX_NODE_PORTS:,})")
        me = node(kind, guid, port, m.group(11) or "", n)
        if not m.group(7):
            continue  # a port with nothing cabled
        peer = node(m.group(7), m.group(10), int(m.group(9)), m.group(12) or "", n)
        me.links.append((port, peer.key, int(m.group(9)), link_gbps(int(width), speed), f"{width}x{speed}", n))
    if not nodes:
        raise ImportFileError(f"{src}: no ibnetdiscover --ports line")
    if bad > max(20, recognised // 5):
        raise ImportFileError(f"{src}: {bad:,} lines are not ibnetdiscover --ports lines")
    return list(nodes.values())


def read(text: str, options: ImportOptions, report: ImportReport) -> Design:
    lines = text.split("\n")
    head = text[:200_000]
    lst = bool(re.search(r"^\s*\{\s*(?:SW|CA|RT)\s+Ports:", head, re.MULTILINE))
    ports_list = not lst and not re.search(r'^(?:Switch|Ca|Hca|Rt)\s+\d+\s+"', head, re.MULTILINE) and \
        bool(_PORTS_LINE.search(head))
    if lst:
        report.format = "ibdiagnet-lst"
        records = _parse_lst(lines, report)
    elif ports_list:
        report.format = "ibnetdiscover-ports"
        records = _parse_ports(lines, report)
    else:
        report.format = NAME
        records = _parse_ibnetdiscover(lines, report)
        if report.format == "ibsim":
            report.note("ibsim net file: Hca records are host adapters; w=/s= are the enabled width and speed bits")
    names = options.name_map

    def mapped(key: str) -> str:
        return names.get(key) or names.get(guid_key(key)) or ""

    sharp = {r.key for r in records if r.kind == "Ca" and "aggregation node" in r.desc.lower()}
    fabric = Fabric(report, mirrored=True)
    by_sysimg: dict[str, list[_Record]] = defaultdict(list)
    for r in records:
        if r.kind != "Ca" and r.sysimg:
            by_sysimg[r.sysimg].append(r)
    chassis_name: dict[str, str] = {}
    for sysimg, members in by_sysimg.items():
        if len(members) < 2:
            continue
        m = _CHASSIS_DESC.match(members[0].desc)
        chassis_name[sysimg] = mapped(sysimg) or (m.group(1).strip() if m else "") or f"sysimg-{sysimg}"
    for r in records:
        if r.key in sharp:
            continue
        if r.kind == "Ca":
            host = host_of(r.key, mapped(r.key), r.desc, options)
            props = {"guid": r.key, "description": r.desc}
            if r.desc and not host_of("", "", r.desc, ImportOptions()):
                props["part"] = r.desc  # the adapter's make ("MT25408 ConnectX Mellanox Technologies"), not a host
            fabric.add_node(r.key, "adapter", r.line, ports=r.ports, name=host or r.desc, host=host,
                            id_hint=host or r.key, properties=props)
        else:
            name = mapped(r.key)
            props = {"guid": r.key, "description": r.desc, "protocol": "infiniband"}
            part = _SWITCH_PART.search(r.desc)
            if part:
                props["part"] = f"InfiniBand switch {part.group(1)}" + (f" ({r.ports} ports)" if r.ports else "")
            if r.kind == "Rt":
                props["ib_router"] = True
                report.guess(r.key, "an InfiniBand router: read as a switch with no tier", r.line, "router")
            chassis = chassis_name.get(r.sysimg, "")
            if chassis:
                props["chassis"] = chassis
            fabric.add_node(r.key, "switch", r.line, ports=r.ports, name=name or r.desc, id_hint=name or r.key,
                            chassis=chassis, tier="router" if r.kind == "Rt" else "", properties=props)
    for r in records:
        if r.key in sharp:
            continue
        for port, peer, peer_port, rate, label, n in r.links:
            if port > r.ports:
                report.skip(f"{r.key}[{port}]", f"port {port} of a {r.ports}-port node (line {r.line}): ignored", n,
                            "contradiction")
                continue
            if port < 1 or peer_port < 1:
                report.skip(f"{r.key}[{port}] - {peer}[{peer_port}]", "port 0 is a switch's management port, not a "
                            "cable: ignored", n, "contradiction")
                continue
            if peer in sharp:
                node = fabric.nodes.get(r.key)
                if node is not None and not node.properties.get("sharp"):
                    node.properties["sharp"] = True
                    report.skip(f"SHARP aggregation node {peer}", f"in-network reduction inside switch {r.key}: not "
                                "a host, marked as the switch's 'sharp' property", n, "sharp")
                continue
            props = {"ib_rate": label} if label else {}
            fabric.add_edge(r.key, port, peer, peer_port, rate, n, **props)
    rates = Counter(e.rate_gbps for e in fabric.edges if e.rate_gbps)
    if options.default_rate_gbps:
        default, why = options.default_rate_gbps, "the default rate given"
    elif rates:
        default, why = rates.most_common(1)[0][0], "the fabric's most common link rate"
    else:
        default, why = 100.0, "no link gives a speed: 4xEDR assumed; --default-rate sets it"
    if len(chassis_name):
        report.note(f"{len(chassis_name)} director chassis: blades kept as switches, grouped by system image GUID")
    if rates:
        mix = ", ".join(f"{n:,} at {line_rate(r)}" for r, n in sorted(rates.items(), reverse=True))
        report.note(f"cables: {mix}")
    design = fabric.build(_design_name(report.source, "InfiniBand fabric"), options, default_rate_gbps=default,
                          rate_reason=why)
    design.description = f"Imported from {report.source} ({report.format})"
    return design


def _design_name(source: str, what: str) -> str:
    base = re.split(r"[\\/]", source)[-1]
    return f"{what} ({base})" if base and base != "<stdin>" else what
