"""``analyze(design)``: one frozen report of counts, bisection, collective times, link use, bottlenecks.

Every number is traceable: the bisection names its method and cut links, each collective row its
algorithm, protocol and bottleneck link, each bottleneck the algorithm and flows behind it. The
per-link utilisation is that of the *selected* algorithm at the largest message size: the
fraction of the collective's time the link is busy in its busier direction.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np

from designer.analysis.bisection.bounds import Bisection, bisection_bounds
from designer.analysis.collectives.hashed import (
    DEFAULT_HASH_DRAWS,
    DEFAULT_HASH_SEED,
    Routing,
    collision_note,
    hashed_collective,
    routing_mode,
)
from designer.analysis.collectives.times import (
    AlgorithmModel,
    CollectiveResult,
    CollectiveRow,
    FairStatus,
    bus_factor,
    collective_times,
    fair_rates,
)
from designer.analysis.common import constants as K
from designer.analysis.common.errors import AnalysisError
from designer.analysis.fabric.capacity import K_NIC, K_NVSWITCH, K_SWITCH, PROTOCOL_NAMES
from designer.analysis.fabric.context import Context, build_context
from designer.analysis.fabric.load import ranked_links
from designer.analysis.fabric.tiers import TIERS, link_tiers
from designer.model import Design
from designer.model.bulk import gc_paused
from designer.model.catalog import Catalog


@dataclass(frozen=True)
class DesignCounts:
    gpus: int
    switches: int
    links: int
    nics: int
    nvswitches: int
    servers: int
    links_used: int
    links_excluded: int


@dataclass(frozen=True)
class AlgorithmSummary:
    """How an algorithm was modelled: bandwidth, bottleneck, latency per protocol, formula."""

    algorithm: str
    seconds_per_byte: float
    bottleneck_link: str
    latency_s: dict
    formula: str
    #: Per protocol, the fraction of the link bandwidth it reaches (LL carries 4 bytes of data per 8).
    bw_factor: dict = field(default_factory=dict)


class LinkUse(NamedTuple):
    """Use of one link by the selected algorithm (a light record: there is one per link)."""

    id: str
    utilization: float
    load_bytes_per_s: float
    capacity_bytes_per_s: float
    direction: str
    protocol: str


@dataclass(frozen=True, eq=False)
class LinkTable:
    """Per-link use, stored as arrays (one row per link in use); rows are :class:`LinkUse` records.

    ``len(table)``, ``table[i]`` and iteration give LinkUse rows; the arrays serve bulk readers
    (the GUI colours links by ``utilization``).
    """

    ids: tuple[str, ...] = ()
    utilization: np.ndarray = field(default_factory=lambda: np.zeros(0))
    load_bytes_per_s: np.ndarray = field(default_factory=lambda: np.zeros(0))
    capacity_bytes_per_s: np.ndarray = field(default_factory=lambda: np.zeros(0))
    src: tuple[str, ...] = ()
    dst: tuple[str, ...] = ()
    protocol: tuple[str, ...] = ()
    #: Per link, its index in :data:`designer.analysis.fabric.tiers.TIERS` (NVLink, access, leaf-spine...).
    tier: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, i: int) -> LinkUse:
        return LinkUse(self.ids[i], float(self.utilization[i]), float(self.load_bytes_per_s[i]),
                       float(self.capacity_bytes_per_s[i]), f"{self.src[i]} -> {self.dst[i]}", self.protocol[i])

    def __iter__(self):
        return (self[i] for i in range(len(self.ids)))


@dataclass(frozen=True)
class Bottleneck:
    link: str
    utilization: float
    direction: str
    protocol: str
    capacity_bytes_per_s: float
    algorithm: str
    collective: str
    message_bytes: int
    flows: int
    example_flows: tuple[str, ...]
    fair_rate_bytes_per_s: float | None


@dataclass(frozen=True)
class Report:
    """The analysis of one design (units: s, bytes, bytes/s per direction)."""

    design_name: str
    design: DesignCounts
    collective: str
    ranks: int
    servers: int
    bisection: Bisection
    collectives: tuple[CollectiveRow, ...]
    algorithms: tuple[AlgorithmSummary, ...]
    links: LinkTable
    bottlenecks: tuple[Bottleneck, ...]
    notes: tuple[str, ...]
    #: Algorithms shown in the table but left out of the selection (SHARP unless asked for).
    not_selectable: tuple[str, ...] = ()
    #: The message size (bytes) that ``links`` and ``bottlenecks`` describe (the largest by default).
    link_use_bytes: int = 0
    #: The busbw the selected algorithm would reach with its bottleneck link at line rate and no
    #: latency (bytes/s): the ceiling of the busbw curve, and the link that sets it.
    ceiling_busbw_bytes_per_s: float = 0.0
    ceiling_link: str = ""
    #: Algorithms that apply to the hardware but cannot run here, with why (algorithm, reason):
    #: GPUs without a path to one another. When none can run, no row is selected.
    cannot_run: tuple[tuple[str, str], ...] = ()
    #: The routing mode across switches (fluid, hashed, adaptive), and under hashed ECMP the selected
    #: algorithm's time and busiest link over the hash draws (:mod:`designer.analysis.collectives.hashed`).
    routing: Routing | None = None

    def selected(self) -> list[CollectiveRow]:
        return [r for r in self.collectives if r.selected]


# --------------------------------------------------------------------------- analyze
def _counts(ctx: Context) -> DesignCounts:
    cap = ctx.cap
    return DesignCounts(
        gpus=ctx.n_gpus,
        switches=int((cap.node_kind == K_SWITCH).sum()),
        links=ctx.design.link_count(),
        nics=int((cap.node_kind == K_NIC).sum()),
        nvswitches=int((cap.node_kind == K_NVSWITCH).sum()),
        servers=int(ctx.fabric.n_domains + (ctx.fabric.domain < 0).sum()),
        links_used=cap.n_links,
        links_excluded=len(cap.excluded),
    )


def _direction(ctx: Context, arc: int) -> str:
    cap = ctx.cap
    m = cap.n_links
    a, b = (cap.a[arc], cap.b[arc]) if arc < m else (cap.b[arc - m], cap.a[arc - m])
    return f"{cap.node_ids[a]} -> {cap.node_ids[b]}"


def _collector_paused(func):
    """Run ``func`` with the cyclic garbage collector paused. The analysis builds arrays and records
    without reference cycles; the collector's full passes would rescan every object of a large design
    for nothing (about a second of a 131,072-GPU analysis)."""

    @functools.wraps(func)
    def run(*args, **kwargs):
        with gc_paused():
            return func(*args, **kwargs)

    return run


@_collector_paused
def analyze(design: Design, catalog: Catalog | None = None, *, collective: str = "allreduce",
            algorithms: str | Iterable[str] | None = None, sizes: Iterable[int] | None = None,
            gpus: str | Iterable[str] | None = None, top: int = 10, at_bytes: int | None = None,
            prefer: str | None = None, context: Context | None = None,
            progress: Callable[[str, int, int], None] | None = None, routing: str | None = None,
            hash_draws: int = DEFAULT_HASH_DRAWS, hash_seed: int = DEFAULT_HASH_SEED) -> Report:
    """Analyze ``design``: bisection bounds, ``collective`` times, link utilisation, bottlenecks.

    Parameters
    ----------
    design : Design
        The fabric. It is only read: pass ``design.copy()`` from a worker thread if it may be
        edited meanwhile.
    catalog : Catalog, optional
        Component catalog for switch protocols, latencies and cable rates (default: built-in).
    collective : str
        ``allreduce`` (default), ``reducescatter``, ``allgather``, ``alltoall`` or ``broadcast``.
    algorithms : str or list of str, optional
        Algorithms to model (default: every one that applies to the hardware).
    sizes : iterable of int, optional
        Message sizes in bytes (default: 8 B to 8 GiB in powers of two).
    gpus : str or list of str, optional
        The GPUs taking part: ``"all"`` (default), a group id, or GPU ids.
    top : int
        How many bottleneck links to rank.
    at_bytes : int, optional
        The message size whose link utilisation and bottlenecks are reported (added to
        ``sizes`` if missing; default: the largest size).
    prefer : str, optional
        Select this algorithm instead of the fastest (see :func:`collective_times`).
    context : Context, optional
        The analysis context of ``design`` built earlier (:func:`build_context`): its routes and
        memoised models are re-used, so only what the new arguments change is computed.
    progress : callable, optional
        Called as ``progress(stage, done, total)`` before each stage; it may raise to cancel.
    routing : str, optional
        ``fluid``, ``hashed`` or ``adaptive`` (default: by fabric type, see
        :func:`designer.analysis.collectives.hashed.routing_mode`). Hashed adds the selected algorithm's
        expected and p99 time and busiest link over ``hash_draws`` draws seeded with ``hash_seed``.

    Returns
    -------
    Report
        Frozen result; ``designer.present.report_text.summary_lines(report)`` formats it.

    Raises
    ------
    AnalysisError
        Unknown collective, algorithm, size or GPU selection. Design problems (no GPU,
        disconnected GPUs, failed or zero-rate links) become notes in the report instead.

    Examples
    --------
    >>> from designer.generators import GENERATORS
    >>> rep = analyze(GENERATORS["server"].build(), sizes=[1 << 30])
    >>> rep.design.gpus, rep.bisection.exact, [r.algorithm for r in rep.selected()]
    (8, True, ['nvls'])
    """
    def step(stage: str, done: int) -> None:
        if progress is not None:
            progress(stage, done, 4)

    sizes = _checked_sizes(design, top, context, sizes, at_bytes)
    step("routes", 0)
    ctx = context if context is not None else build_context(design, catalog)
    catalog = ctx.catalog if catalog is None else catalog
    members = ctx.gpu_positions(gpus)
    route = routing_mode(ctx, routing, catalog, draws=hash_draws, seed=hash_seed)
    notes = _fabric_notes(ctx, members)
    step("bisection", 1)
    bis = bisection_bounds(ctx, members)
    notes.extend(bis.notes)
    step("collectives", 2)
    res = collective_times(ctx, collective, algorithms, sizes, members, prefer=prefer)
    notes.extend(res.notes)
    step("link use", 3)
    use = _use_at_size(ctx, res, at_bytes, top, route, notes)
    return Report(
        design_name=design.name, design=_counts(ctx), collective=res.collective, ranks=res.ranks,
        servers=res.servers, bisection=bis, collectives=res.rows, algorithms=_algorithm_summaries(ctx, res),
        links=use.links, bottlenecks=use.bottlenecks, notes=tuple(dict.fromkeys(notes)),
        not_selectable=res.not_selectable, link_use_bytes=use.message_bytes, ceiling_busbw_bytes_per_s=use.ceiling,
        ceiling_link=use.ceiling_link, cannot_run=res.cannot_run, routing=use.routing,
    )


def _checked_sizes(design: Design, top: int, context: Context | None, sizes: Iterable[int] | None,
                   at_bytes: int | None) -> Iterable[int] | None:
    """Check :func:`analyze`'s arguments; the message sizes, with ``at_bytes`` among them if given."""
    if top < 0:
        raise AnalysisError(f"top must be 0 or more (bottleneck links to rank), not {top}")
    if context is not None and context.design is not design:
        raise ValueError("analyze: context was built for another design")
    if at_bytes is not None:
        sizes = sorted({int(x) for x in (K.DEFAULT_SIZES_BYTES if sizes is None else sizes)} | {int(at_bytes)})
    return sizes


