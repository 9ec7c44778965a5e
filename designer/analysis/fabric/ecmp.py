"""ECMP kernel on the core graph: hop distances and the level-by-level push of demand.

The core graph (switches and GPUs with network ports, network links only; see
:mod:`designer.analysis.fabric.routing`) is routed per *destination*: a BFS distance matrix from scipy,
then the demand of every source is pushed down the destination's shortest-path DAG level by
level with ``numpy.bincount``, a chunk of destinations at a time, split equally per link over
the equal-cost next hops. The same passes give the per-arc ECMP shares that the hose bound of
:mod:`designer.analysis.bisection.bounds` needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

if TYPE_CHECKING:
    from designer.analysis.fabric.routing import Fabric

#: Dense elements per chunk of the destination kernel (rows x arcs). Half a million keeps each pass's
#: arrays (4 MB of floats) in the processor's caches: the 131,072-GPU rail fabric (393,216 macro arcs,
#: one destination class per chunk) analyses in 8.0-8.3 s against 8.8-8.9 s with 4 million, the 64x64
#: mesh in 3.8 s against 4.4 s; smaller chunks add more per-chunk work than they save.
CHUNK_ELEMENTS = 500_000
#: From this many BFS levels on (meshes, long rings) demand is pushed one level at a time over that
#: level's arcs only (:func:`level_sweep`); shallower graphs keep the whole-DAG passes, which are
#: cheaper there.
LEVEL_SWEEP_MIN = 32


def level_sweep(state_dist: np.ndarray, su: np.ndarray, sv: np.ndarray, w: np.ndarray, x0: np.ndarray,
                *, down: bool) -> np.ndarray:
    """x = x0 + sum over arcs su -> sv of x[su] * w, on a DAG whose arcs join consecutive BFS levels.

    Every arc runs from a state at level L to one at L - 1 (``down``: demand flowing to its
    destination) or L + 1 (a forward pass from a root); ``state_dist`` gives the levels (inf:
    none). States are visited level by level and each arc once, so the work is the DAG's size,
    not its size times its depth as with repeated whole-DAG passes (the same sums).
    """
    n_states = len(x0)
    lvl = np.where(np.isfinite(state_dist), state_dist, -1).astype(np.int16)  # radix-sorted
    top = int(lvl.max()) if n_states else -1
    perm = np.argsort(lvl, kind="stable")
    inv = np.empty(n_states, dtype=np.int64)
    inv[perm] = np.arange(n_states)
    start = np.searchsorted(lvl[perm], np.arange(-1, top + 2))  # level L: [start[L + 1], start[L + 2])
    x = x0[perm]
    tail = lvl[su]
    aperm = np.argsort(tail, kind="stable")
    a_start = np.searchsorted(tail[aperm], np.arange(0, top + 2))
    su2, sv2, w2 = inv[su[aperm]], inv[sv[aperm]], w[aperm]
    for level in (range(top, 0, -1) if down else range(0, top)):
        lo, hi = a_start[level], a_start[level + 1]
        if lo == hi:
            continue
        head = level - 1 if down else level + 1
        hs, he = start[head + 1], start[head + 2]
        x[hs:he] += np.bincount(sv2[lo:hi] - hs, weights=x[su2[lo:hi]] * w2[lo:hi], minlength=he - hs)
    return x[inv]


#: Bytes of cached distance rows kept; beyond, the cache starts again (rows are recomputed on demand),
#: so that routing towards every node of a large direct network never holds N x N distances.
DIST_CACHE_BYTES = 512 * 2**20


class EcmpKernel:
    """ECMP on the core graph of a fabric: distances and the level-by-level push of demand.

    Parallel links between the same two nodes are merged into one *macro arc* with a
    multiplicity; ECMP still splits per link (a node with 3 links to one spine and 1 to another
    sends 3/4 to the first), and loads are handed back per link.
    """

    def __init__(self, fabric: Fabric) -> None:
        self.fabric = fabric
        nc = fabric.n_core
        na = len(fabric.core_src)
        self.n = nc
        self.src = fabric.core_src
        self.dst = fabric.core_dst
        key = self.src * max(nc, 1) + self.dst
        uk, self.macro_of, mult = np.unique(key, return_inverse=True, return_counts=True)
        self.macro_of = self.macro_of.reshape(-1)
        self.msrc = (uk // max(nc, 1)).astype(np.int64)
        self.mdst = (uk % max(nc, 1)).astype(np.int64)
        self.mult = mult.astype(float)
        self.adj = sp.csr_matrix((np.ones(len(uk)), (self.msrc, self.mdst)), shape=(nc, nc))
        order = np.argsort(self.msrc, kind="stable")
        self._out_arc = order
        self._out_ptr = np.searchsorted(self.msrc[order], np.arange(nc + 1))
        self._out_deg = np.diff(self._out_ptr)  # macro arcs per node: msrc is sorted, so x[msrc] repeats x
        self._dist: dict[int, np.ndarray] = {}
        self.n_arcs = na
        self.mkey = uk

    def _to_links(self, macro_load: np.ndarray) -> np.ndarray:
        return macro_load[self.macro_of] / self.mult[self.macro_of]

    def distances(self, targets: np.ndarray) -> np.ndarray:
        """Hop distances (float, inf if unreachable) from every core node to each target: (t, n)."""
        targets = np.asarray(targets, dtype=np.int64)
        self._search(targets)
        if not len(targets):
            return np.zeros((0, self.n), dtype=np.float32)
        return np.stack([self._dist[int(t)] for t in targets])

    def _search(self, targets: np.ndarray) -> None:
        """Put the distances to each of ``targets`` not yet known in the cache, in one search."""
        missing = np.array([t for t in np.unique(targets) if int(t) not in self._dist], dtype=np.int64)
        if len(missing) and self.n:
            if (len(self._dist) + len(missing)) * self.n * 4 > DIST_CACHE_BYTES:
                self._dist = {}
            d = shortest_path(self.adj, unweighted=True, directed=False, indices=missing)
            d = np.atleast_2d(d)
            for t, row in zip(missing, d, strict=True):
                self._dist[int(t)] = row.astype(np.float32)

    def prefetch(self, targets: np.ndarray) -> None:
        """Search the distances to all of ``targets`` at once when they fit in half the cache, for a
        loop that asks for them a chunk at a time: each search pays scipy's conversion of the graph
        (4 ms at 131,072 GPUs, where a chunk holds one destination)."""
        targets = np.asarray(targets, dtype=np.int64)
        if len(targets) * self.n * 4 <= DIST_CACHE_BYTES // 2:
            self._search(targets)

    def out_arcs(self, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every macro arc leaving each of ``nodes``, in arc order: ``(row, arcs)``, ``row`` the
        index into ``nodes`` of each arc's tail."""
        first = self._out_ptr[nodes]
        deg = self._out_ptr[nodes + 1] - first
        row = np.repeat(np.arange(len(nodes)), deg)
        return row, self._out_arc[np.arange(len(row)) + np.repeat(first - (np.cumsum(deg) - deg), deg)]

    def _at_tails(self, rows: np.ndarray) -> np.ndarray:
        """``rows[:, msrc]``, by repeating each column (several times faster than the gather)."""
        return np.repeat(rows, self._out_deg, axis=1)

    def push(self, dist_rows: np.ndarray, demand: np.ndarray, *, rows: bool = False, shares: bool = False,
             detail: bool = False):
        """Route ``demand`` (r x n: bytes from node u towards row r's destination) by ECMP.

        The shortest-path DAG of every row is a set of (row, node) -> (row, node) transitions;
        demand is pushed through them level by level with ``bincount``. Returns (arc_load per
        core link arc, per-row arc flows as a sparse matrix if ``rows``, unrouted bytes per row).
        """
        r_n, n = dist_rows.shape
        msrc, mdst = self.msrc, self.mdst
        finite = np.isfinite(dist_rows)
        unrouted = np.where(finite, 0.0, demand).sum(axis=1)
        d0 = np.where(finite, demand, 0.0).ravel()
        dd = np.take(dist_rows, mdst, axis=1)
        on = (self._at_tails(dist_rows) == dd + 1) & np.isfinite(dd)
        r, e = np.nonzero(on)
        su = r * n + msrc[e]
        sv = r * n + mdst[e]
        me = self.mult[e]
        nh = np.bincount(su, weights=me, minlength=r_n * n)[su]  # per arc, its tail's links on the DAG
        w = me / nh
        levels = int(np.max(np.where(finite, dist_rows, 0))) if dist_rows.size else 0
        if levels >= LEVEL_SWEEP_MIN:
            F = level_sweep(dist_rows.ravel(), su, sv, w, d0, down=True)
        else:
            F = d0
            for _ in range(levels):
                F = d0 + np.bincount(sv, weights=F[su] * w, minlength=r_n * n)
        flow = F[su] * w
        if detail:  # per (row, macro arc) entries: flow and per-link share
            return (r, e, flow, 1.0 / nh), unrouted
        load = self._to_links(np.bincount(e, weights=flow, minlength=len(msrc)))
        if shares:
            load = (load, (r, e, 1.0 / nh))
        fl = None
        if rows:
            macro = sp.csr_matrix((flow, (r, e)), shape=(r_n, len(msrc)))
            spread = sp.csr_matrix((1.0 / self.mult[self.macro_of], (self.macro_of, np.arange(self.n_arcs))),
                                   shape=(len(msrc), self.n_arcs))
            fl = (macro @ spread).tocsr()
        return load, fl, unrouted

    def route(self, dest: np.ndarray, demand: np.ndarray, dest_weight: np.ndarray | None = None):
        """Arc loads for ``demand`` (len(dest) x n) towards core nodes ``dest``; and unrouted bytes.

        With ``dest_weight`` also returns, per macro arc, ``eta`` = max over destinations of the
        per-link ECMP share 1/nh, and ``omega`` = sum over destinations of weight x 1/nh (both 0
        where the arc is on no shortest path to a destination), used by the hose bound.
        """
        load = np.zeros(self.n_arcs)
        lost = 0.0
        nm = len(self.msrc)
        eta = np.zeros(nm)
        omega = np.zeros(nm)
        if not len(dest) or not self.n_arcs:
            lost = float(demand.sum()) if len(dest) and not self.n_arcs else 0.0
            return (load, lost) if dest_weight is None else (load, lost, eta, omega)
        step = max(1, CHUNK_ELEMENTS // max(nm, 1))
        self.prefetch(dest)
        for i in range(0, len(dest), step):
            d = self.distances(dest[i : i + step])
            ld, _, un = self.push(d, demand[i : i + step], shares=dest_weight is not None)
            if dest_weight is not None:
                ld, (r, e, w1) = ld
                np.maximum.at(eta, e, w1)
                omega += np.bincount(e, weights=dest_weight[i : i + step][r] * w1, minlength=nm)
            load += ld
            lost += float(un.sum())
        return (load, lost) if dest_weight is None else (load, lost, eta, omega)

    def forward_bound(self, sources: np.ndarray, weight: np.ndarray, eta: np.ndarray):
        """Hose row bound: per link arc sum_s weight_s * Q_s(u) * eta, and Q_max(u) per node.

        Q_s(v) = sum over arcs u->v of s's BFS DAG (with eta > 0) of Q_s(u) * eta * links,
        Q_s(s) = 1: an upper bound of the fraction of any s->t ECMP flow reaching v.
        """
        nm, n = len(self.msrc), self.n
        row = np.zeros(nm)
        qmax = np.zeros(n)
        step = max(1, CHUNK_ELEMENTS // max(nm, 1))
        usable = eta > 0
        for i in range(0, len(sources), step):
            ss = sources[i : i + step]
            r, e, su, Q = self.reach_fractions(ss, eta, usable)
            row += np.bincount(e, weights=weight[i : i + step][r] * Q[su] * eta[e], minlength=nm)
            qmax = np.maximum(qmax, Q.reshape(len(ss), n).max(axis=0))
        return row, qmax

    def reach_fractions(self, roots: np.ndarray, eta: np.ndarray, usable: np.ndarray):
        """Q_s(v) for each root s: the bound on the fraction of an s-rooted ECMP flow reaching v.

        Returns ``(r, e, su, Q)``: the (root row, arc) pairs of each root's BFS DAG restricted to
        usable arcs, the flat index ``r * n + msrc[e]`` of each arc's tail, and the flat
        ``len(roots) * n`` array Q, with Q_s(s) = 1 and Q_s(v) = sum over DAG arcs u->v of
        Q_s(u) * eta * links (pushed one BFS level at a time).
        """
        n = self.n
        r_n = len(roots)
        Ds = self.distances(roots)  # undirected: distance from each root
        on = (np.take(Ds, self.mdst, axis=1) == self._at_tails(Ds) + 1) & usable[None, :]
        r, e = np.nonzero(on)
        su = r * n + self.msrc[e]
        sv = r * n + self.mdst[e]
        w = eta[e] * self.mult[e]
        q0 = np.zeros(r_n * n)
        q0[np.arange(r_n) * n + roots] = 1.0
        levels = int(np.max(np.where(np.isfinite(Ds), Ds, 0))) if Ds.size else 0
        if levels >= LEVEL_SWEEP_MIN:
            return r, e, su, level_sweep(Ds.ravel(), su, sv, w, q0, down=False)
        Q = q0
        for _ in range(levels):
            Q = q0 + np.bincount(sv, weights=Q[su] * w, minlength=r_n * n)
        return r, e, su, Q

    def _next_hops(self, dt: np.ndarray, row: np.ndarray, u: np.ndarray) -> np.ndarray:
        """For each (destination row of ``dt``, node ``u``): the links from u on a shortest path to
        that destination (its ECMP split), summed in arc order as :meth:`push` sums them."""
        n = self.n
        keys, inv = np.unique(row * n + u, return_inverse=True)
        kr, ku = keys // n, keys % n
        at, arcs = self.out_arcs(ku)
        head = dt[kr[at], self.mdst[arcs]]
        down = (dt[kr[at], ku[at]] == head + 1) & np.isfinite(head)
        return np.bincount(at[down], weights=self.mult[arcs[down]], minlength=len(keys))[inv.reshape(-1)]

    def _macro(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Macro arc index of u -> v (must exist)."""
        return np.searchsorted(self.mkey, u * max(self.n, 1) + v)

    def pair_fractions(self, s: np.ndarray, t: np.ndarray) -> tuple[sp.csr_matrix, np.ndarray]:
        """Fraction of a unit s->t flow on every core arc, one row per pair; and reachability."""
        na = self.n_arcs
        out = []
        ok = np.zeros(len(s), dtype=bool)
        step = max(1, CHUNK_ELEMENTS // max(len(self.msrc), 1))
        spread = sp.csr_matrix((1.0 / self.mult[self.macro_of], (self.macro_of, np.arange(na))),
                               shape=(len(self.msrc), na))
        for i in range(0, len(s), step):
            flow, ok[i : i + step] = self._pair_flows(s[i : i + step], t[i : i + step])
            out.append((flow @ spread).tocsr())
        if not out:
            return sp.csr_matrix((0, na)), ok
        return sp.vstack(out).tocsr(), ok

    def _pair_flows(self, s: np.ndarray, t: np.ndarray) -> tuple[sp.csr_matrix, np.ndarray]:
        """Per pair, a unit s->t flow on each macro arc (pairs x macro arcs); and whether t is reachable.

        The same ECMP push as :meth:`push` of a unit demand at each s towards its t, over the arcs
        that can carry it only: those on a shortest s-t path (``dist(s, u) + 1 + dist(v, t) ==
        dist(s, t)``), which are exactly the arcs of t's shortest-path DAG whose tail s's flow
        reaches. Every other DAG arc carries zero, so the sums, in the same order, are the same
        numbers; the work is the size of the s-t paths, not of the whole DAG per pair. Each node's
        split (its next hops towards t) is counted once per destination.
        """
        n, msrc, mdst, mult = self.n, self.msrc, self.mdst, self.mult
        p_n = len(s)
        ut, t_row = np.unique(t, return_inverse=True)
        us, s_row = np.unique(s, return_inverse=True)
        dt = self.distances(ut)  # hops to each destination (undirected: from it)
        ds = self.distances(us)
        hops = dt[t_row, s]
        reach = np.isfinite(hops)
        on = ((self._at_tails(ds) + 1)[s_row] + np.take(dt, mdst, axis=1)[t_row] == hops[:, None]) & reach[:, None]
        r, e = np.nonzero(on)
        su = r * n + msrc[e]
        sv = r * n + mdst[e]
        w = mult[e] / self._next_hops(dt, t_row[r], msrc[e])
        d0 = np.zeros(p_n * n)
        d0[np.arange(p_n) * n + s] = reach
        levels = int(np.max(np.where(np.isfinite(dt), dt, 0))) if dt.size else 0
        if levels >= LEVEL_SWEEP_MIN:
            F = level_sweep(dt[t_row].ravel(), su, sv, w, d0, down=True)
        else:
            F = d0
            for _ in range(levels):
                F = d0 + np.bincount(sv, weights=F[su] * w, minlength=p_n * n)
        return sp.csr_matrix((F[su] * w, (r, e)), shape=(p_n, len(msrc))), reach
