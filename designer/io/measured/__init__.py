"""Readers of what a real cluster measured: nccl-tests logs and port-counter snapshots (docs/measured.md).

Each reader turns a file into the plain records of :mod:`designer.analysis.measured.runs`; broken input
raises :class:`MeasuredFileError` (one line: the file, the line when known, and why). No Qt.
"""

from designer.model.errors import DesignError


class MeasuredFileError(DesignError):
    """A measurement file cannot be read: the message names the file, the line when known, and why."""
