"""Each measured size beside the prediction: time and busbw, their ratio, the algorithm, the regime.

``ratio`` is predicted time over measured time, which is measured algbw (and busbw) over predicted:
1.0 the model is right, 0.8 the cluster runs at 80% of the prediction, above 1 faster than predicted.
Times rather than the printed bandwidths are compared (the log prints times to four or five figures,
bandwidths to two decimals). A size is *latency-bound* when the selected algorithm's latency term is at
least its bandwidth term, otherwise *bandwidth-bound*; consecutive sizes of one regime form a range,
with the median ratio as its verdict: within :data:`AGREEMENT` of 1 "as predicted", below "slower than
predicted", above "faster than predicted" (docs/measured.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.analysis.collectives.embedding import Embedder, Unroutable
from designer.analysis.collectives.times import bus_factor, collective_times
from designer.analysis.common import constants as K
from designer.analysis.common.errors import AnalysisError
from designer.analysis.fabric.context import Context
from designer.analysis.measured.ranks import RankMap, map_ranks
from designer.analysis.measured.runs import NcclRun
from designer.analysis.measured.sendrecv import sendrecv_model
from designer.model.units import count

#: How far from 1 a median ratio may be and still read "as predicted": +-15%, the spread of the
#: analyzer's own validation rows against published nccl-tests figures (docs/analysis.md, validation).
AGREEMENT = 0.15


@dataclass(frozen=True)
class SizeComparison:
    """One message size: measured and predicted figures (s, bytes/s), ratio, algorithm and regime."""

    size_bytes: int
    measured_time_s: float
    measured_algbw: float
    measured_busbw: float
    predicted_time_s: float
    predicted_algbw: float
    predicted_busbw: float
    ratio: float
    algorithm: str
    protocol: str
    regime: str
    bottleneck_link: str
    #: The algorithm whose prediction is nearest the measurement, and its ratio.
    nearest_algorithm: str
    nearest_ratio: float


@dataclass(frozen=True)
class RangeVerdict:
    """Consecutive sizes of one regime: first and last size, median ratio, verdict."""

    regime: str
    first_bytes: int
    last_bytes: int
    sizes: int
    median_ratio: float
    verdict: str


@dataclass(frozen=True)
class RunComparison:
    """A measured run held against the design."""

    run: NcclRun
    ranks: RankMap
    collective: str
    servers: int
    sizes: tuple[SizeComparison, ...]
    ranges: tuple[RangeVerdict, ...]
    notes: tuple[str, ...]
    #: The selected algorithm's model at the largest size (its arcs say which links the run loads).
    model: object = None


def verdict_of(ratio: float) -> str:
    """"as predicted", "slower than predicted" or "faster than predicted" for a ratio (see :data:`AGREEMENT`)."""
    if ratio < 1.0 - AGREEMENT:
        return "slower than predicted"
    if ratio > 1.0 + AGREEMENT:
        return "faster than predicted"
    return "as predicted"


def _regime(model, proto: str, size: float) -> str:
    bw = size * model.seconds_per_byte / model.bw_factor[proto]
    lat = model.latency_s[proto]
    return "latency-bound" if lat >= bw else "bandwidth-bound"


def _predict(ctx: Context, collective: str, positions: np.ndarray, sizes: list[int]):
    """Per size: the selected (algorithm, protocol, time, bottleneck link, model) and every algorithm's time."""
    if collective == "sendrecv":
        E = Embedder(ctx, np.unique(positions))
        try:
            mdl = sendrecv_model(E, positions)
        except Unroutable as e:
            raise AnalysisError(f"sendrecv cannot run on the design: {e}") from None
        t, which = mdl.times(np.asarray(sizes, dtype=float))
        arc = mdl.bottleneck_arc
        link = ctx.cap.link_ids[ctx.cap.arc_link(arc)] if arc >= 0 else ""
        sel = [(mdl.algorithm, K.PROTOCOLS[int(w)], float(x), link, mdl) for x, w in zip(t, which, strict=True)]
        return sel, [{mdl.algorithm: float(x)} for x in t], E.m
    res = collective_times(ctx, collective, sizes=sizes, members=positions)
    if not res.rows:
        why = "; ".join(res.notes) or "no algorithm applies"
        raise AnalysisError(f"{collective} cannot be predicted on the design: {why}")
    models = {m.algorithm: m for m in res.models}
    by_size: dict[int, dict[str, float]] = {}
    sel_by: dict[int, tuple] = {}
    for r in res.rows:
        by_size.setdefault(r.message_bytes, {})[r.algorithm] = r.time_s
        if r.selected:
            sel_by[r.message_bytes] = (r.algorithm, r.protocol, r.time_s, r.bottleneck_link, models[r.algorithm])
    return [sel_by[s] for s in sizes], [by_size[s] for s in sizes], res.servers


def compare_run(ctx: Context, run: NcclRun, gpus: str | None = None) -> RunComparison:
    """Hold ``run`` against the design of ``ctx`` (see the module docstring)."""
    rmap = map_ranks(ctx, run, gpus)
    pos_of = {g: i for i, g in enumerate(ctx.gpu_ids)}
    positions = np.array([pos_of[g] for g in rmap.gpus], dtype=np.int64)
    rows = sorted({r.size_bytes: r for r in run.rows}.values(), key=lambda r: r.size_bytes)
    sizes = [r.size_bytes for r in rows]
    selected, every, servers = _predict(ctx, run.collective, positions, sizes)
    p = run.n_ranks
    bf = 1.0 if run.collective == "sendrecv" else bus_factor(run.collective, p)
    out = []
    for row, (algo, proto, t_pred, link, mdl), alts in zip(rows, selected, every, strict=True):
        m = row.best
        ratio = t_pred / m.time_s
        near = min(alts, key=lambda a: abs(np.log(alts[a] / m.time_s)))
        algbw_pred = row.size_bytes / t_pred
        out.append(SizeComparison(row.size_bytes, m.time_s, m.algbw_bytes_per_s, m.busbw_bytes_per_s, t_pred,
                                  algbw_pred, algbw_pred * bf, ratio, algo, proto,
                                  _regime(mdl, proto, float(row.size_bytes)), link, near, alts[near] / m.time_s))
    # A catalog overlay's efficiency (compare --fit) is shown wherever it changes a prediction.
    notes = [n for n in ctx.cap.notes if " efficiency " in n and "from the catalog" in n]
    if len(run.rows) != len(rows):
        notes.append(f"{count(len(run.rows) - len(rows), 'repeated size')} of the table compared once (the last)")
    return RunComparison(run, rmap, run.collective, servers, tuple(out), tuple(_ranges(out)), tuple(notes),
                         selected[-1][4] if selected else None)


def _ranges(sizes: list[SizeComparison]) -> list[RangeVerdict]:
    out: list[RangeVerdict] = []
    start = 0
    for i in range(1, len(sizes) + 1):
        if i == len(sizes) or sizes[i].regime != sizes[start].regime:
            part = sizes[start:i]
            med = float(np.median([s.ratio for s in part]))
            out.append(RangeVerdict(part[0].regime, part[0].size_bytes, part[-1].size_bytes, len(part), med,
                                    verdict_of(med)))
            start = i
    return out
