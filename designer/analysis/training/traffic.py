"""Concurrent communicators: every group of a communicator running its collective at once.

A training step runs the same collective in many groups at the same time: every data-parallel
group reduces its gradients together, every pipeline sends its activations together. Groups that
share a link slow each other down. For each communicator:

1. One group *alone*: :func:`designer.analysis.collectives.times.collective_times` on its GPUs gives the
   algorithm an NCCL-style tuner picks, its latency and its bandwidth term at each message size
   (point-to-point sends: one flow, routed, with NCCL's base and network step latency).
2. All groups *together*: the flows of every group (rings as NCCL builds them, rail-aligned when a
   group has several GPUs per server; all pairs for all-to-all; stage to next stage for pipeline
   sends) are routed on the fabric at once. Each flow gets its max-min fair rate on the shared links
   (progressive filling, :func:`designer.analysis.fabric.load.max_min_fair`); a group finishes when its
   slowest flow does, and the step waits for the slowest group. When the flow matrix would be too
   large the busiest link alone sets the time (the same result for flows of equal size).
3. ``slowdown`` = shared time per byte / alone time per byte of the same flows (>= 1); the
   concurrent time of a call is the alone latency plus the alone bandwidth term x slowdown.

Routing is one model with concurrency: under hashed ECMP (:func:`designer.analysis.collectives.hashed.routing_mode`
says so for Ethernet switches without adaptive routing, or asked for) the flows of *all* groups are
pinned to one equal-cost path each, in seeded draws (:func:`designer.analysis.collectives.hashed.hashed_arc_loads`),
NVLink and NIC links as the fluid routing has them; per draw the busiest link sets the shared time,
and ``slowdown`` is the mean over the draws (``slowdown_p99`` their 99th percentile) against the
fluid time of one group alone, so one group's own collisions and the groups' collisions with each
other are counted together.

Units: seconds, bytes, bytes/s per direction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.analysis.collectives.embedding import Embedder, Unroutable
from designer.analysis.collectives.hashed import Routing, hashed_arc_loads, tail
from designer.analysis.collectives.times import collective_times
from designer.analysis.common import constants as K
from designer.analysis.fabric.context import Context
from designer.analysis.fabric.load import flow_matrix, max_min_fair
from designer.analysis.fabric.routing import route_flows
from designer.analysis.training import constants as T

#: Collectives a communicator runs, plus ``sendrecv`` (pipeline point-to-point).
KINDS = ("allreduce", "reducescatter", "allgather", "alltoall", "sendrecv")


@dataclass(frozen=True)
class Communicator:
    """One communicator's groups and the time of one call of its collective (units: s, bytes).

    ``times_s`` maps each message size asked for to the time of one call with every group running
    at once; ``alone_s`` the same for one group alone. ``algorithm`` is what the tuner picks for the
    largest size alone. ``network``: whether the groups' traffic leaves the NVLink domains.
    """

    name: str
    collective: str
    groups: int
    group_size: int
    algorithm: str
    times_s: dict[int, float]
    alone_s: dict[int, float]
    slowdown: float
    bottleneck_link: str
    network: bool
    fair: bool
    #: The routing the groups were timed under (``fluid`` for fluid and adaptive) and, under
    #: ``hashed``, the 99th percentile of the draws: slowdown and call times.
    routing: str = "fluid"
    slowdown_p99: float = 1.0
    times_p99_s: dict[int, float] | None = None

    def time(self, message_bytes: float, tail: bool = False) -> float:
        """Time of one call of ``message_bytes`` (a size given when building, or interpolated);
        with ``tail``, its 99th percentile over the hash draws (the mean's under fluid routing)."""
        table = self.times_p99_s if tail and self.times_p99_s is not None else self.times_s
        key = int(round(message_bytes))
        if key in table:
            return table[key]
        if not table or message_bytes <= 0:
            return 0.0
        sizes = np.array(sorted(table), dtype=float)
        return float(np.interp(message_bytes, sizes, [table[int(s)] for s in sizes]))


def _ring_flows(ctx: Context, groups: np.ndarray, factor: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ring flows of every group, ``factor`` bytes per message byte in all (NCCL's embedding)."""
    fab = ctx.fabric
    dom = fab.domain[groups]
    hubbed = (dom >= 0) & fab.nvlink_member()[groups]
    key = np.where(hubbed, dom, -1 - groups)
    simple = groups.shape[1] <= 1
    if not simple:
        # One GPU per server, or one server: NCCL's ring is the plain ring over the group.
        srt = np.sort(key, axis=1)
        distinct = 1 + (np.diff(srt, axis=1) != 0).sum(axis=1)
        simple = bool(((distinct == groups.shape[1]) | (distinct == 1)).all())
    if simple:
        src = groups.ravel()
        dst = np.roll(groups, -1, axis=1).ravel()
        return src, dst, np.full(len(src), factor)
    srcs, dsts, ws = [], [], []
    for row in groups:
        s, d, w = Embedder(ctx, np.sort(row)).ring_flows(factor)
        srcs.append(s)
        dsts.append(d)
        ws.append(w)
    return np.concatenate(srcs), np.concatenate(dsts), np.concatenate(ws)


def _pair_flows(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n, p = groups.shape
    i, j = np.nonzero(~np.eye(p, dtype=bool))
    src = groups[:, i].ravel()
    dst = groups[:, j].ravel()
    return src, dst, np.full(len(src), 1.0 / p)


def _stage_flows(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    src = groups[:, :-1].ravel()
    dst = groups[:, 1:].ravel()
    return src, dst, np.ones(len(src))


def flows_of(ctx: Context, groups: np.ndarray, collective: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(src, dst, bytes per message byte) of every group's part in ``collective``."""
    p = groups.shape[1]
    if collective == "alltoall":
        return _pair_flows(groups)
    if collective == "sendrecv":
        return _stage_flows(groups)
    factor = 2.0 * (p - 1) / p if collective == "allreduce" else (p - 1) / p
    return _ring_flows(ctx, groups, factor)


def shared_seconds_per_byte(ctx: Context, src: np.ndarray, dst: np.ndarray, w: np.ndarray,
                            group_of: np.ndarray) -> tuple[float, int, bool]:
    """Seconds per message byte of the slowest group when all flows run at once, its bottleneck
    arc, and whether max-min fair rates were used (else the busiest arc)."""
    keep = src != dst
    src, dst, w, group_of = src[keep], dst[keep], w[keep], group_of[keep]
    if not len(src):
        return 0.0, -1, False
    cap = ctx.cap.arc_effective_bytes_per_s
    routed = route_flows(ctx.fabric, ctx.router, src, dst, w)
    if routed.unrouted_flows:
        return float("inf"), -1, False
    load = routed.arc_load
    ratio = np.where(load > 0, load / cap, 0.0)
    arc = int(np.argmax(ratio))
    busiest = float(ratio[arc])
    if len(src) > T.CONCURRENT_FAIR_MAX_FLOWS:
        return busiest, arc, False
    M = flow_matrix(ctx.fabric, ctx.router, src, dst)
    if M is None:
        return busiest, arc, False
    fs = max_min_fair(M, cap)
    rate = fs.rate_bytes_per_s
    ok = rate > 0
    if not ok.any():
        return busiest, arc, False
    t = np.where(ok, w / np.where(ok, rate, 1.0), 0.0)
    worst = int(np.argmax(t))
    per_group = np.zeros(int(group_of.max()) + 1)
    np.maximum.at(per_group, group_of, t)
    fair_arc = int(fs.bottleneck_arc[worst])
    return float(per_group.max()), fair_arc if fair_arc >= 0 else arc, True


def hashed_shared_seconds_per_byte(ctx: Context, src: np.ndarray, dst: np.ndarray, w: np.ndarray,
                                   routing: Routing) -> tuple[np.ndarray, int]:
    """Per hash draw, the seconds per message byte of the busiest link when the flows run at once,
    each pinned to one equal-cost path between switches; and the busiest link's arc in the worst draw."""
    keep = src != dst
    src, dst, w = src[keep], dst[keep], w[keep]
    if not len(src):
        return np.zeros(routing.draws), -1
    # Reduce-scatter and all-gather of one communicator route the same ring flows: once.
    key = ("hashed-shared", src.tobytes(), dst.tobytes(), w.tobytes(), routing.draws, routing.seed)
    hit = ctx.memo.get(key)
    if hit is None:
        hit = ctx.memo[key] = _hashed_shared(ctx, src, dst, w, routing)
    return hit


def _hashed_shared(ctx: Context, src: np.ndarray, dst: np.ndarray, w: np.ndarray,
                   routing: Routing) -> tuple[np.ndarray, int]:
    cap = ctx.cap.arc_effective_bytes_per_s
    routed = route_flows(ctx.fabric, ctx.router, src, dst, w)
    if routed.unrouted_flows:
        return np.full(routing.draws, np.inf), -1
    core = ctx.fabric.core_arc
    fixed = routed.arc_load / cap  # NVLink and NIC links: as the fluid routing has them
    fixed[core] = 0.0
    rest = int(np.argmax(fixed))
    if not len(core):  # no link between switches: nothing to hash
        return np.full(routing.draws, float(fixed[rest])), rest
    H = hashed_arc_loads(ctx, src, dst, w, draws=routing.draws, seed=routing.seed)[:, core] / cap[core]
    per_draw = np.maximum(H.max(axis=1), fixed[rest])
    worst = int(np.argmax(per_draw))
    arc = int(core[np.argmax(H[worst])]) if H[worst].max() >= fixed[rest] else rest
    return per_draw, arc


def _p2p_alone(ctx: Context, pair: np.ndarray) -> tuple[float, float]:
    """Latency and seconds per byte of one send from ``pair[0]`` to ``pair[1]`` alone."""
    src, dst = pair[:1], pair[1:2]
    E = Embedder(ctx, np.sort(pair))
    ph = E.phase(src, dst, np.ones(1))
    lat = K.BASE_LATENCY_S[("ring", "Simple")]
    if E.m > 1:
        net_lat, _ = E.network_hop_latency_s(src, dst)
        lat += K.STEP_LATENCY_S[("net", "ring", "Simple")] + net_lat
    else:
        lat += E.intra_step_s("Simple", "ring")
    return lat, ph.seconds_per_byte


def communicator(ctx: Context, name: str, groups: np.ndarray, collective: str, sizes,
                 routing: Routing | None = None) -> Communicator:
    """Time of one call of ``collective`` in every group of ``groups`` at once, for each size, under
    ``routing`` (hashed: seeded draws; otherwise the fluid split). Kept in ``ctx.memo``."""
    sizes = sorted({max(int(round(s)), 1) for s in sizes})
    hashed = routing is not None and routing.mode == "hashed"
    key = ("communicator", name, collective, groups.shape, groups.tobytes(), tuple(sizes),
           (routing.draws, routing.seed) if hashed else None)
    hit = ctx.memo.get(key)
    if hit is None:
        hit = ctx.memo[key] = _communicator(ctx, name, groups, collective, sizes, routing if hashed else None)
    return hit


def _communicator(ctx: Context, name: str, groups: np.ndarray, collective: str, sizes: list[int],
                  routing: Routing | None) -> Communicator:
    n_groups, p = groups.shape
    fab = ctx.fabric
    dom = fab.domain[groups]
    network = bool(((dom < 0) | (dom != dom[:, :1])).any())
    if p < 2 or not sizes:
        return Communicator(name, collective, n_groups, p, "none", {s: 0.0 for s in sizes},
                            {s: 0.0 for s in sizes}, 1.0, "", network, False)
    if collective == "sendrecv":
        try:
            lat, spb = _p2p_alone(ctx, groups[0])
        except Unroutable:
            inf = float("inf")
            return Communicator(name, collective, n_groups, p, "no path", {s: inf for s in sizes},
                                {s: inf for s in sizes}, 1.0, "", network, False)
        alone = {s: lat + s * spb for s in sizes}
        lat_of = {s: lat for s in sizes}
        algo = "p2p"
    else:
        res = collective_times(ctx, collective, None, sizes, groups[0])
        alone, lat_of = {}, {}
        algo = ""
        models = {m.algorithm: m for m in res.models}
        for r in res.rows:
            if r.selected:
                alone[r.message_bytes] = r.time_s
                lat_of[r.message_bytes] = models[r.algorithm].latency_s.get(r.protocol, 0.0)
                algo = r.algorithm
        if not alone:  # disconnected: no algorithm could run
            inf = float("inf")
            return Communicator(name, collective, n_groups, p, "no path", {s: inf for s in sizes},
                                {s: inf for s in sizes}, 1.0, "", network, False)
    src1, dst1, w1 = flows_of(ctx, groups[:1], collective)
    one, _, _ = shared_seconds_per_byte(ctx, src1, dst1, w1, np.zeros(len(src1), dtype=np.int64))
    slowdown = 1.0
    arc = -1
    fair = False
    if routing is not None and one > 0:
        src, dst, w = flows_of(ctx, groups, collective)
        per_draw, arc = hashed_shared_seconds_per_byte(ctx, src, dst, w, routing)
        if np.isfinite(per_draw).all():
            slowdown, slowdown_p99 = max(float(per_draw.mean()) / one, 1.0), max(tail(per_draw) / one, 1.0)
        else:
            slowdown = slowdown_p99 = float("inf")
        times = {s: lat_of[s] + (alone[s] - lat_of[s]) * slowdown for s in sizes}
        p99 = {s: lat_of[s] + (alone[s] - lat_of[s]) * slowdown_p99 for s in sizes}
        link = ctx.cap.link_ids[ctx.cap.arc_link(arc)] if arc >= 0 and ctx.cap.link_ids else ""
        return Communicator(name, collective, n_groups, p, algo, times, alone, slowdown, link, network, False,
                            "hashed", slowdown_p99, p99)
    if n_groups > 1 and one > 0:
        src, dst, w = flows_of(ctx, groups, collective)
        shared, arc, fair = shared_seconds_per_byte(ctx, src, dst, w, _group_ids(src, groups))
        slowdown = max(shared / one, 1.0) if np.isfinite(shared) else float("inf")
    times = {s: lat_of[s] + (alone[s] - lat_of[s]) * slowdown for s in sizes}
    link = ctx.cap.link_ids[ctx.cap.arc_link(arc)] if arc >= 0 and ctx.cap.link_ids else ""
    return Communicator(name, collective, n_groups, p, algo, times, alone, slowdown, link, network, fair)


def _group_ids(src: np.ndarray, groups: np.ndarray) -> np.ndarray:
    owner = np.full(int(groups.max()) + 1, -1, dtype=np.int64)
    owner[groups.ravel()] = np.repeat(np.arange(len(groups)), groups.shape[1])
    return owner[src]


__all__ = ["KINDS", "Communicator", "communicator", "flows_of", "hashed_shared_seconds_per_byte",
           "shared_seconds_per_byte"]
