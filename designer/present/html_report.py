"""The HTML report: one self-contained file a manager can read, print, or mail (docs/export.md).

Built from the JSON report (:func:`designer.present.export.export_document`), so the page shows
the same figures: every key figure carries its JSON path and exact value in ``data-key`` /
``data-value`` attributes next to the text read through :mod:`designer.model.units`. Pictures
are PNG data URIs; there is no script, no font or style sheet to fetch, nothing that needs a
network. A print style sheet keeps tables and figures whole on a page.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from designer.analysis.collectives.names import COLLECTIVE_TITLES
from designer.model import units
from designer.present.html_parts import CSS, esc, figure, img, or_missing, table, tagged
from designer.present.html_sections import (
    assumptions_section,
    bom_figures,
    bom_section,
    findings_section,
    not_selected_sentence,
)
from designer.present.step_text import left_out_text, parallelism_text

if TYPE_CHECKING:
    from designer.present.export import Picture



def _bisection(doc: dict[str, Any]) -> tuple[str, str]:
    b = doc["bisection"]
    lo, hi = b["lower_bytes_per_s"], b["upper_bytes_per_s"]
    if lo is None and hi is None:
        return "n/a", "needs at least two GPUs"
    if b["exact"]:
        main = tagged("bisection.lower_bytes_per_s", lo, units.rate(lo))
        return main, "per direction, exact (the bounds meet)"
    main = (tagged("bisection.lower_bytes_per_s", lo, or_missing(units.rate, lo)) + " \u2013 "
            + tagged("bisection.upper_bytes_per_s", hi, or_missing(units.rate, hi)))
    return main, "per direction, certified lower and upper bounds"


def _largest_selected(doc: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
    rows = [(i, r) for i, r in enumerate(doc["collectives"]) if r["selected"]]
    return max(rows, key=lambda ir: ir[1]["message_bytes"]) if rows else None


def _key_figures(doc: dict[str, Any]) -> str:
    d, bom = doc["design"], doc.get("bom")
    out = [figure("GPUs", tagged("design.gpus", d["gpus"], f"{d['gpus']:,}")),
           figure("network switches", tagged("design.switches", d["switches"], f"{d['switches']:,}")),
           figure("links", tagged("design.links", d["links"], f"{d['links']:,}"))]
    main, sub = _bisection(doc)
    out.append(figure(f"bisection bandwidth, {sub}", main))
    big = _largest_selected(doc)
    title = COLLECTIVE_TITLES.get(doc["collective"], doc["collective"])
    if big is None and doc.get("cannot_run"):
        out.append(figure(title, "cannot run"))
    if big is not None:
        i, r = big
        out.append(figure(f"{title} of {units.size(r['message_bytes'])}: time ({r['algorithm']})",
                           tagged(f"collectives.{i}.time_s", r["time_s"], or_missing(units.duration, r["time_s"]))))
        out.append(figure(f"{title} of {units.size(r['message_bytes'])}: bus bandwidth",
                           tagged(f"collectives.{i}.busbw_bytes_per_s", r["busbw_bytes_per_s"],
                              or_missing(units.rate, r["busbw_bytes_per_s"]))))
    w = doc.get("workload")
    if w is not None:
        out.append(figure(f"GPU idle fraction ({w['workload']})",
                           tagged("workload.gpu_idle_fraction", w["gpu_idle_fraction"],
                              or_missing(units.percent, w["gpu_idle_fraction"]))))
        out.append(figure("predicted MFU", tagged("workload.mfu", w["mfu"], or_missing(units.percent, w["mfu"]))))
    if bom is not None:
        out += bom_figures(bom)
    f = doc.get("findings")
    if f is not None:
        out.append(figure("design-rule findings",
                           tagged("findings.errors", f["errors"], f"{f['errors']:,} errors") + ", "
                           + tagged("findings.warnings", f["warnings"], f"{f['warnings']:,} warnings")))
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
        cells = [esc(units.size(size))]
        chosen = None
        for a in algos:
            hit = by_size[size].get(a)
            if hit is None:
                cells.append("")
                continue
            i, r = hit
            text = tagged(f"collectives.{i}.time_s", r["time_s"], or_missing(units.duration, r["time_s"]))
            if r["selected"]:
                chosen = hit
                text = f"<b>{text}</b>"
            cells.append(text)
        if chosen is not None:
            i, r = chosen
            cells += [esc(f"{r['algorithm']} / {r['protocol']}"),
                      tagged(f"collectives.{i}.algbw_bytes_per_s", r["algbw_bytes_per_s"],
                         or_missing(units.rate, r["algbw_bytes_per_s"])),
                      tagged(f"collectives.{i}.busbw_bytes_per_s", r["busbw_bytes_per_s"],
                         or_missing(units.rate, r["busbw_bytes_per_s"]))]
        else:
            cells += ["", "", ""]
        rows.append(cells)
        classes.append("")
    headers = ["message", *[f"time: {a}" for a in algos], "picked", "algbw", "busbw"]
    numeric = [True] * (1 + len(algos)) + [False, True, True]
    return table(headers, rows, numeric, classes)


def _bottlenecks(doc: dict[str, Any]) -> str:
    rows = []
    for i, x in enumerate(doc["bottlenecks"]):
        rows.append([esc(x["link"]), esc(x["direction"]),
                     tagged(f"bottlenecks.{i}.utilization", x["utilization"],
                            or_missing(units.percent, x["utilization"])),
                     esc(or_missing(units.rate, x["capacity_bytes_per_s"])), esc(f"{x['flows']:,}"),
                     esc(or_missing(units.rate, x["fair_rate_bytes_per_s"], "\u2014")),
                     esc(f"{x['algorithm']}, {units.size(x['message_bytes'])}")])
    if not rows:
        return '<p class="note">No link is loaded by this collective.</p>'
    return table(["link", "direction", "utilisation", "capacity", "flows", "fair share per flow", "traffic"],
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
    rows = [[esc(label), tagged(key, value, or_missing(fmt, value))] for label, key, value, fmt in figs]
    comm = [[esc(c["name"]), esc(c["collective"]), esc(c["algorithm"]), esc(f"{c['groups']:,} x {c['group_size']:,}"),
             esc(or_missing(units.size, c["message_bytes"])), esc(or_missing(units.duration, c["time_per_call_s"])),
             esc(f"{c['calls_per_step']:,}"), esc(or_missing(units.duration, c["exposed_s"])),
             esc(c["bottleneck_link"] or "\u2014")] for c in w["communication"]]
    notes = "".join(f'<p class="note">{esc(n)}</p>' for n in w["notes"])
    return (f"<h2>Training step: {esc(w['workload'])}</h2>"
            f'<p class="sub">{esc(w["gpu_model"])} \u00d7 {w["gpus"]:,} GPUs; {esc(layout)}; '
            f"{w['tokens_per_step']:,} tokens per step. Units: s, bytes, USD.</p>"
            + _layout_sentence(w)
            + table(["figure", "value"], rows, [False, True])
            + "<h3>Communication per step</h3>"
            + table(["communicator", "collective", "algorithm", "groups x size", "message", "time per call",
                      "calls", "adds to the step", "bottleneck link"], comm,
                     [False, False, False, True, True, True, True, True, False])
            + notes)


def _layout_sentence(w: dict[str, Any]) -> str:
    """How the job is split over the GPUs, and which GPUs it leaves out and why (as the step panel says)."""
    p = w["parallelism"]
    rep = SimpleNamespace(parallelism=p, gpus=w["gpus"], idle_gpus=w.get("idle_gpus", 0))
    inner = p["tp"] * p.get("cp", 1) * p["pp"]
    ep = p.get("ep", 1)
    most = (w["gpus"] + rep.idle_gpus) // inner // ep * ep  # the data-parallel size "auto" would take
    left = left_out_text(rep, dp_fixed=p["dp"] < most)
    return f'<p>Parallelism: {esc(parallelism_text(rep))}.' + (f" {esc(left)}." if left else "") + "</p>"


def _serving(doc: dict[str, Any]) -> str:
    """The serving section: TTFT, TPOT, throughput, the bound, and where each phase's step goes."""
    w = doc.get("serving")
    if w is None:
        return ""

    def tokens(x: float) -> str:
        return f"{x:,.0f}"

    share = w["network_share"]
    figs = [
        ("time to first token", "serving.ttft_s", w["ttft_s"], units.duration),
        ("time per output token", "serving.tpot_s", w["tpot_s"], units.duration),
        ("output tokens/s per GPU", "serving.output_tokens_per_s_per_gpu", w["output_tokens_per_s_per_gpu"], tokens),
        ("output tokens/s per server", "serving.output_tokens_per_s_per_server", w["output_tokens_per_s_per_server"],
         tokens),
        ("input tokens/s per GPU", "serving.input_tokens_per_s_per_gpu", w["input_tokens_per_s_per_gpu"], tokens),
        ("network's share of TTFT", "serving.network_share.ttft", share["ttft"], units.percent),
        ("network's share of TPOT", "serving.network_share.tpot", share["tpot"], units.percent),
        ("KV cache per token", "serving.kv_bytes_per_token", w["kv_bytes_per_token"], lambda x: f"{x:,} bytes"),
    ]
    rows = [[esc(label), tagged(key, value, or_missing(fmt, value))] for label, key, value, fmt in figs]
    rows.append([esc("decode is bound by"), tagged("serving.bound", w["bound"], w["bound"])])
    if w.get("max_batch_for_target") is not None:
        rows.append([esc(f"largest decode batch within {units.duration(w['target_tpot_s'])}"),
                     esc(f"{w['max_batch_for_target']:,} sequences")])
    phases = []
    for name in ("prefill", "decode"):
        p = w[name]
        par = ", ".join(f"{k.upper()} {v}" for k, v in p["parallelism"].items() if v > 1 or k == "tp")
        phases.append([esc(name), esc(f"{p['instances']:,} x {p['gpus_per_instance']:,} GPUs ({par})"),
                       esc(f"{p['batch_sequences']:,}"), esc(or_missing(units.duration, p["step_s"])),
                       esc(or_missing(units.duration, p["compute_s"])), esc(or_missing(units.duration, p["memory_s"])),
                       esc(or_missing(units.duration, p["exposed_comm_s"])), esc(p["bound"])])
    comm = [[esc(ph), esc(c["name"]), esc("network" if c["network"] else "NVLink"), esc(f"{c['calls']:,}"),
             esc(or_missing(units.size, c["message_bytes"])), esc(or_missing(units.duration, c["per_call_s"])),
             esc(or_missing(units.duration, c["exposed_s"])), esc(c["bottleneck_link"] or "\u2014")]
            for ph in ("prefill", "decode") for c in w[ph]["communication"]]
    kv = w.get("kv_transfer")
    if kv is not None:
        comm.append([esc("prefill \u2192 decode"), esc(kv["name"]), esc("network" if kv["network"] else "NVLink"),
                     esc("1"), esc(or_missing(units.size, kv["message_bytes"])),
                     esc(or_missing(units.duration, kv["per_call_s"])),
                     esc(or_missing(units.duration, kv["exposed_s"])),
                     esc(kv["bottleneck_link"] or "\u2014")])
    notes = "".join(f'<p class="note">{esc(n)}</p>' for n in w["notes"])
    return (f"<h2>Serving: {esc(w['workload'])}</h2>"
            f'<p class="sub">{esc(w["mode"])} prefill and decode; {esc(w["gpu_model"])} \u00d7 {w["gpus"]:,} GPUs. '
            "A step is one forward pass of an instance over its batch; step = GPU time (the larger of compute and "
            "memory) + exposed communication (docs/serving.md). Units: s, bytes, tokens/s.</p>"
            + table(["figure", "value"], rows, [False, True])
            + "<h3>Where a step's time goes</h3>"
            + table(["phase", "instances", "sequences per step", "step", "compute", "memory", "exposed communication",
                     "bound"], phases, [False, False, True, True, True, True, True, False])
            + "<h3>Communication per step</h3>"
            + table(["phase", "communication", "over", "calls", "message", "time per call", "exposed",
                     "bottleneck link"], comm, [False, False, False, True, True, True, True, False])
            + notes)


