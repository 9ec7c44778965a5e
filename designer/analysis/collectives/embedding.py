"""Collective algorithms embedded on the fabric the way NCCL builds them, as flows between GPUs.

Servers are NVLink domains with a hub (other GPUs are servers of one). The builders return flows
(source GPU, destination GPU, bytes per message byte): rail-aligned rings (one channel per rail,
PXN hand-back over NVLink), chains plus double binary trees, rings and trees per rail across
servers, rings inside each server. :meth:`Embedder.phase` routes a set of flows (NVLink inside a
server, ECMP across the network) into a :class:`Phase`: the load per message byte of every arc
and its busiest arc. The per-step latencies of the hardware a step crosses are here too; the
algorithms' time models are in :mod:`designer.analysis.collectives.algorithms`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from designer.analysis.collectives import nccl_trees
from designer.analysis.common import constants as K
from designer.analysis.fabric.capacity import K_SWITCH, P_NVLINK
from designer.analysis.fabric.context import Context
from designer.analysis.fabric.islands import gpu_islands  # the design rules' words for GPU islands
from designer.analysis.fabric.routing import route_flows
from designer.model.units import count, plural


@dataclass(frozen=True)
class Phase:
    """One phase of an algorithm: its routed load per message byte and its bottleneck."""

    seconds_per_byte: float
    bottleneck_arc: int
    arc_load_per_byte: np.ndarray = field(repr=False, compare=False)
    flows: tuple[np.ndarray, np.ndarray, np.ndarray] = field(repr=False, compare=False)
    arc_seconds_per_byte: np.ndarray = field(repr=False, compare=False, default=None)
    #: True when the load is the routing of ``flows`` (:meth:`Embedder.phase`), which hashed ECMP
    #: (:mod:`designer.analysis.collectives.hashed`) may re-route; False for loads placed otherwise (NVLS, SHARP).
    routed: bool = False


class Unroutable(Exception):
    """The flows of an algorithm have no path; the message names the GPUs and why."""


class Embedder:
    """The GPUs taking part grouped into servers, and the flows of each algorithm built on them.

    ``nodes``: the servers (NVLink domains with a hub; other GPUs are servers of one), each an
    array of GPU positions in rail order; ``m`` servers, ``p`` ranks, ``g_min`` GPUs in the
    smallest server (the number of rail channels). Flow builders return (src, dst, bytes per
    message byte); :meth:`phase` routes them.
    """

    def __init__(self, ctx: Context, members: np.ndarray) -> None:
        self.ctx = ctx
        fab = ctx.fabric
        self.members = members
        dom = fab.domain[members]
        hub = (dom >= 0) & fab.nvlink_member()[members]
        # Servers: NVLink domains (with a switch, or routed direct GPU-to-GPU links); other GPUs
        # are servers of one.
        key = np.where(hub, dom, -1 - members)
        order = np.lexsort((members, ctx.rail[members], key))
        keys_sorted = key[order]
        splits = np.flatnonzero(np.diff(keys_sorted)) + 1
        groups = np.split(members[order], splits)
        first = [int(np.min(g)) for g in groups]
        self.p = len(members)
        self.set_nodes([groups[i] for i in np.argsort(first, kind="stable")])
        self.arc_eff = ctx.cap.arc_effective_bytes_per_s
        nvl = np.concatenate([ctx.cap.protocol, ctx.cap.protocol]) == P_NVLINK
        self.arc_nvls = np.where(nvl, self.arc_eff * self._arc_nvls_efficiency(), self.arc_eff)

    def _arc_nvls_efficiency(self) -> np.ndarray:
        """NCCL's NVLS efficiency per arc, by the NVLink generation of its GPU end (the newer of its
        two ends otherwise): Hopper 0.85, Blackwell 0.74 (``constants.NVLS_EFFICIENCY_BY_GEN``)."""
        cap = self.ctx.cap
        gen = cap.node_nvlink_gen if cap.node_nvlink_gen is not None else np.zeros(cap.n_nodes, dtype=np.int8)
        link_gen = np.maximum(gen[cap.a], gen[cap.b]) if cap.n_links else np.zeros(0, dtype=np.int8)
        table = np.full(max(int(gen.max(initial=0)), 5) + 1, K.NVLS_EFFICIENCY)
        for g, e in K.NVLS_EFFICIENCY_BY_GEN.items():
            table[g] = e
        eff = table[link_gen]
        return np.concatenate([eff, eff])

    def nvlink_generation(self) -> int:
        """The NVLink generation of the GPUs taking part (the oldest; 0 when not known)."""
        gen = self.ctx.cap.node_nvlink_gen
        if gen is None or not len(self.members):
            return 0
        g = gen[self.ctx.fabric.gpus[self.members]]
        return int(g.min()) if len(g) else 0

    def set_nodes(self, nodes: list[np.ndarray]) -> None:
        """Set the servers (in ring order) and what follows from them: their rings, the grid, the
        channel count and whether they all run NVLS."""
        fab = self.ctx.fabric
        self.nodes = nodes
        self.m = len(nodes)
        vars(self).pop("_grid_cache", None)
        # Rings inside each server: the server itself in rail order (one ring through its NVLink
        # switch), or the link-disjoint rings over its direct links (direct_nvlink).
        direct = fab.direct if fab.direct is not None and fab.direct.any else None
        self.rings: list[list[np.ndarray]] = []
        self.direct_servers = False
        for node in nodes:
            found = direct.rings_of(np.sort(node)) if direct is not None and len(node) > 1 else None
            self.rings.append(found or [node])
            self.direct_servers |= found is not None
        self.g_min = min(len(g) for g in nodes)
        self.nvls_nodes = all(
            len(g) > 1 and fab.domain_hub[fab.domain[g[0]]] >= 0
            and self.ctx.cap.node_nvls[fab.domain_hub[fab.domain[g[0]]]] for g in nodes
        )

    def direct_rings_text(self) -> str:
        """How the servers of direct NVLink links are gone round (for formulas), or ''."""
        if not self.direct_servers:
            return ""
        counts = sorted({len(r) for r, node in zip(self.rings, self.nodes, strict=True) if r[0] is not node})
        many = "/".join(str(c) for c in counts)
        return (f"; inside a server of direct NVLink links along {many} link-disjoint rings (directed "
                "Hamiltonian cycles), each channel split evenly over them")

    def phase(self, src, dst, nbytes, *, capacity=None, lost_ok=False) -> Phase:
        ctx = self.ctx
        src = np.asarray(src, dtype=np.int64)
        dst = np.asarray(dst, dtype=np.int64)
        nbytes = np.asarray(nbytes, dtype=float)
        r = route_flows(ctx.fabric, ctx.router, src, dst, nbytes)
        if r.unrouted_flows and not lost_ok:
            raise Unroutable(self.no_path_text(src, dst, int(r.unrouted_flows)))
        return replace(self._phase_from_load(r.arc_load, (src, dst, nbytes), capacity), routed=True)

    # ---- reachability
    def islands(self) -> str | None:
        """Why the GPUs taking part cannot all reach one another over the links in use (failed and
        zero-rate links left out), in the design rules' words; None when they can."""
        if not hasattr(self, "_islands"):
            self._islands = None
            cap = self.ctx.cap
            n = cap.n_nodes
            graph = sp.coo_matrix((np.ones(cap.n_links, dtype=np.int8), (cap.a, cap.b)), shape=(n, n))
            _, labels = connected_components(graph, directed=False)
            gpus = self.ctx.fabric.gpus[self.members]
            if len(np.unique(labels[gpus])) > 1:
                design = self.ctx.design
                kinds = [d.kind for d in design.devices]
                found = gpu_islands(design, list(cap.node_ids), kinds, labels, [int(g) for g in gpus])
                self._islands = found.message if found is not None else None
        return self._islands

    def without_network(self) -> list[str]:
        """Ids of the GPUs taking part that have no network link, when they span several servers."""
        if self.m < 2:
            return []
        fab = self.ctx.fabric
        bare = self.members[~fab.gpu_has_network()[self.members]]
        return [self.ctx.gpu_ids[i] for i in bare]

    def no_path_text(self, src: np.ndarray, dst: np.ndarray, lost: int) -> str:
        """Which flows found no path, and why (GPUs without a network link, or networks not joined)."""
        gid = self.ctx.gpu_ids
        fab = self.ctx.fabric
        has_net = fab.gpu_has_network()
        same = (src != dst) & fab.nvlink_local(src, dst)
        bare = ~same & (src != dst) & (~has_net[src] | ~has_net[dst])
        head = f"{count(lost, 'flow')} of the algorithm {plural(lost, 'has', 'have')} no path"
        if bare.any():
            ends = np.unique(np.concatenate([src[bare][~has_net[src[bare]]], dst[bare][~has_net[dst[bare]]]]))
            ids = [gid[i] for i in ends]
            return (f"{head}: {count(len(ids), 'GPU')} ({', '.join(ids[:3])}{'...' if len(ids) > 3 else ''}) "
                    f"{plural(len(ids), 'has', 'have')} no network link (cable its NIC to a switch)")
        ptr = np.searchsorted(fab.att_gpu, np.arange(len(fab.gpus) + 1))
        net = ~same & (src != dst)
        hops = np.full(len(src), np.inf)
        if net.any():
            hops[net] = self.ctx.router.hops(fab.att_core[ptr[src[net]]], fab.att_core[ptr[dst[net]]])
        cut = np.flatnonzero(net & ~np.isfinite(hops))
        eg = ", ".join(f"{gid[src[i]]} -> {gid[dst[i]]}" for i in cut[:2])
        return (f"{head}" + (f", e.g. {eg}" if eg else "")
                + ": their switches are not joined by working network links (a NIC or NVLink is never transit)")

    def _phase_from_load(self, load, flows, capacity=None) -> Phase:
        c = self.arc_eff if capacity is None else capacity
        ratio = np.where(load > 0, load / c, 0.0)
        k = int(np.argmax(ratio)) if len(ratio) else -1
        return Phase(float(ratio[k]) if k >= 0 else 0.0, k, load, flows, ratio)

    # ---- flows
    def _grid(self) -> np.ndarray | None:
        """Servers as an (m, g) array when they all take part with g GPUs, else None."""
        if not hasattr(self, "_grid_cache"):
            sizes = {len(n) for n in self.nodes}
            self._grid_cache = np.stack(self.nodes) if len(sizes) == 1 else None
        return self._grid_cache

    def _rolled(self, c: int, r: int | None = None) -> list[np.ndarray] | np.ndarray:
        """Each server's GPUs in the order of channel ``c``: starting at its GPU of rail c, round its
        ring ``r`` (default c; rail order through a switch, or one of its direct-link rings, see
        :attr:`rings`)."""
        grid = self._grid()
        if grid is not None and not self.direct_servers:
            return np.roll(grid, -c, axis=1)
        out = []
        for node, rings in zip(self.nodes, self.rings, strict=True):
            ring = rings[(c if r is None else r) % len(rings)]
            start = node[c % len(node)]
            out.append(np.roll(ring, -int(np.flatnonzero(ring == start)[0])))
        return out

    def ring_flows(self, per_flow: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Flows of the rail-aligned rings (see module docstring), bytes per message byte."""
        src: list[np.ndarray] = []
        dst: list[np.ndarray] = []
        if self.m == 1:
            rings = self.rings[0]
            s_ = np.concatenate(rings)
            d_ = np.concatenate([np.roll(r, -1) for r in rings])
            return s_, d_, np.full(len(s_), per_flow / len(rings))
        C = self.g_min
        # Servers with direct GPU-to-GPU links: every rail channel goes round each of their rings
        # in turn (R sub-channels of 1/R of its data), so every NIC and every ring carries its share.
        R = max(len(r) for r in self.rings)
        for c, r in ((c, r) for c in range(C) for r in range(R)):
            orders = self._rolled(c, r)
            if isinstance(orders, np.ndarray):
                if orders.shape[1] > 1:
                    src.append(orders.ravel())  # each GPU sends to the next; the last back to the entry (PXN)
                    dst.append(np.roll(orders, -1, axis=1).ravel())
                e = orders[:, 0]
                src.append(e)
                dst.append(np.roll(e, -1))
            else:
                exits = []
                for order, node, rings in zip(orders, self.nodes, self.rings, strict=True):
                    hand_back = rings[0] is node  # a server through a switch (or a lone GPU)
                    if len(order) > 1:
                        # Through a switch the last GPU hands back to the entry GPU (PXN); over
                        # direct links the channel leaves from the last GPU's own NIC instead
                        # (NCCL's cross-NIC rings), not crossing the server's links twice.
                        src.append(order if hand_back else order[:-1])
                        dst.append(np.roll(order, -1) if hand_back else order[1:])
                    exits.append(order[0] if hand_back else order[-1])
                src.append(np.array(exits))
                dst.append(np.roll(np.array([o[0] for o in orders]), -1))
        s = np.concatenate(src)
        d = np.concatenate(dst)
        return s, d, np.full(len(s), per_flow / (C * R))

    def intra_ring(self, per_flow: float):
        grid = self._grid()
        if grid is not None and not self.direct_servers:
            if grid.shape[1] < 2:
                return np.zeros(0, int), np.zeros(0, int), np.zeros(0)
            return grid.ravel(), np.roll(grid, -1, axis=1).ravel(), np.full(grid.size, per_flow)
        src, dst, w = [], [], []
        for node, rings in zip(self.nodes, self.rings, strict=True):
            if len(node) > 1:
                for ring in rings:
                    src.append(ring)
                    dst.append(np.roll(ring, -1))
                    w.append(np.full(len(ring), per_flow / len(rings)))
        if not src:
            return np.zeros(0, int), np.zeros(0, int), np.zeros(0)
        return np.concatenate(src), np.concatenate(dst), np.concatenate(w)

    def rail_rings(self, per_flow: float):
        """Ring across servers among GPUs of the same local index (rail), for every index."""
        src, dst = [], []
        for k in range(self.g_min):
            e = np.array([node[k] for node in self.nodes])
            src.append(e)
            dst.append(np.roll(e, -1))
        s = np.concatenate(src)
        return s, np.concatenate(dst), np.full(len(s), per_flow)

    def rail_trees(self, per_byte: float):
        """NCCL's double binary tree across servers among GPUs of each rail (NVLSTree's network part).

        The trees are NCCL's (:mod:`designer.analysis.collectives.nccl_trees`); each carries half the data, up
        (reduce) and down (broadcast): per_byte / 2 per edge and direction.
        """
        src, dst = [], []
        child, parent = nccl_trees.edges(self.m) if self.m > 1 else (np.zeros(0, int), np.zeros(0, int))
        for k in range(self.g_min):
            e = np.array([node[k] for node in self.nodes])
            if len(child):
                src += [e[child], e[parent]]
                dst += [e[parent], e[child]]
        if not src:
            return np.zeros(0, int), np.zeros(0, int), np.zeros(0)
        s_ = np.concatenate(src)
        return s_, np.concatenate(dst), np.full(len(s_), per_byte / 2)

    def tree_flows(self, per_byte: float):
        """Chains in servers + NCCL's double binary tree across servers (entries on rail c per channel).

        Channel c enters every server on its rail-c GPU, whose NIC carries the channel's tree edges
        (NCCL's tree search keeps a channel on one NIC: ``search.cc``, ``crossNic`` 0); tree 0 and
        tree 1 (:mod:`designer.analysis.collectives.nccl_trees`) carry half the data each (NCCL runs channel c on
        tree 0 and its duplicate c + nChannels on tree 1, ``connect.cc`` ``connectTrees``).
        """
        src, dst, w = [], [], []
        C = self.g_min if self.m > 1 else 1
        # Servers of direct NVLink links: each channel's chain goes along each of their rings in
        # turn (R sub-channels of 1/R of its data), as the ring does (:meth:`ring_flows`).
        R = max(len(r) for r in self.rings)
        for c, r in ((c, r) for c in range(C) for r in range(R)):
            orders = self._rolled(c, r)
            if isinstance(orders, np.ndarray):
                if orders.shape[1] > 1:
                    up_s, up_d = orders[:, 1:].ravel(), orders[:, :-1].ravel()
                    src += [up_s, up_d]
                    dst += [up_d, up_s]
                    w += [np.full(2 * len(up_s), per_byte / (C * R))]
            else:
                for order in orders:
                    if len(order) > 1:
                        # reduce up the chain and broadcast down it: S/C each way
                        src += [order[1:], order[:-1]]
                        dst += [order[:-1], order[1:]]
                        w += [np.full(2 * (len(order) - 1), per_byte / (C * R))]
            m = self.m
            if m > 1:
                e = np.array([o[0] for o in orders])
                child, parent = nccl_trees.edges(m)
                src += [e[child], e[parent]]
                dst += [e[parent], e[child]]
                w += [np.full(2 * len(child), per_byte / (2 * C * R))]
        if not src:
            return np.zeros(0, int), np.zeros(0, int), np.zeros(0)
        return np.concatenate(src), np.concatenate(dst), np.concatenate(w)

    # ---- latency
    def network_hop_latency_s(self, src: np.ndarray, dst: np.ndarray) -> tuple[float, int]:
        """Worst one-way wire + switch + NIC latency of network flows, and their max hop count."""
        ctx = self.ctx
        fab, cap = ctx.fabric, ctx.cap
        same = (src == dst) | fab.nvlink_local(src, dst)
        s, d = src[~same], dst[~same]
        if not len(s):
            return 0.0, 0
        ptr = np.searchsorted(fab.att_gpu, np.arange(len(fab.gpus) + 1))
        ok = (ptr[s + 1] > ptr[s]) & (ptr[d + 1] > ptr[d])
        s, d = s[ok], d[ok]
        if not len(s):
            return 0.0, 0
        cs, ct = fab.att_core[ptr[s]], fab.att_core[ptr[d]]
        hops = ctx.router.hops(cs, ct)
        hops = hops[np.isfinite(hops)]
        h = int(hops.max()) if len(hops) else 0
        # The worst path: its longest cables and slowest switches, so that a fabric with fewer or
        # shorter links elsewhere never reads faster (a mean over the links would).
        access, between = cap.network_wire_worst_s
        sw = cap.node_latency_s[cap.node_kind == K_SWITCH]
        sw_lat = float(sw.max()) if len(sw) else 0.0
        core_is_switch = cap.node_kind[fab.core_nodes] == K_SWITCH
        if core_is_switch.any():
            return K.NIC_LATENCY_S + 2 * access + h * between + (h + 1) * sw_lat, h
        return K.NIC_LATENCY_S + (h + 2) * max(access, between) + max(h - 1, 0) * sw_lat, h

    def intra_step_s(self, proto: str, algo: str) -> float:
        hw = "nvlink" if any(len(n) > 1 for n in self.nodes) else "pcie"
        hub_lat = 0.0
        fab, cap = self.ctx.fabric, self.ctx.cap
        hubs = fab.domain_hub[fab.domain_hub >= 0]
        if len(hubs):
            hub_lat = float(cap.node_latency_s[hubs].max())
        return K.STEP_LATENCY_S[(hw, algo, proto)] + hub_lat
