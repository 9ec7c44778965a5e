"""Analysis: pure functions over a design (no Qt)."""

from designer.analysis.bisection.bounds import Bisection, bisection_bounds
from designer.analysis.collectives.times import collective_times
from designer.analysis.common.errors import AnalysisError
from designer.analysis.common.findings import Finding
from designer.analysis.fabric.context import Context, build_context
from designer.analysis.report import Report, analyze
from designer.analysis.rules.check import check_design

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
