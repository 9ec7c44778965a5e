"""Collectives of accelerators linked directly to each other: tori, meshes and hypercubes.

A torus, mesh or hypercube of chips (``gpu`` devices with network ports of their own, linked
without a switch or NIC between: the ``torus`` and ``hypercube`` generators, TPU ICI style) runs
collectives that use its structure instead of NCCL's switched-fabric rings and trees. The
structure is read from the coordinates the generators write on every chip (``properties.coords``
on a torus or mesh, ``properties.label`` on a hypercube), or without them from the links of an
intact torus or hypercube (:meth:`designer.analysis.twins.CoreRouter.grid_coordinates`), and
checked against the links: every pair of neighbours must be linked. A link that is in the design
but failed (or of zero rate): a torus line with one such link runs as a path (the linear
algorithm there, with a note); a second one in a line, or one in a mesh or hypercube line, makes
the per-dimension algorithms *cannot run*; a Hamiltonian cycle crossing one is moved (mirrored,
shifted, another even side) when that avoids it, else the bidirectional ring cannot run.

Algorithms (flows are (source GPU, destination GPU, bytes per message byte), routed with
:meth:`designer.analysis.embedding.Embedder.phase`; every flow crosses one link):

- **bidir-ring**: two rings in opposite directions along a Hamiltonian cycle of direct links
  (snake order on a torus or mesh, the reflected Gray code on a hypercube), each on half the
  data. All-reduce: 2(p-1) steps, each link direction carries (p-1)/p x S; busbw = 2 links' worth.
- **multi-dim** (tori and meshes): reduce-scatter along one dimension after the other, each on
  1/k of the data the previous one left, then all-gather back in reverse order (the 2-D torus
  all-reduce of Ying et al., "Image Classification at Supercomputer Scale", arXiv:1811.06992,
  2018, on TPU v3 pods, in n dimensions). Modelling choice: the data is split into as many shards
  as dimensions, shard j starting at dimension j, so that at every phase each dimension's links
  carry one shard and every link is busy. Each line of a dimension runs two rings in opposite directions on
  half its shard; a line without wrap-around (mesh) is a path and runs the bidirectional linear
  algorithm, whose end links carry (k-1)/k of the shard each way, twice a ring's load. On a torus
  of equal sides the busbw tends to (links per chip) x (effective link rate): each chip sends
  2(p-1)/p x S over its 2n links, the all-reduce lower bound.
- **halving-doubling** (hypercubes): recursive halving (reduce-scatter: at step d exchange half of
  the remaining data with the neighbour across dimension d) then recursive doubling (all-gather)
  (Thakur, Rabenseifner and Gropp, "Optimization of Collective Communication Operations in MPICH",
  IJHPCA 19(1), 2005), run as n shards each starting at another dimension so that every step uses
  every dimension's links (the all-port hypercube schedule). 2 log2 p steps.

Latency: NCCL's ring base latency per call, plus per step the direct-link step latency
(:data:`designer.analysis.constants.DIRECT_STEP_LATENCY_S`) and the longest direct link's wire
latency; protocols LL, LL128, Simple with the ring's bandwidth factors.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from designer.analysis import constants as K
from designer.analysis.algorithms import AlgorithmModel
from designer.analysis.capacity import K_GPU, P_DIRECT
from designer.analysis.embedding import Embedder, Phase, Unroutable
from designer.model import units

#: The algorithms of this module, by collective (registered in ``collectives.ALGORITHMS``).
DIRECT_ALGORITHMS = ("bidir-ring", "multi-dim", "halving-doubling")
#: Collectives they model: all-reduce, and its two halves.
DIRECT_COLLECTIVES = ("allreduce", "reducescatter", "allgather")

_NEEDS = ("the GPUs taking part to form a whole torus, mesh or hypercube of direct links (the torus and "
          "hypercube generators' coordinates on every chip, every pair of neighbours linked)")


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


def _cycle_positions(grid: Grid) -> np.ndarray | None:
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
    out: tuple[np.ndarray | None, str] = (None, "" if grid is None else _no_cycle_reason(grid))
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
            out = (None, _cut_text(first_down, "of its Hamiltonian cycle") + ", and so is a link of every mirror "
                   "and shift of that cycle")
    memo[key] = out
    return out


def _no_cycle_reason(grid: Grid) -> str:
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
    E.nodes = [order[i : i + 1] for i in range(len(order))]
    vars(E).pop("_grid_cache", None)


# --------------------------------------------------------------------------- applicability
def unavailable_reason(E: Embedder, algo: str) -> str | None:
    """None if ``algo`` (one of :data:`DIRECT_ALGORITHMS`) applies to the GPUs taking part, else why not."""
    grid = grid_of(E)
    if grid is None:
        return f"{algo} needs {_NEEDS}"
    if algo == "bidir-ring" and _cycle_positions(grid) is None:
        return _no_cycle_reason(grid)
    if algo == "multi-dim" and grid.kind == "hypercube":
        return "multi-dim runs on tori and meshes; a hypercube runs it as halving-doubling"
    if algo == "halving-doubling" and grid.kind != "hypercube":
        return f"halving-doubling needs a hypercube; the GPUs form a {grid.shape_text} {grid.kind}"
    return None


def notes(E: Embedder, algos) -> list[str]:
    """Notes on the structured algorithms modelled: torus lines that fall back to paths, a
    Hamiltonian cycle moved off links that are down."""
    grid = grid_of(E)
    if grid is None:
        return []
    out = []
    used = [a for a in algos if a in ("multi-dim", "halving-doubling")]
    if used and grid.cut_wrap and not grid.cut:
        ids = grid.cut_wrap
        n = len(ids)
        out.append(f"{', '.join(used)}: {units.count(n, 'torus line')} with one link down ({', '.join(ids[:3])}"
                   f"{'...' if n > 3 else ''}: failed or zero rate) {units.plural(n, 'runs', 'run')} as a path, the "
                   "bidirectional linear algorithm instead of rings")
    if "bidir-ring" in algos:
        moved = working_cycle(E)[1]
        if moved:
            out.append(f"bidir-ring: {moved}; the ring and tree follow the moved cycle too")
    return out


def _cut_text(ids: tuple[str, ...] | list[str], what: str) -> str:
    n = len(ids)
    return (f"{units.count(n, 'direct link')} {what} {units.plural(n, 'is', 'are')} down "
            f"({', '.join(ids[:3])}{'...' if n > 3 else ''}: failed or zero rate)")


# --------------------------------------------------------------------------- models
def _latency(grid: Grid, steps: int) -> tuple[dict[str, float], dict[str, float]]:
    lat = {proto: K.BASE_LATENCY_S[("ring", proto)] + steps * (K.DIRECT_STEP_LATENCY_S[proto] + grid.wire_s)
           for proto in K.PROTOCOLS}
    bw = {proto: K.PROTOCOL_BW_FACTOR[("ring", proto)] for proto in K.PROTOCOLS}
    return lat, bw


def _rounds(collective: str) -> int:
    return 2 if collective == "allreduce" else 1


def bidir_ring_model(E: Embedder, collective: str) -> AlgorithmModel:
    grid = grid_of(E)
    p = E.p
    cyc, moved = working_cycle(E)
    if cyc is None:
        raise Unroutable(moved)
    rounds = _rounds(collective)
    factor = rounds * (p - 1) / p
    src = np.concatenate([cyc, cyc])
    dst = np.concatenate([np.roll(cyc, -1), np.roll(cyc, 1)])
    ph = E.phase(src, dst, np.full(len(src), factor / 2))
    steps = rounds * (p - 1)
    lat, bw = _latency(grid, steps)
    how = "Gray code" if grid.kind == "hypercube" else "snake order"
    how += "; " + moved if moved else ""
    formula = (f"bidirectional ring: two rings in opposite directions along a Hamiltonian cycle of direct links "
               f"({how} over the {grid.shape_text} {grid.kind}), S/2 each, every flow one hop; t = {steps} steps x "
               f"(direct step + wire latency) + {factor / 2:.4g} x S per ring flow / effective link rate")
    return AlgorithmModel(collective, "bidir-ring", p, E.m, (ph,), lat, bw, formula)


def _line_flows(grid: Grid, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flows of a reduce-scatter of one byte per chip along every line of dimension ``d``: rings
    (two directions, half each) or paths (the bidirectional linear algorithm)."""
    k = grid.dims[d]
    lines = grid.lines(d)
    ring = grid.ring[d]
    src, dst, w = [], [], []
    rl = lines[ring]
    if len(rl):
        for shift in (-1, 1):
            src.append(rl.ravel())
            dst.append(np.roll(rl, shift, axis=1).ravel())
            w.append(np.full(rl.size, (k - 1) / k / 2))
    pl = lines[~ring]
    if len(pl):
        i = np.arange(k - 1)
        src += [pl[:, :-1].ravel(), pl[:, 1:].ravel()]
        dst += [pl[:, 1:].ravel(), pl[:, :-1].ravel()]
        w += [np.tile((k - 1 - i) / k, len(pl)), np.tile((i + 1) / k, len(pl))]
    return np.concatenate(src), np.concatenate(dst), np.concatenate(w)


