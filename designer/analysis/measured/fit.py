"""Fit the model's per-medium efficiency to a measurement (``compare --fit``), shown, never silent.

For every bandwidth-bound size of a compared run, the prediction is t = latency + S / (C x e) with e the
efficiency of the medium of the bottleneck link; the measurement t' gives e' = e x (t - latency) /
(t' - latency). The fitted figure per medium is the median e' over the sizes whose bottleneck is that
medium, at most 1 (a run faster than the line rate of its modelled bottleneck says the model's bottleneck
is wrong, not the efficiency; a note says so). The result is written as a catalog overlay
(``Catalog.efficiency``), with the runs and sizes it came from as its source.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.analysis.fabric.capacity import PROTOCOL_NAMES
from designer.analysis.fabric.context import Context
from designer.analysis.measured.compare import RunComparison
from designer.model.catalog import CATALOG_FORMAT, CATALOG_VERSION


@dataclass(frozen=True)
class MediumFit:
    """The fitted efficiency of one medium: before, after, how many sizes of how many runs, notes."""

    medium: str
    before: float
    after: float
    sizes: int
    runs: tuple[str, ...]
    notes: tuple[str, ...] = ()


def fit_efficiency(ctx: Context, comparisons: list[RunComparison]) -> list[MediumFit]:
    """The per-medium fit over the bandwidth-bound sizes of ``comparisons`` (module docstring)."""
    cap = ctx.cap
    index = {lid: i for i, lid in enumerate(cap.link_ids)}
    samples: dict[str, list[tuple[float, float, str]]] = {}
    for comp in comparisons:
        mdl = comp.model
        for s in comp.sizes:
            i = index.get(s.bottleneck_link)
            if s.regime != "bandwidth-bound" or i is None or mdl is None:
                continue
            lat = mdl.latency_s.get(s.protocol, 0.0)
            if s.measured_time_s <= lat:
                continue
            eff = float(cap.effective_bytes_per_s[i] / cap.line_bytes_per_s[i])
            fitted = eff * (s.predicted_time_s - lat) / (s.measured_time_s - lat)
            samples.setdefault(PROTOCOL_NAMES[int(cap.protocol[i])], []).append((eff, fitted, comp.run.label))
    out = []
    for medium, got in sorted(samples.items()):
        before = float(np.median([g[0] for g in got]))
        after = float(np.median([g[1] for g in got]))
        notes = []
        if after > 1.0:
            notes.append(f"the measurement is faster than the line rate of the modelled bottleneck ({after:.3g} of "
                         "it): the model's bottleneck is not the one the cluster hit; the fit stops at 1")
            after = 1.0
        out.append(MediumFit(medium, before, after, len(got), tuple(dict.fromkeys(g[2] for g in got)), tuple(notes)))
    return out


def overlay(fits: list[MediumFit], when: str) -> dict:
    """The catalog overlay holding ``fits`` (``topo-designer --catalog FILE`` reads it)."""
    return {
        "format": CATALOG_FORMAT,
        "version": CATALOG_VERSION,
        "description": "per-medium efficiency fitted to nccl-tests measurements by topo-designer compare --fit",
        "efficiency": {f.medium: {"value": round(f.after, 4), "source": (
            f"fitted by topo-designer compare --fit on {when} to {f.sizes} bandwidth-bound message sizes of "
            f"{', '.join(f.runs)} (median; the default was {f.before:.3g})")} for f in fits},
    }
