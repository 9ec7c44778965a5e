"""How a measured-against-predicted comparison reads on the terminal and in the reports."""

from __future__ import annotations

from designer.analysis.measured.compare import RunComparison
from designer.analysis.measured.reasons import Reason
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
