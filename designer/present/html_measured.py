"""The "Measured against predicted" section of the HTML report, and the page ``compare --html`` writes.

Built from the JSON of ``topo-designer compare`` (:mod:`designer.present.measured_json`), like the rest
of the report from its JSON: per run a chart of measured and predicted busbw against message size (an
inline SVG, nothing fetched), the table of sizes, the verdict per range and the likely reasons; the port
counters' links, what did not map and the findings; the fit. docs/measured.md.
"""

from __future__ import annotations

import math
from typing import Any

from designer.model import units
from designer.present.html_parts import CSS, esc, table, tagged

_W, _H, _PAD, _LEFT = 640, 260, 40, 78
_COLLECTIVES = {"allreduce": "all-reduce", "allgather": "all-gather", "reducescatter": "reduce-scatter",
                "alltoall": "all-to-all", "broadcast": "broadcast", "sendrecv": "sendrecv"}


def _chart(sizes: list[dict[str, Any]]) -> str:
    """busbw against size (log-log): the predicted line and the measured points."""
    pts = [(s["size"], s["measured_busbw"], s["predicted_busbw"]) for s in sizes
           if s["size"] > 0 and s["predicted_busbw"] > 0]
    ys = [v for _, m, p in pts for v in (m, p) if v > 0]
    if len(pts) < 2 or not ys:
        return ""
    x0, x1 = math.log10(pts[0][0]), math.log10(pts[-1][0])
    y0, y1 = math.log10(min(ys)), math.log10(max(ys))
    y0, y1 = (y0 - 0.1, y1 + 0.1) if y1 > y0 else (y0 - 1, y1 + 1)

    def xy(x: float, y: float) -> tuple[float, float]:
        px = _LEFT + (math.log10(x) - x0) / ((x1 - x0) or 1) * (_W - _LEFT - _PAD)
        py = _H - _PAD + (-(math.log10(y) - y0) / (y1 - y0)) * (_H - 2 * _PAD)
        return round(px, 1), round(py, 1)

    line = " ".join(f"{a},{b}" for a, b in (xy(s, p) for s, _, p in pts))
    dots = "".join(f'<circle cx="{a}" cy="{b}" r="3.5" fill="#d9480f"><title>{esc(units.size(s))}: '
                   f"{esc(units.rate(m))} measured</title></circle>"
                   for s, m, _ in pts if m > 0 for a, b in (xy(s, m),))
    axis = (f'<line x1="{_LEFT}" y1="{_H - _PAD}" x2="{_W - _PAD}" y2="{_H - _PAD}" stroke="#888"/>'
            f'<line x1="{_LEFT}" y1="{_PAD}" x2="{_LEFT}" y2="{_H - _PAD}" stroke="#888"/>'
            f'<text x="{_LEFT}" y="{_H - _PAD + 18}" font-size="11">{esc(units.size(pts[0][0]))}</text>'
            f'<text x="{_W - _PAD}" y="{_H - _PAD + 18}" font-size="11" text-anchor="end">'
            f"{esc(units.size(pts[-1][0]))}</text>"
            f'<text x="{_LEFT - 4}" y="{_PAD + 4}" font-size="11" text-anchor="end">{esc(units.rate(10 ** y1))}</text>'
            f'<text x="{_LEFT - 4}" y="{_H - _PAD}" font-size="11" text-anchor="end">{esc(units.rate(10 ** y0))}</text>'
            f'<text x="{_W / 2}" y="{_H - 8}" font-size="11" text-anchor="middle">message size (log)</text>')
    legend = (f'<polyline points="{_W - 250},{_PAD - 22} {_W - 230},{_PAD - 22}" stroke="#1E6FD9" stroke-width="2"/>'
              f'<text x="{_W - 225}" y="{_PAD - 18}" font-size="11">predicted busbw</text>'
              f'<circle cx="{_W - 110}" cy="{_PAD - 22}" r="3.5" fill="#d9480f"/>'
              f'<text x="{_W - 102}" y="{_PAD - 18}" font-size="11">measured busbw</text>')
    return (f'<figure><svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{_H}" viewBox="0 0 {_W} {_H}" '
            f'role="img" aria-label="measured and predicted busbw against message size">{axis}{legend}'
            f'<polyline points="{line}" fill="none" stroke="#1E6FD9" stroke-width="2"/>{dots}</svg>'
            "<figcaption>Bus bandwidth per message size: the prediction (line) and the measurement (points), "
            "both axes logarithmic.</figcaption></figure>")


