"""Analysis: pure functions over a design (no Qt)."""

from designer.analysis.rules import Finding, check_design

__all__ = ["Finding", "check_design"]