def html_report(doc: dict[str, Any], *, canvas: Picture | None = None, panels: Sequence[Picture] = (),
                notes: Sequence[str] = (), measured: dict[str, Any] | None = None) -> str:
    """The HTML page of a JSON report ``doc`` with its pictures (``notes``: about missing pictures) and,
    when measurements are loaded, their comparison (``measured``: the JSON of ``topo-designer compare``)."""
    title = COLLECTIVE_TITLES.get(doc["collective"], doc["collective"])
    exported = doc.get("exported", {})
    d = doc["design"]
    head = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{esc(doc['name'] or 'Design')} \u2014 Topology Designer report</title>"
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<style>{CSS}</style></head><body>")
    kinds = units.kind_counts({"gpu": d["gpus"], "nic": d["nics"], "nvswitch": d["nvswitches"],
                               "switch": d["switches"]})
    parts = [head, f"<h1>{esc(doc['name'] or 'Untitled design')}</h1>",
             f'<p class="sub">{esc(kinds)}'
             f", {d['links']:,} links, {d['servers']:,} servers. "
             f"{esc(PurePath(exported.get('file') or '').name)} \u00b7 {esc(exported.get('tool', 'topo-designer'))}. "
             "Bandwidths are per direction.</p>",
             "<h2>Key figures</h2>", _key_figures(doc)]
    if canvas is not None:
        parts.append(f"<figure>{img(canvas, 'the design on the canvas')}"
                     "<figcaption>The design as drawn in Topology Designer, with its legend.</figcaption></figure>")
    parts += [f'<p class="note">{esc(n)}</p>' for n in notes]
    b = doc["bisection"]
    main, sub = _bisection(doc)
    parts.append("<h2>Bisection bandwidth</h2>"
                 f"<p><b>{main}</b> {esc(sub)}, over {b['endpoints']:,} GPUs, at line rate.</p>"
                 f'<p class="note">Lower bound: {esc(b["lower_method"])}. Upper bound: {esc(b["upper_method"])}; '
                 f"its cut has {len(b['cut_links']):,} links.</p>")
    cannot = "".join(f'<p class="note">{esc(r["algorithm"])}: cannot run: {esc(r["reason"])}</p>'
                     for r in doc.get("cannot_run", ()))
    coll_table = (_collective_table(doc) if doc["collectives"] or not cannot
             else "<p><b>Nothing selected</b>: no algorithm can run.</p>")
    parts.append(f"<h2>{esc(title)} over {doc['ranks']:,} GPUs</h2>"
                 '<p class="sub">Time per algorithm (the one an NCCL-style tuner picks in bold), with the algorithm '
                 "and protocol picked, its algbw and busbw (nccl-tests conventions).</p>" + coll_table
                 + not_selected_sentence(doc) + cannot)
    parts.append(f"<h2>Bottlenecks</h2><p class=\"sub\">Traffic: {esc(doc['links_traffic'])}.</p>"
                 + _bottlenecks(doc))
    parts.append(_workload(doc))
    parts.append(_serving(doc))
    parts.append(bom_section(doc.get("bom")))
    if panels:
        figs = "".join(f"<figure>{img(p, p.title)}<figcaption>{esc(p.title)}</figcaption></figure>" for p in panels)
        parts.append(f'<h2>Analysis panels</h2><div class="panels">{figs}</div>')
    if measured is not None:
        from designer.present.html_measured import measured_section

        parts.append(measured_section(measured))
    parts.append(findings_section(doc.get("findings")))
    if doc["notes"]:
        parts.append("<h2>Notes</h2>" + "".join(f"<p>{esc(n)}</p>" for n in doc["notes"]))
    parts.append(assumptions_section(doc.get("assumptions")))
    parts.append("</body></html>\n")
    return "\n".join(p for p in parts if p)


__all__ = ["html_report"]
