"""Exports of a design, the analysis done once for all of them (docs/export.md).

:func:`prepare` analyses a design once (capacity graph and routes built once, shared by the
collective sweep and the training step), checks the design rules and counts the bill of
materials. The writers then turn that one :class:`ExportData` into files:

- :func:`export_document` / :func:`write_report`: the JSON report, format ``topo-designer-report``
  version 1 with the blocks ``bom``, ``findings``, ``assumptions``, ``exported`` and (with a
  workload) ``workload`` (docs/report-format.md);
- :func:`write_html`: the self-contained HTML report (:mod:`designer.present.html_report`);
- :func:`designer.present.cabling.write_cabling`: the cabling plan CSV;
- :func:`designer.interop.write_graphml`: GraphML.

Pictures (canvas, panels) are drawn by the window's code (``designer.gui.window.pictures``): this
module imports no Qt and takes them as PNG bytes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from designer import __version__
from designer.analysis.bom.bill import Bom, bill_of_materials
from designer.analysis.common.findings import Finding
from designer.analysis.report import Report
from designer.analysis.rules.check import check_design
from designer.analysis.serving.model import ServingReport
from designer.analysis.serving.workload import ServingWorkload
from designer.analysis.training.step import StepReport
from designer.analysis.training.workload import Workload
from designer.io.atomic import atomic_write_text
from designer.model import Design, DesignError
from designer.model.catalog import Catalog, builtin_catalog

#: What the exports are called (CLI options, dialog check boxes, progress messages).
OUTPUTS = ("png", "panels", "report", "html", "cabling", "graphml")
#: The collective's message sizes an export times unless told otherwise (the command and the window).
DEFAULT_SIZES = "8B:8GiB"

Progress = Callable[[str, int, int], None]


class ExportError(DesignError):
    """An export that cannot be made as asked."""


def check_output(path: str, what: str) -> Path:
    """``path`` can be written: its folder exists and is writable, and it is not a folder."""
    if not path or path == "-":
        raise ExportError(f"{what}: give a file name ('-' is not supported here)")
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise ExportError(f"{path}: is a folder")
    if not folder.is_dir():
        raise ExportError(f"{path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise ExportError(f"{path}: cannot write here (permission denied)")
    return p


def check_folder(path: str) -> Path:
    """``path`` is a writable folder, or can be made in a writable folder."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise ExportError(f"{path}: exists and is not a folder")
    if not p.exists():
        parent = p.parent if str(p.parent) else Path(".")
        if not parent.is_dir():
            raise ExportError(f"{path}: folder {parent} does not exist")
        if not os.access(parent, os.W_OK):
            raise ExportError(f"{path}: cannot create this folder (permission denied)")
    elif not os.access(p, os.W_OK):
        raise ExportError(f"{path}: cannot write in this folder (permission denied)")
    return p


@dataclass
class Picture:
    """A PNG picture for the HTML report: a title and its bytes."""

    title: str
    png: bytes
    width: int = 0
    height: int = 0
    #: a short name for a file of its own (a panel's key: ``utilisation``)
    name: str = ""


@dataclass
class ExportData:
    """Everything the exports need, computed once."""

    design: Design
    catalog: Catalog
    source: str
    report: Report
    bom: Bom
    findings: list[Finding]
    step: StepReport | None = None
    step_error: str = ""
    serving: ServingReport | None = None
    #: the training job the step was predicted for (its parallelism and placement order)
    workload: Workload | None = None
    _document: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def document(self) -> dict[str, Any]:
        """The JSON report (built on first use, then shared by the JSON and HTML writers)."""
        if self._document is None:
            self._document = export_document(self)
        return self._document


def prepare(design: Design, *, source: str = "", catalog: Catalog | None = None, sizes: Iterable[int] | None = None,
            workload: Workload | None = None, collective: str = "allreduce", top: int = 10,
            progress: Progress | None = None, serving: ServingWorkload | None = None) -> ExportData:
    """Analyse ``design`` once for every export.

    ``sizes`` are the collective's message sizes (default 8 B .. 8 GiB); with ``workload`` the
    training step is predicted on the same capacity graph, with ``serving`` the serving model. A
    workload that does not fit the design raises its :class:`~designer.model.DesignError` (a one-line
    message).
    """
    from designer.analysis import analyze, build_context
    from designer.analysis.training import step_analysis

    cat = catalog if catalog is not None else builtin_catalog()

    def tick(stage: str, done: int, total: int) -> None:
        if progress is not None:
            progress(stage, done, total)

    tick("analysis", 0, 4)
    ctx = build_context(design, cat)
    report = analyze(design, cat, collective=collective, sizes=sizes, top=top, context=ctx)
    step = None
    if workload is not None:
        tick("training step", 1, 4)
        step = step_analysis(ctx, workload, cat)
    served = None
    if serving is not None:
        from designer.analysis.serving.model import serving_analysis

        tick("serving", 1, 4)
        served = serving_analysis(ctx, serving, cat)
    tick("design rules", 2, 4)
    findings = list(check_design(design, cat))
    tick("bill of materials", 3, 4)
    bom = bill_of_materials(design, cat)
    tick("analysis", 4, 4)
    return ExportData(design, cat, source, report, bom, findings, step, serving=served, workload=workload)


def export_document(data: ExportData) -> dict[str, Any]:
    """The JSON report: the analyzer's report plus ``workload``, ``serving``, ``bom``, ``findings``, ``assumptions``."""
    from designer.present.assumptions import assumptions_to_dict
    from designer.present.documents import bom_to_dict, findings_to_dict
    from designer.present.report_json import report_to_dict
    from designer.present.step_json import step_to_dict

    doc = report_to_dict(data.report)
    if data.step is not None:
        doc["workload"] = step_to_dict(data.step)
    if data.serving is not None:
        from designer.present.serving_json import serving_to_dict

        doc["serving"] = serving_to_dict(data.serving)
    doc["bom"] = bom_to_dict(data.bom)
    doc["findings"] = findings_to_dict(data.findings, data.source or data.design.name)
    doc["assumptions"] = assumptions_to_dict(data.design, data.catalog,
                                             workload=data.step is not None or data.serving is not None)
    doc["exported"] = {"tool": f"topo-designer {__version__}", "file": data.source}
    return doc


def report_text(data: ExportData) -> str:
    """The JSON report's text (the same rules as ``analyze --json``: finite numbers, a final newline)."""
    from designer.present.json_text import json_text

    return json_text(data.document)


def write_report(data: ExportData, path: str | os.PathLike[str]) -> None:
    """Write the JSON report atomically."""
    atomic_write_text(path, report_text(data))


def write_html(data: ExportData, path: str | os.PathLike[str], canvas: Picture | None = None,
               panels: Iterable[Picture] = (), notes: Iterable[str] = (),
               measured: dict[str, Any] | None = None) -> None:
    """Write the self-contained HTML report atomically (pictures embedded; ``measured``: the JSON of
    ``topo-designer compare``, shown as its "Measured against predicted" section)."""
    from designer.present.html_report import html_report

    atomic_write_text(path, html_report(data.document, canvas=canvas, panels=list(panels), notes=list(notes),
                                        measured=measured))


__all__ = ["OUTPUTS", "ExportData", "ExportError", "Picture", "check_folder", "check_output", "export_document",
           "prepare", "report_text", "write_html", "write_report"]
