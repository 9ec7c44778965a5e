"""Upper bounds of the bisection: balanced splits of the endpoints, each refined by a minimum cut.

:class:`Cutter` values a split of the GPUs: a super-source/super-sink maximum flow (scipy, integer
capacities) lets every other device (switches, NICs, NVLink switches) choose its side, and the cut
is valued at its true capacity. :func:`spectral_order` and :func:`kernighan_lin_order` propose
split orders; :func:`designer.analysis.bisection.bounds.bisection_bounds` tries them with the others
(design order, scalable units, rails) and keeps the best.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, maximum_flow
from scipy.sparse.linalg import lobpcg

from designer.analysis.common import constants as K
from designer.analysis.fabric.context import Context

INT32_MAX = 2**31 - 1


class Cutter:
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


def spectral_order(ctx: Context, members: np.ndarray) -> np.ndarray | None:
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


def kernighan_lin_order(ctx: Context, members: np.ndarray) -> np.ndarray | None:
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
