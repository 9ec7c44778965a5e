"""A bill of materials as a plain aligned text table, with totals and notes (``topo-designer bom``)."""

from __future__ import annotations

from typing import Any

from designer.analysis.bom import Bom


def table(headers: list[str], rows: list[list[Any]], align: str | None = None) -> str:
    """A plain aligned text table. ``align`` is one character per column, ``l`` or ``r``
    (default: the first column left, the others right).

    >>> print(table(["item", "qty"], [["gpu", 8], ["switch", 12]]))
    item    qty
    ------  ---
    gpu       8
    switch   12
    """
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    align = align or ("l" + "r" * (len(headers) - 1))
    out = []
    for n, r in enumerate(cells):
        parts = [c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(r, widths, align, strict=True)]
        out.append("  ".join(parts).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def format_bom(bom: Bom) -> str:
    """The bill of materials as a plain aligned text table, with totals and notes."""
    rows = []
    for line in bom.lines:
        if line.category == "cable":
            what = f"{line.between} {line.length_bucket}"
        else:
            what = line.tier
        rows.append([
            line.category, line.item or line.name, what, f"{line.quantity:,}", f"{line.unit_power_w:,.1f}",
            f"{line.unit_price_usd:,.0f}", f"{line.power_w / 1000:,.2f}", f"{line.price_usd:,.0f}",
        ])
    headers = ["category", "item", "tier / link, length", "qty", "unit W", "unit USD", "total kW", "total USD"]
    text = [f"Bill of materials: {bom.design}", "", table(headers, rows, "lllrrrrr"), ""]
    text.append(f"Total power: {bom.total_power_w / 1000:,.1f} kW    Indicative cost: ${bom.total_price_usd:,.0f}")
    if bom.board_links:
        text.append("Board connections (not cables): " + ", ".join(f"{m} {n:,}" for m, n in bom.board_links))
    for note in bom.notes:
        text.append(f"Note: {note}")
    return "\n".join(text) + "\n"


__all__ = ["format_bom", "table"]
