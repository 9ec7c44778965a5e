"""Workload files and the shipped presets: training (docs/workload-format.md) and serving (docs/serving.md).

A workload argument is a preset name (``llama3-70b``; :func:`preset_names` lists them, from
``resources/workloads/``; serving presets such as ``llama3-70b-serve`` from ``resources/serving/``)
or a path to a JSON file (``-`` for standard input). Files are read with the design files' bounded
reader and their shape is measured before parsing, so a huge or deeply nested file is refused in
one line; :func:`designer.io.workload_records.workload_from_data` (training) or
:func:`designer.io.serving_records.serving_from_data` (serving) then checks every field.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from designer.analysis.serving.workload import ServingError, ServingWorkload
from designer.analysis.training.workload import Workload, WorkloadError
from designer.io.json_shape import parse_small_document
from designer.io.reading import read_input
from designer.io.serving_records import serving_from_data
from designer.io.workload_records import workload_from_data
from designer.model.errors import DesignError
from designer.model.shipped import resources_dir

#: A workload file is a few kilobytes; this bounds what is read.
MAX_WORKLOAD_BYTES = 1024 * 1024
#: No object in a workload file has more members, and nothing nests deeper.
MAX_MEMBERS = 200
MAX_DEPTH = 16


def presets_dir() -> Path:
    """The folder of the shipped training presets (``resources/workloads``)."""
    return resources_dir() / "workloads"


def serving_presets_dir() -> Path:
    """The folder of the shipped serving presets (``resources/serving``)."""
    return resources_dir() / "serving"


def _names(folder: Path) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []


def preset_names() -> list[str]:
    """Names of the shipped training presets, sorted."""
    return _names(presets_dir())


def serving_preset_names() -> list[str]:
    """Names of the shipped serving presets, sorted."""
    return _names(serving_presets_dir())


def workload_from_bytes(raw: bytes, source: str) -> Workload:
    """Parse and check a training workload document given as bytes."""
    data = parse_small_document(raw, source, "a workload file", WorkloadError, max_members=MAX_MEMBERS,
                                max_depth=MAX_DEPTH)
    return workload_from_data(data, source)


def serving_from_bytes(raw: bytes, source: str) -> ServingWorkload:
    """Parse and check a serving workload document given as bytes."""
    data = parse_small_document(raw, source, "a serving workload file", ServingError, max_members=MAX_MEMBERS,
                                max_depth=MAX_DEPTH)
    return serving_from_data(data, source)


def _load(name_or_path: str | os.PathLike[str], folder: Path, parse: Callable[[bytes, str], Any],
          error: type[DesignError], what: str) -> Any:
    """A preset of ``folder`` by name, or a file (``-``: standard input), parsed by ``parse``; read through
    :func:`designer.io.reading.read_input` (bounded, devices and writerless pipes refused)."""
    text = os.fspath(name_or_path)
    path = Path(text)
    if text != "-" and not path.exists() and os.sep not in text and not text.endswith(".json"):
        preset = folder / f"{text}.json"
        if not preset.is_file():
            raise error(f"no {what} preset or file {text!r}: presets are {', '.join(_names(folder))}")
        raw, _ = read_input(preset, MAX_WORKLOAD_BYTES, f"a {what} file", error)
        return parse(raw, text)
    raw, source = read_input(text, MAX_WORKLOAD_BYTES, f"a {what} file", error)
    return parse(raw, source)


def load_workload(name_or_path: str | os.PathLike[str]) -> Workload:
    """A training preset by name, or a workload file (``-``: standard input); :class:`WorkloadError` otherwise."""
    return _load(name_or_path, presets_dir(), workload_from_bytes, WorkloadError, "workload")


def load_serving(name_or_path: str | os.PathLike[str]) -> ServingWorkload:
    """A serving preset by name (``llama3-70b-serve``), or a serving file (``-``: standard input);
    :class:`ServingError` otherwise."""
    return _load(name_or_path, serving_presets_dir(), serving_from_bytes, ServingError, "serving workload")


__all__ = ["MAX_WORKLOAD_BYTES", "load_serving", "load_workload", "preset_names", "presets_dir", "serving_from_bytes",
           "serving_preset_names", "serving_presets_dir", "workload_from_bytes"]
