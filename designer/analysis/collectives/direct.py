"""Collectives of accelerators linked directly to each other: tori, meshes and hypercubes.

A torus, mesh or hypercube of chips (``gpu`` devices with network ports of their own, linked
without a switch or NIC between: the ``torus`` and ``hypercube`` generators, TPU ICI style) runs
collectives that use its structure instead of NCCL's switched-fabric rings and trees. The
structure is read from the coordinates the generators write on every chip (``properties.coords``
on a torus or mesh, ``properties.label`` on a hypercube), or without them from the links of an
intact torus or hypercube (:meth:`designer.analysis.fabric.twins.CoreRouter.grid_coordinates`), and
checked against the links: every pair of neighbours must be linked. A link that is in the design
but failed (or of zero rate): a torus line with one such link runs as a path (the linear
algorithm there, with a note); a second one in a line, or one in a mesh or hypercube line, makes
the per-dimension algorithms *cannot run*; a Hamiltonian cycle crossing one is moved (mirrored,
shifted, another even side) when that avoids it, else the bidirectional ring cannot run.

Algorithms (flows are (source GPU, destination GPU, bytes per message byte), routed with
:meth:`designer.analysis.collectives.embedding.Embedder.phase`; every flow crosses one link):

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
(:data:`designer.analysis.common.constants.DIRECT_STEP_LATENCY_S`) and the longest direct link's wire
latency; protocols LL, LL128, Simple with the ring's bandwidth factors.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from designer.analysis.collectives.algorithms import AlgorithmModel
from designer.analysis.collectives.direct_grid import (
    Grid,
    cut_text,
    cycle_positions,
    grid_of,
    no_cycle_reason,
    order_servers,
    working_cycle,
)
from designer.analysis.collectives.embedding import Embedder, Phase, Unroutable
from designer.analysis.collectives.names import DIRECT_ALGORITHMS, DIRECT_COLLECTIVES
from designer.analysis.common import constants as K
from designer.model import units

_NEEDS = ("the GPUs taking part to form a whole torus, mesh or hypercube of direct links (the torus and "
          "hypercube generators' coordinates on every chip, every pair of neighbours linked)")


# --------------------------------------------------------------------------- applicability
def unavailable_reason(E: Embedder, algo: str) -> str | None:
    """None if ``algo`` (one of :data:`DIRECT_ALGORITHMS`) applies to the GPUs taking part, else why not."""
    grid = grid_of(E)
    if grid is None:
        return f"{algo} needs {_NEEDS}"
    if algo == "bidir-ring" and cycle_positions(grid) is None:
        return no_cycle_reason(grid)
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
        raise Unroutable(cut_text(grid.cut, "between neighbours") + f": {algo} needs every line of the "
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


__all__ = ["DIRECT_ALGORITHMS", "DIRECT_COLLECTIVES", "direct_model", "notes", "order_servers", "unavailable_reason"]
