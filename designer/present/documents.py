"""The JSON documents of ``validate --json`` and ``bom --json``, each with its format and version.

Formats ``topo-designer-findings`` and ``topo-designer-bom``, version 1 (docs/report-format.md
describes both; schemas in ``resources/schema/findings.schema.json`` and ``bom.schema.json``).
Fields may be added within a version; removing one or changing its meaning bumps the version.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from designer.analysis.bom.bill import CATEGORIES, Bom, BomLine
from designer.analysis.common.findings import Finding

FINDINGS_FORMAT = "topo-designer-findings"
BOM_FORMAT = "topo-designer-bom"
DOCUMENT_VERSION = 1

#: The units of the bill of materials' numbers, written into the document.
BOM_UNITS = {
    "power_w": "W (typical draw, catalog figure)",
    "price_usd": "USD (indicative list prices from the catalog)",
    "length": "m (cable length buckets)",
}


def findings_to_dict(findings: Iterable[Finding], source: str) -> dict[str, Any]:
    """Design-rule findings of the design read from ``source`` as a JSON-ready document."""
    items = [f.to_dict() for f in findings]
    errors = sum(1 for f in items if f["severity"] == "error")
    return {
        "format": FINDINGS_FORMAT,
        "version": DOCUMENT_VERSION,
        "file": source,
        "errors": errors,
        "warnings": len(items) - errors,
        "findings": items,
    }


def bom_line_to_dict(line: BomLine) -> dict[str, Any]:
    """One line of a bill of materials: the fields it has, power to the mW, prices to the cent."""
    d: dict[str, Any] = {"category": line.category, "item": line.item, "name": line.name,
                         "quantity": line.quantity}
    for key in ("tier", "medium", "between", "length_bucket"):
        if getattr(line, key):
            d[key] = getattr(line, key)
    d.update(unit_power_w=round(line.unit_power_w, 3), unit_price_usd=round(line.unit_price_usd, 2),
             power_w=round(line.power_w, 3), price_usd=round(line.price_usd, 2))
    if line.unpriced:
        d["unpriced"] = line.unpriced
    return d


def bom_to_dict(bom: Bom) -> dict[str, Any]:
    """A bill of materials as a JSON-ready document, its units named."""
    return {
        "format": BOM_FORMAT,
        "version": DOCUMENT_VERSION,
        "units": dict(BOM_UNITS),
        "design": bom.design,
        "lines": [bom_line_to_dict(line) for line in bom.lines],
        "totals": {
            **{c: bom.quantity(c) for c in CATEGORIES},
            "power_w": round(bom.total_power_w, 3),
            "price_usd": round(bom.total_price_usd, 2),
        },
        "board_links": dict(bom.board_links),
        "notes": list(bom.notes),
    }
