"""Scaling projection, growth headroom and upgrade advice for a workload on a fabric family.

The designs compared are built by the caller (the command line regenerates them from the generator
parameters a design records, :mod:`designer.cli.fabric_family`); this module analyses them:

- :func:`scale_projection`: the same workload on each size (data parallel filling the GPUs, the
  global batch unchanged): step time, idle fraction, MFU, tokens/s. The size where the idle fraction
  jumps most is where the network starts to bind (``bend``).
- :func:`growth_headroom`: how many more GPUs the free ports of each switch tier admit at the
  design's current ratios (ports of that tier used per GPU); the tier that admits fewest binds first.
- :func:`advise`: options (more GPUs, network upgrades) compared on time to train and bill of
  materials: days saved per million USD spent over the base design.

Units: seconds, USD.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from designer.analysis.bom.bill import bill_of_materials
from designer.analysis.training.step import StepReport, step_analysis
from designer.analysis.training.workload import Workload
from designer.model import Design, DesignError
from designer.model.catalog import Catalog

#: Tiers from the endpoints up, as the generators name them (docs/architecture.md).
TIER_ORDER = ("leaf", "edge", "spine", "aggregation", "core")


@dataclass(frozen=True)
class ScalePoint:
    factor: float
    gpus: int
    step: StepReport | None
    error: str = ""


@dataclass(frozen=True)
class Scaling:
    points: tuple[ScalePoint, ...]
    #: The factor after which the idle fraction jumps most (None: no jump above 2 points of percentage).
    bend: float | None


def scale_projection(designs: list[tuple[float, Design]], workload: Workload,
                     catalog: Catalog | None = None) -> Scaling:
    """Step analysis of ``workload`` on each (factor, design); a size it does not fit is an error row."""
    points = []
    for factor, design in designs:
        n = sum(1 for d in design.devices if d.kind == "gpu")
        try:
            points.append(ScalePoint(factor, n, step_analysis(design, workload, catalog)))
        except DesignError as e:
            points.append(ScalePoint(factor, n, None, str(e)))
    ok = [p for p in points if p.step is not None and math.isfinite(p.step.step_time_s)]
    bend, worst = None, 0.02
    for a, b in zip(ok, ok[1:], strict=False):
        jump = b.step.gpu_idle_fraction - a.step.gpu_idle_fraction
        if jump > worst:
            bend, worst = b.factor, jump
    return Scaling(tuple(points), bend)


@dataclass(frozen=True)
class TierRoom:
    tier: str
    switches: int
    ports: int
    free_ports: int
    ports_per_gpu: float
    more_gpus: int


@dataclass(frozen=True)
class Headroom:
    """Growth as built: per tier, the GPUs its free ports admit; the first to run out binds."""

    gpus: int
    gpus_per_server: int
    tiers: tuple[TierRoom, ...]
    more_gpus: int
    binding_tier: str

    @property
    def more_servers(self) -> int:
        return self.more_gpus // max(self.gpus_per_server, 1)


def growth_headroom(design: Design) -> Headroom:
    """Free network ports per switch tier, and the GPUs each admits at the current ratios."""
    tier_of = {d.id: (d.tier or "leaf") for d in design.devices if d.kind == "switch"}
    gpus = sum(1 for d in design.devices if d.kind == "gpu")
    servers = [g for g in design.groups if g.kind == "server"]
    per_server = round(gpus / len(servers)) if servers else 1
    rank = {t: i for i, t in enumerate(TIER_ORDER)}
    ports = Counter()
    used = Counter()
    down = Counter()  # links into a tier from below (endpoints or a lower tier)
    switches = Counter(tier_of.values())
    for d in design.devices:
        if d.id in tier_of:
            ports[tier_of[d.id]] += sum(g.count for g in d.ports if g.kind == "network")
    for lk in design.links:
        ta, tb = tier_of.get(lk.a_device), tier_of.get(lk.b_device)
        for t in (ta, tb):
            if t is not None:
                used[t] += 1
        if ta is not None and tb is not None and ta != tb:
            upper = ta if rank.get(ta, 0) > rank.get(tb, 0) else tb
            down[upper] += 1
        elif (ta is None) != (tb is None):
            down[ta or tb] += 1
    rooms = []
    for t in sorted(switches, key=lambda x: rank.get(x, 0)):
        per_gpu = down[t] / gpus if gpus else 0.0
        free = max(ports[t] - used[t], 0)
        more = int(free / per_gpu) if per_gpu > 0 else 0
        rooms.append(TierRoom(t, switches[t], ports[t], free, per_gpu, more))
    if not rooms:
        return Headroom(gpus, per_server, (), 0, "")
    bind = min(rooms, key=lambda r: r.more_gpus)
    # Whole servers only.
    more = bind.more_gpus // max(per_server, 1) * max(per_server, 1)
    return Headroom(gpus, per_server, tuple(rooms), more, bind.tier)


@dataclass(frozen=True)
class Option:
    label: str
    gpus: int
    step: StepReport | None
    bom_usd: float
    error: str = ""

    @property
    def days(self) -> float:
        if self.step is None:
            return math.inf
        return self.step.time_to_train_s / 86400.0


@dataclass(frozen=True)
class Advice:
    base: Option
    options: tuple[Option, ...]
    #: The option with the most days saved per USD (None: none saves time).
    best: str | None

    def saved_days(self, o: Option) -> float:
        return self.base.days - o.days

    def extra_usd(self, o: Option) -> float:
        return o.bom_usd - self.base.bom_usd


def advise(base: tuple[str, Design], options: list[tuple[str, Design]], workload: Workload,
           catalog: Catalog | None = None) -> Advice:
    """Each option's time to train ``workload`` and bill of materials against the base design."""

    def run(label: str, design: Design) -> Option:
        n = sum(1 for d in design.devices if d.kind == "gpu")
        cost = bill_of_materials(design, catalog).total_price_usd
        try:
            return Option(label, n, step_analysis(design, workload, catalog), cost)
        except DesignError as e:
            return Option(label, n, None, cost, str(e))

    b = run(*base)
    outs = tuple(run(label, d) for label, d in options)
    best, best_value = None, 0.0
    for o in outs:
        saved = b.days - o.days
        extra = o.bom_usd - b.bom_usd
        if saved <= 0 or not math.isfinite(saved):
            continue
        value = saved / max(extra, 1.0)
        if value > best_value:
            best, best_value = o.label, value
    return Advice(b, outs, best)


__all__ = ["Advice", "Headroom", "Option", "ScalePoint", "Scaling", "TierRoom", "advise", "growth_headroom",
           "scale_projection"]
