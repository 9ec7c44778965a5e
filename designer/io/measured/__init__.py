"""Readers of what a real cluster measured: nccl-tests logs and port-counter snapshots (docs/measured.md).

Each reader turns a file into the plain records of :mod:`designer.analysis.measured.runs`; broken input
raises :class:`MeasuredFileError` (one line: the file, the line when known, and why). No Qt.
"""

from designer.model.errors import DesignError


class MeasuredFileError(DesignError):
    """A measurement file cannot be read: the message names the file, the line when known, and why."""


def read_measurement_bytes(path: str, max_bytes: int) -> tuple[bytes, str]:
    """The bytes of a measurement file (``-``: standard input), bounded, and the name messages use."""
    from designer.io.importers.base import ImportFileError, read_source

    try:
        return read_source(path, max_bytes)
    except ImportFileError as e:
        raise MeasuredFileError(str(e).replace(" to import", " to read")) from None


def read_measurement(path: str, max_bytes: int) -> tuple[str, str]:
    """The text of a measurement file (undecodable bytes replaced: logs carry stray binary noise)."""
    raw, source = read_measurement_bytes(path, max_bytes)
    return raw.decode("utf-8", errors="replace"), source


#: The JSON document ``topo-designer compare --json`` writes (docs/measured.md).
COMPARE_FORMAT = "topo-designer-compare"
COMPARE_VERSION = 1


def read_compare_json(path: str) -> dict:
    """A ``compare --json`` document (for the HTML report's measured section); one-line errors."""
    from designer.model.fields import parse_json

    raw, source = read_measurement_bytes(path, 64 * 1024 * 1024)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise MeasuredFileError(f"{source}: not UTF-8 text (byte {e.start:,})") from None
    doc = parse_json(text, source, "the JSON of topo-designer compare", MeasuredFileError)
    if not isinstance(doc, dict) or doc.get("format") != COMPARE_FORMAT:
        raise MeasuredFileError(f"{source}: not the JSON of topo-designer compare (format {COMPARE_FORMAT!r})")
    if doc.get("version") != COMPARE_VERSION or not isinstance(doc.get("runs"), list):
        raise MeasuredFileError(f"{source}: compare JSON version {doc.get('version')!r} is not supported")
    return doc
