"""GML and GraphML graphs (networkx readers): nodes are devices, edges are links.

Our own GraphML export (``topo-designer export --graphml``; graph attribute ``format`` =
``topo-designer-graph``) is read back exactly: devices with their kinds, models, tiers, groups,
positions and ports, links with their ids, ports, media, cables and lengths. Any other graph
(the Internet Topology Zoo's GML, a yEd drawing) is read through an attribute mapping:

- kind: node attribute ``kind`` (or ``type``; option ``kind``): a device kind, ``router`` /
  ``switch`` (a switch), ``host`` / ``server`` (a host adapter with GPUs behind it). Without one,
  every node is a switch (a router of a backbone network), reported.
- rate: edge attribute given by option ``rate`` (with ``rate_unit`` K/M/G/T or ``bps``), else the
  first of ``LinkSpeedRaw`` (bit/s), ``LinkSpeed`` with ``LinkSpeedUnits``, ``line_rate_gbps``,
  ``speed``, ``rate``, ``bandwidth``, ``capacity``, then a label (``LinkLabel``, ``label``) read by
  :func:`~designer.io.importers.base.parse_rate_gbps` when it names one rate ("OC-192c", "10GE",
  "2.5 Gbit/s"); ranges ("1-2.5 Gb/s") and words ("DWDM") are not guessed: the default rate is,
  and the report says so.
- tier: node attribute ``tier`` (option ``tier``); name: ``label`` / ``name`` (option ``name``).
- position: ``x``/``y``, else ``Longitude``/``Latitude`` (a map, north up), else by tiers.
"""

from __future__ import annotations

import re
import warnings
from collections import defaultdict
from typing import Any

import networkx as nx

from designer.io.graphml import GRAPH_FORMAT, attribute_number, design_from_graph
from designer.io.importers.base import (
    MAX_IMPORT_NODES,
    ImportFileError,
    ImportOptions,
    ImportReport,
    parse_rate_gbps,
    safe_id,
)
from designer.io.importers.fabric import Fabric
from designer.io.importers.layout import lay_out_coordinates, lay_out_grid
from designer.model import Design, DesignError
from designer.model.entities import DEVICE_KINDS

DEFAULT_RATE_GBPS = 10.0
_RATE_KEYS = ("line_rate_gbps", "speed", "rate", "bandwidth", "capacity", "bw")
_LABEL_KEYS = ("LinkLabel", "LinkType", "label", "LinkNote")
_KIND_WORDS = {"router": "switch", "switch": "switch", "host": "adapter", "server": "adapter", "node": "adapter",
               "endpoint": "adapter"}
MAX_GRAPH_NODES = MAX_IMPORT_NODES
_GML_NODE = re.compile(r"\bnode\s*\[")
_GRAPHML_NODE = re.compile(r"<(?:\w+:)?node[\s/>]")


def _natural(text: str) -> tuple:
    return tuple(int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", text))


class _Format:
    def __init__(self, name: str, title: str) -> None:
        self.NAME = name
        self.TITLE = title

    def sniff(self, text: str) -> int:
        head = text[:20_000]
        if self.NAME == "graphml":
            return 95 if re.search(r"<graphml[\s>]", head) else 0
        if re.search(r"(?m)^\s*graph\s*\[", head) or re.search(r"^\s*graph\s*\[", head):
            return 85
        return 0

    def read(self, text: str, options: ImportOptions, report: ImportReport) -> Design:
        # Counted before parsing (an upper bound: a "node [" inside a string counts too), so a small
        # file declaring a million nodes is refused at once instead of parsed for a minute.
        declared = len((_GRAPHML_NODE if self.NAME == "graphml" else _GML_NODE).findall(text))
        if declared > MAX_GRAPH_NODES:
            raise ImportFileError(f"{report.source}: declares {declared:,} nodes; an import holds at most "
                                  f"{MAX_GRAPH_NODES:,}")
        graph = _parse_graphml(text, report) if self.NAME == "graphml" else _parse_gml(text, report)
        if graph.number_of_nodes() > MAX_GRAPH_NODES:
            raise ImportFileError(f"{report.source}: {graph.number_of_nodes():,} nodes (at most {MAX_GRAPH_NODES:,})")
        if graph.graph.get("format") == GRAPH_FORMAT:
            report.format = "graphml (topo-designer export)"
            try:
                return design_from_graph(graph, report, options.catalog)
            except DesignError as e:
                raise ImportFileError(str(e)) from None
        return _from_foreign_graph(graph, options, report)


GML = _Format("gml", "GML graph (Internet Topology Zoo, yEd...)")
GRAPHML = _Format("graphml", "GraphML graph (our export, yEd, Gephi, networkx)")


def _parse_graphml(text: str, report: ImportReport) -> nx.MultiGraph:
    src = report.source
    head = text[:100_000]
    if "<!DOCTYPE" in head or "<!ENTITY" in head:
        raise ImportFileError(f"{src}: XML with a DOCTYPE or entities is not accepted (entity expansion)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # networkx warns of keys without a type: read as text
            return nx.parse_graphml(text.lstrip(), force_multigraph=True)
    except RecursionError:
        raise ImportFileError(f"{src}: GraphML nested too deeply") from None
    except Exception as e:  # noqa: BLE001 - any failure of the parser is the file's, said in one line
        if type(e).__name__ == "ParseError":  # xml.etree names the line and column
            raise ImportFileError(f"{src}: not well-formed XML: {_one_line(e)}") from None
        if isinstance(e, MemoryError):
            raise
        raise ImportFileError(f"{src}: not readable GraphML: {_one_line(e)}") from None


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())[:200] or type(e).__name__


def _parse_gml(text: str, report: ImportReport) -> nx.MultiGraph:
    src = report.source
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if re.match(r"^\s*(graph\s*\[|Creator\b|Version\b)", line)), None)
    if start is None:
        raise ImportFileError(f"{src}: no 'graph [' record: not GML")
    if start:
        report.skip(f"lines 1-{start}" if start > 1 else "line 1", "before 'graph [' (a shell prompt or a title): "
                    "ignored", 1, "junk")
    body = "\n".join(lines[start:])
    try:
        return nx.MultiGraph(_parse_gml_body(body, src, start))
    except _Duplicated:
        # A simple graph listing an edge twice: read it as a multigraph; the import merges them.
        fixed = re.sub(r"graph\s*\[", "graph [\n  multigraph 1", body, count=1)
        try:
            g = nx.MultiGraph(_parse_gml_body(fixed, src, start - 1))
        except _Duplicated:
            raise ImportFileError(f"{src}: an edge is listed twice in a graph that says it is not a multigraph "
                                  "('multigraph 0')") from None
        g.graph["_duplicates"] = True
        return g


