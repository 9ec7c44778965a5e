"""Shortest-path ECMP routing between GPUs, vectorised with numpy and scipy.sparse.

Model (documented in ``docs/analysis.md``):

- **NVLink domains.** GPUs joined by NVLink links (through an ``nvswitch`` device or directly)
  form a domain (a server, or an NVL72 rack). Traffic between two GPUs of one domain stays on
  NVLink: ``gpu -> nvswitch -> gpu`` (or the direct NVLink link).
- **Attachments.** Other traffic leaves a GPU through its NIC: ``gpu -(pcie)-> nic -(network)->
  switch``. A NIC with k network links splits its traffic equally over them. A GPU with network
  ports of its own (torus, hypercube) is its own attachment point.
- **Core.** Between attachment points, traffic follows every shortest path (hop count) over the
  *core graph* (switches and GPUs with network ports, network links only), split equally over
  the equal-cost next hops at every node (ECMP). NICs and NVLink are never transit.

The work is done per *destination* attachment node: a BFS distance matrix from scipy, then the
demand of all sources is pushed down the shortest-path DAG level by level with dense-by-sparse
products, a chunk of destinations at a time. GPUs behind the same leaf share their routes, so
the cost grows with leaves x links, not GPUs squared.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, shortest_path

from designer.analysis.capacity import K_GPU, K_NIC, K_NVSWITCH, P_NVLINK, P_PCIE, CapacityGraph

#: Dense elements per chunk of the destination kernel (rows x arcs).
CHUNK_ELEMENTS = 4_000_000


@dataclass(frozen=True, eq=False)
class Fabric:
    """Routing structure of a capacity graph (see the module docstring).

    ``gpus``: node index of every GPU, design order. ``domain``: NVLink domain per GPU (-1: none).
    ``nvl_up`` / ``nvl_down``: arc GPU->hub and hub->GPU of its NVLink (-1: none).
    Attachments (``att_*``, one row per (GPU, attachment point)): ``att_gpu`` (position in
    ``gpus``), ``att_core`` (core-graph node), ``att_w`` (share of the GPU's traffic),
    ``att_up`` / ``att_down`` (k x 2 arcs from GPU to core node and back, -1 padded).
    Core graph: ``core_nodes`` (capacity-graph node per core node), ``core_of`` (inverse, -1),
    ``core_arc`` (capacity-graph arc per core arc), ``core_src`` / ``core_dst``.
    """

    cap: CapacityGraph
    gpus: np.ndarray
    gpu_pos: np.ndarray
    domain: np.ndarray
    n_domains: int
    domain_hub: np.ndarray
    nvl_up: np.ndarray
    nvl_down: np.ndarray
    att_gpu: np.ndarray
    att_core: np.ndarray
    att_w: np.ndarray
    att_up: np.ndarray
    att_down: np.ndarray
    core_nodes: np.ndarray
    core_of: np.ndarray
    core_arc: np.ndarray
    core_src: np.ndarray
    core_dst: np.ndarray
    rail: np.ndarray

    @property
    def n_core(self) -> int:
        return len(self.core_nodes)

    def gpu_has_network(self) -> np.ndarray:
        """Per GPU: True when it has at least one attachment to the network."""
        out = np.zeros(len(self.gpus), dtype=bool)
        out[self.att_gpu] = True
        return out


def build_fabric(cap: CapacityGraph, rails: np.ndarray | None = None) -> Fabric:
    """Find NVLink domains, GPU attachments and the core graph of ``cap``."""
    n, m = cap.n_nodes, cap.n_links
    kind = cap.node_kind
    a, b, proto = cap.a, cap.b, cap.protocol
    gpus = np.flatnonzero(kind == K_GPU)
    gpu_pos = np.full(n, -1, dtype=np.int64)
    gpu_pos[gpus] = np.arange(len(gpus))

    # NVLink domains: components of the NVLink links, labelled per GPU.
    nv = proto == P_NVLINK
    g_nv = sp.coo_matrix((np.ones(int(nv.sum())), (a[nv], b[nv])), shape=(n, n)).tocsr()
    _, comp = connected_components(g_nv, directed=False)
    has_nv = np.zeros(n, dtype=bool)
    has_nv[a[nv]] = True
    has_nv[b[nv]] = True
    gpu_comp = np.where(has_nv[gpus], comp[gpus], -1)
    uniq, dom = np.unique(gpu_comp[gpu_comp >= 0], return_inverse=True)
    domain = np.full(len(gpus), -1, dtype=np.int64)
    domain[gpu_comp >= 0] = dom
    # Hub of a GPU: the nvswitch at the other end of its NVLink link.
    nvl_up = np.full(len(gpus), -1, dtype=np.int64)
    nvl_down = np.full(len(gpus), -1, dtype=np.int64)
    domain_hub = np.full(len(uniq), -1, dtype=np.int64)
    for end, other, off_up, off_down in ((a, b, 0, m), (b, a, m, 0)):
        sel = nv & (kind[end] == K_GPU) & (kind[other] == K_NVSWITCH)
        idx = np.flatnonzero(sel)
        gp = gpu_pos[end[idx]]
        nvl_up[gp] = idx + off_up
        nvl_down[gp] = idx + off_down
        dm = domain[gp]
        domain_hub[dm] = other[idx]

    # Core graph: network (non-board) links. NIC nodes are core only when linked to a non-switch.
    net = (proto != P_NVLINK) & (proto != P_PCIE)
    is_nic = kind == K_NIC
    core_mask = np.zeros(n, dtype=bool)
    core_mask[a[net]] = True
    core_mask[b[net]] = True
    nic_net_only_switch = np.ones(n, dtype=bool)
    for end, other in ((a, b), (b, a)):
        sel = net & is_nic[end] & (kind[other] != 3)
        nic_net_only_switch[end[sel]] = False
    core_mask &= ~(is_nic & nic_net_only_switch)
    core_nodes = np.flatnonzero(core_mask)
    core_of = np.full(n, -1, dtype=np.int64)
    core_of[core_nodes] = np.arange(len(core_nodes))
    core_link = np.flatnonzero(net & core_mask[a] & core_mask[b])
    core_arc = np.concatenate([core_link, core_link + m])
    core_src = core_of[np.concatenate([a[core_link], b[core_link]])]
    core_dst = core_of[np.concatenate([b[core_link], a[core_link]])]

    # Attachments.
    att_gpu: list[np.ndarray] = []
    att_core: list[np.ndarray] = []
    att_w: list[np.ndarray] = []
    att_up: list[np.ndarray] = []
    att_down: list[np.ndarray] = []
    # (1) GPUs that are core nodes themselves.
    own = gpus[core_mask[gpus]]
    if len(own):
        att_gpu.append(gpu_pos[own])
        att_core.append(core_of[own])
        att_w.append(np.ones(len(own)))
        att_up.append(np.full((len(own), 2), -1, dtype=np.int64))
        att_down.append(np.full((len(own), 2), -1, dtype=np.int64))
    # (2) GPU -(pcie)- NIC, NIC either core itself or -(network)- core node(s).
    pc = proto == P_PCIE
    for end, other, off_up, off_down in ((a, b, 0, m), (b, a, m, 0)):
        idx = np.flatnonzero(pc & (kind[end] == K_GPU) & is_nic[other])
        if not len(idx):
            continue
        gpu_n, nic_n = end[idx], other[idx]
        up1, down1 = idx + off_up, idx + off_down
        # NIC already core.
        c = core_mask[nic_n]
        if c.any():
            att_gpu.append(gpu_pos[gpu_n[c]])
            att_core.append(core_of[nic_n[c]])
            att_w.append(np.ones(int(c.sum())))
            att_up.append(np.stack([up1[c], np.full(int(c.sum()), -1)], axis=1))
            att_down.append(np.stack([np.full(int(c.sum()), -1), down1[c]], axis=1))
        # NIC -> switch links.
        nic_rows = np.flatnonzero(~c)
        if not len(nic_rows):
            continue
        nl_nic = np.concatenate([a, b])
        nl_sw = np.concatenate([b, a])
        nl_arc_up = np.concatenate([np.arange(m), np.arange(m) + m])
        nl_arc_down = np.concatenate([np.arange(m) + m, np.arange(m)])
        nl_ok = np.concatenate([net, net]) & is_nic[nl_nic] & core_mask[nl_sw]
        nl_nic, nl_sw, nl_arc_up, nl_arc_down = nl_nic[nl_ok], nl_sw[nl_ok], nl_arc_up[nl_ok], nl_arc_down[nl_ok]
        order = np.argsort(nl_nic, kind="stable")
        nl_nic, nl_sw, nl_arc_up, nl_arc_down = nl_nic[order], nl_sw[order], nl_arc_up[order], nl_arc_down[order]
        starts = np.searchsorted(nl_nic, nic_n[nic_rows], side="left")
        ends = np.searchsorted(nl_nic, nic_n[nic_rows], side="right")
        cnt = ends - starts
        has = cnt > 0
        rows = nic_rows[has]
        cnt_h = cnt[has]
        rep = np.repeat(np.arange(len(rows)), cnt_h)
        offs = np.arange(int(cnt_h.sum())) - np.repeat(np.cumsum(cnt_h) - cnt_h, cnt_h)
        sel = np.repeat(starts[has], cnt_h) + offs
        r = rows[rep]
        att_gpu.append(gpu_pos[gpu_n[r]])
        att_core.append(core_of[nl_sw[sel]])
        att_w.append(1.0 / cnt_h[rep])
        att_up.append(np.stack([up1[r], nl_arc_up[sel]], axis=1))
        att_down.append(np.stack([nl_arc_down[sel], down1[r]], axis=1))

    def cat(parts: list[np.ndarray], dtype, shape=(0,)) -> np.ndarray:
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(shape, dtype=dtype)

    ag = cat(att_gpu, np.int64)
    ac = cat(att_core, np.int64)
    aw = cat(att_w, float)
    au = cat(att_up, np.int64, (0, 2))
    ad = cat(att_down, np.int64, (0, 2))
    # A GPU may reach the network through several NICs: share its traffic equally.
    per_gpu = np.bincount(ag, weights=aw, minlength=len(gpus))
    if len(ag):
        aw = aw / per_gpu[ag]
    order = np.argsort(ag, kind="stable")
    if rails is None:
        rails = np.full(len(gpus), -1, dtype=np.int64)
    return Fabric(
        cap=cap, gpus=gpus, gpu_pos=gpu_pos, domain=domain, n_domains=len(uniq), domain_hub=domain_hub,
        nvl_up=nvl_up, nvl_down=nvl_down,
        att_gpu=ag[order], att_core=ac[order], att_w=aw[order], att_up=au[order], att_down=ad[order],
        core_nodes=core_nodes, core_of=core_of, core_arc=core_arc, core_src=core_src, core_dst=core_dst,
        rail=np.asarray(rails, dtype=np.int64),
    )


# --------------------------------------------------------------------------- ECMP kernel
class CoreRouter:
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
        self._dist: dict[int, np.ndarray] = {}
        self.n_arcs = na
        self.mkey = uk

    def _to_links(self, macro_load: np.ndarray) -> np.ndarray:
        return macro_load[self.macro_of] / self.mult[self.macro_of]

    def distances(self, targets: np.ndarray) -> np.ndarray:
        """Hop distances (float, inf if unreachable) from every core node to each target: (t, n)."""
        targets = np.asarray(targets, dtype=np.int64)
        missing = np.array([t for t in np.unique(targets) if int(t) not in self._dist], dtype=np.int64)
        if len(missing) and self.n:
            d = shortest_path(self.adj, unweighted=True, directed=False, indices=missing)
            d = np.atleast_2d(d)
            for t, row in zip(missing, d, strict=True):
                self._dist[int(t)] = row.astype(np.float32)
        if not len(targets):
            return np.zeros((0, self.n), dtype=np.float32)
        return np.stack([self._dist[int(t)] for t in targets])

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
        dd = dist_rows[:, mdst]
        on = (dist_rows[:, msrc] == dd + 1) & np.isfinite(dd)
        r, e = np.nonzero(on)
        su = r * n + msrc[e]
        sv = r * n + mdst[e]
        me = self.mult[e]
        nh = np.bincount(su, weights=me, minlength=r_n * n)
        w = me / nh[su]
        levels = int(np.max(np.where(finite, dist_rows, 0))) if dist_rows.size else 0
        F = d0
        for _ in range(levels):
            F = d0 + np.bincount(sv, weights=F[su] * w, minlength=r_n * n)
        flow = F[su] * w
        if detail:  # per (row, macro arc) entries: flow and per-link share
            return (r, e, flow, 1.0 / nh[su]), unrouted
        load = self._to_links(np.bincount(e, weights=flow, minlength=len(msrc)))
        if shares:
            load = (load, (r, e, 1.0 / nh[su]))
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
            Ds = self.distances(ss)  # undirected: distance from s
            r_n = len(ss)
            on = (Ds[:, self.mdst] == Ds[:, self.msrc] + 1) & usable[None, :]
            r, e = np.nonzero(on)
            su = r * n + self.msrc[e]
            sv = r * n + self.mdst[e]
            w = eta[e] * self.mult[e]
            q0 = np.zeros(r_n * n)
            q0[np.arange(r_n) * n + ss] = 1.0
            levels = int(np.max(np.where(np.isfinite(Ds), Ds, 0))) if Ds.size else 0
            Q = q0
            for _ in range(levels):
                Q = q0 + np.bincount(sv, weights=Q[su] * w, minlength=r_n * n)
            row += np.bincount(e, weights=weight[i : i + step][r] * Q[su] * eta[e], minlength=nm)
            qmax = np.maximum(qmax, Q.reshape(r_n, n).max(axis=0))
        return row, qmax

    # ------------------------------------------------------------------ twin classes
    def twin_classes(self, nodes: np.ndarray) -> list[np.ndarray]:
        """Group ``nodes`` with identical neighbours (and link multiplicities): *twins*.

        Twins (e.g. the leaves of one pod behind the same spines) see the rest of the graph
        identically: no shortest path to one passes through another, and the ECMP shares towards
        them agree everywhere except on the last hop. Isolated nodes stay alone.
        """
        groups: dict[tuple, list[int]] = {}
        out: list[np.ndarray] = []
        for v in np.asarray(nodes, dtype=np.int64).tolist():
            arcs = self._out_arc[self._out_ptr[v] : self._out_ptr[v + 1]]
            if not len(arcs):
                out.append(np.array([v]))
                continue
            key = tuple(self.mdst[arcs].tolist()) + tuple(self.mult[arcs].tolist())
            groups.setdefault(key, []).append(v)
        out.extend(np.array(g, dtype=np.int64) for g in groups.values())
        return out

    def _macro(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Macro arc index of u -> v (must exist)."""
        return np.searchsorted(self.mkey, u * max(self.n, 1) + v)

    def _class_tables(self, cores: np.ndarray, weight: np.ndarray):
        classes = self.twin_classes(cores)
        n = self.n
        wn = np.zeros(n)
        wn[cores] = weight
        cls_of = np.full(n, -1, dtype=np.int64)
        for c, g in enumerate(classes):
            cls_of[g] = c
        reps = np.array([g[0] for g in classes], dtype=np.int64)
        wc = np.array([wn[g].sum() for g in classes])
        sizes = np.array([len(g) for g in classes], dtype=np.int64)
        flat = np.concatenate(classes)
        ptr = np.concatenate([[0], np.cumsum(sizes)])
        return classes, wn, cls_of, reps, wc, sizes, flat, ptr

    def uniform_classes(self, cores: np.ndarray, weight: np.ndarray):
        """ECMP loads of demand weight[s] x weight[t] between every ordered pair of ``cores``.

        Same result as :meth:`route` with that demand (tested), but one push per twin class:
        the push goes to the class's representative, its last hop is shared out among the
        members by weight, and traffic between twins (two hops through their common neighbours)
        is added in closed form. Returns (link-arc load, unrouted, eta, omega) like ``route``.
        """
        nm = len(self.msrc)
        classes, wn, cls_of, reps, wc, sizes, flat, ptr = self._class_tables(cores, weight)
        mload = np.zeros(nm)
        eta = np.zeros(nm)
        omega = np.zeros(nm)
        lost = 0.0
        step = max(1, CHUNK_ELEMENTS // max(nm, 1))
        for i in range(0, len(reps), step):
            rr = reps[i : i + step]
            cc = np.arange(i, i + len(rr))
            dem = np.outer(wc[cc], wn)
            dem[cls_of[None, :] == cc[:, None]] = 0.0  # twins are handled in closed form below
            (r, e, flow, share), un = self.push(self.distances(rr), dem, detail=True)
            lost += float(un.sum())
            c = cc[r]
            last = self.mdst[e] == reps[c]
            own = cls_of[self.msrc[e]] == c
            inner = ~last & ~own
            mload += np.bincount(e[inner], weights=flow[inner], minlength=nm)
            np.maximum.at(eta, e[inner], share[inner])
            omega += np.bincount(e[inner], weights=wc[c[inner]] * share[inner], minlength=nm)
            # last hop y -> representative: one copy per member t, scaled by weight[t] / weight[class]
            le, lc, lf, ls = e[last], c[last], flow[last], share[last]
            k = sizes[lc]
            rep_idx = np.repeat(np.arange(len(le)), k)
            off = np.arange(int(k.sum())) - np.repeat(np.cumsum(k) - k, k)
            t = flat[ptr[lc][rep_idx] + off]
            y = self.msrc[le][rep_idx]
            me = self._macro(y, t)
            frac = wn[t] / wc[lc][rep_idx]
            mload += np.bincount(me, weights=lf[rep_idx] * frac, minlength=nm)
            np.maximum.at(eta, me, ls[rep_idx])
            omega += np.bincount(me, weights=wn[t] * ls[rep_idx], minlength=nm)
        # twins: u -> y -> t through the common neighbours, split by links
        for c, g in enumerate(classes):
            if len(g) < 2:
                continue
            for u in g.tolist():
                arcs = self._out_arc[self._out_ptr[u] : self._out_ptr[u + 1]]
                deg = float(self.mult[arcs].sum())
                amount = wn[u] * (wc[c] - wn[u])
                y = self.mdst[arcs]
                mload[arcs] += amount * self.mult[arcs] / deg
                back = self._macro(y, np.full(len(y), u))
                mload[back] += amount * self.mult[arcs] / deg
                np.maximum.at(eta, arcs, 1.0 / deg)
                omega[arcs] += (wc[c] - wn[u]) / deg
        return self._to_links(mload), lost, eta, omega

    def forward_bound_classes(self, cores: np.ndarray, weight: np.ndarray, eta: np.ndarray):
        """:meth:`forward_bound` with one forward pass per twin class (same result, tested)."""
        nm, n = len(self.msrc), self.n
        classes, wn, cls_of, reps, wc, sizes, flat, ptr = self._class_tables(cores, weight)
        row = np.zeros(nm)
        qmax = np.zeros(n)
        usable = eta > 0
        step = max(1, CHUNK_ELEMENTS // max(nm, 1))
        for i in range(0, len(reps), step):
            rr = reps[i : i + step]
            cc = np.arange(i, i + len(rr))
            r_n = len(rr)
            Ds = self.distances(rr)
            on = (Ds[:, self.mdst] == Ds[:, self.msrc] + 1) & usable[None, :]
            r, e = np.nonzero(on)
            su = r * n + self.msrc[e]
            sv = r * n + self.mdst[e]
            w = eta[e] * self.mult[e]
            q0 = np.zeros(r_n * n)
            q0[np.arange(r_n) * n + rr] = 1.0
            levels = int(np.max(np.where(np.isfinite(Ds), Ds, 0))) if Ds.size else 0
            Q = q0
            for _ in range(levels):
                Q = q0 + np.bincount(sv, weights=Q[su] * w, minlength=r_n * n)
            c = cc[r]
            valid = (cls_of[self.msrc[e]] != c) & (cls_of[self.mdst[e]] != c)
            row += np.bincount(e[valid], weights=wc[c[valid]] * Q[su[valid]] * eta[e[valid]], minlength=nm)
            Qr = Q.reshape(r_n, n)
            qmax = np.maximum(qmax, Qr.max(axis=0))
            for j, cj in enumerate(cc.tolist()):
                for m in classes[cj].tolist():
                    arcs = self._out_arc[self._out_ptr[m] : self._out_ptr[m + 1]]
                    row[arcs] += wn[m] * eta[arcs]
                    y = self.mdst[arcs]
                    back = self._macro(y, np.full(len(y), m))
                    ok = usable[back]
                    row[back[ok]] += (wc[cj] - wn[m]) * Qr[j, y[ok]] * eta[back[ok]]
        qmax[cores] = 1.0
        return row, qmax

    def hops(self, s: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Hop counts s[i] -> t[i] on the core graph (inf if unreachable), via twin representatives.

        >>> import numpy as np
        >>> from designer.generators import GENERATORS
        >>> from designer.analysis.context import build_context
        >>> ctx = build_context(GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8))
        >>> cores = np.unique(ctx.fabric.att_core)
        >>> ctx.router.hops(cores, cores[::-1]).tolist()
        [2.0, 2.0]
        """
        s = np.asarray(s, dtype=np.int64)
        t = np.asarray(t, dtype=np.int64)
        rep_of = np.arange(self.n)
        cls_of = np.arange(self.n) + self.n
        for c, g in enumerate(self.twin_classes(np.unique(t))):
            rep_of[g] = g[0]
            cls_of[g] = c
        uniq_r, row = np.unique(rep_of[t], return_inverse=True)
        d = self.distances(uniq_r)[row, s].astype(float)
        deg = self._out_ptr[s + 1] - self._out_ptr[s]
        twin = (cls_of[s] == cls_of[t]) & (s != t)
        d = np.where(twin, np.where(deg > 0, 2.0, np.inf), d)
        return np.where(s == t, 0.0, d)

    def _spread(self, idx: np.ndarray, ptr: np.ndarray, vals: np.ndarray, frac: np.ndarray):
        """For entries with group ``idx``: repeat over the group's members (CSR ``ptr``)."""
        k = ptr[idx + 1] - ptr[idx]
        ix = np.repeat(np.arange(len(idx)), k)
        off = np.arange(int(k.sum())) - np.repeat(np.cumsum(k) - k, k)
        j = ptr[idx][ix] + off
        return ix, vals[j], frac[j]

    def route_pairs(self, s: np.ndarray, t: np.ndarray, amount: np.ndarray, *, twins: bool = True
                    ) -> tuple[np.ndarray, float]:
        """Arc loads of ``amount[i]`` bytes from core node ``s[i]`` to ``t[i]`` by ECMP.

        Sparse frontier propagation of (group, node, bytes) states. With ``twins``, pairs travel
        in groups (source twin class, destination twin class) from the source representative to
        the destination representative: the flow between them has the same shape for every pair
        of the group, so only the first hop (shared out by each source's bytes) and the last hop
        (by each destination's bytes) differ. Pairs of twins and of neighbours are done directly.
        """
        n = self.n
        nm = len(self.msrc)
        mload = np.zeros(nm)
        if not len(s):
            return np.zeros(self.n_arcs), 0.0
        s = np.asarray(s, dtype=np.int64)
        t = np.asarray(t, dtype=np.int64)
        amount = np.asarray(amount, dtype=float)
        rep_of = np.arange(n)
        cls_of = np.arange(n) + n  # distinct per node unless twins
        if twins:
            for c, g in enumerate(self.twin_classes(np.unique(np.concatenate([s, t])))):
                rep_of[g] = g[0]
                cls_of[g] = c
        # Distances to the destinations' representatives only: a twin sees the graph alike.
        twin = (cls_of[s] == cls_of[t]) & (s != t)
        uniq_r, trow = np.unique(rep_of[t], return_inverse=True)
        D = self.distances(uniq_r)
        dist = np.where(twin, 2.0, D[trow, s])
        if twin.any():  # twins without a common neighbour are isolated nodes: unreachable
            deg_s = self._out_ptr[s + 1] - self._out_ptr[s]
            dist = np.where(twin & (deg_s == 0), np.inf, dist)
        lost = float(amount[~np.isfinite(dist)].sum())
        ok = np.isfinite(dist) & (dist > 0)
        s, t, amount, dist, twin = s[ok], t[ok], amount[ok], dist[ok], twin[ok]
        # neighbours: the direct links only
        one = (dist == 1) & ~twin
        if one.any():
            mload += np.bincount(self._macro(s[one], t[one]), weights=amount[one], minlength=nm)
        # twins: s -> y -> t over their common neighbours, split by links
        tw = twin
        if tw.any():
            ss, tt, am = s[tw], t[tw], amount[tw]
            deg = self._out_ptr[ss + 1] - self._out_ptr[ss]
            ix = np.repeat(np.arange(len(ss)), deg)
            off = np.arange(int(deg.sum())) - np.repeat(np.cumsum(deg) - deg, deg)
            arcs = self._out_arc[self._out_ptr[ss][ix] + off]
            tot = np.bincount(ix, weights=self.mult[arcs], minlength=len(ss))
            part = am[ix] * self.mult[arcs] / tot[ix]
            mload += np.bincount(arcs, weights=part, minlength=nm)
            mload += np.bincount(self._macro(self.mdst[arcs], tt[ix]), weights=part, minlength=nm)
        rest = ~one & ~tw
        s, t, amount = s[rest], t[rest], amount[rest]
        if not len(s):
            return self._to_links(mload), lost
        gkey = np.stack([rep_of[s], rep_of[t]], axis=1)
        groups, ginv = np.unique(gkey, axis=0, return_inverse=True)
        ginv = ginv.reshape(-1)
        ng = len(groups)
        g_amount = np.bincount(ginv, weights=amount, minlength=ng)
        safe = np.where(g_amount != 0, g_amount, 1.0)
        # per-group marginals of sources and destinations (CSR by group)
        marg = []
        for nodes in (s, t):
            key, kinv = np.unique(np.stack([ginv, nodes], axis=1), axis=0, return_inverse=True)
            am = np.bincount(kinv.reshape(-1), weights=amount, minlength=len(key))
            ptr = np.searchsorted(key[:, 0], np.arange(ng + 1))
            marg.append((ptr, key[:, 1], am / safe[key[:, 0]]))
        (sptr, snode, sfrac), (tptr, tnode, tfrac) = marg
        g_src, g_dst = groups[:, 0], groups[:, 1]
        uniq_r, grow = np.unique(g_dst, return_inverse=True)
        D = self.distances(uniq_r)
        # A group touches each arc at most once: batches of groups bound the frontier's memory.
        batch = max(1, CHUNK_ELEMENTS // max(nm, 1))
        for g0 in range(0, ng, batch):
            self._frontier(np.arange(g0, min(ng, g0 + batch)), g_src, g_dst, g_amount, D, grow,
                           (sptr, snode, sfrac), (tptr, tnode, tfrac), mload)
        return self._to_links(mload), lost

    def _frontier(self, pid, g_src, g_dst, g_amount, D, grow, smarg, tmarg, mload) -> None:
        """Push groups ``pid`` from their source representative to their destination one."""
        n, nm = self.n, len(self.msrc)
        sptr, snode, sfrac = smarg
        tptr, tnode, tfrac = tmarg
        out_arc, out_ptr = self._out_arc, self._out_ptr
        u = g_src[pid].copy()
        f = g_amount[pid]
        du = D[grow[pid], u]
        first = True
        while len(pid):
            deg = out_ptr[u + 1] - out_ptr[u]
            rep = np.repeat(np.arange(len(pid)), deg)
            offs = np.arange(len(rep)) - np.repeat(np.cumsum(deg) - deg, deg)
            arcs = out_arc[out_ptr[u][rep] + offs]
            v = self.mdst[arcs]
            okk = D[grow[pid[rep]], v] == du[rep] - 1
            rep, arcs, v = rep[okk], arcs[okk], v[okk]
            me = self.mult[arcs]
            nh = np.bincount(rep, weights=me, minlength=len(pid))
            share = f[rep] * me / nh[rep]
            arrive = v == g_dst[pid[rep]]
            if first:
                # first hop: from every source of the group, by its share of the bytes
                ix, src_nodes, fr = self._spread(pid[rep], sptr, snode, sfrac)
                mload += np.bincount(self._macro(src_nodes, v[ix]), weights=share[ix] * fr, minlength=nm)
                first = False
            else:
                mload += np.bincount(arcs[~arrive], weights=share[~arrive], minlength=nm)
                if arrive.any():
                    # last hop: to every destination of the group, by its share of the bytes
                    aa, ash = arcs[arrive], share[arrive]
                    ix, dst_nodes, fr = self._spread(pid[rep[arrive]], tptr, tnode, tfrac)
                    mload += np.bincount(self._macro(self.msrc[aa][ix], dst_nodes), weights=ash[ix] * fr,
                                         minlength=nm)
            key = pid[rep] * n + v
            uk, inv = np.unique(key, return_inverse=True)
            f = np.bincount(inv, weights=share)
            pid, u = uk // n, uk % n
            du = D[grow[pid], u]
            keep = du > 0
            pid, u, f, du = pid[keep], u[keep], f[keep], du[keep]

    def pair_fractions(self, s: np.ndarray, t: np.ndarray) -> tuple[sp.csr_matrix, np.ndarray]:
        """Fraction of a unit s->t flow on every core arc, one row per pair; and reachability."""
        na = self.n_arcs
        out = []
        ok = np.zeros(len(s), dtype=bool)
        step = max(1, CHUNK_ELEMENTS // max(len(self.msrc), 1))
        for i in range(0, len(s), step):
            ss, tt = s[i : i + step], t[i : i + step]
            d = self.distances(tt)
            dem = np.zeros((len(ss), self.n))
            dem[np.arange(len(ss)), ss] = 1.0
            _, fl, un = self.push(d, dem, rows=True)
            ok[i : i + step] = un == 0
            out.append(fl)
        if not out:
            return sp.csr_matrix((0, na)), ok
        return sp.vstack(out).tocsr(), ok


# --------------------------------------------------------------------------- flows
@dataclass(frozen=True, eq=False)
class Routed:
    """Result of routing a set of flows: load per capacity-graph arc and bytes that found no path."""

    arc_load: np.ndarray
    unrouted_bytes: float
    unrouted_flows: int


def pxn_proxies(fabric: Fabric, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """NCCL's PXN: for each flow, the GPU of ``src``'s server on ``dst``'s rail (``src`` if none).

    Cross-rail traffic then hops over NVLink to that GPU and leaves through its NIC, staying on
    the destination's rail (no spine crossing in a rail-optimized fabric).
    """
    dom, rail = fabric.domain, fabric.rail
    out = np.asarray(src, dtype=np.int64).copy()
    hub = (dom >= 0) & (fabric.nvl_up >= 0) & (fabric.nvl_down >= 0) & (rail >= 0)
    if not hub.any():
        return out
    key_g = np.flatnonzero(hub)
    keys = dom[key_g] * (int(rail.max()) + 1) + rail[key_g]
    order = np.argsort(keys, kind="stable")
    keys, key_g = keys[order], key_g[order]
    want = dom[src] * (int(rail.max()) + 1) + rail[dst]
    i = np.minimum(np.searchsorted(keys, want), len(keys) - 1)
    ok = hub[src] & (rail[dst] >= 0) & (dom[src] != dom[dst]) & (keys[i] == want)
    out[ok] = key_g[i[ok]]
    return out


def route_flows(fabric: Fabric, router: CoreRouter, src: np.ndarray, dst: np.ndarray,
                nbytes: np.ndarray, *, pxn: bool = False) -> Routed:
    """Per-arc load of flows ``src[i] -> dst[i]`` (positions in ``fabric.gpus``) of ``nbytes[i]``.

    Flows inside one NVLink domain with a hub use NVLink; the others go through attachments and
    the core by ECMP (with ``pxn``, first over NVLink to the GPU on the destination's rail, see
    :func:`pxn_proxies`). Flows from a GPU to itself are ignored.

    Examples
    --------
    Two GPUs on one NVLink switch, each with a NIC on one network switch:

    >>> from designer.model import Design, Device, Link, PortGroup
    >>> from designer.analysis.capacity import build_capacity_graph
    >>> d = Design()
    >>> gp = (PortGroup("nvl", 1, 3600.0, "nvlink"), PortGroup("pcie", 1, 512.0, "pcie"))
    >>> nic = (PortGroup("p", 1, 400.0), PortGroup("pcie", 1, 512.0, "pcie"))
    >>> d.extend(devices=[Device("nvs", "nvswitch", (PortGroup("nvl", 2, 3600.0, "nvlink"),)),
    ...     Device("sw", "switch", (PortGroup("p", 2, 400.0),)),
    ...     Device("g1", "gpu", gp), Device("g2", "gpu", gp), Device("n1", "nic", nic), Device("n2", "nic", nic)],
    ...     links=[Link("v1", "g1", "nvl1", "nvs", "nvl1", "nvlink"), Link("v2", "g2", "nvl1", "nvs", "nvl2", "nvlink"),
    ...     Link("c1", "g1", "pcie1", "n1", "pcie1", "pcie"), Link("c2", "g2", "pcie1", "n2", "pcie1", "pcie"),
    ...     Link("e1", "n1", "p1", "sw", "p1"), Link("e2", "n2", "p1", "sw", "p2")])
    >>> fab = build_fabric(build_capacity_graph(d, None))
    >>> r = route_flows(fab, CoreRouter(fab), np.array([0]), np.array([1]), np.array([5.0]))
    >>> float(r.arc_load.sum()), r.unrouted_flows      # two NVLink arcs carry 5 bytes each
    (10.0, 0)
    """
    cap = fabric.cap
    na = 2 * cap.n_links
    load = np.zeros(na)
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    nbytes = np.asarray(nbytes, dtype=float)
    keep = src != dst
    src, dst, nbytes = src[keep], dst[keep], nbytes[keep]
    if pxn and len(src):
        proxy = pxn_proxies(fabric, src, dst)
        hop = proxy != src
        np.add.at(load, fabric.nvl_up[src[hop]], nbytes[hop])
        np.add.at(load, fabric.nvl_down[proxy[hop]], nbytes[hop])
        src = proxy
    dom = fabric.domain
    same = (dom[src] >= 0) & (dom[src] == dom[dst]) & (fabric.nvl_up[src] >= 0) & (fabric.nvl_down[dst] >= 0)
    np.add.at(load, fabric.nvl_up[src[same]], nbytes[same])
    np.add.at(load, fabric.nvl_down[dst[same]], nbytes[same])
    src, dst, nbytes = src[~same], dst[~same], nbytes[~same]
    lost = 0.0
    lost_flows = 0
    if len(src):
        # Expand flows over source and destination attachments.
        ptr = np.searchsorted(fabric.att_gpu, np.arange(len(fabric.gpus) + 1))
        cs = ptr[src + 1] - ptr[src]
        cd = ptr[dst + 1] - ptr[dst]
        none = (cs == 0) | (cd == 0)
        lost += float(nbytes[none].sum())
        lost_flows += int(none.sum())
        src, dst, nbytes, cs, cd = src[~none], dst[~none], nbytes[~none], cs[~none], cd[~none]
        if len(src) and (cs.max() > 1 or cd.max() > 1):
            rep = cs * cd
            fi = np.repeat(np.arange(len(src)), rep)
            k = np.arange(int(rep.sum())) - np.repeat(np.cumsum(rep) - rep, rep)
            ia = ptr[src[fi]] + k // cd[fi]
            ib = ptr[dst[fi]] + k % cd[fi]
            wb = nbytes[fi] * fabric.att_w[ia] * fabric.att_w[ib]
        else:
            ia, ib, wb = ptr[src], ptr[dst], nbytes
        for col in range(2):
            for arcs in (fabric.att_up[ia, col], fabric.att_down[ib, col]):
                ok = arcs >= 0
                np.add.at(load, arcs[ok], wb[ok])
        cs_node, ct_node = fabric.att_core[ia], fabric.att_core[ib]
        net = cs_node != ct_node
        if net.any():
            pairs, pinv = np.unique(np.stack([cs_node[net], ct_node[net]], axis=1), axis=0, return_inverse=True)
            amount = np.bincount(pinv.reshape(-1), weights=wb[net])
            core_load, lost_core = router.route_pairs(pairs[:, 0], pairs[:, 1], amount)
            load[fabric.core_arc] += core_load
            lost += lost_core
            if lost_core > 0:
                lost_flows += int(np.sum(~np.isfinite(router.hops(cs_node[net], ct_node[net]))))
    return Routed(load, lost, lost_flows)
