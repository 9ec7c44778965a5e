"""Time models of the collective algorithms: bandwidth from the embedded flows, latency per protocol.

Each builder embeds an algorithm with :class:`designer.analysis.collectives.embedding.Embedder` and returns an
:class:`AlgorithmModel`: time = latency + S x seconds-per-byte / protocol factor for the
protocols LL, LL128 and Simple (NCCL ``tuning.cc`` constants, :mod:`designer.analysis.common.constants`),
the bandwidth term being the busiest arc's load per byte over its effective capacity. The
latency terms: ring ``base + (steps - inter-node steps) x NVLink step + inter-node steps x
(network step + hop latency)``; tree ``base + 2 ((ppn-1) NVLink steps + ceil(log2 servers)
network steps)``; hierarchical, NVLS(Tree), SHARP and pairwise all-to-all as documented in
``docs/analysis.md`` section 5.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.analysis.collectives import nccl_trees
from designer.analysis.collectives.embedding import Embedder, Phase, Unroutable
from designer.analysis.common import constants as K
from designer.analysis.fabric.capacity import K_SWITCH, P_IB, P_NVLINK, P_PCIE
from designer.analysis.fabric.load import uniform_loads
from designer.model import units


def tree_depth(m: int) -> int:
    """Levels of NCCL's double binary trees across ``m`` servers: ceil(log2 m) (the root of
    ``ncclGetBtree`` has one child, :mod:`designer.analysis.collectives.nccl_trees`). NCCL's tuner counts
    ``log2i(m) = floor(log2 m)`` levels instead, one fewer unless m is a power of two; the time of
    a step is what the model estimates, so it counts the levels the data crosses.

    >>> [tree_depth(m) for m in (1, 2, 3, 4, 5, 8, 9)]
    [0, 1, 2, 2, 3, 3, 4]
    """
    return nccl_trees.depth(max(int(m), 1))


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

    def times(self, sizes: np.ndarray, seconds_per_byte: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Best time over protocols per size, and the index into PROTOCOLS of that protocol.

        ``seconds_per_byte`` replaces the routed bandwidth term (hashed ECMP draws re-time the model)."""
        spb = self.seconds_per_byte if seconds_per_byte is None else seconds_per_byte
        best = np.full(len(sizes), np.inf)
        which = np.zeros(len(sizes), dtype=np.int64)
        for k, proto in enumerate(K.PROTOCOLS):
            if proto not in self.latency_s:
                continue
            lat = np.full(len(sizes), self.latency_s[proto])
            if self.plateau and proto == "Simple":
                lat = np.where(sizes >= self.ranks * K.RING_PLATEAU_BYTES_PER_RANK, lat * K.RING_PLATEAU_FACTOR, lat)
            t = lat + sizes * spb / self.bw_factor[proto]
            better = t < best
            best = np.where(better, t, best)
            which = np.where(better, k, which)
        return best, which


def ring_model(E: Embedder, collective: str) -> AlgorithmModel:
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
    channels = units.count(E.g_min if m > 1 else 1, "rail-aligned channel")
    formula = (f"t = {nsteps} steps x step latency + {factor:.4g} x S / C per ring flow over {channels}"
               f"{E.direct_rings_text()}; bandwidth = max over links of load / effective capacity")
    return AlgorithmModel(collective, "ring", p, m, (ph,), lat, bw, formula)


def tree_model(E: Embedder) -> AlgorithmModel:
    p, m = E.p, E.m
    s, d, w = E.tree_flows(1.0)
    ph = E.phase(s, d, w)
    ph = Phase(ph.seconds_per_byte / K.TREE_EFFICIENCY, ph.bottleneck_arc, ph.arc_load_per_byte, ph.flows,
               ph.arc_seconds_per_byte / K.TREE_EFFICIENCY, routed=ph.routed)
    net_lat, _ = E.network_hop_latency_s(s, d)
    ppn = max(len(n) for n in E.nodes)
    depth = tree_depth(m)
    lat = {}
    for proto in K.PROTOCOLS:
        intra = E.intra_step_s(proto, "tree")
        inter = K.STEP_LATENCY_S[("net", "tree", proto)] + net_lat
        lat[proto] = K.BASE_LATENCY_S[("tree", proto)] + 2 * ((ppn - 1) * intra + depth * inter)
    bw = {proto: K.PROTOCOL_BW_FACTOR[("tree", proto)] for proto in K.PROTOCOLS}
    formula = (f"t = 2 x ({ppn - 1} NVLink chain steps + {depth} tree levels) x step latency + S x max load/capacity"
               f" / {K.TREE_EFFICIENCY} (double binary tree across {m} servers){E.direct_rings_text()}")
    return AlgorithmModel("allreduce", "tree", p, m, (ph,), lat, bw, formula)


