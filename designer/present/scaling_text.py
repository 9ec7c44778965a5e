"""Scaling projection, growth headroom and upgrade advice as text and JSON."""

from __future__ import annotations

import math
from typing import Any

from designer.analysis.training.scaling import Advice, Headroom, Scaling
from designer.model.units import count, duration, figures, percent
from designer.present.numbers import finite_or_none as _num
from designer.present.step_text import days, tokens, usd


def scaling_lines(sc: Scaling, head: Headroom | None = None) -> list[str]:
    out = ["Scaling projection (same workload, same fabric family, global batch unchanged):",
           f"  {'size':>6} {'GPUs':>8} {'step':>10} {'idle':>6} {'MFU':>5} {'tokens/s':>10}"]
    for p in sc.points:
        if p.step is None:
            out.append(f"  x{figures(p.factor):<5} {p.gpus:>8,} {p.error}")
            continue
        s = p.step
        out.append(f"  x{figures(p.factor):<5} {s.gpus:>8,} {duration(s.step_time_s):>10} "
                   f"{percent(s.gpu_idle_fraction):>6} {percent(s.mfu):>5} {tokens(s.tokens_per_s):>10}")
    if sc.bend is not None:
        out.append(f"  the idle fraction jumps most going to x{figures(sc.bend)}: there the network starts to bind")
    else:
        out.append("  no size where the idle fraction jumps (by 2 points of percentage or more)")
    if head is not None:
        out.extend(headroom_lines(head))
    return out


def headroom_lines(h: Headroom) -> list[str]:
    out = [f"Growth as built: {count(h.more_gpus, 'more GPU')} ({count(h.more_servers, 'server')}) before a tier "
           f"must be added or re-cabled; the {h.binding_tier or '-'} tier binds first"]
    for t in h.tiers:
        out.append(f"  {t.tier}: {count(t.switches, 'switch')}, {t.free_ports:,} of {t.ports:,} ports free, "
                   f"{figures(t.ports_per_gpu)} per GPU: room for {count(t.more_gpus, 'GPU')}")
    return out


def scaling_to_dict(sc: Scaling, head: Headroom | None = None) -> dict[str, Any]:
    return {
        "format": "topo-designer-scaling", "version": 1, "units": {"time": "s"},
        "points": [{"factor": p.factor, "gpus": p.gpus, "error": p.error or None,
                    "step_time_s": _num(p.step.step_time_s) if p.step else None,
                    "gpu_idle_fraction": _num(p.step.gpu_idle_fraction) if p.step else None,
                    "mfu": _num(p.step.mfu) if p.step else None,
                    "tokens_per_s": _num(p.step.tokens_per_s) if p.step else None} for p in sc.points],
        "bend_factor": sc.bend,
        "headroom": None if head is None else {
            "more_gpus": head.more_gpus, "more_servers": head.more_servers, "binding_tier": head.binding_tier,
            "tiers": [{"tier": t.tier, "switches": t.switches, "ports": t.ports, "free_ports": t.free_ports,
                       "ports_per_gpu": t.ports_per_gpu, "more_gpus": t.more_gpus} for t in head.tiers]},
    }


def advice_lines(a: Advice) -> list[str]:
    b = a.base
    rows = [b, *a.options]
    w = max(len("option"), *(len(o.label) for o in rows))  # the option column fits its longest label
    out = [f"Upgrade advice for {b.step.workload if b.step else 'the workload'}: time to train and bill of "
           "materials against the design as it is",
           f"  {'option':<{w}} {'GPUs':>7} {'time to train':>14} {'saved':>10} {'BOM':>16} {'extra':>14}"]
    for o in rows:
        extra = "" if o is b else usd(a.extra_usd(o))
        saved = "" if o is b else days(a.saved_days(o) * 86400) if math.isfinite(a.saved_days(o)) else "-"
        when = days(o.days * 86400) if o.step else o.error
        out.append(f"  {o.label:<{w}} {o.gpus:>7,} {when:>14} {saved:>10} {usd(o.bom_usd):>16} {extra:>14}")
    if a.best:
        o = next(x for x in a.options if x.label == a.best)
        per = a.saved_days(o) / max(a.extra_usd(o), 1.0) * 1e6
        out.append(f"  verdict: {a.best} buys most: {days(a.saved_days(o) * 86400)} saved for "
                   f"{usd(a.extra_usd(o))} ({figures(per)} days per million USD)")
    else:
        out.append("  verdict: no option trains faster than the design as it is")
    return out


def advice_to_dict(a: Advice) -> dict[str, Any]:
    def one(o):
        return {"label": o.label, "gpus": o.gpus, "bom_usd": _num(o.bom_usd), "error": o.error or None,
                "time_to_train_s": _num(o.step.time_to_train_s) if o.step else None,
                "step_time_s": _num(o.step.step_time_s) if o.step else None,
                "gpu_idle_fraction": _num(o.step.gpu_idle_fraction) if o.step else None}
    return {"format": "topo-designer-advice", "version": 1, "units": {"time": "s", "cost": "USD"},
            "base": one(a.base),
            "options": [{**one(o), "saved_s": _num(a.saved_days(o) * 86400), "extra_usd": _num(a.extra_usd(o))}
                        for o in a.options],
            "best": a.best}


__all__ = ["advice_lines", "advice_to_dict", "headroom_lines", "scaling_lines", "scaling_to_dict"]
