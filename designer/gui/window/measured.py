"""Measurements in the window: load nccl-tests logs and port counters, see them against the design.

Analysis ▸ Load Measurements… reads any mix of nccl-tests logs and counter snapshots (the format is found
from each file; two or more counter files are samples of the same ports, earliest first). The Measured
panel lists each run's verdicts and likely reasons and the counters' findings, each with a one-click Fail
(the failure what-if); Analysis ▸ Measured Utilisation on Canvas colours links by their measured use (the
second heat-map mode, exclusive with the predicted one); the collective-curves panel plots the measured
points over the predicted curves; File ▸ Export… adds the "Measured against predicted" section to the HTML
report. Everything here is view state: the design is not changed except by Fail, an undoable edit.
"""

from __future__ import annotations

import os
from pathlib import PurePath
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QDockWidget, QFileDialog, QInputDialog

from designer.gui.panels.measured_panel import MeasuredPanel
from designer.model import DesignError

if TYPE_CHECKING:
    from designer.gui.window.main_window import MainWindow


class MeasuredView(QObject):
    """The measurements loaded in one window and what shows them."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.w = window
        self.doc: dict | None = None
        self.panel = MeasuredPanel()
        self.panel.fail_requested.connect(self._on_fail_requested)
        self.panel.link_chosen.connect(self._on_link_chosen)
        dock = QDockWidget("Measured", window)
        dock.setObjectName("dock_measured")
        dock.setWidget(self.panel)
        window.docks["measured"] = dock
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        window.tabifyDockWidget(window.docks["curves"], dock)
        dock.hide()
        self.dock = dock
        self.load_action = QAction("Load &Measurements\u2026", window)
        self.load_action.setShortcut(QKeySequence("Ctrl+Alt+M"))
        self.load_action.setStatusTip("Read nccl-tests logs and port-counter snapshots of the real cluster and hold "
                                      "them against the design")
        self.load_action.triggered.connect(self.choose_files)
        self.overlay_action = QAction("&Measured Utilisation on Canvas", window)
        self.overlay_action.setCheckable(True)
        self.overlay_action.setEnabled(False)
        self.overlay_action.setStatusTip("Colour every link by its measured use (port counters) instead of the "
                                         "predicted one")
        self.overlay_action.toggled.connect(self.set_overlay)
        self.clear_action = QAction("C&lear Measurements", window)
        self.clear_action.setEnabled(False)
        self.clear_action.triggered.connect(self.clear)
        window.live.overlay_action.toggled.connect(self._on_predicted_overlay)
        window.document.design_replaced.connect(self._on_design_replaced)
        menu = window.live.menu
        menu.addSeparator()
        for a in (self.load_action, self.overlay_action, self.clear_action, dock.toggleViewAction()):
            menu.addAction(a)
        window.actions_by_name.update(load_measurements=self.load_action, measured_overlay=self.overlay_action,
                                      clear_measurements=self.clear_action)

    # ------------------------------------------------------------------ loading
    def choose_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self.w, "Load measurements (nccl-tests logs, port counters)")
        if not paths:
            return
        try:
            self.load(paths, ask_interval=self._ask_interval)
        except DesignError as e:
            self.w.show_error("Cannot load measurements", str(e))

    def _ask_interval(self, two: bool) -> float | None:
        label = ("Seconds between the two counter samples (they carry no time stamps):" if two else
                 "One counter sample: seconds since the counters were reset:")
        QApplication.restoreOverrideCursor()
        try:
            value, ok = QInputDialog.getDouble(self.w, "Counter interval", label, 60.0, 0.001, 1e9, 3)
        finally:
            QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        return value if ok else None

    def load(self, paths: list[str], interval: float | None = None, ask_interval=None) -> None:  # noqa: ANN001
        """Read ``paths`` (logs and counter files, any mix), compare with the design shown, show the result.

        ``interval``: the seconds of the counter samples when they carry no time stamps (else
        ``ask_interval(two_samples)`` is asked; None from it cancels). Errors are :class:`DesignError`.
        """
        from designer.io.measured import MeasuredFileError
        from designer.io.measured.counters import read_counters
        from designer.io.measured.nccl_tests import read_nccl_tests

        runs, samples = [], []
        for path in paths:
            try:
                runs += read_nccl_tests(path)
            except MeasuredFileError as log_error:
                try:
                    samples.append((path, read_counters(path)))
                except MeasuredFileError as counter_error:
                    looks_like_log = "nthread" in str(log_error).lower() or "line" in str(log_error)
                    raise (log_error if looks_like_log else counter_error) from None
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)  # a large design takes seconds to route
        try:
            self._compute(runs, samples, interval, ask_interval)
        finally:
            QApplication.restoreOverrideCursor()

    def _compute(self, runs: list, samples: list, interval: float | None, ask_interval) -> None:  # noqa: ANN001
        from designer.analysis.fabric.context import build_context
        from designer.analysis.measured.compare import compare_run
        from designer.analysis.measured.ports import map_ports, port_uses
        from designer.analysis.measured.reasons import counter_reasons, likely_reasons
        from designer.present.measured_json import compare_to_dict, counters_to_dict

        design = self.w.document.design
        fabric = None
        if samples:
            samples.sort(key=lambda s: (max((c.time_s or 0.0) for c in s[1]), os.path.getmtime(s[0])))
            after = samples[-1][1]
            before = [c for _, cs in samples[:-1] for c in cs] if len(samples) > 1 else None
            stamped = all(c.time_s is not None for _, cs in samples for c in cs)
            if interval is None and not stamped and any("xmit_data" in c.values for c in after):
                interval = ask_interval(before is not None) if ask_interval is not None else None
                if interval is None:
                    return
            uses, seconds, notes = port_uses(after, before, interval)
            fabric = map_ports(design, uses, self.w.catalog, seconds, notes)
        done = []
        if runs:
            ctx = build_context(design, self.w.catalog)
            for r in runs:
                comp = compare_run(ctx, r)
                done.append((comp, counter_reasons(ctx, comp, fabric) + likely_reasons(ctx, comp)))
        extra = {"counters": counters_to_dict(fabric)} if fabric is not None else {}
        path = self.w.document.path
        self.show(compare_to_dict(str(path) if path is not None else design.name, done, extra))

    # ------------------------------------------------------------------ showing
    def show(self, doc: dict | None) -> None:
        self.doc = doc
        self.panel.show_measurements(doc)
        has_links = bool(doc and doc.get("counters") and doc["counters"]["links"])
        self.overlay_action.setEnabled(has_links)
        self.clear_action.setEnabled(doc is not None)
        curves = []
        for run in (doc or {}).get("runs", []):
            s = run["sizes"]
            curves.append((run["collective"], f"{PurePath(run['source']).name}:{run['line']}",
                           np.array([x["size"] for x in s], dtype=float),
                           np.array([x["measured_busbw"] for x in s], dtype=float),
                           np.array([x["measured_time_s"] for x in s], dtype=float)))
        self.w.live.panels["curves"].set_measured(curves)
        if doc is not None:
            self._time_the_first_run(doc)
            self.dock.show()
            self.dock.raise_()
            if has_links and not self.w.live.overlay_on:
                self.overlay_action.setChecked(True)
        if not has_links and self.overlay_action.isChecked():
            self.overlay_action.setChecked(False)
        elif self.overlay_action.isChecked():
            self.set_overlay(True)

    def _time_the_first_run(self, doc: dict) -> None:
        """Have the live analysis time what the first run measured (its collective, on its GPUs), so the
        curves panel draws the measured points over the prediction of the same thing."""
        from designer.analysis.collectives.names import COLLECTIVES

        run = next((r for r in doc.get("runs", []) if r["collective"] in COLLECTIVES), None)
        if run is None:
            return
        dock = self.w.analysis
        i = dock.collective.findData(run["collective"])
        if i >= 0:
            dock.collective.setCurrentIndex(i)
        dock.set_selected_gpus(list(run["gpus"]))

    def clear(self) -> None:
        self.show(None)
        self.w.statusBar().showMessage("measurements cleared", 4000)

    def set_overlay(self, on: bool) -> None:
        """The second heat-map mode: links coloured by their measured utilisation."""
        if on and self.doc and self.doc.get("counters"):
            links = self.doc["counters"]["links"]
            design = self.w.document.design
            known = [u for u in links if design.has_link(u["link"])]
            flagged = [lid for f in self.doc["counters"]["findings"] for lid in f["links"] if design.has_link(lid)]
            self.w.live.set_measured_marks(([u["link"] for u in known], [u["utilisation"] for u in known]),
                                           flagged)
        else:
            self.w.live.set_measured_marks(None)

    def _on_design_replaced(self, _design: object) -> None:
        """Measurements were held against the design shown before: another one forgets them."""
        if self.doc is not None:
            self.show(None)
            self.w.statusBar().showMessage("measurements cleared: they were compared with the design shown before "
                                           "(Analysis ▸ Load Measurements… again for this one)", 8000)

    def _on_predicted_overlay(self, on: bool) -> None:
        if on and self.overlay_action.isChecked():
            self.overlay_action.setChecked(False)

    def _on_link_chosen(self, link_id: str) -> None:
        if self.w.document.design.has_link(link_id):
            self.w.show_link(link_id)

    def _on_fail_requested(self, links: list[str], what: str) -> None:
        self.w.editor.set_failed(links, True, what)


def install_measured(window: MainWindow) -> MeasuredView:
    """Add Load Measurements, the Measured panel and the measured heat-map mode to ``window``."""
    return MeasuredView(window)
