"""Analysis: pure functions over a design (no Qt).

The names below are imported on first use (PEP 562), so that importing one module of the package
(a finding, an error, the bill of materials) does not import the whole analysis and scipy with it:
``topo-designer bom`` prices a design without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from designer.analysis.common.lazy import lazy_names

if TYPE_CHECKING:
    from designer.analysis.bisection.bounds import Bisection, bisection_bounds
    from designer.analysis.collectives.times import collective_times
    from designer.analysis.common.errors import AnalysisError
    from designer.analysis.common.findings import Finding
    from designer.analysis.fabric.context import Context, build_context
    from designer.analysis.report import Report, analyze
    from designer.analysis.rules.check import check_design

#: Each public name and the module that defines it.
_WHERE = {
    "AnalysisError": "designer.analysis.common.errors",
    "Bisection": "designer.analysis.bisection.bounds",
    "Context": "designer.analysis.fabric.context",
    "Finding": "designer.analysis.common.findings",
    "Report": "designer.analysis.report",
    "analyze": "designer.analysis.report",
    "bisection_bounds": "designer.analysis.bisection.bounds",
    "build_context": "designer.analysis.fabric.context",
    "check_design": "designer.analysis.rules.check",
    "collective_times": "designer.analysis.collectives.times",
}

__all__ = [
    "AnalysisError",
    "Bisection",
    "Context",
    "Finding",
    "Report",
    "analyze",
    "bisection_bounds",
    "build_context",
    "check_design",
    "collective_times",
]


__getattr__, __dir__ = lazy_names(__name__, _WHERE)