class _Duplicated(Exception):
    pass


def _parse_gml_body(body: str, src: str, offset: int) -> nx.Graph:
    """networkx's GML parser, every failure of it one line naming the file's line where known."""
    try:
        return nx.parse_gml(body, label=None)
    except nx.NetworkXError as e:
        if "duplicated" in str(e):
            raise _Duplicated from None
        raise ImportFileError(f"{src}: {_gml_where(str(e), offset)}") from None
    except RecursionError:
        raise ImportFileError(f"{src}: GML nested too deeply") from None
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as e:  # the parser's own failures
        raise ImportFileError(f"{src}: not readable GML: {_one_line(e)}") from None


def _gml_where(msg: str, offset: int) -> str:
    """networkx's ``(line, column)`` as a line of the file (junk lines skipped before it)."""
    m = re.search(r"\((\d+), (\d+)\)", msg)
    if m:
        return f"line {int(m.group(1)) + offset}: " + _one_line(ValueError(msg[: m.start()].rstrip(" at")))
    return "not readable GML: " + _one_line(ValueError(msg))


def edge_rate(data: dict[str, Any], options: ImportOptions) -> tuple[float | None, str]:
    """The edge's rate in Gb/s and where it came from; None and why not when it gives none."""
    attrs = options.attributes
    key = attrs.get("rate")
    if key:
        if key not in data:
            return None, f"no '{key}' attribute"
        unit = attrs.get("rate_unit", "")
        rate = parse_rate_gbps(data[key], default_unit=unit) if not isinstance(data[key], str) else \
            parse_rate_gbps(data[key], default_unit=unit)
        return (rate, key) if rate else (None, f"'{key}' = {data[key]!r} is not a rate")
    raw = attribute_number(data.get("LinkSpeedRaw"))
    if raw and raw > 0:
        return raw / 1e9, "LinkSpeedRaw"
    speed = attribute_number(data.get("LinkSpeed"))
    if speed and speed > 0:
        unit = str(data.get("LinkSpeedUnits", "") or "")
        rate = parse_rate_gbps(speed, default_unit=unit or "G")
        if rate:
            return rate, "LinkSpeed"
    for k in _RATE_KEYS:
        if k in data:
            rate = parse_rate_gbps(data[k], default_unit="G") if not isinstance(data[k], str) else parse_rate_gbps(
                data[k])
            if rate:
                return rate, k
    labels = [(k, data[k]) for k in _LABEL_KEYS if isinstance(data.get(k), str) and data[k].strip()]
    for k, label in labels:
        rate = parse_rate_gbps(label)
        if rate:
            return rate, f"{k} {label!r}"
    if labels:
        k, label = labels[0]
        return None, f"{k} {label!r} is not one rate"
    return None, "no speed attribute"