def per_dimension_model(E: Embedder, collective: str, algo: str) -> AlgorithmModel:
    """``multi-dim`` on a torus or mesh, ``halving-doubling`` on a hypercube (see the module docstring)."""
    grid = grid_of(E)
    if grid.cut:
        raise Unroutable(_cut_text(grid.cut, "between neighbours") + f": {algo} needs every line of the "
                         f"{grid.shape_text} {grid.kind} joined")
    act = grid.active
    na = len(act)
    # Each dimension's reduce-scatter of one byte per chip, routed once; the phases scale it. Every
    # flow crosses one link, so the dimensions load disjoint arcs: one array holds them all, with
    # the dimension each arc belongs to.
    seg: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    unit = np.zeros(2 * E.ctx.cap.n_links)
    owner = np.full(len(unit), -1, dtype=np.int64)
    for slot, d in enumerate(act):
        fl = _line_flows(grid, d)
        seg.append(fl)
        load = E.phase(*fl).arc_load_per_byte
        on = load > 0
        if (owner[on] >= 0).any():
            raise AssertionError("two dimensions share a link")  # one-hop flows on a grid never do
        unit[on] = load[on]
        owner[on] = slot
    src = np.concatenate([x[0] for x in seg])
    dst = np.concatenate([x[1] for x in seg])
    # Seconds per byte of one byte per chip reduced along each dimension (its busiest link).
    eff = E.arc_eff
    cost = np.array([float(np.max(unit[owner == s_] / eff[owner == s_])) for s_ in range(na)])
    shares = shard_sizes([grid.dims[d] for d in act], cost)
    phases: list[Phase] = []
    steps_rs = 0
    for i in range(na):
        # phase i: shard j reduces along dimension act[(j + i) % na], on its share of the data divided
        # by the sides of the dimensions it went through before
        frac = np.zeros(na)
        for j in range(na):
            f = float(shares[j])
            for t in range(i):
                f /= grid.dims[act[(j + t) % na]]
            frac[(j + i) % na] = f
        load = np.where(owner >= 0, unit * frac[owner], 0.0)
        w = np.concatenate([x[2] * frac[k] for k, x in enumerate(seg)])
        ph = E._phase_from_load(load, (src, dst, w))
        phases.append(replace(ph, routed=True))
        steps_rs += max(grid.dims[d] - 1 for d in act)
    rounds = _rounds(collective)
    # All-gather moves what reduce-scatter did, phases in reverse order, every flow reversed: each one
    # crosses one link, so its load moves to the link's other direction (arc k <-> k + links). On rings
    # and pairs the reversed flows are the same set: the same phase.
    symmetric = all(grid.ring[d].all() or grid.dims[d] == 2 for d in act)
    gather = [ph if symmetric else _reversed(E, ph) for ph in reversed(phases)]
    all_phases = tuple({"reducescatter": phases, "allgather": gather}.get(collective, phases + gather))
    steps = rounds * steps_rs
    lat, bw = _latency(grid, steps)
    part = {"allreduce": "reduce-scatter then all-gather", "reducescatter": "reduce-scatter",
            "allgather": "all-gather"}[collective]
    share_text = ("S/" + str(na) + " each" if np.allclose(shares, 1.0 / na) else
                  "shares " + " / ".join(f"{100 * x:.0f}%" for x in shares) + " of S, sized by a linear program to "
                  "balance the phases on unequal sides")
    if algo == "halving-doubling":
        formula = (f"recursive halving-doubling on the {grid.shape_text} hypercube: {part}, each step exchanging "
                   f"half the remaining data with the neighbour across one dimension; {na} shards of S/{na}, each "
                   f"starting at another dimension, so every step uses every dimension's links; t = {steps} steps x "
                   "(direct step + wire latency) + S x sum over steps of max load/capacity")
    else:
        paths = sum(int((~grid.ring[d]).sum()) for d in act if grid.dims[d] >= 3)
        rings = sum(int(grid.ring[d].sum()) for d in act)
        if not rings:
            lines_text = "the bidirectional linear (path) algorithm along every line (no wrap-around)"
        elif not paths:
            lines_text = "bidirectional rings along every line"
        else:
            lines_text = ("bidirectional rings along the lines with every link up, the bidirectional linear (path) "
                          f"algorithm along the {units.count(paths, 'other line')}")
        formula = (f"per-dimension rings on the {grid.shape_text} {grid.kind}: {part} along each of the {na} "
                   f"dimensions in turn, on 1/k of the data the previous one left; {na} shards ({share_text}), each "
                   f"starting at another dimension, so every dimension's links carry a shard at every phase; "
                   f"{lines_text}; t = {steps} steps x (direct step + wire latency) + S x sum over the "
                   f"{len(all_phases)} phases of max load/capacity")
    return AlgorithmModel(collective, algo, E.p, E.m, all_phases, lat, bw, formula)


