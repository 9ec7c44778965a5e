"""Failure analyses as text and JSON: ``whatif`` (before / after / delta) and ``scan`` (the N-1 ranking)."""

from __future__ import annotations

import math
from typing import Any

from designer.analysis.training.failures import Scan, SinglePoints, State, WhatIf
from designer.model.units import count, duration, percent, rate
from designer.present.numbers import finite_or_none as _num


def _step(s: State) -> str:
    if s.step is None:
        return f"step: {s.step_error}" if s.step_error else ""
    st = s.step
    if not math.isfinite(st.step_time_s):
        return "step never completes (GPUs cut off)"
    return f"step {duration(st.step_time_s)}, GPU idle {percent(st.gpu_idle_fraction)}, MFU {percent(st.mfu)}"


def _rate(x: float | None) -> str:
    """A bisection figure, or ``n/a`` where there is none (fewer than 2 GPUs)."""
    return "n/a" if x is None else rate(x)


def _added(x: float | None) -> str:
    if x is None:
        return "-"
    if not math.isfinite(x):
        return "never completes"
    return f"+{duration(x)}" if x >= 0 else f"-{duration(-x)}"


def whatif_lines(w: WhatIf) -> list[str]:
    out = [f"What if {', '.join(w.failed)} {'fails' if len(w.failed) == 1 else 'fail'} "
           f"({count(w.links_down, 'link')} down):"]
    for name, s in (("before", w.before), ("after", w.after)):
        step = _step(s)
        out.append(f"  {name:>6}: bisection {_rate(s.bisection_lower_bytes_per_s)} .. "
                   f"{_rate(s.bisection_upper_bytes_per_s)} (per direction); "
                   f"{count(s.gpus_without_network, 'GPU')} without a network path"
                   + (f"; {step}" if step else ""))
    out.append(f"  delta: bisection lower bound -{_rate(w.lost_bisection_lower_bytes_per_s)}, best cut "
               f"-{_rate(w.lost_bisection_bytes_per_s)}; "
               f"{count(w.after.gpus_without_network - w.before.gpus_without_network, 'more GPU')} cut off"
               + (f"; step {_added(w.added_step_s)}" if w.added_step_s is not None else ""))
    return out


def _state_dict(s: State) -> dict[str, Any]:
    st = s.step
    return {"bisection_lower_bytes_per_s": _num(s.bisection_lower_bytes_per_s),
            "bisection_upper_bytes_per_s": _num(s.bisection_upper_bytes_per_s),
            "gpus_without_network": s.gpus_without_network,
            "step_time_s": _num(st.step_time_s) if st is not None else None,
            "gpu_idle_fraction": _num(st.gpu_idle_fraction) if st is not None else None,
            "mfu": _num(st.mfu) if st is not None else None, "step_error": s.step_error or None}


def whatif_to_dict(w: WhatIf) -> dict[str, Any]:
    return {"format": "topo-designer-whatif", "version": 1,
            "units": {"time": "s", "bandwidth": "bytes/s per direction"},
            "failed": list(w.failed), "links_down": w.links_down,
            "before": _state_dict(w.before), "after": _state_dict(w.after),
            "delta": {"lost_bisection_bytes_per_s": _num(w.lost_bisection_bytes_per_s),
                      "lost_bisection_lower_bytes_per_s": _num(w.lost_bisection_lower_bytes_per_s),
                      "gpus_cut_off": w.after.gpus_without_network - w.before.gpus_without_network,
                      "added_step_s": _num(w.added_step_s)}}


def scan_lines(scan: Scan, spof: SinglePoints | None = None, top: int = 20) -> list[str]:
    out = [f"N-1 scan: {count(scan.elements, 'element')} in {count(scan.classes, 'class', 'classes')} of "
           "equivalent failures (one failed per class), worst first:"]
    for r in scan.rows[:top]:
        extra = f"; {r.step_error}" if r.step_error else ""
        out.append(f"  {r.element} ({r.kind}, {count(r.members, 'like it', 'like it')}): "
                   f"{count(r.gpus_cut_off, 'GPU')} cut off, bisection -{_rate(r.lost_bisection_bytes_per_s)}"
                   + (f", step {_added(r.added_step_s)}" if r.added_step_s is not None else "") + extra)
    if len(scan.rows) > top:
        out.append(f"  ... and {count(len(scan.rows) - top, 'more class', 'more classes')} (--json lists them all)")
    if spof is not None:
        out.extend(single_point_lines(spof))
    return out


def single_point_lines(spof: SinglePoints, shown: int = 3) -> list[str]:
    """Single points of failure, grouped by how many GPUs each cuts off (worst first)."""
    if not spof.links and not spof.devices:
        return ["Single points of failure: none (no one link or device cuts GPUs off)"]
    out = [f"Single points of failure: {count(len(spof.devices), 'device')}, {count(len(spof.links), 'link')} "
           "(each alone cuts GPUs off: the step never completes):"]
    for what, rows in (("device", spof.devices), ("link", spof.links)):
        by_loss: dict[int, list[str]] = {}
        for x, n in rows:
            by_loss.setdefault(n, []).append(x)
        for n in sorted(by_loss, reverse=True):
            names = by_loss[n]
            more = f" and {len(names) - shown:,} more" if len(names) > shown else ""
            out.append(f"  {count(len(names), what)} cutting off {count(n, 'GPU')} each: "
                       f"{', '.join(names[:shown])}{more}")
    return out


def scan_to_dict(scan: Scan, spof: SinglePoints | None = None) -> dict[str, Any]:
    return {"format": "topo-designer-scan", "version": 1,
            "units": {"time": "s", "bandwidth": "bytes/s per direction"},
            "before": _state_dict(scan.before), "classes": scan.classes, "elements": scan.elements,
            "rows": [{"element": r.element, "kind": r.kind, "members": r.members, "gpus_cut_off": r.gpus_cut_off,
                      "lost_bisection_bytes_per_s": _num(r.lost_bisection_bytes_per_s),
                      "lost_bisection_lower_bytes_per_s": _num(r.lost_bisection_lower_bytes_per_s),
                      "added_step_s": _num(r.added_step_s), "step_error": r.step_error or None}
                     for r in scan.rows],
            "single_points": None if spof is None else {
                "links": [{"id": x, "gpus_cut_off": n} for x, n in spof.links],
                "devices": [{"id": x, "gpus_cut_off": n} for x, n in spof.devices]}}


__all__ = ["scan_lines", "scan_to_dict", "whatif_lines", "whatif_to_dict"]
