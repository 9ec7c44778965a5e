"""Training workloads on a fabric: the step model, concurrent communicators, storage, failures.

Entry point: :func:`designer.analysis.training.step.step_analysis` (docs/analysis.md section 8).
"""

from designer.analysis.training.step import StepReport, step_analysis
from designer.analysis.training.workload import Workload, WorkloadError

__all__ = ["StepReport", "Workload", "WorkloadError", "step_analysis"]
