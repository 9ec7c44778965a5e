"""Bisection bandwidth with certified bounds (docs/analysis.md section 4).

Endpoints are the GPUs (or a chosen set). Every link is a link, NVLink and PCIe included: a
balanced split that cuts a server in two pays for the NVLink it cuts, per direction, exactly
like a network cable. Values are per direction, at line rate, in bytes/s.

**Lower bounds** (each is a proof; the larger is reported):

1. *Uniform routing.* Route demand d between every ordered pair of endpoints by ECMP; if the
   busiest arc runs at utilisation u, every balanced cut carries d * floor(N/2) * ceil(N/2) in
   each direction, so bisection >= (d/u) * floor(N/2) * ceil(N/2). Tight on tori and
   hypercubes.
2. *Hose routing.* If the ECMP routing carries *every* traffic matrix in which each endpoint
   sends and receives at most r without overloading any arc, then for any balanced split the
   matching "each endpoint of the small side sends r to a partner across" is routable, so
   bisection >= floor(N/2) * r. The worst-case load of arc e over such matrices is at most
   r * min(sum_i max_j f_e(i, j), sum_j max_i f_e(i, j)) for the routing fractions f; with
   endpoints behind the same attachment switch sharing fractions this costs (attachment
   switches)^2 x core arcs, so it is skipped (and said so) on very large fabrics. Tight on
   fat-trees and leaf-spine at any oversubscription, where the uniform bound is only half.

**Upper bound**: the capacity of explicit balanced splits of the endpoints (design order,
scalable units, rails, spectral Fiedler order, all splits when N <= 10), each refined by a
super-source/super-sink minimum cut that lets every non-endpoint device (switches, NICs,
NVLink switches) choose its side. The best cut is reported with its links.

``exact`` is True when the bounds meet (relative tolerance 1e-9).
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, maximum_flow
from scipy.sparse.linalg import lobpcg

from designer.analysis import constants as K
from designer.analysis.context import Context, members_of, require_context
from designer.analysis.load import uniform_loads

INT32_MAX = 2**31 - 1


@dataclass(frozen=True)
class Bisection:
    """Certified bisection bounds, per direction, bytes/s at line rate.

    With fewer than 2 GPUs there is no split, so no bisection: the bounds and certificates are
    None and ``exact`` is False.
    """

    lower_bytes_per_s: float | None
    upper_bytes_per_s: float | None
    exact: bool
    cut_links: tuple[str, ...]
    endpoints: int
    lower_method: str
    upper_method: str
    uniform_lower_bytes_per_s: float | None
    hose_lower_bytes_per_s: float | None
    notes: tuple[str, ...] = field(default=())


# --------------------------------------------------------------------------- lower bounds
def _hose_coefficients(ctx: Context, members: np.ndarray, budget: int, hose: dict, *, pairs: bool = True
                       ) -> tuple[np.ndarray, str]:
    """Per arc: an upper bound of the worst-case hose load for r = 1, and how the core part was bounded.

    NVLink and access arcs carry at most one GPU's share. Core arcs: the smaller of the row and
    column bounds (module docstring), from (a) the scalable bound (``eta``, ``omega`` from the
    uniform pass; ``Q`` from one forward pass per attachment core), and when affordable (b) the
    exact per-pair ECMP fractions; the smaller of the two is kept (both are upper bounds).
    """
    fab, router, cap = ctx.fabric, ctx.router, ctx.cap
    na = 2 * cap.n_links
    h = np.zeros(na)
    is_m = np.zeros(len(fab.gpus), dtype=bool)
    is_m[members] = True
    # NVLink: a GPU sends at most r into its hub and receives at most r from it (shared by its links).
    dom = fab.domain
    hubbed = is_m & (dom >= 0) & (fab.nvl_up >= 0) & (fab.nvl_down >= 0)
    fab.add_nvlink(h, np.flatnonzero(hubbed), 1.0)
    fab.add_nvlink(h, np.flatnonzero(hubbed), 1.0, down=True)
    # Access arcs: each attachment carries its share w of the GPU's traffic, if any of it leaves
    # the GPU's NVLink domain (a hose matrix inside one domain never touches the network).
    n_members = int(is_m.sum())
    dom_size = np.bincount(dom[hubbed], minlength=max(fab.n_domains, 1)) if hubbed.any() else np.zeros(1, int)
    local = np.where(hubbed, dom_size[np.maximum(dom, 0)], 1)
    leaves_domain = is_m & (local < n_members)
    att = leaves_domain[fab.att_gpu]
    for col in range(2):
        for arcs in (fab.att_up[att, col], fab.att_down[att, col]):
            ok = arcs >= 0
            np.add.at(h, arcs[ok], fab.att_w[att][ok])
    cores = hose.get("cores")
    if cores is None or len(cores) < 2 or not router.n_arcs:
        return h, "access links only"
    # Weights: the attachments' shares of GPUs whose hose traffic can leave their NVLink domain
    # (omega, computed with every member's weight, only over-counts: still an upper bound).
    rows = np.flatnonzero(att)
    W = np.zeros(len(cores))
    np.add.at(W, np.searchsorted(cores, fab.att_core[rows]), fab.att_w[rows])
    if not W.any():
        return h, "NVLink and access links only"
    # (a) scalable bound
    if hose.get("classes"):
        row, qmax = router.forward_bound_classes(cores, W, hose["eta"])
    else:
        row, qmax = router.forward_bound(cores, W, hose["eta"])
    col = hose["omega"] * qmax[router.msrc]
    core = np.minimum(row, col)[router.macro_of]
    how = "scalable ECMP share bound"
    # (b) exact per-pair fractions when affordable
    nac = router.n_arcs
    if pairs and len(cores) ** 2 * max(nac, 1) <= budget:
        rowmax = np.zeros((len(cores), nac))
        col_sum = np.zeros(nac)
        step = max(1, int(2_000_000 // max(nac * len(cores), 1)))
        for i in range(0, len(cores), step):
            tt = cores[i : i + step]
            s_idx = np.repeat(np.arange(len(cores)), len(tt))
            t_idx = np.tile(np.arange(i, i + len(tt)), len(cores))
            keep = s_idx != t_idx
            s_idx, t_idx = s_idx[keep], t_idx[keep]
            frac, _ = router.pair_fractions(cores[s_idx], cores[t_idx])
            F = frac.toarray()
            for t in range(i, i + len(tt)):
                rows = np.flatnonzero(t_idx == t)
                if len(rows):
                    col_sum += W[t] * F[rows].max(axis=0)
            for s_ in range(len(cores)):
                rows = np.flatnonzero(s_idx == s_)
                if len(rows):
                    np.maximum(rowmax[s_], F[rows].max(axis=0), out=rowmax[s_])
        exact = np.minimum(W @ rowmax, col_sum)
        if np.any(exact < core - 1e-12):
            how = "per-pair ECMP fractions"
        core = np.minimum(core, exact)
    h[fab.core_arc] += core
    return h, how


# --------------------------------------------------------------------------- upper bounds
class _Cutter:
    """Evaluates balanced splits of the endpoints, refined by min cut (scipy, integer capacities)."""

    def __init__(self, ctx: Context, members: np.ndarray) -> None:
        cap = ctx.cap
        self.cap = cap
        self.nodes = ctx.fabric.gpus[members]
        self.n = cap.n_nodes
        c = cap.line_bytes_per_s
        self.unit = 0.0
        self.rounded = False
        for q in (1, 10, 100, 1000):
            unit = K.BYTES_PER_S_PER_GBPS / q
            ci = np.rint(c / unit)
            if np.allclose(ci * unit, c, rtol=1e-12, atol=0) and ci.sum() * 2 + 1 < INT32_MAX:
                self.unit = unit
                self.ci = ci.astype(np.int64)
                break
        if not self.unit and len(c):
            # Not whole Mb/s (or too large a sum for int32): the max-flow runs on capacities rounded
            # up to whole units and only chooses the sides; the cut is valued at its true capacity.
            self.unit = float(c.max()) * 2 * (len(c) + 1) / (INT32_MAX // 2)
            self.ci = np.maximum(np.ceil(c / self.unit), 1).astype(np.int64)
            self.rounded = True
        if self.unit:
            big = int(self.ci.sum()) + 1
            self.big = big
            src = np.concatenate([cap.a, cap.b])
            dst = np.concatenate([cap.b, cap.a])
            w = np.concatenate([self.ci, self.ci])
            self.base = (src, dst, w)

    def value(self, side: np.ndarray) -> tuple[float, np.ndarray]:
        cut = side[self.cap.a] != side[self.cap.b]
        return float(self.cap.line_bytes_per_s[cut].sum()), np.flatnonzero(cut)

    def refine(self, a_nodes: np.ndarray, b_nodes: np.ndarray) -> tuple[float, np.ndarray]:
        """Best cut with ``a_nodes`` on side A and ``b_nodes`` on side B; others choose."""
        cands = []
        for default in (False, True):  # every free node with B, or with A
            side = np.full(self.n, default)
            side[a_nodes] = True
            side[b_nodes] = False
            cands.append(self.value(side))
        if self.unit:
            s_node, t_node = self.n, self.n + 1
            src, dst, w = self.base
            src = np.concatenate([src, np.full(len(a_nodes), s_node), b_nodes])
            dst = np.concatenate([dst, a_nodes, np.full(len(b_nodes), t_node)])
            w = np.concatenate([w, np.full(len(a_nodes) + len(b_nodes), self.big)])
            g = sp.csr_matrix((w.astype(np.int32), (src, dst)), shape=(self.n + 2, self.n + 2))
            res = maximum_flow(g, s_node, t_node)
            resid = (g - res.flow).tocsr()
            resid.data[resid.data <= 0] = 0
            resid.eliminate_zeros()
            reach = breadth_first_order(resid, s_node, directed=True, return_predecessors=False)
            side = np.zeros(self.n + 2, dtype=bool)
            side[reach] = True
            cands.append(self.value(side[: self.n]))
        return min(cands, key=lambda c: c[0])


def _spectral_order(ctx: Context, members: np.ndarray) -> np.ndarray | None:
    """Endpoints sorted by the Fiedler vector of the capacity-weighted Laplacian (a heuristic split)."""
    cap = ctx.cap
    n = cap.n_nodes
    if n < 3 or n > 30000 or not cap.n_links:
        return None
    w = cap.line_bytes_per_s / float(cap.line_bytes_per_s.max())
    A = sp.coo_matrix((np.concatenate([w, w]), (np.concatenate([cap.a, cap.b]), np.concatenate([cap.b, cap.a]))),
                      shape=(n, n)).tocsr()
    L = sp.diags(np.asarray(A.sum(axis=1)).ravel()) - A
    if n <= 300:
        _, vecs = np.linalg.eigh(L.toarray())
        f = vecs[:, 1]
    else:
        rng = np.random.default_rng(0)
        X = rng.standard_normal((n, 1))
        Y = np.ones((n, 1))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # an unconverged vector is still a valid split order
                _, vecs = lobpcg(L, X, Y=Y, largest=False, maxiter=40, tol=1e-3)
        except (np.linalg.LinAlgError, ValueError):
            return None
        f = vecs[:, 0]
    nodes = ctx.fabric.gpus[members]
    return members[np.argsort(f[nodes], kind="stable")]


def _kernighan_lin_order(ctx: Context, members: np.ndarray) -> np.ndarray | None:
    """Endpoints ordered side A first by networkx's Kernighan-Lin bisection (graphs up to 400 nodes)."""
    cap = ctx.cap
    if cap.n_nodes > 400 or cap.n_nodes < 2 or not cap.n_links:
        return None
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(range(cap.n_nodes))
    for a, b, c in zip(cap.a.tolist(), cap.b.tolist(), cap.line_bytes_per_s.tolist(), strict=True):
        w = g.get_edge_data(a, b, {"weight": 0.0})["weight"]
        g.add_edge(a, b, weight=w + c)
    side_a, _ = nx.algorithms.community.kernighan_lin_bisection(g, weight="weight", seed=0)
    nodes = ctx.fabric.gpus[members]
    in_a = np.array([v in side_a for v in nodes.tolist()])
    return members[np.argsort(~in_a, kind="stable")]


