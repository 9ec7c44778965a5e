"""How a measured-against-predicted comparison reads on the terminal and in the reports."""

from __future__ import annotations

from designer.analysis.measured.compare import RunComparison
from designer.analysis.measured.reasons import Reason
from designer.model import units
from designer.model.units import count, duration, rate, size

COLLECTIVE_NAMES = {"allreduce": "all-reduce", "allgather": "all-gather", "reducescatter": "reduce-scatter",
                    "alltoall": "all-to-all", "broadcast": "broadcast", "sendrecv": "sendrecv"}


def ratio_text(ratio: float) -> str:
    """A ratio as the fraction of the prediction the cluster reached: ``0.49x``."""
    return f"{ratio:.2f}x"


def run_heading(comp: RunComparison) -> str:
    run = comp.run
    gpus = comp.ranks.gpus
    shown = ", ".join(gpus[:2]) + (f" ... {gpus[-1]}" if len(gpus) > 2 else "")
    return (f"{COLLECTIVE_NAMES.get(comp.collective, comp.collective)} ({run.label}, collective from "
            f"{run.collective_from}): {count(run.n_ranks, 'rank')} on {count(len(run.hosts), 'host')}, "
            f"GPUs {shown}, by {comp.ranks.how}")


def comparison_lines(comp: RunComparison, reasons: list[Reason]) -> list[str]:
    """The table of sizes, the verdict per range of sizes and the likely reasons."""
    lines = [run_heading(comp)]
    head = (f"  {'size':>10}  {'measured':>9} {'busbw':>10}  {'predicted':>9} {'busbw':>10}  {'ratio':>6}  "
            "algorithm        regime")
    lines.append(head)
    for s in comp.sizes:
        algo = f"{s.algorithm}/{s.protocol}"
        lines.append(f"  {size(s.size_bytes):>10}  {duration(s.measured_time_s):>9} {rate(s.measured_busbw):>10}  "
                     f"{duration(s.predicted_time_s):>9} {rate(s.predicted_busbw):>10}  {ratio_text(s.ratio):>6}  "
                     f"{algo:<16} {s.regime}")
    for r in comp.ranges:
        span = size(r.first_bytes)
        if r.last_bytes != r.first_bytes:
            span += f" .. {size(r.last_bytes)}"
        lines.append(f"  {r.regime} {span} ({count(r.sizes, 'size')}): {ratio_text(r.median_ratio)} of the "
                     f"prediction at the median: {r.verdict}")
    if reasons:
        lines.append("  likely reasons:")
        lines += [f"    - {r.text}" for r in reasons]
    lines += [f"  note: {n}" for n in comp.notes]
    return lines


def counters_lines(fabric) -> list[str]:  # noqa: ANN001 - MeasuredFabric
    """The port counters on the design: each mapped link's bytes/s each way and use of its line rate,
    what did not map, the findings."""
    from designer.model.units import percent

    span = units.duration(fabric.seconds) if fabric.seconds else "rates as reported"
    mapped = sum(1 for p in fabric.ports if p.link is not None)
    lines = [f"port counters ({span}): {count(len(fabric.ports), 'port')}, {mapped} on a link of the design, "
             f"{count(len(fabric.links), 'link')} measured, {len(fabric.unmapped)} not mapped"]
    if fabric.links:
        lines.append(f"  {'link':<28} {'a -> b':>10} {'b -> a':>10}  {'use':>5}  errors")
        for lid, use in sorted(fabric.links.items(), key=lambda kv: -kv[1].utilisation):
            ab = rate(use.a_to_b) if use.a_to_b is not None else "-"
            ba = rate(use.b_to_a) if use.b_to_a is not None else "-"
            errs = ", ".join(f"{k} +{v:g}" for k, v in sorted(use.errors.items())) or "-"
            lines.append(f"  {lid:<28} {ab:>10} {ba:>10}  {percent(use.utilisation):>5}  {errs}")
    lines += [f"  not mapped: {u}" for u in fabric.unmapped]
    lines += [f"  [{f.severity}] {f.code}: {f.message}" for f in fabric.findings]
    lines += [f"  note: {n}" for n in fabric.notes]
    return lines


def fit_lines(fits, path: str) -> list[str]:  # noqa: ANN001 - list of MediumFit
    """The fitted efficiency per medium, before and after, and where it was saved."""
    lines = ["fit (per-medium efficiency, median over bandwidth-bound sizes):"]
    for f in fits:
        lines.append(f"  {f.medium}: {f.before:.3g} -> {f.after:.3g} ({count(f.sizes, 'size')} of "
                     f"{count(len(f.runs), 'run')})")
        lines += [f"    note: {n}" for n in f.notes]
    lines.append(f"  saved to {path}: use it with 'topo-designer --catalog {path} analyze ...'")
    return lines
