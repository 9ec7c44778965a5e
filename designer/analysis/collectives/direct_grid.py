"""The structure of a torus, mesh or hypercube of direct chip links, as the collectives use it.

:func:`grid_of` reads it (the generators' coordinates on every chip, or the links of an intact
torus or hypercube, :meth:`designer.analysis.fabric.twins.CoreRouter.grid_coordinates`) and checks it
against the links; :func:`hamiltonian_cycle` and :func:`working_cycle` give the cycle the
bidirectional ring runs on (moved off links that are down); :func:`order_servers` puts NCCL's ring
and tree in that order. The algorithms are in :mod:`designer.analysis.collectives.direct`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.analysis.collectives.embedding import Embedder
from designer.analysis.fabric.capacity import K_GPU, P_DIRECT
from designer.model import units


@dataclass(frozen=True, eq=False)
class Grid:
    """The GPUs taking part as a box of chips with direct links between neighbours.

    ``cells``: GPU position (in ``fabric.gpus``) at each coordinate, shape ``dims``. ``ring[d]``:
    per line of dimension d (:meth:`lines`) whether it is a working ring (every link up,
    wrap-around included); otherwise a path. ``wrapped``: per dimension, whether its lines were
    built with wrap-around links (working or not). ``cut``: ids of the down links that break a
    line (a mesh line's link, or a second link of a torus line); ``cut_wrap``: ids of the single
    down link of torus lines that run as paths.
    """

    kind: str
    dims: tuple[int, ...]
    cells: np.ndarray
    line_cells: tuple[np.ndarray, ...]
    ring: tuple[np.ndarray, ...]
    wrapped: tuple[bool, ...]
    cut: tuple[str, ...]
    cut_wrap: tuple[str, ...]
    dead: dict[int, str]  # node-pair key -> id of a design link between grid chips that is down
    working: np.ndarray  # sorted keys a * n + b (a < b, capacity-graph nodes) of working direct links
    wire_s: float  # longest wire latency of a working direct link of the grid, seconds

    @property
    def active(self) -> list[int]:
        """Dimensions of two or more chips."""
        return [d for d, k in enumerate(self.dims) if k >= 2]

    def lines(self, d: int) -> np.ndarray:
        """The lines of dimension ``d`` (one a row), each in the order its links run: a ring, or a
        path (a wrap-around line with one link down starts after that link)."""
        return self.line_cells[d]

    @property
    def shape_text(self) -> str:
        if self.kind == "hypercube":
            return f"{len(self.active)}-dimensional"
        return "x".join(str(k) for k in self.dims)


def _pair_keys(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return lo.astype(np.int64) * n + hi


def _member(keys: np.ndarray, table: np.ndarray) -> np.ndarray:
    if not len(table):
        return np.zeros(len(keys), dtype=bool)
    i = np.minimum(np.searchsorted(table, keys), len(table) - 1)
    return table[i] == keys


def _graph_coordinates(E: Embedder) -> tuple[str, np.ndarray] | None:
    """(kind, coordinates) read from the links when every core node is a GPU and the core graph is
    a torus or hypercube (:meth:`CoreRouter.grid_coordinates`: tori with every ring of 3 or more,
    hypercubes); meshes and rings of 2 are not read this way."""
    ctx = E.ctx
    fab = ctx.fabric
    if not len(fab.core_nodes) or (ctx.cap.node_kind[fab.core_nodes] != K_GPU).any():
        return None
    core = fab.core_of[fab.gpus[E.members]]
    if (core < 0).any():
        return None
    coord = ctx.router.grid_coordinates()
    if coord is None:
        return None
    return ("hypercube" if (coord.max(axis=0) == 1).all() else "torus"), coord[core]


def _coordinates(E: Embedder) -> tuple[str, np.ndarray] | None:
    """(kind, p x n integer coordinates) from the chips' generator properties, or else from the
    links (:func:`_graph_coordinates`), or None."""
    ctx = E.ctx
    devices = ctx.design.devices
    nodes = ctx.fabric.gpus[E.members]
    props = [devices[int(i)].properties for i in nodes.tolist()]
    first = props[0] if props else {}
    if "coords" not in first and "label" not in first:
        return _graph_coordinates(E)
    if "coords" in first:
        rows = [pr.get("coords") for pr in props]
        if not all(isinstance(r, list) and r and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                                     for v in r) for r in rows):
            return None
        n = len(rows[0])
        if any(len(r) != n for r in rows):
            return None
        return "torus", np.array(rows, dtype=np.int64).reshape(len(rows), n)
    if "label" in first:
        labels = [pr.get("label") for pr in props]
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in labels):
            return None
        lab = np.array(labels, dtype=np.int64)
        n = max(int(lab.max()).bit_length(), 1)
        # one coordinate per bit; bits the chips share are sides of 1 (a sub-cube is a hypercube too)
        return "hypercube", (lab[:, None] >> np.arange(n)[None, :]) & 1
    return None


def grid_of(E: Embedder) -> Grid | None:
    """The GPUs taking part as a torus, mesh or hypercube of direct links, or None (kept in ctx.memo)."""
    key = ("direct-grid", E.members.tobytes())
    memo = E.ctx.memo
    if key not in memo:
        memo[key] = _grid(E)
    return memo[key]


def _grid(E: Embedder) -> Grid | None:
    ctx = E.ctx
    cap, fab = ctx.cap, ctx.fabric
    if E.p < 2:
        return None
    got = _coordinates(E)
    if got is None:
        return None
    kind, coords = got
    ranks = []
    dims = []
    for col in coords.T:
        vals, inv = np.unique(col, return_inverse=True)
        ranks.append(inv.reshape(-1))
        dims.append(len(vals))
    if int(np.prod(dims)) != E.p:
        return None
    cells = np.full(dims, -1, dtype=np.int64)
    cells[tuple(ranks)] = E.members
    if (cells < 0).any():
        return None
    n_nodes = cap.n_nodes
    direct = (cap.protocol == P_DIRECT) & (cap.node_kind[cap.a] == K_GPU) & (cap.node_kind[cap.b] == K_GPU)
    working = np.unique(_pair_keys(cap.a[direct], cap.b[direct], n_nodes))
    # Links in the design that the analysis left out (failed, zero rate), by node pair.
    dead: dict[int, str] = {}
    design = ctx.design
    for link_id, _ in cap.excluded:
        lk = design.link(link_id)
        a, b = cap.index.get(lk.a_device, -1), cap.index.get(lk.b_device, -1)
        if a >= 0 and b >= 0 and cap.node_kind[a] == K_GPU and cap.node_kind[b] == K_GPU:
            dead.setdefault(int(_pair_keys(np.array([a]), np.array([b]), n_nodes)[0]), link_id)
    dead_keys = np.array(sorted(dead), dtype=np.int64)
    node = fab.gpus
    cut: list[str] = []
    cut_wrap: list[str] = []
    rings: list[np.ndarray] = []
    lines_of: list[np.ndarray] = []
    wrapped: list[bool] = []
    for d, k in enumerate(dims):
        lines = np.moveaxis(cells, d, -1).reshape(-1, k)
        ring = np.zeros(len(lines), dtype=bool)
        built = False
        if k >= 2:
            # edge i joins lines[:, i] and lines[:, i + 1]; edge k - 1 is the wrap-around (rings of 3 or more)
            ends = np.roll(lines, -1, axis=1) if k >= 3 else lines[:, 1:]
            starts = lines if k >= 3 else lines[:, :1]
            keys = _pair_keys(node[starts], node[ends], n_nodes)
            up = _member(keys.ravel(), working).reshape(keys.shape)
            down = _member(keys.ravel(), dead_keys).reshape(keys.shape)
            if k >= 3:
                has_wrap = up[:, -1] | down[:, -1]
                built = bool(has_wrap.any())
            else:
                has_wrap = np.zeros(len(lines), dtype=bool)
            inner = slice(0, k - 1)
            if not (up[:, inner] | down[:, inner]).all():
                return None  # neighbours without a link: not a grid of direct links
            ring = has_wrap & up.all(axis=1)
            # A wrap-around line with one link down is still a path: start it after that link.
            n_down = (~up).sum(axis=1)
            once = has_wrap & (n_down == 1)
            if once.any():
                e = np.argmax(~up[once], axis=1)
                shift = (np.arange(k)[None, :] + e[:, None] + 1) % k
                cut_wrap += [dead[int(x)] for x in keys[once][np.arange(len(e)), e]]
                lines = lines.copy()
                lines[once] = np.take_along_axis(lines[once], shift, axis=1)
            broken = np.where(has_wrap, n_down > 1, (~up[:, inner]).any(axis=1))
            if broken.any():
                bad = keys[broken][~up[broken] & (down[broken])]
                cut += [dead[int(x)] for x in bad]
        rings.append(ring)
        lines_of.append(lines)
        wrapped.append(built)
    if kind == "torus" and not any(wrapped):
        kind = "mesh"
    on_grid = direct & np.isin(cap.a, node[E.members]) & np.isin(cap.b, node[E.members])
    wire = float(cap.wire_latency_s[on_grid].max()) if on_grid.any() else 0.0
    return Grid(kind, tuple(dims), cells, tuple(lines_of), tuple(rings), tuple(wrapped), tuple(cut), tuple(cut_wrap),
                dead, working, wire)


# --------------------------------------------------------------------------- Hamiltonian orders
def snake(dims: tuple[int, ...]) -> np.ndarray:
    """Coordinates (p x n) of the reflected mixed-radix Gray code over ``dims``: a Hamiltonian
    path of the mesh, consecutive chips neighbours (dimension 0 most significant).

    >>> snake((2, 3)).tolist()
    [[0, 0], [0, 1], [0, 2], [1, 2], [1, 1], [1, 0]]
    """
    if not dims:
        return np.zeros((1, 0), dtype=np.int64)
    sub = snake(dims[1:])
    blocks = [np.concatenate([np.full((len(sub), 1), x, dtype=np.int64), sub if x % 2 == 0 else sub[::-1]],
                             axis=1) for x in range(dims[0])]
    return np.concatenate(blocks)


def hamiltonian_cycle(dims: tuple[int, ...], wrapped: tuple[bool, ...], even_side: int | None = None
                      ) -> np.ndarray | None:
    """Coordinates (p x n) of a Hamiltonian cycle of neighbour links, or None when this
    construction has none (a path; a mesh or torus with every side odd, beyond a single ring).

    With a dimension of even size a (``even_side``, default the first such): row 0 of that
    dimension runs along a snake of the others,
    the rows 1..a-1 snake back and forth over all but the snake's first chip, and the cycle
    returns along that first chip's column: only mesh links, no wrap-around needed. A single
    dimension is a ring when it wraps (or has 2 chips). On a hypercube (every side 2) this is a
    Gray-code cycle.

    >>> hamiltonian_cycle((2, 2), (False, False)).tolist()
    [[0, 0], [0, 1], [1, 1], [1, 0]]
    """
    active = [d for d, k in enumerate(dims) if k >= 2]
    n = len(dims)
    if not active:
        return None
    if len(active) == 1:
        d = active[0]
        k = dims[d]
        if k > 2 and not wrapped[d]:
            return None
        out = np.zeros((k, n), dtype=np.int64)
        out[:, d] = np.arange(k)
        return out
    even = [d for d in active if dims[d] % 2 == 0]
    if not even:
        return None
    a = even[0] if even_side is None else even_side
    if a not in even:
        raise ValueError(f"dimension {a} is not of even size in {dims}")
    rest = [d for d in active if d != a]
    path = snake(tuple(dims[d] for d in rest))  # b x len(rest)
    b = len(path)
    xs: list[np.ndarray] = [np.zeros(b, dtype=np.int64)]
    js: list[np.ndarray] = [np.arange(b)]
    for x in range(1, dims[a]):
        j = np.arange(b - 1, 0, -1) if x % 2 == 1 else np.arange(1, b)
        xs.append(np.full(b - 1, x, dtype=np.int64))
        js.append(j)
    back = np.arange(dims[a] - 1, 0, -1)
    xs.append(back)
    js.append(np.zeros(len(back), dtype=np.int64))
    x = np.concatenate(xs)
    j = np.concatenate(js)
    out = np.zeros((len(x), n), dtype=np.int64)
    out[:, a] = x
    for i, d in enumerate(rest):
        out[:, d] = path[j, i]
    return out


def cycle_positions(grid: Grid) -> np.ndarray | None:
    """The constructed Hamiltonian cycle as GPU positions, links up or not (None: no cycle)."""
    cyc = hamiltonian_cycle(grid.dims, grid.wrapped)
    if cyc is None:
        return None
    return grid.cells[tuple(cyc.T)]


def _cycle_candidates(grid: Grid):
    """Hamiltonian cycles (coordinates) to try, the constructed one first: every even side as the
    one it returns along, each mirrored in any set of dimensions (a mirror image of a mesh or
    torus is the same mesh or torus), then shifted along each wrap-around dimension."""
    dims, active = grid.dims, grid.active
    base = hamiltonian_cycle(dims, grid.wrapped)
    if base is None:
        return
    sides = [d for d in active if dims[d] % 2 == 0] if len(active) > 1 else []
    for a in sides or [None]:
        cyc = base if a is None else hamiltonian_cycle(dims, grid.wrapped, a)
        for mask in range(1 << len(active)):
            out = cyc.copy()
            for i, d in enumerate(active):
                if mask >> i & 1:
                    out[:, d] = dims[d] - 1 - out[:, d]
            yield out
    for d in active:
        if grid.wrapped[d]:
            for shift in range(1, dims[d]):
                out = base.copy()
                out[:, d] = (out[:, d] + shift) % dims[d]
                yield out


def working_cycle(E: Embedder) -> tuple[np.ndarray | None, str]:
    """GPU positions along a Hamiltonian cycle whose links are all up, and "" when it is the
    constructed one, else a note saying it was moved; (None, why) when every candidate crosses a
    link that is down (or the grid has no cycle). Kept in ctx.memo."""
    key = ("direct-cycle", E.members.tobytes())
    memo = E.ctx.memo
    if key in memo:
        return memo[key]
    grid = grid_of(E)
    node = E.ctx.fabric.gpus
    n_nodes = E.ctx.cap.n_nodes
    out: tuple[np.ndarray | None, str] = (None, "" if grid is None else no_cycle_reason(grid))
    first_down: list[str] = []
    for i, cyc in enumerate(_cycle_candidates(grid) if grid is not None else ()):
        pos = grid.cells[tuple(cyc.T)]
        keys = _pair_keys(node[pos], node[np.roll(pos, -1)], n_nodes)
        down = ~_member(keys, grid.working)
        if not down.any():
            moved = "" if i == 0 else (
                f"its Hamiltonian cycle is moved (mirrored or shifted) to avoid {units.count(len(first_down), 'link')} "
                f"that {units.plural(len(first_down), 'is', 'are')} down ({', '.join(first_down[:3])}"
                f"{'...' if len(first_down) > 3 else ''})")
            out = (pos, moved)
            break
        if i == 0:
            first_down = [grid.dead[int(x)] for x in keys[down] if int(x) in grid.dead]
            out = (None, cut_text(first_down, "of its Hamiltonian cycle") + ", and so is a link of every mirror "
                   "and shift of that cycle")
    memo[key] = out
    return out


def no_cycle_reason(grid: Grid) -> str:
    if len(grid.active) == 1:
        return f"the chips form a line without wrap-around ({grid.shape_text} mesh): a path has no cycle"
    return (f"every side of the {grid.shape_text} {grid.kind} is odd: the bidirectional ring needs a Hamiltonian "
            "cycle, built here from a side of even length")


def order_servers(E: Embedder) -> None:
    """On a torus, mesh or hypercube of single-chip servers, put the servers in Hamiltonian order
    (the cycle of :func:`hamiltonian_cycle`, else the snake path), so that NCCL's ring and tree
    follow the direct links instead of the design order (each ring flow one hop). Leaves ``E``
    alone otherwise."""
    grid = grid_of(E)
    if grid is None or len(E.nodes) != E.p:
        return
    order = working_cycle(E)[0]
    if order is None:
        order = grid.cells[tuple(snake(grid.dims).T)]
    E.set_nodes([order[i : i + 1] for i in range(len(order))])


def cut_text(ids: tuple[str, ...] | list[str], what: str) -> str:
    n = len(ids)
    return (f"{units.count(n, 'direct link')} {what} {units.plural(n, 'is', 'are')} down "
            f"({', '.join(ids[:3])}{'...' if n > 3 else ''}: failed or zero rate)")
