"""Analysis: pure functions over a design (no Qt)."""

from designer.analysis.bisection import Bisection, bisection_bounds
from designer.analysis.collectives import collective_times
from designer.analysis.context import Context, build_context
from designer.analysis.errors import AnalysisError
from designer.analysis.report import Report, analyze
from designer.analysis.rules import Finding, check_design

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
