"""File ▸ Export…: the exports of ``topo-designer export`` from the window, with a progress bar.

The dialog names a folder and a base name; each chosen output is written there as
``NAME.png``, ``NAME-panels/``, ``NAME.json``, ``NAME.html``, ``NAME-cabling.csv``,
``NAME.graphml``. The analysis runs once, on a copy of the design in a worker thread, which also
writes the JSON report, the cabling plan and GraphML while a progress dialog shows the stage;
the pictures (and the HTML report holding them) are drawn on the UI thread afterwards. Errors are
shown in a dialog, in the command line's words.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QProgressDialog,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from designer.gui.panels.analysis_dock import NO_TRAINING, training_choice
from designer.gui.window.background import run_in_worker
from designer.model import Design, DesignError, units
from designer.present.export import DEFAULT_SIZES

if TYPE_CHECKING:
    from designer.gui.window.main_window import MainWindow

#: (key, label, file name from the base name)
OUTPUTS = (
    ("png", "Canvas picture (PNG)", "{}.png"),
    ("panels", "Analysis panel pictures (PNG, one per panel)", "{}-panels"),
    ("report", "JSON report", "{}.json"),
    ("html", "HTML report (self-contained)", "{}.html"),
    ("cabling", "Cabling plan (CSV)", "{}-cabling.csv"),
    ("graphml", "GraphML (networkx, yEd)", "{}.graphml"),
)
NO_WORKLOAD = ""
#: How the progress names each output ("Writing the canvas picture...").
_LABELS = {key: label.split(" (")[0].lower() for key, label, _ in OUTPUTS}



def file_stem(name: str) -> str:
    """A file name from a design name: letters, digits, ``-_.`` kept, runs of anything else one dash.

    >>> file_stem("DGX H100 SuperPOD, 1 SU"), file_stem("  "), file_stem("a/b")
    ('DGX-H100-SuperPOD-1-SU', 'design', 'a-b')
    """
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "design"


class ExportDialog(QDialog):
    """Which outputs, where, and how the canvas picture is drawn."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window_ = window
        self.setWindowTitle("Export")
        settings = QSettings()
        path = window.document.path if hasattr(window.document, "path") else None
        stem = Path(path).stem if path else (window.document.design.name or "design")
        folder = settings.value("export/folder", str(Path(path).parent) if path else str(Path.home()))
        layout = QVBoxLayout(self)

        where = QFormLayout()
        self.folder = QLineEdit(str(folder))
        browse = QPushButton("Browse\u2026")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.folder, 1)
        row.addWidget(browse)
        holder = QWidget()
        holder.setLayout(row)
        row.setContentsMargins(0, 0, 0, 0)
        where.addRow("Folder:", holder)
        self.base = QLineEdit(file_stem(stem))
        where.addRow("Base name:", self.base)
        layout.addLayout(where)

        box = QGroupBox("Outputs")
        col = QVBoxLayout(box)
        self.checks: dict[str, QCheckBox] = {}
        for key, label, pattern in OUTPUTS:
            check = QCheckBox(f"{label}  \u2192  {pattern.format('NAME')}")
            check.setChecked(key in ("png", "report", "html"))
            self.checks[key] = check
            col.addWidget(check)
        layout.addWidget(box)

        pic = QGroupBox("Canvas picture")
        form = QFormLayout(pic)
        self.whole = QRadioButton("Whole design")
        self.visible = QRadioButton("Visible area")
        self.whole.setChecked(True)
        area = QHBoxLayout()
        area.addWidget(self.whole)
        area.addWidget(self.visible)
        area.addStretch(1)
        form.addRow("Area:", area)
        self.width = QSpinBox()
        self.width.setRange(16, 16384)
        self.width.setValue(2400)
        self.width.setSuffix(" px")
        self.width.setToolTip("Width of the picture, the legend column included")
        form.addRow("Width:", self.width)
        self.transparent = QCheckBox("Transparent background (else white)")
        self.legend = QCheckBox("Include the legend")
        self.legend.setChecked(True)
        form.addRow(self.transparent)
        form.addRow(self.legend)
        layout.addWidget(pic)

        ana = QFormLayout()
        self.workload = QComboBox()
        self.workload.addItem(NO_TRAINING, NO_WORKLOAD)
        from designer.io.workload_file import preset_names

        for name in preset_names():
            self.workload.addItem(training_choice(name), name)
        current = _dock_workload(window)
        if current:
            i = self.workload.findData(current)
            if i >= 0:
                self.workload.setCurrentIndex(i)
        ana.addRow("Training step:", self.workload)
        self.sizes = QLineEdit(DEFAULT_SIZES)
        self.sizes.setToolTip("Message sizes of the collective table and curves: a range of powers of two "
                              "(8B:8GiB) or a list (1MiB,256MiB,8GiB); " + units.SIZE_HELP)
        ana.addRow("Message sizes:", self.sizes)
        layout.addLayout(ana)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.export_button = buttons.addButton("Export", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self._on_export)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        #: the files written by the last export
        self.written: list[str] = []

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export to folder", self.folder.text())
        if folder:
            self.folder.setText(folder)

    def paths(self) -> dict[str, Path]:
        """The chosen outputs and their paths."""
        folder = Path(self.folder.text().strip() or ".")
        base = self.base.text().strip() or "design"
        return {key: folder / pattern.format(base) for key, _, pattern in OUTPUTS if self.checks[key].isChecked()}

    def _on_export(self) -> None:
        try:
            self.written = self.run_export()
        except DesignError as e:
            self.window_.show_error("Export failed", str(e))
            return
        if self.written:
            QSettings().setValue("export/folder", self.folder.text())
            self.window_.statusBar().showMessage(f"Exported {len(self.written)} files to {self.folder.text()}", 8000)
            self.accept()

    def run_export(self) -> list[str]:
        """Export the chosen outputs; raise :class:`DesignError` with a one-line message on failure.

        The analysis and the files that need no Qt (report, cabling, GraphML) are made in a worker
        thread while a progress dialog runs; the pictures and the HTML report are drawn here after."""
        paths, sizes, workload = self._chosen()
        w = self.window_
        design = w.document.design.copy()  # the analysis runs off the UI thread on its own copy
        area = w.view.visible_scene_rect() if self.visible.isChecked() else None
        analysed = any(k in paths for k in ("report", "html", "panels"))
        progress = self._progress(int(analysed) + len(paths))
        state: dict[str, Any] = {"text": "Analysing the design\u2026", "step": 0, "done": 0, "total": 1}
        written: list[str] = []
        try:
            data = self._in_worker(progress, state, lambda: self._analyse_and_write(
                design, paths, sizes, workload, analysed, state, written))
            self._draw_and_write(data, design, paths, area, progress, state["step"], written)
        except OSError as e:
            raise DesignError(f"cannot write: {e.strerror or e}") from None
        finally:
            progress.close()
        return written

    def _chosen(self) -> tuple[dict[str, Path], list[int], Any]:
        """The outputs and their paths (checked), the message sizes and the workload, as chosen."""
        from designer.present.export import check_folder, check_output

        paths = self.paths()
        if not paths:
            raise DesignError("nothing to export: tick at least one output")
        for key, path in paths.items():
            if key == "panels":
                check_folder(str(path))
            else:
                check_output(str(path), key)
        try:
            sizes = units.parse_sizes(self.sizes.text().strip() or DEFAULT_SIZES)
        except ValueError as e:
            raise DesignError(f"message sizes: {e}") from None
        workload = None
        if self.workload.currentData():
            from designer.io.workload_file import load_workload

            workload = load_workload(self.workload.currentData())
        return paths, sizes, workload

    def _progress(self, steps: int) -> QProgressDialog:
        progress = QProgressDialog("Analysing the design\u2026", "", 0, 100 * steps, self)
        progress.setWindowTitle("Export")
        progress.setCancelButton(None)
        progress.setWindowModality(Qt.WindowModality.WindowModal)
        progress.setMinimumDuration(300)
        progress.setValue(0)
        return progress

    @staticmethod
    def _in_worker(progress: QProgressDialog, state: dict[str, Any], work: Callable[[], Any]) -> Any:
        """Run ``work`` in a worker thread, showing the progress it writes into ``state``."""

        def poll() -> None:
            progress.setLabelText(state["text"])
            progress.setValue(int(100 * (state["step"] + state["done"] / state["total"])))

        return run_in_worker(progress, work, poll)

    def _analyse_and_write(self, design: Design, paths: dict[str, Path], sizes: list[int], workload: Any,
                           analysed: bool, state: dict[str, Any], written: list[str]) -> Any:
        """The analysis and the files that need no Qt (in the worker thread)."""
        from designer.interop import write_graphml
        from designer.present.cabling import write_cabling
        from designer.present.export import prepare, write_report

        w = self.window_

        def report_progress(stage: str, done: int, total: int) -> None:
            state.update(text=f"Analysing the design: {stage}\u2026", done=done, total=max(total, 1))

        data = None
        if analysed:
            source = str(getattr(w.document, "path", "") or design.name)
            data = prepare(design, source=source, catalog=w.catalog, sizes=sizes, workload=workload,
                           progress=report_progress)
            state.update(step=1, done=0)
        for key in ("report", "cabling", "graphml"):
            if key not in paths:
                continue
            state.update(text=f"Writing the {_LABELS[key]}\u2026", done=0, total=1)
            path = paths[key]
            if key == "report":
                write_report(data, path)
            elif key == "cabling":
                write_cabling(design, path, w.catalog)
            else:
                write_graphml(design, path, w.catalog)
            written.append(str(path))
            state.update(step=state["step"] + 1)
        return data

    def _draw_and_write(self, data: Any, design: Design, paths: dict[str, Path], area: Any,
                        progress: QProgressDialog, step: int, written: list[str]) -> None:
        """The canvas picture, the panel pictures and the HTML report (on the UI thread: they draw with Qt)."""
        from designer.gui.window import pictures
        from designer.io.atomic import atomic_write_bytes
        from designer.present.export import write_html

        w = self.window_
        drawn: list[Any] = []

        def panels() -> list[Any]:
            """The panel pictures, drawn once for the panel files and the HTML report."""
            if not drawn:
                drawn.append(pictures.panel_pngs(data))
            return drawn[0]

        on_screen = screen_colouring(w)
        for key in ("png", "panels", "html"):
            if key not in paths:
                continue
            progress.setLabelText(f"Writing the {_LABELS[key]}\u2026")
            progress.setValue(100 * step)
            QApplication.processEvents()
            path = paths[key]
            if key == "png":
                pic = pictures.canvas_png(design, w.catalog, width=self.width.value(), area=area,
                                          transparent=self.transparent.isChecked(),
                                          legend=self.legend.isChecked(), collapse=False, **on_screen)
                atomic_write_bytes(path, pic.png)
                written.append(str(path))
            elif key == "panels":
                path.mkdir(exist_ok=True)
                for p in panels():
                    atomic_write_bytes(path / f"{p.name}.png", p.png)
                    written.append(str(path / f"{p.name}.png"))
            else:
                canvas = pictures.canvas_png(design, w.catalog, width=1600, area=area, collapse=False, **on_screen)
                measured = getattr(w, "measured", None)
                write_html(data, path, canvas=canvas, panels=panels(),
                           measured=measured.doc if measured is not None else None)
                written.append(str(path))
            step += 1


def screen_colouring(window: MainWindow) -> dict[str, Any]:
    """The canvas' colouring as the window shows it, for the pictures: the links' utilisation when the
    heat-map (predicted or measured) is on, and the bottlenecks ringed; nothing when links show their medium."""
    from designer.gui.canvas.overlay import BOTTLENECK

    marks = window.scene.marks
    if marks.utilisation is None:
        return {}
    ids = list(marks.utilisation)
    return {"utilisation": (ids, [marks.utilisation[i] for i in ids]), "halo": sorted(marks.halo_ids(BOTTLENECK))}


def _dock_workload(window: MainWindow) -> str:
    """The workload preset chosen in the analysis dock, if any."""
    combo = getattr(getattr(window, "analysis", None), "workload", None)
    data = combo.currentData() if isinstance(combo, QComboBox) else None
    return data if isinstance(data, str) else ""


def show_export_dialog(window: MainWindow) -> ExportDialog:
    """Open File ▸ Export… (modal); returns the dialog (its ``written`` lists the files)."""
    dialog = ExportDialog(window)
    dialog.exec()
    return dialog


__all__ = ["OUTPUTS", "ExportDialog", "show_export_dialog"]
