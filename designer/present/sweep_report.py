"""The HTML report of a sweep: its Pareto fronts, the front's points, every point, the errors.

The page has the style of the design report (:mod:`designer.present.html_report`): one
self-contained file, pictures as PNG data URIs (drawn by the window's plotting code, taken here as
bytes), figures read through :mod:`designer.model.units`. Each point's row carries its number and
key (``data-point``, ``data-key``), so a reader (or a test) can match the page with the results file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from designer.model import units
from designer.present.bom_text import power_text
from designer.present.html_parts import CSS, esc, figure, img, table
from designer.present.step_text import days
from designer.sweep.results import Column, pareto_axes

if TYPE_CHECKING:
    from designer.present.export import Picture

#: Points listed in the table of every point (the results file has them all).
MAX_TABLE_ROWS = 2000


@dataclass(frozen=True)
class Series:
    """One Pareto picture: the points of one workload, cost against time."""

    title: str
    x_label: str
    y_label: str
    x: tuple[float, ...]
    y: tuple[float, ...]
    front: tuple[bool, ...]
    points: tuple[int, ...]


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _coll_size(name: str) -> tuple[str, str]:
    """``allreduce_1GiB_time_s`` -> (``All-reduce``, ``1 GiB``)."""
    from designer.analysis.collectives.names import COLLECTIVE_TITLES

    coll, _, size = name[: -len("_time_s")].partition("_")
    return COLLECTIVE_TITLES.get(coll, coll), re.sub(r"^([\d.]+)([A-Za-z]+)$", r"\1 \2", size)


def axis_title(name: str) -> str:
    """How a metric column reads in words (without its unit)."""
    if name == "cost_usd":
        return "Indicative cost"
    if name == "time_to_train_s":
        return "Time to train"
    if name == "tpot_s":
        return "Time per output token"
    if name.endswith("_time_s"):
        coll, size = _coll_size(name)
        return f"{coll} time of {size}"
    return name


def _axis(name: str, values: Sequence[float]) -> tuple[str, float]:
    """The axis label with its unit, and the factor that puts ``values`` in that unit."""
    top = max((abs(v) for v in values), default=0.0)
    if name == "cost_usd":
        return ("Indicative cost (million USD)", 1e-6) if top >= 1e6 else ("Indicative cost (USD)", 1.0)
    if name == "time_to_train_s":
        return "Time to train (days)", 1 / 86400.0
    if name.endswith("_time_s") or name == "tpot_s":
        for unit, factor in (("s", 1.0), ("ms", 1e3), ("us", 1e6)):
            if top * factor >= 1 or unit == "us":
                return f"{axis_title(name)} ({unit})", factor
    return name, 1.0


def pareto_series(cols: Sequence[Column], rows: Sequence[dict[str, Any]]) -> list[Series]:
    """The points to plot, one series per workload (one series without workloads), in the axes' units."""
    axes = pareto_axes([c.name for c in cols])
    if axes is None:
        return []
    x, y = axes
    groups: dict[Any, list[dict[str, Any]]] = {}
    for r in rows:
        if r.get("status") == "ok" and _is_num(r.get(x)) and _is_num(r.get(y)):
            groups.setdefault(r.get("workload") or "", []).append(r)
    out = []
    for name, members in groups.items():
        xs, ys = [float(r[x]) for r in members], [float(r[y]) for r in members]
        x_label, fx = _axis(x, xs)
        y_label, fy = _axis(y, ys)
        title = f"Cost against {axis_title(y)[:1].lower()}{axis_title(y)[1:]}" + (f": {name}" if name else "")
        out.append(Series(title, x_label, y_label, tuple(v * fx for v in xs), tuple(v * fy for v in ys),
                          tuple(bool(r.get("pareto")) for r in members), tuple(int(r["point"]) for r in members)))
    return out


