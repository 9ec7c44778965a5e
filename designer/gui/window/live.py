"""The live analysis in the main window: panels, canvas overlay, failures, Analysis menu.

:func:`install_live` adds to a :class:`MainWindow` the pyqtgraph panels (docked at the bottom,
under the canvas), the Analysis menu (Live, Analyze, Cancel, utilisation overlay, the panels), the
canvas context menu (window/canvas_menu.py) and wires every result of the
runner to the panels and the overlay. Everything it draws is view state: nothing marks the design
modified except Fail / Restore, which are undoable edits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QObject, QPoint, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QComboBox, QDockWidget, QInputDialog, QLabel, QMenu, QMessageBox

from designer.gui import style
from designer.gui.canvas.overlay import BOTTLENECK, CUT, MEASURED
from designer.gui.panels.compare import ComparePanel
from designer.gui.panels.live_runner import LiveResult, waiting_text
from designer.gui.panels.plot_base import PlotPanel
from designer.gui.panels.plots import PANELS, BisectionPanel, BottlenecksPanel, CurvesPanel, UtilisationPanel
from designer.gui.panels.step_panel import StepPanel

if TYPE_CHECKING:
    from designer.gui.window.main_window import MainWindow

#: How many of the busiest links get a halo on the canvas while the overlay is on.
HALO_LINKS = 5


_P = TypeVar("_P", bound=PlotPanel)


def _panel(panels: dict[str, PlotPanel], key: str, kind: type[_P]) -> _P:
    """The panel ``key`` of ``panels``, typed as the class ``PANELS`` makes it with."""
    panel = panels[key]
    if not isinstance(panel, kind):
        raise TypeError(f"panel {key!r} is a {type(panel).__name__}, not a {kind.__name__}")
    return panel


class LiveAnalysis(QObject):
    """Owns the panels and the overlay of one window."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.w = window
        self.runner = window.runner
        #: the plot panels by their key in ``PANELS`` (dock names, the Analysis menu's order)
        self.panels: dict[str, PlotPanel] = {key: factory() for key, (_title, factory) in PANELS.items()}
        self.utilisation = _panel(self.panels, "utilisation", UtilisationPanel)
        self.curves = _panel(self.panels, "curves", CurvesPanel)
        self.bottlenecks = _panel(self.panels, "bottlenecks", BottlenecksPanel)
        self.bisection = _panel(self.panels, "bisection", BisectionPanel)
        self.step = _panel(self.panels, "step", StepPanel)
        self.compare = ComparePanel(window.document, window.runner)
        self.docks: dict[str, QDockWidget] = {}
        self.overlay_on = False
        #: Measured utilisation shown instead of the predicted one: (link ids, values), or None; and the
        #: links the measurements flag (a halo while it is shown).
        self.measured_marks: tuple[list[str], list[float]] | None = None
        self.measured_halo: list[str] = []
        self.result: LiveResult | None = None
        self._workload_raised = None
        self._serving_raised = None
        self._build_docks()
        self._build_actions()
        self._wire()

    # ------------------------------------------------------------------ construction
    def _build_docks(self) -> None:
        w = self.w
        w.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        w.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        widgets = {**self.panels, "compare": self.compare}
        titles = {key: title for key, (title, _f) in PANELS.items()} | {"compare": "Compare variants"}
        for key, widget in widgets.items():
            dock = QDockWidget(titles[key], w)
            dock.setObjectName(f"dock_{key}")
            dock.setWidget(widget)
            self.docks[key] = dock
            w.docks[key] = dock
        bottom = Qt.DockWidgetArea.BottomDockWidgetArea
        w.addDockWidget(bottom, self.docks["utilisation"])
        w.splitDockWidget(self.docks["utilisation"], self.docks["curves"], Qt.Orientation.Horizontal)
        w.tabifyDockWidget(self.docks["utilisation"], self.docks["bisection"])
        w.tabifyDockWidget(self.docks["utilisation"], self.docks["step"])
        w.tabifyDockWidget(self.docks["utilisation"], self.docks["serving"])
        w.tabifyDockWidget(self.docks["curves"], self.docks["bottlenecks"])
        w.tabifyDockWidget(self.docks["curves"], self.docks["compare"])
        self.docks["utilisation"].raise_()
        self.docks["curves"].raise_()

    def size_docks(self) -> None:
        """First-start sizes: the panels take about a third of the height, the canvas keeps the rest."""
        w = self.w
        height = max(180, int(w.height() * 0.32))
        w.resizeDocks([self.docks["utilisation"]], [height], Qt.Orientation.Vertical)
        # the side columns as designed (the bottom panels would otherwise squeeze the right one)
        right = min(340, max(290, int(w.width() * 0.24)))  # the bill's item, qty, price, total and power fit at 1280 px
        w.resizeDocks([w.docks["palette"], w.docks["inspector"]], [250, right], Qt.Orientation.Horizontal)

    def _build_actions(self) -> None:
        w = self.w
        acts = w.actions_by_name
        self.live_action = QAction("&Live Analysis", w)
        self.live_action.setCheckable(True)
        self.live_action.setChecked(self.runner.live)
        self.live_action.setShortcut(QKeySequence("Ctrl+Shift+L"))
        self.live_action.setStatusTip("Re-analyse after every edit (off: F5 analyses on demand)")
        self.live_action.toggled.connect(self.runner.set_live)
        self.cancel_action = QAction("&Cancel Analysis", w)
        self.cancel_action.setShortcut(QKeySequence("Ctrl+."))
        self.cancel_action.setStatusTip("Stop the analysis in progress")
        self.cancel_action.triggered.connect(self.runner.cancel)
        self.cancel_action.setEnabled(False)
        self.overlay_action = QAction("&Utilisation on Canvas", w)
        self.overlay_action.setCheckable(True)
        self.overlay_action.setShortcut(QKeySequence("Ctrl+Shift+U"))
        self.overlay_action.setStatusTip("Colour every link by its utilisation under the chosen traffic; the "
                                         "busiest links get a halo")
        self.overlay_action.toggled.connect(self.set_overlay)
        self.rule_marks_action = QAction("Design-Rule &Marks", w)
        self.rule_marks_action.setCheckable(True)
        self.rule_marks_action.setChecked(True)
        self.rule_marks_action.setShortcut(QKeySequence("Ctrl+Shift+M"))
        self.rule_marks_action.setStatusTip("Mark in red what breaks a design rule and in amber what deserves a look "
                                            "(hover says why); off hides the marks, not the findings")
        self.rule_marks_action.toggled.connect(w.scene.show_rule_marks)
        acts.update(live=self.live_action, cancel_analysis=self.cancel_action, overlay=self.overlay_action,
                    rule_marks=self.rule_marks_action)
        menu = QMenu("&Analysis", w)
        menu.addAction(acts["analyze"])
        menu.addAction(self.live_action)
        menu.addAction(self.cancel_action)
        menu.addSeparator()
        menu.addAction(self.overlay_action)
        menu.addSeparator()
        for key in ("analysis", *PANELS, "compare"):
            menu.addAction(w.docks[key].toggleViewAction())
        w.menuBar().insertMenu(w.menus["help"].menuAction(), menu)
        w.menus["analysis"] = menu
        self.menu = menu
        for key in (*PANELS, "compare"):
            w.view_menu.addAction(w.docks[key].toggleViewAction())
        w.view_menu.addSeparator()
        w.view_menu.addAction(self.overlay_action)
        w.view_menu.addAction(self.rule_marks_action)
        w.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        w.view.customContextMenuRequested.connect(self._on_view_context_menu)
        self._build_variant_actions()

    def _build_variant_actions(self) -> None:
        w = self.w
        doc = w.document
        new = QAction("New &Variant", w)
        new.setShortcut(QKeySequence("Ctrl+Alt+N"))
        new.setStatusTip("Duplicate the design as a named variant in this window, to change and compare")
        new.triggered.connect(lambda: self.new_variant())
        delete = QAction("Delete Variant\u2026", w)
        delete.setStatusTip("Remove the variant shown (the file keeps the others)")
        delete.triggered.connect(self.delete_variant)
        nxt = QAction("Next Variant", w)
        nxt.setShortcut(QKeySequence("Ctrl+PgDown"))
        nxt.triggered.connect(lambda: self.step_variant(1))
        prev = QAction("Previous Variant", w)
        prev.setShortcut(QKeySequence("Ctrl+PgUp"))
        prev.triggered.connect(lambda: self.step_variant(-1))
        w.actions_by_name.update(new_variant=new, delete_variant=delete, next_variant=nxt, previous_variant=prev)
        design_menu = w.menus["design"]
        design_menu.addSeparator()
        for a in (new, delete, nxt, prev):
            design_menu.addAction(a)
        self.variant_box = QComboBox()
        self.variant_box.setToolTip("The variant shown (Design \u25b8 New Variant; Ctrl+PgUp / Ctrl+PgDown)")
        self.variant_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.variant_box.activated.connect(doc.switch_variant)
        self.variant_label = QLabel("  Variant ")
        before = w.toolbar.actions()[-2] if len(w.toolbar.actions()) >= 2 else None  # ahead of the find box
        self._variant_actions = [w.toolbar.insertWidget(before, self.variant_label),
                                 w.toolbar.insertWidget(before, self.variant_box)]
        self.variant_actions = (new, delete, nxt, prev)
        doc.variants_changed.connect(self._on_document_variants_changed)
        self._on_document_variants_changed()

    def _wire(self) -> None:
        w, r = self.w, self.runner
        r.live_result.connect(self.show_result)
        r.result_ready.connect(self._on_runner_result_ready)
        r.live_changed.connect(self._on_runner_live_changed)
        r.started.connect(lambda: self.cancel_action.setEnabled(True))
        r.started.connect(self.say_waiting)
        r.reading.connect(lambda: self.cancel_action.setEnabled(True))
        r.reading.connect(self.say_waiting)
        r.stale.connect(self.say_waiting)
        r.cancelled.connect(self.say_waiting)
        r.slow.connect(self._on_runner_slow)
        self.utilisation.link_activated.connect(lambda lid: w.show_link(lid, centre=False))
        self.bottlenecks.link_activated.connect(lambda lid: w.show_link(lid, centre=False))
        self.bottlenecks.link_centred.connect(w.show_link)
        self.curves.size_chosen.connect(w.analysis.set_size)
        self.bisection.show_cut.connect(self.show_cut)
        w.analysis.selection_wanted.connect(self._on_analysis_selection_wanted)

    # ------------------------------------------------------------------ variants
    def new_variant(self, name: str | None = None) -> bool:
        """Duplicate the shown design as a new variant and show it (it is saved in the same file).

        Without ``name`` the user is asked for one (a suggestion is filled in).
        """
        doc = self.w.document
        if name is None:
            suggestion = f"{doc.design.name or 'Design'} (variant)"
            ask = QInputDialog(self.w)
            ask.setWindowTitle("New variant")
            ask.setLabelText("Name of the new variant:")
            ask.setTextValue(suggestion)
            ask.resize(max(440, ask.fontMetrics().horizontalAdvance(suggestion) + 120), ask.sizeHint().height())
            if not ask.exec():
                return False
            name = ask.textValue()
        design = doc.new_variant(name.strip() or None)
        self.docks["compare"].show()
        self.docks["compare"].raise_()
        self.w.statusBar().showMessage(f"new variant {design.name!r}: edit it freely (it has its own undo "
                                       "history); the Compare panel sets the variants side by side", 8000)
        return True

    def delete_variant(self) -> bool:
        doc = self.w.document
        if len(doc.variants) < 2:
            self.w.statusBar().showMessage("the only design of a file cannot be deleted", 5000)
            return False
        name = doc.variant_names()[doc.active_variant()]
        answer = QMessageBox.question(self.w, "Delete variant", f"Delete the variant {name!r} from this design?",
                                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                                      QMessageBox.StandardButton.Cancel)
        if answer != QMessageBox.StandardButton.Yes:
            return False
        doc.remove_variant(doc.active_variant())
        return True

    def step_variant(self, step: int) -> None:
        doc = self.w.document
        if len(doc.variants) > 1:
            doc.switch_variant((doc.active_variant() + step) % len(doc.variants))

    def _on_document_variants_changed(self) -> None:
        doc = self.w.document
        box = self.variant_box
        box.blockSignals(True)
        box.clear()
        box.addItems(doc.variant_names())
        box.setCurrentIndex(doc.active_variant())
        box.blockSignals(False)
        many = len(doc.variants) > 1
        for a in self._variant_actions:
            a.setVisible(many)
        for a in self.variant_actions[1:]:
            a.setEnabled(many)
        self.w._update_title()

    # ------------------------------------------------------------------ results
    def show_result(self, result: LiveResult | None) -> None:
        """Give a result to every panel and, when on, the canvas overlay."""
        workload = result.traffic.workload if result is not None else None
        if workload is not None and workload != self._workload_raised:
            self.docks["step"].show()  # a workload was just chosen: show what it is for
            self.docks["step"].raise_()
            self._workload_raised = workload
        serving = result.traffic.serving if result is not None else None
        if serving is not None and serving != self._serving_raised:
            self.docks["serving"].show()
            self.docks["serving"].raise_()
            self._serving_raised = serving
        self.result = result
        for panel in self.panels.values():
            panel.show_result(result)
        if result is None:
            self.say_waiting()
        self.cancel_action.setEnabled(False)
        self._update_marks()

    def say_waiting(self) -> None:
        """Panels without a result say whether the analysis is computing, or how to start it; the
        step panel names the workload chosen, also while a result for another one is shown."""
        w = self.w
        chosen = {"step": self.runner.traffic.workload, "serving": self.runner.traffic.serving}
        if self.result is None:
            for key, panel in self.panels.items():
                name = chosen[key].name if chosen.get(key) is not None else ""
                panel.set_info(waiting_text(self.runner, w.document.design, name))
            return
        shown = {"step": self.result.traffic.workload, "serving": self.result.traffic.serving}
        for key, workload in chosen.items():
            if workload is not None and workload != shown[key]:
                self.panels[key].set_info(waiting_text(self.runner, w.document.design, workload.name))

    def _on_runner_result_ready(self, report: object) -> None:
        if report is None:
            self.show_result(None)

    def _on_runner_live_changed(self, on: bool, why: str) -> None:
        self.live_action.blockSignals(True)
        self.live_action.setChecked(on)
        self.live_action.blockSignals(False)
        if why:
            self.w.statusBar().showMessage(why, 12000)

    def _on_runner_slow(self, slow: bool) -> None:
        self.cancel_action.setEnabled(slow or self.runner.running)
        if slow:
            self.w.docks["analysis"].show()

    # ------------------------------------------------------------------ canvas marks (view state)
    def set_overlay(self, on: bool) -> None:
        """Colour links by utilisation (on) or by medium (off)."""
        self.overlay_on = on
        if self.overlay_action.isChecked() != on:
            self.overlay_action.setChecked(on)
        self.w.legend.set_utilisation_scale(on or self.measured_marks is not None)
        self._update_marks()

    def set_measured_marks(self, marks: tuple[list[str], list[float]] | None, halo: list[str] = ()) -> None:
        """Colour links by their measured utilisation (the second heat-map mode), ``halo`` the links the
        measurements flag; None: back to the predicted one (if on) or the media. The predicted overlay and
        this one exclude each other."""
        self.measured_marks = marks
        self.measured_halo = list(halo) if marks is not None else []
        if marks is not None and self.overlay_on:
            self.set_overlay(False)
        self.w.legend.set_utilisation_scale(self.overlay_on or marks is not None)
        self._update_marks()

    def _update_marks(self) -> None:
        marks = self.w.scene.marks
        rep = self.result.report if self.result is not None else None
        if self.overlay_on and rep is not None:
            marks.set_utilisation(rep.links.ids, rep.links.utilization)
            marks.set_halo(BOTTLENECK, [b.link for b in rep.bottlenecks[:HALO_LINKS]], style.BOTTLENECK_HALO)
        elif self.measured_marks is not None:
            marks.set_utilisation(*self.measured_marks, measured=True)
            marks.set_halo(BOTTLENECK, (), style.BOTTLENECK_HALO)
        else:
            marks.set_utilisation(None)
            marks.set_halo(BOTTLENECK, (), style.BOTTLENECK_HALO)
        shown = self.measured_marks is not None and not self.overlay_on
        marks.set_halo(MEASURED, self.measured_halo if shown else (), style.MEASURED_HALO)
        if self.bisection.cut_button.isChecked() and rep is not None:
            marks.set_halo(CUT, rep.bisection.cut_links, style.CUT_HALO)
        else:
            marks.set_halo(CUT, (), style.CUT_HALO)
        self.w.scene.restyle_links()

    def show_cut(self, on: bool) -> None:
        """Highlight the links of the bisection's cut on the canvas."""
        self._update_marks()
        if on and self.result is not None:
            cut = self.result.report.bisection.cut_links
            self.w.statusBar().showMessage(f"the cut: {len(cut):,} links highlighted", 6000)

    # ------------------------------------------------------------------ participants
    def _on_analysis_selection_wanted(self) -> None:
        self.w.analysis.set_selected_gpus(self.selected_gpus())

    def selected_gpus(self) -> list[str]:
        """GPUs in the canvas selection: selected GPUs, and every GPU inside selected devices' groups."""
        d = self.w.document.design
        scene = self.w.scene
        out: list[str] = []
        for did in scene.selected_device_ids():
            dev = d.device(did)
            if dev.kind == "gpu":
                out.append(did)
        for gid in scene.selected_group_ids():
            out.extend(dev.id for dev in d.all_members(gid) if dev.kind == "gpu")
        return list(dict.fromkeys(out))

    # ------------------------------------------------------------------ the canvas menu
    def _on_view_context_menu(self, pos: QPoint) -> None:
        menu = self.context_menu(pos)
        if menu is not None:
            menu.exec(self.w.view.viewport().mapToGlobal(pos))

    def context_menu(self, pos: QPoint) -> QMenu | None:
        """The canvas menu for what is under ``pos`` (viewport coordinates)."""
        from designer.gui.window.canvas_menu import canvas_menu

        return canvas_menu(self.w, pos)


def install_live(window: MainWindow) -> LiveAnalysis:
    """Add the live analysis (panels, overlay, Analysis menu, failures) to ``window``."""
    return LiveAnalysis(window)