def shard_sizes(sides: list[int], cost: np.ndarray) -> np.ndarray:
    """Shares of the data for the shards of the per-dimension schedule, shard j starting at dimension
    j: those that minimise the reduce-scatter time, sum over phases of the slowest dimension in
    the phase (``cost[d]``: seconds per byte of one byte per chip reduced along dimension d), a small
    linear program. Equal shares on equal sides; on unequal sides the shards that start on the long
    dimensions, which reduce most data the furthest, are given less.

    >>> shard_sizes([4, 4, 4], np.array([1.0, 1.0, 1.0])).round(6).tolist()
    [0.333333, 0.333333, 0.333333]
    >>> s = shard_sizes([4, 4, 8], np.array([0.75, 0.75, 0.875]))
    >>> bool(s[2] < 1 / 3 and abs(s.sum() - 1) < 1e-9)
    True
    """
    na = len(sides)
    if na == 1 or not np.max(cost) > 0:
        return np.full(na, 1.0 / na)
    from scipy.optimize import linprog

    cost = np.asarray(cost, dtype=float) / float(np.max(cost))  # seconds per byte are ~1e-11: scale for the solver

    # Variables: shares s_0..s_{na-1}, then the time t_i of every phase i; minimise sum t_i.
    rows, rhs = [], []
    for i in range(na):
        for j in range(na):
            f = 1.0
            for t in range(i):
                f /= sides[(j + t) % na]
            row = np.zeros(2 * na)
            row[j] = cost[(j + i) % na] * f  # shard j's work in phase i is on dimension (j + i) % na
            row[na + i] = -1.0
            rows.append(row)
            rhs.append(0.0)
    res = linprog(np.concatenate([np.zeros(na), np.ones(na)]), A_ub=np.array(rows), b_ub=np.array(rhs),
                  A_eq=np.concatenate([np.ones(na), np.zeros(na)])[None, :], b_eq=[1.0],
                  bounds=[(0, None)] * (2 * na), method="highs")
    equal = np.full(na, 1.0 / na)
    if not res.success:
        return equal
    shares = np.maximum(res.x[:na], 0.0)
    shares /= shares.sum()

    def total(sh: np.ndarray) -> float:
        return sum(max(cost[(j + i) % na] * sh[j] / np.prod([sides[(j + t) % na] for t in range(i)])
                       for j in range(na)) for i in range(na))

    # Equal shares when they are as good (equal sides): the schedule as usually described.
    return equal if total(equal) <= total(shares) * (1 + 1e-9) else shares


def _reversed(E: Embedder, ph: Phase) -> Phase:
    """The phase with every one-hop flow reversed."""
    s, d, w = ph.flows
    load = np.roll(ph.arc_load_per_byte, E.ctx.cap.n_links)
    return replace(E._phase_from_load(load, (d, s, w)), routed=True)


def direct_model(E: Embedder, collective: str, algo: str) -> AlgorithmModel:
    """The model of ``algo`` (one of :data:`DIRECT_ALGORITHMS`); raises :class:`Unroutable` when
    a link it needs is down."""
    if algo == "bidir-ring":
        return bidir_ring_model(E, collective)
    return per_dimension_model(E, collective, algo)


__all__ = ["DIRECT_ALGORITHMS", "DIRECT_COLLECTIVES", "Grid", "direct_model", "grid_of", "hamiltonian_cycle",
           "notes", "order_servers", "snake", "unavailable_reason"]
