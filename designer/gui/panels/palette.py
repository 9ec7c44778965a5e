"""The palette: catalog components, ready-made servers and cables, searchable and grouped.

Drag an entry onto the canvas to place it (a real QDrag carrying the entry's MIME data); drop a
cable on a link to use that cable. Double-click places a device at the centre of the view.

Server templates (right-click ▸ Add Server Template…): a server read from a file, an NCCL topology
dump or a design file holding one server (:mod:`designer.io.server_template`), listed under Servers
and placed as a fresh copy at each drop. The list of template files is kept in the user's settings.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QMimeData, QSettings, Qt, Signal
from PySide6.QtGui import QAction, QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QFileDialog, QLineEdit, QMenu, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from designer.gui.canvas.editor import MIME_CABLE, MIME_COMPONENT, MIME_SERVER, MIME_TEMPLATE
from designer.gui.style import KIND_STYLES, MEDIUM_STYLES
from designer.io.server_template import load_server_template, template_title
from designer.model import units
from designer.model.catalog import Catalog

_ROLE = Qt.ItemDataRole.UserRole + 1  # (mime type, payload bytes)
#: Where the template files are remembered.
TEMPLATES_KEY = "palette/server_templates"

GROUPS = (
    ("GPUs", "gpu"),
    ("Servers", "server"),
    ("NICs", "nic"),
    ("NVLink switches", "nvswitch"),
    ("Switches", "switch"),
    ("Storage", "storage"),
    ("Cables", "cable"),
)


def kind_icon(kind: str) -> QIcon:
    """A small swatch in the kind's canvas colours, so palette and canvas match."""
    pm = QPixmap(16, 16)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    if kind in MEDIUM_STYLES:
        ms = MEDIUM_STYLES[kind]
        pen = p.pen()
        pen.setColor(ms.colour)
        pen.setWidthF(3)
        pen.setStyle(ms.dash)
        p.setPen(pen)
        p.drawLine(1, 8, 15, 8)
    else:
        ks = KIND_STYLES.get(kind, KIND_STYLES["storage"]) if kind != "server" else KIND_STYLES["gpu"]
        p.setPen(ks.accent)
        p.setBrush(ks.fill if kind != "server" else QColor("#CFE5BC"))
        p.drawRoundedRect(1, 2, 14, 12, 3, 3)
        p.fillRect(2, 4, 3, 8, ks.accent)
    p.end()
    return QIcon(pm)


class PaletteTree(QTreeWidget):
    """A tree whose leaves drag as component, server or cable MIME data."""

    def __init__(self) -> None:
        super().__init__()
        self.setHeaderHidden(True)
        self.setDragEnabled(True)
        self.setDragDropMode(QTreeWidget.DragDropMode.DragOnly)
        self.setSelectionMode(QTreeWidget.SelectionMode.SingleSelection)
        self.setIndentation(14)
        self.setUniformRowHeights(True)

    def mimeData(self, items: list[QTreeWidgetItem]) -> QMimeData:  # noqa: N802 - Qt override
        mime = QMimeData()
        for item in items:
            entry = item.data(0, _ROLE)
            if entry:
                kind, payload = entry
                mime.setData(kind, payload.encode("utf-8"))
                mime.setText(payload)
                break
        return mime

    def mimeTypes(self) -> list[str]:  # noqa: N802 - Qt override
        return [MIME_COMPONENT, MIME_SERVER, MIME_TEMPLATE, MIME_CABLE]