def _fabric_notes(ctx: Context, members: np.ndarray) -> list[str]:
    """The notes of the capacity graph and the fabric, and on GPUs with nothing to analyze or no network."""
    notes = list(ctx.cap.notes) + list(ctx.fabric.notes)
    if ctx.n_gpus == 0:
        notes.append("the design has no GPU: nothing to analyze (add servers or a generator's fabric)")
    no_net = ~ctx.fabric.gpu_has_network()[members]
    if ctx.n_gpus and no_net.any() and ctx.fabric.n_domains != 1:
        ids = [ctx.gpu_ids[i] for i in members[no_net][:3]]
        count = int(no_net.sum())
        notes.append(f"{count:,} GPU{' has' if count == 1 else 's have'} no network path (no NIC link): "
                     f"{', '.join(ids)}"
                     f"{'...' if no_net.sum() > 3 else ''}")
    return notes


def _algorithm_summaries(ctx: Context, res: CollectiveResult) -> tuple[AlgorithmSummary, ...]:
    """How each algorithm of ``res`` (:func:`collective_times`) was modelled, its bottleneck link by id."""
    return tuple(
        AlgorithmSummary(mdl.algorithm, mdl.seconds_per_byte,
                         ctx.cap.link_ids[ctx.cap.arc_link(mdl.bottleneck_arc)] if mdl.bottleneck_arc >= 0 else "",
                         dict(mdl.latency_s), mdl.formula, dict(mdl.bw_factor))
        for mdl in res.models
    )