def hier_phases(E: Embedder, *, intra: str, inter: str) -> tuple[list[Phase], float, float]:
    m = E.m
    g = E.g_min
    phases: list[Phase] = []
    if intra == "nvls":
        s = np.concatenate(E.nodes)
        # NVLS (NCCL's model, constants.NVLS_EFFICIENCY): each GPU of an n-GPU server pushes S into the
        # switch (the reduction reads every GPU's data) and pulls the reduced S back (the multicast
        # store), plus S/n each way as the head of its 1/n share: (1 + 1/n) S per direction. The same
        # holds around the network phase of NVLSTree (reduce-scatter before it, all-gather after).
        ph_load = np.zeros(2 * E.ctx.cap.n_links)
        fab = E.ctx.fabric
        per = np.concatenate([np.full(len(n), 1.0 + 1.0 / len(n)) for n in E.nodes])
        fab.add_nvlink(ph_load, s, per)
        fab.add_nvlink(ph_load, s, per, down=True)
        phases.append(E._phase_from_load(ph_load, (s, s, np.ones(len(s))), E.arc_nvls))
    else:
        rs = E.phase(*E.intra_ring((g - 1) / g)) if g > 1 else None
        if rs is not None:
            phases += [rs, rs]  # reduce-scatter and all-gather move the same bytes
    if m > 1:
        if inter == "sharp":
            s, d, w = E.rail_rings(1.0 / g)
            fab = E.ctx.fabric
            _sharp_reach(E, s)
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


def _sharp_reach(E: Embedder, senders: np.ndarray) -> None:
    """Raise :class:`Unroutable` unless every GPU sending into the SHARP aggregation tree has a
    network link and all their switches are joined (one tree spans them)."""
    fab = E.ctx.fabric
    bare = senders[~fab.gpu_has_network()[senders]]
    if len(bare):
        ids = [E.ctx.gpu_ids[i] for i in bare]
        raise Unroutable(f"{units.count(len(ids), 'GPU')} ({', '.join(ids[:3])}{'...' if len(ids) > 3 else ''}) "
                         f"{units.plural(len(ids), 'has', 'have')} no network link to reach the aggregation tree "
                         "(cable its NIC to a switch)")
    cores = fab.att_core[np.isin(fab.att_gpu, senders)]
    hops = E.ctx.router.hops(np.full(len(cores), cores[0]), cores) if len(cores) else np.zeros(0)
    if not np.isfinite(hops).all():
        far = fab.gpus[fab.att_gpu[np.isin(fab.att_gpu, senders)][~np.isfinite(hops)]]
        ids = [E.ctx.cap.node_ids[i] for i in far]
        raise Unroutable(f"{units.count(len(ids), 'GPU')} ({', '.join(ids[:3])}{'...' if len(ids) > 3 else ''}) "
                         "reach no aggregation tree shared with the others: their switches are not joined")


def hier_model(E: Embedder, kind: str) -> AlgorithmModel:
    p, m, g = E.p, E.m, E.g_min
    # Steps in a server: the largest server's (the slowest sets the pace; a server that lost a
    # GPU's NVLink does not make the others' steps fewer).
    ppn = max(len(n) for n in E.nodes)
    intra = "nvls" if kind == "nvls" else "ring"
    inter = {"sharp": "sharp", "nvls": "tree"}.get(kind, "ring")
    phases, net_lat, _ = hier_phases(E, intra=intra, inter=inter)
    lat = {}
    if kind == "hierarchical":
        for proto in K.PROTOCOLS:
            intra_s = E.intra_step_s(proto, "ring")
            inter_s = K.STEP_LATENCY_S[("net", "ring", proto)] + net_lat
            lat[proto] = K.BASE_LATENCY_S[("ring", proto)] + 2 * (ppn - 1) * intra_s + 2 * (m - 1) * inter_s
        bw = {"LL": K.PROTOCOL_BW_FACTOR[("ring", "LL")], "LL128": K.PROTOCOL_BW_FACTOR[("ring", "LL128")],
              "Simple": 1.0}
        formula = (f"reduce-scatter in server ({ppn - 1} NVLink steps) + ring all-reduce of S/{g} across {m} servers "
                   f"on each rail + all-gather in server; phase times add")
    else:
        base = K.BASE_LATENCY_S[(kind, "Simple")]
        t = base
        if kind == "nvls":
            hubs = E.ctx.fabric.domain_hub[E.ctx.fabric.domain_hub >= 0]
            hub = float(E.ctx.cap.node_latency_s[hubs].max()) if len(hubs) else 0.0
            t += K.STEP_LATENCY_S[("nvlink", "nvls", "Simple")] + hub
            if m > 1:
                depth = tree_depth(m)
                t += 2 * depth * (K.STEP_LATENCY_S[("net", "nvls_tree", "Simple")] + net_lat)
        else:
            t += 2 * (ppn - 1) * E.intra_step_s("Simple", "ring")
            t += K.STEP_LATENCY_S[("net", "sharp", "Simple")] + 2 * net_lat
        lat = {"Simple": t}
        bw = {"Simple": 1.0}
        nvls_eff = K.NVLS_EFFICIENCY_BY_GEN.get(E.nvlink_generation(), K.NVLS_EFFICIENCY)
        formula = (f"NVLS: each GPU sends and receives (1 + 1/n) S through the NVSwitch at {nvls_eff} of "
                   "its effective NVLink rate"
                   + (f", NCCL's double binary trees all-reduce S/{g} across {m} servers per rail (NVLSTree)"
                      if m > 1 else "")
                   if kind == "nvls" else
                   f"SHARP: reduce-scatter in server, in-network all-reduce of S/{g} per NIC, all-gather in server")
    floor, floor_arc = 0.0, -1
    if kind == "nvls" and m > 1:
        # NCCL's NVLSTree bandwidth cap per channel (one channel per rail's NIC head), as nccl-tests busbw.
        caps = K.NVLS_TREE_MAX_BUSBW_PER_CHANNEL_BY_GEN.get(E.nvlink_generation(), K.NVLS_TREE_MAX_BUSBW_PER_CHANNEL)
        per_channel = caps[min(m, 3)]
        algbw = g * per_channel * p / (2.0 * (p - 1))
        floor, floor_arc = 1.0 / algbw, phases[-1].bottleneck_arc
        formula += f"; busbw capped at {g} x {units.rate(per_channel)} (NCCL's NVLSTree limit per channel)"
    return AlgorithmModel("allreduce", kind, p, m, tuple(phases), lat, bw, formula,
                          concurrent=kind != "hierarchical", floor_seconds_per_byte=floor, floor_arc=floor_arc)


