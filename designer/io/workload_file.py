"""Workload files and the shipped presets (docs/workload-format.md).

A workload argument is a preset name (``llama3-70b``; :func:`preset_names` lists them, from
``resources/workloads/``) or a path to a JSON file (``-`` for standard input). Files are read
with the design files' bounded reader and their shape is measured before parsing, so a huge or
deeply nested file is refused in one line; :func:`designer.io.workload_records.workload_from_data`
then checks every field.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from designer.analysis.training.workload import Workload, WorkloadError
from designer.io.design_file import DesignFileError, read_bounded
from designer.io.json_shape import parse_small_document
from designer.io.workload_records import workload_from_data
from designer.model.shipped import resources_dir
from designer.model.units import size

#: A workload file is a few kilobytes; this bounds what is read.
MAX_WORKLOAD_BYTES = 1024 * 1024
#: No object in a workload file has more members, and nothing nests deeper.
MAX_MEMBERS = 200
MAX_DEPTH = 16


def presets_dir() -> Path:
    """The folder of the shipped presets (``resources/workloads``)."""
    return resources_dir() / "workloads"


def preset_names() -> list[str]:
    """Names of the shipped presets, sorted."""
    folder = presets_dir()
    return sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []


def workload_from_bytes(raw: bytes, source: str) -> Workload:
    """Parse and check a workload document given as bytes."""
    data = parse_small_document(raw, source, "a workload file", WorkloadError, max_members=MAX_MEMBERS,
                                max_depth=MAX_DEPTH)
    return workload_from_data(data, source)


def _read(stream: Any, source: str) -> bytes:
    try:
        return read_bounded(stream, source, MAX_WORKLOAD_BYTES)
    except DesignFileError as e:
        if "limit" in str(e):
            raise WorkloadError(f"{source}: larger than the {size(MAX_WORKLOAD_BYTES)} limit for a workload file") \
                from None
        raise WorkloadError(str(e)) from None


def load_workload(name_or_path: str | os.PathLike[str]) -> Workload:
    """A preset by name, or a workload file (``-``: standard input); :class:`WorkloadError` otherwise."""
    text = os.fspath(name_or_path)
    if text == "-":
        return workload_from_bytes(_read(sys.stdin.buffer, "<stdin>"), "<stdin>")
    path = Path(text)
    if not path.exists() and os.sep not in text and not text.endswith(".json"):
        preset = presets_dir() / f"{text}.json"
        if not preset.is_file():
            raise WorkloadError(f"no workload preset or file {text!r}: presets are {', '.join(preset_names())}")
        path = preset
    if path.is_dir():
        raise WorkloadError(f"{text}: is a folder, not a workload file")
    try:
        with open(path, "rb") as f:
            raw = _read(f, text)
    except FileNotFoundError:
        raise WorkloadError(f"{text}: no such workload file") from None
    except PermissionError:
        raise WorkloadError(f"{text}: permission denied") from None
    except OSError as e:
        raise WorkloadError(f"{text}: cannot read: {e.strerror or e}") from None
    return workload_from_bytes(raw, text)


__all__ = ["MAX_WORKLOAD_BYTES", "load_workload", "preset_names", "presets_dir", "workload_from_bytes"]
