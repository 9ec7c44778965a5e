"""Sections of the HTML report that explain themselves to a reader who does not run the designer:
the bill of materials (what has no price or power figure says so), the design-rule findings
(ordered by severity and kind, each kind counted and shown), the sentence on algorithms shown but
not selected (SHARP), and the assumptions in plain words with their sources.

Built from the JSON report like :mod:`designer.present.html_report`, which assembles the page.
"""

from __future__ import annotations

import re
from typing import Any

from designer.model import units
from designer.present.assumptions import CONSTANT_WORDS
from designer.present.html_parts import esc, figure, table, tagged
from designer.present.report_text import NOT_SELECTED_WHY

#: What a cost or power figure reads when no part of the design has one.
NOT_PRICED = "not priced"
NO_POWER = "no power data"
#: Rule codes about the bill of materials' bookkeeping (what is not priced or not chosen yet): listed
#: after the findings about the fabric itself within their severity.
BOOKKEEPING_RULES = ("unpriced", "no-cable", "no-transceiver", "zero-length")
#: Findings listed per kind (the JSON report has them all).
FINDINGS_PER_KIND = 25
_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
#: What the CollNet/SHARP path needs on a real cluster (NVIDIA's nccl-rdma-sharp-plugins README and
#: the UFM / SHARP Aggregation Manager documentation).
SHARP_NEEDS = ("NCCL's SHARP plugin (nccl-rdma-sharp-plugins, shipped in HPC-X) with NCCL_COLLNET_ENABLE=1, "
               "and the SHARP Aggregation Manager running beside the subnet manager (UFM or OpenSM) on "
               "SHARP-capable switches")


def _unpriced(line: dict[str, Any], field: str) -> bool:
    """A line whose items have no ``field`` figure of their own (counted at 0: ``unpriced`` in the JSON)."""
    return bool(line.get("unpriced")) and not line[field]


def missing_quantity(bom: dict[str, Any], field: str) -> int:
    """How many items of a JSON bill of materials have no ``field`` (``unit_price_usd``, ``unit_power_w``)."""
    return sum(line.get("unpriced", 0) for line in bom["lines"] if _unpriced(line, field))


def _total_text(bom: dict[str, Any], field: str, total: float, text: str, missing_text: str) -> str:
    missing = missing_quantity(bom, field)
    if not missing:
        return text
    if not total:
        return missing_text
    return f"{text} + {units.count(missing, 'item')} {missing_text}"


def cost_text(bom: dict[str, Any]) -> str:
    """The total price, ``not priced`` when nothing has a price, or ``$X + N items not priced``."""
    t = bom["totals"]["price_usd"]
    return _total_text(bom, "unit_price_usd", t, units.usd(t), NOT_PRICED)


def power_text(bom: dict[str, Any]) -> str:
    """The total power, ``no power data`` when nothing has a power figure, or ``X kW + N items ...``."""
    t = bom["totals"]["power_w"]
    return _total_text(bom, "unit_power_w", t, f"{t / 1000:,.1f} kW", NO_POWER)


def bom_figures(bom: dict[str, Any]) -> list[str]:
    """The key figures of cost and power."""
    t = bom["totals"]
    return [figure("indicative cost (catalog list prices)", tagged("bom.totals.price_usd", t["price_usd"],
                                                                   cost_text(bom))),
            figure("power (typical draw)", tagged("bom.totals.power_w", t["power_w"], power_text(bom)))]