def alltoall_model(E: Embedder) -> AlgorithmModel:
    ctx = E.ctx
    p = E.p
    load, lost = uniform_loads(ctx.fabric, ctx.router, E.members, 1.0 / p)
    if lost > 0:
        bare = E.without_network()
        raise Unroutable(
            f"{units.count(len(bare), 'GPU')} ({', '.join(bare[:3])}{'...' if len(bare) > 3 else ''}) "
            f"{units.plural(len(bare), 'has', 'have')} no network link (cable its NIC to a switch)" if bare else
            "some GPU pairs have no path: their switches are not joined by working network links")
    ph = E._phase_from_load(load, (E.members, E.members, np.zeros(p)))
    some = E.members[: min(p, 64)]
    net_lat, _ = E.network_hop_latency_s(some, np.roll(some, -1))
    hw = "net" if E.m > 1 else ("nvlink" if E.nodes and len(E.nodes[0]) > 1 else "pcie")
    step = K.STEP_LATENCY_S[(hw, "ring", "LL")] + (net_lat if E.m > 1 else 0.0)
    lat = {"Simple": K.BASE_LATENCY_S[("ring", "Simple")] + (p - 1) * step}
    formula = (f"t = (p-1) x {units.duration(step)} + S x max load/capacity; each GPU sends S/p to each peer through "
               "NVLink in its server and its own NIC otherwise (one NIC's rate at most)")
    # A GPU's all-to-all cannot aggregate several NICs (nccl-tests #267): busbw <= its NIC's rate.
    floor, floor_arc = 0.0, -1
    if E.m > 1:
        fab, cap = ctx.fabric, ctx.cap
        att = np.flatnonzero(np.isin(fab.att_gpu, E.members))
        first = fab.att_up[att, 0]
        arcs = np.where(fab.att_up[att, 1] >= 0, fab.att_up[att, 1], first)
        ok = arcs >= 0
        att, first, arcs = att[ok], first[ok], arcs[ok]
        if len(arcs):
            # A NIC's rate is all its network links together (a dual-port NIC is one NIC); a GPU
            # with several NICs still gets one NIC's rate, its fastest.
            gpu = fab.att_gpu[att]
            nic = np.where(first >= 0, cap.arc_dst[np.maximum(first, 0)], fab.gpus[gpu])
            g_n, inv = np.unique(np.stack([gpu, nic], axis=1), axis=0, return_inverse=True)
            nic_rate = np.bincount(inv.reshape(-1), weights=E.arc_eff[arcs], minlength=len(g_n))
            gpu_rate = np.zeros(len(fab.gpus))
            np.maximum.at(gpu_rate, g_n[:, 0], nic_rate)
            slow = int(gpu[np.argmin(gpu_rate[gpu])])
            rate = float(gpu_rate[slow])
            floor = (p - 1) / p / rate
            floor_arc = int(arcs[gpu == slow][np.argmin(E.arc_eff[arcs[gpu == slow]])])
            formula += f"; busbw capped at one NIC ({units.rate(rate)})"
    return AlgorithmModel("alltoall", "pairwise", p, E.m, (ph,), lat, {"Simple": 1.0}, formula,
                          floor_seconds_per_byte=floor, floor_arc=floor_arc)


def unavailable_reason(E: Embedder, algo: str) -> str | None:
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
