"""Human-readable descriptions of what an item stands for (tooltips, status bar)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QGraphicsItem

from designer.gui.canvas.items import BOX_TYPE, BUNDLE_TYPE, DEVICE_TYPE, FRAME_TYPE
from designer.gui.canvas.linking import link_rate_gbps
from designer.gui.style import MEDIUM_STYLES
from designer.model import units

if TYPE_CHECKING:
    from designer.gui.canvas.scene import DesignScene


def _html(lines: list[str], problems: list[str]) -> str:
    text = "<br>".join(lines)
    if problems:
        text += "<br><span style='color:#D62828'><b>Design rule:</b> " + "<br>".join(problems[:6])
        if len(problems) > 6:
            text += f"<br>... and {len(problems) - 6} more"
        text += "</span>"
    return text


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
        return _html(lines, scene.findings_for_device(dev.id))
    if t == BUNDLE_TYPE:
        ids = scene.bundle_link_ids(item.key)  # type: ignore[attr-defined]
        if not ids:
            return ""
        links = [d.link(i) for i in ids]
        total = sum(link_rate_gbps(d, lk, scene.catalog) for lk in links)
        media = Counter(MEDIUM_STYLES[lk.medium].title if lk.medium in MEDIUM_STYLES else lk.medium for lk in links)
        if len(links) == 1:
            lk = links[0]
            lines = [f"<b>{lk.a}</b> \u2194 <b>{lk.b}</b>",
                     f"{units.line_rate(total)} per direction, {lk.length_m:g} m"]
            cable = f" ({lk.cable})" if lk.cable else ""
            lines.append(next(iter(media)) + cable + (" \u2014 FAILED" if lk.failed else ""))
        else:
            a, b = item.key  # type: ignore[attr-defined]
            lines = [f"<b>{len(links)} links</b> {a.id} \u2194 {b.id}"]
            lines.append(f"{units.line_rate(total)} per direction in total")
            lines.append(", ".join(f"{n} {m}" for m, n in media.items()))
        return _html(lines, scene.findings_for_links(ids))
    if t in (FRAME_TYPE, BOX_TYPE):
        g = d.group(item.group_id)  # type: ignore[attr-defined]
        members = d.all_members(g.id)
        counts = Counter(m.kind for m in members)
        lines = [f"<b>{g.label}</b> ({g.kind}{', collapsed' if g.collapsed else ''})"]
        lines.append(", ".join(f"{n} {k}" for k, n in counts.items()) or "empty")
        lines.append("double-click to " + ("expand" if g.collapsed else "collapse"))
        problems: list[str] = []
        if g.collapsed:
            for m in members:
                problems.extend(p for p in scene.findings_for_device(m.id) if p not in problems)
        return _html(lines, problems)
    return ""