def bom_section(bom: dict[str, Any] | None) -> str:
    """The bill of materials, one row per model (cables also per link kind and length)."""
    if bom is None:
        return ""
    rows = []
    for line in bom["lines"]:
        what = (f"{line.get('between', '')} {line.get('length_bucket', '')}".strip() if line["category"] == "cable"
                else line.get("tier", ""))
        no_price, no_power = _unpriced(line, "unit_price_usd"), _unpriced(line, "unit_power_w")
        rows.append([esc(line["category"]), esc(line["name"]), esc(what), esc(f"{line['quantity']:,}"),
                     esc("\u2014" if no_power else f"{line['unit_power_w']:,.1f}"),
                     esc(NOT_PRICED if no_price else units.usd(line["unit_price_usd"])),
                     esc("\u2014" if no_power else f"{line['power_w'] / 1000:,.2f}"),
                     esc(NOT_PRICED if no_price else units.usd(line["price_usd"]))])
    t = bom["totals"]
    rows.append(["<b>total</b>", "", "", "", "", "", tagged("bom.totals.power_w", t["power_w"], power_text(bom)),
                 tagged("bom.totals.price_usd", t["price_usd"], cost_text(bom))])
    classes = [""] * (len(rows) - 1) + ["total"]
    board = ", ".join(f"{m} {n:,}" for m, n in bom["board_links"].items())
    extra = f'<p class="note">Board connections (not cables): {esc(board)}.</p>' if board else ""
    extra += "".join(f'<p class="note">Note: {esc(n)}</p>' for n in bom["notes"])
    return ("<h2>Bill of materials</h2>"
            '<p class="sub">One row per model (cables per link kind and length). Power: typical draw from the '
            "catalog (W). Prices: indicative list prices in USD (the assumptions below give each figure's source). "
            f"A part with no catalog model and no figure of its own reads \u201c{NOT_PRICED}\u201d and \u2014.</p>"
            + table(["category", "item", "tier / link, length", "qty", "unit W", "unit USD", "total kW",
                     "total USD"], rows, [False, False, False, True, True, True, True, True], classes)
            + extra)


def _kind_order(kind: tuple[str, str]) -> tuple[int, int, str]:
    severity, code = kind
    return (_SEVERITY_ORDER.get(severity, 3), code in BOOKKEEPING_RULES, code)


def findings_section(f: dict[str, Any] | None) -> str:
    """The findings: a count per kind, then up to :data:`FINDINGS_PER_KIND` of each kind, errors first."""
    if f is None:
        return ""
    if not f["findings"]:
        return "<h2>Design rules</h2><p>No findings: the design meets every design rule.</p>"
    by_kind: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for x in f["findings"]:
        by_kind.setdefault((x["severity"], x["code"]), []).append(x)
    kinds = sorted(by_kind, key=_kind_order)
    counts = [[f'<span class="{esc(s)}">{esc(s)}</span>', f'<span class="code">{esc(code)}</span>',
               esc(f"{len(by_kind[(s, code)]):,}"),
               esc(by_kind[(s, code)][0]["message"])] for s, code in kinds]
    rows, shown = [], 0
    for kind in kinds:
        for x in by_kind[kind][:FINDINGS_PER_KIND]:
            rows.append([f'<span class="{esc(x["severity"])}">{esc(x["severity"])}</span>',
                         f'<span class="code">{esc(x["code"])}</span>',
                         esc(x["message"])])
            shown += 1
    more = len(f["findings"]) - shown
    tail = (f'<p class="note">{more:,} more (at most {FINDINGS_PER_KIND} of each kind are listed here); the JSON '
            "report has every finding.</p>" if more > 0 else "")
    return (f"<h2>Design rules</h2><p>{units.count(f['errors'], 'error')}, "
            f"{units.count(f['warnings'], 'warning')}, of {units.count(len(kinds), 'kind')}. Errors first; "
            "within a severity, findings about the fabric before those about the bill of materials "
            "(parts not priced or not chosen yet). docs/design-rules.md explains each rule.</p>"
            + table(["severity", "rule", "count", "for example"], counts, [False, False, True, False])
            + "<h3>Findings by kind</h3>" + table(["severity", "rule", "finding"], rows) + tail)


