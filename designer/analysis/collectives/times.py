"""Collective communication time on the real topology (docs/analysis.md section 5).

Each algorithm is *embedded* on the fabric the way NCCL builds it, as a list of flows between
GPUs, with the bytes each flow carries per byte of message. Routing those flows (NVLink inside a
server, ECMP across the network) gives every arc a load per message byte; the bandwidth term of
the time is ``max over arcs (load / effective capacity)`` x message bytes, so shared links and
the slowest hop set it. The latency term is NCCL's: a base latency per call plus a per-step
hardware latency, to which we add the per-hop wire and switch latency of the network hops.
Time = latency + bytes x seconds-per-byte, per protocol (LL, LL128, Simple); an algorithm's time
is its best protocol's, and the *selected* algorithm is the fastest, as NCCL's tuner picks.

Embeddings (p ranks on m servers of g GPUs, C channels = rails):

- **ring**: channel c enters each server on the GPU of rail c (its NIC), visits the server's
  GPUs over NVLink, and the last GPU hands the data back over NVLink to the rail-c GPU (NCCL's
  PXN), which sends it through NIC c to the next server's rail-c NIC. Every flow of an
  all-reduce carries 2(p-1)/p x S / C bytes; reduce-scatter and all-gather (p-1)/p x S / C;
  broadcast S / C (pipelined).
- **tree** (all-reduce): NCCL's double binary trees across servers (``trees.cc``, built in
  :mod:`designer.analysis.collectives.nccl_trees`: an in-order tree with a one-child root and its mirror or
  shift, each on half the data), a chain through the GPUs inside each server; x 1/0.9 (NCCL's
  tree correction).
- **hierarchical** (all-reduce): ring reduce-scatter in each server over NVLink, ring all-reduce
  of S/g across servers on each rail, ring all-gather in each server; the phases add up.
- **nvls** (all-reduce, NVLink SHARP, NVSwitch with ``specs.nvls``): each GPU of an n-GPU server
  sends and receives (1 + 1/n) S at NCCL's NVLS efficiency (0.85 of the effective NVLink rate);
  across servers (NVLSTree) NCCL's trees carry S/g per rail, pipelined with the NVLS phases, and
  busbw is capped at NCCL's NVLSTree limit per channel.
- **sharp** (all-reduce, every switch InfiniBand with ``specs.sharp``): reduce-scatter in the
  server, in-network all-reduce of S/g per NIC (each NIC sends and receives S/g once), all-gather.
- **pairwise** (all-to-all): every GPU sends S/p to every other; the network part of a GPU's
  traffic leaves through its own NIC, so per GPU it never exceeds one NIC's rate.
- **bidir-ring**, **multi-dim**, **halving-doubling** (all-reduce, reduce-scatter, all-gather on
  tori, meshes and hypercubes of direct chip links): :mod:`designer.analysis.collectives.direct`.
  There the ring and tree follow a Hamiltonian order of the chips instead of the design order.

nccl-tests conventions: algbw = S / t; busbw = algbw x 2(p-1)/p (all-reduce),
x (p-1)/p (reduce-scatter, all-gather, all-to-all), x 1 (broadcast).

The flows are built in :mod:`designer.analysis.collectives.embedding`, the time models in
:mod:`designer.analysis.collectives.algorithms`; this module runs the sweep, the NCCL-style selection and
the max-min fair rates of a model's flows.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np
import scipy.sparse as sp

from designer.analysis.collectives import direct as D
from designer.analysis.collectives.algorithms import (
    AlgorithmModel,
    alltoall_model,
    hier_model,
    ring_model,
    tree_model,
    unavailable_reason,
)
from designer.analysis.collectives.embedding import Embedder, Phase, Unroutable
from designer.analysis.collectives.names import (
    ALGORITHMS,
    ALIASES,
    COLLECTIVE_TITLES,
    COLLECTIVES,
    NOT_DEFAULT,
    bus_factor,
)
from designer.analysis.common import constants as K
from designer.analysis.common.errors import AnalysisError
from designer.analysis.fabric.context import Context, members_of, require_context
from designer.analysis.fabric.load import FairShare, flow_matrix, max_min_fair

__all__ = ["ALGORITHMS", "ALIASES", "COLLECTIVES", "COLLECTIVE_TITLES", "NOT_DEFAULT", "AlgorithmModel",
           "CollectiveResult", "CollectiveRow", "FairRates", "FairStatus", "Phase", "bus_factor", "collective_times",
           "fair_rates"]

@dataclass(frozen=True)
class CollectiveRow:
    """One line of the collectives table (units: bytes, s, bytes/s)."""

    collective: str
    algorithm: str
    protocol: str
    message_bytes: int
    time_s: float
    algbw_bytes_per_s: float
    busbw_bytes_per_s: float
    selected: bool
    bottleneck_link: str


@dataclass(frozen=True)
class CollectiveResult:
    collective: str
    ranks: int
    servers: int
    rows: tuple[CollectiveRow, ...]
    models: tuple[AlgorithmModel, ...]
    notes: tuple[str, ...]
    #: Algorithms in the table that the selection skipped (:data:`NOT_DEFAULT`, not asked for).
    not_selectable: tuple[str, ...] = ()
    #: Algorithms that apply to the hardware but cannot run here, with why: (algorithm, reason)
    #: naming the GPUs without a path (failed links, GPUs without a network link).
    cannot_run: tuple[tuple[str, str], ...] = ()


def collective_times(ctx: Context, collective: str = "allreduce", algorithms=None, sizes=None,
                     members=None, prefer: str | None = None) -> CollectiveResult:
    """Time, algbw and busbw of ``collective`` for each algorithm and message size.

    Parameters
    ----------
    ctx : Context
        The design's analysis context (:func:`designer.analysis.fabric.context.build_context`).
    collective : str
        One of :data:`COLLECTIVES` (aliases such as ``all-reduce`` accepted).
    algorithms : str or list of str, optional
        Names from :data:`ALGORITHMS` (default: all that apply; an unavailable one asked for
        explicitly becomes a note).
    sizes : iterable of int, optional
        Message bytes (default 8 B .. 8 GiB in powers of two).
    members : optional
        GPU positions, GPU or group ids (default: every GPU).
    prefer : str, optional
        Select this algorithm at every size instead of the fastest (a fixed choice, as
        ``NCCL_ALGO`` makes it); when it cannot run here, a note says so and the fastest is selected.

    The embedded models (routes, loads per byte) are kept in ``ctx.memo``: another call with new
    sizes or a new ``prefer`` re-uses them.

    Returns
    -------
    CollectiveResult
        Rows (one per size and algorithm, ``selected`` marking the fastest), the models behind
        them (phases, bottleneck arcs, latency per protocol, formula) and notes.

    Examples
    --------
    One HGX H100 server (8 GPUs on an NVLS-capable NVSwitch), 8 GiB all-reduce:

    >>> from designer.analysis.fabric.context import build_context
    >>> from designer.generators import GENERATORS
    >>> res = collective_times(build_context(GENERATORS["server"].build()), sizes=[8 << 30])
    >>> {r.algorithm: round(r.busbw_bytes_per_s / 1e9) for r in res.rows}
    {'ring': 370, 'tree': 292, 'nvls': 490}
    """
    ctx = require_context(ctx, "collective_times")
    collective, algos, explicit = _requested(collective, algorithms)
    sizes_arr = _message_sizes(sizes)
    members = members_of(ctx, members)
    notes: list[str] = []
    if len(members) < 2:
        notes.append(f"{collective} needs at least 2 GPUs; the design has {len(members)} taking part")
        return CollectiveResult(collective, len(members), len(members), (), (), tuple(notes))
    key = ("collective", collective, tuple(algos), explicit, members.tobytes())
    if key not in ctx.memo:
        ctx.memo[key] = _embed_models(ctx, collective, algos, explicit, members)
    p, m, models, model_notes, cannot = ctx.memo[key]
    notes.extend(model_notes)
    known = ALGORITHMS[collective]
    if prefer is not None and prefer not in known:
        raise AnalysisError(f"{collective} has no algorithm {prefer!r}: use one of {', '.join(known)}")
    if not models:
        return CollectiveResult(collective, p, m, (), (), tuple(notes), cannot_run=cannot)
    sizes_f = sizes_arr.astype(float)
    table = [(mdl, *mdl.times(sizes_f)) for mdl in models]
    best, skipped = _select(models, np.stack([t for _, t, _ in table]), explicit, prefer, notes)
    rows = _rows(ctx, collective, sizes_arr, table, best, bus_factor(collective, p))
    return CollectiveResult(collective, p, m, tuple(rows), tuple(models), tuple(notes), skipped, cannot)


def _requested(collective: str, algorithms) -> tuple[str, list[str], bool]:
    """The collective's own name, the algorithms asked for (default: every one it has) and whether
    they were named; :class:`AnalysisError` for an unknown collective or algorithm."""
    collective = ALIASES.get(collective, collective)
    if collective not in COLLECTIVES:
        raise AnalysisError(f"unknown collective {collective!r}: use one of {', '.join(COLLECTIVES)}")
    known = ALGORITHMS[collective]
    if algorithms is None:
        return collective, list(known), False
    algos = [algorithms] if isinstance(algorithms, str) else list(algorithms)
    for a in algos:
        if a not in known:
            raise AnalysisError(f"{collective} has no algorithm {a!r}: use one of {', '.join(known)}")
    return collective, algos, True


def _message_sizes(sizes) -> np.ndarray:
    """The distinct message sizes in bytes, ascending (default 8 B .. 8 GiB); :class:`AnalysisError`
    unless they are positive whole numbers."""
    try:
        sizes_arr = np.array(K.DEFAULT_SIZES_BYTES if sizes is None else list(sizes), dtype=np.int64).reshape(-1)
    except (TypeError, ValueError, OverflowError):
        raise AnalysisError(f"message sizes must be whole numbers of bytes, not {sizes!r}") from None
    if not len(sizes_arr):
        raise AnalysisError("no message sizes given")
    if (sizes_arr <= 0).any():
        raise AnalysisError("message sizes must be positive")
    return np.unique(sizes_arr)


def _select(models: tuple[AlgorithmModel, ...], all_t: np.ndarray, explicit: bool, prefer: str | None,
            notes: list[str]) -> tuple[np.ndarray, tuple[str, ...]]:
    """NCCL's choice at each size (index into ``models``): the fastest of the candidates (the
    algorithms asked for, else all but :data:`NOT_DEFAULT`), or ``prefer`` when it can run; and the
    algorithms the choice skipped."""
    candidates = np.array([explicit or mdl.algorithm not in NOT_DEFAULT for mdl in models])
    if not candidates.any():
        candidates[:] = True
    if prefer is not None:
        if any(mdl.algorithm == prefer for mdl in models):
            candidates = np.array([mdl.algorithm == prefer for mdl in models])
        else:
            notes.append(f"{prefer}: cannot run on this design; the fastest algorithm is selected instead")
    skipped = () if prefer is not None else tuple(
        mdl.algorithm for mdl, ok in zip(models, candidates, strict=True) if not ok)
    return np.argmin(np.where(candidates[:, None], all_t, np.inf), axis=0), skipped


def _rows(ctx: Context, collective: str, sizes_arr: np.ndarray, table, best: np.ndarray, bf: float
          ) -> list[CollectiveRow]:
    """One row per size and algorithm: time, algbw, busbw (algbw x ``bf``), protocol, bottleneck link."""
    rows = []
    link_ids = ctx.cap.link_ids
    for j, size in enumerate(sizes_arr):
        for i, (mdl, t, which) in enumerate(table):
            tj = float(t[j])
            algbw = float(size) / tj if tj > 0 else 0.0
            arc = mdl.bottleneck_arc
            rows.append(CollectiveRow(
                collective, mdl.algorithm, K.PROTOCOLS[int(which[j])], int(size), tj, algbw, algbw * bf,
                bool(best[j] == i), link_ids[ctx.cap.arc_link(arc)] if arc >= 0 and link_ids else "",
            ))
    return rows


def _embed_models(ctx: Context, collective: str, algos: list[str], explicit: bool, members: np.ndarray
                  ) -> tuple[int, int, tuple[AlgorithmModel, ...], tuple[str, ...], tuple[tuple[str, str], ...]]:
    """Embed and route each algorithm: (ranks, servers, models, notes, (algorithm, why it cannot run))."""
    notes: list[str] = []
    E = Embedder(ctx, members)
    D.order_servers(E)  # tori, meshes, hypercubes: ring and tree along the direct links
    models: list[AlgorithmModel] = []
    cannot: list[tuple[str, str]] = []
    apart = E.islands()
    for algo in algos:
        why = D.unavailable_reason(E, algo) if algo in D.DIRECT_ALGORITHMS else unavailable_reason(E, algo)
        if why is not None:
            if explicit:
                notes.append(f"{algo}: not available: {why}")
            continue
        if apart is not None:
            # Every algorithm needs a path between the GPUs (SHARP: each one to the aggregation tree).
            cannot.append((algo, apart))
            continue
        try:
            if collective == "alltoall":
                models.append(alltoall_model(E))
            elif algo in D.DIRECT_ALGORITHMS:
                models.append(D.direct_model(E, collective, algo))
            elif algo == "ring":
                models.append(ring_model(E, collective))
            elif algo == "tree":
                models.append(tree_model(E))
            else:
                models.append(hier_model(E, algo))
        except Unroutable as e:
            cannot.append((algo, str(e)))
    notes.extend(D.notes(E, [mdl.algorithm for mdl in models]))
    by_reason: dict[str, list[str]] = {}
    for algo, why in cannot:
        by_reason.setdefault(why, []).append(algo)
    for why, names in by_reason.items():
        notes.append(f"{', '.join(names)}: cannot run: {why}")
    return E.p, E.m, tuple(models), tuple(notes), tuple(cannot)


class FairStatus(Enum):
    """Whether :func:`fair_rates` computed the per-flow rates of a model, and if not, why."""

    #: The rates are computed.
    COMPUTED = "computed"
    #: The slowest phase has no explicit flows (NVLS, all-to-all in aggregate): nothing to compute.
    NO_FLOWS = "no flows"
    #: The flow matrix would exceed the work limits (``constants.FAIR_WORK_BUDGET`` / ``FAIR_MAX_NNZ``):
    #: skipped, as on very large fabrics.
    TOO_LARGE = "too large"


@dataclass(frozen=True, eq=False)
class FairRates:
    """Max-min fair rates of the flows of a model's slowest phase (:func:`fair_rates`).

    When ``status`` is :attr:`FairStatus.COMPUTED`, flow ``i`` runs ``src[i] -> dst[i]`` (GPU
    positions) carrying ``bytes_per_byte[i]`` bytes per message byte; ``matrix`` is the flow x arc
    matrix (:func:`designer.analysis.fabric.load.flow_matrix`) and ``share`` the fair rates and each flow's
    bottleneck arc. Otherwise they are empty / None.
    """

    status: FairStatus
    src: np.ndarray | None = None
    dst: np.ndarray | None = None
    bytes_per_byte: np.ndarray | None = None
    matrix: sp.csr_matrix | None = None
    share: FairShare | None = None

    @property
    def computed(self) -> bool:
        return self.status is FairStatus.COMPUTED


def fair_rates(ctx: Context, model: AlgorithmModel, budget: int = K.FAIR_WORK_BUDGET) -> FairRates:
    """Max-min fair rates of the flows of ``model``'s slowest phase (see :class:`FairRates`).

    Kept in ``ctx.memo`` for models that are (models from :func:`collective_times` are).
    """
    key = ("fair", id(model), budget)
    hit = ctx.memo.get(key)
    if hit is not None and hit[0] is model:
        return hit[1]
    out = _fair_rates(ctx, model, budget)
    ctx.memo[key] = (model, out)
    return out


def _fair_rates(ctx: Context, model: AlgorithmModel, budget: int) -> FairRates:
    ph = max(model.phases, key=lambda x: x.seconds_per_byte)
    src, dst, w = ph.flows
    if not len(src) or (src == dst).all():
        return FairRates(FairStatus.NO_FLOWS)
    M = flow_matrix(ctx.fabric, ctx.router, src, dst, budget)
    if M is None:
        return FairRates(FairStatus.TOO_LARGE)
    cap = ctx.cap.arc_effective_bytes_per_s
    return FairRates(FairStatus.COMPUTED, src, dst, w, M, max_min_fair(M, cap))