class Palette(QWidget):
    """Search box over a grouped tree of what can be placed."""

    #: a device or server was double-clicked: (mime type, payload)
    activated = Signal(str, str)
    #: something to say in the status bar (a template that could not be read...)
    message = Signal(str)

    def __init__(self, catalog: Catalog, servers: Callable[[], list[tuple[str, dict, str]]] | None = None) -> None:
        super().__init__()
        self.catalog = catalog
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search components, servers, cables\u2026")
        self.search.setClearButtonEnabled(True)
        self.tree = PaletteTree()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.search)
        lay.addWidget(self.tree)
        self._groups: dict[str, QTreeWidgetItem] = {}
        self._fill(servers() if servers else [])
        for path in self.template_paths():
            self._add_template_item(path)
        self.search.textChanged.connect(self.filter)
        self.tree.itemDoubleClicked.connect(self._on_tree_double_clicked)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._on_tree_context_menu)

    # ------------------------------------------------------------------ server templates
    @staticmethod
    def template_paths() -> list[str]:
        """The template files the user added, in the order added."""
        value = QSettings().value(TEMPLATES_KEY, [])
        return [str(v) for v in (value if isinstance(value, list) else [value] if value else [])]

    def add_template(self, path: str) -> bool:
        """Add the server template at ``path`` (read once to check it); False, with a message, if it cannot be."""
        path = str(Path(path).resolve())
        try:
            design = load_server_template(path)
        except Exception as e:  # noqa: BLE001 - any unreadable file is a message, never a crash
            self.message.emit(f"not added as a server template: {e}")
            return False
        paths = self.template_paths()
        if path not in paths:
            QSettings().setValue(TEMPLATES_KEY, [*paths, path])
            self._add_template_item(path)
        gpus = sum(1 for d in design.iter_devices() if d.kind == "gpu")
        title = template_title(path)
        self.message.emit(f"server template {title!r} added to the palette ({units.count(gpus, 'GPU')}): drag it "
                          "onto the canvas")
        return True

    def remove_template(self, path: str) -> None:
        QSettings().setValue(TEMPLATES_KEY, [p for p in self.template_paths() if p != path])
        item = self.item_for(path)
        if item is not None and item.parent() is not None:
            item.parent().removeChild(item)

    def _add_template_item(self, path: str) -> None:
        item = QTreeWidgetItem([f"{template_title(path)} (template)"])
        item.setIcon(0, kind_icon("server"))
        item.setToolTip(0, f"<b>Server template</b><br>{path}<br><i>drag onto the canvas; right-click to remove</i>")
        item.setData(0, _ROLE, (MIME_TEMPLATE, path))
        self._groups["server"].addChild(item)

    def _on_tree_context_menu(self, pos) -> None:
        menu = QMenu(self)
        add = QAction("Add Server Template\u2026", menu)
        add.setStatusTip("Add a server read from an NCCL topology dump or a design file to the palette")
        add.triggered.connect(self._ask_template)
        menu.addAction(add)
        item = self.tree.itemAt(pos)
        entry = item.data(0, _ROLE) if item is not None else None
        if entry and entry[0] == MIME_TEMPLATE:
            remove = QAction(f"Remove {item.text(0)}", menu)
            remove.triggered.connect(lambda: self.remove_template(entry[1]))
            menu.addAction(remove)
        menu.exec(self.tree.viewport().mapToGlobal(pos))

    def _ask_template(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Add a server template", "",
                                              "Server templates (*.xml *.json);;All files (*)")
        if path:
            self.add_template(path)

    def _fill(self, servers: list[tuple[str, dict, str]]) -> None:
        cat = self.catalog
        for title, kind in GROUPS:
            group = QTreeWidgetItem([title])
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            f = group.font(0)
            f.setBold(True)
            group.setFont(0, f)
            self._groups[kind] = group
            self.tree.addTopLevelItem(group)
        for comp in sorted(cat.components.values(), key=lambda c: (c.kind, c.name)):
            short = comp.name.split(" (")[0]
            item = QTreeWidgetItem([short])
            item.setIcon(0, kind_icon(comp.kind))
            ports = ", ".join(f"{g.count}\u00d7{units.line_rate(g.speed_gbps)} {g.kind}" for g in comp.ports)
            tip = f"<b>{comp.name}</b><br>{comp.vendor}<br>ports: {ports}"
            if comp.power_w:
                tip += f"<br>power: {comp.power_w:g} W"
            if comp.price_usd:
                tip += f"<br>indicative price: {units.usd(comp.price_usd)}"
            item.setToolTip(0, tip + "<br><i>drag onto the canvas</i>")
            item.setData(0, _ROLE, (MIME_COMPONENT, comp.id))
            self._groups.get(comp.kind, self._groups["storage"]).addChild(item)
        for title, params, tip in servers:
            item = QTreeWidgetItem([title])
            item.setIcon(0, kind_icon("server"))
            item.setToolTip(0, tip + "<br><i>drag onto the canvas</i>")
            item.setData(0, _ROLE, (MIME_SERVER, json.dumps(params, sort_keys=True)))
            self._groups["server"].addChild(item)
        for cab in sorted(cat.cables.values(), key=lambda c: (c.rate_gbps, c.reach_m)):
            item = QTreeWidgetItem([f"{cab.id}  ({units.line_rate(cab.rate_gbps)}, {cab.reach_m:g} m)"])
            item.setIcon(0, kind_icon(cab.medium))
            medium = MEDIUM_STYLES[cab.medium].title
            item.setToolTip(0, f"<b>{cab.name}</b><br>{medium}<br><i>drop on a link to use it</i>")
            item.setData(0, _ROLE, (MIME_CABLE, cab.id))
            self._groups["cable"].addChild(item)
        for kind, group in self._groups.items():
            group.setExpanded(kind != "cable")
            group.setHidden(group.childCount() == 0)

    def filter(self, text: str) -> None:
        """Show entries whose name, tooltip, id or group (``switch`` finds every Quantum and Spectrum
        switch under Switches) contains every word of ``text``."""
        words = text.lower().split()
        for kind, group in self._groups.items():
            shown = 0
            for i in range(group.childCount()):
                item = group.child(i)
                hay = " ".join((item.text(0), item.toolTip(0), str(item.data(0, _ROLE)), group.text(0), kind)).lower()
                ok = all(w in hay for w in words)
                item.setHidden(not ok)
                shown += ok
            group.setHidden(shown == 0)
            if words:
                group.setExpanded(True)

    def entries(self) -> list[tuple[str, str, str]]:
        """(group title, entry text, payload) of every entry; used by tests and the docs."""
        out = []
        for title, kind in GROUPS:
            group = self._groups[kind]
            for i in range(group.childCount()):
                item = group.child(i)
                out.append((title, item.text(0), item.data(0, _ROLE)[1]))
        return out

    def item_for(self, payload: str) -> QTreeWidgetItem | None:
        for group in self._groups.values():
            for i in range(group.childCount()):
                item = group.child(i)
                if item.data(0, _ROLE)[1] == payload:
                    return item
        return None

    def _on_tree_double_clicked(self, item: QTreeWidgetItem, column: int) -> None:
        entry = item.data(0, _ROLE)
        if entry and entry[0] in (MIME_COMPONENT, MIME_SERVER, MIME_TEMPLATE):
            self.activated.emit(entry[0], entry[1])
