"""A fabric as the importers read it (switches, host adapters, cables), built into a design.

The importers of cluster fabrics (ibnetdiscover, Slurm ``topology.conf``, graphs of routers) fill
a :class:`Fabric`: nodes keyed by what the source calls them, edges between (node, port) pairs.
:meth:`Fabric.build` then does what they share:

- duplicate cables are merged and contradictions (a port cabled to two peers) skipped, each with
  its line in the report; a cable from a switch to itself is kept as the switch's
  ``loopback_cables`` property (the model has no self-links; the design rule ``loopback-cable``
  reports it);
- tiers are inferred from the graph when the source gives none (:func:`infer_tiers`);
- each host adapter becomes a NIC in a server group, with ``gpus_per_adapter`` GPUs behind it over
  PCIe so collectives have endpoints (a guess the report states);
- devices are laid out by tiers (:mod:`designer.io.importers.layout`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from designer.io.importers.base import (
    MAX_IMPORT_RECORDS,
    ImportFileError,
    ImportOptions,
    ImportReport,
    safe_id,
)
from designer.io.importers.hosts import HostPlan, plan_hosts
from designer.io.importers.layout import HostBlock, lay_out_fabric
from designer.io.importers.tiers import infer_tiers
from designer.model import Design, Device, Group, Link, PortGroup
from designer.model.entities import MAX_PORT_GBPS, MIN_PORT_GBPS
from designer.model.units import count, line_rate

#: Prefixes of a device's port groups, one per speed class, fastest first (``p1..pN``, ``q1..``).
PORT_PREFIXES = tuple("pqrstuvwxyz") + tuple(f"p{c}" for c in "abcdefghijklmnopqrstuvwxyz")
#: The same for NVLink ports (an edge with property ``_medium`` = ``nvlink``).
NVLINK_PREFIXES = ("nvl", "nvm", "nvn", "nvo")

#: Length and medium of a cable the source does not describe (every fabric format here).
GUESSED_LENGTH_M = 3.0
GUESSED_MEDIUM = "optical"
#: The least PCIe rate of a stamped GPU's host link: a PCIe 3.0 x16 slot, per direction.
HOST_PCIE_GBPS = 128.0


@dataclass
class Node:
    """A switch or host adapter as the source names it."""

    key: str
    kind: str  # "switch" or "adapter"
    name: str = ""
    line: int = 0
    ports: int = 0
    tier: str = ""
    chassis: str = ""
    host: str = ""
    id_hint: str = ""
    properties: dict[str, Any] = field(default_factory=dict)
    position: tuple[float, float] | None = None


@dataclass
class Edge:
    a: str
    a_port: int | None
    b: str
    b_port: int | None
    rate_gbps: float | None
    line: int
    properties: dict[str, Any] = field(default_factory=dict)


def _edge_kind(edge: Edge) -> str:
    return "nvlink" if edge.properties.get("_medium") == "nvlink" else "network"


def _server_columns(members: list[str], kind_of: dict[str, str]) -> list[list[str]]:
    """A server's devices as layout columns: its NVLink switches in the first, then its GPUs in two
    rows when there are more than four (an 8-GPU server is 5 columns wide, not 9)."""
    switches = sorted((m for m in members if kind_of[m] == "nvswitch"), key=natural_key)
    rest = sorted((m for m in members if kind_of[m] != "nvswitch"), key=natural_key)
    half = (len(rest) + 1) // 2 if len(rest) > 4 else len(rest)
    cols = [[rest[i], *([rest[i + half]] if len(rest) > 4 and i + half < len(rest) else [])] for i in range(half)]
    return ([switches] if switches else []) + cols


def part_name(dev: Device, what: str) -> str:
    """What a device with no catalog model is, for the bill of materials to count alike devices on one
    line (``switch, 36 x 32 Gb/s``); the source's own words (a switch's model) come first when known."""
    net = [g for g in dev.ports if g.kind == "network"]
    ports = sum(g.count for g in net)
    top = max((g.speed_gbps for g in net), default=0.0)
    proto = "InfiniBand " if dev.properties.get("protocol") == "infiniband" else ""
    return f"{proto}{what}, {ports} x {line_rate(top)}" if ports else f"{proto}{what}"


def natural_key(text: str) -> tuple:
    """Sort key that orders ``leaf2`` before ``leaf10`` (GUID names ``S-0008f105...`` as text)."""
    if re.fullmatch(r"[SHR]-[0-9a-fA-F]{16}", text):
        return (text.lower(),)
    return tuple(int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", text))


class Fabric:
    """Nodes and edges read from a source, checked as they come (see the module docstring)."""

    def __init__(self, report: ImportReport, *, mirrored: bool = False) -> None:
        # mirrored: every cable is listed from both of its ends (ibnetdiscover), so a second
        # sighting is expected, not a duplicate worth reporting.
        self.report = report
        self.mirrored = mirrored
        self.nodes: dict[str, Node] = {}
        self.edges: list[Edge] = []
        self._port_edge: dict[tuple[str, int], int] = {}
        self._pair_edges: dict[frozenset, list[int]] = defaultdict(list)

    def add_node(self, key: str, kind: str, line: int = 0, **fields: Any) -> Node:
        node = self.nodes.get(key)
        if node is None:
            if len(self.nodes) >= MAX_IMPORT_RECORDS:
                raise ImportFileError(f"{self.report.source}: line {line}: more than {MAX_IMPORT_RECORDS:,} nodes")
            node = self.nodes[key] = Node(key, kind, line=line, **fields)
            return node
        if node.kind != kind:
            self.report.skip(f"{key} as a {kind}", f"already read as a {node.kind} on line {node.line}; kept that",
                             line, "contradiction")
            return node
        for name, value in fields.items():
            if value and not getattr(node, name):
                setattr(node, name, value)
        return node

    def add_edge(self, a: str, a_port: int | None, b: str, b_port: int | None, rate_gbps: float | None,
                 line: int, **properties: Any) -> None:
        rep = self.report
        if a == b:
            node = self.nodes.get(a)
            if node is not None:
                pair = sorted(p for p in (a_port, b_port) if p is not None)
                loops = node.properties.setdefault("loopback_cables", [])
                if pair not in loops:
                    loops.append(pair)
                    rep.skip(f"cable {a}[{a_port}] - [{b_port}]",
                             "a loopback cable (both ends on one switch) carries no traffic: kept as the "
                             "switch's loopback_cables, reported by the design rule loopback-cable", line, "loopback")
            return
        ends = ((a, a_port), (b, b_port))
        # The same cable seen again (from its other end, or listed twice).
        if a_port is not None and b_port is not None:
            ia = self._port_edge.get((a, a_port))
            ib = self._port_edge.get((b, b_port))
            if ia is not None and ia == ib:
                old = self.edges[ia]
                if rate_gbps is not None and old.rate_gbps is not None and rate_gbps != old.rate_gbps:
                    rep.skip(f"cable {a}[{a_port}] - {b}[{b_port}]",
                             f"listed at {line_rate(rate_gbps)} here and {line_rate(old.rate_gbps)} on line "
                             f"{old.line}; kept the slower", line, "contradiction")
                    old.rate_gbps = min(old.rate_gbps, rate_gbps)
                elif old.rate_gbps is None:
                    old.rate_gbps = rate_gbps
                if not self.mirrored:
                    rep.skip(f"cable {a}[{a_port}] - {b}[{b_port}]", f"a duplicate of line {old.line}", line,
                             "duplicate")
                return
            for (dev, port), idx in (((a, a_port), ia), ((b, b_port), ib)):
                if idx is not None:
                    old = self.edges[idx]
                    peer = old.b if (old.a, old.a_port) == (dev, port) else old.a
                    rep.skip(f"cable {a}[{a_port}] - {b}[{b_port}]",
                             f"port {dev}[{port}] is already cabled to {peer} (line {old.line}); a port takes one "
                             "cable", line, "contradiction")
                    return
        elif not self.mirrored and self._pair_edges.get(frozenset((a, b))) and properties.pop("unique", False):
            old = self.edges[self._pair_edges[frozenset((a, b))][0]]
            rep.skip(f"link {a} - {b}", f"a duplicate of line {old.line}", line, "duplicate")
            return
        properties.pop("unique", None)
        if len(self.edges) >= MAX_IMPORT_RECORDS:
            raise ImportFileError(f"{rep.source}: line {line}: more than {MAX_IMPORT_RECORDS:,} links")
        idx = len(self.edges)
        self.edges.append(Edge(a, a_port, b, b_port, rate_gbps, line, dict(properties)))
        for dev, port in ends:
            if port is not None:
                self._port_edge[(dev, port)] = idx
        self._pair_edges[frozenset((a, b))].append(idx)

    # -- building -------------------------------------------------------------------------------

    def build(self, name: str, options: ImportOptions, *, default_rate_gbps: float, rate_reason: str,
              infer: bool = True) -> Design:
        rep = self.report
        if not self.nodes:
            raise ImportFileError(f"{rep.source}: no switches or hosts found")
        self._default_rate = default_rate_gbps
        # Edges whose ends were never declared: the peer is known only by this cable.
        for e in self.edges:
            for key in (e.a, e.b):
                if key not in self.nodes:
                    kind = "switch" if key.startswith("S-") else "adapter"
                    self.add_node(key, kind, e.line)
                    rep.guess(key, f"named only as the peer of a cable: read as a {kind}", e.line, "undeclared peer")
        self._fill_rates(default_rate_gbps, rate_reason)
        ids = self._ids()
        hosts = self._hosts(ids)
        speed_of = {}
        for e in self.edges:
            label = str(e.properties.get("ib_rate", ""))
            for key in (e.a, e.b):
                if label and self.nodes[key].kind == "adapter":
                    speed_of.setdefault(key, label.split("x", 1)[-1].upper())
        plan = plan_hosts({h: [n.key for n in a] for h, a in hosts.items()}, speed_of, options, rep)
        if infer:
            compute = {n.key for h in plan.gpu_hosts for n in hosts[h]} if plan.any_server else None
            infer_tiers(self, compute)
        return self._design(name, options, ids, hosts, plan)

    def _hosts(self, ids: dict[str, str]) -> dict[str, list[Node]]:
        """Host id -> its adapters (grouped by host name; a host id may not clash with a switch's)."""
        switch_ids = {ids[k] for k, n in self.nodes.items() if n.kind != "adapter"}
        hosts: dict[str, list[Node]] = defaultdict(list)
        for node in self.nodes.values():
            if node.kind == "adapter":
                hid = safe_id(node.host, "host") if node.host else ids[node.key]
                if hid in switch_ids:
                    hid = f"{hid}-host"
                hosts[hid].append(node)
        return hosts

    def _fill_rates(self, default_rate_gbps: float, reason: str) -> None:
        missing = [e for e in self.edges if e.rate_gbps is None]
        for e in missing:
            e.rate_gbps = default_rate_gbps
            if len(missing) < len(self.edges):
                self.report.guess(f"link {e.a} - {e.b}", f"no speed given: {line_rate(default_rate_gbps)} ({reason})",
                                  e.line, "rate")
        if missing and len(missing) == len(self.edges):
            self.report.guess(f"every link ({len(missing):,})", f"no speed given: {line_rate(default_rate_gbps)} "
                              f"({reason})", 0, "rate")
        kept = []
        for e in self.edges:
            rate = float(e.rate_gbps or 0.0)
            if MIN_PORT_GBPS <= rate <= MAX_PORT_GBPS:
                kept.append(e)
            else:
                self.report.skip(f"link {e.a} - {e.b}", f"{line_rate(rate)} is outside the {line_rate(MIN_PORT_GBPS)} "
                                 f".. {line_rate(MAX_PORT_GBPS)} a port may run at: left out", e.line, "rate range")
        self.edges = kept

    def _ids(self) -> dict[str, str]:
        """Node key -> device id (switches) or host id (adapters' host), unique and readable."""
        used: dict[str, str] = {}
        out: dict[str, str] = {}
        for node in self.nodes.values():
            base = safe_id(node.id_hint or node.name or node.key, "n")
            if node.kind == "adapter":
                out[node.key] = base  # adapters of one host share its id; their devices are numbered
                continue
            ident = base
            n = 2
            while ident in used:
                ident = f"{base}-{n}"
                n += 1
            if ident != base:
                self.report.guess(node.key, f"its name {base!r} is taken: id {ident!r}", node.line, "renamed")
            used[ident] = node.key
            out[node.key] = ident
        return out

    def _design(self, name: str, options: ImportOptions, ids: dict[str, str], hosts: dict[str, list[Node]],
                plan: HostPlan) -> Design:
        rep = self.report
        b = _Build(self)
        chassis_members, host_blocks = self._fabric_devices(b, ids)
        self._host_devices(b, hosts, plan, options, host_blocks)
        self._cables(b)
        design = Design(name)
        lay_out_fabric(b.devices, b.groups, b.links, host_blocks)
        design.extend(b.groups, b.devices, b.links)
        kinds = Counter(d.kind for d in b.devices)
        stamped = Counter(d.kind for d in b.devices if d.group in hosts)
        read = {"switches": kinds["switch"], "adapters": kinds["nic"], "hosts": len(hosts),
                "servers": len(plan.templates), "gpus": kinds["gpu"] - stamped["gpu"],
                "gpus stamped behind adapters": stamped["gpu"],
                "nvlink switches": kinds["nvswitch"] - stamped["nvswitch"],
                "cables": len(self.edges), "chassis": len(chassis_members)}
        rep.read.update({k: v for k, v in read.items() if v or k in ("switches", "cables")})
        return design

    def _fabric_devices(self, b: _Build, ids: dict[str, str]) -> tuple[dict[str, list[str]], list[HostBlock]]:
        """Switches (grouped by chassis) and the devices the source gives inside servers (GPUs, NVLink switches)."""
        chassis_members: dict[str, list[str]] = defaultdict(list)
        servers: dict[str, list[str]] = {}  # server group -> its devices (GPUs and NVLink switches)
        for node in self.nodes.values():
            if node.kind == "adapter":
                continue
            dev_id = ids[node.key]
            props = {k: v for k, v in node.properties.items() if k != "port_gbps"}
            dev = Device(dev_id, node.kind, b.ports_for(node, dev_id), name=node.name if node.name != dev_id else "",
                         tier=node.tier, properties=props)
            if dev.kind == "switch":
                props.setdefault("part", part_name(dev, "switch"))
            b.devices.append(dev)
            b.dev_of[node.key] = dev_id
            if node.host and node.kind != "switch":
                sid = safe_id(node.host, "server")
                if sid not in servers:
                    servers[sid] = []
                    b.groups.append(Group(sid, "server"))
                servers[sid].append(dev_id)
                dev.group = sid
            if node.chassis and node.kind == "switch":
                chassis_members[node.chassis].append(dev_id)
        chassis_group: dict[str, str] = {}
        for chassis, members in chassis_members.items():
            gid = safe_id(f"chassis-{chassis}")
            b.groups.append(Group(gid, "custom", name=f"chassis {chassis}", properties={"chassis": True}))
            for dev_id in members:
                chassis_group[dev_id] = gid
        for dev in b.devices:
            if dev.kind == "switch":
                dev.group = chassis_group.get(dev.id)
        kind_of = {d.id: d.kind for d in b.devices}
        return chassis_members, [HostBlock(sid, _server_columns(members, kind_of)) for sid, members in servers.items()]

    def _host_devices(self, b: _Build, hosts: dict[str, list[Node]], plan: HostPlan, options: ImportOptions,
                      host_blocks: list[HostBlock]) -> None:
        """Each host: a server group of its adapters (NICs), and its server's GPUs and NVLink (or
        ``gpus_per_adapter`` GPUs behind each adapter when no host has a server)."""
        gpus = max(0, int(options.gpus_per_adapter))
        per_adapter = 0 if plan.any_server else gpus
        for hid, adapters in hosts.items():
            template = plan.templates.get(hid)
            group = Group(hid, "server", name=adapters[0].host or "")
            b.groups.append(group)
            served: list[list[str]] = []
            board: list[Device] = []
            if template is not None:
                board, board_links, served = template.stamp(hid, hid, len(adapters))
                group.properties["server"] = template.title
                b.links.extend(board_links)
            members: list[list[str]] = [[d.id for d in board if d.kind == "nvswitch"]] if board else []
            for k, node in enumerate(sorted(adapters, key=lambda n: natural_key(n.key)), 1):
                nic_id = f"{hid}-hca{k}" if len(adapters) > 1 or per_adapter or template else hid
                mine = b.node_edges.get(node.key, [])
                net = max((float(self.edges[i].rate_gbps or 0.0) for i, _ in mine), default=self._default_rate)
                net_total = max(net, 1e-3) * max(node.ports, len(mine), 1)
                pcie = min(max(HOST_PCIE_GBPS, 2 * net_total), 1e5)
                mine_gpus = served[k - 1] if template is not None and k <= len(served) else []
                if template is not None:
                    pcie = max(template.gpu_pcie_gbps, HOST_PCIE_GBPS)
                n_pcie = len(mine_gpus) if template is not None else per_adapter
                extra = (PortGroup("pcie", n_pcie, pcie, kind="pcie"),) if n_pcie else ()
                props = {k2: v for k2, v in node.properties.items() if k2 != "port_gbps"}
                nic = Device(nic_id, "nic", b.ports_for(node, nic_id, extra), name=node.name, group=hid,
                             properties=props)
                props.setdefault("part", part_name(nic, "host adapter"))
                b.devices.append(nic)
                b.dev_of[node.key] = nic_id
                column = [nic_id]
                for g, gpu_id in enumerate(mine_gpus, 1):
                    b.new_link(gpu_id, "pcie1", nic_id, f"pcie{g}", "pcie", 0.0).cable = "pcie-board"
                    column.append(gpu_id)
                for g in range(1, (0 if template is not None else per_adapter) + 1):
                    gpu_id = f"{nic_id}-gpu{g}" if nic_id != hid else f"{hid}-gpu{g}"
                    b.devices.append(Device(gpu_id, "gpu", (PortGroup("pcie", 1, pcie, kind="pcie"),), group=hid))
                    b.new_link(nic_id, f"pcie{g}", gpu_id, "pcie1", "pcie", 0.0)
                    column.append(gpu_id)
                members.append(column)
            b.devices.extend(board)
            host_blocks.append(HostBlock(hid, members))
        if gpus and hosts and not plan.any_server:
            self.report.guess(count(len(hosts), "host"), f"{count(gpus, 'GPU')} per host adapter, over PCIe at "
                              f"twice the adapter's rate (at least {line_rate(HOST_PCIE_GBPS)}, a PCIe 3.0 x16 slot) "
                              "so the host never limits the network, as the endpoints of the analysis (the source "
                              "does not say what a host holds; --gpus-per-adapter sets it, 0 leaves the adapters "
                              "alone; --server MODEL makes every host a server of that model)", 0, "endpoints")

    def _cables(self, b: _Build) -> None:
        """The source's cables as links, each keeping the rate it negotiated when its ports run faster."""
        for i, e in enumerate(self.edges):
            a, bd = b.dev_of[e.a], b.dev_of[e.b]
            ap, bp = b.port_of[(i, e.a)], b.port_of[(i, e.b)]
            props = {k: v for k, v in e.properties.items() if not k.startswith("_")}
            rate = float(e.rate_gbps or 0.0)
            if rate < max(b.port_speed[(a, ap)], b.port_speed[(bd, bp)]):
                props["negotiated_gbps"] = rate
            if _edge_kind(e) == "nvlink":
                b.new_link(a, ap, bd, bp, "nvlink", 0.0, props).cable = "nvlink-board"
            else:
                b.new_link(a, ap, bd, bp, GUESSED_MEDIUM, GUESSED_LENGTH_M, props)
        network = sum(_edge_kind(e) == "network" for e in self.edges)
        if network:
            self.report.guess(f"{network:,} cables", f"length and medium not in the source: {GUESSED_LENGTH_M:g} m "
                              f"{GUESSED_MEDIUM}, no catalog cable", 0, "cables")

    _default_rate = 100.0


class _Build:
    """What :meth:`Fabric._design` builds: devices, groups and links, and each cable's port ids."""

    def __init__(self, fabric: Fabric) -> None:
        self.fabric = fabric
        self.node_edges: dict[str, list[tuple[int, int | None]]] = defaultdict(list)  # key -> (edge idx, port)
        for i, e in enumerate(fabric.edges):
            self.node_edges[e.a].append((i, e.a_port))
            self.node_edges[e.b].append((i, e.b_port))
        self.port_of: dict[tuple[int, str], str] = {}  # (edge idx, node key) -> port id
        self.port_speed: dict[tuple[str, str], float] = {}
        self.devices: list[Device] = []
        self.groups: list[Group] = []
        self.links: list[Link] = []
        self.dev_of: dict[str, str] = {}  # node key -> device id

    def new_link(self, a: str, ap: str, b: str, bp: str, medium: str, length: float,
                 props: dict | None = None) -> Link:
        link = Link(f"l{len(self.links) + 1}", a, ap, b, bp, medium=medium, length_m=length, properties=props or {})
        self.links.append(link)
        return link

    def ports_for(self, node: Node, dev_id: str, extra: tuple[PortGroup, ...] = ()) -> tuple[PortGroup, ...]:
        """A node's port groups: numbered ports as the source numbers them (at its fastest cable's rate),
        else one group per speed class; every cable's port id recorded in :attr:`port_of`."""
        fab, edges, src = self.fabric, self.fabric.edges, self.fabric.report.source
        mine = self.node_edges.get(node.key, [])
        numbered = [p for _, p in mine if p is not None]
        groups_: list[PortGroup] = []
        if numbered or node.ports:
            top = max((float(edges[i].rate_gbps or 0.0) for i, _ in mine), default=0.0)
            top = top or float(node.properties.get("port_gbps") or 0.0) or fab._default_rate
            n_ports = max([node.ports, *numbered, 1])
            nxt = n_ports
            for i, p in mine:
                if p is None:
                    nxt += 1
                    p = nxt
                self.port_of[(i, node.key)] = f"p{p}"
                self.port_speed[(dev_id, f"p{p}")] = top
            n_ports = max(n_ports, nxt)
            if n_ports > 4096:
                raise ImportFileError(f"{src}: line {node.line}: {node.key} has {n_ports:,} ports (at most 4,096)")
            groups_.append(PortGroup("p", n_ports, top))
        else:
            for kind, prefixes in (("network", PORT_PREFIXES), ("nvlink", NVLINK_PREFIXES)):
                by_rate: dict[float, list[int]] = defaultdict(list)
                for i, _ in mine:
                    if _edge_kind(edges[i]) == kind:
                        by_rate[float(edges[i].rate_gbps or 0.0)].append(i)
                if len(by_rate) > len(prefixes):
                    raise ImportFileError(f"{src}: {node.key} has {kind} links of more than {len(prefixes)} "
                                          "different speeds")
                for prefix, (rate, idxs) in zip(prefixes, sorted(by_rate.items(), reverse=True), strict=False):
                    if len(idxs) > 4096:
                        raise ImportFileError(f"{src}: line {node.line}: {node.key} has {len(idxs):,} links of one "
                                              "speed (at most 4,096 ports)")
                    for n, i in enumerate(idxs, 1):
                        self.port_of[(i, node.key)] = f"{prefix}{n}"
                        self.port_speed[(dev_id, f"{prefix}{n}")] = rate
                    groups_.append(PortGroup(prefix, len(idxs), rate, kind=kind))
            if not groups_:
                groups_.append(PortGroup("p", max(1, node.ports), fab._default_rate))
        return (*groups_, *extra)
