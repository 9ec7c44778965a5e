"""The HTML report: one self-contained file a manager can read, print, or mail (docs/export.md).

Built from the JSON report (:func:`designer.present.export.export_document`), so the page shows
the same figures: every key figure carries its JSON path and exact value in ``data-key`` /
``data-value`` attributes next to the text read through :mod:`designer.model.units`. Pictures
are PNG data URIs; there is no script, no font or style sheet to fetch, nothing that needs a
network. A print style sheet keeps tables and figures whole on a page.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from designer.model import units

if TYPE_CHECKING:
    from designer.present.export import Picture

COLLECTIVE_TITLES = {"allreduce": "All-reduce", "reducescatter": "Reduce-scatter", "allgather": "All-gather",
                     "alltoall": "All-to-all", "broadcast": "Broadcast"}

_CSS = """
:root { color-scheme: light; }
body { font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #1d232b;
       max-width: 1100px; margin: 24px auto; padding: 0 20px; background: #fff; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 30px 0 8px; border-bottom: 2px solid #1E6FD9; padding-bottom: 3px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
.sub { color: #5a6472; margin: 0 0 14px; }
.figures { display: flex; flex-wrap: wrap; gap: 10px; margin: 12px 0; }
.figure { border: 1px solid #c9ced6; border-radius: 6px; padding: 8px 12px; min-width: 150px; flex: 1 1 150px; }
.figure .v { font-size: 20px; font-weight: 600; }
.figure .k { color: #5a6472; font-size: 12px; }
table { border-collapse: collapse; margin: 6px 0 12px; width: 100%; font-size: 13px; }
th, td { border: 1px solid #d7dbe1; padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #eef2f7; }
td.n, th.n { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
tr.sel td { font-weight: 600; }
.total td { font-weight: 600; background: #f6f8fa; }
img { max-width: 100%; height: auto; border: 1px solid #d7dbe1; }
figure { margin: 10px 0 18px; }
figcaption { color: #5a6472; font-size: 12px; }
.panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(460px, 1fr)); gap: 14px; }
.error { color: #b3261e; } .warning { color: #8a5a00; }
.note { color: #5a6472; font-size: 12.5px; }
.src { color: #5a6472; font-size: 11.5px; }
@media print {
  body { margin: 0; max-width: none; font-size: 11pt; }
  h2, h3, .sub { break-after: avoid; page-break-after: avoid; }
  figure, .figures, .figure, tr { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
  .panels { display: block; }
  a { color: inherit; text-decoration: none; }
}
"""


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def _v(key: str, value: Any, text: str) -> str:
    """Text of a figure tagged with its JSON path and exact value."""
    raw = "" if value is None else repr(value) if isinstance(value, float) else str(value)
    return f'<span data-key="{_e(key)}" data-value="{_e(raw)}">{_e(text)}</span>'


def _num(fmt: Any, value: float | None, missing: str = "n/a") -> str:
    return missing if value is None else fmt(value)


def _figure(label: str, body: str) -> str:
    return f'<div class="figure"><div class="v">{body}</div><div class="k">{_e(label)}</div></div>'


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[bool] = (),
           row_class: Sequence[str] = ()) -> str:
    """An HTML table; cells are already HTML."""
    num = list(numeric) + [False] * (len(headers) - len(numeric))
    head = "".join(f'<th class="{"n" if n else ""}">{_e(h)}</th>' for h, n in zip(headers, num, strict=True))
    body = []
    classes = list(row_class)
    for i, row in enumerate(rows):
        cls = f' class="{classes[i]}"' if i < len(classes) and classes[i] else ""
        cells = "".join(f'<td class="{"n" if n else ""}">{c}</td>' for c, n in zip(row, num, strict=True))
        body.append(f"<tr{cls}>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _img(pic: Picture, alt: str) -> str:
    data = base64.b64encode(pic.png).decode("ascii")
    size = f' width="{pic.width}" height="{pic.height}"' if pic.width and pic.height else ""
    return f'<img src="data:image/png;base64,{data}" alt="{_e(alt)}"{size}>'


def _bisection(doc: dict[str, Any]) -> tuple[str, str]:
    b = doc["bisection"]
    lo, hi = b["lower_bytes_per_s"], b["upper_bytes_per_s"]
    if lo is None and hi is None:
        return "n/a", "needs at least two GPUs"
    if b["exact"]:
        main = _v("bisection.lower_bytes_per_s", lo, units.rate(lo))
        return main, "per direction, exact (the bounds meet)"
    main = (_v("bisection.lower_bytes_per_s", lo, _num(units.rate, lo)) + " \u2013 "
            + _v("bisection.upper_bytes_per_s", hi, _num(units.rate, hi)))
    return main, "per direction, certified lower and upper bounds"


def _largest_selected(doc: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
    rows = [(i, r) for i, r in enumerate(doc["collectives"]) if r["selected"]]
    return max(rows, key=lambda ir: ir[1]["message_bytes"]) if rows else None


def _key_figures(doc: dict[str, Any]) -> str:
    d, bom = doc["design"], doc.get("bom")
    out = [_figure("GPUs", _v("design.gpus", d["gpus"], f"{d['gpus']:,}")),
           _figure("network switches", _v("design.switches", d["switches"], f"{d['switches']:,}")),
           _figure("links", _v("design.links", d["links"], f"{d['links']:,}"))]
    main, sub = _bisection(doc)
    out.append(_figure(f"bisection bandwidth, {sub}", main))
    big = _largest_selected(doc)
    title = COLLECTIVE_TITLES.get(doc["collective"], doc["collective"])
    if big is None and doc.get("cannot_run"):
        out.append(_figure(title, "cannot run"))
    if big is not None:
        i, r = big
        out.append(_figure(f"{title} of {units.size(r['message_bytes'])}: time ({r['algorithm']})",
                           _v(f"collectives.{i}.time_s", r["time_s"], _num(units.duration, r["time_s"]))))
        out.append(_figure(f"{title} of {units.size(r['message_bytes'])}: bus bandwidth",
                           _v(f"collectives.{i}.busbw_bytes_per_s", r["busbw_bytes_per_s"],
                              _num(units.rate, r["busbw_bytes_per_s"]))))
    w = doc.get("workload")
    if w is not None:
        out.append(_figure(f"GPU idle fraction ({w['workload']})",
                           _v("workload.gpu_idle_fraction", w["gpu_idle_fraction"],
                              _num(units.percent, w["gpu_idle_fraction"]))))
        out.append(_figure("predicted MFU", _v("workload.mfu", w["mfu"], _num(units.percent, w["mfu"]))))
    if bom is not None:
        t = bom["totals"]
        out.append(_figure("indicative cost (catalog list prices)",
                           _v("bom.totals.price_usd", t["price_usd"], units.usd(t['price_usd']))))
        out.append(_figure("power (typical draw)",
                           _v("bom.totals.power_w", t["power_w"], f"{t['power_w'] / 1000:,.1f} kW")))
    f = doc.get("findings")
    if f is not None:
        out.append(_figure("design-rule findings",
                           _v("findings.errors", f["errors"], f"{f['errors']:,} errors") + ", "
                           + _v("findings.warnings", f["warnings"], f"{f['warnings']:,} warnings")))
    return f'<div class="figures">{"".join(out)}</div>'


def _collective_table(doc: dict[str, Any]) -> str:
    algos: list[str] = []
    for a in doc["algorithms"]:
        if a["algorithm"] not in algos:
            algos.append(a["algorithm"])
    by_size: dict[int, dict[str, tuple[int, dict[str, Any]]]] = {}
    for i, r in enumerate(doc["collectives"]):
        by_size.setdefault(r["message_bytes"], {})[r["algorithm"]] = (i, r)
    rows, classes = [], []
    for size in sorted(by_size):
        cells = [_e(units.size(size))]
        chosen = None
        for a in algos:
            hit = by_size[size].get(a)
            if hit is None:
                cells.append("")
                continue
            i, r = hit
            text = _v(f"collectives.{i}.time_s", r["time_s"], _num(units.duration, r["time_s"]))
            if r["selected"]:
                chosen = hit
                text = f"<b>{text}</b>"
            cells.append(text)
        if chosen is not None:
            i, r = chosen
            cells += [_e(f"{r['algorithm']} / {r['protocol']}"),
                      _v(f"collectives.{i}.algbw_bytes_per_s", r["algbw_bytes_per_s"],
                         _num(units.rate, r["algbw_bytes_per_s"])),
                      _v(f"collectives.{i}.busbw_bytes_per_s", r["busbw_bytes_per_s"],
                         _num(units.rate, r["busbw_bytes_per_s"]))]
        else:
            cells += ["", "", ""]
        rows.append(cells)
        classes.append("")
    headers = ["message", *[f"time: {a}" for a in algos], "picked", "algbw", "busbw"]
    numeric = [True] * (1 + len(algos)) + [False, True, True]
    return _table(headers, rows, numeric, classes)


def _bottlenecks(doc: dict[str, Any]) -> str:
    rows = []
    for i, x in enumerate(doc["bottlenecks"]):
        rows.append([_e(x["link"]), _e(x["direction"]),
                     _v(f"bottlenecks.{i}.utilization", x["utilization"], _num(units.percent, x["utilization"])),
                     _e(_num(units.rate, x["capacity_bytes_per_s"])), _e(f"{x['flows']:,}"),
                     _e(_num(units.rate, x["fair_rate_bytes_per_s"], "\u2014")),
                     _e(f"{x['algorithm']}, {units.size(x['message_bytes'])}")])
    if not rows:
        return '<p class="note">No link is loaded by this collective.</p>'
    return _table(["link", "direction", "utilisation", "capacity", "flows", "fair share per flow", "traffic"],
                  rows, [False, False, True, True, True, True, False])


def _workload(doc: dict[str, Any]) -> str:
    w = doc.get("workload")
    if w is None:
        return ""
    p = w["parallelism"]
    layout = ", ".join(f"{k.upper() if len(k) == 2 else k.replace('_', ' ')} {v}" for k, v in p.items()
                       if isinstance(v, int) and not isinstance(v, bool))
    figs = [
        ("step time", "workload.step_time_s", w["step_time_s"], units.duration),
        ("compute", "workload.compute_s", w["compute_s"], units.duration),
        ("pipeline bubble", "workload.bubble_s", w["bubble_s"], units.duration),
        ("exposed communication", "workload.exposed_comm_s", w["exposed_comm_s"], units.duration),
        ("GPU idle fraction", "workload.gpu_idle_fraction", w["gpu_idle_fraction"], units.percent),
        ("idle for communication", "workload.comm_idle_fraction", w["comm_idle_fraction"], units.percent),
        ("MFU", "workload.mfu", w["mfu"], units.percent),
        ("tokens per second", "workload.tokens_per_s", w["tokens_per_s"], lambda x: f"{x:,.0f}"),
        ("time to train", "workload.time_to_train_s", w["time_to_train_s"], lambda x: f"{x / 86400:,.1f} days"),
        ("idle cost per day", "workload.idle_cost_per_day", w["idle_cost_per_day"], units.usd),
    ]
    rows = [[_e(label), _v(key, value, _num(fmt, value))] for label, key, value, fmt in figs]
    comm = [[_e(c["name"]), _e(c["collective"]), _e(c["algorithm"]), _e(f"{c['groups']:,} x {c['group_size']:,}"),
             _e(_num(units.size, c["message_bytes"])), _e(_num(units.duration, c["time_per_call_s"])),
             _e(f"{c['calls_per_step']:,}"), _e(_num(units.duration, c["exposed_s"])),
             _e(c["bottleneck_link"] or "\u2014")] for c in w["communication"]]
    notes = "".join(f'<p class="note">{_e(n)}</p>' for n in w["notes"])
    return (f"<h2>Training step: {_e(w['workload'])}</h2>"
            f'<p class="sub">{_e(w["gpu_model"])} \u00d7 {w["gpus"]:,} GPUs; {_e(layout)}; '
            f"{w['tokens_per_step']:,} tokens per step. Units: s, bytes, USD.</p>"
            + _table(["figure", "value"], rows, [False, True])
            + "<h3>Communication per step</h3>"
            + _table(["communicator", "collective", "algorithm", "groups x size", "message", "time per call",
                      "calls", "exposed", "bottleneck link"], comm,
                     [False, False, False, True, True, True, True, True, False])
            + notes)


def _bom(doc: dict[str, Any]) -> str:
    bom = doc.get("bom")
    if bom is None:
        return ""
    rows = []
    for line in bom["lines"]:
        what = (f"{line.get('between', '')} {line.get('length_bucket', '')}".strip() if line["category"] == "cable"
                else line.get("tier", ""))
        rows.append([_e(line["category"]), _e(line["name"]), _e(what), _e(f"{line['quantity']:,}"),
                     _e(f"{line['unit_power_w']:,.1f}"), _e(units.usd(line['unit_price_usd'])),
                     _e(f"{line['power_w'] / 1000:,.2f}"), _e(units.usd(line['price_usd']))])
    t = bom["totals"]
    rows.append(["<b>total</b>", "", "", "", "", "", _v("bom.totals.power_w", t["power_w"],
                                                       f"{t['power_w'] / 1000:,.2f}"),
                 _v("bom.totals.price_usd", t["price_usd"], units.usd(t['price_usd']))])
    classes = [""] * (len(rows) - 1) + ["total"]
    board = ", ".join(f"{m} {n:,}" for m, n in bom["board_links"].items())
    extra = f'<p class="note">Board connections (not cables): {_e(board)}.</p>' if board else ""
    extra += "".join(f'<p class="note">Note: {_e(n)}</p>' for n in bom["notes"])
    return ("<h2>Bill of materials</h2>"
            '<p class="sub">Power: typical draw from the catalog (W). Prices: indicative list prices in USD '
            "(the assumptions below give each figure's source).</p>"
            + _table(["category", "item", "tier / link, length", "qty", "unit W", "unit USD", "total kW",
                      "total USD"], rows, [False, False, False, True, True, True, True, True], classes)
            + extra)


def _findings(doc: dict[str, Any]) -> str:
    f = doc.get("findings")
    if f is None:
        return ""
    if not f["findings"]:
        return "<h2>Design rules</h2><p>No findings: the design meets every design rule.</p>"
    limit = 200
    rows = [[f'<span class="{_e(x["severity"])}">{_e(x["severity"])}</span>', _e(x["code"]), _e(x["message"])]
            for x in f["findings"][:limit]]
    more = len(f["findings"]) - limit
    tail = f'<p class="note">{more:,} more in the JSON report.</p>' if more > 0 else ""
    return (f"<h2>Design rules</h2><p>{f['errors']:,} errors, {f['warnings']:,} warnings.</p>"
            + _table(["severity", "rule", "finding"], rows) + tail)


def _fmt_value(value: float) -> str:
    return f"{value:.6g}"


def _assumptions(doc: dict[str, Any]) -> str:
    a = doc.get("assumptions")
    if a is None:
        return ""
    rows, previous = [], ""
    for c in a["constants"]:
        # the entries of a table constant share one source: written once
        same = c["source"] == previous
        source = "\u2033 (as above)" if same else c["source"].replace("``", "")
        rows.append([_e(c["name"]), _e(_fmt_value(c["value"])), _e(c["unit"]),
                     f'<span class="src">{_e(source)}</span>'])
        previous = c["source"]
    cat = [[_e(c["item"]), _e(c["field"]), _e(_fmt_value(c["value"])), _e(c["unit"]),
            f'<span class="src">{_e(c["source"])}</span>'] for c in a["catalog"]]
    return ("<h2>Assumptions</h2>"
            "<h3>Model constants</h3>"
            + _table(["constant", "value", "unit", "source"], rows, [False, True, False, False])
            + "<h3>Catalog figures of the parts used</h3>"
            + _table(["part", "figure", "value", "unit", "source"], cat, [False, False, True, False, False]))


def html_report(doc: dict[str, Any], *, canvas: Picture | None = None, panels: Sequence[Picture] = (),
                notes: Sequence[str] = ()) -> str:
    """The HTML page of a JSON report ``doc`` with its pictures (``notes``: about missing pictures)."""
    title = COLLECTIVE_TITLES.get(doc["collective"], doc["collective"])
    exported = doc.get("exported", {})
    d = doc["design"]
    head = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{_e(doc['name'] or 'Design')} \u2014 Topology Designer report</title>"
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<style>{_CSS}</style></head><body>")
    kinds = units.kind_counts({"gpu": d["gpus"], "nic": d["nics"], "nvswitch": d["nvswitches"],
                               "switch": d["switches"]})
    parts = [head, f"<h1>{_e(doc['name'] or 'Untitled design')}</h1>",
             f'<p class="sub">{_e(kinds)}'
             f", {d['links']:,} links, {d['servers']:,} servers. "
             f"{_e(exported.get('file') or '')} \u00b7 {_e(exported.get('tool', 'topo-designer'))}. "
             "Bandwidths are per direction.</p>",
             "<h2>Key figures</h2>", _key_figures(doc)]
    if canvas is not None:
        parts.append(f"<figure>{_img(canvas, 'the design on the canvas')}"
                     "<figcaption>The design as drawn in Topology Designer, with its legend.</figcaption></figure>")
    parts += [f'<p class="note">{_e(n)}</p>' for n in notes]
    b = doc["bisection"]
    main, sub = _bisection(doc)
    parts.append("<h2>Bisection bandwidth</h2>"
                 f"<p><b>{main}</b> {_e(sub)}, over {b['endpoints']:,} GPUs, at line rate.</p>"
                 f'<p class="note">Lower bound: {_e(b["lower_method"])}. Upper bound: {_e(b["upper_method"])}; '
                 f"its cut has {len(b['cut_links']):,} links.</p>")
    cannot = "".join(f'<p class="note">{_e(r["algorithm"])}: cannot run: {_e(r["reason"])}</p>'
                     for r in doc.get("cannot_run", ()))
    table = (_collective_table(doc) if doc["collectives"] or not cannot
             else "<p><b>Nothing selected</b>: no algorithm can run.</p>")
    parts.append(f"<h2>{_e(title)} over {doc['ranks']:,} GPUs</h2>"
                 '<p class="sub">Time per algorithm (the one an NCCL-style tuner picks in bold), with the algorithm '
                 "and protocol picked, its algbw and busbw (nccl-tests conventions).</p>" + table + cannot)
    parts.append(f"<h2>Bottlenecks</h2><p class=\"sub\">Traffic: {_e(doc['links_traffic'])}.</p>"
                 + _bottlenecks(doc))
    parts.append(_workload(doc))
    parts.append(_bom(doc))
    if panels:
        figs = "".join(f"<figure>{_img(p, p.title)}<figcaption>{_e(p.title)}</figcaption></figure>" for p in panels)
        parts.append(f'<h2>Analysis panels</h2><div class="panels">{figs}</div>')
    parts.append(_findings(doc))
    if doc["notes"]:
        parts.append("<h2>Notes</h2>" + "".join(f"<p>{_e(n)}</p>" for n in doc["notes"]))
    parts.append(_assumptions(doc))
    parts.append("</body></html>\n")
    return "\n".join(p for p in parts if p)


__all__ = ["html_report"]
