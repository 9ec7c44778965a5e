"""Every group of a parallel layout at once: ``analyze --concurrent`` (docs/analysis.md section 8).

A layout (``tp8,pp4,dp``: tensor, pipeline, data parallel sizes, ``dp`` alone meaning every GPU
left) is placed on the design as the training step places a workload
(:func:`designer.analysis.training.placement.place`); each of its communicators then runs the
collective in all its groups together (tensor, context and data parallel) or sends stage to stage
(pipeline), routed under the routing mode, hashed draws included
(:func:`designer.analysis.training.traffic.communicator`): the same model the step uses, at the
message sizes asked for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from designer.analysis.collectives.hashed import Routing
from designer.analysis.fabric.context import Context
from designer.analysis.training.placement import place
from designer.analysis.training.traffic import communicator
from designer.analysis.training.workload import DIMENSIONS, Parallelism, WorkloadError

_PART = re.compile(r"^(tp|cp|pp|dp|ep)(\d*)$")


def parse_layout(text: str) -> Parallelism:
    """``tp8,pp4,dp`` (sizes of tensor, context, pipeline, data, expert parallel; ``dp`` without a
    size: every GPU left) as a :class:`Parallelism`; :class:`WorkloadError` when it does not parse.

    >>> p = parse_layout("tp8,pp4,dp"); (p.tp, p.pp, p.dp, p.cp)
    (8, 4, 0, 1)
    """
    sizes: dict[str, int] = {}
    for part in (x.strip().lower() for x in str(text).split(",") if x.strip()):
        m = _PART.match(part)
        if not m or m.group(1) in sizes or (m.group(2) == "" and m.group(1) != "dp") or m.group(2) == "0":
            raise WorkloadError(f"layout {text!r}: write it as sizes of tp, cp, pp, dp and ep, e.g. tp8,pp4,dp "
                                "('dp' alone: every GPU left), each once")
        sizes[m.group(1)] = int(m.group(2)) if m.group(2) else 0
    if not sizes:
        raise WorkloadError("the layout is empty: give it as tp8,pp4,dp")
    return Parallelism(tp=sizes.get("tp", 1), pp=sizes.get("pp", 1), dp=sizes.get("dp", 0), ep=sizes.get("ep", 1),
                       cp=sizes.get("cp", 1))


@dataclass(frozen=True)
class ConcurrentRow:
    """One communicator at one message size: one group alone and all at once (units: s, bytes)."""

    name: str
    collective: str
    groups: int
    group_size: int
    algorithm: str
    message_bytes: int
    alone_s: float
    time_s: float
    time_p99_s: float
    slowdown: float
    slowdown_p99: float
    bottleneck_link: str
    network: bool


@dataclass(frozen=True)
class ConcurrentReport:
    layout: dict[str, int]
    routing: str
    rows: tuple[ConcurrentRow, ...]
    notes: tuple[str, ...]


def concurrent_layout(ctx: Context, parallelism: Parallelism, collective: str, sizes, routing: Routing
                      ) -> ConcurrentReport:
    """Time ``collective`` in every group of each communicator of ``parallelism`` at once."""
    pl = place(ctx, SimpleNamespace(parallelism=parallelism))
    sizes = sorted({max(int(s), 1) for s in sizes})
    rows = []
    for name in DIMENSIONS:
        groups = getattr(pl, name)
        if groups.shape[1] < 2:
            continue
        kind = "sendrecv" if name == "pp" else collective
        comm = communicator(ctx, name, groups, kind, sizes, routing)
        for s in sizes:
            rows.append(ConcurrentRow(name, kind, comm.groups, comm.group_size, comm.algorithm, s,
                                      float(comm.alone_s.get(s, np.nan)), comm.time(s), comm.time(s, tail=True),
                                      comm.slowdown, comm.slowdown_p99, comm.bottleneck_link, comm.network))
    notes = list(pl.notes)
    if not rows:
        notes.append("every dimension of the layout has one rank: nothing runs concurrently")
    return ConcurrentReport(dict(pl.sizes), routing.mode, tuple(rows), tuple(notes))


__all__ = ["ConcurrentReport", "ConcurrentRow", "concurrent_layout", "parse_layout"]