def not_selected_sentence(doc: dict[str, Any]) -> str:
    """Why an algorithm shown in the table is never the one picked (SHARP), and what enabling it needs."""
    out = []
    by_size: dict[int, dict[str, Any]] = {}
    for r in doc["collectives"]:
        if r["selected"]:
            by_size[r["message_bytes"]] = r
    for algo, why in NOT_SELECTED_WHY.items():
        rows = [r for r in doc["collectives"] if r["algorithm"] == algo and r["time_s"] is not None]
        if not rows or any(r["selected"] for r in rows):
            continue
        faster = [r for r in rows if r["message_bytes"] in by_size
                  and by_size[r["message_bytes"]]["time_s"] is not None
                  and r["time_s"] < by_size[r["message_bytes"]]["time_s"]]
        speed = ("faster than the picked algorithm at every size" if len(faster) == len(rows) else
                 f"faster than the picked algorithm at {units.count(len(faster), 'size')} of {len(rows)}"
                 if faster else "never faster than the picked algorithm")
        needs = f" Enabling it on a cluster needs {SHARP_NEEDS}." if algo == "sharp" else ""
        out.append(f'<p class="note"><b>{esc(algo)}</b> (InfiniBand in-network reduction) is shown but not '
                   f"selected: {esc(why)}, which NCCL does not use unless told to. Here it is {esc(speed)}."
                   f"{esc(needs)} <code>topo-designer analyze DESIGN --algorithm {esc(algo)}</code> "
                   "selects it.</p>")
    return "".join(out)


def _value_text(value: float, unit: str) -> str:
    """A constant's value in its unit, as a person reads it: ``96% of line rate``, ``8.4 us per collective call``."""
    if unit.startswith("fraction"):
        return f"{units.figures(value * 100)}%{unit[len('fraction'):]}"
    if unit == "s" or unit.startswith("s "):
        return f"{units.duration(value)}{unit[1:]}"
    if unit.startswith("bytes/s"):
        return f"{units.rate(value)}{unit[len('bytes/s'):]}"
    if unit == "bytes" or unit.startswith("bytes "):
        return f"{units.size(value)}{unit[len('bytes'):]}"
    return f"{units.figures(value)} {unit}".strip()


def _plain_source(source: str) -> str:
    """A constant's source as a reader sees it: code quotes dropped, our own constants named in words."""
    text = source.replace("``", "")
    return re.sub(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b",
                  lambda m: f"\u201c{CONSTANT_WORDS[m.group(0)].format('N')}\u201d" if m.group(0) in CONSTANT_WORDS
                  else m.group(0), text)


def assumptions_section(a: dict[str, Any] | None) -> str:
    """Every assumption in plain words with its value and source; the constants' names in a details block."""
    if a is None:
        return ""
    rows, names, previous = [], [], ""
    for c in a["constants"]:
        same = c["source"] == previous  # the entries of a table constant share one source: written once
        source = "\u2033 (as above)" if same else _plain_source(c["source"])
        meaning = c.get("meaning") or c["name"]
        rows.append([esc(meaning), esc(_value_text(c["value"], c["unit"])), f'<span class="src">{esc(source)}</span>'])
        names.append([esc(meaning), f"<code>{esc(c['name'])}</code>", esc(f"{c['value']:.6g}"), esc(c["unit"]),
                      esc(c.get("defined_in", ""))])
        previous = c["source"]
    cat = [[esc(c["item"]), esc(c["field"]), esc(_value_text(c["value"], c["unit"])),
            f'<span class="src">{esc(c["source"])}</span>'] for c in a["catalog"]]
    return ("<h2>Assumptions</h2>"
            '<p class="sub">What the figures above rest on: each modelling figure with its value and where it '
            "comes from, then the catalog figures of the parts this design uses.</p>"
            "<h3>How the model computes</h3>"
            + table(["assumption", "value", "source"], rows, [False, True, False])
            + "<details><summary>The same figures by constant name (for checking against the code)</summary>"
            + table(["assumption", "constant", "value", "unit", "defined in"], names,
                    [False, False, True, False, False])
            + "</details>"
            + "<h3>Catalog figures of the parts used</h3>"
            + table(["part", "figure", "value", "source"], cat, [False, False, True, False]))


__all__ = ["BOOKKEEPING_RULES", "FINDINGS_PER_KIND", "NOT_PRICED", "NO_POWER", "SHARP_NEEDS", "assumptions_section",
           "bom_figures", "bom_section", "cost_text", "findings_section", "missing_quantity", "not_selected_sentence",
           "power_text"]
