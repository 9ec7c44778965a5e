"""Shortest-path ECMP routing between GPUs: fabric structure and explicit flows.

Model (documented in ``docs/analysis.md``):

- **NVLink domains.** GPUs joined by NVLink links (through an ``nvswitch`` device or directly)
  form a domain (a server, or an NVL72 rack). Traffic between two GPUs of one domain stays on
  NVLink: ``gpu -> nvswitch -> gpu``, or, without a switch (bridged pairs, cube-mesh, full
  mesh), along the shortest paths over the direct GPU-to-GPU links
  (:mod:`designer.analysis.fabric.direct_nvlink`).
- **Attachments.** Other traffic leaves a GPU through its NIC: ``gpu -(pcie)-> nic -(network)->
  switch``. A NIC with k network links splits its traffic equally over them. A GPU with network
  ports of its own (torus, hypercube) is its own attachment point.
- **Core.** Between attachment points, traffic follows every shortest path (hop count) over the
  *core graph* (switches and GPUs with network ports, network links only), split equally over
  the equal-cost next hops at every node (ECMP). NICs and NVLink are never transit.

This module finds the domains, attachments and core graph (:func:`build_fabric`) and routes
explicit GPU flows (:func:`route_flows`). The core-graph ECMP engine is
:mod:`designer.analysis.fabric.ecmp`; its twin-switch shortcuts and :class:`CoreRouter` are in
:mod:`designer.analysis.fabric.twins` (re-exported here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from designer.analysis.fabric.capacity import K_GPU, K_NIC, K_NVSWITCH, K_SWITCH, P_NVLINK, P_PCIE, CapacityGraph
from designer.analysis.fabric.direct_nvlink import DirectDomains, build_direct_domains
from designer.analysis.fabric.ecmp import CHUNK_ELEMENTS
from designer.analysis.fabric.twins import CoreRouter
from designer.model.units import count, plural

__all__ = ["CHUNK_ELEMENTS", "CoreRouter", "Fabric", "Routed", "attachment_pairs", "build_fabric", "pxn_proxies",
           "route_flows", "unique_pairs"]


def unique_pairs(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``(a[i], b[i])`` pairs of two arrays of non-negative integers, in lexicographic
    order, as an (n, 2) array, and each input's row in it.

    The same as ``np.unique(np.stack([a, b], axis=1), axis=0, return_inverse=True)``, but on one
    int64 key per pair: several times faster, and numpy's integer sort lets other threads run
    (the row-wise unique sorts a void view while holding the interpreter lock).

    >>> unique_pairs(np.array([2, 0, 2, 0]), np.array([1, 5, 1, 3]))[0].tolist()
    [[0, 3], [0, 5], [2, 1]]
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if len(a) == 0:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int64)
    width = int(b.max()) + 1
    keys, inverse = np.unique(a * width + b, return_inverse=True)
    return np.stack([keys // width, keys % width], axis=1), inverse.reshape(-1)

def attachment_pairs(ptr: np.ndarray, src: np.ndarray, dst: np.ndarray, cs: np.ndarray, cd: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each flow ``src[i] -> dst[i]`` spread over every pair of its ends' network attachments.

    ``ptr`` indexes the attachments of each GPU (``ptr[g]:ptr[g + 1]``); ``cs``, ``cd`` are the
    attachment counts of the sources and destinations (all > 0). Returns (flow of each pair, source
    attachment, destination attachment).

    >>> attachment_pairs(np.array([0, 2, 3]), np.array([0]), np.array([1]), np.array([2]), np.array([1]))
    (array([0, 0]), array([0, 1]), array([2, 2]))
    """
    rep = cs * cd
    fi = np.repeat(np.arange(len(src)), rep)
    k = np.arange(int(rep.sum())) - np.repeat(np.cumsum(rep) - rep, rep)
    return fi, ptr[src[fi]] + k // cd[fi], ptr[dst[fi]] + k % cd[fi]

