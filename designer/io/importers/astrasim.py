"""ASTRA-sim analytical network configurations (YAML) as a stacked-dimension design.

``topology: [Switch, Ring]``, ``npus_count: [8, 4]``, ``bandwidth: [400, 50]`` (GB/s per link per
direction), ``latency: [936.25, 1000]`` (ns). NPU ``i`` has coordinate ``(i // (n0 * .. * n(d-1))) % nd``
in dimension ``d``; the NPUs that differ only in dimension ``d`` form one group of that dimension:

- ``Switch``: one switch per group, one link from each NPU to it (dimension 0: an ``nvswitch``, the
  scale-up domain; others: a leaf ``switch``);
- ``Ring``: a ring through the group (two NPUs: one link);
- ``FullyConnected``: a link between every two NPUs of the group.

Dimension 0 is the scale-up domain (NVLink medium, ``nvl`` ports, one server group per group) when a
later dimension is slower, as in GPU servers, or when its links are faster than any network port;
otherwise (a torus of TPUs) all links are network links. Latencies are kept in the design's properties.
"""

from __future__ import annotations

import math
import re

from designer.io.importers.base import ImportFileError, ImportOptions, ImportReport
from designer.io.importers.layout import HostBlock, lay_out_fabric, lay_out_grid
from designer.io.importers.yamlfile import load_yaml
from designer.model import Design, Device, Group, Link, PortGroup
from designer.model.entities import MAX_PORT_GBPS, MIN_PORT_GBPS
from designer.model.units import BITS_PER_BYTE, line_rate

NAME = "astrasim"
TITLE = "ASTRA-sim network configuration"
SHAPES = {"ring": "Ring", "switch": "Switch", "fullyconnected": "FullyConnected"}
MAX_NPUS = 100_000
#: The fastest network port of the catalog (Gb/s): a faster link is a scale-up (NVLink-class) link.
SCALE_OUT_MAX_GBPS = 800.0
NETWORK_PREFIXES = ("p", "q", "r", "s", "t", "u", "v", "w")


def sniff(text: str) -> int:
    head = text[:20_000]
    if re.search(r"^\s*topology\s*:\s*\[", head, re.MULTILINE) and re.search(r"^\s*npus_count\s*:", head,
                                                                              re.MULTILINE):
        return 85
    return 0


def _numbers(doc, key: str, src: str, options: ImportOptions, report: ImportReport, dims: int) -> list[float]:
    node = doc.child(key)
    if node is None or not isinstance(node.value, list):
        raise ImportFileError(f"{src}: no '{key}: [..]' list")
    if len(node.value) != dims:
        raise ImportFileError(f"{src}: line {node.line}: {key} has {len(node.value)} entries for {dims} dimensions")
    out = []
    for i, item in enumerate(node.items()):
        v = item.value
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0:
            out.append(float(v))
        elif key == "bandwidth" and options.default_rate_gbps:
            out.append(options.default_rate_gbps / BITS_PER_BYTE)
            report.guess(f"bandwidth of dimension {i + 1}", f"{v!r} is not a number: the default rate "
                         f"{line_rate(options.default_rate_gbps)}", item.line, "rate")
        elif key == "latency":
            out.append(0.0)
            report.skip(f"latency of dimension {i + 1}", f"{v!r} is not a number: not kept", item.line, "latency")
        else:
            hint = "; give --default-rate to import it anyway" if key == "bandwidth" else ""
            raise ImportFileError(f"{src}: line {item.line}: {key} of dimension {i + 1} is {v!r}, not a positive "
                                  f"number{hint}")
    return out


def _read_shapes(doc, src: str) -> list[str]:
    """The shape of each dimension (``topology: [..]``), refusing an unknown one."""
    topo = doc.child("topology")
    if topo is None or not isinstance(topo.value, list) or not topo.value:
        raise ImportFileError(f"{src}: no 'topology: [..]' list of dimensions")
    shapes = []
    for i, item in enumerate(topo.items()):
        shape = SHAPES.get(str(item.value).strip().lower().replace("_", "").replace("-", ""))
        if shape is None:
            raise ImportFileError(f"{src}: line {item.line}: dimension {i + 1} is {item.value!r}: use Ring, Switch "
                                  "or FullyConnected")
        shapes.append(shape)
    return shapes


def _read_counts(doc, src: str, dims: int) -> list[int]:
    """NPUs per dimension (``npus_count: [..]``), refusing a wrong length, a bad count or too many NPUs."""
    counts_node = doc.child("npus_count")
    if counts_node is None or not isinstance(counts_node.value, list) or len(counts_node.value) != dims:
        line = counts_node.line if counts_node is not None else doc.child("topology").line
        raise ImportFileError(f"{src}: line {line}: npus_count needs one count for each of the {dims} dimensions")
    counts = []
    for i, item in enumerate(counts_node.items()):
        if isinstance(item.value, bool) or not isinstance(item.value, int) or item.value < 1:
            raise ImportFileError(f"{src}: line {item.line}: npus_count of dimension {i + 1} is {item.value!r}, "
                                  "not a positive whole number")
        counts.append(item.value)
    total = math.prod(counts)
    if total > MAX_NPUS:
        raise ImportFileError(f"{src}: line {counts_node.line}: {total:,} NPUs (at most {MAX_NPUS:,})")
    return counts


