"""Human-readable descriptions of what an item stands for (tooltips, status bar)."""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QGraphicsItem

from designer.gui.canvas.items import BOX_TYPE, BUNDLE_TYPE, DEVICE_TYPE, FRAME_TYPE
from designer.gui.style import MEDIUM_STYLES
from designer.model import units
from designer.model.catalog import link_rates_gbps

if TYPE_CHECKING:
    from designer.gui.canvas.scene import DesignScene


def count_text(kinds: Mapping[str, int]) -> str:
    """``{'gpu': 248, 'switch': 16}`` as "248 GPUs, 16 switches" (:func:`designer.model.units.kind_counts`)."""
    return units.kind_counts(kinds)


#: A number with its unit as :mod:`designer.model.units` writes it ("512 Gb/s", "1.05 ms", "2.5 m").
_QUANTITY = re.compile(r"(?<![\w.,])(-?\d[\d,]*(?:\.\d+)?) ((?:[kMGT]?[bB]/s|[KMGT]iB|B|[mun]?s|m|W)(?![\w/]))")
#: Longest tooltip line, in characters; longer lines are broken at spaces.
TIP_COLUMNS = 90


def _glue_units(text: str) -> str:
    """``text`` with a no-break space between each number and its unit ("512\u00a0Gb/s")."""
    return _QUANTITY.sub("\\1\u00a0\\2", text)


_JOINED_SLASH = "\u2060/\u2060"  # word joiners: no line break on either side of the slash


def unbroken(text: str) -> str:
    """``text`` for a word-wrapped label: no line break inside a quantity ("400 Gb/s" never ends a
    line at "400" or "Gb/"): a no-break space after the number, word joiners around a unit's slash."""
    return _QUANTITY.sub(lambda m: m.group(1) + "\u00a0" + m.group(2).replace("/", _JOINED_SLASH), text)


def _wrapped(lines: Sequence[str]) -> list[str]:
    """``lines`` broken at spaces into lines of at most TIP_COLUMNS characters, never inside a quantity."""
    out = []
    for line in lines:
        out.extend(w.replace("\u00a0", " ") for w in textwrap.wrap(
            _glue_units(line), TIP_COLUMNS, break_long_words=False, break_on_hyphens=False) or [""])
    return out


def tooltip_html(lines: Sequence[str], problems: Sequence[str] = ()) -> str:
    """Rich text for a tooltip (with the design-rule findings in red) whose lines break only at
    spaces between words.

    Qt wraps a rich-text tooltip wherever it may, and splits "512 Gb/s" after the slash; so the
    text is set not to wrap (``white-space: pre``) and long lines are broken here instead, never
    inside a quantity. Markup in ``lines`` must not hold spaces inside its tags.
    """
    text = "<br>".join(_wrapped(lines))
    if problems:
        shown = [f"<b>Design\u00a0rule:</b> {problems[0]}", *problems[1:6]]
        if len(problems) > 6:
            shown.append(f"... and {len(problems) - 6} more")
        text += "<br><span style='color:#D62828'>" + "<br>".join(_wrapped(shown)) + "</span>"
    return f"<p style='white-space:pre'>{text}</p>"


def describe_item(scene: DesignScene, item: QGraphicsItem) -> str:
    d = scene.design
    if d is None:
        return ""
    t = item.type()
    if t == DEVICE_TYPE:
        dev = d.device(item.device_id)  # type: ignore[attr-defined]
        comp = scene.catalog.components.get(dev.model)
        free = len(d.free_ports(dev.id))
        lines = [f"<b>{dev.label}</b>" + (f" ({dev.id})" if dev.name else "")]
        lines.append(comp.name if comp else (dev.model or dev.kind))
        if dev.tier:
            lines.append(f"tier: {dev.tier}")
        ports = ", ".join(f"{g.count} x {units.line_rate(g.speed_gbps)} {g.kind}" for g in dev.ports)
        lines.append(f"ports: {ports}; {free} free")
        return tooltip_html(lines, scene.findings_for_device(dev.id))
    if t == BUNDLE_TYPE:
        ids = scene.bundle_link_ids(item.key)  # type: ignore[attr-defined]
        if not ids:
            return ""
        links = [d.link(i) for i in ids]
        total = sum(link_rates_gbps(d, links, scene.catalog))
        media = Counter(MEDIUM_STYLES[lk.medium].title if lk.medium in MEDIUM_STYLES else lk.medium for lk in links)
        if len(links) == 1:
            lk = links[0]
            lines = [f"<b>{lk.a}</b> \u2194 <b>{lk.b}</b>",
                     f"{units.line_rate(total)} per direction, {lk.length_m:g} m"]
            cable = f" ({lk.cable})" if lk.cable else ""
            lines.append(next(iter(media)) + cable + (" \u2014 FAILED" if lk.failed else ""))
        else:
            a, b = item.key  # type: ignore[attr-defined]
            lines = [f"<b>{units.count(len(links), 'link')}</b> {a.id} \u2194 {b.id}"]
            lines.append(f"{units.line_rate(total)} per direction in total")
            lines.append(", ".join(f"{n} {m}" for m, n in media.items()))
        util = scene.marks.utilisation
        if util is not None and (not scene.marks.measured or any(i in util for i in ids)):
            busiest = max(ids, key=lambda i: util.get(i, 0.0))
            where = "" if len(ids) == 1 else f" (busiest: {busiest})"
            how = "measured (port counters)" if scene.marks.measured else "under the analysed traffic"
            lines.append(f"utilisation {units.percent(util.get(busiest, 0.0))}{where} {how}")
        return tooltip_html(lines, scene.findings_for_links(ids))
    if t in (FRAME_TYPE, BOX_TYPE):
        g = d.group(item.group_id)  # type: ignore[attr-defined]
        members = d.all_members(g.id)
        counts = Counter(m.kind for m in members)
        lines = [f"<b>{g.label}</b> ({g.kind}{', collapsed' if g.collapsed else ''})"]
        lines.append(count_text(counts) or "empty")
        lines.append("double-click to " + ("expand" if g.collapsed else "collapse"))
        problems: list[str] = []
        if g.collapsed:
            for m in members:
                problems.extend(p for p in scene.findings_for_device(m.id) if p not in problems)
        return tooltip_html(lines, problems)
    return ""