@dataclass(frozen=True, eq=False)
class Fabric:
    """Routing structure of a capacity graph (see the module docstring).

    ``gpus``: node index of every GPU, design order. ``domain``: NVLink domain per GPU (-1: none),
    one per NVLink switch (``domain_hub``, -1 for a hub-less NVLink group).
    ``nvl_up`` / ``nvl_down``: arc GPU->hub and hub->GPU of one of its NVLink links (-1: none);
    all of them, with the share of the GPU's NVLink traffic each carries: ``nvl_up_arcs`` /
    ``nvl_down_arcs`` / ``nvl_w``, GPU ``i``'s in rows ``nvl_ptr[i]:nvl_ptr[i + 1]``
    (:meth:`add_nvlink`).
    Attachments (``att_*``, one row per (GPU, attachment point)): ``att_gpu`` (position in
    ``gpus``), ``att_core`` (core-graph node), ``att_w`` (share of the GPU's traffic),
    ``att_up`` / ``att_down`` (k x 2 arcs from GPU to core node and back, -1 padded).
    Core graph: ``core_nodes`` (capacity-graph node per core node), ``core_of`` (inverse, -1),
    ``core_arc`` (capacity-graph arc per core arc), ``core_src`` / ``core_dst``. ``notes``:
    what the routing model leaves out.
    """

    cap: CapacityGraph
    gpus: np.ndarray
    gpu_pos: np.ndarray
    domain: np.ndarray
    n_domains: int
    domain_hub: np.ndarray
    nvl_up: np.ndarray
    nvl_down: np.ndarray
    nvl_ptr: np.ndarray
    nvl_up_arcs: np.ndarray
    nvl_down_arcs: np.ndarray
    nvl_w: np.ndarray
    att_gpu: np.ndarray
    att_core: np.ndarray
    att_w: np.ndarray
    att_up: np.ndarray
    att_down: np.ndarray
    core_nodes: np.ndarray
    core_of: np.ndarray
    core_arc: np.ndarray
    core_src: np.ndarray
    core_dst: np.ndarray
    rail: np.ndarray
    notes: tuple[str, ...] = ()
    #: NVLink domains without a switch whose GPUs route over their direct links.
    direct: DirectDomains | None = None

    @property
    def n_core(self) -> int:
        return len(self.core_nodes)

    def hubbed(self) -> np.ndarray:
        """Per GPU: in an NVLink domain with a switch, linked to it both ways."""
        return (self.domain >= 0) & (self.nvl_up >= 0) & (self.nvl_down >= 0)

    def nvlink_member(self) -> np.ndarray:
        """Per GPU: its traffic to the other GPUs of its NVLink domain stays on NVLink (a domain
        with a switch, or a routed direct domain)."""
        out = self.hubbed()
        if self.direct is not None:
            out |= self.direct.dom >= 0
        return out

    def nvlink_local(self, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
        """Per flow ``src[i] -> dst[i]`` (GPU positions, src != dst): it stays on NVLink, through
        the domain's switch or over direct GPU-to-GPU links. The one definition every consumer of
        the routing uses."""
        src = np.asarray(src, dtype=np.int64)
        dst = np.asarray(dst, dtype=np.int64)
        dom = self.domain
        out = (dom[src] >= 0) & (dom[src] == dom[dst]) & (self.nvl_up[src] >= 0) & (self.nvl_down[dst] >= 0)
        if self.direct is not None and self.direct.any:
            out |= self.direct.routed(src, dst)
        return out

    def add_nvlink_flows(self, load: np.ndarray, src: np.ndarray, dst: np.ndarray, amount: np.ndarray) -> None:
        """Add flows that stay on NVLink (:meth:`nvlink_local`) to ``load``."""
        amount = np.broadcast_to(np.asarray(amount, dtype=float), np.shape(src))
        hub = self.hubbed()
        h = hub[src] & hub[dst]
        self.add_nvlink(load, src[h], amount[h])
        self.add_nvlink(load, dst[h], amount[h], down=True)
        if self.direct is not None and (~h).any():
            self.direct.add(load, src[~h], dst[~h], amount[~h])

    def add_nvlink(self, load: np.ndarray, gpus: np.ndarray, amount, *, down: bool = False) -> None:
        """Add ``amount`` (per GPU, or one number) to the NVLink arcs of ``gpus`` towards their hub
        (from it with ``down``), shared over parallel links by line rate."""
        gpus = np.asarray(gpus, dtype=np.int64)
        amount = np.broadcast_to(np.asarray(amount, dtype=float), gpus.shape)
        row, arcs, share = self.nvlink_rows(gpus, down=down)
        np.add.at(load, arcs, amount[row] * share)

    def nvlink_rows(self, gpus: np.ndarray, *, down: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(index into ``gpus``, NVLink arc, share) of every NVLink link of ``gpus`` to (from) their hub."""
        gpus = np.asarray(gpus, dtype=np.int64)
        k = self.nvl_ptr[gpus + 1] - self.nvl_ptr[gpus]
        row = np.repeat(np.arange(len(gpus)), k)
        j = np.repeat(self.nvl_ptr[gpus], k) + np.arange(int(k.sum())) - np.repeat(np.cumsum(k) - k, k)
        return row, (self.nvl_down_arcs if down else self.nvl_up_arcs)[j], self.nvl_w[j]

    def gpu_has_network(self) -> np.ndarray:
        """Per GPU: True when it has at least one attachment to the network."""
        out = np.zeros(len(self.gpus), dtype=bool)
        out[self.att_gpu] = True
        return out


class _Domains(NamedTuple):
    """The NVLink domains of a fabric's GPUs (see :func:`_nvlink_domains`)."""

    domain: np.ndarray  # per GPU, -1: none
    n_domains: int
    domain_hub: np.ndarray  # per domain, its NVLink switch (-1: hub-less)
    nvl_up: np.ndarray  # per GPU, arc GPU -> hub of one of its NVLink links (-1: none)
    nvl_down: np.ndarray
    hub_of: np.ndarray  # per GPU, its NVLink switch (-1: none)
    comp: np.ndarray  # per node, its NVLink component


class _HubLinks(NamedTuple):
    """Every NVLink link of each GPU to its hub, GPU ``i``'s in rows ``ptr[i]:ptr[i + 1]``."""

    ptr: np.ndarray
    up: np.ndarray
    down: np.ndarray
    w: np.ndarray  # the share of the GPU's NVLink traffic each link carries


class _Core(NamedTuple):
    """The core graph: network links between switches and the GPUs and NICs with network ports."""

    mask: np.ndarray  # per node
    nodes: np.ndarray
    of: np.ndarray
    arc: np.ndarray
    src: np.ndarray
    dst: np.ndarray


class _Attachments(NamedTuple):
    """Per (GPU, attachment point) row, sorted by GPU (see :class:`Fabric`, ``att_*``)."""

    gpu: np.ndarray
    core: np.ndarray
    w: np.ndarray
    up: np.ndarray
    down: np.ndarray


def build_fabric(cap: CapacityGraph, rails: np.ndarray | None = None) -> Fabric:
    """Find NVLink domains, GPU attachments and the core graph of ``cap``."""
    n, m = cap.n_nodes, cap.n_links
    kind, a, b = cap.node_kind, cap.a, cap.b
    gpus = np.flatnonzero(kind == K_GPU)
    gpu_pos = np.full(n, -1, dtype=np.int64)
    gpu_pos[gpus] = np.arange(len(gpus))
    notes: list[str] = []
    dom = _nvlink_domains(cap, gpus, gpu_pos)
    hub = _hub_links(cap, gpus, gpu_pos, dom.hub_of, notes)
    joined = _joined_hubs_note(cap, dom)
    if joined:
        notes.append(joined)
    core = _core_graph(cap)
    att = _attachments(cap, gpus, gpu_pos, core)
    if rails is None:
        rails = np.full(len(gpus), -1, dtype=np.int64)
    gg = (cap.protocol == P_NVLINK) & (kind[a] == K_GPU) & (kind[b] == K_GPU)
    direct, direct_notes = build_direct_domains(len(gpus), gpu_pos, dom.domain, dom.domain_hub, a, b,
                                                np.flatnonzero(gg), cap.line_bytes_per_s, m)
    notes.extend(direct_notes)
    return Fabric(
        cap=cap, gpus=gpus, gpu_pos=gpu_pos, domain=dom.domain, n_domains=dom.n_domains, domain_hub=dom.domain_hub,
        nvl_up=dom.nvl_up, nvl_down=dom.nvl_down, nvl_ptr=hub.ptr, nvl_up_arcs=hub.up, nvl_down_arcs=hub.down,
        nvl_w=hub.w, att_gpu=att.gpu, att_core=att.core, att_w=att.w, att_up=att.up, att_down=att.down,
        core_nodes=core.nodes, core_of=core.of, core_arc=core.arc, core_src=core.src, core_dst=core.dst,
        rail=np.asarray(rails, dtype=np.int64), notes=tuple(notes), direct=direct,
    )


def _nvlink_domains(cap: CapacityGraph, gpus: np.ndarray, gpu_pos: np.ndarray) -> _Domains:
    """The NVLink domain of each GPU.

    A GPU linked to an NVLink switch (its hub; the last such link if several) is in the domain of
    that hub, so traffic between GPUs of one domain takes gpu -> hub -> gpu, a real path. Hubs
    joined to each other by NVLink stay separate domains: that NVLink is not routed, their GPUs
    talk over the network. GPUs with NVLink but no hub are grouped by NVLink component and route
    over their direct links (direct_nvlink).
    """
    n, m = cap.n_nodes, cap.n_links
    kind, a, b = cap.node_kind, cap.a, cap.b
    nv = cap.protocol == P_NVLINK
    g_nv = sp.coo_matrix((np.ones(int(nv.sum())), (a[nv], b[nv])), shape=(n, n)).tocsr()
    _, comp = connected_components(g_nv, directed=False)
    has_nv = np.zeros(n, dtype=bool)
    has_nv[a[nv]] = True
    has_nv[b[nv]] = True
    nvl_up = np.full(len(gpus), -1, dtype=np.int64)
    nvl_down = np.full(len(gpus), -1, dtype=np.int64)
    for end, other, off_up, off_down in ((a, b, 0, m), (b, a, m, 0)):
        sel = nv & (kind[end] == K_GPU) & (kind[other] == K_NVSWITCH)
        idx = np.flatnonzero(sel)
        gp = gpu_pos[end[idx]]
        nvl_up[gp] = idx + off_up
        nvl_down[gp] = idx + off_down
    hubbed = nvl_up >= 0
    hub_of = np.full(len(gpus), -1, dtype=np.int64)
    hub_of[hubbed] = cap.arc_dst[nvl_up[hubbed]]
    key = np.where(hubbed, hub_of, np.where(has_nv[gpus], n + comp[gpus], -1))
    uniq, dom = np.unique(key[key >= 0], return_inverse=True)
    domain = np.full(len(gpus), -1, dtype=np.int64)
    domain[key >= 0] = dom
    domain_hub = np.where(uniq < n, uniq, -1).astype(np.int64)
    return _Domains(domain, len(uniq), domain_hub, nvl_up, nvl_down, hub_of, comp)


def _hub_links(cap: CapacityGraph, gpus: np.ndarray, gpu_pos: np.ndarray, hub_of: np.ndarray,
               notes: list[str]) -> _HubLinks:
    """Every NVLink link of a GPU to its hub; parallel links share its traffic by line rate.

    Links to another NVLink switch are not routed (a note in ``notes`` counts such GPUs).
    """
    m = cap.n_links
    kind, a, b = cap.node_kind, cap.a, cap.b
    nv = cap.protocol == P_NVLINK
    la = np.flatnonzero(nv & (kind[a] == K_GPU) & (kind[b] == K_NVSWITCH))
    lb = np.flatnonzero(nv & (kind[b] == K_GPU) & (kind[a] == K_NVSWITCH))
    l_gpu = np.concatenate([gpu_pos[a[la]], gpu_pos[b[lb]]])
    l_hub = np.concatenate([b[la], a[lb]])
    l_up = np.concatenate([la, lb + m])
    l_down = np.concatenate([la + m, lb])
    if len(l_gpu):
        pairs = unique_pairs(l_gpu, l_hub)[0]
        several = np.bincount(pairs[:, 0], minlength=len(gpus)) > 1
        if several.any():
            n_several = int(several.sum())
            notes.append(f"{count(n_several, 'GPU')} {plural(n_several, 'is', 'are')} linked to several NVLink "
                         "switches: only the links to one of them are routed")
    to_hub = l_hub == hub_of[l_gpu]
    l_gpu, l_up, l_down = l_gpu[to_hub], l_up[to_hub], l_down[to_hub]
    order = np.argsort(l_gpu, kind="stable")
    l_gpu, l_up, l_down = l_gpu[order], l_up[order], l_down[order]
    rate = cap.line_bytes_per_s[l_up % max(m, 1)]
    l_w = rate / np.bincount(l_gpu, weights=rate, minlength=len(gpus))[l_gpu]
    nvl_ptr = np.searchsorted(l_gpu, np.arange(len(gpus) + 1))
    return _HubLinks(nvl_ptr, l_up, l_down, l_w)


def _joined_hubs_note(cap: CapacityGraph, dom: _Domains) -> str:
    """A note naming NVLink switches joined to each other by NVLink, which is not routed ('' if none)."""
    comp = dom.comp
    hubs = np.unique(dom.hub_of[dom.hub_of >= 0])
    _, per_comp = np.unique(comp[hubs], return_counts=True)
    if not (per_comp > 1).any():
        return ""
    shared = hubs[np.isin(comp[hubs], np.unique(comp[hubs])[per_comp > 1])]
    names = ", ".join(cap.node_ids[i] for i in shared[:3]) + ("..." if len(shared) > 3 else "")
    return (f"NVLink switches joined by NVLink ({names}): NVLink between NVLink switches is not routed; "
            "GPUs of different NVLink switches talk over the network")


def _core_graph(cap: CapacityGraph) -> _Core:
    """The core graph: network (non-board) links. NIC nodes are core only when linked to a non-switch."""
    n, m = cap.n_nodes, cap.n_links
    kind, a, b, proto = cap.node_kind, cap.a, cap.b, cap.protocol
    net = (proto != P_NVLINK) & (proto != P_PCIE)
    is_nic = kind == K_NIC
    core_mask = np.zeros(n, dtype=bool)
    core_mask[a[net]] = True
    core_mask[b[net]] = True
    nic_net_only_switch = np.ones(n, dtype=bool)
    for end, other in ((a, b), (b, a)):
        sel = net & is_nic[end] & (kind[other] != K_SWITCH)
        nic_net_only_switch[end[sel]] = False
    core_mask &= ~(is_nic & nic_net_only_switch)
    core_nodes = np.flatnonzero(core_mask)
    core_of = np.full(n, -1, dtype=np.int64)
    core_of[core_nodes] = np.arange(len(core_nodes))
    core_link = np.flatnonzero(net & core_mask[a] & core_mask[b])
    core_arc = np.concatenate([core_link, core_link + m])
    core_src = core_of[np.concatenate([a[core_link], b[core_link]])]
    core_dst = core_of[np.concatenate([b[core_link], a[core_link]])]
    return _Core(core_mask, core_nodes, core_of, core_arc, core_src, core_dst)


def _attachments(cap: CapacityGraph, gpus: np.ndarray, gpu_pos: np.ndarray, core: _Core) -> _Attachments:
    """Where each GPU's network traffic enters the core graph, and over which arcs.

    A GPU that is a core node is its own attachment; otherwise its PCIe NIC (:func:`_nic_attachments`).
    A GPU may reach the network through several NICs: its traffic is shared equally.
    """
    parts: list[tuple[np.ndarray, ...]] = []
    own = gpus[core.mask[gpus]]
    if len(own):
        no_arc = np.full((len(own), 2), -1, dtype=np.int64)
        parts.append((gpu_pos[own], core.of[own], np.ones(len(own)), no_arc, no_arc))
    parts.extend(_nic_attachments(cap, gpu_pos, core))

    def cat(i: int, dtype, shape=(0,)) -> np.ndarray:
        return np.concatenate([p[i] for p in parts]).astype(dtype) if parts else np.zeros(shape, dtype=dtype)

    ag, ac, aw = cat(0, np.int64), cat(1, np.int64), cat(2, float)
    au, ad = cat(3, np.int64, (0, 2)), cat(4, np.int64, (0, 2))
    per_gpu = np.bincount(ag, weights=aw, minlength=len(gpus))
    if len(ag):
        aw = aw / per_gpu[ag]
    order = np.argsort(ag, kind="stable")
    return _Attachments(ag[order], ac[order], aw[order], au[order], ad[order])


def _nic_attachments(cap: CapacityGraph, gpu_pos: np.ndarray, core: _Core) -> list[tuple[np.ndarray, ...]]:
    """Attachment rows (gpu, core node, weight, up arcs, down arcs) of GPU -(pcie)- NIC: the NIC
    itself when it is a core node, else every core node its network links reach, equally shared."""
    m = cap.n_links
    kind, a, b, proto = cap.node_kind, cap.a, cap.b, cap.protocol
    is_nic = kind == K_NIC
    net = (proto != P_NVLINK) & (proto != P_PCIE)
    pc = proto == P_PCIE
    parts: list[tuple[np.ndarray, ...]] = []
    for end, other, off_up, off_down in ((a, b, 0, m), (b, a, m, 0)):
        idx = np.flatnonzero(pc & (kind[end] == K_GPU) & is_nic[other])
        if not len(idx):
            continue
        gpu_n, nic_n = end[idx], other[idx]
        up1, down1 = idx + off_up, idx + off_down
        # NIC already core.
        c = core.mask[nic_n]
        if c.any():
            k = int(c.sum())
            parts.append((gpu_pos[gpu_n[c]], core.of[nic_n[c]], np.ones(k),
                          np.stack([up1[c], np.full(k, -1)], axis=1), np.stack([np.full(k, -1), down1[c]], axis=1)))
        # NIC -> switch links.
        nic_rows = np.flatnonzero(~c)
        if not len(nic_rows):
            continue
        nl_nic = np.concatenate([a, b])
        nl_sw = np.concatenate([b, a])
        nl_arc_up = np.concatenate([np.arange(m), np.arange(m) + m])
        nl_arc_down = np.concatenate([np.arange(m) + m, np.arange(m)])
        nl_ok = np.concatenate([net, net]) & is_nic[nl_nic] & core.mask[nl_sw]
        nl_nic, nl_sw, nl_arc_up, nl_arc_down = nl_nic[nl_ok], nl_sw[nl_ok], nl_arc_up[nl_ok], nl_arc_down[nl_ok]
        order = np.argsort(nl_nic, kind="stable")
        nl_nic, nl_sw, nl_arc_up, nl_arc_down = nl_nic[order], nl_sw[order], nl_arc_up[order], nl_arc_down[order]
        starts = np.searchsorted(nl_nic, nic_n[nic_rows], side="left")
        ends = np.searchsorted(nl_nic, nic_n[nic_rows], side="right")
        cnt = ends - starts
        has = cnt > 0
        rows = nic_rows[has]
        cnt_h = cnt[has]
        rep = np.repeat(np.arange(len(rows)), cnt_h)
        offs = np.arange(int(cnt_h.sum())) - np.repeat(np.cumsum(cnt_h) - cnt_h, cnt_h)
        sel = np.repeat(starts[has], cnt_h) + offs
        r = rows[rep]
        parts.append((gpu_pos[gpu_n[r]], core.of[nl_sw[sel]], 1.0 / cnt_h[rep],
                      np.stack([up1[r], nl_arc_up[sel]], axis=1), np.stack([nl_arc_down[sel], down1[r]], axis=1)))
    return parts


# --------------------------------------------------------------------------- flows
@dataclass(frozen=True, eq=False)
class Routed:
    """Result of routing a set of flows: load per capacity-graph arc and bytes that found no path."""

    arc_load: np.ndarray
    unrouted_bytes: float
    unrouted_flows: int


def pxn_proxies(fabric: Fabric, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """NCCL's PXN: for each flow, the GPU of ``src``'s server on ``dst``'s rail (``src`` if none).

    Cross-rail traffic then hops over NVLink to that GPU and leaves through its NIC, staying on
    the destination's rail (no spine crossing in a rail-optimized fabric).
    """
    dom, rail = fabric.domain, fabric.rail
    out = np.asarray(src, dtype=np.int64).copy()
    hub = (dom >= 0) & (fabric.nvl_up >= 0) & (fabric.nvl_down >= 0) & (rail >= 0)
    if not hub.any():
        return out
    key_g = np.flatnonzero(hub)
    keys = dom[key_g] * (int(rail.max()) + 1) + rail[key_g]
    order = np.argsort(keys, kind="stable")
    keys, key_g = keys[order], key_g[order]
    want = dom[src] * (int(rail.max()) + 1) + rail[dst]
    i = np.minimum(np.searchsorted(keys, want), len(keys) - 1)
    ok = hub[src] & (rail[dst] >= 0) & (dom[src] != dom[dst]) & (keys[i] == want)
    out[ok] = key_g[i[ok]]
    return out


def route_flows(fabric: Fabric, router: CoreRouter, src: np.ndarray, dst: np.ndarray,
                nbytes: np.ndarray, *, pxn: bool = False) -> Routed:
    """Per-arc load of flows ``src[i] -> dst[i]`` (positions in ``fabric.gpus``) of ``nbytes[i]``.

    Flows inside one NVLink domain with a hub use NVLink; the others go through attachments and
    the core by ECMP (with ``pxn``, first over NVLink to the GPU on the destination's rail, see
    :func:`pxn_proxies`). Flows from a GPU to itself are ignored.

    Examples
    --------
    Two GPUs on one NVLink switch, each with a NIC on one network switch:

    >>> from designer.model import Design, Device, Link, PortGroup
    >>> from designer.analysis.fabric.capacity import build_capacity_graph
    >>> d = Design()
    >>> gp = (PortGroup("nvl", 1, 3600.0, "nvlink"), PortGroup("pcie", 1, 512.0, "pcie"))
    >>> nic = (PortGroup("p", 1, 400.0), PortGroup("pcie", 1, 512.0, "pcie"))
    >>> d.extend(devices=[Device("nvs", "nvswitch", (PortGroup("nvl", 2, 3600.0, "nvlink"),)),
    ...     Device("sw", "switch", (PortGroup("p", 2, 400.0),)),
    ...     Device("g1", "gpu", gp), Device("g2", "gpu", gp), Device("n1", "nic", nic), Device("n2", "nic", nic)],
    ...     links=[Link("v1", "g1", "nvl1", "nvs", "nvl1", "nvlink"), Link("v2", "g2", "nvl1", "nvs", "nvl2", "nvlink"),
    ...     Link("c1", "g1", "pcie1", "n1", "pcie1", "pcie"), Link("c2", "g2", "pcie1", "n2", "pcie1", "pcie"),
    ...     Link("e1", "n1", "p1", "sw", "p1"), Link("e2", "n2", "p1", "sw", "p2")])
    >>> from designer.model.catalog import Catalog
    >>> fab = build_fabric(build_capacity_graph(d, Catalog()))
    >>> r = route_flows(fab, CoreRouter(fab), np.array([0]), np.array([1]), np.array([5.0]))
    >>> float(r.arc_load.sum()), r.unrouted_flows      # two NVLink arcs carry 5 bytes each
    (10.0, 0)
    """
    cap = fabric.cap
    na = 2 * cap.n_links
    load = np.zeros(na)
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    nbytes = np.asarray(nbytes, dtype=float)
    keep = src != dst
    src, dst, nbytes = src[keep], dst[keep], nbytes[keep]
    if pxn and len(src):
        proxy = pxn_proxies(fabric, src, dst)
        hop = proxy != src
        fabric.add_nvlink(load, src[hop], nbytes[hop])
        fabric.add_nvlink(load, proxy[hop], nbytes[hop], down=True)
        src = proxy
    same = fabric.nvlink_local(src, dst)
    fabric.add_nvlink_flows(load, src[same], dst[same], nbytes[same])
    src, dst, nbytes = src[~same], dst[~same], nbytes[~same]
    lost = 0.0
    lost_flows = 0
    if len(src):
        # Expand flows over source and destination attachments.
        ptr = np.searchsorted(fabric.att_gpu, np.arange(len(fabric.gpus) + 1))
        cs = ptr[src + 1] - ptr[src]
        cd = ptr[dst + 1] - ptr[dst]
        none = (cs == 0) | (cd == 0)
        lost += float(nbytes[none].sum())
        lost_flows += int(none.sum())
        src, dst, nbytes, cs, cd = src[~none], dst[~none], nbytes[~none], cs[~none], cd[~none]
        if len(src) and (cs.max() > 1 or cd.max() > 1):
            fi, ia, ib = attachment_pairs(ptr, src, dst, cs, cd)
            wb = nbytes[fi] * fabric.att_w[ia] * fabric.att_w[ib]
        else:
            ia, ib, wb = ptr[src], ptr[dst], nbytes
        for col in range(2):
            for arcs in (fabric.att_up[ia, col], fabric.att_down[ib, col]):
                ok = arcs >= 0
                np.add.at(load, arcs[ok], wb[ok])
        cs_node, ct_node = fabric.att_core[ia], fabric.att_core[ib]
        net = cs_node != ct_node
        if net.any():
            pairs, pinv = unique_pairs(cs_node[net], ct_node[net])
            amount = np.bincount(pinv.reshape(-1), weights=wb[net])
            core_load, lost_core = router.route_pairs(pairs[:, 0], pairs[:, 1], amount)
            load[fabric.core_arc] += core_load
            lost += lost_core
            if lost_core > 0:
                lost_flows += int(np.sum(~np.isfinite(router.hops(cs_node[net], ct_node[net]))))
    return Routed(load, lost, lost_flows)