def _check_rates(rates: list[float], src: str) -> None:
    """Refuse a dimension whose link rate no port can have."""
    for i, r in enumerate(rates):
        if not MIN_PORT_GBPS <= r <= MAX_PORT_GBPS:
            raise ImportFileError(f"{src}: bandwidth of dimension {i + 1}: {line_rate(r)} is outside "
                                  f"{line_rate(MIN_PORT_GBPS)} .. {line_rate(MAX_PORT_GBPS)}")


def _check_comments(text: str, total: int, report: ImportReport) -> None:
    """Report comments that give another NPU count than ``npus_count``."""
    for n, line in enumerate(text.split("\n"), 1):
        m = re.search(r"#.*?\b(\d+)\s+NPUs\b", line)
        if m and int(m.group(1)) != total:
            report.skip(f"comment '{line.strip()[:50]}'", f"says {m.group(1)} NPUs, npus_count gives {total:,}: "
                        "the counts are used", n, "contradiction")


def _is_scale_up(rates: list[float], line: int, report: ImportReport) -> bool:
    """Whether dimension 0 is the scale-up domain (see the module docstring); the report says why."""
    dims = len(rates)
    slower_later = dims > 1 and any(rates[d] < rates[0] for d in range(1, dims))
    scale_up = slower_later or rates[0] > SCALE_OUT_MAX_GBPS
    why = ("a later dimension is slower" if slower_later else
           f"{line_rate(rates[0])} per link is faster than any network port ({line_rate(SCALE_OUT_MAX_GBPS)})")
    report.guess("dimension 1", f"the scale-up domain (NVLink, one server per group): {why}" if scale_up else
                 "a network dimension like the others (no dimension is slower)", line, "scale-up")
    return scale_up


