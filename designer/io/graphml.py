"""The design as a networkx multigraph and as GraphML (yEd, Gephi, networkx read it), and back.

Both directions of our GraphML live here, so what is written and what is read cannot drift:
:func:`to_networkx` / :func:`graphml_bytes` write it, :func:`design_from_graph` reads it back
(the importer calls it for a graph whose ``format`` is ``topo-designer-graph``).

**Lossless.** Besides the attributes below (for other tools), every node carries ``record``, every
edge ``record`` and the graph ``design``, ``models`` and ``groups``: the design file's own JSON
records (:mod:`designer.io.design_file`) of the device (its ports left out when they are its
model's), link, design head, models and groups, so every property the analysis reads (a switch's
``sharp`` and ``protocol``, a link's ``negotiated_gbps``, a switch's ``loopback_cables``, port
groups, server templates) comes back as it was, and an export imported again gives the same
design and the same analysis. A graph without records (an export of an earlier version) is read
from the attributes, as well as they allow.

Nodes are devices (keyed by id), edges are links (keyed by link id; parallel links stay
separate edges). Attribute names carry their units. Node attributes:

``kind``, ``model``, ``name``, ``label`` (the name, else the id), ``tier``, ``group``, ``server``,
``rack`` (ids of the nearest enclosing groups of those kinds, or ``""``), ``x``, ``y`` (canvas
position), ``ports`` (count), ``max_port_gbps``, the ``su`` / ``rail`` / ``plane`` properties
when the device has them, and ``record`` (the device's JSON record).

Edge attributes:

``a_device``, ``a_port``, ``b_device``, ``b_port`` (the link's ends as drawn; the edge key
is the link id),  ``medium``, ``cable``, ``length_m``, ``failed``, ``used`` (the
analyzer counts the link: up, with a rate), ``tier`` (``nvlink``, ``pcie``, ``direct``,
``access``, ``leaf-spine``, ``spine-core``, ``switch``; ``""`` for an unused link), ``protocol``
(``nvlink``, ``pcie``, ``infiniband``, ``ethernet``, ``direct``), ``line_rate_gbps`` (per direction, the
slowest of the two ports and the cable), ``line_bytes_per_s`` and ``effective_bytes_per_s`` (per
direction, after the protocol's efficiency: the capacity the collective times use), and ``record``
(the link's JSON record), ``order`` (its place among the design's links).

GraphML has no null: an absent text is ``""`` and every attribute is present on every node or
edge, so readers see one type per key.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import defaultdict
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape

import networkx as nx

from designer.analysis.fabric.capacity import build_capacity_graph
from designer.analysis.fabric.tiers import TIERS, link_tiers
from designer.io.atomic import atomic_write_bytes
from designer.io.design_file import (
    FORMAT,
    VERSION,
    DesignFileError,
    design_from_data,
    device_to_dict,
    group_to_dict,
    link_to_dict,
    port_group_to_dict,
)
from designer.model import BOARD_MEDIA, Design, Device, Group, Link, PortGroup
from designer.model.catalog import Catalog, builtin_catalog
from designer.model.entities import MEDIA
from designer.model.text import xml_text
from designer.model.units import BYTES_PER_S_PER_GBPS

if TYPE_CHECKING:  # pragma: no cover - the importers' package imports this module
    from designer.io.importers.base import ImportReport

#: Written as graph attributes so a reader knows what it holds.
GRAPH_FORMAT = "topo-designer-graph"
GRAPH_VERSION = 1
_NODE_PROPERTIES = ("su", "rail", "plane")
_QUOTE = {'"': "&quot;"}


def device_places(design: Design) -> dict[str, tuple[str, str]]:
    """Per device id: the ids of its nearest enclosing ``server`` and ``rack`` groups (``""``: none)."""
    groups = {g.id: g for g in design.iter_groups()}
    memo: dict[str | None, tuple[str, str]] = {None: ("", "")}

    def place(gid: str | None) -> tuple[str, str]:
        hit = memo.get(gid)
        if hit is not None:
            return hit
        chain: list[str] = []
        cur: str | None = gid
        while cur is not None and cur not in memo and cur not in chain:
            chain.append(cur)
            cur = groups[cur].parent if cur in groups else None
        server, rack = memo.get(cur, ("", ""))
        for g in reversed(chain):
            kind = groups[g].kind if g in groups else ""
            server = g if kind == "server" else server
            rack = g if kind == "rack" else rack
            memo[g] = (server, rack)
        return memo[gid]

    return {dev.id: place(dev.group) for dev in design.iter_devices()}


def to_networkx(design: Design, catalog: Catalog | None = None) -> nx.MultiGraph:
    """The design as an undirected :class:`networkx.MultiGraph` (attributes in the module docstring).

    Run networkx's own algorithms on it, for example the max-flow between two halves of the GPUs
    over the links' line rates (bytes/s per direction):

    >>> import networkx as nx
    >>> from designer.generators import GENERATORS
    >>> g = to_networkx(GENERATORS["server"].build())
    >>> sorted({d["tier"] for _, _, d in g.edges(data=True)})
    ['nvlink', 'pcie']
    >>> simple = nx.Graph()
    >>> for a, b, d in g.edges(data=True):
    ...     cap = simple.get_edge_data(a, b, {"capacity": 0.0})["capacity"]
    ...     simple.add_edge(a, b, capacity=cap + d["line_bytes_per_s"])
    >>> gpus = sorted(n for n, k in g.nodes(data="kind") if k == "gpu")
    >>> round(nx.maximum_flow_value(simple, gpus[0], gpus[1]) / 1e9)   # one GPU's NVLink: 450 GB/s
    450

    ``catalog`` None means the built-in catalog (cable rates, switch protocols).
    """
    cap = build_capacity_graph(design, catalog)
    tiers = link_tiers(design, cap) if cap.n_links else []
    used = {lid: i for i, lid in enumerate(cap.link_ids)}
    places = device_places(design)
    head: dict[str, Any] = {"name": design.name, "description": design.description}
    if design.properties:
        head["properties"] = design.properties
    # Each model's ports once (from its first device), as the design file writes them; records of
    # devices with those ports leave them out.
    templates: dict[str, tuple] = {}
    for dev in design.iter_devices():
        if dev.model and dev.model not in templates:
            templates[dev.model] = dev.ports
    models = [{"id": m, "ports": [port_group_to_dict(p) for p in ports]} for m, ports in templates.items()]
    g = nx.MultiGraph(format=GRAPH_FORMAT, version=GRAPH_VERSION, name=design.name, design=_json(head),
                      models=_json(models), groups=_json([group_to_dict(gr) for gr in design.groups_parent_first()]))
    for dev in design.iter_devices():
        server, rack = places[dev.id]
        attrs: dict[str, Any] = {
            "kind": dev.kind, "model": dev.model, "name": dev.name, "label": dev.name or dev.id,
            "tier": dev.tier, "group": dev.group or "", "server": server, "rack": rack,
            "x": float(dev.x), "y": float(dev.y), "ports": dev.port_count,
            "max_port_gbps": max((float(p.speed_gbps) for p in dev.ports), default=0.0),
        }
        for key in _NODE_PROPERTIES:
            value = dev.properties.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                attrs[key] = int(value) if float(value).is_integer() else float(value)
        attrs["record"] = _json(device_to_dict(dev, templates))
        g.add_node(dev.id, **attrs)
    line = cap.line_bytes_per_s.tolist()
    eff = cap.effective_bytes_per_s.tolist()
    for order, link in enumerate(design.iter_links()):
        i = used.get(link.id)
        if i is None:
            tier, proto, line_bps, eff_bps = "", "", 0.0, 0.0
        else:
            tier, proto, line_bps, eff_bps = TIERS[int(tiers[i])], cap.protocol_name(i), line[i], eff[i]
        g.add_edge(
            link.a_device, link.b_device, key=link.id,
            a_device=link.a_device, a_port=link.a_port, b_device=link.b_device, b_port=link.b_port,
            medium=link.medium, cable=link.cable or "", length_m=float(link.length_m), failed=bool(link.failed),
            used=i is not None, tier=tier, protocol=proto, line_rate_gbps=line_bps / BYTES_PER_S_PER_GBPS,
            line_bytes_per_s=line_bps, effective_bytes_per_s=eff_bps, order=order, record=_json(link_to_dict(link)),
        )
    return g


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _graphml_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "double"
    return "string"


def _graphml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return _xml(str(value))


def _xml(text: str, attribute: bool = False) -> str:
    """``text`` as XML character data (``attribute``: inside double quotes); characters XML cannot
    hold (a control character in a name) written as ``\\x1b`` text, so the file stays well-formed."""
    return escape(xml_text(text), _QUOTE if attribute else {})


def graphml_bytes(design: Design, catalog: Catalog | None = None, graph: nx.MultiGraph | None = None) -> bytes:
    """GraphML of :func:`to_networkx` (``graph`` when already built), UTF-8.

    Written directly (networkx's writer takes over ten seconds on a 16,384-GPU fabric); the
    output is plain GraphML 1.0 that ``networkx.read_graphml`` and yEd read: typed ``key``
    declarations named after the attributes, then nodes, then edges with the link id as edge id.
    """
    g = graph if graph is not None else to_networkx(design, catalog)
    node_keys: dict[str, str] = {}
    for _, data in g.nodes(data=True):
        for k, v in data.items():
            node_keys.setdefault(k, _graphml_type(v))
    edge_keys: dict[str, str] = {}
    for _, _, data in g.edges(data=True):
        for k, v in data.items():
            edge_keys.setdefault(k, _graphml_type(v))
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
           'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
           'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
           'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">']
    graph_attrs = {k: v for k, v in g.graph.items() if isinstance(v, (str, int, float, bool))}
    for scope, keys in (("graph", {k: _graphml_type(v) for k, v in graph_attrs.items()}), ("node", node_keys),
                        ("edge", edge_keys)):
        for k, t in keys.items():
            out.append(f'<key id="{scope[0]}_{_xml(k, True)}" for="{scope}" attr.name="{_xml(k, True)}" '
                       f'attr.type="{t}"/>')
    out.append('<graph edgedefault="undirected">')
    for k, v in graph_attrs.items():
        out.append(f'<data key="g_{_xml(k, True)}">{_graphml_value(v)}</data>')
    for n, data in g.nodes(data=True):
        cells = "".join(f'<data key="n_{_xml(k, True)}">{_graphml_value(v)}</data>' for k, v in data.items())
        out.append(f'<node id="{_xml(str(n), True)}">{cells}</node>')
    for a, b, key, data in g.edges(keys=True, data=True):
        cells = "".join(f'<data key="e_{_xml(k, True)}">{_graphml_value(v)}</data>' for k, v in data.items())
        out.append(f'<edge id="{_xml(str(key), True)}" source="{_xml(str(a), True)}" '
                   f'target="{_xml(str(b), True)}">{cells}</edge>')
    out.append("</graph>")
    out.append("</graphml>")
    return ("\n".join(out) + "\n").encode("utf-8")


def write_graphml(design: Design, path: str | os.PathLike[str], catalog: Catalog | None = None) -> None:
    """Write the design's GraphML to ``path`` atomically.

    >>> import tempfile, pathlib, networkx as nx
    >>> from designer.generators import GENERATORS
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "server.graphml"
    >>> write_graphml(GENERATORS["server"].build(), out)
    >>> back = nx.read_graphml(out, force_multigraph=True)
    >>> back.number_of_edges(), back.edges[("node1-gpu1", "node1-nvsw", "node1-gpu1--node1-nvsw")]["line_rate_gbps"]
    (16, 3600.0)
    """
    atomic_write_bytes(path, graphml_bytes(design, catalog))


def design_from_graph(graph: nx.MultiGraph, report: ImportReport, catalog: Catalog | None = None) -> Design:
    """The design a graph of ours holds (``format`` = ``topo-designer-graph``): from its records when every
    node and edge has one (lossless), else from its attributes, with the ports of ``catalog``'s models
    (None: the built-in catalog)."""
    if _has_records(graph):
        return _from_records(graph, report)
    return _from_attributes(graph, report, catalog if catalog is not None else builtin_catalog())


def _has_records(graph: nx.MultiGraph) -> bool:
    return "design" in graph.graph and "groups" in graph.graph and all(
        "record" in d for _, d in graph.nodes(data=True)) and all("record" in d for *_, d in graph.edges(data=True))


def _from_records(graph: nx.MultiGraph, report: ImportReport) -> Design:
    src = report.source
    try:
        data = {"format": FORMAT, "version": VERSION, "design": json.loads(str(graph.graph["design"])),
                "models": json.loads(str(graph.graph.get("models", "[]"))),
                "groups": json.loads(str(graph.graph["groups"])),
                "devices": [json.loads(str(d["record"])) for _, d in graph.nodes(data=True)],
                "links": [json.loads(str(d["record"])) for *_, d in sorted(
                    graph.edges(data=True), key=lambda e: int(attribute_number(e[2].get("order")) or 0))]}
    except (ValueError, TypeError) as e:
        raise DesignFileError(f"{src}: a record is not JSON: {' '.join(str(e).split())[:120]}") from None
    design = design_from_data(data, src)
    report.read.update({"devices": design.device_count(), "links": design.link_count(),
                        "groups": sum(1 for _ in design.iter_groups())})
    report.note("our own GraphML export: read back from its records, as it was written")
    return design


def _from_attributes(graph: nx.MultiGraph, report: ImportReport, catalog: Catalog) -> Design:
    src = report.source
    design = Design(str(graph.graph.get("name", "") or "Imported design"))
    port_links: dict[str, dict[str, tuple[float, str]]] = defaultdict(dict)  # device -> port -> (rate, medium)
    edges = list(graph.edges(keys=True, data=True))
    for _a, _b, _key, d in edges:
        for end in ("a", "b"):
            dev, port = str(d.get(f"{end}_device", "")), str(d.get(f"{end}_port", ""))
            rate = attribute_number(d.get("line_rate_gbps")) or 0.0
            old = port_links[dev].get(port)
            port_links[dev][port] = (max(rate, old[0] if old else 0.0), str(d.get("medium", "")))
    # A switch without a catalog model is InfiniBand only by its own property, which GraphML carries
    # on its links' protocol: read it back from there.
    infiniband = {str(d.get(f"{end}_device", "")) for _a, _b, _k, d in edges if d.get("protocol") == "infiniband"
                  for end in ("a", "b")}
    groups: dict[str, Group] = {}
    order: list[str] = []

    def group(gid: str, kind: str, parent: str | None) -> None:
        if not gid:
            return
        g = groups.get(gid)
        if g is None:
            groups[gid] = Group(gid, kind, parent=parent)
            order.append(gid)

    devices: list[Device] = []
    try:
        for n, d in graph.nodes(data=True):
            server, rack, own = str(d.get("server", "")), str(d.get("rack", "")), str(d.get("group", ""))
            group(rack, "rack", None)
            group(server, "server", rack or None)
            if own and own not in (server, rack):
                group(own, "custom", server or rack or None)
            ports = _our_ports(str(n), d, port_links.get(str(n), {}), catalog)
            props = {k: d[k] for k in ("su", "rail", "plane") if k in d}
            if str(n) in infiniband and d.get("kind") == "switch" and str(d.get("model", "")) not in catalog.components:
                props["protocol"] = "infiniband"
            devices.append(Device(str(n), str(d.get("kind", "switch")), ports, model=str(d.get("model", "")),
                                  name=str(d.get("name", "")), tier=str(d.get("tier", "")),
                                  x=attribute_number(d.get("x")) or 0.0, y=attribute_number(d.get("y")) or 0.0,
                                  group=own or None,
                                  properties=props))
        links = []
        for a, b, key, d in edges:
            medium = str(d.get("medium", "optical"))
            links.append(Link(str(key), str(d.get("a_device", a)), str(d.get("a_port", "")),
                              str(d.get("b_device", b)), str(d.get("b_port", "")),
                              medium=medium if medium in MEDIA else "optical",
                              length_m=attribute_number(d.get("length_m")) or 0.0, cable=str(d.get("cable", "")),
                              failed=bool(d.get("failed", False))))
        # Parents before children: racks, then servers, then the rest, each in first-seen order.
        rank = {"rack": 0, "server": 1}
        ordered = sorted(order, key=lambda g: rank.get(groups[g].kind, 2))
        design.extend([groups[g] for g in ordered], devices, links)
    except DesignFileError:
        raise
    except Exception as e:  # a model invariant (unknown port, port used twice...) in a hand-edited file
        from designer.model import DesignError

        if isinstance(e, DesignError):
            raise DesignFileError(f"{src}: {e}") from None
        raise
    report.read.update({"devices": len(devices), "links": len(links), "groups": len(groups)})
    report.note("our own GraphML export: read back as it was written")
    return design


def _our_ports(dev_id: str, d: dict[str, Any], used: dict[str, tuple[float, str]], catalog) -> tuple[PortGroup, ...]:
    count = int(attribute_number(d.get("ports")) or 0)
    top = attribute_number(d.get("max_port_gbps")) or 0.0
    model = str(d.get("model", ""))
    if model and model in catalog.components:
        comp = catalog.components[model]
        ports = tuple(comp.ports)
        if sum(g.count for g in ports) == count and max((g.speed_gbps for g in ports), default=0.0) == top and all(
                _has_port(ports, p) for p in used):
            return ports
    by_prefix: dict[str, list[int]] = defaultdict(list)
    kind_of: dict[str, str] = {}
    speed_of: dict[str, float] = defaultdict(float)
    for port, (rate, medium) in used.items():
        m = re.fullmatch(r"([A-Za-z][A-Za-z_\-]{0,15})(\d+)", port)
        if not m:
            raise DesignFileError(f"device {dev_id!r}: port {port!r} is not a prefix and a number")
        prefix = m.group(1)
        by_prefix[prefix].append(int(m.group(2)))
        kind_of[prefix] = medium if medium in BOARD_MEDIA else "network"
        speed_of[prefix] = max(speed_of[prefix], rate)
    groups = [[p, max(nums), speed_of[p] or top or 1.0, kind_of[p]] for p, nums in sorted(by_prefix.items())]
    if not groups:
        return (PortGroup("p", max(1, count), top or 1.0),)
    total = sum(g[1] for g in groups)
    if count > total:
        biggest = max(groups, key=lambda g: g[1])
        biggest[1] += count - total
    if top and max(g[2] for g in groups) < top:
        max(groups, key=lambda g: g[2])[2] = top
    return tuple(PortGroup(p, c, s, kind=k) for p, c, s, k in groups)


def _has_port(ports: tuple[PortGroup, ...], port: str) -> bool:
    for g in ports:
        if port.startswith(g.prefix) and port[len(g.prefix):].isdigit() and 1 <= int(port[len(g.prefix):]) <= g.count:
            return True
    return False


def attribute_number(value: Any) -> float | None:
    """A graph attribute as a finite number (numbers, or text that reads as one), else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and math.isfinite(float(value)):
        return float(value)
    if isinstance(value, str):
        try:
            v = float(value)
        except ValueError:
            return None
        return v if math.isfinite(v) else None
    return None
