"""Symmetries of a core graph that routing exploits: translations, grid and hypercube coordinates, mirrors.

Tori and hypercubes are Cayley graphs of an abelian group when each arc is named by the port it
leaves from: every translation is an automorphism keeping the names, so the routing towards any
node is the translate of the routing towards node 0 (uniform traffic and the hose bound take one
root), and hop distances are read in the destination's frame (a table of translated rows;
popcounts on a hypercube). Meshes and damaged tori keep their mirror images: a destination's
routing is the mirror of one already computed. :class:`designer.analysis.fabric.twins.CoreRouter`
inherits these from :class:`Symmetries`; tests compare every result with the plain
per-destination push of :class:`designer.analysis.fabric.ecmp.EcmpKernel`
(``tests/analysis/test_translation_symmetry.py``).
"""

from __future__ import annotations

import numpy as np

from designer.analysis.fabric.ecmp import CHUNK_ELEMENTS, EcmpKernel


class Symmetries(EcmpKernel):
    """The symmetry shortcuts of the core-graph router (see the module docstring).

    ``arc_labels`` (one int per core arc, or None) names the port each core arc leaves from.
    """

    arc_labels: np.ndarray | None = None
    #: Computes ``arc_labels`` when first needed (reading the design's ports), if set.
    arc_label_source = None
    _cayley: tuple | None = None
    _rows_memo: tuple | None = None
    _xor: tuple | None = None
    _mirrors: tuple | None = None

    # ------------------------------------------------------------------ translation symmetry
    def translations(self) -> np.ndarray | None:
        """Per macro arc its label index when the core graph is a *translation-symmetric* fabric, else None.

        The labels (the ports arcs leave from) must give every node exactly one arc of each
        label, each label must map the nodes one-to-one, any two labels must commute (x then y
        reaches the node y then x does) and the graph must be connected, with one link per node
        pair. The label maps then generate an abelian group acting transitively, hence regularly,
        on the nodes, and each group element (a *translation*) is an automorphism keeping labels:
        the ECMP routing towards any node is the translate of the routing towards node 0. Tori
        (every ring of 3 or more) and hypercubes pass; meshes, tori with a failed link or rings
        of 2, switched fabrics do not.
        """
        if self._cayley is not None:
            return self._cayley[0]
        self._cayley = (self._check_translations(),)
        return self._cayley[0]

    def _macro_labels(self) -> tuple[np.ndarray, int] | None:
        """The port label of every macro arc as 0..n_lab-1, and n_lab; None without labels (read
        from ``arc_label_source`` when first needed)."""
        if self.arc_labels is None and self.arc_label_source is not None:
            self.arc_labels = self.arc_label_source()
        labels = self.arc_labels
        if labels is None or len(labels) != len(self.src):
            return None
        _, lab = np.unique(labels[np.argsort(self.macro_of)], return_inverse=True)
        lab = lab.reshape(-1)
        return lab, int(lab.max()) + 1

    def _check_translations(self) -> np.ndarray | None:
        n, nm = self.n, len(self.msrc)
        # Cheap necessary conditions first: one link per node pair, every node of one degree.
        if n < 3 or not nm or np.any(self.mult != 1) or np.any(np.diff(self._out_ptr) != nm // n):
            return None
        found = self._macro_labels()
        if found is None:
            return None
        lab, n_lab = found
        if nm != n * n_lab or np.any(np.bincount(self.msrc * n_lab + lab, minlength=n * n_lab) != 1):
            return None
        nxt = np.empty((n, n_lab), dtype=np.int64)
        nxt[self.msrc, lab] = self.mdst
        for x in range(n_lab):
            if np.any(np.bincount(nxt[:, x], minlength=n) != 1):
                return None
        for x in range(n_lab):
            for y in range(x + 1, n_lab):
                if not np.array_equal(nxt[nxt[:, x], y], nxt[nxt[:, y], x]):
                    return None
        if not np.isfinite(self.distances(np.array([0]))).all():
            return None
        return lab

    def _walk_tables(self):
        """For a translation-symmetric graph: the label table ``nxt`` (node, label) -> node, each
        node's BFS-tree parent and the label leading to it from there (from node 0), each label's
        inverse, and the hop distances to node 0. Built once."""
        if len(self._cayley) > 1:
            return self._cayley[1]
        lab = self.translations()
        n = self.n
        n_lab = int(lab.max()) + 1
        nxt = np.empty((n, n_lab), dtype=np.int64)
        nxt[self.msrc, lab] = self.mdst
        d0 = self.distances(np.array([0]))[0]
        parent = np.zeros(n, dtype=np.int64)
        plabel = np.zeros(n, dtype=np.int64)
        # each node's parent: a neighbour one hop closer to 0 (the arc from it carries the label)
        closer = d0[self.msrc] + 1 == d0[self.mdst]
        parent[self.mdst[closer]] = self.msrc[closer]
        plabel[self.mdst[closer]] = lab[closer]
        inv_lab = np.array([int(np.flatnonzero(nxt[nxt[0, x]] == 0)[0]) for x in range(n_lab)], dtype=np.int64)
        tables = (nxt, parent, plabel, inv_lab, d0)
        self._cayley = (lab, tables)
        return tables

    def xor_coordinates(self) -> np.ndarray | None:
        """On a hypercube (a translation-symmetric graph whose labels are their own inverses, with
        2^labels nodes: the group is (Z_2)^labels, the labels a basis), each node's group element
        as a bit mask, so that d(u, t) = popcount(c[u] ^ c[t]); else None."""
        if self._xor is None:
            coord = None
            if self.translations() is not None:
                nxt, parent, plabel, inv_lab, d0 = self._walk_tables()
                n_lab = nxt.shape[1]
                if n_lab <= 62 and self.n == 1 << n_lab and np.array_equal(inv_lab, np.arange(n_lab)):
                    coord = np.zeros(self.n, dtype=np.int64)
                    level = d0.astype(np.int64)
                    for depth in range(1, int(level.max()) + 1):
                        ws = np.flatnonzero(level == depth)
                        coord[ws] = coord[parent[ws]] ^ (np.int64(1) << plabel[ws])
            self._xor = (coord,)
        return self._xor[0]

    def grid_coordinates(self) -> np.ndarray | None:
        """On a translation-symmetric graph that is a torus or hypercube (each label and its
        reverse generate one cyclic factor of the group, and the factors' orders multiply to the
        node count): each node's coordinates, one column per factor, in 0..order-1, a label moving
        one step forward or back along its column (checked on every arc); else None."""
        if self.translations() is None:
            return None
        nxt, parent, plabel, inv_lab, d0 = self._walk_tables()
        n, n_lab = nxt.shape
        axes = [x for x in range(n_lab) if inv_lab[x] >= x]
        sides = []
        for x in axes:
            k, v = 1, int(nxt[0, x])
            while v != 0 and k <= n:
                v, k = int(nxt[v, x]), k + 1
            sides.append(k)
        if int(np.prod(sides, dtype=np.float64)) != n:
            return None
        axis_of = np.zeros(n_lab, dtype=np.int64)
        sign = np.ones(n_lab, dtype=np.int64)
        for i, x in enumerate(axes):
            axis_of[x] = axis_of[inv_lab[x]] = i
            if inv_lab[x] != x:
                sign[inv_lab[x]] = -1
        side = np.array(sides, dtype=np.int64)
        coord = np.zeros((n, len(axes)), dtype=np.int64)
        level = d0.astype(np.int64)
        for depth in range(1, int(level.max()) + 1):
            ws = np.flatnonzero(level == depth)
            coord[ws] = coord[parent[ws]]
            ax = axis_of[plabel[ws]]
            coord[ws, ax] = (coord[ws, ax] + sign[plabel[ws]]) % side[ax]
        lab = self.translations()
        src, dst = coord[self.msrc], coord[self.mdst].copy()
        ax = axis_of[lab]
        src[np.arange(len(lab)), ax] = (src[np.arange(len(lab)), ax] + sign[lab]) % side[ax]
        if not np.array_equal(src, dst):
            return None
        return coord

    def translate(self, a: np.ndarray, w: np.ndarray, *, inverse: bool = False) -> np.ndarray:
        """The translation taking node 0 to ``a[i]``, applied to ``w[i]`` (with ``inverse``: node
        0 to the inverse of ``w[i]``, i.e. follow w's labels backwards from ``a[i]``). Only on a
        translation-symmetric graph (:meth:`translations`)."""
        nxt, parent, plabel, inv_lab, _ = self._walk_tables()
        res = np.array(a, dtype=np.int64, copy=True)
        cur = np.array(w, dtype=np.int64, copy=True)
        todo = np.flatnonzero(cur != 0)
        while len(todo):
            x = plabel[cur[todo]]
            res[todo] = nxt[res[todo], inv_lab[x] if inverse else x]
            cur[todo] = parent[cur[todo]]
            todo = todo[cur[todo] != 0]
        return res

    def _target_distances(self, targets: np.ndarray):
        """Hop distances to ``targets`` as a (rows, nodes)-indexable table: the breadth-first rows, or
        on a translation-symmetric graph the distances to node 0 read in each target's frame
        (d(u, t) = d(u - t, 0)), with no search per target. Callers keep targets x nodes within
        ``TRANSLATED_ROWS_MAX`` (:meth:`_targets_per_table`)."""
        if self.translations() is None:
            return self.distances(targets)
        targets = np.asarray(targets, dtype=np.int64)
        xor = self.xor_coordinates()
        if xor is not None:
            return _XorRows(xor, xor[targets])
        key = targets.tobytes()
        if self._rows_memo is not None and self._rows_memo[0] == key:
            return self._rows_memo[1]
        # Dense rows: node w moved by -t, level by level down node 0's BFS tree (parents first).
        nxt, parent, plabel, _, d0 = self._walk_tables()
        moved = np.empty((self.n, len(targets)), dtype=np.int32)  # node-major: each level gathers whole rows
        moved[0] = self.translate(np.zeros(len(targets), dtype=np.int64), targets, inverse=True)
        nxt32 = nxt.astype(np.int32)
        level = np.where(np.isfinite(d0), d0, -1).astype(np.int64)
        for depth in range(1, int(level.max()) + 1):
            ws = np.flatnonzero(level == depth)
            moved[ws] = nxt32[moved[parent[ws]], plabel[ws][:, None]]
        table = _NodeMajor(d0[moved])
        self._rows_memo = (key, table)
        return table

    def _all_alike(self, cores: np.ndarray, weight: np.ndarray) -> bool:
        """Whether ``cores`` are all the nodes, of one weight."""
        cores = np.asarray(cores)
        if len(cores) != self.n or not len(weight) or np.any(weight != weight[0]):
            return False
        return bool(np.array_equal(np.sort(cores), np.arange(self.n)))

    def _symmetric(self, cores: np.ndarray, weight: np.ndarray) -> np.ndarray | None:
        """Macro-arc labels when ``cores`` are all the nodes, of one weight, on a translation-symmetric graph."""
        if not self._all_alike(cores, weight):
            return None
        return self.translations()

    def _uniform_symmetric(self, lab: np.ndarray, w: float):
        """:meth:`uniform_classes` on a translation-symmetric graph: one push, to node 0.

        Demand w^2 between every ordered pair; the load of arc (u, x) sums, over destinations t,
        the flow towards t on it, which is the flow towards 0 on the arc of label x at u - t: the
        total flow of label x towards 0. ECMP shares translate the same way (eta: the largest
        share of the label, omega: w x their sum).
        """
        n = self.n
        n_lab = int(lab.max()) + 1
        dem = np.full((1, n), w * w)
        dem[0, 0] = 0.0
        (_, e, flow, share), un = self.push(self.distances(np.array([0])), dem, detail=True)
        le = lab[e]
        load_l = np.bincount(le, weights=flow, minlength=n_lab)
        eta_l = np.zeros(n_lab)
        np.maximum.at(eta_l, le, share)
        omega_l = np.bincount(le, weights=w * share, minlength=n_lab)
        return self._to_links(load_l[lab]), float(un.sum()) * n, eta_l[lab], omega_l[lab]

    def _forward_symmetric(self, lab: np.ndarray, w: float, eta: np.ndarray):
        """:meth:`forward_bound` on a translation-symmetric graph with label-uniform ``eta``: one root."""
        n_lab = int(lab.max()) + 1
        eta_l = np.zeros(n_lab)
        np.maximum.at(eta_l, lab, eta)
        if np.any(eta != eta_l[lab]):
            return None
        usable = eta > 0
        r, e, su, Q = self.reach_fractions(np.array([0]), eta, usable)
        row_l = np.bincount(lab[e], weights=w * Q[su] * eta[e], minlength=n_lab)
        qmax = np.full(self.n, float(Q.max()) if len(Q) else 0.0)
        return row_l[lab], qmax

    # ------------------------------------------------------------------ mirror symmetry
    def mirrors(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The mirror images of a mesh-like core graph: (node maps, macro-arc maps), one row per
        element of the group they generate (the identity first), or None.

        A *mirror* swaps two labels x, y that are each other's reverse (the arc back from x's head
        leaves by y) and fixes the others: every node moves along its x/y line to the place as far
        from the line's y end as it was from its x end. It is kept when it is an automorphism that
        keeps labels up to that swap (checked on every arc), and mirrors of different pairs must
        commute. A box mesh has one per dimension: uniform traffic is then routed towards one
        destination per orbit. Not tried on translation-symmetric graphs (they have a better
        shortcut), with parallel links, or beyond 6 label pairs.
        """
        if self._mirrors is None:
            self._mirrors = (self._find_mirrors(),)
        return self._mirrors[0]

    def _find_mirrors(self) -> tuple[np.ndarray, np.ndarray] | None:
        n, nm = self.n, len(self.msrc)
        if n < 3 or not nm or np.any(self.mult != 1) or self.translations() is not None:
            return None
        found = self._macro_labels()
        if found is None:
            return None
        lab, n_lab = found
        if n_lab > 12 or np.any(np.bincount(self.msrc * n_lab + lab, minlength=n * n_lab) > 1):
            return None
        nxt = np.full((n, n_lab), -1, dtype=np.int64)
        nxt[self.msrc, lab] = self.mdst
        back = lab[self._macro(self.mdst, self.msrc)]
        inv = np.full(n_lab, -1, dtype=np.int64)
        for x in range(n_lab):
            ys = np.unique(back[lab == x])
            if len(ys) != 1:
                return None
            inv[x] = ys[0]
        if np.any(inv[inv] != np.arange(n_lab)):
            return None

        def keeps(pi: np.ndarray, sigma: np.ndarray) -> bool:
            """Whether node map ``pi`` takes every arc to an arc, its label through ``sigma``."""
            return bool(np.all(pi >= 0) and np.all(np.bincount(pi, minlength=n) == 1)
                        and np.array_equal(nxt[pi[self.msrc], sigma[lab]], pi[self.mdst]))

        def run(step_label: int) -> np.ndarray | None:
            """Steps each node can take along one label before its line ends (None: a line closes
            into a ring)."""
            c = np.zeros(n, dtype=np.int64)
            cur = np.arange(n)
            live = np.flatnonzero(nxt[cur, step_label] >= 0)
            for _ in range(n):
                if not len(live):
                    return c
                c[live] += 1
                cur[live] = nxt[cur[live], step_label]
                if np.any(cur[live] == live):  # back where it started: a ring
                    return None
                live = live[nxt[cur[live], step_label] >= 0]
            return None

        gens: list[tuple[np.ndarray, np.ndarray]] = []
        for x in range(n_lab):
            y = int(inv[x])
            if y <= x:
                continue
            to_x, to_y = run(x), run(y)
            if to_x is None or to_y is None:
                continue
            shift = to_x - to_y  # move this many steps along x (negative: along y)
            pi = np.arange(n)
            for label, steps in ((x, shift), (y, -shift)):
                live = np.flatnonzero(steps > 0)
                left = steps[live]
                while len(live):
                    pi[live] = nxt[pi[live], label]
                    left = left - 1
                    live, left = live[left > 0], left[left > 0]
            sigma = np.arange(n_lab)
            sigma[x], sigma[y] = y, x
            if keeps(pi, sigma):
                gens.append((pi, self._macro(pi[self.msrc], pi[self.mdst])))
        if not gens:
            return self._pinned_mirrors(nxt, lab, inv, keeps)
        for i, (a, _) in enumerate(gens):
            for b, _ in gens[i + 1 :]:
                if not np.array_equal(a[b], b[a]):
                    return None
        pis, arcs = [np.arange(n)], [np.arange(nm)]
        for pi, al in gens:
            pis += [pi[q] for q in pis]
            arcs += [al[q] for q in arcs]
        return np.stack(pis), np.stack(arcs)

    def _pinned_mirrors(self, nxt: np.ndarray, lab: np.ndarray, inv: np.ndarray, keeps
                        ) -> tuple[np.ndarray, np.ndarray] | None:
        """The mirrors of a torus or hypercube that lost its translations to a few missing links.

        The nodes short of the full degree (the ends of the missing links, at most 8) go to one
        another under any automorphism. For every set of label pairs to swap and every such node
        as the image of the first one, the map is grown along a breadth-first tree from that node
        (a child's image is the image of its parent followed by the swapped label) and kept when
        every arc maps to an arc: all the label-swapping automorphisms, a group.
        """
        n = self.n
        deg = np.diff(self._out_ptr)
        short = np.flatnonzero(deg < deg.max())
        pairs = [(x, int(inv[x])) for x in range(len(inv)) if inv[x] > x]
        if not 1 <= len(short) <= 8 or len(pairs) > 6:
            return None
        u0 = int(short[0])
        d0 = self.distances(np.array([u0]))[0]
        if not np.isfinite(d0).all():
            return None
        closer = d0[self.msrc] + 1 == d0[self.mdst]
        parent = np.full(n, -1, dtype=np.int64)
        plabel = np.zeros(n, dtype=np.int64)
        parent[self.mdst[closer]] = self.msrc[closer]
        plabel[self.mdst[closer]] = lab[closer]
        levels = [np.flatnonzero(d0 == depth) for depth in range(1, int(d0.max()) + 1)]
        pis, arcs = [], []
        for mask in range(1 << len(pairs)):
            sigma = np.arange(len(inv))
            for i, (x, y) in enumerate(pairs):
                if mask >> i & 1:
                    sigma[x], sigma[y] = y, x
            for v0 in short.tolist():
                pi = np.full(n, -1, dtype=np.int64)
                pi[u0] = v0
                for ws in levels:
                    up = pi[parent[ws]]
                    pi[ws] = np.where(up >= 0, nxt[np.maximum(up, 0), sigma[plabel[ws]]], -1)
                if keeps(pi, sigma):
                    pis.append(pi)
                    arcs.append(self._macro(pi[self.msrc], pi[self.mdst]))
        if len(pis) < 2:
            return None
        first = next(i for i, pi in enumerate(pis) if np.array_equal(pi, np.arange(n)))
        order = [first] + [i for i in range(len(pis)) if i != first]
        return np.stack([pis[i] for i in order]), np.stack([arcs[i] for i in order])

    def _uniform_mirrored(self, group: tuple[np.ndarray, np.ndarray], w: float):
        """:meth:`uniform_classes` with every node a core of weight w on a mirror-symmetric graph:
        one push per orbit of destinations, its loads and shares carried to the orbit's other
        members by the mirrors (each destination counted once: divided by its stabiliser)."""
        pis, arcs = group
        n, nm = self.n, len(self.msrc)
        reps = np.flatnonzero(pis.min(axis=0) == np.arange(n))
        images = np.sort(pis[:, reps], axis=0)
        orbit = 1 + (np.diff(images, axis=0) != 0).sum(axis=0)
        scale = orbit / len(pis)
        flow_r, omega_r, eta_r = np.zeros(nm), np.zeros(nm), np.zeros(nm)
        lost = 0.0
        step = max(1, CHUNK_ELEMENTS // max(nm, 1))
        self.prefetch(reps)
        for i in range(0, len(reps), step):
            rr = reps[i : i + step]
            dem = np.full((len(rr), n), w * w)
            dem[np.arange(len(rr)), rr] = 0.0
            (r, e, flow, share), un = self.push(self.distances(rr), dem, detail=True)
            sc = scale[i : i + step]
            flow_r += np.bincount(e, weights=flow * sc[r], minlength=nm)
            omega_r += np.bincount(e, weights=w * share * sc[r], minlength=nm)
            np.maximum.at(eta_r, e, share)
            lost += float((un * orbit[i : i + step]).sum())
        load, omega, eta = np.zeros(nm), np.zeros(nm), np.zeros(nm)
        for al in arcs:
            load[al] += flow_r
            omega[al] += omega_r
            eta[al] = np.maximum(eta[al], eta_r)
        return self._to_links(load), lost, eta, omega

    def _forward_mirrored(self, group: tuple[np.ndarray, np.ndarray], w: float, eta: np.ndarray):
        """:meth:`forward_bound` from every node (weight w) on a mirror-symmetric graph with a
        mirror-invariant ``eta``: one forward pass per orbit of sources; None if eta is not invariant."""
        pis, arcs = group
        n, nm = self.n, len(self.msrc)
        if any(not np.array_equal(eta[al], eta) for al in arcs):
            return None
        reps = np.flatnonzero(pis.min(axis=0) == np.arange(n))
        images = np.sort(pis[:, reps], axis=0)
        scale = (1 + (np.diff(images, axis=0) != 0).sum(axis=0)) / len(pis)
        usable = eta > 0
        row_r = np.zeros(nm)
        q_r = np.zeros(n)
        step = max(1, CHUNK_ELEMENTS // max(nm, 1))
        self.prefetch(reps)
        for i in range(0, len(reps), step):
            rr = reps[i : i + step]
            r, e, su, Q = self.reach_fractions(rr, eta, usable)
            row_r += np.bincount(e, weights=w * scale[i : i + step][r] * Q[su] * eta[e], minlength=nm)
            q_r = np.maximum(q_r, Q.reshape(len(rr), n).max(axis=0))
        row, qmax = np.zeros(nm), np.zeros(n)
        for pi, al in zip(pis, arcs, strict=True):
            row[al] += row_r
            qmax[pi] = np.maximum(qmax[pi], q_r)
        return row, qmax


class _XorRows:
    """``D[rows, nodes]`` on a hypercube: popcount of the two group elements' difference."""

    def __init__(self, coord: np.ndarray, target_coord: np.ndarray) -> None:
        self.coord = coord
        self.target_coord = target_coord

    def __getitem__(self, index: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        rows, nodes = index
        return np.bitwise_count(self.target_coord[rows] ^ self.coord[nodes]).astype(np.float32)


class _NodeMajor:
    """``D[rows, nodes]`` over a table stored node-major (``table[node, row]``)."""

    def __init__(self, table: np.ndarray) -> None:
        self.table = table

    def __getitem__(self, index: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        rows, nodes = index
        return self.table[nodes, rows]
