"""The capacity graph: every usable link of a design as integer-indexed numpy arrays.

Nodes are the design's devices in design order (``0..n-1``). Links that are up and have a
positive rate are kept, in design order (``0..m-1``); each link is full duplex, so it gives two
*arcs*: arc ``k`` runs ``a[k] -> b[k]`` and arc ``k + m`` runs ``b[k] -> a[k]``, each with the
link's per-direction rate.

- ``line_bytes_per_s``: the line rate of a link, :func:`designer.model.catalog.line_rate_gbps`
  of its two ports' ``speed_gbps`` and its catalog cable (the smallest of the three), no more than
  the rate a discovered link negotiated (:func:`designer.model.catalog.negotiated_gbps`), converted
  to bytes/s (``/ 8 * 1e9``).
- ``effective_bytes_per_s``: the line rate times the efficiency of the link's protocol
  (:data:`designer.analysis.common.constants.PROTOCOL_EFFICIENCY`); an NVLink link's is that of its GPU
  end's NVLink generation (:func:`nvlink_efficiency`). A catalog that sets a medium's efficiency (an
  overlay ``compare --fit`` wrote, ``Catalog.efficiency``) replaces both, and a note names it.
- ``protocol``: ``nvlink`` and ``pcie`` for board links (medium or port kind); for network links
  ``infiniband`` when an end is a switch whose catalog model says ``specs.protocol ==
  "infiniband"`` (or whose ``properties["protocol"]`` says so), ``direct`` between two GPUs with no
  switch or NIC between (torus, mesh, hypercube chip links, TPU ICI style), otherwise ``ethernet`` (RoCE).
- ``wire_latency_s``: cable length times the cable's ``latency_ns_per_m`` (5 ns/m if unknown);
  ``network_wire_worst_s`` the longest of a network hop (NIC or chip to switch, switch to switch).
- ``node_latency_s``: switch port-to-port latency (catalog ``latency_ns``; a default by protocol).

Failed links (``Link.failed``) and links of zero rate (below ``MIN_LINK_GBPS``, 1 Mb/s) are left
out, and listed in ``excluded``; rates above ``MAX_LINK_GBPS`` are capped (a note says so).
Designs whose models are not in the catalog still analyze from their ports' speeds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import attrgetter, not_
from typing import Any

import numpy as np

from designer.analysis.common import constants as K
from designer.analysis.common.findings import ZERO_CAPACITY, catalog_gaps, not_in_catalog
from designer.model import DEVICE_KINDS, Design, PortGroup
from designer.model.catalog import EFFICIENCY_MEDIA, Catalog, builtin_catalog, line_rate_gbps, negotiated_gbps
from designer.model.units import count, duration, line_rate

PROTOCOL_NAMES = EFFICIENCY_MEDIA
KIND_NAMES = DEVICE_KINDS
P_NVLINK, P_PCIE, P_IB, P_ETH, P_DIRECT = range(5)
K_GPU, K_NIC, K_NVSWITCH, K_SWITCH, K_STORAGE = range(5)


@dataclass(frozen=True, eq=False)
class CapacityGraph:
    """Arrays describing the usable links of a design (see the module docstring).

    Examples
    --------
    >>> from designer.model import Design, Device, Link, PortGroup
    >>> from designer.model.catalog import Catalog
    >>> d = Design()
    >>> _ = d.add_device(Device("a", "nic", (PortGroup("p", 1, 400.0),)))
    >>> _ = d.add_device(Device("b", "nic", (PortGroup("p", 1, 200.0),)))
    >>> _ = d.add_link(Link("l1", "a", "p1", "b", "p1", length_m=10))
    >>> g = build_capacity_graph(d, Catalog())
    >>> float(g.line_bytes_per_s[0]), g.protocol_name(0), round(float(g.wire_latency_s[0]) * 1e9)
    (25000000000.0, 'ethernet', 50)
    """

    node_ids: tuple[str, ...]
    node_kind: np.ndarray
    node_latency_s: np.ndarray
    node_sharp: np.ndarray
    node_nvls: np.ndarray
    link_ids: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    line_bytes_per_s: np.ndarray
    effective_bytes_per_s: np.ndarray
    protocol: np.ndarray
    wire_latency_s: np.ndarray
    #: The longest wire latency of a network hop, over every network link of the design, failed
    #: or not (the floor plan keeps its cables): (a link with an endpoint end -- NIC to switch,
    #: chip to chip --, a link between two switches). The worst path of the fabric crosses them.
    network_wire_worst_s: tuple[float, float] = (0.0, 0.0)
    #: Per node, the NVLink generation of a GPU or NVLink switch (0: not known or not NVLink):
    #: what sets NCCL's NVLS constants (Hopper 4, Blackwell 5).
    node_nvlink_gen: np.ndarray | None = None
    excluded: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()
    index: dict[str, int] = field(default_factory=dict, repr=False)

    @property
    def n_nodes(self) -> int:
        return len(self.node_ids)

    @property
    def n_links(self) -> int:
        return len(self.link_ids)

    @property
    def arc_src(self) -> np.ndarray:
        return np.concatenate([self.a, self.b])

    @property
    def arc_dst(self) -> np.ndarray:
        return np.concatenate([self.b, self.a])

    @property
    def arc_line_bytes_per_s(self) -> np.ndarray:
        return np.concatenate([self.line_bytes_per_s, self.line_bytes_per_s])

    @property
    def arc_effective_bytes_per_s(self) -> np.ndarray:
        return np.concatenate([self.effective_bytes_per_s, self.effective_bytes_per_s])

    def arc_link(self, arc: np.ndarray | int) -> np.ndarray | int:
        """The link index of an arc (or array of arcs)."""
        return arc % self.n_links if self.n_links else arc

    def protocol_name(self, link: int) -> str:
        return PROTOCOL_NAMES[int(self.protocol[link])]

    def nodes_of_kind(self, kind: str) -> np.ndarray:
        return np.flatnonzero(self.node_kind == KIND_NAMES.index(kind))


def _component(catalog: Catalog, model: str):
    return catalog.components.get(model) if model else None


_NVLINK_FORM = re.compile(r"nvlink\s*(\d+)", re.IGNORECASE)


def nvlink_efficiency(specs: Mapping[str, Any], ports: Iterable[PortGroup] = ()) -> float:
    """The fraction of its line rate an NVLink (scale-up) link of a device delivers: the one rule.

    ``specs`` are the device's catalog specs (with its own ``properties`` over them); ``ports`` its
    port groups. In order: ``scale_up_efficiency`` (a figure of the part itself, for scale-up links
    that are not NVLink: MI300X Infinity Fabric, 0.75), the NVLink generation ``nvlink_gen``, else
    the generation an NVLink port's form factor names (``NVLink4``), through
    :data:`~designer.analysis.common.constants.NVLINK_EFFICIENCY_BY_GEN`; otherwise ``NVLINK_EFFICIENCY``.

    >>> [round(nvlink_efficiency({"nvlink_gen": g}), 3) for g in (2, 3, 4, 5)], round(nvlink_efficiency({}), 3)
    ([0.8, 0.8, 0.824, 0.802], 0.824)
    >>> nvlink_efficiency({"scale_up_efficiency": 0.75}), nvlink_efficiency({}, [PortGroup("nvl", 8, 3600.0, "nvlink",
    ...     "NVLink3")])
    (0.75, 0.8)
    """
    eff = specs.get("scale_up_efficiency")
    if isinstance(eff, (int, float)) and not isinstance(eff, bool) and 0.0 < eff <= 1.0:
        return float(eff)
    gen = nvlink_generation(specs, ports)
    return K.NVLINK_EFFICIENCY_BY_GEN.get(gen, K.NVLINK_EFFICIENCY) if gen is not None else K.NVLINK_EFFICIENCY


def nvlink_generation(specs: Mapping[str, Any], ports: Iterable[PortGroup] = ()) -> int | None:
    """A device's NVLink generation: ``specs.nvlink_gen``, else the one an NVLink port's form factor
    names (``NVLink5``); None when neither says.

    >>> nvlink_generation({"nvlink_gen": 5}), nvlink_generation({}, [PortGroup("nvl", 1, 7200.0, "nvlink", "NVLink5")])
    (5, 5)
    """
    gen = specs.get("nvlink_gen")
    if isinstance(gen, int) and not isinstance(gen, bool):
        return gen
    for g in ports:
        m = _NVLINK_FORM.search(g.form_factor) if g.kind == "nvlink" else None
        if m:
            return int(m.group(1))
    return None


#: Device properties that set a device's NVLink efficiency over its catalog model's specs.
_NVLINK_PROPS = ("nvlink_gen", "scale_up_efficiency")


#: Largest number of (speed a, speed b, cable) combinations :func:`_line_rates` tabulates densely.
DENSE_SIGNATURES = 1 << 20


def _line_rates(speed_a: np.ndarray, speed_b: np.ndarray, speeds: list[float], cable_code: np.ndarray,
                cables: list) -> np.ndarray:
    """Per link, :func:`line_rate_gbps` of its port speeds and cable.

    ``speed_a`` / ``speed_b`` index ``speeds``, ``cable_code`` indexes ``cables`` (a Cable or None).
    The rule runs once per distinct (speed a, speed b, cable) signature and is broadcast to the
    links: a fabric has a handful of signatures however many links it has.
    """
    if not len(speed_a):
        return np.zeros(0)
    n_s, n_c = len(speeds), len(cables)
    # Under (2m)^2 (m + 1) for m links: fits in int64 for any fabric a file can hold.
    key = (speed_a * n_s + speed_b) * n_c + cable_code

    def rule(sigs: np.ndarray) -> np.ndarray:
        pair, cab = np.divmod(sigs, n_c)
        a, b = np.divmod(pair, n_s)
        return np.array([line_rate_gbps(speeds[x], speeds[y], cables[c])
                         for x, y, c in zip(a.tolist(), b.tolist(), cab.tolist(), strict=True)], dtype=float)

    if n_s * n_s * n_c <= DENSE_SIGNATURES:
        sigs = np.flatnonzero(np.bincount(key))
        table = np.zeros(int(sigs[-1]) + 1)
        table[sigs] = rule(sigs)
        return table[key]
    sigs, inverse = np.unique(key, return_inverse=True)
    return rule(sigs)[inverse.reshape(-1)]


@dataclass(frozen=True)
class _Nodes:
    """Per device of a design: what the capacity graph keeps of it, and its switch protocol."""

    kind: np.ndarray
    latency_s: np.ndarray
    sharp: np.ndarray
    nvls: np.ndarray
    protocol: np.ndarray  # a switch's protocol (P_IB, P_ETH), -1 unknown
    nvlink_eff: np.ndarray  # NVLink efficiency of a GPU or NVLink switch (nvlink_efficiency)
    nvlink_gen: np.ndarray


@dataclass(frozen=True)
class _Links:
    """Per link of a design, failed or not: its ends, port kinds and speeds, medium and cable."""

    a: np.ndarray
    b: np.ndarray
    port_kind_a: np.ndarray  # P_NVLINK, P_PCIE or -1
    port_kind_b: np.ndarray
    speed_a: np.ndarray  # indexes speeds
    speed_b: np.ndarray
    speeds: list[float]
    medium: np.ndarray  # P_NVLINK, P_PCIE or -1
    length_m: np.ndarray
    failed: np.ndarray
    cable: np.ndarray  # indexes cables
    cables: list  # a Cable or None (not in the catalog)
    cable_latency_s_per_m: np.ndarray  # NaN: no catalog cable


def build_capacity_graph(design: Design, catalog: Catalog | None = None) -> CapacityGraph:
    """The capacity graph of ``design`` with ``catalog`` (None: the built-in, default catalog).

    Unknown models and cables are not an error: port speeds are used, and default latencies.
    A default catalog that cannot be loaded raises :class:`CatalogError`, as it does for the
    design rules and the bill of materials: without it InfiniBand links would pass for Ethernet
    and NVLS and SHARP would vanish, changing the answer without saying so.
    """
    if catalog is None:
        catalog = builtin_catalog()
    devices, links = design.devices, design.links
    node_ids = tuple(map(attrgetter("id"), devices))
    index = dict(zip(node_ids, range(len(node_ids)), strict=True))
    nodes = _node_arrays(devices, catalog)
    notes = _catalog_gap_notes(design, catalog)
    lk = _link_arrays(devices, links, index, catalog)
    rate, failed = _link_rates(links, lk, notes), lk.failed
    zero = ~(rate >= K.MIN_LINK_GBPS)
    keep = ~failed & ~zero
    excluded = [(links[k].id, "failed" if failed[k] else "zero capacity") for k in np.flatnonzero(~keep)]
    proto, board = _link_protocols(lk, nodes)
    wire, wire_worst = _wire_latencies(lk, nodes.kind, board)
    if excluded:
        notes.append(_excluded_note(excluded))
    line = rate[keep] * K.BYTES_PER_S_PER_GBPS
    proto_k = proto[keep]
    a, b = lk.a[keep], lk.b[keep]
    link_eff = _link_efficiency(catalog, proto_k, a, b, nodes, notes)
    return CapacityGraph(
        node_ids=node_ids,
        node_kind=nodes.kind,
        node_latency_s=nodes.latency_s,
        node_sharp=nodes.sharp,
        node_nvls=nodes.nvls,
        link_ids=tuple(compress(map(attrgetter("id"), links), keep.tolist())),
        a=a,
        b=b,
        line_bytes_per_s=line,
        effective_bytes_per_s=line * link_eff,
        protocol=proto_k,
        wire_latency_s=wire[keep],
        network_wire_worst_s=wire_worst,
        node_nvlink_gen=nodes.nvlink_gen,
        excluded=tuple(excluded),
        notes=tuple(notes),
        index=index,
    )


_KIND, _MODEL = attrgetter("kind"), attrgetter("model")
_PORTS, _PROPERTIES = attrgetter("ports"), attrgetter("properties")
#: The device properties :func:`_node_arrays` reads (over the catalog model's specs).
_NODE_PROPS = frozenset(("protocol", "sharp", "nvls", "latency_ns", "based_on", *_NVLINK_PROPS))


def _own_signature(props: dict) -> tuple:
    """The properties of a device that :func:`_node_values` reads, with their types (``nvlink_gen``
    True is not 1): with its kind, model and port groups, what sets its row of :class:`_Nodes`."""
    return tuple((k, type(props[k]), props[k]) for k in sorted(_NODE_PROPS.intersection(props)))


def _node_values(d, catalog: Catalog) -> tuple[int, float, bool, bool, int, float, int]:
    """One device's (kind, switch latency, SHARP, NVLS, switch protocol, NVLink efficiency, NVLink
    generation): see :func:`_node_arrays`."""
    nvl_eff, nvl_gen = K.NVLINK_EFFICIENCY, 0
    if d.kind in ("gpu", "nvswitch"):
        own = {k: d.properties[k] for k in _NVLINK_PROPS if k in d.properties}
        base = _component(catalog, d.model) or _component(catalog, str(d.properties.get("based_on") or ""))
        specs_ = {**(base.specs if base is not None else {}), **own}
        nvl_eff, nvl_gen = nvlink_efficiency(specs_, d.ports), nvlink_generation(specs_, d.ports) or 0
    comp = _component(catalog, d.model)
    specs = dict(comp.specs) if comp is not None else {}
    specs.update({k: v for k, v in d.properties.items() if k in ("protocol", "sharp", "nvls", "latency_ns")})
    proto = specs.get("protocol")
    node_proto = PROTOCOL_NAMES.index(proto) if proto in ("infiniband", "ethernet") else -1
    # SHARP is an InfiniBand (Quantum-class) switch feature: never on an Ethernet switch.
    sharp = bool(specs.get("sharp", False)) and d.kind == "switch" and proto == "infiniband"
    nvls = bool(specs.get("nvls", False)) and d.kind == "nvswitch"
    lat_ns = specs.get("latency_ns", comp.latency_ns if comp is not None else 0.0)
    latency = 0.0
    if d.kind == "switch":
        default = K.DEFAULT_SWITCH_LATENCY_S["infiniband" if proto == "infiniband" else "ethernet"]
        latency = float(lat_ns) * K.NS if lat_ns else default
    elif d.kind == "nvswitch":
        latency = float(lat_ns or 0.0) * K.NS
    return KIND_NAMES.index(d.kind), latency, sharp, nvls, node_proto, nvl_eff, nvl_gen


def _node_arrays(devices: list, catalog: Catalog) -> _Nodes:
    """Each device's kind, switch latency, SHARP and NVLS, switch protocol and NVLink efficiency.

    A device's catalog specs with its own ``protocol``, ``sharp``, ``nvls`` and ``latency_ns``
    properties over them; a switch without a latency gets its protocol's default. Devices of one
    signature (kind, model, port groups and :func:`_own_signature`: a fabric has a handful) are
    worked out once and the values broadcast; the devices keep their port tuples alive, so their
    ids stay unique meanwhile.
    """
    # Signatures a column at a time (0.4 -> 0.3 s for 285,696 devices, most of it reading each
    # device's attributes); a device with properties that matter gets its signature's extra part,
    # one by one.
    props = list(map(_PROPERTIES, devices))
    keys: list[Any] = list(zip(map(_KIND, devices), map(_MODEL, devices), map(id, map(_PORTS, devices)), strict=True))
    for i in compress(range(len(devices)), map(not_, map(_NODE_PROPS.isdisjoint, props))):
        key = (*keys[i], _own_signature(props[i]))
        try:
            hash(key)
        except TypeError:  # an unhashable property value: the device is a signature of its own
            key = ("device", i)
        keys[i] = key
    number = {key: c for c, key in enumerate(dict.fromkeys(keys))}  # in order of first appearance
    sig = np.fromiter(map(number.__getitem__, keys), dtype=np.int64, count=len(keys))
    first = np.unique(sig, return_index=True)[1].tolist()  # per signature, its first device
    rows = [_node_values(devices[i], catalog) for i in first]
    cols = list(zip(*rows, strict=True)) if rows else [()] * 7
    dtypes = (np.int8, float, bool, bool, np.int8, float, np.int8)
    return _Nodes(*(np.array(col, dtype=t)[sig] for col, t in zip(cols, dtypes, strict=True)))


def _catalog_gap_notes(design: Design, catalog: Catalog) -> list[str]:
    """Notes on the models and cables of ``design`` the catalog lacks, and what stands in for them."""
    notes = []
    gaps = catalog_gaps(design, catalog)  # the same check and words as the unknown-model / unknown-cable rules
    if gaps.models:
        notes.append(f"{not_in_catalog('model', gaps.models, 'device')}: using port speeds and default "
                     "latencies")
    if gaps.cables:
        notes.append(f"{not_in_catalog('cable', gaps.cables, 'link')}: using port speeds and "
                     f"{duration(K.CABLE_LATENCY_S_PER_M)}/m")
    return notes


def _codes(values: list) -> tuple[np.ndarray, list]:
    """Each of ``values`` numbered by its distinct value (in order of first appearance), and those values."""
    distinct = list(dict.fromkeys(values))
    number = {v: j for j, v in enumerate(distinct)}
    return np.fromiter(map(number.__getitem__, values), dtype=np.int64, count=len(values)), distinct


def _link_arrays(devices: list, links: list, index: dict[str, int], catalog: Catalog) -> _Links:
    """The per-link arrays of ``links``, read a column at a time. A port is looked up once per
    distinct (port groups, port id): devices of one model share their port-group tuple."""
    m_all = len(links)

    def column(name: str) -> list:
        return list(map(attrgetter(name), links))

    ia_l = np.fromiter(map(index.__getitem__, column("a_device")), dtype=np.int64, count=m_all)
    ib_l = np.fromiter(map(index.__getitem__, column("b_device")), dtype=np.int64, count=m_all)
    # The devices keep their port tuples alive: the ids stay unique while they are numbered.
    groups_of, _ = _codes(list(map(id, map(attrgetter("ports"), devices))))
    holder = dict(zip(groups_of.tolist(), range(len(devices)), strict=True))  # a device per port tuple
    port_of, port_ids = _codes(column("a_port") + column("b_port"))
    pair, inverse = np.unique(groups_of[np.concatenate([ia_l, ib_l])] * len(port_ids) + port_of,
                              return_inverse=True)
    kind_code = {"nvlink": P_NVLINK, "pcie": P_PCIE}
    speed_code: dict[float, int] = {}  # distinct port speeds, numbered
    pair_kind, pair_speed = [], []
    for g, p in zip(*np.divmod(pair, max(len(port_ids), 1)), strict=True):
        spec = devices[holder[int(g)]].port(port_ids[int(p)])
        pair_kind.append(kind_code.get(spec.kind, -1) if spec is not None else -1)
        pair_speed.append(speed_code.setdefault(spec.speed_gbps if spec is not None else 0.0, len(speed_code)))
    inverse = inverse.reshape(-1)
    kind_ab = np.array(pair_kind, dtype=np.int8)[inverse]
    speed_ab = np.array(pair_speed, dtype=np.int64)[inverse]
    ccode, cids = _codes(column("cable"))
    cab_list = [catalog.cables.get(cid) if cid else None for cid in cids]
    cab_lat = [np.nan if cab is None else cab.latency_ns_per_m * K.NS for cab in cab_list]
    return _Links(
        a=ia_l,
        b=ib_l,
        port_kind_a=kind_ab[:m_all],
        port_kind_b=kind_ab[m_all:],
        speed_a=speed_ab[:m_all],
        speed_b=speed_ab[m_all:],
        speeds=list(speed_code),
        medium=np.fromiter(map(kind_code.get, column("medium"), repeat(-1)), dtype=np.int8, count=m_all),
        length_m=np.array(column("length_m"), dtype=float).reshape(m_all),
        failed=np.array(column("failed"), dtype=bool).reshape(m_all),
        cable=ccode,
        cables=cab_list,
        cable_latency_s_per_m=np.array(cab_lat, dtype=float)[ccode] if m_all else np.zeros(0),
    )


def _link_rates(links: list, lk: _Links, notes: list[str]) -> np.ndarray:
    """Per link, its line rate in Gb/s: the rule of its ports and cable, no more than it negotiated,
    capped at ``MAX_LINK_GBPS`` (a note in ``notes`` says how many were)."""
    rate = _line_rates(lk.speed_a, lk.speed_b, lk.speeds, lk.cable, lk.cables)
    for k, props in enumerate(map(attrgetter("properties"), links)):
        if props and "negotiated_gbps" in props:
            neg = negotiated_gbps(links[k])
            if neg is not None and neg < rate[k]:
                rate[k] = neg
    fast = rate > K.MAX_LINK_GBPS
    if fast.any():
        notes.append(f"{count(int(fast.sum()), 'link')} faster than {line_rate(K.MAX_LINK_GBPS)} counted at that rate")
        rate = np.minimum(rate, K.MAX_LINK_GBPS)
    return rate


def _link_protocols(lk: _Links, nodes: _Nodes) -> tuple[np.ndarray, np.ndarray]:
    """Per link, its protocol (see the module docstring), and whether it is a board link (NVLink, PCIe)."""
    ka, kb, medium = lk.port_kind_a, lk.port_kind_b, lk.medium
    ia, ib, kind = lk.a, lk.b, nodes.kind
    is_nvl = (medium == P_NVLINK) | (ka == P_NVLINK) | (kb == P_NVLINK)
    is_pcie = ~is_nvl & ((medium == P_PCIE) | (ka == P_PCIE) | (kb == P_PCIE))
    npa, npb = nodes.protocol[ia], nodes.protocol[ib]
    net_p = np.where((npa == P_IB) | (npb == P_IB), P_IB, P_ETH)
    # A network link between two accelerators, no switch or NIC between (torus, mesh, hypercube: TPU ICI style).
    net_p = np.where((kind[ia] == K_GPU) & (kind[ib] == K_GPU), P_DIRECT, net_p)
    proto = np.where(is_nvl, P_NVLINK, np.where(is_pcie, P_PCIE, net_p)).astype(np.int8)
    return proto, is_nvl | is_pcie


def _wire_latencies(lk: _Links, kind: np.ndarray, board: np.ndarray) -> tuple[np.ndarray, tuple[float, float]]:
    """Per link, its cable's latency; and the longest of a network access hop and of a switch-to-switch hop.

    A cable not in the catalog counts ``CABLE_LATENCY_S_PER_M``; a board link without a cable none.
    """
    clat = lk.cable_latency_s_per_m
    has_cab = ~np.isnan(clat)
    per_m = np.where(has_cab, np.nan_to_num(clat), K.CABLE_LATENCY_S_PER_M)
    wire = np.where(board & ~has_cab, 0.0, lk.length_m * per_m)
    net_all = ~board
    both_sw = (kind[lk.a] == K_SWITCH) & (kind[lk.b] == K_SWITCH)
    access_w, fabric_w = wire[net_all & ~both_sw], wire[net_all & both_sw]
    return wire, (float(access_w.max()) if len(access_w) else 0.0, float(fabric_w.max()) if len(fabric_w) else 0.0)


def _excluded_note(excluded: list[tuple[str, str]]) -> str:
    """The note naming the links left out of the analysis, failed or of zero capacity."""
    nf = sum(1 for _, r in excluded if r == "failed")
    nz = len(excluded) - nf
    parts = []
    if nf:
        parts.append(count(nf, "failed link"))
    if nz:
        parts.append(count(nz, ZERO_CAPACITY))
    return (f"left out of the analysis: {' and '.join(parts)} ({', '.join(i for i, _ in excluded[:3])}"
            f"{'...' if len(excluded) > 3 else ''})")


def _link_efficiency(catalog: Catalog, proto: np.ndarray, a: np.ndarray, b: np.ndarray, nodes: _Nodes,
                     notes: list[str]) -> np.ndarray:
    """Per kept link, the fraction of its line rate it delivers: its protocol's, an NVLink link its GPU
    end's; a catalog's own figure for a medium (an overlay fitted to a measurement) replaces both."""
    for medium, value in catalog.efficiency.items():
        notes.append(f"{medium} efficiency {value:.3g} from the catalog ({catalog.efficiency_sources.get(medium, '')})")
    eff_table = np.array([catalog.efficiency.get(p, K.PROTOCOL_EFFICIENCY[p]) for p in PROTOCOL_NAMES])
    link_eff = eff_table[proto]
    nvl_k = proto == P_NVLINK
    if nvl_k.any() and "nvlink" not in catalog.efficiency:
        # An NVLink link runs at its GPU end's NVLink generation (the lower of two GPUs'; a link
        # between two NVLink switches at the lower of theirs).
        ka_, kb_ = a[nvl_k], b[nvl_k]
        ea, eb = nodes.nvlink_eff[ka_], nodes.nvlink_eff[kb_]
        ga, gb = nodes.kind[ka_] == K_GPU, nodes.kind[kb_] == K_GPU
        link_eff[nvl_k] = np.where(ga & ~gb, ea, np.where(gb & ~ga, eb, np.minimum(ea, eb)))
    return link_eff
