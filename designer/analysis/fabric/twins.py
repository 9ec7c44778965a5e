"""Twin-switch classes: ECMP routed once per class of switches with identical neighbours.

Twin switches (identical neighbours and link counts, e.g. the leaves of one pod) see the rest
of the fabric identically: no shortest path to one passes through another, and the ECMP shares
towards them agree except on the last hop. So uniform traffic and the hose bound are routed once
per class (to its representative, the last hop shared out by weight, traffic between twins in
closed form), and explicit flows travel on a sparse frontier in groups (source class,
destination class) whose first and last hops are shared out by each member's bytes. Tests check
every shortcut against the plain per-destination push of :class:`EcmpKernel`.
"""

from __future__ import annotations

import numpy as np

from designer.analysis.fabric.ecmp import CHUNK_ELEMENTS
from designer.analysis.fabric.swaps import ClassSwaps
from designer.analysis.fabric.symmetry import Symmetries

#: Node sets whose twin classes a router keeps (:meth:`CoreRouter.twin_classes`).
_TWINS_KEPT = 8
#: Largest targets x nodes table of translated distances; more destinations are routed a table at a time.
TRANSLATED_ROWS_MAX = 32_000_000


class CoreRouter(ClassSwaps, Symmetries):
    """ECMP on the core graph of a fabric (:class:`EcmpKernel`) with twin-class shortcuts, the
    symmetry shortcuts of :class:`designer.analysis.fabric.symmetry.Symmetries`, and one class
    routed per orbit of the swaps of :class:`designer.analysis.fabric.swaps.ClassSwaps`.

    ``arc_labels`` (one int per core arc, or None) names the port each core arc leaves from; when
    they make the core graph a Cayley graph of an abelian group (tori, hypercubes: see
    :meth:`translations`), uniform routing and the hose forward bound take one root instead of one
    per node.
    """

    _twins_memo: dict[bytes, list[np.ndarray]] | None = None

    def twin_classes(self, nodes: np.ndarray) -> list[np.ndarray]:
        """Group ``nodes`` with identical neighbours (and link multiplicities): *twins*.

        Twins (e.g. the leaves of one pod behind the same spines) see the rest of the graph
        identically: no shortest path to one passes through another, and the ECMP shares towards
        them agree everywhere except on the last hop. Isolated nodes stay alone.
        """
        nodes = np.asarray(nodes, dtype=np.int64)
        held = nodes.tobytes()
        memo = self._twins_memo
        if memo is None:
            memo = self._twins_memo = {}
        if held in memo:
            return memo[held]
        groups: dict[tuple, list[int]] = {}
        out: list[np.ndarray] = []
        for v in nodes.tolist():
            arcs = self._out_arc[self._out_ptr[v] : self._out_ptr[v + 1]]
            if not len(arcs):
                out.append(np.array([v]))
                continue
            key = tuple(self.mdst[arcs].tolist()) + tuple(self.mult[arcs].tolist())
            groups.setdefault(key, []).append(v)
        out.extend(np.array(g, dtype=np.int64) for g in groups.values())
        # Kept for the next call with the same nodes (the uniform loads, the hose bound and each
        # collective's flows ask for the same ones: 30 ms each at 131,072 GPUs); read-only.
        for g in out:
            g.flags.writeable = False
        if len(memo) >= _TWINS_KEPT:
            memo.pop(next(iter(memo)))
        memo[held] = out
        return out

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
        On a translation-symmetric graph (:meth:`translations`) with every node a core of one
        weight, a single push to node 0 gives the same result. Classes that swaps of whole classes
        map onto each other (:meth:`class_orbits`) are routed once per orbit, weighed by its size,
        and the sums spread over the arc orbits.
        """
        lab = self._symmetric(cores, weight)
        if lab is not None:
            return self._uniform_symmetric(lab, float(weight[0]))
        group = self._all_alike(cores, weight) and self.mirrors()
        if group:
            return self._uniform_mirrored(group, float(weight[0]))
        nm = len(self.msrc)
        classes, wn, cls_of, reps, wc, sizes, flat, ptr = self._class_tables(cores, weight)
        orbits = self.class_orbits(cores, classes, wn)
        times = orbits.times.astype(float)
        routed = np.flatnonzero(orbits.times)
        mload = np.zeros(nm)
        eta = np.zeros(nm)
        omega = np.zeros(nm)
        lost = 0.0
        step = max(1, CHUNK_ELEMENTS // max(nm, 1))
        self.prefetch(reps[routed])
        for i in range(0, len(routed), step):
            cc = routed[i : i + step]
            rr = reps[cc]
            dem = np.outer(wc[cc] * times[cc], wn)
            dem[cls_of[None, :] == cc[:, None]] = 0.0  # twins are handled in closed form below
            (r, e, flow, share), un = self.push(self.distances(rr), dem, detail=True)
            lost += float(un.sum())
            c = cc[r]
            last = self.mdst[e] == reps[c]
            own = cls_of[self.msrc[e]] == c
            inner = ~last & ~own
            ei, si = e[inner], share[inner]
            mload += np.bincount(ei, weights=flow[inner], minlength=nm)
            np.maximum.at(eta, ei, si)
            omega += np.bincount(ei, weights=(wc * times)[c[inner]] * si, minlength=nm)
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
            omega += np.bincount(me, weights=wn[t] * times[lc][rep_idx] * ls[rep_idx], minlength=nm)
        if not orbits.trivial:  # each orbit's sums spread over the arcs its swaps exchange
            mload, omega, eta = orbits.mean_over_arcs(mload), orbits.mean_over_arcs(omega), orbits.max_over_arcs(eta)
        # twins: u -> y -> t through the common neighbours, split by links
        u, c, row, arcs = self._twin_arcs(classes, np.arange(len(classes)))
        if len(u):
            deg = np.bincount(row, weights=self.mult[arcs], minlength=len(u))  # whole link counts: exact
            amount = wn[u] * (wc[c] - wn[u])
            part = amount[row] * self.mult[arcs] / deg[row]
            back = self._macro(self.mdst[arcs], u[row])
            _add_in_order(mload, row, arcs, back, part, part)
            np.maximum.at(eta, arcs, (1.0 / deg)[row])
            omega[arcs] += ((wc[c] - wn[u]) / deg)[row]
        return self._to_links(mload), lost, eta, omega

    def _twin_arcs(self, classes: list[np.ndarray], which: np.ndarray):
        """The members ``u`` of the classes ``which`` that have twins (in class order), each one's
        class ``c``, and their out arcs ``arcs`` with ``row`` the index into ``u`` of each."""
        multi = [int(c) for c in which.tolist() if len(classes[c]) > 1]
        if not multi:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty, empty
        u = np.concatenate([classes[c] for c in multi]).astype(np.int64)
        c = np.repeat(np.array(multi, dtype=np.int64), [len(classes[k]) for k in multi])
        row, arcs = self.out_arcs(u)
        return u, c, row, arcs

    def forward_bound_classes(self, cores: np.ndarray, weight: np.ndarray, eta: np.ndarray):
        """:meth:`forward_bound` with one forward pass per twin class (same result, tested); one
        pass in all on a translation-symmetric graph (:meth:`translations`)."""
        lab = self._symmetric(cores, weight)
        if lab is not None:
            got = self._forward_symmetric(lab, float(weight[0]), eta)
            if got is not None:
                row, qmax = got
                qmax[np.asarray(cores)] = 1.0
                return row, qmax
        group = self._all_alike(cores, weight) and self.mirrors()
        got = self._forward_mirrored(group, float(weight[0]), eta) if group else None
        if got is not None:
            row, qmax = got
            qmax[np.asarray(cores)] = 1.0
            return row, qmax
        nm, n = len(self.msrc), self.n
        classes, wn, cls_of, reps, wc, sizes, flat, ptr = self._class_tables(cores, weight)
        orbits = self.class_orbits(cores, classes, wn, eta)
        times = orbits.times.astype(float)
        routed = np.flatnonzero(orbits.times)
        row = np.zeros(nm)
        qmax = np.zeros(n)
        usable = eta > 0
        step = max(1, CHUNK_ELEMENTS // max(nm, 1))
        self.prefetch(reps[routed])
        for i in range(0, len(routed), step):
            cc = routed[i : i + step]
            rr = reps[cc]
            r_n = len(rr)
            r, e, su, Q = self.reach_fractions(rr, eta, usable)
            c = cc[r]
            valid = (cls_of[self.msrc[e]] != c) & (cls_of[self.mdst[e]] != c)
            row += np.bincount(e[valid], weights=(wc * times)[c[valid]] * Q[su[valid]] * eta[e[valid]], minlength=nm)
            Qr = Q.reshape(r_n, n)
            qmax = np.maximum(qmax, Qr.max(axis=0))
            m, cm, mrow, arcs = self._twin_arcs(classes, cc)
            if len(m):
                y = self.mdst[arcs]
                back = self._macro(y, m[mrow])
                ok = usable[back]
                jm = np.searchsorted(cc, cm)[mrow]
                k = times[cm][mrow]
                _add_in_order(row, mrow, arcs, back[ok], k * wn[m][mrow] * eta[arcs],
                              (k * (wc[cm] - wn[m])[mrow])[ok] * Qr[jm[ok], y[ok]] * eta[back[ok]],
                              second_row=mrow[ok])
        if not orbits.trivial:  # each orbit's sums spread over the arcs (and nodes) its swaps exchange
            row, qmax = orbits.mean_over_arcs(row), orbits.max_over_nodes(qmax)
        qmax[cores] = 1.0
        return row, qmax

    def hops(self, s: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Hop counts s[i] -> t[i] on the core graph (inf if unreachable), via twin representatives.

        >>> import numpy as np
        >>> from designer.generators import GENERATORS
        >>> from designer.analysis.fabric.context import build_context
        >>> ctx = build_context(GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8))
        >>> cores = np.unique(ctx.fabric.att_core)
        >>> ctx.router.hops(cores, cores[::-1]).tolist()
        [2.0, 2.0]
        """
        s = np.asarray(s, dtype=np.int64)
        t = np.asarray(t, dtype=np.int64)
        near = self._linked(s, t)
        if near.all():
            return np.where(s == t, 0.0, 1.0)
        out = np.ones(len(s))
        out[~near] = self._hops_far(s[~near], t[~near])
        return out

    def _linked(self, s: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Per pair, whether a link joins s[i] and t[i] (then the links between them are its only
        shortest paths, and the pair is never a twin pair: a node is not its own neighbour)."""
        key = s * max(self.n, 1) + t
        pos = np.minimum(np.searchsorted(self.mkey, key), max(len(self.mkey) - 1, 0))
        return (self.mkey[pos] == key) if len(self.mkey) else np.zeros(len(s), dtype=bool)

    def _hops_far(self, s: np.ndarray, t: np.ndarray) -> np.ndarray:
        rep_of = np.arange(self.n)
        cls_of = np.arange(self.n) + self.n
        for c, g in enumerate(self.twin_classes(np.unique(t))):
            rep_of[g] = g[0]
            cls_of[g] = c
        uniq_r, row = np.unique(rep_of[t], return_inverse=True)
        d = self._pair_distance(uniq_r, row, s).astype(float)
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
        # Pairs joined by a link (one-hop flows: rings on tori and hypercubes) need no twin classes
        # and no distance tables: the links between them are their only shortest paths.
        near = self._linked(s, t)
        if near.any():
            mload += np.bincount(self._macro(s[near], t[near]), weights=amount[near], minlength=nm)
            if near.all():
                return self._to_links(mload), 0.0
            s, t, amount = s[~near], t[~near], amount[~near]
        rep_of = np.arange(n)
        cls_of = np.arange(n) + n  # distinct per node unless twins
        if twins:
            for c, g in enumerate(self.twin_classes(np.unique(np.concatenate([s, t])))):
                rep_of[g] = g[0]
                cls_of[g] = c
        # Distances to the destinations' representatives only: a twin sees the graph alike.
        twin = (cls_of[s] == cls_of[t]) & (s != t)
        uniq_r, trow = np.unique(rep_of[t], return_inverse=True)
        dist = np.where(twin, 2.0, self._pair_distance(uniq_r, trow, s))
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
            ix, arcs = self.out_arcs(ss)
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
        per_chunk = self._targets_per_table(len(uniq_r))
        marg = ((sptr, snode, sfrac), (tptr, tnode, tfrac))
        if per_chunk >= len(uniq_r):
            D = self._target_distances(uniq_r)
            self._frontier_batches(np.arange(ng), g_src, g_dst, g_amount, D, grow, marg, mload)
            return self._to_links(mload), lost
        # Too many destinations for one translated table: groups by destination, a table per chunk.
        by_dst = np.argsort(grow, kind="stable")
        starts = np.searchsorted(grow[by_dst], np.arange(0, len(uniq_r), per_chunk))
        bounds = np.append(starts, ng)
        for c, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
            first = c * per_chunk
            D = self._target_distances(uniq_r[first : first + per_chunk])
            self._frontier_batches(by_dst[lo:hi], g_src, g_dst, g_amount, D, grow - first, marg, mload)
        return self._to_links(mload), lost

    def _frontier_batches(self, groups, g_src, g_dst, g_amount, D, grow, marg, mload) -> None:
        """:meth:`_frontier` over ``groups`` in batches whose frontier stays near ``CHUNK_ELEMENTS``
        candidate arcs per level: a group touches each arc at most once, so the first batch is
        ``CHUNK_ELEMENTS / arcs`` groups; later ones grow (at most 4 times a batch) while the
        frontiers they met stay smaller than that."""
        nm = len(self.msrc)
        batch = max(1, CHUNK_ELEMENTS // max(nm, 1))
        g0 = 0
        while g0 < len(groups):
            pid = groups[g0 : g0 + batch]
            peak = self._frontier(pid, g_src, g_dst, g_amount, D, grow, *marg, mload)
            g0 += len(pid)
            batch = int(max(1, min(4 * batch, batch * CHUNK_ELEMENTS // max(peak, 1))))

    def _targets_per_table(self, n_targets: int) -> int:
        """Destinations one distance table may hold: all, unless a translated table would be too large."""
        if (self.translations() is None or n_targets * self.n <= TRANSLATED_ROWS_MAX
                or self.xor_coordinates() is not None):  # hypercube distances need no table
            return max(n_targets, 1)
        return max(1, TRANSLATED_ROWS_MAX // self.n)

    def _pair_distance(self, targets: np.ndarray, row: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """Hop distance from ``nodes[i]`` to ``targets[row[i]]``: on a translation-symmetric graph each
        pair read in its target's frame (no table per target), else from the breadth-first rows."""
        if self.translations() is None:
            return self.distances(targets)[row, nodes]
        xor = self.xor_coordinates()
        if xor is not None:
            return np.bitwise_count(xor[targets[row]] ^ xor[nodes]).astype(np.float32)
        d0 = self._walk_tables()[4]
        back = self.translate(np.zeros(len(targets), dtype=np.int64), targets, inverse=True)
        return d0[self.translate(back[row], nodes)]

    def _frontier(self, pid, g_src, g_dst, g_amount, D, grow, smarg, tmarg, mload) -> int:
        """Push groups ``pid`` from their source representative to their destination one; returns
        the most candidate arcs a level had."""
        n, nm = self.n, len(self.msrc)
        sptr, snode, sfrac = smarg
        tptr, tnode, tfrac = tmarg
        u = g_src[pid].copy()
        f = g_amount[pid]
        du = D[grow[pid], u]
        first = True
        peak = 0
        hit: list[np.ndarray] = []  # macro arcs and their bytes, summed once at the end
        put: list[np.ndarray] = []
        flat = D.reshape(-1) if isinstance(D, np.ndarray) else None  # a dense table: read by flat index
        while len(pid):
            # per group first (a few), then repeated over its candidate arcs (millions)
            rep, arcs = self.out_arcs(u)
            peak = max(peak, len(rep))
            v = self.mdst[arcs]
            if flat is not None:
                okk = flat[(grow[pid] * D.shape[1])[rep] + v] == (du - 1)[rep]
            else:
                okk = D[grow[pid][rep], v] == (du - 1)[rep]
            rep, arcs, v = rep[okk], arcs[okk], v[okk]
            me = self.mult[arcs]
            nh = np.bincount(rep, weights=me, minlength=len(pid))
            share = f[rep] * me / nh[rep]
            arrive = v == g_dst[pid][rep]
            if first:
                # first hop: from every source of the group, by its share of the bytes
                ix, src_nodes, fr = self._spread(pid[rep], sptr, snode, sfrac)
                hit.append(self._macro(src_nodes, v[ix]))
                put.append(share[ix] * fr)
                first = False
            else:
                hit.append(arcs[~arrive])
                put.append(share[~arrive])
                if arrive.any():
                    # last hop: to every destination of the group, by its share of the bytes
                    aa, ash = arcs[arrive], share[arrive]
                    ix, dst_nodes, fr = self._spread(pid[rep[arrive]], tptr, tnode, tfrac)
                    hit.append(self._macro(self.msrc[aa][ix], dst_nodes))
                    put.append(ash[ix] * fr)
            key = (pid * n)[rep] + v
            uk, inv = np.unique(key, return_inverse=True)
            f = np.bincount(inv, weights=share)
            pid, u = uk // n, uk % n
            du = D[grow[pid], u]
            keep = du > 0
            pid, u, f, du = pid[keep], u[keep], f[keep], du[keep]
        if hit:
            mload += np.bincount(np.concatenate(hit), weights=np.concatenate(put), minlength=nm)
        return peak


def _add_in_order(total: np.ndarray, row: np.ndarray, first: np.ndarray, second: np.ndarray, first_v: np.ndarray,
                  second_v: np.ndarray, *, second_row: np.ndarray | None = None) -> None:
    """``total[first] += first_v`` then ``total[second] += second_v``, member by member (``row``, sorted,
    names each entry's member): the additions in the order of a loop over the members, so that the
    sums round as that loop's do."""
    rows = np.concatenate([2 * row, 2 * (row if second_row is None else second_row) + 1])
    order = np.argsort(rows, kind="stable")
    np.add.at(total, np.concatenate([first, second])[order], np.concatenate([first_v, second_v])[order])
