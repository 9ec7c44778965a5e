"""The analyzer's user-facing error."""

from designer.model.errors import DesignError


class AnalysisError(DesignError):
    """A design or an option cannot be analyzed (no GPUs, unknown GPU set...); one-line message."""
