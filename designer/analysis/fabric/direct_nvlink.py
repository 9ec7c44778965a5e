"""Routing inside NVLink domains without a switch: GPUs joined by direct NVLink links.

NVLink bridges between two PCIe cards, NV12-style 2-GPU boards, the DGX-1 hybrid cube-mesh and
full meshes (AMD MI300X-style, every GPU linked to every other) have no NVLink switch: each GPU
has a few links of its own to some of the others. Traffic between two GPUs of such a domain
follows the shortest paths over those links, split equally over the equal-cost next GPUs at
every hop and over parallel links to one GPU by line rate. A GPU may forward for two others
(NCCL's ``PATH_NVB``, NVLink through an intermediate GPU, defined in ``src/graph/topo.h`` and set
in ``paths.cc``); traffic never leaves the domain's NVLink to reach a GPU of the domain.

Domains of the same shape (same GPU count, same links in local order, same rates) share one
table of ECMP fractions, computed once: a fabric of thousands of identical servers costs one.

The collective embeddings go round a domain on *rings*: directed Hamiltonian cycles over the
direct links, as many link-disjoint ones as a search finds (a full mesh of 8 GPUs gives several,
a bridged pair one), so that NCCL's channels keep every link busy; :meth:`DirectDomains.cycles`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from designer.model.units import count

#: Domains larger than this are not given direct routing (their GPUs talk over the network, as
#: before, and a note says so): the ECMP table is k^2 pairs and the ring search grows with k.
MAX_DIRECT_DOMAIN = 256
#: Why a GPU pair joined only by NVLink bridges may run slower than predicted (docs/analysis.md,
#: validation: an A100 NV12 pair measured 13% below the prediction, NVIDIA/nccl-tests issue #178; two
#: bridged H100 PCIe cards 53% below, NVIDIA/nccl issue #1161). The model counts every bridge link
#: drawn at NCCL's per-link figure; what it cannot see: how many links are up (a bridge seated
#: badly trains fewer, NVIDIA/nccl issue #557), the GPU's own limit below its links' sum (about
#: 230 GB/s on A100 against 240 for 12 links, NVIDIA/nccl-tests issue #149), and whether NCCL uses
#: P2P at all (NCCL_P2P_DISABLE, or NCCL_P2P_LEVEL below NVL: copies through host memory).
BRIDGED_PAIR_NOTE = (
    "joined GPU to GPU only by NVLink bridges: their figures are an upper bound. The model counts every "
    "bridge link drawn at NCCL's per-link NVLink rate; published two-GPU runs of bridged pairs measure "
    "less (an A100 NV12 pair 13% less, two H100 PCIe cards 53% less): fewer links may be up than drawn "
    "(check nvidia-smi nvlink -s), the GPU caps NCCL below the sum of its links, and with P2P disabled "
    "(NCCL_P2P_DISABLE, NCCL_P2P_LEVEL below NVL) NCCL copies through host memory instead")
#: Search budget (DFS node visits) per Hamiltonian cycle.
CYCLE_SEARCH_BUDGET = 20_000
#: At most this many link-disjoint rings are searched per domain shape, by this many searches.
MAX_RINGS = 16
RING_SEARCHES = 32


@dataclass(frozen=True)
class Shape:
    """One domain shape: ``k`` GPUs, links (local ends ``la < lb``, per-direction line rate)."""

    k: int
    la: np.ndarray
    lb: np.ndarray
    rate: np.ndarray
    #: ECMP table: for ordered pair ``s * k + t``, entries ``ptr[p]:ptr[p + 1]`` of (local arc,
    #: fraction); local arc ``j < L`` runs la[j] -> lb[j], ``j + L`` the other way.
    ptr: np.ndarray = field(repr=False)
    arc: np.ndarray = field(repr=False)
    frac: np.ndarray = field(repr=False)
    #: Link-disjoint directed Hamiltonian cycles (local GPU orders), empty when none was found.
    rings: tuple[np.ndarray, ...] = field(repr=False)

    @property
    def has_path(self) -> np.ndarray:
        """Per ordered pair ``s * k + t``: a path exists (s != t)."""
        return np.diff(self.ptr) > 0


def _shape(k: int, la: np.ndarray, lb: np.ndarray, rate: np.ndarray) -> Shape:
    L = len(la)
    nbr: list[dict[int, list[int]]] = [dict() for _ in range(k)]  # node -> next node -> local arcs
    for j in range(L):
        a, b = int(la[j]), int(lb[j])
        nbr[a].setdefault(b, []).append(j)
        nbr[b].setdefault(a, []).append(j + L)
    arc_rate = np.concatenate([rate, rate])
    per_pair: dict[int, list[tuple[int, float]]] = {}
    for t in range(k):
        dist = np.full(k, -1, dtype=np.int64)
        dist[t] = 0
        frontier = [t]
        while frontier:
            nxt = []
            for u in frontier:
                for v in nbr[u]:
                    if dist[v] < 0:
                        dist[v] = dist[u] + 1
                        nxt.append(v)
            frontier = nxt
        order = np.argsort(-dist, kind="stable")
        for s in range(k):
            p = s * k + t
            if s != t and dist[s] > 0:
                mass = np.zeros(k)
                mass[s] = 1.0
                acc: dict[int, float] = {}
                for u in order.tolist():
                    if mass[u] <= 0 or u == t:
                        continue
                    nexts = [v for v in nbr[u] if dist[v] == dist[u] - 1]
                    share = mass[u] / len(nexts)
                    for v in nexts:
                        par = nbr[u][v]
                        tot = float(arc_rate[par].sum())
                        for j in par:
                            acc[j] = acc.get(j, 0.0) + share * float(arc_rate[j]) / tot
                        mass[v] += share
                per_pair[p] = sorted(acc.items())
    ptr = np.zeros(k * k + 1, dtype=np.int64)
    arcs: list[int] = []
    fracs: list[float] = []
    for p in range(k * k):
        for j, f in per_pair.get(p, ()):
            arcs.append(j)
            fracs.append(f)
        ptr[p + 1] = len(arcs)
    return Shape(k, la, lb, rate, ptr, np.array(arcs, dtype=np.int64), np.array(fracs),
                 _rings(k, nbr, arc_rate))


def _rings(k: int, nbr: list[dict[int, list[int]]], arc_rate: np.ndarray) -> tuple[np.ndarray, ...]:
    """Link-disjoint directed Hamiltonian cycles: the largest set a few greedy searches find (each
    takes cycles one after the other, by a bounded depth-first search preferring the next GPU with
    the most unused capacity towards it; the first breaks ties by index, the others at random from
    a fixed seed, so the answer is the same every run)."""
    if k < 2:
        return ()
    # Unused capacity per directed GPU pair, in units of the slowest link.
    unit = float(arc_rate.min()) if len(arc_rate) else 1.0
    cap = {(u, v): sum(float(arc_rate[j]) for j in js) / unit for u in range(k) for v, js in nbr[u].items()}
    most = min(int(sum(cap.get((u, v), 0.0) for v in nbr[u]) + 1e-9) for u in range(k))
    best: list[np.ndarray] = []
    rng = np.random.default_rng(0)
    for attempt in range(RING_SEARCHES):
        found = _greedy_rings(k, nbr, dict(cap), None if attempt == 0 else rng)
        if len(found) > len(best):
            best = found
        if len(best) >= min(most, MAX_RINGS):
            break
    return tuple(best)


def _greedy_rings(k: int, nbr: list[dict[int, list[int]]], left: dict[tuple[int, int], float],
                  rng: np.random.Generator | None) -> list[np.ndarray]:
    """Cycles one after the other; ties between next GPUs broken by index, or at random with ``rng``."""
    found: list[np.ndarray] = []
    while len(found) < MAX_RINGS:
        path = _cycle(k, nbr, left, rng)
        if path is None:
            break
        cyc = np.array(path, dtype=np.int64)
        for u, v in zip(cyc.tolist(), np.roll(cyc, -1).tolist(), strict=True):
            left[(u, v)] -= 1.0
        found.append(cyc)
    return found


def _cycle(k: int, nbr: list[dict[int, list[int]]], left: dict[tuple[int, int], float],
           rng: np.random.Generator | None) -> list[int] | None:
    """A directed Hamiltonian cycle from GPU 0 over pairs with a unit of capacity ``left``, or None
    (none, or not found within :data:`CYCLE_SEARCH_BUDGET` steps)."""

    def free(u: int, v: int) -> bool:
        return left.get((u, v), 0.0) >= 1.0 - 1e-9

    if k == 2:
        return [0, 1] if free(0, 1) and free(1, 0) else None
    path = [0]
    seen = [False] * k
    seen[0] = True
    budget = [CYCLE_SEARCH_BUDGET]

    def dfs(u: int) -> bool:
        budget[0] -= 1
        if budget[0] < 0:
            return False
        if len(path) == k:
            return free(u, 0)
        cands = [v for v in nbr[u] if not seen[v] and free(u, v)]
        tie = rng.random(len(cands)).tolist() if rng is not None else list(range(len(cands)))
        ranked = sorted(zip([-left[(u, v)] for v in cands], tie, cands, strict=True))
        for _, _, v in ranked:
            seen[v] = True
            path.append(v)
            if dfs(v):
                return True
            path.pop()
            seen[v] = False
        return False

    return path if dfs(0) else None


@dataclass(frozen=True, eq=False)
class DirectDomains:
    """Hub-less NVLink domains with their routing tables (see the module docstring).

    ``local``: per GPU (position), its index in its domain (-1: not in a routed direct domain);
    ``dom``: its domain number (-1); ``members[d]``: GPU positions of domain ``d`` in local order;
    ``shape_of[d]``: index into ``shapes``; ``garc[s][row_in_shape[d]]``: capacity-graph arc per
    local arc of domain ``d`` of shape ``s``.
    """

    local: np.ndarray
    dom: np.ndarray
    members: tuple[np.ndarray, ...]
    shape_of: np.ndarray
    row_in_shape: np.ndarray
    shapes: tuple[Shape, ...]
    garc: tuple[np.ndarray, ...]

    @property
    def any(self) -> bool:
        return bool(self.members)

    def add_all_pairs(self, load: np.ndarray, members: np.ndarray, amount: float) -> np.ndarray:
        """Add ``amount`` for every ordered pair of ``members`` (GPU positions) that share a routed
        domain; returns, per GPU, how many such peers it has."""
        peers = np.zeros(len(self.dom))
        is_m = np.zeros(len(self.dom), dtype=bool)
        is_m[members] = True
        sel = np.flatnonzero(is_m & (self.dom >= 0))
        if not len(sel):
            return peers
        d = self.dom[sel]
        cnt = np.bincount(d, minlength=len(self.members))
        peers[sel] = cnt[d] - 1
        whole = cnt == np.array([len(g) for g in self.members])
        for s, shape in enumerate(self.shapes):
            doms = np.flatnonzero(whole & (self.shape_of == s))
            if len(doms):
                # Every ordered pair of the domain: the sum of the table, once per local arc.
                per_arc = np.bincount(shape.arc, weights=shape.frac, minlength=2 * len(shape.la))
                rows = self.garc[s][self.row_in_shape[doms]]
                np.add.at(load, rows.ravel(), np.tile(per_arc, len(doms)) * amount)
        part = np.flatnonzero(~whole & (cnt > 1))
        if len(part):
            src, dst = [], []
            for dd in part.tolist():
                g = sel[d == dd]
                i, j = np.nonzero(~np.eye(len(g), dtype=bool))
                src.append(g[i])
                dst.append(g[j])
            s_, d_ = np.concatenate(src), np.concatenate(dst)
            self.add(load, s_, d_, np.full(len(s_), float(amount)))
        return peers

    def routed(self, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
        """Per flow: both ends in one routed direct domain, with a path between them."""
        d = self.dom[src]
        ok = (d >= 0) & (d == self.dom[dst]) & (src != dst)
        if ok.any():
            i = np.flatnonzero(ok)
            sh = self.shape_of[d[i]]
            for s in np.unique(sh).tolist():
                shape = self.shapes[s]
                rows = i[sh == s]
                ok[rows] = shape.has_path[self.local[src[rows]] * shape.k + self.local[dst[rows]]]
        return ok

    def entries(self, src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(flow index, capacity-graph arc, fraction of the flow) of the ECMP paths of every flow
        ``src[i] -> dst[i]`` (all in routed domains, :meth:`routed`)."""
        out_f, out_a, out_w = [], [], []
        if len(src):
            d = self.dom[src]
            sh = self.shape_of[d]
            for s in np.unique(sh).tolist():
                shape = self.shapes[s]
                rows = np.flatnonzero(sh == s)
                p = self.local[src[rows]] * shape.k + self.local[dst[rows]]
                n = shape.ptr[p + 1] - shape.ptr[p]
                rep = np.repeat(np.arange(len(rows)), n)
                j = np.repeat(shape.ptr[p], n) + np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
                garc = self.garc[s][self.row_in_shape[d[rows]]]
                out_f.append(rows[rep])
                out_a.append(garc[rep, shape.arc[j]])
                out_w.append(shape.frac[j])
        if not out_f:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        return np.concatenate(out_f), np.concatenate(out_a), np.concatenate(out_w)

    def add(self, load: np.ndarray, src: np.ndarray, dst: np.ndarray, amount: np.ndarray) -> None:
        """Add ``amount[i]`` along the ECMP paths of ``src[i] -> dst[i]`` (all in routed domains)."""
        f, arc, w = self.entries(src, dst)
        np.add.at(load, arc, np.asarray(amount, dtype=float)[f] * w)

    def hose_coefficients(self, load: np.ndarray) -> None:
        """Add to ``load`` (per capacity-graph arc) a bound of each direct link's load when every GPU
        of its domain sends and receives at most 1 (a hose matrix): the smaller of the sum over
        sources of their largest fraction on the link and the same over destinations."""
        for s, shape in enumerate(self.shapes):
            if not len(self.garc[s]) or not len(shape.arc):
                continue
            k, n_arcs = shape.k, 2 * len(shape.la)
            pair = np.repeat(np.arange(k * k), np.diff(shape.ptr))
            row = np.zeros((k, n_arcs))
            col = np.zeros((k, n_arcs))
            np.maximum.at(row, (pair // k, shape.arc), shape.frac)
            np.maximum.at(col, (pair % k, shape.arc), shape.frac)
            per_arc = np.minimum(row.sum(axis=0), col.sum(axis=0))
            rows = self.garc[s]
            np.add.at(load, rows.ravel(), np.tile(per_arc, len(rows)))

    def rings_of(self, gpus: np.ndarray) -> list[np.ndarray] | None:
        """Rings over exactly the GPUs ``gpus`` (one whole domain), as arrays of GPU positions; None
        when ``gpus`` are not one whole routed domain or no ring was found."""
        if not len(gpus):
            return None
        d = int(self.dom[gpus[0]])
        if d < 0 or len(gpus) != len(self.members[d]) or not (self.dom[gpus] == d).all():
            return None
        shape = self.shapes[int(self.shape_of[d])]
        if not shape.rings:
            return None
        return [self.members[d][r] for r in shape.rings]


def build_direct_domains(n_gpus: int, gpu_pos: np.ndarray, domain: np.ndarray, domain_hub: np.ndarray,
                         a: np.ndarray, b: np.ndarray, nvlink_gpu_links: np.ndarray, line_rate: np.ndarray,
                         n_links: int) -> tuple[DirectDomains, list[str]]:
    """Direct domains of a fabric: hub-less NVLink domains (``domain_hub == -1``) of 2 to
    :data:`MAX_DIRECT_DOMAIN` GPUs, with the NVLink links joining two of their GPUs
    (``nvlink_gpu_links``: link indices with a GPU at both ends)."""
    local = np.full(n_gpus, -1, dtype=np.int64)
    dom_out = np.full(n_gpus, -1, dtype=np.int64)
    notes: list[str] = []
    hubless = np.flatnonzero(domain_hub < 0)
    if not len(hubless) or not len(nvlink_gpu_links):
        return DirectDomains(local, dom_out, (), np.zeros(0, np.int64), np.zeros(0, np.int64), (), ()), notes
    in_hubless = np.zeros(len(domain_hub), dtype=bool)
    in_hubless[hubless] = True
    gsel = np.flatnonzero((domain >= 0) & in_hubless[np.maximum(domain, 0)])
    order = np.lexsort((gsel, domain[gsel]))
    gsel = gsel[order]
    doms, starts, sizes = np.unique(domain[gsel], return_index=True, return_counts=True)
    big = sizes > MAX_DIRECT_DOMAIN
    if big.any():
        notes.append(f"{int(big.sum())} NVLink domains without an NVLink switch have more than "
                     f"{MAX_DIRECT_DOMAIN} GPUs: their GPUs talk over the network")
    # Links with both ends in one hub-less domain.
    la_g, lb_g = gpu_pos[a[nvlink_gpu_links]], gpu_pos[b[nvlink_gpu_links]]
    dl = domain[la_g]
    keep = (dl == domain[lb_g]) & (dl >= 0) & in_hubless[np.maximum(dl, 0)]
    links, la_g, lb_g, dl = nvlink_gpu_links[keep], la_g[keep], lb_g[keep], dl[keep]
    pos_in = np.full(n_gpus, -1, dtype=np.int64)
    members: list[np.ndarray] = []
    dom_index = np.full(len(domain_hub), -1, dtype=np.int64)
    for d, s, n in zip(doms.tolist(), starts.tolist(), sizes.tolist(), strict=True):
        if n < 2 or n > MAX_DIRECT_DOMAIN:
            continue
        g = gsel[s : s + n]
        dom_index[d] = len(members)
        pos_in[g] = np.arange(n)
        members.append(g)
    if not members:
        return DirectDomains(local, dom_out, (), np.zeros(0, np.int64), np.zeros(0, np.int64), (), ()), notes
    routed = dom_index[dl] >= 0
    links, la_g, lb_g, dl = links[routed], la_g[routed], lb_g[routed], dom_index[dl[routed]]
    lo = np.minimum(pos_in[la_g], pos_in[lb_g])
    hi = np.maximum(pos_in[la_g], pos_in[lb_g])
    forward = pos_in[la_g] <= pos_in[lb_g]  # the link's a end is the local lower end
    rate = line_rate[links]
    srt = np.lexsort((links, rate, hi, lo, dl))
    links, lo, hi, forward, rate, dl = links[srt], lo[srt], hi[srt], forward[srt], rate[srt], dl[srt]
    bounds = np.searchsorted(dl, np.arange(len(members) + 1))
    shapes: list[Shape] = []
    by_key: dict[bytes, int] = {}
    kept: list[np.ndarray] = []  # the routed domains; their shape and row in it
    shape_of: list[int] = []
    row_in_shape: list[int] = []
    garc: list[list[np.ndarray]] = []
    disjoint = 0
    for i, g in enumerate(members):
        r0, r1 = bounds[i], bounds[i + 1]
        key = np.int64(len(g)).tobytes() + lo[r0:r1].tobytes() + hi[r0:r1].tobytes() + rate[r0:r1].tobytes()
        s = by_key.get(key)
        if s is None:
            shape = _shape(len(g), lo[r0:r1].copy(), hi[r0:r1].copy(), rate[r0:r1].copy())
            # Only domains whose GPUs all reach one another over their own links are routed here.
            s = by_key[key] = len(shapes) if shape.has_path.sum() == len(g) * (len(g) - 1) else -1
            if s >= 0:
                shapes.append(shape)
                garc.append([])
        if s < 0:
            disjoint += 1
            continue
        local[g] = np.arange(len(g))
        dom_out[g] = len(kept)
        kept.append(g)
        shape_of.append(s)
        row_in_shape.append(len(garc[s]))
        lk, fw = links[r0:r1], forward[r0:r1]
        garc[s].append(np.concatenate([np.where(fw, lk, lk + n_links), np.where(fw, lk + n_links, lk)]))
    pairs = sum(len(g) == 2 for g in kept)
    if pairs:
        notes.append(f"{count(pairs, 'GPU pair')} {BRIDGED_PAIR_NOTE}")
    if disjoint:
        notes.append(f"{disjoint} NVLink domains without an NVLink switch are not joined GPU to GPU by their own "
                     "NVLink links: their GPUs talk over the network")
    stacked = tuple(np.stack(rows) for rows in garc)
    return DirectDomains(local, dom_out, tuple(kept), np.array(shape_of, dtype=np.int64),
                         np.array(row_in_shape, dtype=np.int64), tuple(shapes), stacked), notes
