"""Sweeps in the window: File ▸ Open Sweep Point…, and the Pareto pictures of ``topo-designer sweep-report``.

- :func:`open_sweep_point`: choose a results file (CSV or Parquet), pick a point in a table of its
  parameters and figures (Pareto points first), and the window shows that point's design, rebuilt
  by its generator from the point's parameters (unsaved, so closing asks where to keep it).
- :func:`pareto_pngs`: one PNG per Pareto series (:func:`designer.present.sweep_report.pareto_series`),
  drawn by pyqtgraph with the analysis panels' look, offscreen when there is no display.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from designer.model import DesignError

if TYPE_CHECKING:
    from designer.gui.window.main_window import MainWindow
    from designer.present.export import Picture
    from designer.present.sweep_report import Series

RESULTS_FILTER = "Sweep results (*.csv *.parquet);;All files (*)"
#: Size of a Pareto picture, pixels.
PARETO_SIZE_PX = (900, 560)


class PointDialog(QDialog):
    """A table of a sweep's points: number, parameters, status, cost, time, Pareto; double-click opens."""

    def __init__(self, parent: Any, path: str, cols: Sequence[Any], rows: Sequence[dict[str, Any]]) -> None:
        from designer.present.sweep_report import cell_text, param_names
        from designer.sweep.results import pareto_axes

        super().__init__(parent)
        self.setWindowTitle(f"Open sweep point \u2014 {Path(path).name}")
        self.rows = sorted(rows, key=lambda r: (not r.get("pareto"), r.get("point") or 0))
        params = param_names(cols)
        axes = pareto_axes([c.name for c in cols]) or ()
        heads = ["point", *params, *(["workload"] if any(c.name == "workload" for c in cols) else []),
                 "status", *axes, "Pareto"]
        self.table = QTableWidget(len(self.rows), len(heads))
        self.table.setHorizontalHeaderLabels(heads)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        for i, r in enumerate(self.rows):
            values = [str(r.get("point")), *(cell_text(p, r.get(p)) for p in params)]
            if "workload" in heads:
                values.append(r.get("workload") or "")
            values.append(r.get("status") or "" if r.get("status") == "ok" else
                          f"{r.get('status')}: {r.get('error') or ''}")
            values += [cell_text(a, r.get(a)) for a in axes]
            values.append("yes" if r.get("pareto") else "")
            for j, v in enumerate(values):
                self.table.setItem(i, j, QTableWidgetItem(v))
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        if self.rows:
            self.table.selectRow(0)
        self.table.doubleClicked.connect(lambda _i: self.accept())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Open | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("Points on the Pareto front come first. The design is rebuilt from the point's "
                             "parameters by its generator."))
        lay.addWidget(self.table)
        lay.addWidget(buttons)
        self.resize(900, 520)

    def chosen(self) -> dict[str, Any] | None:
        rows = self.table.selectionModel().selectedRows()
        return self.rows[rows[0].row()] if rows else None


def open_sweep_point(window: MainWindow, path: str | None = None, point: int | None = None) -> bool:
    """File ▸ Open Sweep Point…: a results file, a point, and its design in the window (unsaved)."""
    from designer.gui.window.main_window import last_folder
    from designer.sweep.evaluate import design_of
    from designer.sweep.results import read_results

    if path is None:
        path, _ = QFileDialog.getOpenFileName(window, "Open sweep results", last_folder(), RESULTS_FILTER)
        if not path:
            return False
    try:
        cols, rows = read_results(path)
        if point is None:
            dialog = PointDialog(window, path, cols, rows)
            if dialog.exec() != QDialog.DialogCode.Accepted:
                return False
            row = dialog.chosen()
        else:
            row = next((r for r in rows if r.get("point") == point), None)
        if row is None:
            return False
        design = design_of(row, window.catalog)
    except DesignError as e:
        window.show_error("Cannot open the sweep point", str(e))
        return False
    # like an import: the design shown is replaced as one undo step, unsaved and without a file name
    window.document.replace(design, None, f"Open sweep point {row.get('point')}")
    window.statusBar().showMessage(f"opened point {row.get('point')} of {path}", 5000)
    return True


def pareto_pngs(series: Sequence[Series], size: tuple[int, int] = PARETO_SIZE_PX) -> list[Picture]:
    """One PNG per series: every point in grey, the front in blue joined by a line."""
    import numpy as np
    import pyqtgraph as pg
    import pyqtgraph.exporters as pg_exporters

    from designer.gui.panels.plot_base import plot_pen
    from designer.gui.window.pictures import _png_size, ensure_application
    from designer.present.export import Picture

    app = ensure_application(quiet=True)
    out: list[Picture] = []
    with tempfile.TemporaryDirectory(prefix="topo-sweep-") as tmp:
        for k, s in enumerate(series):
            widget = pg.PlotWidget()
            try:
                widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
                widget.resize(*size)
                widget.showGrid(x=True, y=True, alpha=0.25)
                item = widget.getPlotItem()
                item.hideButtons()
                item.setTitle(s.title)
                item.setLabel("bottom", s.x_label)
                item.setLabel("left", s.y_label)
                item.getViewBox().setDefaultPadding(0.06)
                x, y, front = np.array(s.x), np.array(s.y), np.array(s.front, dtype=bool)
                widget.plot(x[~front], y[~front], pen=None, symbol="o", symbolSize=7, symbolBrush="#9AA3AE",
                            symbolPen=None, name="other points")
                order = np.argsort(x[front], kind="stable")
                widget.plot(x[front][order], y[front][order], pen=plot_pen("#1E6FD9", 2.0), symbol="o",
                            symbolSize=9, symbolBrush="#1E6FD9", symbolPen="w")
                widget.show()
                app.processEvents()
                path = Path(tmp) / f"pareto{k}.png"
                exporter = pg_exporters.ImageExporter(item)
                exporter.parameters()["width"] = size[0]
                exporter.export(str(path))
                png = path.read_bytes()
                w, h = _png_size(png)
                out.append(Picture(s.title, png, w, h, f"pareto{k}"))
            finally:
                widget.close()
                widget.deleteLater()
    app.processEvents()
    return out


__all__ = ["PointDialog", "open_sweep_point", "pareto_pngs"]