def bisection_bounds(ctx: Context, members=None, *, budget: int = K.PAIR_WORK_BUDGET) -> Bisection:
    """Certified lower and upper bounds of the bisection bandwidth over GPUs ``members``.

    Parameters
    ----------
    ctx : Context
        The design's analysis context (:func:`designer.analysis.context.build_context`).
    members : optional
        GPU positions, GPU or group ids, or None for every GPU.
    budget : int
        Work limit (pairs x arcs) of the exact per-pair hose computation.

    Returns
    -------
    Bisection
        Bounds per direction at line rate (bytes/s), ``exact``, the cut links and the methods.

    Examples
    --------
    Four hosts on one switch (100 Gb/s links): any 2|2 split cuts two host links.

    >>> from designer.model import Design, Device, Link, PortGroup
    >>> from designer.analysis.context import build_context
    >>> from designer.model.catalog import Catalog
    >>> d = Design()
    >>> d.extend(devices=[Device("s", "switch", (PortGroup("p", 4, 100.0),))]
    ...     + [Device(f"h{i}", "gpu", (PortGroup("p", 1, 100.0),)) for i in range(4)],
    ...     links=[Link(f"l{i}", f"h{i}", "p1", "s", f"p{i + 1}") for i in range(4)])
    >>> b = bisection_bounds(build_context(d, Catalog()))
    >>> b.lower_bytes_per_s / 1e9, b.upper_bytes_per_s / 1e9, b.exact, len(b.cut_links)
    (25.0, 25.0, True, 2)
    """
    ctx = require_context(ctx, "bisection_bounds")
    members = members_of(ctx, members)
    key = ("bisection", members.tobytes(), budget)
    if key not in ctx.memo:
        ctx.memo[key] = _bisection_bounds(ctx, members, budget)
    return ctx.memo[key]


