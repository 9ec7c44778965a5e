"""Routing modes and hashed ECMP: each flow pinned to one equal-cost path (docs/analysis.md section 5).

The fluid model (:mod:`designer.analysis.fabric.ecmp`) splits every flow equally over its equal-cost next
hops, which is what InfiniBand adaptive routing and Spectrum-X-class Ethernet (per-packet adaptive
routing, reordering in the NIC) come close to. A plain Ethernet fabric instead *hashes* each flow
(its 5-tuple) onto one next hop at every switch, and a collective's few large flows can land on the
same uplink. Hashed mode models that:

- every network flow of the algorithm (each channel of a ring, each edge of a tree, per NIC port
  when a NIC has several) takes one shortest path, chosen hop by hop uniformly among the
  equal-cost next *links* (parallel links count one each), exactly the probabilities the fluid
  split uses, so the mean load of every link over many draws is the fluid load;
- R seeded draws (default :data:`DEFAULT_HASH_DRAWS`, seed :data:`DEFAULT_HASH_SEED`), all flows
  of a draw at once, numpy-vectorised (one random choice per flow per hop);
- per draw, each phase's time per byte is set by its most loaded link, as in the fluid model, and
  the collective's time follows from the algorithm's own latency and protocol model.

NVLink, PCIe and a NIC's share over its own ports stay as in the fluid model; phases that are not
routed flow by flow (NVLS inside the NVSwitch, SHARP's NIC links, all-to-all routed in aggregate)
keep their fluid loads.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.analysis.collectives.algorithms import AlgorithmModel
from designer.analysis.collectives.names import bus_factor
from designer.analysis.common.errors import AnalysisError
from designer.analysis.fabric.capacity import K_SWITCH, P_IB, P_NVLINK, P_PCIE
from designer.analysis.fabric.context import Context
from designer.analysis.fabric.routing import attachment_pairs
from designer.model.catalog import Catalog
from designer.model.units import count, size

__all__ = ["DEFAULT_HASH_DRAWS", "DEFAULT_HASH_SEED", "ROUTING_MODES", "HashedResult", "Routing",
           "collision_note", "core_subflows", "hashed_arc_loads", "hashed_collective", "hashed_core_loads",
           "routing_mode", "tail"]

#: Routing modes: ``fluid`` (equal split per link at every hop), ``hashed`` (one path per flow),
#: ``adaptive`` (the fabric spreads flows itself; modelled as the fluid split).
ROUTING_MODES = ("fluid", "hashed", "adaptive")
#: What each mode models, as the report says it.
MODE_TEXT = {"fluid": "every flow split equally over the equal-cost links at each hop",
             "hashed": "each flow pinned to one equal-cost path, as ECMP hashing does",
             "adaptive": "the switches spread flows over the equal-cost paths (modelled as the fluid split)"}
#: Hash draws per analysis: enough for a stable mean, and a p99 that is the worst draw of 32.
DEFAULT_HASH_DRAWS = 32
#: Seed of the draws: a fixed default so the same design gives the same report.
DEFAULT_HASH_SEED = 0
#: Most hash draws one analysis takes.
MAX_HASH_DRAWS = 10_000
#: (draw x flow) rows walked at once; more draws are walked a batch at a time.
ROW_BUDGET = 1_000_000
#: (destination class x node) states numbered through a dense table (more: sorted)
DENSE_STATES = 8_000_000
#: Destinations x core nodes of one distance table; more destinations take several tables.
TABLE_BUDGET = 32_000_000
#: The percentile of the draws reported beside their mean.
TAIL_QUANTILE = 0.99


@dataclass(frozen=True)
class HashedResult:
    """The selected algorithm at one message size under hashed ECMP (units: s, bytes, fractions).

    ``time_s`` and ``max_utilization`` hold one value per draw. ``max_utilization`` is the
    busiest link's busy time at the fluid model's pace over the fluid time: the same quantity as
    the report's per-link utilisation, 1.0 for a link that is the fluid bottleneck, above 1 for a
    link that collisions load past what it can carry in that time.
    """

    collective: str
    algorithm: str
    ranks: int
    message_bytes: int
    draws: int
    seed: int
    #: Network flows routed through the switches (each channel and NIC port its own flow).
    flows: int
    fluid_time_s: float
    fluid_max_utilization: float
    time_s: np.ndarray
    max_utilization: np.ndarray
    #: False when the algorithm's busiest traffic is not routed flow by flow (the fluid loads stand).
    modelled: bool = True

    @property
    def mean_time_s(self) -> float:
        return float(np.mean(self.time_s))

    @property
    def p99_time_s(self) -> float:
        return tail(self.time_s)

    @property
    def mean_max_utilization(self) -> float:
        return float(np.mean(self.max_utilization))

    @property
    def p99_max_utilization(self) -> float:
        return tail(self.max_utilization)

    @property
    def mean_slowdown(self) -> float:
        """Mean hashed time over the fluid time (1 = no loss to collisions)."""
        return self.mean_time_s / self.fluid_time_s if self.fluid_time_s > 0 else 1.0

    @property
    def p99_slowdown(self) -> float:
        return self.p99_time_s / self.fluid_time_s if self.fluid_time_s > 0 else 1.0

    def busbw_bytes_per_s(self, time_s: float) -> float:
        """nccl-tests busbw of the message at ``time_s`` (:func:`designer.analysis.collectives.times.bus_factor`)."""
        return self.message_bytes / time_s * bus_factor(self.collective, self.ranks) if time_s > 0 else 0.0


@dataclass(frozen=True)
class Routing:
    """How the report routes flows across switches: the mode, whether the fabric chose it, why."""

    mode: str
    by_default: bool
    reason: str
    draws: int = DEFAULT_HASH_DRAWS
    seed: int = DEFAULT_HASH_SEED
    #: The hashed figures of the selected algorithm (hashed mode with an algorithm selected), else None.
    hashed: HashedResult | None = None


def tail(x: np.ndarray) -> float:
    """The :data:`TAIL_QUANTILE` of the draws, a value one of them took (the worst of up to 100 draws)."""
    return float(np.quantile(x, TAIL_QUANTILE, method="higher")) if len(x) else 0.0


# --------------------------------------------------------------------------- mode
def _adaptive_switch(dev, catalog: Catalog) -> bool:
    """A switch whose catalog model (or ``properties["adaptive_routing"]``) says it routes adaptively."""
    comp = catalog.components.get(dev.model) if dev.model else None
    specs = dict(comp.specs) if comp is not None else {}
    if "adaptive_routing" in dev.properties:
        specs["adaptive_routing"] = dev.properties["adaptive_routing"]
    return bool(specs.get("adaptive_routing", False))


def routing_mode(ctx: Context, requested: str | None = None, catalog: Catalog | None = None, *,
                 draws: int = DEFAULT_HASH_DRAWS, seed: int = DEFAULT_HASH_SEED) -> Routing:
    """The routing mode of ``ctx``: ``requested``, or by fabric type when None.

    By default: hashed when a switch carrying network traffic is Ethernet without adaptive
    routing (its catalog ``specs.adaptive_routing``, or ``properties["adaptive_routing"]``);
    adaptive when every such switch is InfiniBand or adaptive Ethernet (Spectrum-X class); fluid
    when no switch routes (direct-connect fabrics, single servers).
    """
    if requested is not None and requested not in ROUTING_MODES:
        raise AnalysisError(f"unknown routing {requested!r}: use one of {', '.join(ROUTING_MODES)}")
    if not isinstance(draws, (int, np.integer)) or isinstance(draws, bool) or not 1 <= draws <= MAX_HASH_DRAWS:
        raise AnalysisError(f"hash draws must be a whole number from 1 to {MAX_HASH_DRAWS:,}, not {draws!r}")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise AnalysisError(f"the hash seed must be a whole number 0 or more, not {seed!r}")
    cap, fab = ctx.cap, ctx.fabric
    switches = fab.core_nodes[cap.node_kind[fab.core_nodes] == K_SWITCH]
    if requested is not None:
        return Routing(requested, False, MODE_TEXT[requested], int(draws), int(seed))
    if not len(switches):
        return Routing("fluid", True, "no switch chooses among paths (direct links or one server)", int(draws),
                       int(seed))
    catalog = ctx.catalog if catalog is None else catalog
    # A switch is InfiniBand when its network links are (capacity graph protocol).
    net = (cap.protocol != P_NVLINK) & (cap.protocol != P_PCIE)
    ib_node = np.zeros(cap.n_nodes, dtype=bool)
    for end in (cap.a, cap.b):
        ib_node[end[net & (cap.protocol == P_IB)]] = True
    devices = ctx.design.devices  # one copy of the list, not one per switch
    hashed = [int(s) for s in switches if not ib_node[s] and not _adaptive_switch(devices[int(s)], catalog)]
    if hashed:
        names = ", ".join(cap.node_ids[i] for i in hashed[:2]) + ("..." if len(hashed) > 2 else "")
        return Routing("hashed", True, f"Ethernet switches without adaptive routing hash each flow onto one path "
                       f"({count(len(hashed), 'switch')}: {names})", int(draws), int(seed))
    return Routing("adaptive", True, "InfiniBand or adaptive-routing Ethernet switches spread flows over the "
                   "equal-cost paths (modelled as the fluid split)", int(draws), int(seed))


# --------------------------------------------------------------------------- flows
def core_subflows(fabric, src: np.ndarray, dst: np.ndarray, nbytes: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The network part of flows ``src -> dst`` (GPU positions): (core node from, core node to, bytes).

    As :func:`designer.analysis.fabric.routing.route_flows` routes them: flows inside an NVLink domain
    stay on NVLink (none here), a GPU with several attachments (NIC ports) shares its bytes over
    them, one sub-flow per (source port, destination port); flows without a network attachment
    are left out (the fluid routing reports them).
    """
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    nbytes = np.asarray(nbytes, dtype=float)
    keep = src != dst
    keep &= ~fabric.nvlink_local(src, dst)
    src, dst, nbytes = src[keep], dst[keep], nbytes[keep]
    ptr = np.searchsorted(fabric.att_gpu, np.arange(len(fabric.gpus) + 1))
    cs_n, cd_n = ptr[src + 1] - ptr[src], ptr[dst + 1] - ptr[dst]
    ok = (cs_n > 0) & (cd_n > 0)
    src, dst, nbytes, cs_n, cd_n = src[ok], dst[ok], nbytes[ok], cs_n[ok], cd_n[ok]
    fi, ia, ib = attachment_pairs(ptr, src, dst, cs_n, cd_n)
    wb = nbytes[fi] * fabric.att_w[ia] * fabric.att_w[ib]
    cs, ct = fabric.att_core[ia], fabric.att_core[ib]
    net = cs != ct
    return cs[net], ct[net], wb[net]


