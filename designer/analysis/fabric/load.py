"""Link load, utilisation, max-min fair flow rates and ranked bottlenecks.

A traffic pattern is either explicit flows (``src``, ``dst`` GPU positions and bytes; the
collectives' flows or a user traffic matrix) or *uniform all-to-all* among a set of GPUs, which
is routed in aggregate (demand per pair of attachment points) so that it never enumerates the
N^2 GPU pairs.

Utilisation of an arc = load / capacity for a pattern that lasts one second (load in bytes/s).
The max-min fair rate of every flow comes from progressive filling: all unfrozen flows grow at
the same rate until an arc saturates; the flows crossing it freeze there (that arc is their
bottleneck); repeat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from designer.analysis.common import constants as K
from designer.analysis.fabric.routing import (
    CoreRouter,
    Fabric,
    attachment_pairs,
    pxn_proxies,
    route_flows,
    unique_pairs,
)

if TYPE_CHECKING:
    from designer.analysis.fabric.context import Context


# --------------------------------------------------------------------------- aggregate uniform traffic
def uniform_loads(fabric: Fabric, router: CoreRouter, members: np.ndarray, per_pair_bytes: float = 1.0,
                  *, hose: dict | None = None) -> tuple[np.ndarray, float]:
    """Arc loads when every ordered pair of ``members`` (GPU positions) exchanges ``per_pair_bytes``.

    Returns (arc_load over capacity-graph arcs, bytes that found no route). With a ``hose`` dict,
    fills it with the attachment cores, their weights and the per-arc ECMP shares the hose bound
    of :mod:`designer.analysis.bisection.bounds` needs (computed in the same pass).

    Examples
    --------
    Three hosts on one switch: each host link carries 2 pairs' worth in each direction.

    >>> from designer.model import Design, Device, Link, PortGroup
    >>> from designer.analysis.fabric.capacity import build_capacity_graph
    >>> from designer.analysis.fabric.routing import build_fabric
    >>> d = Design()
    >>> d.extend(devices=[Device("s", "switch", (PortGroup("p", 3, 100.0),))]
    ...     + [Device(f"h{i}", "gpu", (PortGroup("p", 1, 100.0),)) for i in range(3)],
    ...     links=[Link(f"l{i}", f"h{i}", "p1", "s", f"p{i + 1}") for i in range(3)])
    >>> from designer.model.catalog import Catalog
    >>> fab = build_fabric(build_capacity_graph(d, Catalog()))
    >>> load, lost = uniform_loads(fab, CoreRouter(fab), np.arange(3))
    >>> load.tolist(), lost
    ([2.0, 2.0, 2.0, 2.0, 2.0, 2.0], 0.0)
    """
    cap = fabric.cap
    load = np.zeros(2 * cap.n_links)
    members = np.unique(np.asarray(members, dtype=np.int64))
    n = len(members)
    if n < 2:
        return load, 0.0
    x = float(per_pair_bytes)
    is_m = np.zeros(len(fabric.gpus), dtype=bool)
    is_m[members] = True
    dom = fabric.domain
    hub_only = fabric.hubbed() & is_m
    dom_count = np.bincount(dom[hub_only], minlength=max(fabric.n_domains, 1)) if hub_only.any() else np.zeros(1, int)
    peers_nvl = np.zeros(len(fabric.gpus))
    peers_nvl[hub_only] = dom_count[dom[hub_only]] - 1
    fabric.add_nvlink(load, np.flatnonzero(hub_only), peers_nvl[hub_only] * x)
    fabric.add_nvlink(load, np.flatnonzero(hub_only), peers_nvl[hub_only] * x, down=True)
    if fabric.direct is not None and fabric.direct.any:
        # Direct GPU-to-GPU domains: every pair over its own links.
        peers_nvl += fabric.direct.add_all_pairs(load, members, x)
    # From here on, "hubbed" is every GPU whose domain peers are reached over NVLink.
    hubbed = fabric.nvlink_member() & is_m
    # Network side: everything that is not NVLink-local.
    net_peers = np.where(is_m, (n - 1) - peers_nvl, 0.0)
    att_m = is_m[fabric.att_gpu]
    ag = fabric.att_gpu[att_m]
    aw = fabric.att_w[att_m]
    has_att = np.zeros(len(fabric.gpus), dtype=bool)
    has_att[ag] = True
    # Ordered pairs that need the network, and those of them with an attachment at both ends.
    n_att_members = int((is_m & has_att).sum())
    reachable_peers = np.full(len(fabric.gpus), float(n_att_members - 1))
    if hubbed.any():
        dom_att = np.bincount(dom[hubbed & has_att], minlength=max(fabric.n_domains, 1))
        reachable_peers[hubbed] = n_att_members - dom_att[dom[hubbed]]
    reachable_peers[~(is_m & has_att)] = 0.0
    lost = float(net_peers.sum() - reachable_peers.sum()) * x
    if not n_att_members:
        return load, lost
    for col in range(2):
        for arcs in (fabric.att_up[att_m, col], fabric.att_down[att_m, col]):
            ok = arcs >= 0
            np.add.at(load, arcs[ok], (aw * reachable_peers[ag] * x)[ok])
    # Core demand between attachment points, minus same-domain pairs (they use NVLink).
    cores, inv = np.unique(fabric.att_core[att_m], return_inverse=True)
    wv = np.bincount(inv, weights=aw, minlength=len(cores))
    if len(cores) > K.CLASS_ROUTING_MIN:
        # Large fabric: one push per class of twin switches. Pairs of GPUs of one server that sit
        # behind different switches are then also counted on the core (a conservative over-count of
        # at most (g-1)/(p-1) of the traffic; bounds built on it stay valid).
        core_load, lost_core, eta, omega = router.uniform_classes(cores, wv)
        if hose is not None:
            hose.update(cores=cores, weight=wv, eta=eta, omega=omega, classes=True)
        load[fabric.core_arc] += core_load * x
        return load, lost + lost_core * x
    demand_small = np.outer(wv, wv)
    hub_att = hubbed[ag]
    if hub_att.any():
        A = sp.csr_matrix((aw[hub_att], (dom[ag[hub_att]], inv[hub_att])), shape=(fabric.n_domains, len(cores)))
        demand_small -= (A.T @ A).toarray()
    np.fill_diagonal(demand_small, 0.0)
    demand_small = np.maximum(demand_small, 0.0) * x
    demand = np.zeros((len(cores), router.n))
    demand[:, cores] = demand_small.T  # row = destination, column = source node
    if hose is None:
        core_load, lost_core = router.route(cores, demand)
    else:
        core_load, lost_core, eta, omega = router.route(cores, demand, dest_weight=wv)
        hose.update(cores=cores, weight=wv, eta=eta, omega=omega)
    load[fabric.core_arc] += core_load
    return load, lost + lost_core


# --------------------------------------------------------------------------- flow incidence
def flow_matrix(fabric: Fabric, router: CoreRouter, src: np.ndarray, dst: np.ndarray,
                budget: int = K.FAIR_WORK_BUDGET, max_nnz: int = K.FAIR_MAX_NNZ) -> sp.csr_matrix | None:
    """Sparse (flows x arcs) matrix of the fraction of each flow on each arc; None if too costly.

    Flows sharing the same pair of attachment points share their core fractions, so the work is
    (distinct attachment pairs) x (core arcs), checked against ``budget``; the matrix itself
    must stay under ``max_nnz`` entries.
    """
    cap = fabric.cap
    na = 2 * cap.n_links
    nf = len(src)
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    same = (src != dst) & fabric.nvlink_local(src, dst)
    hub = fabric.hubbed()
    fs = np.flatnonzero(same & hub[src])
    for gpus, down in ((src[fs], False), (dst[fs], True)):
        row, arcs, share = fabric.nvlink_rows(gpus, down=down)
        rows.append(fs[row])
        cols.append(arcs)
        vals.append(share)
    fd = np.flatnonzero(same & ~hub[src])
    if len(fd) and fabric.direct is not None:
        f, arcs, share = fabric.direct.entries(src[fd], dst[fd])
        rows.append(fd[f])
        cols.append(arcs)
        vals.append(share)
    fn = np.flatnonzero(~same & (src != dst))
    ptr = np.searchsorted(fabric.att_gpu, np.arange(len(fabric.gpus) + 1))
    s, t = src[fn], dst[fn]
    cs, cd = ptr[s + 1] - ptr[s], ptr[t + 1] - ptr[t]
    ok = (cs > 0) & (cd > 0)
    fn, s, t, cs, cd = fn[ok], s[ok], t[ok], cs[ok], cd[ok]
    fi, ia, ib = attachment_pairs(ptr, s, t, cs, cd)
    w = fabric.att_w[ia] * fabric.att_w[ib]
    frow = fn[fi]
    for col in range(2):
        for arcs in (fabric.att_up[ia, col], fabric.att_down[ib, col]):
            okk = arcs >= 0
            rows.append(frow[okk])
            cols.append(arcs[okk])
            vals.append(w[okk])
    cs_node, ct_node = fabric.att_core[ia], fabric.att_core[ib]
    net = cs_node != ct_node
    if net.any():
        pairs, pinv = unique_pairs(cs_node[net], ct_node[net])
        if len(pairs) * max(len(router.src), 1) > budget:
            return None
        frac, _ = router.pair_fractions(pairs[:, 0], pairs[:, 1])
        per_pair = np.diff(frac.indptr)
        if int(per_pair[pinv].sum()) > max_nnz:
            return None
        sel = sp.csr_matrix((w[net], (frow[net], pinv)), shape=(nf, len(pairs)))
        core = (sel @ frac).tocoo()
        rows.append(core.row)
        cols.append(fabric.core_arc[core.col])
        vals.append(core.data)
    r = np.concatenate(rows) if rows else np.zeros(0, int)
    c = np.concatenate(cols) if cols else np.zeros(0, int)
    v = np.concatenate(vals) if vals else np.zeros(0)
    return sp.csr_matrix((v, (r, c)), shape=(nf, na))


@dataclass(frozen=True, eq=False)
class FairShare:
    """Max-min fair rates (bytes/s) and the arc each flow is frozen at (-1: no constraint)."""

    rate_bytes_per_s: np.ndarray
    bottleneck_arc: np.ndarray
    rounds: int


def _row_argmax(sub: sp.spmatrix) -> np.ndarray:
    """Column of each row's largest stored value (the lowest column among equals), for rows that
    store at least one positive value: ``sub.argmax(axis=1)`` without scipy's per-row loop.

    >>> _row_argmax(sp.csr_matrix(np.array([[0.5, 2.0, 2.0], [3.0, 0.0, 1.0]]))).tolist()
    [1, 0]
    """
    sub = sp.csr_matrix(sub)
    sub.sort_indices()
    rows = np.repeat(np.arange(sub.shape[0]), np.diff(sub.indptr))
    order = np.lexsort((sub.indices, -sub.data, rows))
    return sub.indices[order[sub.indptr[:-1]]]


def max_min_fair(M: sp.csr_matrix, capacity: np.ndarray, *, max_rounds: int = 200) -> FairShare:
    """Progressive filling on the (flows x arcs) fraction matrix ``M`` with arc ``capacity``.

    Examples
    --------
    Two flows share arc 0 (capacity 10); flow 1 also crosses arc 1 (capacity 2):

    >>> M = sp.csr_matrix(np.array([[1.0, 0.0], [1.0, 1.0]]))
    >>> fs = max_min_fair(M, np.array([10.0, 2.0]))
    >>> fs.rate_bytes_per_s.tolist(), fs.bottleneck_arc.tolist()
    ([8.0, 2.0], [0, 1])
    """
    nf, na = M.shape
    rate = np.zeros(nf)
    bott = np.full(nf, -1, dtype=np.int64)
    frozen = np.asarray(M.sum(axis=1)).ravel() <= 0
    used = np.zeros(na)
    MT = M.T.tocsr()
    rounds = 0
    while not frozen.all() and rounds < max_rounds:
        rounds += 1
        active = (~frozen).astype(float)
        coef = MT @ active
        resid = capacity - used
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(coef > 1e-15, resid / coef, np.inf)
        delta = float(np.min(step)) if na else np.inf
        if not np.isfinite(delta):
            break
        delta = max(delta, 0.0)
        rate[~frozen] += delta
        used += coef * delta
        sat = np.flatnonzero((coef > 1e-15) & (step <= delta * (1 + 1e-9) + 1e-300))
        hit = np.zeros(na)
        hit[sat] = 1.0
        touch = (M @ hit) > 0
        newly = touch & ~frozen
        if newly.any():
            # Bottleneck arc of a newly frozen flow: the saturated arc it uses most.
            bott[newly] = sat[_row_argmax(M[np.flatnonzero(newly)][:, sat])]
        frozen |= touch
    return FairShare(rate, bott, rounds)


# --------------------------------------------------------------------------- flows -> loads
def flow_loads(fabric: Fabric, router: CoreRouter, src, dst, nbytes) -> np.ndarray:
    """Per-arc load of explicit flows (a user traffic matrix or a collective's flows)."""
    return route_flows(fabric, router, np.asarray(src), np.asarray(dst), np.asarray(nbytes, dtype=float)).arc_load


def link_utilisation(fabric: Fabric, arc_load: np.ndarray, *, effective: bool = True) -> np.ndarray:
    """Utilisation per link: the larger of its two directions' load / capacity."""
    cap = fabric.cap
    c = cap.arc_effective_bytes_per_s if effective else cap.arc_line_bytes_per_s
    u = arc_load / c
    m = cap.n_links
    return np.maximum(u[:m], u[m:]) if m else u


def ranked_links(util: np.ndarray, top: int = 10) -> np.ndarray:
    """Indices of the ``top`` most utilised links (ties broken by link order)."""
    if not len(util):
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort((np.arange(len(util)), -util))
    order = order[util[order] > 0]
    return order[:top]


# --------------------------------------------------------------------------- user traffic
@dataclass(frozen=True)
class TrafficResult:
    """A user traffic matrix routed on the fabric (rates in bytes/s, per direction).

    ``utilization`` per link (busier direction, offered load / effective capacity);
    ``fair_rate_bytes_per_s`` per flow (max-min fair, None when too large to compute);
    ``bottlenecks``: (link id, utilization, flow indices whose fair rate that link sets).
    """

    utilization: np.ndarray
    fair_rate_bytes_per_s: np.ndarray | None
    bottlenecks: tuple[tuple[str, float, tuple[int, ...]], ...]
    unrouted_flows: int


def traffic_loads(ctx: Context, flows, *, top: int = 10, pxn: bool = False) -> TrafficResult:
    """Route ``flows`` = iterable of (src GPU id, dst GPU id, bytes/s) and rank the bottlenecks.

    ``pxn``: cross-rail flows hop over NVLink to the GPU on the destination's rail first (NCCL
    PXN); the fair rates are then those of the network part.

    Examples
    --------
    >>> from designer.generators import GENERATORS
    >>> from designer.analysis.fabric.context import build_context
    >>> ctx = build_context(GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8, oversubscription=2.0))
    >>> res = traffic_loads(ctx, [(f"node1-gpu{i}", f"node2-gpu{i}", 50e9) for i in range(1, 9)])
    >>> res.bottlenecks[0][0].startswith("leaf1"), round(res.bottlenecks[0][1], 2)
    (True, 2.08)
    >>> sorted({round(float(r) / 1e9, 1) for r in res.fair_rate_bytes_per_s})
    [24.0]
    """
    pos = {g: i for i, g in enumerate(ctx.gpu_ids)}
    src, dst, rate = [], [], []
    for s, d, r in flows:
        for x in (s, d):
            if x not in pos:
                from designer.analysis.common.errors import AnalysisError

                raise AnalysisError(f"traffic matrix: {x!r} is not a GPU of the design")
        src.append(pos[s])
        dst.append(pos[d])
        rate.append(float(r))
    src_a, dst_a, rate_a = np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), np.array(rate)
    routed = route_flows(ctx.fabric, ctx.router, src_a, dst_a, rate_a, pxn=pxn)
    util = link_utilisation(ctx.fabric, routed.arc_load)
    net_src = pxn_proxies(ctx.fabric, src_a, dst_a) if (pxn and len(src_a)) else src_a
    M = flow_matrix(ctx.fabric, ctx.router, net_src, dst_a) if len(src_a) else None
    fair = max_min_fair(M, ctx.cap.arc_effective_bytes_per_s) if M is not None else None
    out = []
    m = ctx.cap.n_links
    for i in ranked_links(util, top):
        slowed: tuple[int, ...] = ()
        if fair is not None:
            hit = (fair.bottleneck_arc == i) | (fair.bottleneck_arc == i + m)
            slowed = tuple(int(k) for k in np.flatnonzero(hit))
        out.append((ctx.cap.link_ids[i], float(util[i]), slowed))
    rates = None
    if fair is not None:
        rates = np.minimum(fair.rate_bytes_per_s, rate_a)
    return TrafficResult(util, rates, tuple(out), routed.unrouted_flows)
