"""Collective communication time on the real topology (DOMAIN.md section 5).

Each algorithm is *embedded* on the fabric the way NCCL builds it, as a list of flows between
GPUs, with the bytes each flow carries per byte of message. Routing those flows (NVLink inside a
server, ECMP across the network) gives every arc a load per message byte; the bandwidth term of
the time is ``max over arcs (load / effective capacity)`` x message bytes, so shared links and
the slowest hop set it. The latency term is NCCL's: a base latency per call plus a per-step
hardware latency, to which we add the per-hop wire and switch latency of the network hops.
Time = latency + bytes x seconds-per-byte, per protocol (LL, LL128, Simple); an algorithm's time
is its best protocol's, and the *selected* algorithm is the fastest, as NCCL's tuner picks.

Embeddings (p ranks on m servers of g GPUs, C channels = rails):

- **ring**: channel c enters each server on the GPU of rail c (its NIC), visits the server's
  GPUs over NVLink, and the last GPU hands the data back over NVLink to the rail-c GPU (NCCL's
  PXN), which sends it through NIC c to the next server's rail-c NIC. Every flow of an
  all-reduce carries 2(p-1)/p x S / C bytes; reduce-scatter and all-gather (p-1)/p x S / C;
  broadcast S / C (pipelined).
- **tree** (all-reduce): NCCL's double binary tree across servers (a heap-ordered tree and its
  mirror, each on half the data), a chain through the GPUs inside each server; x 1/0.9 (NCCL's
  tree correction).
- **hierarchical** (all-reduce): ring reduce-scatter in each server over NVLink, ring all-reduce
  of S/g across servers on each rail, ring all-gather in each server; the phases add up.
- **nvls** (all-reduce, NVLink SHARP, NVSwitch with ``specs.nvls``): each GPU sends and receives
  S once at the NVLS efficiency; across servers as hierarchical with NVLS phases inside.
- **sharp** (all-reduce, every switch InfiniBand with ``specs.sharp``): reduce-scatter in the
  server, in-network all-reduce of S/g per NIC (each NIC sends and receives S/g once), all-gather.
- **pairwise** (all-to-all): every GPU sends S/p to every other; the network part of a GPU's
  traffic leaves through its own NIC, so per GPU it never exceeds one NIC's rate.

nccl-tests conventions: algbw = S / t; busbw = algbw x 2(p-1)/p (all-reduce),
x (p-1)/p (reduce-scatter, all-gather, all-to-all), x 1 (broadcast).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from designer.analysis import constants as K
from designer.analysis.capacity import K_SWITCH, P_IB, P_NVLINK, P_PCIE
from designer.analysis.context import Context, as_context, members_of
from designer.analysis.errors import AnalysisError
from designer.analysis.load import flow_matrix, max_min_fair, uniform_loads
from designer.analysis.routing import route_flows
from designer.model import Design

COLLECTIVES = ("allreduce", "reducescatter", "allgather", "alltoall", "broadcast")
ALGORITHMS = {
    "allreduce": ("ring", "tree", "hierarchical", "nvls", "sharp"),
    "reducescatter": ("ring",),
    "allgather": ("ring",),
    "broadcast": ("ring",),
    "alltoall": ("pairwise",),
}
#: Algorithms NCCL's tuner does not consider unless asked: SHARP needs the CollNet plugin
#: (``NCCL_COLLNET_ENABLE=1``); they are still computed and shown, but not *selected* by default.
NOT_DEFAULT = ("sharp",)
ALIASES = {"all-reduce": "allreduce", "all_reduce": "allreduce", "reduce-scatter": "reducescatter",
           "reduce_scatter": "reducescatter", "all-gather": "allgather", "all_gather": "allgather",
           "all-to-all": "alltoall", "all_to_all": "alltoall", "bcast": "broadcast"}


def bus_factor(collective: str, p: int) -> float:
    """nccl-tests busbw / algbw factor.

    >>> bus_factor("allreduce", 8), bus_factor("allgather", 8), bus_factor("broadcast", 8)
    (1.75, 0.875, 1.0)
    """
    if p < 2:
        return 0.0
    if collective == "allreduce":
        return 2.0 * (p - 1) / p
    if collective == "broadcast":
        return 1.0
    return (p - 1) / p


@dataclass(frozen=True)
class Phase:
    """One phase of an algorithm: its routed load per message byte and its bottleneck."""

    seconds_per_byte: float
    bottleneck_arc: int
    arc_load_per_byte: np.ndarray = field(repr=False, compare=False)
    flows: tuple[np.ndarray, np.ndarray, np.ndarray] = field(repr=False, compare=False)
    arc_seconds_per_byte: np.ndarray = field(repr=False, compare=False, default=None)


@dataclass(frozen=True)
class AlgorithmModel:
    """An algorithm embedded on the fabric: bandwidth per phase, latency per protocol."""

    collective: str
    algorithm: str
    ranks: int
    servers: int
    phases: tuple[Phase, ...]
    latency_s: dict[str, float]
    bw_factor: dict[str, float]
    formula: str
    plateau: bool = False
    #: Phases run concurrently (pipelined, NCCL NVLS/SHARP): per arc their times add and the
    #: busiest arc sets the pace. Otherwise they run one after the other and their times add.
    concurrent: bool = False
    #: A floor on seconds per byte that is not a link (all-to-all: one NIC per GPU), and its arc.
    floor_seconds_per_byte: float = 0.0
    floor_arc: int = -1

    def _arc_sum(self) -> np.ndarray:
        return np.sum([ph.arc_seconds_per_byte for ph in self.phases], axis=0)

    @property
    def seconds_per_byte(self) -> float:
        if self.concurrent and len(self.phases) > 1:
            routed = float(np.max(self._arc_sum()))
        else:
            routed = sum(ph.seconds_per_byte for ph in self.phases)
        return max(routed, self.floor_seconds_per_byte)

    @property
    def bottleneck_arc(self) -> int:
        if self.floor_arc >= 0 and self.floor_seconds_per_byte >= self.seconds_per_byte:
            return self.floor_arc
        if self.concurrent and len(self.phases) > 1:
            return int(np.argmax(self._arc_sum()))
        ph = max(self.phases, key=lambda x: x.seconds_per_byte)
        return ph.bottleneck_arc

    def arc_seconds_per_byte(self) -> np.ndarray:
        """Busy time per arc per message byte (phases' times add on an arc)."""
        return self._arc_sum()

    def times(self, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Best time over protocols per size, and the index into PROTOCOLS of that protocol."""
        best = np.full(len(sizes), np.inf)
        which = np.zeros(len(sizes), dtype=np.int64)
        for k, proto in enumerate(K.PROTOCOLS):
            if proto not in self.latency_s:
                continue
            lat = np.full(len(sizes), self.latency_s[proto])
            if self.plateau and proto == "Simple":
                lat = np.where(sizes >= self.ranks * K.RING_PLATEAU_BYTES_PER_RANK, lat * K.RING_PLATEAU_FACTOR, lat)
            t = lat + sizes * self.seconds_per_byte / self.bw_factor[proto]
            better = t < best
            best = np.where(better, t, best)
            which = np.where(better, k, which)
        return best, which


@dataclass(frozen=True)
class CollectiveRow:
    """One line of the collectives table (units: bytes, s, bytes/s)."""

    collective: str
    algorithm: str
    protocol: str
    message_bytes: int
    time_s: float
    algbw_bytes_per_s: float
    busbw_bytes_per_s: float
    selected: bool
    bottleneck_link: str


@dataclass(frozen=True)
class CollectiveResult:
    collective: str
    ranks: int
    servers: int
    rows: tuple[CollectiveRow, ...]
    models: tuple[AlgorithmModel, ...]
    notes: tuple[str, ...]


# --------------------------------------------------------------------------- embedding helpers
class _Embedder:
    def __init__(self, ctx: Context, members: np.ndarray) -> None:
        self.ctx = ctx
        fab = ctx.fabric
        self.members = members
        dom = fab.domain[members]
        hub = (dom >= 0) & (fab.nvl_up[members] >= 0)
        # Servers: NVLink domains with a hub; other GPUs are servers of one.
        key = np.where(hub, dom, -1 - members)
        order = np.lexsort((members, ctx.rail[members], key))
        keys_sorted = key[order]
        splits = np.flatnonzero(np.diff(keys_sorted)) + 1
        groups = np.split(members[order], splits)
        first = [int(np.min(g)) for g in groups]
        self.nodes = [groups[i] for i in np.argsort(first, kind="stable")]
        self.m = len(self.nodes)
        self.p = len(members)
        self.g_min = min(len(g) for g in self.nodes)
        self.nvls_nodes = all(
            len(g) > 1 and fab.domain_hub[fab.domain[g[0]]] >= 0
            and ctx.cap.node_nvls[fab.domain_hub[fab.domain[g[0]]]] for g in self.nodes
        )
        self.arc_eff = ctx.cap.arc_effective_bytes_per_s
        nvl = np.concatenate([ctx.cap.protocol, ctx.cap.protocol]) == P_NVLINK
        self.arc_nvls = np.where(nvl, ctx.cap.arc_line_bytes_per_s * K.NVLS_EFFICIENCY, self.arc_eff)

    def phase(self, src, dst, nbytes, *, capacity=None, lost_ok=False) -> Phase:
        ctx = self.ctx
        src = np.asarray(src, dtype=np.int64)
        dst = np.asarray(dst, dtype=np.int64)
        nbytes = np.asarray(nbytes, dtype=float)
        r = route_flows(ctx.fabric, ctx.router, src, dst, nbytes)
        if r.unrouted_flows and not lost_ok:
            raise _Unroutable(f"{r.unrouted_flows} flow(s) have no path")
        return self._phase_from_load(r.arc_load, (src, dst, nbytes), capacity)

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

    def _rolled(self, c: int) -> list[np.ndarray] | np.ndarray:
        grid = self._grid()
        if grid is not None:
            return np.roll(grid, -c, axis=1)
        return [np.roll(node, -c) for node in self.nodes]

    def ring_flows(self, per_flow: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Flows of the rail-aligned rings (see module docstring), bytes per message byte."""
        src: list[np.ndarray] = []
        dst: list[np.ndarray] = []
        if self.m == 1:
            g = self.nodes[0]
            return g, np.roll(g, -1), np.full(len(g), per_flow)
        C = self.g_min
        for c in range(C):
            orders = self._rolled(c)
            if isinstance(orders, np.ndarray):
                if orders.shape[1] > 1:
                    src.append(orders.ravel())  # each GPU sends to the next; the last back to the entry (PXN)
                    dst.append(np.roll(orders, -1, axis=1).ravel())
                e = orders[:, 0]
            else:
                for order in orders:
                    if len(order) > 1:
                        src.append(order)
                        dst.append(np.roll(order, -1))
                e = np.array([o[0] for o in orders])
            src.append(e)
            dst.append(np.roll(e, -1))
        s = np.concatenate(src)
        d = np.concatenate(dst)
        return s, d, np.full(len(s), per_flow / C)

    def intra_ring(self, per_flow: float):
        src, dst = [], []
        for node in self.nodes:
            if len(node) > 1:
                src.append(node)
                dst.append(np.roll(node, -1))
        if not src:
            return np.zeros(0, int), np.zeros(0, int), np.zeros(0)
        s = np.concatenate(src)
        return s, np.concatenate(dst), np.full(len(s), per_flow)

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
        """Double binary tree across servers among GPUs of each rail (NCCL NVLSTree's network part).

        Each tree carries half the data, up (reduce) and down (broadcast): per_byte / 2 per edge
        and direction.
        """
        src, dst = [], []
        m = self.m
        idx = np.arange(1, m)
        par = (idx - 1) // 2
        for k in range(self.g_min):
            e = np.array([node[k] for node in self.nodes])
            for child, parent in ((e[idx], e[par]), (e[m - 1 - idx], e[m - 1 - par])):
                src += [child, parent]
                dst += [parent, child]
        if not src:
            return np.zeros(0, int), np.zeros(0, int), np.zeros(0)
        s_ = np.concatenate(src)
        return s_, np.concatenate(dst), np.full(len(s_), per_byte / 2)

    def tree_flows(self, per_byte: float):
        """Chains in servers + double binary tree across servers (entries on rail c per channel)."""
        src, dst, w = [], [], []
        C = self.g_min if self.m > 1 else 1
        for c in range(C):
            orders = self._rolled(c)
            if isinstance(orders, np.ndarray):
                if orders.shape[1] > 1:
                    up_s, up_d = orders[:, 1:].ravel(), orders[:, :-1].ravel()
                    src += [up_s, up_d]
                    dst += [up_d, up_s]
                    w += [np.full(2 * len(up_s), per_byte / C)]
            else:
                for order in orders:
                    if len(order) > 1:
                        # reduce up the chain and broadcast down it: S/C each way
                        src += [order[1:], order[:-1]]
                        dst += [order[:-1], order[1:]]
                        w += [np.full(2 * (len(order) - 1), per_byte / C)]
            m = self.m
            if m > 1:
                e = np.array([o[0] for o in orders])
                for mirror in (False, True):
                    idx = np.arange(1, m)
                    par = (idx - 1) // 2
                    if mirror:
                        child, parent = e[m - 1 - idx], e[m - 1 - par]
                    else:
                        child, parent = e[idx], e[par]
                    src += [child, parent]
                    dst += [parent, child]
                    w += [np.full(2 * (m - 1), per_byte / (2 * C))]
        if not src:
            return np.zeros(0, int), np.zeros(0, int), np.zeros(0)
        return np.concatenate(src), np.concatenate(dst), np.concatenate(w)

    # ---- latency
    def network_hop_latency_s(self, src: np.ndarray, dst: np.ndarray) -> tuple[float, int]:
        """Worst one-way wire + switch + NIC latency of network flows, and their max hop count."""
        ctx = self.ctx
        fab, cap = ctx.fabric, ctx.cap
        same = (fab.domain[src] >= 0) & (fab.domain[src] == fab.domain[dst]) & (fab.nvl_up[src] >= 0)
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
        net = (cap.protocol != P_NVLINK) & (cap.protocol != P_PCIE)
        wire = float(cap.wire_latency_s[net].mean()) if net.any() else 0.0
        sw = cap.node_latency_s[cap.node_kind == K_SWITCH]
        sw_lat = float(sw.mean()) if len(sw) else 0.0
        core_is_switch = cap.node_kind[fab.core_nodes] == K_SWITCH
        n_sw = h + 1 if core_is_switch.any() else max(h - 1, 0)
        return K.NIC_LATENCY_S + (h + 2) * wire + n_sw * sw_lat, h

    def intra_step_s(self, proto: str, algo: str) -> float:
        hw = "nvlink" if any(len(n) > 1 for n in self.nodes) else "pcie"
        hub_lat = 0.0
        fab, cap = self.ctx.fabric, self.ctx.cap
        hubs = fab.domain_hub[fab.domain_hub >= 0]
        if len(hubs):
            hub_lat = float(cap.node_latency_s[hubs].max())
        return K.STEP_LATENCY_S[(hw, algo, proto)] + hub_lat


class _Unroutable(Exception):
    pass


# --------------------------------------------------------------------------- algorithms
def _ring_model(E: _Embedder, collective: str) -> AlgorithmModel:
    p, m = E.p, E.m
    factor = {"allreduce": 2.0 * (p - 1) / p, "broadcast": 1.0}.get(collective, (p - 1) / p)
    s, d, w = E.ring_flows(factor)
    ph = E.phase(s, d, w)
    nsteps = 2 * (p - 1) if collective == "allreduce" else p - 1
    ninter = (2 * (m - 1) if collective == "allreduce" else m - 1) if m > 1 else 0
    net_lat, _ = E.network_hop_latency_s(s, d)
    lat = {}
    for proto in K.PROTOCOLS:
        intra = E.intra_step_s(proto, "ring")
        inter = K.STEP_LATENCY_S[("net", "ring", proto)] + net_lat
        lat[proto] = K.BASE_LATENCY_S[("ring", proto)] + (nsteps - ninter) * intra + ninter * inter
    ll = K.PROTOCOL_BW_FACTOR[("ring", "LL")] if (m > 1 or collective == "allreduce") else 1.0 / 3.0
    bw = {"LL": ll, "LL128": K.PROTOCOL_BW_FACTOR[("ring", "LL128")], "Simple": 1.0}
    formula = (f"t = {nsteps} steps x step latency + {factor:.4g} x S / C per ring flow over {E.g_min if m > 1 else 1}"
               f" rail-aligned channel(s); bandwidth = max over links of load / effective capacity")
    return AlgorithmModel(collective, "ring", p, m, (ph,), lat, bw, formula)


def _tree_model(E: _Embedder) -> AlgorithmModel:
    p, m = E.p, E.m
    s, d, w = E.tree_flows(1.0)
    ph = E.phase(s, d, w)
    ph = Phase(ph.seconds_per_byte / K.TREE_EFFICIENCY, ph.bottleneck_arc, ph.arc_load_per_byte, ph.flows,
               ph.arc_seconds_per_byte / K.TREE_EFFICIENCY)
    net_lat, _ = E.network_hop_latency_s(s, d)
    ppn = max(len(n) for n in E.nodes)
    depth = math.ceil(math.log2(m)) if m > 1 else 0
    lat = {}
    for proto in K.PROTOCOLS:
        intra = E.intra_step_s(proto, "tree")
        inter = K.STEP_LATENCY_S[("net", "tree", proto)] + net_lat
        lat[proto] = K.BASE_LATENCY_S[("tree", proto)] + 2 * ((ppn - 1) * intra + depth * inter)
    bw = {proto: K.PROTOCOL_BW_FACTOR[("tree", proto)] for proto in K.PROTOCOLS}
    formula = (f"t = 2 x ({ppn - 1} NVLink chain steps + {depth} tree levels) x step latency + S x max load/capacity"
               f" / {K.TREE_EFFICIENCY} (double binary tree across {m} servers)")
    return AlgorithmModel("allreduce", "tree", p, m, (ph,), lat, bw, formula)


def _hier_phases(E: _Embedder, *, intra: str, inter: str) -> tuple[list[Phase], float, float]:
    m = E.m
    g = E.g_min
    phases: list[Phase] = []
    if intra == "nvls":
        s = np.concatenate(E.nodes)
        # NVLS reduce-scatter + all-gather: each GPU pushes S and pulls S through the switch once overall.
        ph_load = np.zeros(2 * E.ctx.cap.n_links)
        fab = E.ctx.fabric
        # One server: all-reduce in the switch, S up and S down. Several: reduce-scatter (S up, S/g down)
        # then all-gather (S/g up, S down) around the network phase.
        per = 1.0 if m == 1 else 1.0 + 1.0 / g
        np.add.at(ph_load, fab.nvl_up[s], per)
        np.add.at(ph_load, fab.nvl_down[s], per)
        phases.append(E._phase_from_load(ph_load, (s, s, np.ones(len(s))), E.arc_nvls))
    else:
        rs = E.phase(*E.intra_ring((g - 1) / g)) if g > 1 else None
        if rs is not None:
            phases += [rs, rs]  # reduce-scatter and all-gather move the same bytes
    if m > 1:
        if inter == "sharp":
            s, d, w = E.rail_rings(1.0 / g)
            fab = E.ctx.fabric
            load = np.zeros(2 * E.ctx.cap.n_links)
            rows = np.isin(fab.att_gpu, s)
            for col in range(2):
                for arcs in (fab.att_up[rows, col], fab.att_down[rows, col]):
                    ok = arcs >= 0
                    np.add.at(load, arcs[ok], fab.att_w[rows][ok] / g)
            phases.append(E._phase_from_load(load, (s, d, w), E.arc_eff * K.SHARP_EFFICIENCY))
        elif inter == "tree":
            phases.append(E.phase(*E.rail_trees(1.0 / g)))
        else:
            phases.append(E.phase(*E.rail_rings(2.0 * (m - 1) / m / g)))
    net_lat = 0.0
    if m > 1:
        s, d, _ = E.rail_rings(1.0)
        net_lat, _ = E.network_hop_latency_s(s, d)
    return phases, net_lat, float(g)


def _hier_model(E: _Embedder, kind: str) -> AlgorithmModel:
    p, m, g = E.p, E.m, E.g_min
    intra = "nvls" if kind == "nvls" else "ring"
    inter = {"sharp": "sharp", "nvls": "tree"}.get(kind, "ring")
    phases, net_lat, _ = _hier_phases(E, intra=intra, inter=inter)
    lat = {}
    if kind == "hierarchical":
        for proto in K.PROTOCOLS:
            intra_s = E.intra_step_s(proto, "ring")
            inter_s = K.STEP_LATENCY_S[("net", "ring", proto)] + net_lat
            lat[proto] = K.BASE_LATENCY_S[("ring", proto)] + 2 * (g - 1) * intra_s + 2 * (m - 1) * inter_s
        bw = {"LL": K.PROTOCOL_BW_FACTOR[("ring", "LL")], "LL128": K.PROTOCOL_BW_FACTOR[("ring", "LL128")],
              "Simple": 1.0}
        formula = (f"reduce-scatter in server ({g - 1} NVLink steps) + ring all-reduce of S/{g} across {m} servers "
                   f"on each rail + all-gather in server; phase times add")
    else:
        base = K.BASE_LATENCY_S[(kind, "Simple")]
        t = base
        if kind == "nvls":
            hub = float(E.ctx.cap.node_latency_s[E.ctx.fabric.domain_hub].max()) if E.ctx.fabric.n_domains else 0.0
            t += K.STEP_LATENCY_S[("nvlink", "nvls", "Simple")] + hub
            if m > 1:
                depth = math.ceil(math.log2(m))
                t += 2 * depth * (K.STEP_LATENCY_S[("net", "tree", "Simple")] + net_lat)
        else:
            t += 2 * (g - 1) * E.intra_step_s("Simple", "ring")
            t += K.STEP_LATENCY_S[("net", "sharp", "Simple")] + 2 * net_lat
        lat = {"Simple": t}
        bw = {"Simple": 1.0}
        formula = ("NVLS: each GPU sends and receives S once through the NVSwitch at the NVLS efficiency"
                   + (f", double binary tree all-reduce of S/{g} across {m} servers per rail (NVLSTree)"
                      if m > 1 else "")
                   if kind == "nvls" else
                   f"SHARP: reduce-scatter in server, in-network all-reduce of S/{g} per NIC, all-gather in server")
    return AlgorithmModel("allreduce", kind, p, m, tuple(phases), lat, bw, formula, concurrent=kind != "hierarchical")


def _alltoall_model(E: _Embedder) -> AlgorithmModel:
    ctx = E.ctx
    p = E.p
    load, lost = uniform_loads(ctx.fabric, ctx.router, E.members, 1.0 / p)
    if lost > 0:
        raise _Unroutable("some GPU pairs have no path")
    ph = E._phase_from_load(load, (E.members, E.members, np.zeros(p)))
    some = E.members[: min(p, 64)]
    net_lat, _ = E.network_hop_latency_s(some, np.roll(some, -1))
    hw = "net" if E.m > 1 else ("nvlink" if E.nodes and len(E.nodes[0]) > 1 else "pcie")
    step = K.STEP_LATENCY_S[(hw, "ring", "LL")] + (net_lat if E.m > 1 else 0.0)
    lat = {"Simple": K.BASE_LATENCY_S[("ring", "Simple")] + (p - 1) * step}
    formula = (f"t = (p-1) x {step * 1e6:.2f} us + S x max load/capacity; each GPU sends S/p to each peer through "
               "NVLink in its server and its own NIC otherwise (one NIC's rate at most)")
    # A GPU's all-to-all cannot aggregate several NICs (nccl-tests #267): busbw <= its NIC's rate.
    floor, floor_arc = 0.0, -1
    if E.m > 1:
        fab = ctx.fabric
        att = np.isin(fab.att_gpu, E.members)
        arcs = fab.att_up[att, 1]
        arcs = np.where(arcs >= 0, arcs, fab.att_up[att, 0])
        arcs = arcs[arcs >= 0]
        if len(arcs):
            eff = E.arc_eff[arcs]
            k = int(np.argmin(eff))
            floor, floor_arc = (p - 1) / p / float(eff[k]), int(arcs[k])
            formula += f"; busbw capped at one NIC ({float(eff[k]) / 1e9:.1f} GB/s)"
    return AlgorithmModel("alltoall", "pairwise", p, E.m, (ph,), lat, {"Simple": 1.0}, formula,
                          floor_seconds_per_byte=floor, floor_arc=floor_arc)


def _available(E: _Embedder, algo: str) -> str | None:
    """None if ``algo`` applies, else the reason it does not."""
    ctx = E.ctx
    if algo == "nvls" and not E.nvls_nodes:
        return "nvls needs every server's NVSwitch to support NVLink SHARP (specs.nvls)"
    if algo == "sharp":
        if E.m < 2:
            return "sharp needs GPUs in at least two servers"
        cap = ctx.cap
        sw = ctx.fabric.core_nodes[cap.node_kind[ctx.fabric.core_nodes] == K_SWITCH]
        net = (cap.protocol != P_NVLINK) & (cap.protocol != P_PCIE)
        if not len(sw) or not cap.node_sharp[sw].all() or not (cap.protocol[net] == P_IB).all():
            return "sharp needs InfiniBand switches that all support SHARP (specs.sharp)"
    if algo == "hierarchical" and (E.m < 2 or E.g_min < 2):
        return "hierarchical needs several servers of several GPUs"
    return None


def collective_times(ctx: Context | Design, collective: str = "allreduce", algorithms=None, sizes=None,
                     members=None) -> CollectiveResult:
    """Time, algbw and busbw of ``collective`` for each algorithm and message size.

    Parameters
    ----------
    ctx : Design or Context
        The design, or its analysis context.
    collective : str
        One of :data:`COLLECTIVES` (aliases such as ``all-reduce`` accepted).
    algorithms : str or list of str, optional
        Names from :data:`ALGORITHMS` (default: all that apply; an unavailable one asked for
        explicitly becomes a note).
    sizes : iterable of int, optional
        Message bytes (default 8 B .. 8 GiB in powers of two).
    members : optional
        GPU positions, GPU or group ids (default: every GPU).

    Returns
    -------
    CollectiveResult
        Rows (one per size and algorithm, ``selected`` marking the fastest), the models behind
        them (phases, bottleneck arcs, latency per protocol, formula) and notes.

    Examples
    --------
    One HGX H100 server (8 GPUs on an NVLS-capable NVSwitch), 8 GiB all-reduce:

    >>> from designer.generators import GENERATORS
    >>> res = collective_times(GENERATORS["server"].build(), sizes=[8 << 30])
    >>> {r.algorithm: round(r.busbw_bytes_per_s / 1e9) for r in res.rows}
    {'ring': 370, 'tree': 292, 'nvls': 481}
    """
    ctx = as_context(ctx)
    collective = ALIASES.get(collective, collective)
    if collective not in COLLECTIVES:
        raise AnalysisError(f"unknown collective {collective!r}: use one of {', '.join(COLLECTIVES)}")
    known = ALGORITHMS[collective]
    if algorithms is None:
        algos = list(known)
        explicit = False
    else:
        algos = [algorithms] if isinstance(algorithms, str) else list(algorithms)
        for a in algos:
            if a not in known:
                raise AnalysisError(f"{collective} has no algorithm {a!r}: use one of {', '.join(known)}")
        explicit = True
    try:
        sizes_arr = np.array(K.DEFAULT_SIZES_BYTES if sizes is None else list(sizes), dtype=np.int64).reshape(-1)
    except (TypeError, ValueError, OverflowError):
        raise AnalysisError(f"message sizes must be whole numbers of bytes, not {sizes!r}") from None
    if not len(sizes_arr):
        raise AnalysisError("no message sizes given")
    if (sizes_arr <= 0).any():
        raise AnalysisError("message sizes must be positive")
    sizes_arr = np.unique(sizes_arr)
    members = members_of(ctx, members)
    notes: list[str] = []
    if len(members) < 2:
        notes.append(f"{collective} needs at least 2 GPUs; the design has {len(members)} taking part")
        return CollectiveResult(collective, len(members), len(members), (), (), tuple(notes))
    E = _Embedder(ctx, members)
    models: list[AlgorithmModel] = []
    for algo in algos:
        why = _available(E, algo)
        if why is not None:
            if explicit:
                notes.append(f"{algo}: not available: {why}")
            continue
        try:
            if collective == "alltoall":
                models.append(_alltoall_model(E))
            elif algo == "ring":
                models.append(_ring_model(E, collective))
            elif algo == "tree":
                models.append(_tree_model(E))
            else:
                models.append(_hier_model(E, algo))
        except _Unroutable as e:
            notes.append(f"{algo}: cannot run: {e} (disconnected GPUs)")
    if not models:
        return CollectiveResult(collective, E.p, E.m, (), (), tuple(notes))
    bf = bus_factor(collective, E.p)
    sizes_f = sizes_arr.astype(float)
    table = []
    for mdl in models:
        t, which = mdl.times(sizes_f)
        table.append((mdl, t, which))
    all_t = np.stack([t for _, t, _ in table])
    candidates = np.array([explicit or mdl.algorithm not in NOT_DEFAULT for mdl in models])
    if not candidates.any():
        candidates[:] = True
    best = np.argmin(np.where(candidates[:, None], all_t, np.inf), axis=0)
    rows = []
    link_ids = ctx.cap.link_ids
    for j, size in enumerate(sizes_arr):
        for i, (mdl, t, which) in enumerate(table):
            tj = float(t[j])
            algbw = float(size) / tj if tj > 0 else 0.0
            arc = mdl.bottleneck_arc
            rows.append(CollectiveRow(
                collective, mdl.algorithm, K.PROTOCOLS[int(which[j])], int(size), tj, algbw, algbw * bf,
                bool(best[j] == i), link_ids[ctx.cap.arc_link(arc)] if arc >= 0 and link_ids else "",
            ))
    return CollectiveResult(collective, E.p, E.m, tuple(rows), tuple(models), tuple(notes))


def fair_rates(ctx: Context, model: AlgorithmModel, budget: int = K.FAIR_WORK_BUDGET):
    """Max-min fair rates of the flows of ``model``'s slowest phase.

    Returns ((src, dst, bytes), flow matrix, FairShare); None when the phase has no explicit flows
    (NVLS, all-to-all in aggregate); the string ``"skipped"`` when the flow matrix is too large.
    """
    ph = max(model.phases, key=lambda x: x.seconds_per_byte)
    src, dst, w = ph.flows
    if not len(src) or (src == dst).all():
        return None
    M = flow_matrix(ctx.fabric, ctx.router, src, dst, budget)
    if M is None:
        return "skipped"
    cap = ctx.cap.arc_effective_bytes_per_s
    return (src, dst, w), M, max_min_fair(M, cap)