def param_names(cols: Sequence[Column]) -> list[str]:
    """The generator parameters of a sweep's columns (between ``generator`` and ``parameters``)."""
    names = [c.name for c in cols]
    start = names.index("generator") + 1
    end = names.index("parameters")
    return [n for n in names[start:end] if n != "workload"]


def cell_text(name: str, v: Any) -> str:
    """How a value of results column ``name`` reads in a table (empty when there is none)."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "yes" if v else ""
    if isinstance(v, float) and not math.isfinite(v):
        if name == "n1_added_step_s":
            return "the step stops"  # a failure that cuts GPUs off the job
        return "never" if name == "time_to_train_s" else str(v)
    if name.endswith("_usd"):
        return units.usd(v)
    if name == "power_w":
        return power_text(v)
    if name.endswith("_bytes_per_s"):
        return units.rate(v)
    if name == "time_to_train_s":
        return days(v)
    if name.endswith("_time_s") or name.endswith("_s"):
        return units.duration(v)
    if name.endswith("_fraction") or name == "mfu" or name.startswith("network_share"):
        return units.percent(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return units.figures(v)
    return str(v)


#: Metric columns of the tables, in order, with their heads.
_SHOWN = (("gpus", "GPUs"), ("switches", "switches"), ("cables", "cables"), ("power_w", "power"),
          ("cost_usd", "cost"), ("bisection_lower_bytes_per_s", "bisection \u2265"),
          ("bisection_upper_bytes_per_s", "bisection \u2264"), ("step_time_s", "step"),
          ("gpu_idle_fraction", "GPU idle"), ("mfu", "MFU"), ("time_to_train_s", "time to train"),
          ("ttft_s", "TTFT"), ("tpot_s", "TPOT"), ("output_tokens_per_s_per_gpu", "output tokens/s per GPU"),
          ("network_share_tpot", "TPOT network share"), ("serving_bound", "decode bound"),
          ("n1_gpus_cut_off", "N-1: GPUs cut off"), ("n1_lost_bisection_bytes_per_s", "N-1: bisection lost"),
          ("n1_added_step_s", "N-1: step added"))


def _metric_cols(cols: Sequence[Column]) -> list[tuple[str, str]]:
    names = [c.name for c in cols]
    out = []
    for name, head in _SHOWN:
        if name in names:
            out.append((name, head))
        if name == "bisection_upper_bytes_per_s":  # the collective's times after the bisection
            for n in names:
                if n.endswith("_time_s") and n not in ("step_time_s",) and not n.startswith("n1_"):
                    coll, size = _coll_size(n)
                    out.append((n, f"{coll} {size}"))
    return out


def _points_table(cols: Sequence[Column], rows: Sequence[dict[str, Any]]) -> str:
    params = param_names(cols)
    has_workload = any(c.name == "workload" for c in cols)
    metrics = _metric_cols(cols)
    heads = ["point", *params, *(["workload"] if has_workload else []), *(h for _, h in metrics), "Pareto"]
    numeric = [True, *([False] * len(params)), *([False] if has_workload else []), *([True] * len(metrics)), False]
    body, classes = [], []
    for r in rows:
        point = esc(r.get("point"))
        cells = [f'<span data-point="{point}" data-key="{esc(r.get("key"))}">{point}</span>']
        cells += [esc(cell_text(p, r.get(p))) for p in params]
        if has_workload:
            cells.append(esc(r.get("workload") or ""))
        cells += [esc(cell_text(m, r.get(m))) for m, _ in metrics]
        cells.append("on the front" if r.get("pareto") else "")
        body.append(cells)
        classes.append("sel" if r.get("pareto") else "")
    return table(heads, body, numeric, classes)


def sweep_html(cols: Sequence[Column], rows: Sequence[dict[str, Any]], *, source: str = "",
               pictures: Sequence[Picture] = (), notes: Sequence[str] = ()) -> str:
    """The page of a sweep's results (``pictures``: one per :func:`pareto_series`, in order)."""
    ok = [r for r in rows if r.get("status") == "ok"]
    refused = [r for r in rows if r.get("status") == "refused"]
    failed = [r for r in rows if r.get("status") not in ("ok", "refused")]
    front = [r for r in ok if r.get("pareto")]
    generator = next((r.get("generator") for r in rows if r.get("generator")), "")
    title = f"Sweep of {generator} fabrics" if generator else "Sweep"
    head = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{esc(title)} \u2014 Topology Designer sweep report</title>"
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<style>{CSS}</style></head><body>")
    params = param_names(cols)
    parts = [head, f"<h1>{esc(title)}</h1>",
             f'<p class="sub">{esc(source)} \u00b7 parameters: {esc(", ".join(params) or "none")}. '
             "Bandwidths are per direction; costs are indicative list prices.</p>",
             "<h2>Key figures</h2>"]
    figs = [figure("points", f'<span data-key="points" data-value="{len(rows)}">{len(rows):,}</span>'),
            figure("analysed", f'<span data-key="ok" data-value="{len(ok)}">{len(ok):,}</span>'),
            figure("refused by the generator or workload", f"{len(refused):,}"),
            figure("failed", f"{len(failed):,}"),
            figure("on the Pareto front", f'<span data-key="pareto" data-value="{len(front)}">{len(front):,}</span>')]
    axes = pareto_axes([c.name for c in cols])
    if axes is not None and ok:
        x, y = axes
        cheap = min((r for r in ok if _is_num(r.get(x))), key=lambda r: r[x], default=None)
        fast = min((r for r in ok if _is_num(r.get(y))), key=lambda r: r[y], default=None)
        if cheap is not None:
            figs.append(figure(f"cheapest: point {cheap['point']}", esc(cell_text(x, cheap[x]))))
        if fast is not None:
            figs.append(figure(f"fastest ({axis_title(y).lower()}): point {fast['point']}",
                                esc(cell_text(y, fast[y]))))
    parts.append(f'<div class="figures">{"".join(figs)}</div>')
    if axes is not None:
        x, y = axes
        parts.append("<h2>Pareto front</h2>"
                     f'<p class="sub">{esc(axis_title(x))} against {esc(axis_title(y).lower())}: a point is on the '
                     "front when no other point is both cheaper and faster (per workload). In the pictures the "
                     "front is blue, joined by a line; the other points are grey.</p>")
        parts += [f"<figure>{img(p, p.title)}<figcaption>{esc(p.title)}</figcaption></figure>" for p in pictures]
        parts += [f'<p class="note">{esc(n)}</p>' for n in notes]
        parts.append("<h3>Points on the front</h3>" + (_points_table(cols, front) if front else
                                                       "<p>No point was analysed.</p>"))
    else:
        parts.append('<p class="note">No Pareto front: the sweep did not record the cost (metrics: bom) and a '
                     "time.</p>")
    shown = rows[:MAX_TABLE_ROWS]
    more = f" (the first {MAX_TABLE_ROWS:,} of {len(rows):,}; the results file has all)" if len(rows) > len(shown) \
        else ""
    parts.append(f"<h2>Every point</h2><p class=\"sub\">In grid order{esc(more)}. Rows on the front are in bold; "
                 "<code>topo-designer sweep-point RESULTS POINT -o design.json</code> rebuilds one as a design "
                 "(or File \u25b8 Open Sweep Point\u2026 in the window).</p>" + _points_table(cols, shown))
    bad = refused + failed
    if bad:
        parts.append("<h2>Points not analysed</h2>" + table(
            ["point", "parameters", "status", "error"],
            [[esc(r.get("point")), esc(r.get("parameters") or ""), esc(r.get("status") or ""),
              esc(r.get("error") or "")]
             for r in bad[:MAX_TABLE_ROWS]], [True, False, False, False]))
    parts.append("</body></html>\n")
    return "\n".join(parts)


__all__ = ["Series", "cell_text", "param_names", "pareto_series", "sweep_html"]
