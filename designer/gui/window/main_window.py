"""The main window: canvas in the centre, palette / inspector / analysis / overview docks,
menus and toolbar, file handling (open, save, recent files, drops, autosave and recovery)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF, QRect, QRectF, QSettings, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QApplication,
    QCompleter,
    QDockWidget,
    QFileDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QScrollArea,
    QTabBar,
    QWidget,
)

from designer.gui.canvas.checks import RuleChecker, rules_summary
from designer.gui.canvas.editor import MIME_COMPONENT, MIME_SERVER, MIME_TEMPLATE, Editor
from designer.gui.canvas.scene import DesignScene
from designer.gui.canvas.view import DesignView
from designer.gui.document.document import Document, auto_collapse
from designer.gui.document.feed import DesignFeed
from designer.gui.document.recovery import Recovery
from designer.gui.panels.analysis_dock import AnalysisDock, AnalysisRunner
from designer.gui.panels.bom_dock import BomDock
from designer.gui.panels.generate_dialog import GenerateDialog, server_presets
from designer.gui.panels.inspector import Inspector
from designer.gui.panels.legend import Legend
from designer.gui.panels.overview import Overview
from designer.gui.panels.palette import Palette
from designer.gui.window.background import Cancelled, open_design, save_document
from designer.model import Design, DesignError, units
from designer.model.catalog import Catalog

APP_NAME = "Topology Designer"
MAX_RECENT = 10
FILE_FILTER = "Topology designs (*.json *.topo);;All files (*)"
_WINDOWS: list[MainWindow] = []


#: The window's size at first start, on a screen that holds it.
FIRST_START_SIZE = (1440, 900)


def first_start_size(available: QRect | None) -> tuple[int, int]:
    """The first-start size, shrunk to the screen's free area on a smaller screen (1280x800), so
    nothing is cut off; the canvas keeps at least half the width at either size."""
    w, h = FIRST_START_SIZE
    if available is None or available.isEmpty():
        return w, h
    return min(w, available.width()), min(h, available.height())


def last_folder() -> str:
    """Where file dialogs start: the folder of the last file opened, saved or imported."""
    folder = QSettings().value("last_folder", "")
    return str(folder) if folder and Path(str(folder)).is_dir() else str(Path.home())


def remember_folder(path: str) -> None:
    QSettings().setValue("last_folder", str(Path(path).resolve().parent))


class MainWindow(QMainWindow):
    """One design in one window."""

    def __init__(self, catalog: Catalog, recovery_dir: Path | None = None, autosave_ms: int | None = None) -> None:
        super().__init__()
        self.catalog = catalog
        self.document = Document(catalog, self)
        self.scene = DesignScene(catalog, self)
        self.scene.set_design(self.document.design)
        self.editor = Editor(self.document, self.scene)
        self.view = DesignView(self.scene, self.editor)
        self.setCentralWidget(self.view)
        self.feed = DesignFeed(self.document)  # before every consumer: it hears each edit first
        self.checker = RuleChecker(self.document, self.scene, self.feed)
        self.runner = AnalysisRunner(self.document, self.feed)
        kwargs = {} if autosave_ms is None else {"interval_ms": autosave_ms}
        self.recovery = Recovery(self.document, recovery_dir, feed=self.feed, **kwargs)
        self._build_docks()
        #: the menu bar's menus by name ("file", "edit", "view", "design", "analysis", "help")
        self.menus: dict[str, QMenu] = {}
        self.actions_by_name = self._build_actions()
        from designer.gui.window.live import install_live

        self.live = install_live(self)
        from designer.gui.window.measured import install_measured

        self.measured = install_measured(self)
        self._build_status()
        self._design: Design | None = None
        self.document.design_replaced.connect(self._on_document_design_replaced)
        self.document.modified_changed.connect(self._on_document_modified_changed)
        self.document.path_changed.connect(self._on_document_path_changed)
        self.editor.message.connect(self._on_editor_message)
        # queued: the drop finishes before a "save changes?" question may appear
        self.editor.file_dropped.connect(self.open_dropped, Qt.ConnectionType.QueuedConnection)
        self.checker.checked.connect(self._on_checker_checked)
        self.checker.stale.connect(self._on_checker_stale)
        self.checker.checking.connect(lambda: self.rules_label.setText("design rules: checking\u2026"))
        self.view.zoom_changed.connect(self._on_view_zoom_changed)
        self.setAcceptDrops(True)
        self.resize(*first_start_size(self.screen().availableGeometry() if self.screen() else None))
        self._update_title()
        self._update_recent_menu()
        _WINDOWS.append(self)

    # ------------------------------------------------------------------ construction
    def _build_docks(self) -> None:
        self.palette = Palette(self.catalog, lambda: server_presets(self.catalog))
        self.palette.activated.connect(self._on_palette_activated)
        self.palette.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.inspector = Inspector(self.document, self.scene, lambda t: self.statusBar().showMessage(t, 6000))
        self.analysis = AnalysisDock(self.document, self.runner)
        self.inspector.link_activated.connect(self.show_link)
        self.overview = Overview(self.scene, self.view)
        self.legend = Legend()
        self.bom = BomDock(self.document, self.feed)
        self.docks: dict[str, QDockWidget] = {}
        for key, title, widget, area in (
            ("palette", "Palette", self.palette, Qt.DockWidgetArea.LeftDockWidgetArea),
            ("legend", "Legend", self.legend, Qt.DockWidgetArea.LeftDockWidgetArea),
            ("inspector", "Inspector", self.inspector, Qt.DockWidgetArea.RightDockWidgetArea),
            ("overview", "Overview", self.overview, Qt.DockWidgetArea.RightDockWidgetArea),
            ("analysis", "Analysis", self.analysis, Qt.DockWidgetArea.RightDockWidgetArea),
            ("bom", "Bill of Materials", self.bom, Qt.DockWidgetArea.RightDockWidgetArea),
        ):
            dock = QDockWidget(title, self)
            dock.setObjectName(f"dock_{key}")
            if key in ("inspector", "analysis"):
                # The inspector's pages (device, link, group, design) are tall: scroll rather than crowd
                # the analysis out of the right-hand column; the analysis' figures scroll rather than
                # being cut when the column is short (1280 x 800).
                scroll = QScrollArea()
                scroll.setWidgetResizable(True)
                scroll.setFrameShape(QScrollArea.Shape.NoFrame)
                scroll.setWidget(widget)
                widget = scroll
            dock.setWidget(widget)
            self.addDockWidget(area, dock)
            self.docks[key] = dock
        # The bill of materials shares the analysis dock's place: the canvas keeps its width.
        self.tabifyDockWidget(self.docks["analysis"], self.docks["bom"])
        self.docks["analysis"].raise_()
        self.resizeDocks([self.docks["palette"], self.docks["inspector"]], [270, 320], Qt.Orientation.Horizontal)
        self.resizeDocks([self.docks["palette"], self.docks["legend"]], [560, 200], Qt.Orientation.Vertical)

    def _build_actions(self) -> dict:
        from designer.gui.window.actions import build_actions

        acts = build_actions(self)
        for dock in self.docks.values():
            self.view_menu.addAction(dock.toggleViewAction())
        self.find_box = QLineEdit()
        self.find_box.setPlaceholderText("Find device\u2026  (Ctrl+F)")
        self.find_box.setClearButtonEnabled(True)
        self.find_box.setMaximumWidth(240)
        self.find_box.returnPressed.connect(lambda: self.find_device(self.find_box.text()))
        spacer = QWidget()
        spacer.setSizePolicy(spacer.sizePolicy().horizontalPolicy().Expanding, spacer.sizePolicy().verticalPolicy())
        self.toolbar.addWidget(spacer)
        self.toolbar.addWidget(self.find_box)
        return acts

    def _build_status(self) -> None:
        self.rules_label = QLabel("design rules: checking\u2026")
        self.zoom_label = QLabel("100%")
        self.count_label = QLabel("")
        for w in (self.count_label, self.rules_label, self.zoom_label):
            self.statusBar().addPermanentWidget(w)

    # ------------------------------------------------------------------ state display
    def _on_document_modified_changed(self, modified: bool) -> None:
        self._update_title()

    def _on_document_path_changed(self, path: str) -> None:
        self._update_title()

    def _on_editor_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 6000)

    def _on_view_zoom_changed(self, zoom: float) -> None:
        self.zoom_label.setText(f"{zoom:.0%}")

    def _on_checker_stale(self) -> None:
        self.rules_label.setText("design rules: F7 to check (large design)")

    def _update_title(self) -> None:
        doc = self.document
        variant = ""
        if len(doc.variants) > 1:
            variant = f" \u2014 {doc.variant_names()[doc.active_variant()]}"
        self.setWindowTitle(f"{doc.display_name()}{variant}[*] \u2014 {APP_NAME}")
        self.setWindowModified(self.document.is_modified())

    def _on_document_design_replaced(self, design: Design) -> None:
        if self._design is not None:
            self._design.changed.disconnect(self._update_counts)
        self._design = design
        self.scene.set_design(design)
        self.view.zoom_to_fit()
        self.find_box.setCompleter(None)
        self.find_box.clear()  # a name of the last design means nothing here
        self._update_title()
        design.changed.connect(self._update_counts)
        self._update_counts()

    def _update_counts(self) -> None:
        d = self.document.design
        gpus = self.document.device_kinds()["gpu"]
        self.count_label.setText(" \u00b7 ".join(
            (units.count(gpus, "GPU"), units.count(d.device_count(), "device"), units.count(d.link_count(), "link"))))

    def _on_checker_checked(self, errors: int, warnings: int) -> None:
        self.rules_label.setText(rules_summary(errors, warnings))
        self.inspector.refresh_rules()  # the Rules row follows the check, not only the selection

    # ------------------------------------------------------------------ files
    def maybe_save(self) -> bool:
        """Ask to save unsaved changes; False when the user cancels."""
        self.inspector.commit_pending()  # a name still being typed counts as a change
        if not self.document.is_modified():
            return True
        answer = QMessageBox.question(
            self,
            APP_NAME,
            f"Save changes to {self.document.display_name()}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def showEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        if not getattr(self, "_docks_sized", False):
            self._docks_sized = True
            state = QSettings().value("window/state")
            if state is not None and self.restoreState(state):
                self.hide_stale_tab_bars()
                return  # the user's own arrangement from the last session
            # The analysis is what the window exists for: give it the most room on the right
            # (dock sizes only take once the window has its real size).
            right = [self.docks["inspector"], self.docks["overview"], self.docks["analysis"]]
            height = max(600, self.height() - 120)
            self.resizeDocks(right, [int(height * 0.3), int(height * 0.18), int(height * 0.52)],
                             Qt.Orientation.Vertical)
            self.live.size_docks()
            self.hide_stale_tab_bars()

    def hide_stale_tab_bars(self) -> None:
        """Hide the dock tab bars Qt leaves behind when docks are tabified one by one: a bar whose tabs
        another bar also holds, with more, was drawn over the panels with cut labels ("Utilisat...")."""
        bars = [b for b in self.findChildren(QTabBar) if b.parent() is self and b.isVisible()]
        tabs = {b: [b.tabText(i) for i in range(b.count())] for b in bars}
        for bar in bars:
            if any(o is not bar and len(tabs[o]) > len(tabs[bar]) and set(tabs[bar]) <= set(tabs[o])
                   for o in bars):
                bar.hide()

    def show_error(self, title: str, message: str) -> None:
        QMessageBox.critical(self, title, message)

    def new_design(self) -> None:
        if self.maybe_save():
            self.recovery.discard()
            self.document.new()

    def new_window(self) -> MainWindow:
        w = MainWindow(self.catalog, self.recovery.directory)
        w.show()
        return w

    def open_dialog(self) -> None:
        """Ask about unsaved changes first, then for the file (a question after the pick would
        come too late to change one's mind about which file)."""
        if not self.maybe_save():
            return
        path, _ = QFileDialog.getOpenFileName(self, "Open design", last_folder(), FILE_FILTER)
        if path:
            self.open_path(path, asked=True)

    def open_path(self, path: str, asked: bool = False) -> bool:
        """Open a design file here; on error show the exact problem and keep the current design.
        ``asked``: the user already answered the save-changes question."""
        if not asked and not self.maybe_save():
            return False
        try:
            open_design(self, self.document, path)
        except Cancelled:
            self.statusBar().showMessage(f"opening {path} cancelled", 5000)
            return False
        except DesignError as e:
            self.show_error("Cannot open design", str(e))
            if not Path(path).exists():
                self._remove_recent(path)  # a moved or deleted file: do not offer it again
            return False
        self.recovery.discard()
        self._add_recent(str(self.document.path))
        remember_folder(path)
        self.statusBar().showMessage(f"opened {path}", 5000)
        return True

    def save(self) -> bool:
        self.inspector.commit_pending()  # Ctrl+S leaves the focus in the field: save what it shows
        if self.document.path is None:
            return self.save_as()
        return self._save_to(self.document.path)

    def save_as(self) -> bool:
        self.inspector.commit_pending()
        start = str(self.document.path or Path(last_folder()) / f"{self.document.design.name or 'design'}.json")
        path, _ = QFileDialog.getSaveFileName(self, "Save design", start, FILE_FILTER)
        if not path:
            return False
        target = Path(path)
        if not target.suffix:  # "fabric" typed in the dialog: save fabric.json, which Open and drops find
            target = target.with_name(target.name + ".json")
        main = self.document.variants[0]
        untitled = main.name if main.name in ("", Design().name) else None
        if untitled is not None:  # an untitled design takes the file's name, if it is saved
            main.set_design_field("name", target.stem)
        if not self._save_to(target):
            if untitled is not None:
                main.set_design_field("name", untitled)
            return False
        remember_folder(str(target))
        return True

    def _save_to(self, path: Path) -> bool:
        try:
            saved = save_document(self, self.document, path)
        except (DesignError, OSError) as e:
            self.show_error("Cannot save design", str(e))
            return False
        self._add_recent(str(saved))
        self.statusBar().showMessage(f"saved {saved}", 5000)
        return True

    def recent_files(self) -> list[str]:
        value = QSettings().value("recent_files", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def _add_recent(self, path: str) -> None:
        files = [path] + [f for f in self.recent_files() if f != path]
        QSettings().setValue("recent_files", files[:MAX_RECENT])
        for w in _WINDOWS:
            w._update_recent_menu()

    def _remove_recent(self, path: str) -> None:
        gone = {path, str(Path(path).resolve())}
        files = self.recent_files()
        if gone & set(files):
            QSettings().setValue("recent_files", [f for f in files if f not in gone])
            for w in _WINDOWS:
                w._update_recent_menu()

    def _update_recent_menu(self) -> None:
        menu = self.recent_menu
        menu.clear()
        files = self.recent_files()
        for i, f in enumerate(files):
            a = menu.addAction(f"&{i + 1} {Path(f).name}")
            a.setToolTip(f)
            a.triggered.connect(lambda _c=False, f=f: self.open_path(f))
        menu.setEnabled(bool(files))

    def offer_recovery(self) -> bool:
        """If earlier sessions crashed with unsaved changes, offer to restore each of them.

        The first design restored goes into this window, any further one into a new window. A
        restored design is written to this session's recovery file at once, before the old file
        is deleted, so a second crash cannot lose it; an orphan that could not be re-saved stays.
        """
        from designer.io import load_designs

        restored = False
        for orphan in Recovery.orphans(self.recovery.directory):
            what = orphan.original or "an unsaved design"
            answer = QMessageBox.question(
                self,
                APP_NAME,
                f"{APP_NAME} did not close properly. Restore the unsaved changes to {what}?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.Yes,
            )
            if answer == QMessageBox.StandardButton.Yes:
                try:
                    designs = load_designs(orphan.design_path)
                except DesignError as e:
                    self.show_error("Cannot restore", str(e))
                else:
                    target = self.new_window() if restored else self
                    target.restore(designs, Path(orphan.original) if orphan.original else None)
                    restored = True
                    if not target.recovery.autosave():
                        continue  # keep the old recovery file: it is the only copy on disk
            Recovery.remove(orphan)
        return restored

    def restore(self, designs: list[Design], original: Path | None) -> None:
        """Show a recovered design as one undo step over the file it came from, as that file is on
        disk (an empty design when it has none or it cannot be read): undo shows the file, and the
        modified mark says whether what is shown differs from it. A recovery with variants replaces
        the whole file and stays modified until saved."""
        from designer.io import load_designs

        base: list[Design] = [Design()]
        if original is not None:
            try:
                base = load_designs(original)
            except DesignError:
                original = None  # gone or unreadable: saving asks where
        if len(designs) > 1 or len(base) > 1:
            self.document.set_design(designs[0], original, modified=True, variants=designs[1:])
            return
        self.document.set_design(base[0], original)
        self.document.replace(designs[0], original, "Restore unsaved changes")

    # ------------------------------------------------------------------ window events
    def closeEvent(self, event: QCloseEvent) -> None:
        if self.maybe_save():
            settings = QSettings()
            settings.setValue("window/geometry", self.saveGeometry())
            settings.setValue("window/state", self.saveState())
            self.recovery.discard()
            self.recovery.timer.stop()
            self.checker.stop()
            self.runner.shutdown()
            self.live.compare.shutdown()
            self.feed.shutdown()
            self.scene.detach()
            if self in _WINDOWS:
                _WINDOWS.remove(self)
            event.accept()
        else:
            event.ignore()

    def quit_all(self) -> None:
        for w in list(_WINDOWS):
            if not w.close():
                return
        QApplication.quit()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if Editor.local_paths(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        mime = event.mimeData()
        paths = Editor.design_paths(mime) or Editor.local_paths(mime)
        if paths:
            event.acceptProposedAction()
            QTimer.singleShot(0, lambda: self.open_dropped(paths[0]))

    def open_dropped(self, path: str) -> bool:
        """Open a dropped file if it is a design file; otherwise say why nothing happened."""
        if not Editor.is_design_name(path) or not Path(path).is_file():
            QMessageBox.warning(
                self,
                "Cannot open dropped file",
                f"{Path(path).name or path} is not a design file. Drop a Topology Designer design "
                "(.json or .topo) to open it, or drag components from the palette.",
            )
            return False
        return self.open_path(path)

    # ------------------------------------------------------------------ actions
    def paste(self) -> list[str]:
        """Paste the clipboard; bring the pasted devices into view if they landed out of sight
        (a fragment from another window keeps its coordinates, often far from this view)."""
        ids = self.editor.paste()
        items = [it for it in self.scene.selectedItems() if it.isVisible()]
        if ids and items:
            area = QRectF()
            for it in items:
                area = area.united(it.sceneBoundingRect())
            if not self.view.visible_scene_rect().intersects(area):
                self.view.centerOn(area.center())
                self.view.viewport_changed.emit()
        return ids

    def set_connect_mode(self, on: bool) -> None:
        self.view.connect_mode = on
        self.statusBar().showMessage("connect mode: drag from one device to another" if on else "", 4000)

    def focus_find(self) -> None:
        """Focus the find box, with completions from the design as it is now."""
        names = sorted({n for dev in self.document.design.iter_devices() for n in (dev.id, dev.name) if n})
        completer = QCompleter(names, self.find_box)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.activated.connect(self.find_device)
        self.find_box.setCompleter(completer)  # the line edit deletes the completer it had
        self.find_box.setFocus()
        self.find_box.selectAll()

    def find_device(self, text: str) -> str | None:
        """Select and centre on the device named ``text`` (id or name; else the first containing it)."""
        text = text.strip()
        if not text:
            return None
        d = self.document.design
        found = None
        if d.has_device(text):
            found = d.device(text)
        else:
            low = text.lower()
            for dev in d.iter_devices():
                if dev.name.lower() == low:
                    found = dev
                    break
            if found is None:
                found = next(
                    (dev for dev in d.iter_devices() if low in dev.id.lower() or low in dev.name.lower()), None
                )
        if found is None:
            self.statusBar().showMessage(f"no device matches {text!r}", 5000)
            return None
        # The device itself, never the group hiding it (Delete would then remove the whole rack):
        # the groups around it open, as view state.
        hidden = [g for g in d.ancestors(found.group) if d.group(g).collapsed] if found.group else []
        if hidden:
            self.document.reveal(hidden)
        self.scene.select_devices([found.id])
        item = self.scene.item_for_device(found.id)
        if item is not None:
            if self.view.scale_factor() < 0.5:
                self.view.zoom_by(0.5 / self.view.scale_factor())  # a device, not a dot of the sketch
            self.view.centre_on_item(item)
        opened = f" (opened {', '.join(hidden)})" if hidden else ""
        self.statusBar().showMessage(f"found {found.id}{opened}", 6000)
        self.view.setFocus()
        return found.id

    def show_link(self, link_id: str, centre: bool = True) -> None:
        """Select a link (a bottleneck, a point of a panel) and centre the view on it.

        Groups that hide either end are expanded first, as view state (no undo step, the design
        is not marked modified), so that the link itself, not a bundle, is what gets selected.
        ``centre=False`` only selects (the bundle or box standing for it when it is hidden).
        """
        design = self.document.design
        if centre and design.has_link(link_id):
            link = design.link(link_id)
            hidden = [
                gid
                for dev in (link.a_device, link.b_device)
                for gid in design.ancestors(design.device(dev).group)
                if design.group(gid).collapsed
            ]
            if hidden:
                self.document.reveal(hidden)
        if centre and self.view.scale_factor() < 0.5:
            self.view.zoom_by(0.5 / self.view.scale_factor())  # links are hidden in the zoomed-out sketch
        item = self.scene.select_links([link_id])
        if item is not None and centre:
            self.view.centerOn(item)
            self.view.viewport_changed.emit()

    def generate_dialog(self) -> None:
        dialog = GenerateDialog(self.catalog, self)
        if dialog.exec() and dialog.result_design is not None:
            self.insert_generated(dialog.result_design)

    def insert_generated(self, design: Design) -> list[str]:
        auto_collapse(design)  # a generated 16k-GPU fabric arrives readable (and light), like an opened one
        ids = self.editor.insert_design(design, f"Generate {design.name}")
        if ids:
            self.view.zoom_to_fit()
        return ids

    def analyze(self) -> None:
        self.docks["analysis"].show()
        self.docks["analysis"].raise_()
        self.runner.start()

    def _on_palette_activated(self, kind: str, payload: str) -> None:
        centre = self.view.mapToScene(self.view.viewport().rect().center())
        if kind == MIME_COMPONENT:
            self.editor.place_component(payload, centre)
        elif kind == MIME_SERVER:
            import json

            self.editor.place_server(json.loads(payload), QPointF(centre))
        elif kind == MIME_TEMPLATE:
            self.editor.place_template(payload, QPointF(centre))