class _UseAtSize(NamedTuple):
    """What the selected algorithm does to the links at one message size (see :func:`_use_at_size`)."""

    links: LinkTable
    bottlenecks: tuple[Bottleneck, ...]
    message_bytes: int
    ceiling: float
    ceiling_link: str
    routing: Routing


def _use_at_size(ctx: Context, res: CollectiveResult, at_bytes: int | None, top: int, route: Routing,
                 notes: list[str]) -> _UseAtSize:
    """Link utilisation, bottlenecks and busbw ceiling of the selected algorithm at ``at_bytes`` (default: the
    largest size), and under hashed routing its hashed figures; notes on what cannot be listed go to ``notes``."""
    if not res.rows:
        return _UseAtSize(LinkTable(), (), 0, 0.0, "", route)
    use_bytes = int(at_bytes) if at_bytes is not None else max(r.message_bytes for r in res.rows)
    sel = next(r for r in res.rows if r.selected and r.message_bytes == use_bytes)
    mdl = next(x for x in res.models if x.algorithm == sel.algorithm)
    ceiling, ceiling_link = _ceiling(ctx, mdl, res.ranks)
    links, bottlenecks, fair_status = _link_use(ctx, mdl, sel, top)
    if bottlenecks and fair_status is FairStatus.TOO_LARGE:
        notes.append(f"the bottlenecks list no flows and no fair rates: {mdl.algorithm} has too many flows on this "
                     "fabric to share them out link by link; analyze fewer GPUs (--gpus with a group, e.g. one "
                     "scalable unit, or a selection in the window) to see them")
    elif bottlenecks and fair_status is FairStatus.NO_FLOWS:
        why = NO_FLOWS_WHY.get(mdl.algorithm, NO_FLOWS_WHY[""])
        notes.append(f"the bottlenecks list no flows and no fair rates: {why}")
    if route.mode == "hashed":
        hashed = hashed_collective(ctx, mdl, use_bytes, draws=route.draws, seed=route.seed)
        route = replace(route, hashed=hashed)
        notes.append(collision_note(hashed))
    return _UseAtSize(links, bottlenecks, use_bytes, ceiling, ceiling_link, route)


