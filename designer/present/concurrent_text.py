"""``analyze --concurrent``: every group of a layout at once, as text and as JSON."""

from __future__ import annotations

import math
from typing import Any

from designer.analysis.training.concurrent import ConcurrentReport
from designer.model.units import count, duration, figures, size
from designer.present.numbers import finite_or_none as _num

NAMES = {"tp": "tensor parallel", "cp": "context parallel", "pp": "pipeline sends", "dp": "data parallel"}


def concurrent_lines(rep: ConcurrentReport) -> list[str]:
    layout = ", ".join(f"{k.upper()} {v}" for k, v in rep.layout.items() if v > 1) or "one rank"
    how = ("hashed ECMP, every group's flows pinned to paths together (mean of the draws, p99)"
           if rep.routing == "hashed" else f"{rep.routing} routing (the fluid split)")
    out = [f"Concurrent: every group of {layout} at once, {how}:"]
    for r in rep.rows:
        tail = f", {duration(r.time_p99_s)} at p99 (x{figures(r.slowdown_p99)})" if rep.routing == "hashed" else ""
        where = "network" if r.network else "NVLink"
        if not math.isfinite(r.time_s) or not math.isfinite(r.alone_s):
            out.append(f"  {NAMES.get(r.name, r.name)} {r.collective}: {count(r.groups, 'group')} of "
                       f"{r.group_size}, {size(r.message_bytes)}: cannot run ({r.algorithm}; see the notes)")
            continue
        out.append(f"  {NAMES.get(r.name, r.name)} {r.collective} ({r.algorithm}, {where}"
                   f"): {count(r.groups, 'group')} of {r.group_size}, {size(r.message_bytes)}: alone "
                   f"{duration(r.alone_s)}, all at once {duration(r.time_s)} (x{figures(r.slowdown)}){tail}"
                   + (f"; busiest link {r.bottleneck_link}" if r.bottleneck_link and r.slowdown > 1.0005 else ""))
    out += [f"  note: {n}" for n in rep.notes]
    return out


def concurrent_to_dict(rep: ConcurrentReport) -> dict[str, Any]:
    return {"layout": dict(rep.layout), "routing": rep.routing,
            "rows": [{"name": r.name, "collective": r.collective, "groups": r.groups, "group_size": r.group_size,
                      "algorithm": r.algorithm, "message_bytes": r.message_bytes, "alone_s": _num(r.alone_s),
                      "time_s": _num(r.time_s), "time_p99_s": _num(r.time_p99_s), "slowdown": _num(r.slowdown),
                      "slowdown_p99": _num(r.slowdown_p99), "bottleneck_link": r.bottleneck_link,
                      "network": r.network}
                     for r in rep.rows],
            "notes": list(rep.notes)}