def hashed_core_loads(router, cs: np.ndarray, ct: np.ndarray, amount: np.ndarray, draws: int,
                      rng: np.random.Generator) -> np.ndarray:
    """Per draw, the load of every core link arc (``router.src``/``router.dst`` order) when flow ``i``
    (``amount[i]`` from core node ``cs[i]`` to ``ct[i]``) takes one shortest path, each hop chosen
    uniformly among the equal-cost next links (parallel links one each). Returns (draws, core arcs).

    Vectorised: all flows of a batch of draws step together, one random number per flow per hop.
    The equal-cost links are found once per distinct (destination class, node) state: twin
    destinations (identical neighbours, e.g. the leaves of one pod) are at the same distance from
    every other node, so one distance row serves a class; the last hop takes the links into the
    destination itself, and a flow between twins any link to their common neighbours. Unreachable
    flows are left out (the fluid routing reports them).
    """
    n = router.n
    na = len(router.src)
    out = np.zeros(draws * na)
    flows = _routable_flows(router, cs, ct, amount, na)
    if flows is None:
        return out.reshape(draws, na)
    cs, ct, amount, hops = flows
    ix = _index_arcs(router)
    cls_of, reps = _destination_classes(router, ct)
    twin_start = (cls_of[cs] == cls_of[ct]) & (hops == 2)   # between twins: via any common neighbour
    per_table = max(1, TABLE_BUDGET // max(n, 1))
    fcls = cls_of[ct]
    for c0 in range(0, len(reps), per_table):   # one distance table per run of destination classes
        sel = np.flatnonzero((fcls >= c0) & (fcls < c0 + per_table))
        if not len(sel):
            continue
        n_cls = min(per_table, len(reps) - c0)
        dist = np.asarray(router.distances(reps[c0 : c0 + n_cls]))
        fl = _TableFlows(fcls[sel] - c0, cs[sel], ct[sel], amount[sel], hops[sel], twin_start[sel])
        per_batch = max(1, ROW_BUDGET // len(sel))
        for r0 in range(0, draws, per_batch):
            _walk(ix, dist, n_cls, fl, range(r0, min(r0 + per_batch, draws)), draws, rng, out)
    return out.reshape(draws, na)


def _routable_flows(router, cs, ct, amount, na: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """The flows with bytes between distinct, connected core nodes, with their hop counts:
    (from, to, bytes, hops), or None when there are none (or no arcs)."""
    cs = np.asarray(cs, dtype=np.int64)
    ct = np.asarray(ct, dtype=np.int64)
    amount = np.asarray(amount, dtype=float)
    keep = (cs != ct) & (amount > 0)
    cs, ct, amount = cs[keep], ct[keep], amount[keep]
    if not len(cs) or not na:
        return None
    hops = np.asarray(router.hops(cs, ct), dtype=float)
    ok = np.isfinite(hops) & (hops > 0)
    cs, ct, amount, hops = cs[ok], ct[ok], amount[ok], hops[ok].astype(np.int64)
    if not len(cs):
        return None
    return cs, ct, amount, hops


@dataclass(frozen=True)
class _ArcIndex:
    """The core arcs indexed for the walk: the out-arcs of node ``u`` are ``order[ptr[u]:ptr[u + 1]]``;
    the parallel arcs ``u -> v`` are one run of ``pair_sorted`` (keys ``u * n + v``) over ``by_pair``."""

    n: int
    dst: np.ndarray
    order: np.ndarray
    ptr: np.ndarray
    by_pair: np.ndarray
    pair_sorted: np.ndarray


def _index_arcs(router) -> _ArcIndex:
    """Index ``router``'s arcs by source node and by (source, destination) pair."""
    n, src_a, dst_a = router.n, router.src, router.dst
    order = np.argsort(src_a, kind="stable")
    ptr = np.searchsorted(src_a[order], np.arange(n + 1))
    pair_key = src_a * n + dst_a
    by_pair = np.argsort(pair_key, kind="stable")
    return _ArcIndex(n, dst_a, order, ptr, by_pair, pair_key[by_pair])


def _destination_classes(router, ct: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The class of every node among the destinations' twin classes (-1: not a destination) and a
    representative of each class, whose distance row serves the class."""
    cls_of = np.full(router.n, -1, dtype=np.int64)
    reps = []
    for c, g in enumerate(router.twin_classes(np.unique(ct))):
        cls_of[g] = c
        reps.append(int(g[0]))
    return cls_of, np.array(reps, dtype=np.int64)


@dataclass(frozen=True)
class _TableFlows:
    """The flows of one distance table: class (row of the table), from, to, bytes, hops, between twins."""

    cls: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    nbytes: np.ndarray
    hops: np.ndarray
    twin: np.ndarray


def _walk(ix: _ArcIndex, dist: np.ndarray, n_cls: int, fl: _TableFlows, batch: range, draws: int,
          rng: np.random.Generator, out: np.ndarray) -> None:
    """Walk every flow of ``fl`` in the draws of ``batch`` hop by hop to its destination, one random
    number per flow per hop, adding its bytes to ``out`` (draws x arcs, flat) on every arc it takes."""
    n, na = ix.n, len(ix.dst)
    dense = n_cls * n <= DENSE_STATES
    f = np.tile(np.arange(len(fl.src)), len(batch))
    r = np.repeat(np.arange(batch.start, batch.stop), len(fl.src))
    u, d, tw = fl.src[f], fl.hops[f], fl.twin[f]
    while len(f):
        chosen = np.empty(len(f), dtype=np.int64)
        rand = rng.random(len(f))
        last = d == 1
        if last.any():                          # into the destination: its parallel links
            key = u[last] * n + fl.dst[f[last]]
            lo = np.searchsorted(ix.pair_sorted, key, side="left")
            cnt = np.searchsorted(ix.pair_sorted, key, side="right") - lo
            chosen[last] = ix.by_pair[lo + np.minimum((rand[last] * cnt).astype(np.int64), cnt - 1)]
        if tw.any():                            # from a twin: every link reaches a common neighbour
            deg = ix.ptr[u[tw] + 1] - ix.ptr[u[tw]]
            chosen[tw] = ix.order[ix.ptr[u[tw]] + np.minimum((rand[tw] * deg).astype(np.int64), deg - 1)]
        mid = ~last & ~tw
        if mid.any():
            chosen[mid] = _closer_arcs(ix, dist, n_cls, dense, fl.cls[f[mid]], u[mid], rand[mid])
        out += np.bincount(r * na + chosen, weights=fl.nbytes[f], minlength=draws * na)
        u = ix.dst[chosen]
        d = d - 1
        alive = d > 0
        f, r, u, d = f[alive], r[alive], u[alive], d[alive]
        tw = np.zeros(len(f), dtype=bool)


def _closer_arcs(ix: _ArcIndex, dist: np.ndarray, n_cls: int, dense: bool, cls: np.ndarray, u: np.ndarray,
                 rand: np.ndarray) -> np.ndarray:
    """For flows at nodes ``u`` bound for destination classes ``cls`` (rows of ``dist``), the link each
    takes: ``rand`` picks among the links one hop closer, found once per distinct (class, node) state
    (numbered through a dense table when it fits, else sorted)."""
    n = ix.n
    key = cls * n + u
    if dense:
        seen = np.zeros(n_cls * n, dtype=bool)
        seen[key] = True
        states = np.flatnonzero(seen)
        index = np.zeros(n_cls * n, dtype=np.int64)
        index[states] = np.arange(len(states))
        inv = index[key]
    else:
        states, inv = np.unique(key, return_inverse=True)
        inv = inv.reshape(-1)
    st_c, st_u = states // n, states % n
    deg = ix.ptr[st_u + 1] - ix.ptr[st_u]
    rep = np.repeat(np.arange(len(states)), deg)
    off = np.arange(int(deg.sum())) - np.repeat(np.cumsum(deg) - deg, deg)
    arcs = ix.order[ix.ptr[st_u][rep] + off]
    closer = dist[st_c[rep], ix.dst[arcs]] == dist[st_c, st_u][rep] - 1
    rep, arcs = rep[closer], arcs[closer]
    cnt = np.bincount(rep, minlength=len(states))
    start = np.cumsum(cnt) - cnt
    c = cnt[inv]
    return arcs[start[inv] + np.minimum((rand * c).astype(np.int64), c - 1)]


def hashed_arc_loads(ctx: Context, src, dst, nbytes, *, draws: int = DEFAULT_HASH_DRAWS,
                     seed: int = DEFAULT_HASH_SEED) -> np.ndarray:
    """Per draw, the load on every capacity-graph arc of the switch (core) part of flows
    ``src -> dst`` (GPU positions, ``nbytes`` each) under hashed ECMP: (draws, arcs).

    Only the links between switches (and network-port GPUs) are filled; NVLink and NIC links are
    as the fluid routing has them (:func:`designer.analysis.fabric.routing.route_flows`).
    """
    fab = ctx.fabric
    cs, ct, b = core_subflows(fab, src, dst, nbytes)
    H = hashed_core_loads(ctx.router, cs, ct, b, draws, np.random.default_rng(seed))
    out = np.zeros((draws, 2 * ctx.cap.n_links))
    out[:, fab.core_arc] = H
    return out


# --------------------------------------------------------------------------- collective
def hashed_collective(ctx: Context, model: AlgorithmModel, message_bytes: int, *,
                      draws: int = DEFAULT_HASH_DRAWS, seed: int = DEFAULT_HASH_SEED) -> HashedResult:
    """``model`` (an algorithm embedded by :func:`designer.analysis.collectives.times.collective_times`) at
    ``message_bytes`` under hashed ECMP, over ``draws`` seeded draws (see the module docstring)."""
    rng = np.random.default_rng(seed)
    fab = ctx.fabric
    core = fab.core_arc
    n_arcs = 2 * ctx.cap.n_links
    is_core = np.zeros(n_arcs, dtype=bool)
    is_core[core] = True
    eff = ctx.cap.arc_effective_bytes_per_s
    fixed_sum = np.zeros(n_arcs)           # busy seconds per byte that hashing leaves as they are
    core_sum = np.zeros((draws, len(core)))  # hashed busy seconds per byte on core arcs
    seq = np.zeros(draws)                  # phases one after the other: their times add
    flows = 0
    routed_any = False
    for ph in model.phases:
        arc_spb = np.asarray(ph.arc_seconds_per_byte, dtype=float)
        if not getattr(ph, "routed", False):
            fixed_sum += arc_spb
            seq += ph.seconds_per_byte
            continue
        src, dst, w = ph.flows
        cs, ct, b = core_subflows(fab, src, dst, w)
        flows += len(cs)
        routed_any = True
        H = hashed_core_loads(ctx.router, cs, ct, b, draws, rng)
        fluid_core = np.asarray(ph.arc_load_per_byte, dtype=float)[core]
        # Seconds per byte of load on each arc as the phase modelled it (capacity, tree efficiency).
        with np.errstate(divide="ignore", invalid="ignore"):
            per_load = np.where(fluid_core > 0, arc_spb[core] / np.where(fluid_core > 0, fluid_core, 1.0),
                                1.0 / eff[core])
        Hs = H * per_load
        fixed = arc_spb.copy()
        fixed[core] = 0.0
        fixed_sum += fixed
        core_sum += Hs
        seq += np.maximum(float(fixed.max()) if len(fixed) else 0.0, Hs.max(axis=1) if Hs.shape[1] else 0.0)
    rest = float(fixed_sum[~is_core].max()) if (~is_core).any() else 0.0
    total_core = fixed_sum[core][None, :] + core_sum
    busiest = np.maximum(rest, total_core.max(axis=1) if len(core) else np.zeros(draws))  # one per draw
    if model.concurrent and len(model.phases) > 1:
        spb = busiest
    else:
        spb = seq
    spb = np.maximum(spb, model.floor_seconds_per_byte)
    size = np.array([float(message_bytes)])
    fluid_t = float(model.times(size)[0][0])
    times = np.array([float(model.times(size, seconds_per_byte=float(x))[0][0]) for x in spb])
    scale = message_bytes / fluid_t if fluid_t > 0 else 0.0
    fluid_util = float(np.max(model.arc_seconds_per_byte())) * scale if n_arcs else 0.0
    return HashedResult(model.collective, model.algorithm, model.ranks, int(message_bytes), int(draws), int(seed),
                        flows, fluid_t, fluid_util, times, busiest * scale, routed_any)


def collision_note(h: HashedResult) -> str:
    """The "collisions" line: how much slower hashed ECMP makes the selected collective than the fluid split."""
    head = f"collisions: {h.algorithm} at {size(h.message_bytes)}"
    if not h.modelled:
        return (f"{head}: its network traffic is not routed flow by flow (in-switch reduction, or all-to-all "
                "in aggregate, whose many flows per link spread like the fluid split): hashing not modelled")
    if not h.flows:
        return f"{head}: no network flow crosses between switches (each stays under its own leaf): nothing to hash"
    if h.p99_slowdown < 1.005:
        return (f"{head}: hashed ECMP is as fast as the fluid split ({count(h.flows, 'network flow')} on the switches; "
                f"no draw of {h.draws} loads a link past the fluid bottleneck)")
    return (f"{head}: hashed ECMP makes it {h.mean_slowdown:.2f}x slower than the fluid split on average, "
            f"{h.p99_slowdown:.2f}x at p99 ({h.draws} draws): {count(h.flows, 'network flow')} pinned to one path "
            f"each load the busiest link to {h.mean_max_utilization:.0%} of what it carries in the fluid time "
            f"({h.p99_max_utilization:.0%} at p99); adaptive routing (InfiniBand, Spectrum-X) or more flows "
            "per connection (NCCL_IB_QPS_PER_CONNECTION) spread them")