def _group_key(i: int, d: int, counts: list[int]) -> tuple:
    """NPU ``i``'s coordinates in every dimension but ``d``: equal for the NPUs of one group of ``d``."""
    return tuple((i // math.prod(counts[:e])) % counts[e] for e in range(len(counts)) if e != d)


def _wire(shapes: list[str], counts: list[int], scale_up: bool) -> tuple[
        list[list[int]], list[tuple[int, int, int]], list[tuple[str, int, list[int]]]]:
    """Every group of every dimension wired by its shape: ports per NPU per dimension, NPU-to-NPU
    pairs as (a, b, dim), and switches as (id, dim, members)."""
    total = math.prod(counts)
    degree = [[0] * len(shapes) for _ in range(total)]
    pairs: list[tuple[int, int, int]] = []
    switches: list[tuple[str, int, list[int]]] = []
    for d, shape in enumerate(shapes):
        groups: dict[tuple, list[int]] = {}
        for i in range(total):
            groups.setdefault(_group_key(i, d, counts), []).append(i)
        for gi, members in enumerate(groups.values(), 1):
            k = len(members)
            if k < 2:
                continue
            if shape == "Switch":
                switches.append((f"{'nvsw' if d == 0 and scale_up else 'sw'}{d + 1}-{gi}", d, members))
                for m in members:
                    degree[m][d] += 1
                continue
            if shape == "Ring":
                ends = [(members[j], members[(j + 1) % k]) for j in range(k if k > 2 else 1)]
            else:
                ends = [(members[x], members[y]) for x in range(k) for y in range(x + 1, k)]
            for a, b in ends:
                pairs.append((a, b, d))
                degree[a][d] += 1
                degree[b][d] += 1
    return degree, pairs, switches


def _npus(counts: list[int], rates: list[float], degree: list[list[int]], prefix: dict[int, str],
          scale_up: bool) -> tuple[list[Group], list[Device], dict[int, str]]:
    """The NPUs as GPUs with a port group per dimension, in one server group per scale-up group."""
    total = math.prod(counts)
    groups_out: list[Group] = []
    server_of: dict[int, str] = {}
    if scale_up:
        by_server: dict[tuple, list[int]] = {}
        for i in range(total):
            by_server.setdefault(_group_key(i, 0, counts), []).append(i)
        for si, members in enumerate(by_server.values(), 1):
            groups_out.append(Group(f"server{si}", "server"))
            for m in members:
                server_of[m] = f"server{si}"
    devices = []
    for i in range(total):
        ports = tuple(PortGroup(prefix[d], degree[i][d], rates[d], kind="nvlink" if prefix[d] == "nvl" else "network")
                      for d in range(len(counts)) if degree[i][d])
        devices.append(Device(f"npu{i}", "gpu", ports or (PortGroup("p", 1, rates[0]),), group=server_of.get(i)))
    return groups_out, devices, server_of


def _cable(switches: list[tuple[str, int, list[int]]], pairs: list[tuple[int, int, int]], rates: list[float],
           prefix: dict[int, str], server_of: dict[int, str]) -> tuple[list[Device], list[Link]]:
    """The switches, and the links: each NPU to its switches, then the NPU-to-NPU pairs."""
    used: dict[tuple[int, int], int] = {}
    switch_devs: list[Device] = []
    links: list[Link] = []

    def next_port(i: int, d: int) -> str:
        used[i, d] = used.get((i, d), 0) + 1
        return f"{prefix[d]}{used[i, d]}"

    def medium(d: int) -> tuple[str, float, str]:
        return ("nvlink", 0.0, "nvlink-board") if prefix[d] == "nvl" else ("optical", 3.0, "")

    for sid, d, members in switches:
        is_nv = prefix[d] == "nvl"
        switch_devs.append(Device(sid, "nvswitch" if is_nv else "switch",
                                  (PortGroup(prefix[d] if is_nv else "p", len(members), rates[d],
                                             kind="nvlink" if is_nv else "network"),),
                                  tier="" if is_nv else "leaf", group=server_of.get(members[0]) if is_nv else None))
        for j, m in enumerate(members, 1):
            med, length, cable = medium(d)
            links.append(Link(f"npu{m}--{sid}", f"npu{m}", next_port(m, d), sid,
                              f"{prefix[d] if is_nv else 'p'}{j}", medium=med, length_m=length, cable=cable))
    for n, (a, b, d) in enumerate(pairs, 1):
        med, length, cable = medium(d)
        links.append(Link(f"d{d + 1}-l{n}", f"npu{a}", next_port(a, d), f"npu{b}", next_port(b, d), medium=med,
                          length_m=length, cable=cable))
    return switch_devs, links


def _lay_out(devices: list[Device], groups: list[Group], links: list[Link], scale_up: bool) -> None:
    """Servers under the leaf switches they reach (GPUs in two rows past four); a torus in a grid."""
    if not scale_up:
        lay_out_grid(devices)
        return
    blocks = []
    by_group: dict[str, list[str]] = {}
    for dev in devices:
        if dev.group:
            by_group.setdefault(dev.group, []).append(dev.id)
    for gid, members in by_group.items():
        sw = [m for m in members if not m.startswith("npu")]
        gpus = [m for m in members if m.startswith("npu")]
        half = (len(gpus) + 1) // 2 if len(gpus) > 4 else len(gpus)
        cols = [[gpus[j], *([gpus[j + half]] if len(gpus) > 4 and j + half < len(gpus) else [])]
                for j in range(half)]
        blocks.append(HostBlock(gid, ([sw] if sw else []) + cols))
    lay_out_fabric(devices, groups, links, blocks)


def read(text: str, options: ImportOptions, report: ImportReport) -> Design:
    src = report.source
    doc = load_yaml(text, src)
    if not isinstance(doc.value, dict):
        raise ImportFileError(f"{src}: not an ASTRA-sim network configuration (a mapping with 'topology')")
    shapes = _read_shapes(doc, src)
    dims = len(shapes)
    counts = _read_counts(doc, src, dims)
    total = math.prod(counts)
    bandwidth = _numbers(doc, "bandwidth", src, options, report, dims)
    latency = _numbers(doc, "latency", src, options, report, dims) if doc.child("latency") is not None else []
    rates = [b * BITS_PER_BYTE for b in bandwidth]  # GB/s -> Gb/s, per direction
    _check_rates(rates, src)
    _check_comments(text, total, report)
    scale_up = _is_scale_up(rates, doc.child("topology").line, report)
    network_dims = dims - (1 if scale_up else 0)
    if network_dims > len(NETWORK_PREFIXES):
        raise ImportFileError(f"{src}: line {doc.child('topology').line}: {network_dims} network dimensions "
                              f"(at most {len(NETWORK_PREFIXES)}: each NPU gets one port group per dimension)")
    degree, pairs, switches = _wire(shapes, counts, scale_up)
    net = iter(NETWORK_PREFIXES)
    prefix = {d: "nvl" if d == 0 and scale_up else next(net) for d in range(dims)}
    groups_out, devices, server_of = _npus(counts, rates, degree, prefix, scale_up)
    switch_devs, out_links = _cable(switches, pairs, rates, prefix, server_of)
    devices += switch_devs
    if any(prefix[d] != "nvl" for d in range(dims)):
        report.guess("network links", "length and medium not in the file: 3 m optical, no catalog cable", 0, "cables")
    _lay_out(devices, groups_out, out_links, scale_up)
    design = Design(f"ASTRA-sim network ({re.split(r'[/]', src)[-1]})")
    design.extend(groups_out, devices, out_links)
    design.description = f"Imported from {src} (ASTRA-sim network: {' x '.join(map(str, counts))} NPUs)"
    design.properties["astra_sim"] = {"topology": shapes, "npus_count": counts, "bandwidth_GBps": bandwidth,
                                      **({"latency_ns": latency} if latency else {})}
    report.read.update({"dimensions": dims, "npus": total, "switches": len(switches), "links": len(out_links)})
    return design
