"""Bisection bandwidth with certified bounds (docs/analysis.md section 4).

Endpoints are the GPUs (or a chosen set). Every link is a link, NVLink and PCIe included: a
balanced split that cuts a server in two pays for the NVLink it cuts, per direction, exactly
like a network cable. Values are per direction, at line rate, in bytes/s.

**Lower bounds** (each is a proof; the larger is reported):

1. *Uniform routing.* Route demand d between every ordered pair of endpoints by ECMP; if the
   busiest arc runs at utilisation u, every balanced cut carries d * floor(N/2) * ceil(N/2) in
   each direction, so bisection >= (d/u) * floor(N/2) * ceil(N/2). Tight on hypercubes and on
   tori whose sides are all even; loose on meshes and on odd tori.
2. *Hose routing.* If the ECMP routing carries *every* traffic matrix in which each endpoint
   sends and receives at most r without overloading any arc, then for any balanced split the
   matching "each endpoint of the small side sends r to a partner across" is routable, so
   bisection >= floor(N/2) * r. The worst-case load of arc e over such matrices is at most
   r * min(sum_i max_j f_e(i, j), sum_j max_i f_e(i, j)) for the routing fractions f; with
   endpoints behind the same attachment switch sharing fractions this costs (attachment
   switches)^2 x core arcs, so it is skipped (and said so) on very large fabrics. Tight on
   fat-trees and leaf-spine at any oversubscription, where the uniform bound is only half.

3. *Split servers.* When the GPUs cannot be halved along whole servers (NVLink domains), every
   balanced split leaves at least ``dist`` GPUs on the other side from their server's NVLink
   switch, where ``dist`` is how far floor(N/2) is from the GPU counts whole servers (and
   server-less GPUs) can make up; each such GPU's NVLink links cross the cut. Those links are
   not network links, so the hose argument restricted to pairs in different servers (a matching
   of the small side into the other that avoids same-server pairs exists when no server holds
   more than half the GPUs) still needs floor(N/2) x r_net on the network links crossing:
   bisection >= floor(N/2) x r_net + dist x (the smallest per-GPU NVLink rate).

4. *Dimension-order routing on a grid.* When the GPUs carry ``coords`` forming a full k1 x ... x
   kn grid (torus or mesh, direct links between neighbours, wrap-around where every line has
   it), uniform demand routed one dimension after the other, the shorter way round (antipodal
   pairs half each way), loads a dimension-i link with at most c_i x N / k_i per unit of demand:
   c = floor(k/2) ceil(k/2) on a line (mesh), k^2 / 8 on an even ring, (k^2 - 1) / 8 on an odd
   one. With b the slowest of those links, bisection >= floor(N/2) ceil(N/2) b / max_i(c_i N /
   k_i): k^(n-1) b on an even mesh and 2 k^(n-1) b on an even torus (the closed forms of Dally
   and Towles, section 3.3), where ECMP's certificate falls short on meshes.

5. *Whole links.* When every link runs at one rate b, every cut is a whole number of links, so
   the lower bound rounds up to a multiple of b.

When the bounds still differ, a note names the reason and the side likely to be the value.

**Upper bound**: the capacity of explicit balanced splits of the endpoints (design order,
scalable units, rails, spectral Fiedler order, all splits when N <= 10), each refined by a
super-source/super-sink minimum cut that lets every non-endpoint device (switches, NICs,
NVLink switches) choose its side. The best cut is reported with its links.

``exact`` is True when the bounds meet (relative tolerance 1e-9).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from designer.analysis.bisection.cuts import Cutter, kernighan_lin_order, spectral_order
from designer.analysis.common import constants as K
from designer.analysis.fabric.capacity import P_NVLINK
from designer.analysis.fabric.context import Context, members_of, require_context
from designer.analysis.fabric.load import uniform_loads


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
def _gap_note(ctx: Context, dims: tuple[int, ...], wrap: tuple[bool, ...], split_servers: bool) -> str:
    """Why the certified bounds do not meet, and which side is likely the value."""
    head = "the bisection bounds do not meet: "
    odd = [k for k, w in zip(dims, wrap, strict=True) if w and k % 2]
    if odd:
        return (head + f"the {' x '.join(map(str, dims))} torus has an odd side ({odd[0]}), so no straight cut halves "
                "it and every routing certificate is loose; the best cut found (the upper bound) is likely the value")
    if dims:
        return (head + f"the {' x '.join(map(str, dims))} grid's routing certificate is loose here; the best cut "
                "found (the upper bound) is likely the value")
    if any(d.tier == "router" for d in ctx.design.devices):
        return (head + "on a dragonfly the lower bound routes uniform traffic over minimal paths, which crowd the "
                "few global links between groups; the best cut found, along group boundaries (the upper bound), is "
                "likely the value")
    if split_servers:
        return (head + "a balanced split must divide a server's GPUs, cutting NVLink as well as network links; the "
                "lower bound counts the NVLink such a split must cut and the network traffic between servers, the "
                "upper bound is the best such split found and is likely the value")
    return (head + "the lower bound is a routing certificate, the upper the best split found; the true value lies "
            "between (finding it is NP-hard in general); on a fabric whose upper tier is oversubscribed the "
            "upper bound is likely the value")


def _grid_lower(ctx: Context, members: np.ndarray) -> tuple[float, tuple[int, ...], tuple[bool, ...]]:
    """Lower bound 4 (module docstring): (bytes/s per direction, the grid's sides, which wrap).

    (0.0, (), ()) when the GPUs taking part are not a full grid of ``coords`` joined by working
    direct links between neighbours.

    >>> from designer.generators import GENERATORS
    >>> from designer.analysis.fabric.context import build_context
    >>> ctx = build_context(GENERATORS["torus"].build(dims=(4, 4), wrap=False))
    >>> lb, dims, wrap = _grid_lower(ctx, np.arange(ctx.n_gpus))
    >>> round(lb / 50e9, 6), dims, wrap            # 4 links of 400 Gb/s across the middle
    (4.0, (4, 4), (False, False))
    """
    cap, fab = ctx.cap, ctx.fabric
    devices = ctx.design.devices
    coords = []
    for node in fab.gpus[members]:
        c = devices[int(node)].properties.get("coords")
        if not isinstance(c, list) or not c or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0
                                                       for x in c):
            return 0.0, (), ()
        coords.append(c)
    n = len(coords[0])
    if any(len(c) != n for c in coords):
        return 0.0, (), ()
    xy = np.array(coords, dtype=np.int64)
    dims = tuple(int(v) + 1 for v in xy.max(axis=0))
    N = len(members)
    if int(np.prod(dims)) != N:
        return 0.0, (), ()
    strides = np.cumprod((1,) + dims[:-1])
    key = xy @ strides
    if len(np.unique(key)) != N:
        return 0.0, (), ()
    node_at = np.empty(N, dtype=np.int64)
    node_at[key] = fab.gpus[members]
    # Working direct links between GPUs, per unordered pair: their summed line rate.
    rate: dict[tuple[int, int], float] = {}
    is_gpu = np.zeros(cap.n_nodes, dtype=bool)
    is_gpu[fab.gpus] = True
    for k in np.flatnonzero(is_gpu[cap.a] & is_gpu[cap.b]):
        a, b = int(cap.a[k]), int(cap.b[k])
        pair = (min(a, b), max(a, b))
        rate[pair] = rate.get(pair, 0.0) + float(cap.line_bytes_per_s[k])

    def link_rates(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        a, b = node_at[x @ strides], node_at[y @ strides]
        return np.array([rate.get((min(p, q), max(p, q)), 0.0) for p, q in zip(a.tolist(), b.tolist(), strict=True)])

    slowest = np.inf
    wrap = []
    worst = 0.0
    for i, k in enumerate(dims):
        if k == 1:
            wrap.append(False)
            continue
        lo = xy[xy[:, i] < k - 1]
        hi = lo.copy()
        hi[:, i] += 1
        r = link_rates(lo, hi)
        if not len(r) or r.min() <= 0:
            return 0.0, (), ()
        slowest = min(slowest, float(r.min()))
        wraps = False
        if k >= 3:
            ends = xy[xy[:, i] == k - 1]
            starts = ends.copy()
            starts[:, i] = 0
            rw = link_rates(ends, starts)
            if (rw > 0).all():
                wraps = True
                slowest = min(slowest, float(rw.min()))
        wrap.append(wraps)
        c = (k * k / 8 if k % 2 == 0 else (k * k - 1) / 8) if wraps else (k // 2) * (k - k // 2)
        worst = max(worst, c * N / k)
    if worst <= 0 or not np.isfinite(slowest):
        return 0.0, (), ()
    return (N // 2) * (N - N // 2) * slowest / worst, dims, tuple(wrap)


def _split_server_nvlink(ctx: Context, members: np.ndarray) -> tuple[float, bool]:
    """(NVLink every balanced split must cut, bytes/s per direction; whether no server holds more
    than half the GPUs, so the small side matches into the other across servers).

    Servers are NVLink domains with a switch; a GPU on the other side from its server's switch
    cuts all its NVLink links. Rounding each server of a split to whole (all its GPUs to the side
    holding most) changes the side's GPU count by at most the GPUs left on the wrong side, so at
    least ``dist`` = the distance from floor(N/2) to the counts whole servers and server-less GPUs
    can make up are on the wrong side, each cutting at least the smallest per-GPU NVLink rate.

    >>> from designer.generators import GENERATORS
    >>> from designer.analysis.fabric.context import build_context
    >>> ctx = build_context(GENERATORS["leaf-spine"].build(leaves=3, hosts_per_leaf=8))
    >>> nv, ok = _split_server_nvlink(ctx, np.arange(ctx.n_gpus))  # 24 GPUs, 3 servers: 4 on the wrong side
    >>> round(nv / 450e9, 6), ok
    (4.0, True)
    """
    fab, cap = ctx.fabric, ctx.cap
    N = len(members)
    dom = fab.domain[members]
    k = fab.nvl_ptr[members + 1] - fab.nvl_ptr[members]
    in_server = (dom >= 0) & (k > 0)
    in_server[in_server] = fab.domain_hub[dom[in_server]] >= 0
    if not in_server.any():
        return 0.0, True
    row, arcs, _ = fab.nvlink_rows(members[in_server])
    per_gpu = np.bincount(row, weights=cap.arc_line_bytes_per_s[arcs], minlength=int(in_server.sum()))
    _, sizes = np.unique(dom[in_server], return_counts=True)
    free = int(N - in_server.sum())  # GPUs outside any server: any count of them fits
    half = N // 2
    halls = int(sizes.max()) <= N - half
    # Subset sums of whole servers (bounded knapsack by binary splitting, as bits of one integer).
    bits = 1
    values, counts = np.unique(sizes, return_counts=True)
    for v, n in zip(values.tolist(), counts.tolist(), strict=True):
        chunk = 1
        while n > 0:
            take = min(chunk, n)
            bits |= bits << (take * v)
            n -= take
            chunk *= 2
    sums = np.flatnonzero(np.frombuffer(bin(bits)[2:][::-1].encode(), dtype=np.uint8) == ord("1"))
    gap = np.where(sums > half, sums - half, np.maximum(half - (sums + free), 0))
    dist = int(gap.min())
    return dist * float(per_gpu.min()), halls


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
    hub_only = is_m & fab.hubbed()
    fab.add_nvlink(h, np.flatnonzero(hub_only), 1.0)
    fab.add_nvlink(h, np.flatnonzero(hub_only), 1.0, down=True)
    if fab.direct is not None:
        fab.direct.hose_coefficients(h)  # direct GPU-to-GPU links, which may carry transit
    hubbed = is_m & fab.nvlink_member()
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


def bisection_bounds(ctx: Context, members=None, *, budget: int = K.PAIR_WORK_BUDGET) -> Bisection:
    """Certified lower and upper bounds of the bisection bandwidth over GPUs ``members``.

    Parameters
    ----------
    ctx : Context
        The design's analysis context (:func:`designer.analysis.fabric.context.build_context`).
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
    >>> from designer.analysis.fabric.context import build_context
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


class _LowerBounds:
    """The certified lower bounds of one bisection: uniform all-to-all routing, hose routing (the
    share bound, then with pairs when the bounds do not yet meet), the grid's dimension-order
    routing, and split servers (the NVLink a balanced split must cut)."""

    def __init__(self, ctx: Context, members: np.ndarray, budget: int, notes: list[str]) -> None:
        self.ctx, self.members, self.budget = ctx, members, budget
        n = len(members)
        self.half_lo, self.half_hi = n // 2, n - n // 2
        self.line = ctx.cap.arc_line_bytes_per_s
        self.hose: dict = {}
        load, self.lost = uniform_loads(ctx.fabric, ctx.router, members, 1.0, hose=self.hose)
        if self.lost > 0:
            notes.append("some GPUs have no route to each other: the bisection lower bound is 0")
            self.uniform = 0.0
        else:
            u = float(np.max(load / self.line)) if len(self.line) else 0.0
            self.uniform = self.half_lo * self.half_hi / u if u > 0 else 0.0
        self.nvl_arc = np.concatenate([ctx.cap.protocol, ctx.cap.protocol]) == P_NVLINK
        self.split_nvlink, self.halls = _split_server_nvlink(ctx, members)
        self.r_net = 0.0  # the hose rate between servers, for the split-server bound
        self.hose_lower: float | None = None
        self.hose_how = ""
        if self.lost == 0:
            self.hose_lower, self.hose_how = self._hose_bound(False)
        self.grid, self.grid_dims, self.grid_wrap = _grid_lower(ctx, members)

    def _hose_bound(self, pairs: bool) -> tuple[float, str]:
        h, how = _hose_coefficients(self.ctx, self.members, self.budget, self.hose, pairs=pairs)
        line = self.line
        pos = h > 1e-15
        r = float(np.min(line[pos] / h[pos])) if pos.any() else 0.0
        net = pos & ~self.nvl_arc
        if net.any() and self.halls:
            self.r_net = max(self.r_net, float(np.min(line[net] / h[net])))
        return self.half_lo * r, how

    def try_pairs(self) -> None:
        """Hose routing with pairs (costlier): kept when it beats the share bound."""
        if self.lost == 0:
            lb2, how2 = self._hose_bound(True)
            if lb2 > (self.hose_lower or 0.0):
                self.hose_lower, self.hose_how = lb2, how2

    @property
    def split(self) -> float:
        return self.half_lo * self.r_net + self.split_nvlink if self.split_nvlink > 0 else 0.0

    @property
    def best(self) -> float:
        return max(self.uniform, self.hose_lower or 0.0, self.split, self.grid)

    def method(self) -> str:
        """The certificate of the best lower bound (a new one is named only when it beats the usual ones)."""
        above = 1 + K.EXACT_RTOL
        hose, split = self.hose_lower or 0.0, self.split
        if self.grid > max(self.uniform, hose, split) * above:
            return f"dimension-order routing on the {' x '.join(map(str, self.grid_dims))} grid"
        if split > max(self.uniform, hose) * above:
            return ("split servers: the NVLink a balanced split must cut" if self.r_net == 0 else
                    f"split servers: the NVLink a balanced split must cut + hose routing ({self.hose_how}) "
                    "between servers")
        if hose > self.uniform:
            return f"hose routing ({self.hose_how})"
        return "uniform all-to-all routing"


def _met(lower: float, upper: float) -> bool:
    """Whether the bounds meet (within the relative tolerance of an exact bisection)."""
    return upper <= 0 or (upper - lower) <= K.EXACT_RTOL * upper


def _best_split(ctx: Context, members: np.ndarray, cutter: Cutter, good_enough: Callable[[float], bool],
                ) -> tuple[float, np.ndarray, str]:
    """The smallest balanced cut found: structural orders first (design order, scalable units, rails,
    NVLink domains), then, while ``good_enough`` says the bounds do not meet, a spectral order,
    Kernighan-Lin, and for 10 GPUs or fewer every split. Returns (value, cut arcs, how it was found)."""
    fab = ctx.fabric
    n = len(members)
    half_lo = n // 2
    orders: list[tuple[str, np.ndarray]] = [("design order", members)]
    su, rail, dom = ctx.su[members], ctx.rail[members], fab.domain[members]
    if (su >= 0).any():
        orders.append(("scalable units", members[np.lexsort((rail, dom, su))]))
    if (rail >= 0).any():
        orders.append(("rails", members[np.lexsort((dom, rail))]))
    orders.append(("NVLink domains", members[np.lexsort((members, dom))]))
    best = (np.inf, np.zeros(0, dtype=np.int64), "")
    nodes_of = fab.gpus

    def consider(a: np.ndarray, b: np.ndarray, name: str) -> None:
        nonlocal best
        val, cut = cutter.refine(nodes_of[a], nodes_of[b])
        if val < best[0]:
            best = (val, cut, name)

    for name, order in orders:
        consider(order[:half_lo], order[half_lo:], name)
    if good_enough(best[0]):
        return best
    for name, order in (("spectral (Fiedler) order", spectral_order(ctx, members)),
                        ("Kernighan-Lin partition", kernighan_lin_order(ctx, members))):
        if order is not None:
            consider(order[:half_lo], order[half_lo:], name)
    if n <= 10:
        # Side A holds floor(N/2) GPUs. With N even, fixing the first GPU on side A counts every
        # split once; with N odd the first GPU may be on either side, so every subset is tried.
        if n % 2:
            combos = itertools.combinations(members, half_lo)
        else:
            combos = ((members[0], *c) for c in itertools.combinations(members[1:], half_lo - 1))
        for combo in combos:
            a_set = np.array(combo)
            consider(a_set, np.setdiff1d(members, a_set), "exhaustive search over splits")
    return best


def _bisection_bounds(ctx: Context, members: np.ndarray, budget: int) -> Bisection:
    N = len(members)
    notes: list[str] = []
    if N < 2:
        return Bisection(None, None, False, (), N, "fewer than 2 endpoints", "fewer than 2 endpoints", None, None,
                         ("bisection needs at least 2 GPUs",))
    lb = _LowerBounds(ctx, members, budget, notes)
    cutter = Cutter(ctx, members)
    upper, cut, upper_method = _best_split(ctx, members, cutter, lambda up: _met(lb.best, up))
    if not _met(lb.best, upper):
        lb.try_pairs()
    lower, lower_method = lb.best, lb.method()
    rates = np.unique(ctx.cap.line_bytes_per_s)
    if len(rates) == 1 and rates[0] > 0 and lower < upper:
        # Every link has the same rate b, so every cut is a whole number of links times b.
        b = float(rates[0])
        whole = min(np.ceil(lower / b - K.EXACT_RTOL) * b, upper)
        if whole > lower * (1 + K.EXACT_RTOL):
            lower = whole
            lower_method += ", rounded up to whole links (every link runs at one rate)"
    refined = ", min-cut refined" + (" (on rounded capacities)" if cutter.rounded else "") if cutter.unit else ""
    upper_method = f"best split: {upper_method}{refined}"
    if upper < lower <= upper * (1 + K.EXACT_RTOL):
        lower = upper  # floating-point rounding of equal values
    exact = _met(lower, upper)
    if not exact and lb.lost == 0:
        notes.append(_gap_note(ctx, lb.grid_dims, lb.grid_wrap, lb.split_nvlink > 0))
    return Bisection(
        lower_bytes_per_s=float(lower),
        upper_bytes_per_s=float(upper),
        exact=bool(exact),
        cut_links=tuple(ctx.cap.link_ids[i] for i in cut),
        endpoints=N,
        lower_method=lower_method,
        upper_method=upper_method,
        uniform_lower_bytes_per_s=float(lb.uniform),
        hose_lower_bytes_per_s=None if lb.hose_lower is None else float(lb.hose_lower),
        notes=tuple(notes),
    )
