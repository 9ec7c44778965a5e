"""A bill of materials as a plain aligned text table, with totals and notes (``topo-designer bom``)."""

from __future__ import annotations

import csv
import io
from typing import Any

from designer.analysis.bom.bill import Bom, BomLine
from designer.model import units


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


#: The columns of the bill of materials table, in the terminal and the window alike.
BOM_HEADERS = ("category", "item", "tier / link, length", "qty", "unit W", "unit USD", "total kW", "total USD")
#: ``l`` or ``r`` for each of :data:`BOM_HEADERS`.
BOM_ALIGN = "lllrrrrr"


def _row(line: BomLine, sep: str) -> list[str]:
    """One line's cells: numbers with ``sep`` as the thousands separator ("," shown, "" for CSV)."""
    what = f"{line.between} {line.length_bucket}" if line.category == "cable" else line.tier

    def num(x: float, spec: str) -> str:
        text = format(x, "," + spec)
        return text if sep == "," else text.replace(",", sep)

    return [line.category, line.item or line.name, what, num(line.quantity, "d"), num(line.unit_power_w, ".1f"),
            num(line.unit_price_usd, ".0f"), num(line.power_w / 1000, ".2f"), num(line.price_usd, ".0f")]


def bom_rows(bom: Bom) -> list[list[str]]:
    """The table's rows as shown, one per line of the bill, under :data:`BOM_HEADERS`."""
    return [_row(line, ",") for line in bom.lines]


def power_text(watts: float) -> str:
    """Electrical power as the bill of materials shows it: ``12.3 kW``."""
    return f"{watts / 1000:,.1f} kW"


def cost_text(amount_usd: float) -> str:
    """An indicative price as the bill of materials shows it: ``$456,789`` (:func:`units.usd`)."""
    return units.usd(amount_usd)


def totals_text(bom: Bom) -> str:
    """The totals: ``Total power: 12.3 kW    Indicative cost: $456,789``."""
    return f"Total power: {power_text(bom.total_power_w)}    Indicative cost: {cost_text(bom.total_price_usd)}"


def board_text(bom: Bom) -> str:
    """The board connections (not cables), or an empty string when there are none."""
    if not bom.board_links:
        return ""
    return "Board connections (not cables): " + ", ".join(f"{m} {n:,}" for m, n in bom.board_links)


def format_bom(bom: Bom) -> str:
    """The bill of materials as a plain aligned text table, with totals and notes."""
    text = [f"Bill of materials: {bom.design}", "", table(list(BOM_HEADERS), bom_rows(bom), BOM_ALIGN), ""]
    text.append(totals_text(bom))
    if bom.board_links:
        text.append(board_text(bom))
    for note in bom.notes:
        text.append(f"Note: {note}")
    return "\n".join(text) + "\n"


def bom_csv(bom: Bom) -> str:
    """The table as CSV for a spreadsheet: the same columns and rounding, numbers without thousands
    separators, and a last row with the totals."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(BOM_HEADERS)
    writer.writerows(_row(line, "") for line in bom.lines)
    writer.writerow(["total", "", "", "", "", "", f"{bom.total_power_w / 1000:.2f}", f"{bom.total_price_usd:.0f}"])
    return out.getvalue()


__all__ = ["BOM_ALIGN", "BOM_HEADERS", "board_text", "bom_csv", "bom_rows", "format_bom", "table", "totals_text"]
