"""The JSON documents of ``validate --json`` and ``bom --json``, each with its format and version.

Formats ``topo-designer-findings`` and ``topo-designer-bom``, version 1 (docs/report-format.md
describes both; schemas in ``resources/schema/findings.schema.json`` and ``bom.schema.json``).
Fields may be added within a version; removing one or changing its meaning bumps the version.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from designer.analysis.bom import Bom
from designer.analysis.rules import Finding

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


def bom_to_dict(bom: Bom) -> dict[str, Any]:
    """A bill of materials as a JSON-ready document, its units named."""
    return {"format": BOM_FORMAT, "version": DOCUMENT_VERSION, "units": dict(BOM_UNITS), **bom.to_dict()}
