"""SimAI topology files (the output of SimAI's topology generator).

Line 1: ``nodes gpus_per_server nvswitches switches links gpu_type``; line 2: the ids of the
NVSwitches and switches; then one link per line: ``src dst <rate>Gbps <latency>ms <error rate>``.
Node ids run GPUs first (``0 .. gpus-1``), then NVSwitches, then switches. A GPU's link to an
NVSwitch is NVLink; its link to a switch is its NIC port (SimAI does not draw the NIC: the GPU
keeps the network port itself). Each NVSwitch and the GPUs linked to it are one server group.
Parallel lines between the same two nodes are parallel links.
"""

from __future__ import annotations

import re
from collections import defaultdict

from designer.io.importers.base import (
    MAX_IMPORT_NODES,
    ImportFileError,
    ImportOptions,
    ImportReport,
    parse_rate_gbps,
)
from designer.io.importers.fabric import Fabric
from designer.model import Design
from designer.model.units import line_rate

NAME = "simai"
TITLE = "SimAI topology"
_HEADER = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)(?:\s+(\S+))?\s*$")
_LINK = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\S+)\s+(\S+)(?:\s+(\S+))?\s*$")
MAX_NODES = MAX_IMPORT_NODES


def _first_lines(text: str, n: int) -> list[str]:
    """The first ``n`` non-blank lines, however long (line 2 lists every switch id: megabytes on a large fabric)."""
    out: list[str] = []
    start = 0
    while len(out) < n and start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if text[start:end].strip():
            out.append(text[start:end])
        start = end + 1
    return out


def sniff(text: str) -> int:
    """How sure the text is a SimAI topology, from its structure: a header of five counts whose node
    count holds the NVSwitches and switches, a line of that many ids (any length), then a link line."""
    lines = _first_lines(text, 3)
    m = _HEADER.match(lines[0]) if lines else None
    if len(lines) < 3 or not m or not re.fullmatch(r"[\d\s]+", lines[1]):
        return 0
    nodes, _per, nvsw, sw = (int(m.group(i)) for i in range(1, 5))
    if nodes < nvsw + sw or not re.match(r"^\s*\d+\s+\d+\s+[\d.]+\s*[GMK]bps\b", lines[2], re.IGNORECASE):
        return 0
    ids = lines[1].split()
    return 85 if len(ids) == nvsw + sw else 60


def read(text: str, options: ImportOptions, report: ImportReport) -> Design:
    src = report.source
    lines = text.split("\n")
    numbered = [(n, line) for n, line in enumerate(lines, 1) if line.strip()]
    if len(numbered) < 2:
        raise ImportFileError(f"{src}: a SimAI topology has a header line and a line of switch ids")
    n0, head = numbered[0]
    m = _HEADER.match(head)
    if not m:
        raise ImportFileError(f"{src}: line {n0}: not 'nodes gpus_per_server nvswitches switches links gpu_type'")
    nodes, per_server, n_nvsw, n_sw, n_links = (int(m.group(i)) for i in range(1, 6))
    gpu_type = m.group(6) or ""
    gpus = nodes - n_nvsw - n_sw
    if nodes > MAX_NODES:
        raise ImportFileError(f"{src}: line {n0}: declares {nodes:,} nodes; an import holds at most {MAX_NODES:,}")
    if gpus < 0:
        raise ImportFileError(f"{src}: line {n0}: {nodes:,} nodes cannot hold {n_nvsw:,} NVSwitches and "
                              f"{n_sw:,} switches")
    n1, ids_line = numbered[1]
    try:
        listed = [int(t) for t in ids_line.split()]
    except ValueError:
        raise ImportFileError(f"{src}: line {n1}: the switch ids are not numbers") from None
    expected = list(range(gpus, nodes))
    if listed != expected:
        report.skip("the switch ids", f"line {n1} lists {len(listed)} ids, not {gpus}..{nodes - 1} as the header "
                    "says: the header is used", n1, "contradiction")
    fabric = Fabric(report)

    def kind(i: int) -> str:
        return "gpu" if i < gpus else "nvswitch" if i < gpus + n_nvsw else "switch"

    def key(i: int) -> str:
        return f"gpu{i}" if i < gpus else f"nvsw{i - gpus}" if i < gpus + n_nvsw else f"sw{i - gpus - n_nvsw}"

    links: list[tuple[int, int, float | None, int]] = []
    bad = 0
    for n, line in numbered[2:]:
        lm = _LINK.match(line)
        if not lm:
            bad += 1
            report.skip(f"{line.strip()[:60]!r}", "not 'src dst <rate>Gbps <latency>ms <error>'", n, "unreadable")
            continue
        a, b = int(lm.group(1)), int(lm.group(2))
        if a >= nodes or b >= nodes:
            report.skip(f"link {a} - {b}", f"node {max(a, b)} is beyond the {nodes:,} nodes of the header", n,
                        "contradiction")
            continue
        rate = parse_rate_gbps(lm.group(3))
        if rate is None:
            report.guess(f"link {a} - {b}", f"rate {lm.group(3)!r} does not read: the default rate", n, "rate")
        links.append((a, b, rate, n))
    if bad > max(20, len(links) // 5):
        raise ImportFileError(f"{src}: {bad:,} lines are not SimAI links")
    if len(links) != n_links:
        report.note(f"the header says {n_links:,} links; the file has {len(links):,}")
    # Servers: each NVSwitch with the GPUs it links to (else gpus_per_server GPUs in id order).
    server_of: dict[int, str] = {}
    for a, b, _, _ in links:
        for g, s in ((a, b), (b, a)):
            if kind(g) == "gpu" and kind(s) == "nvswitch" and g not in server_of:
                server_of[g] = f"server{s - gpus + 1}"
                server_of.setdefault(s, f"server{s - gpus + 1}")
    for i in range(nodes):
        k = kind(i)
        host = server_of.get(i, f"server{i // per_server + 1}" if k == "gpu" and per_server > 0 else "")
        fabric.add_node(key(i), k, n0, name="", host=host,
                        properties={"simai_id": i, **({"gpu_type": gpu_type} if k == "gpu" and gpu_type else {})})
    nvlink_rates = defaultdict(int)
    for a, b, rate, n in links:
        nv = {kind(a), kind(b)} == {"gpu", "nvswitch"}
        if nv and rate is not None:
            nvlink_rates[rate] += 1
        props = {"_medium": "nvlink"} if nv else {}
        fabric.add_edge(key(a), None, key(b), None, rate, n, **props)
    if nvlink_rates:
        top = max(nvlink_rates)
        if top < 400:
            report.note(f"NVLink at {line_rate(top)} per GPU: slower than any real NVLink domain (an A100 has "
                        "2.4 Tb/s); read as given")
    default = options.default_rate_gbps or 100.0
    reason = "the default rate given" if options.default_rate_gbps else "--default-rate sets it"
    design = fabric.build(f"SimAI topology ({re.split(r'[/]', src)[-1]})", options, default_rate_gbps=default,
                          rate_reason=reason)
    design.description = f"Imported from {src} (SimAI topology, {gpu_type or 'GPU type not given'})"
    return design
