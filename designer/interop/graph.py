"""The design as a networkx multigraph, and as GraphML (yEd, Gephi, networkx read it).

Nodes are devices (keyed by id), edges are links (keyed by link id; parallel links stay
separate edges). Attribute names carry their units. Node attributes:

``kind``, ``model``, ``name``, ``label`` (the name, else the id), ``tier``, ``group``, ``server``,
``rack`` (ids of the nearest enclosing groups of those kinds, or ``""``), ``x``, ``y`` (canvas
position), ``ports`` (count), ``max_port_gbps``, and the ``su`` / ``rail`` / ``plane`` properties
when the device has them.

Edge attributes:

``a_device``, ``a_port``, ``b_device``, ``b_port`` (the link's ends as drawn; the edge key
is the link id),  ``medium``, ``cable``, ``length_m``, ``failed``, ``used`` (the
analyzer counts the link: up, with a rate), ``tier`` (``nvlink``, ``pcie``, ``direct``,
``access``, ``leaf-spine``, ``spine-core``, ``switch``; ``""`` for an unused link), ``protocol``
(``nvlink``, ``pcie``, ``infiniband``, ``ethernet``, ``direct``), ``line_rate_gbps`` (per direction, the
slowest of the two ports and the cable), ``line_bytes_per_s`` and ``effective_bytes_per_s`` (per
direction, after the protocol's efficiency: the capacity the collective times use).

GraphML has no null: an absent text is ``""`` and every attribute is present on every node or
edge, so readers see one type per key.
"""

from __future__ import annotations

import os
from typing import Any
from xml.sax.saxutils import escape

import networkx as nx

from designer.analysis.fabric.capacity import build_capacity_graph
from designer.analysis.fabric.tiers import TIERS, link_tiers
from designer.io.atomic import atomic_write_bytes
from designer.model import Design
from designer.model.catalog import Catalog

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
    g = nx.MultiGraph(format=GRAPH_FORMAT, version=GRAPH_VERSION, name=design.name)
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
        g.add_node(dev.id, **attrs)
    line = cap.line_bytes_per_s.tolist()
    eff = cap.effective_bytes_per_s.tolist()
    for link in design.iter_links():
        i = used.get(link.id)
        if i is None:
            tier, proto, line_bps, eff_bps = "", "", 0.0, 0.0
        else:
            tier, proto, line_bps, eff_bps = TIERS[int(tiers[i])], cap.protocol_name(i), line[i], eff[i]
        g.add_edge(
            link.a_device, link.b_device, key=link.id,
            a_device=link.a_device, a_port=link.a_port, b_device=link.b_device, b_port=link.b_port,
            medium=link.medium, cable=link.cable or "", length_m=float(link.length_m), failed=bool(link.failed),
            used=i is not None, tier=tier, protocol=proto, line_rate_gbps=line_bps * 8 / 1e9,
            line_bytes_per_s=line_bps, effective_bytes_per_s=eff_bps,
        )
    return g


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
    return escape(str(value))


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
            out.append(f'<key id="{scope[0]}_{escape(k)}" for="{scope}" attr.name="{escape(k)}" '
                       f'attr.type="{t}"/>')
    out.append('<graph edgedefault="undirected">')
    for k, v in graph_attrs.items():
        out.append(f'<data key="g_{escape(k)}">{_graphml_value(v)}</data>')
    for n, data in g.nodes(data=True):
        cells = "".join(f'<data key="n_{escape(k)}">{_graphml_value(v)}</data>' for k, v in data.items())
        out.append(f'<node id="{escape(str(n), _QUOTE)}">{cells}</node>')
    for a, b, key, data in g.edges(keys=True, data=True):
        cells = "".join(f'<data key="e_{escape(k)}">{_graphml_value(v)}</data>' for k, v in data.items())
        out.append(f'<edge id="{escape(str(key), _QUOTE)}" source="{escape(str(a), _QUOTE)}" '
                   f'target="{escape(str(b), _QUOTE)}">{cells}</edge>')
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