def _node_kind(data: dict[str, Any], options: ImportOptions) -> str:
    key = options.attributes.get("kind")
    value = data.get(key) if key else data.get("kind", data.get("type"))
    if not isinstance(value, str):
        return ""
    v = value.strip().lower()
    if v in DEVICE_KINDS:
        return v
    return _KIND_WORDS.get(v, "")


def _from_foreign_graph(graph: nx.MultiGraph, options: ImportOptions, report: ImportReport) -> Design:
    attrs = options.attributes
    fabric = Fabric(report)
    name_key = attrs.get("name")
    tier_key = attrs.get("tier", "tier")
    kinds: dict[str, int] = defaultdict(int)
    coords: dict[str, tuple[float, float]] = {}
    xy: dict[str, tuple[float, float]] = {}
    used_ids: set[str] = set()
    node_id: dict[Any, str] = {}
    for n, data in graph.nodes(data=True):
        label = data.get(name_key) if name_key else data.get("label", data.get("name"))
        label = str(label) if label not in (None, "") else str(n)
        base = safe_id(label, f"n{n}")
        ident = base
        k = 2
        while ident in used_ids:
            ident = f"{base}-{k}"
            k += 1
        used_ids.add(ident)
        node_id[n] = ident
        kind = _node_kind(data, options) or "switch"
        kinds[kind] += 1
        tier = data.get(tier_key)
        props: dict[str, Any] = {}
        if str(n) != ident:
            props["source_id"] = str(n)
        if data.get("Internal") == 0:
            props["external"] = True
        fabric.add_node(ident, kind, 0, name=label,
                        tier=tier if isinstance(tier, str) else "", host=label if kind == "adapter" else "",
                        id_hint=ident, properties=props)
        lon, lat = attribute_number(data.get("Longitude")), attribute_number(data.get("Latitude"))
        if lon is not None and lat is not None:
            coords[ident] = (lon, lat)
        x, y = attribute_number(data.get("x")), attribute_number(data.get("y"))
        if x is not None and y is not None:
            xy[ident] = (x, y)
    if not _node_kind_given(graph, options):
        report.guess(f"{graph.number_of_nodes():,} nodes", "no kind attribute: every node read as a switch "
                     "(a router); --map kind=ATTR names one", 0, "kind")
    missing: list[tuple[str, str, str]] = []
    seen_pairs: dict[frozenset, int] = {}
    for i, (a, b, data) in enumerate(graph.edges(data=True), 1):
        ia, ib = node_id[a], node_id[b]
        rate, why = edge_rate(data, options)
        pair = frozenset((ia, ib))
        if graph.graph.get("_duplicates") and pair in seen_pairs:
            report.skip(f"edge {ia} - {ib}", f"listed again (edge {seen_pairs[pair]}): one link kept", 0, "duplicate")
            continue
        seen_pairs.setdefault(pair, i)
        if rate is None:
            missing.append((ia, ib, why))
        props = {"source_label": str(data["LinkLabel"])} if isinstance(data.get("LinkLabel"), str) else {}
        fabric.add_edge(ia, None, ib, None, rate, 0, **props)
    default = options.default_rate_gbps or DEFAULT_RATE_GBPS
    reason = "the default rate given" if options.default_rate_gbps else "--default-rate sets it"
    for ia, ib, why in missing:
        report.guess(f"link {ia} - {ib}", f"{why}: counted at the default rate", 0, "rate")
    for e in fabric.edges:
        if e.rate_gbps is None:
            e.rate_gbps = default
    components = nx.number_connected_components(nx.Graph(graph)) if graph.number_of_nodes() else 0
    if components > 1:
        report.note(f"the graph has {components} separate parts")
    report.read.update({"nodes": graph.number_of_nodes(), "edges": graph.number_of_edges()})
    name = str(graph.graph.get("label") or graph.graph.get("name") or graph.graph.get("Network") or "Imported graph")
    has_hosts = any(n.kind == "adapter" for n in fabric.nodes.values())
    design = fabric.build(name, options, default_rate_gbps=default, rate_reason=reason, infer=has_hosts)
    devices = list(design.iter_devices())
    if not has_hosts:
        if xy and len(xy) == len(fabric.nodes):
            design.move_devices({d: p for d, p in xy.items()})
        elif coords:
            lay_out_coordinates(devices, coords)
            design.move_devices({d.id: (d.x, d.y) for d in devices})
            report.note("laid out on a map from the nodes' Longitude and Latitude")
        else:
            lay_out_grid(devices)
            design.move_devices({d.id: (d.x, d.y) for d in devices})
    design.description = f"Imported from {report.source} ({report.format})"
    return design


def _node_kind_given(graph: nx.MultiGraph, options: ImportOptions) -> bool:
    key = options.attributes.get("kind")
    return any((key in d) if key else ("kind" in d or "type" in d) for _, d in graph.nodes(data=True))