#: Why an algorithm's busiest phase has no GPU-to-GPU flows to list under its bottlenecks.
NO_FLOWS_WHY = {
    "nvls": "NVLS reduces in the NVSwitch, each GPU sending to and receiving from the switch, not another GPU",
    "pairwise": "all-to-all is routed in aggregate (every GPU to every other), not flow by flow",
    "": "its busiest phase is not routed as separate GPU-to-GPU flows",
}


def _ceiling(ctx: Context, mdl: AlgorithmModel, ranks: int) -> tuple[float, str]:
    """busbw of ``mdl`` with its bottleneck arc at line rate (not the protocol's efficiency), no latency."""
    arc = mdl.bottleneck_arc
    spb = mdl.seconds_per_byte
    if arc < 0 or spb <= 0:
        return 0.0, ""
    cap = ctx.cap
    link = int(cap.arc_link(arc))
    eff, line = float(cap.effective_bytes_per_s[link]), float(cap.line_bytes_per_s[link])
    spb_line = spb * eff / line if line > 0 else spb
    return bus_factor(mdl.collective, ranks) / spb_line, cap.link_ids[link]


def _link_use(ctx: Context, mdl: AlgorithmModel, row: CollectiveRow, top: int):
    cap = ctx.cap
    m = cap.n_links
    busy = mdl.arc_seconds_per_byte() * row.message_bytes / row.time_s  # fraction of the time
    busy = np.minimum(busy, 1.0)
    load = np.sum([ph.arc_load_per_byte for ph in mdl.phases], axis=0) * row.message_bytes / row.time_s
    # The capacity each arc was modelled with (NVLS runs NVLink at its own efficiency).
    per_byte = np.sum([ph.arc_load_per_byte for ph in mdl.phases], axis=0)
    spb = mdl.arc_seconds_per_byte()
    with np.errstate(divide="ignore", invalid="ignore"):
        eff = np.where(spb > 0, per_byte / np.where(spb > 0, spb, 1.0), cap.arc_effective_bytes_per_s)
    fwd_bigger = busy[:m] >= busy[m:]
    arc_of_link = np.where(fwd_bigger, np.arange(m), np.arange(m) + m)
    util = busy[arc_of_link]
    ids = cap.node_ids
    names = np.array(ids, dtype=object)
    links = LinkTable(
        ids=cap.link_ids,
        utilization=util,
        load_bytes_per_s=load[arc_of_link],
        capacity_bytes_per_s=eff[arc_of_link],
        src=tuple(names[cap.arc_src[arc_of_link]].tolist()),
        dst=tuple(names[cap.arc_dst[arc_of_link]].tolist()),
        protocol=tuple(np.array(PROTOCOL_NAMES, dtype=object)[cap.protocol].tolist()),
        tier=link_tiers(ctx.design, cap),
    )
    fair = fair_rates(ctx, mdl)
    out = []
    for i in ranked_links(util, top):
        arc = int(arc_of_link[i])
        flows = 0
        examples: tuple[str, ...] = ()
        rate = None
        if fair.computed:
            src, dst, M, fs = fair.src, fair.dst, fair.matrix, fair.share
            col = M[:, arc].tocoo()
            rows = col.row[col.data > 0]
            flows = len(rows)
            gid = ctx.gpu_ids
            # Distinct pairs (the channels of a ring repeat each pair), in flow order.
            _, first = np.unique(src[rows] * len(gid) + dst[rows], return_index=True)
            examples = tuple(f"{gid[src[r]]} -> {gid[dst[r]]}" for r in rows[np.sort(first)[:3]])
            slowed = rows[fs.bottleneck_arc[rows] == arc]
            if len(slowed):
                rate = float(fs.rate_bytes_per_s[slowed].min())
        out.append(Bottleneck(cap.link_ids[i], float(util[i]), _direction(ctx, arc), cap.protocol_name(i),
                              float(eff[arc]), mdl.algorithm, mdl.collective, row.message_bytes, flows, examples,
                              rate))
    return links, tuple(out), fair.status


__all__ = ["TIERS", "AlgorithmSummary", "Bottleneck", "DesignCounts", "LinkTable", "LinkUse", "Report", "analyze"]