def _run(i: int, run: dict[str, Any]) -> str:
    title = _COLLECTIVES.get(run["collective"], run["collective"])
    rows = []
    for s in run["sizes"]:
        key = f"runs[{i}].sizes"
        rows.append([esc(units.size(s["size"])), esc(units.duration(s["measured_time_s"])),
                     esc(units.rate(s["measured_busbw"])), esc(units.duration(s["predicted_time_s"])),
                     esc(units.rate(s["predicted_busbw"])), tagged(f"{key}.ratio", s["ratio"], f"{s['ratio']:.2f}x"),
                     esc(f"{s['algorithm']}/{s['protocol']}"), esc(s["regime"])])
    tab = table(["size", "measured time", "measured busbw", "predicted time", "predicted busbw", "ratio",
                 "algorithm", "regime"], rows, [True, True, True, True, True, True, False, False])
    verdicts = "".join(
        f"<p><b>{esc(r['regime'])} {esc(units.size(r['first_size']))} \u2013 {esc(units.size(r['last_size']))}</b>: "
        f"{r['median_ratio']:.2f}x of the prediction at the median, <b>{esc(r['verdict'])}</b>.</p>"
        for r in run["ranges"])
    reasons = "".join(f"<li>{esc(r['text'])}</li>" for r in run["reasons"])
    notes = "".join(f'<p class="note">{esc(n)}</p>' for n in run["notes"])
    return (f"<h3>{esc(title)}: {run['ranks']:,} ranks on {len(run['hosts']):,} hosts</h3>"
            f'<p class="sub">{esc(run["source"])}, line {run["line"]}; GPUs by {esc(run["gpus_from"])}. The ratio is '
            "predicted over measured time: 1 is the model, below 1 slower than predicted.</p>"
            + _chart(run["sizes"]) + tab + verdicts
            + (f"<p>Likely reasons:</p><ul>{reasons}</ul>" if reasons else "") + notes)


def _counters(c: dict[str, Any]) -> str:
    span = f"over {units.duration(c['seconds'])}" if c.get("seconds") else "as reported"
    rows = [[esc(u["link"]), esc(units.rate(u["a_to_b_bytes_per_s"])) if u["a_to_b_bytes_per_s"] is not None else "-",
             esc(units.rate(u["b_to_a_bytes_per_s"])) if u["b_to_a_bytes_per_s"] is not None else "-",
             esc(units.percent(u["utilisation"])),
             esc(", ".join(f"{k} +{v:g}" for k, v in sorted(u["errors"].items())) or "-")]
            for u in sorted(c["links"], key=lambda u: -u["utilisation"])]
    parts = [f"<h3>Port counters</h3><p class=\"sub\">Bytes/s each way on each link of the design, {esc(span)}; "
             "use is the busier direction over the link's line rate.</p>"]
    if rows:
        parts.append(table(["link", "a \u2192 b", "b \u2192 a", "use", "errors"], rows,
                           [False, True, True, True, False]))
    parts += [f'<p class="warning">{esc(f["code"])}: {esc(f["message"])}</p>' for f in c["findings"]]
    if c["unmapped"]:
        parts.append(f"<p>Not mapped to the design ({len(c['unmapped']):,}):</p><ul>"
                     + "".join(f"<li>{esc(u)}</li>" for u in c["unmapped"][:50]) + "</ul>")
    parts += [f'<p class="note">{esc(n)}</p>' for n in c["notes"][:20]]
    return "".join(parts)


def measured_section(doc: dict[str, Any]) -> str:
    """The section for a ``topo-designer compare`` JSON document ``doc``."""
    parts = ["<h2>Measured against predicted</h2>"]
    for i, run in enumerate(doc.get("runs", ())):
        parts.append(_run(i, run))
    if doc.get("counters"):
        parts.append(_counters(doc["counters"]))
    for f in doc.get("fit") or ():
        parts.append(f"<p><b>Fit</b>: {esc(f['medium'])} efficiency {f['before']:.3g} \u2192 {f['after']:.3g} "
                     f"({f['sizes']:,} sizes), saved to {esc(f['overlay'])}.</p>")
    return "".join(parts)


def measured_page(doc: dict[str, Any], title: str) -> str:
    """A whole page holding only the section (``compare --html``)."""
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{esc(title)} \u2014 measured '
            f'against predicted</title><meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<style>{CSS}</style></head><body><h1>{esc(title)}</h1>"
            f'<p class="sub">{esc(doc.get("design", ""))} \u00b7 topo-designer compare. Bandwidths are per '
            f"direction.</p>{measured_section(doc)}</body></html>\n")
