"""Training workloads on a fabric: the step model, concurrent communicators, storage, failures.

Entry point: :func:`designer.analysis.training.step.step_analysis` (docs/analysis.md section 8).
The names below are imported on first use (:mod:`designer.analysis.common.lazy`): a workload or its
constants are read without the step model and scipy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from designer.analysis.common.lazy import lazy_names

if TYPE_CHECKING:
    from designer.analysis.training.step import StepReport, step_analysis
    from designer.analysis.training.workload import Workload, WorkloadError

_WHERE = {
    "StepReport": "designer.analysis.training.step",
    "Workload": "designer.analysis.training.workload",
    "WorkloadError": "designer.analysis.training.workload",
    "step_analysis": "designer.analysis.training.step",
}

__all__ = ["StepReport", "Workload", "WorkloadError", "step_analysis"]

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
