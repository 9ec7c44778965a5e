"""Design-rule findings as the lines ``topo-designer validate`` prints."""

from __future__ import annotations

from collections.abc import Sequence

from designer.analysis.common.findings import Finding
from designer.model import Design
from designer.model.units import count


def findings_lines(design: Design, findings: Sequence[Finding], source: str) -> list[str]:
    """One line per finding and a tally of errors and warnings, or one line saying the design
    read from ``source`` is clean, with its size."""
    if not findings:
        return [f"{source}: clean ({count(design.device_count(), 'device')}, {count(design.link_count(), 'link')})"]
    errors = sum(1 for f in findings if f.severity == "error")
    out = [f"{source}: {f.severity}: [{f.code}] {f.message}" for f in findings]
    out.append(f"{source}: {count(errors, 'error')}, {count(len(findings) - errors, 'warning')}")
    return out


__all__ = ["findings_lines"]
