"""Menus, toolbar and shortcuts of the main window."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QIcon, QKeySequence
from PySide6.QtWidgets import QToolBar

from designer.gui.window import help as help_menu

if TYPE_CHECKING:
    from designer.gui.window.main_window import MainWindow

SK = QKeySequence.StandardKey


def _icon(window: MainWindow, name: str) -> QIcon:
    from designer.gui.icons import icon

    return icon(name, window.style())


def _export(window: MainWindow) -> None:
    from designer.gui.window.export_dialog import show_export_dialog

    show_export_dialog(window)


def _import(window: MainWindow) -> None:
    from designer.gui.window.import_dialog import import_fabric

    import_fabric(window)


def _cabling(window: MainWindow, rail: bool) -> None:
    from designer.gui.window.canvas_menu import cable_selected_rail_wise, connect_selected

    (cable_selected_rail_wise if rail else connect_selected)(window)


def _open_sweep_point(window: MainWindow) -> None:
    from designer.gui.window.sweep import open_sweep_point

    open_sweep_point(window)


#: The menus, by name: their titles and actions (None: a separator; "recent": the Open Recent submenu).
MENUS: tuple[tuple[str, str, tuple[str | None, ...]], ...] = (
    ("file", "&File", ("new", "new_window", "open", "recent", "open_sweep_point", "import", None, "save", "save_as",
                       "export", None, "close", "quit")),
    ("edit", "&Edit", ("undo", "redo", None, "cut", "copy", "paste", "duplicate", "delete", None, "select_all",
                       "find")),
    ("view", "&View", ("zoom_in", "zoom_out", "zoom_fit", "zoom_100", None)),
    ("design", "&Design", ("connect_mode", "connect_selected", "cable_rail_wise", None, "group", "ungroup", "collapse",
                           "collapse_servers", "expand_all", None, "generate", "check", "analyze")),
    ("help", "&Help", ("getting_started", "docs", "shortcuts", None, "about")),
)
#: The toolbar's actions (None: a separator).
TOOLBAR = ("new", "open", "save", None, "undo", "redo", None, "cut", "copy", "paste", "delete", None,
           "zoom_in", "zoom_out", "zoom_fit", None, "connect_mode", "collapse", None, "generate", "analyze")

_Act = Callable[..., QAction]


def build_actions(w: MainWindow) -> dict[str, QAction]:
    """Create every action of the window, keyed by a short name, and the menus and toolbar."""
    acts: dict[str, QAction] = {}

    def act(key: str, text: str, slot: Callable[[], object], shortcut: object = None, icon: str = "",
            tip: str = "", checkable: bool = False) -> QAction:
        a = QAction(text, w)
        if shortcut is not None:
            if isinstance(shortcut, list):
                a.setShortcuts(shortcut)
            else:
                a.setShortcut(shortcut)  # type: ignore[arg-type]
        if icon:
            a.setIcon(_icon(w, icon))
        if tip:
            a.setStatusTip(tip)
            a.setToolTip(tip)
        a.setCheckable(checkable)
        if checkable:
            a.toggled.connect(slot)
        else:
            a.triggered.connect(lambda _checked=False: slot())
        acts[key] = a
        return a

    for add in (_file_actions, _edit_actions, _view_actions, _design_actions, _help_actions):
        add(w, act, acts)
    _build_menus(w, acts)
    _build_toolbar(w, acts)
    return acts


def _file_actions(w: MainWindow, act: _Act, acts: dict[str, QAction]) -> None:
    act("new", "&New", w.new_design, SK.New, "new", "Start an empty design")
    act("new_window", "New &Window", w.new_window, QKeySequence("Ctrl+Shift+N"), tip="Open another designer window")
    act("open", "&Open\u2026", w.open_dialog, SK.Open, "open", "Open a design file")
    act("open_sweep_point", "Open S&weep Point\u2026", lambda: _open_sweep_point(w),
        tip="Open one point of sweep results (topo-designer sweep) as a design")
    act("import", "&Import\u2026", lambda: _import(w),
        tip="Import a fabric as a new design: ibnetdiscover, GML, GraphML, Slurm, NCCL, SimAI, containerlab...")
    act("save", "&Save", w.save, SK.Save, "save", "Save the design")
    act("save_as", "Save &As\u2026", w.save_as, SK.SaveAs, tip="Save the design to another file")
    act("export", "&Export\u2026", lambda: _export(w), QKeySequence("Ctrl+Shift+E"),
        tip="Export pictures, the JSON and HTML reports, the cabling plan or GraphML")
    act("close", "&Close Window", w.close, SK.Close)
    act("quit", "&Quit", w.quit_all, SK.Quit)


def _edit_actions(w: MainWindow, act: _Act, acts: dict[str, QAction]) -> None:
    undo = w.document.undo_group.createUndoAction(w, "&Undo")
    undo.setShortcut(SK.Undo)
    undo.setIcon(_icon(w, "undo"))
    redo = w.document.undo_group.createRedoAction(w, "&Redo")
    redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
    redo.setIcon(_icon(w, "redo"))
    acts["undo"], acts["redo"] = undo, redo
    act("cut", "Cu&t", w.editor.cut_selection, SK.Cut, "cut")
    act("copy", "&Copy", w.editor.copy_selection, SK.Copy, "copy")
    act("paste", "&Paste", w.paste, SK.Paste, "paste")
    act("duplicate", "&Duplicate", w.editor.duplicate_selection, QKeySequence("Ctrl+D"))
    act("delete", "De&lete", w.editor.delete_selection, [QKeySequence(SK.Delete), QKeySequence(Qt.Key.Key_Backspace)],
        "delete", "Delete the selection (devices with their links)")
    act("select_all", "Select &All", w.editor.select_all, SK.SelectAll)
    act("find", "&Find Device\u2026", w.focus_find, SK.Find, "find", "Find a device by name and centre on it")


def _view_actions(w: MainWindow, act: _Act, acts: dict[str, QAction]) -> None:
    act("zoom_in", "Zoom &In", w.view.zoom_in, [QKeySequence(SK.ZoomIn), QKeySequence("Ctrl+=")], "zoom_in")
    act("zoom_out", "Zoom &Out", w.view.zoom_out, SK.ZoomOut, "zoom_out")
    act("zoom_fit", "Zoom to &Fit", w.view.zoom_to_fit, QKeySequence("Ctrl+0"), "zoom_fit", "Show the whole design")
    act("zoom_100", "Actual &Size", w.view.zoom_reset, QKeySequence("Ctrl+1"))


def _design_actions(w: MainWindow, act: _Act, acts: dict[str, QAction]) -> None:
    act("connect_mode", "&Connect Mode", w.set_connect_mode, QKeySequence("C"), "connect",
        "Drag from device to device to connect them (or Alt+drag, or drag from a port)", checkable=True)
    act("connect_selected", "Connect Selected to &Switch", lambda: _cabling(w, False), QKeySequence("Ctrl+K"),
        tip="Connect the selected servers' NICs, in rail order, to the next free ports of the one selected switch")
    act("cable_rail_wise", "Cable Rail-&wise to Selected Leaves", lambda: _cabling(w, True),
        QKeySequence("Ctrl+Shift+K"), tip="Rail r of every selected server to the r-th selected leaf switch")
    act("group", "&Group", w.editor.group_selection, QKeySequence("Ctrl+G"), tip="Put the selected devices in a group")
    act("ungroup", "&Ungroup", w.editor.ungroup_selection, QKeySequence("Ctrl+Shift+G"))
    act("collapse", "Collapse / &Expand", w.editor.toggle_collapse_selection, QKeySequence("Ctrl+E"), "collapse",
        "Collapse the selected groups to one box, or expand them")
    act("collapse_servers", "Collapse All &Servers", lambda: w.editor.collapse_all("server"),
        tip="Show every server as one box")
    act("expand_all", "E&xpand All Groups", w.editor.expand_all, tip="Show every device")
    act("generate", "&Generate\u2026", w.generate_dialog, QKeySequence("Ctrl+Alt+G"), "generate",
        "Generate a fabric (server, leaf-spine, fat-tree, rail-optimized...) into the design")
    act("analyze", "&Analyze", w.analyze, QKeySequence("F5"), "analyze", "Run the analyzer on the design")
    act("check", "Check &Rules", w.checker.run, QKeySequence("F7"), tip="Check the design rules now")


def _help_actions(w: MainWindow, act: _Act, acts: dict[str, QAction]) -> None:
    act("getting_started", "&Getting Started", lambda: help_menu.show_getting_started(w),
        tip="A first session in ten minutes: the window, a fabric of your own, where the time goes, exports")
    act("docs", "&Documentation", lambda: help_menu.show_documentation(w), SK.HelpContents,
        tip="Read the guide and the reference documents")
    act("shortcuts", "&Keyboard Shortcuts", lambda: help_menu.show_shortcuts(w), QKeySequence("Ctrl+/"),
        tip="Every shortcut and canvas gesture, searchable")
    act("about", "&About", lambda: help_menu.show_about(w), tip="The version of Topology Designer")



def _build_menus(w: MainWindow, acts: dict[str, QAction]) -> None:
    mb = w.menuBar()
    for name, title, keys in MENUS:
        m = mb.addMenu(title)
        w.menus[name] = m
        for k in keys:
            if k is None:
                m.addSeparator()
            elif k == "recent":
                w.recent_menu = m.addMenu("Open &Recent")
            else:
                m.addAction(acts[k])
    w.view_menu = w.menus["view"]


def _build_toolbar(w: MainWindow, acts: dict[str, QAction]) -> None:
    tb = QToolBar("Main")
    tb.setObjectName("main_toolbar")
    tb.setMovable(False)
    tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
    for k in TOOLBAR:
        tb.addSeparator() if k is None else tb.addAction(acts[k])
    w.addToolBar(tb)
    w.toolbar = tb