def _bisection_bounds(ctx: Context, members: np.ndarray, budget: int) -> Bisection:
    fab = ctx.fabric
    N = len(members)
    notes: list[str] = []
    if N < 2:
        return Bisection(None, None, False, (), N, "fewer than 2 endpoints", "fewer than 2 endpoints", None, None,
                         ("bisection needs at least 2 GPUs",))
    half_lo, half_hi = N // 2, N - N // 2
    line = ctx.cap.arc_line_bytes_per_s
    # Lower bound 1: uniform.
    hose: dict = {}
    load, lost = uniform_loads(fab, ctx.router, members, 1.0, hose=hose)
    if lost > 0:
        notes.append("some GPUs have no route to each other: the bisection lower bound is 0")
        lb_uniform = 0.0
    else:
        u = float(np.max(load / line)) if len(line) else 0.0
        lb_uniform = half_lo * half_hi / u if u > 0 else 0.0
    # Lower bound 2: hose, first with the scalable share bound only.
    lb_hose: float | None = None
    hose_how = ""

    def hose_bound(pairs: bool) -> tuple[float, str]:
        h, how = _hose_coefficients(ctx, members, budget, hose, pairs=pairs)
        pos = h > 1e-15
        r = float(np.min(line[pos] / h[pos])) if pos.any() else 0.0
        return half_lo * r, how

    if lost == 0:
        lb_hose, hose_how = hose_bound(False)

    def met(lower: float, upper: float) -> bool:
        return upper <= 0 or (upper - lower) <= K.EXACT_RTOL * upper

    # Upper bound: candidate splits, cheap structural ones first.
    cutter = _Cutter(ctx, members)
    orders: list[tuple[str, np.ndarray]] = [("design order", members)]
    su, rail, dom = ctx.su[members], ctx.rail[members], fab.domain[members]
    if (su >= 0).any():
        orders.append(("scalable units", members[np.lexsort((rail, dom, su))]))
    if (rail >= 0).any():
        orders.append(("rails", members[np.lexsort((dom, rail))]))
    orders.append(("NVLink domains", members[np.lexsort((members, dom))]))
    best = (np.inf, np.zeros(0, dtype=np.int64), "")
    nodes_of = fab.gpus

    def try_order(name: str, order: np.ndarray) -> None:
        nonlocal best
        val, cut = cutter.refine(nodes_of[order[:half_lo]], nodes_of[order[half_lo:]])
        if val < best[0]:
            best = (val, cut, name)

    for name, order in orders:
        try_order(name, order)
    if not met(max(lb_uniform, lb_hose or 0.0), best[0]):
        spec = _spectral_order(ctx, members)
        if spec is not None:
            try_order("spectral (Fiedler) order", spec)
        kl = _kernighan_lin_order(ctx, members)
        if kl is not None:
            try_order("Kernighan-Lin partition", kl)
        if N <= 10:
            # Side A holds floor(N/2) GPUs. With N even, fixing the first GPU on side A counts every
            # split once; with N odd the first GPU may be on either side, so every subset is tried.
            if N % 2:
                combos = itertools.combinations(members, half_lo)
            else:
                combos = ((members[0], *c) for c in itertools.combinations(members[1:], half_lo - 1))
            for combo in combos:
                a_set = np.array(combo)
                b_set = np.setdiff1d(members, a_set)
                val, cut = cutter.refine(nodes_of[a_set], nodes_of[b_set])
                if val < best[0]:
                    best = (val, cut, "exhaustive search over splits")
    if lost == 0 and not met(max(lb_uniform, lb_hose or 0.0), best[0]):
        lb2, how2 = hose_bound(True)
        if lb2 > (lb_hose or 0.0):
            lb_hose, hose_how = lb2, how2
    lower = max(lb_uniform, lb_hose or 0.0)
    lower_method = (f"hose routing ({hose_how})" if (lb_hose or 0.0) > lb_uniform
                    else "uniform all-to-all routing")
    upper, cut, upper_method = best
    refined = ", min-cut refined" + (" (on rounded capacities)" if cutter.rounded else "") if cutter.unit else ""
    upper_method = f"best split: {upper_method}{refined}"
    if upper < lower <= upper * (1 + K.EXACT_RTOL):
        lower = upper  # floating-point rounding of equal values
    exact = met(lower, upper)
    return Bisection(
        lower_bytes_per_s=float(lower),
        upper_bytes_per_s=float(upper),
        exact=bool(exact),
        cut_links=tuple(ctx.cap.link_ids[i] for i in cut),
        endpoints=N,
        lower_method=lower_method,
        upper_method=upper_method,
        uniform_lower_bytes_per_s=float(lb_uniform),
        hose_lower_bytes_per_s=None if lb_hose is None else float(lb_hose),
        notes=tuple(notes),
    )
