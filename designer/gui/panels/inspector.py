"""The inspector: properties of the selection, editable, with units.

Two-way without loops: after every model change the widgets are refreshed from the model with
their signals blocked (QSignalBlocker); a widget edit pushes an undo command, whose model event
refreshes the widgets again. Spin boxes report only finished values (no keyboard tracking), so
one edit is one undo step.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.gui.canvas.describe import tooltip_html, unbroken
from designer.gui.canvas.linking import cable_for, cable_misfit
from designer.gui.canvas.scene import DesignScene
from designer.gui.document import commands as cmd
from designer.gui.document.document import Document
from designer.gui.panels.inspector_widgets import (
    Pages,
    WheelGuard,
    count_text,
    form_page,
    typed_value,
    unit_spin,
    value_label,
)
from designer.gui.style import MEDIUM_STYLES
from designer.model import GROUP_KINDS, MEDIA, Design, DesignError, Link, units
from designer.model.catalog import Cable, link_rates_gbps, port_rate_gbps
from designer.model.entities import MAX_COORD

TIERS = ("", "leaf", "spine", "core", "edge", "aggregation", "router")


class Inspector(QWidget):
    """Shows and edits the selected device, link(s) or group, or the design itself."""

    #: a link was picked in the device's port table (its id)
    link_activated = Signal(str)

    def __init__(self, document: Document, scene: DesignScene, status: Callable[[str], None]) -> None:
        super().__init__()
        self.document = document
        self.scene = scene
        self.status = status
        self.title = QLabel()
        self.title.setStyleSheet("font-weight: bold; font-size: 11pt; padding: 2px 0 6px 0;")
        self.stack = Pages()
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.setStyleSheet("color: #D62828; padding: 0 0 4px 0;")
        self.notice.hide()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 6)
        lay.addWidget(self.title)
        lay.addWidget(self.notice)
        lay.addWidget(self.stack)
        lay.addStretch(1)
        self._build_design_page()
        self._build_device_page()
        self._build_link_page()
        self._build_group_page()
        self._build_multi_page()
        self.wheel_guard = WheelGuard(self)
        self.wheel_guard.guard(self.v_tier, self.v_x, self.v_y, self.l_medium, self.l_length, self.l_cable,
                               self.g_kind)
        for combo in (self.v_tier, self.l_medium, self.l_cable, self.g_kind):
            # Long entries ("sr4-400g-mm (Optics + fibre, 50 m)") must not widen the dock:
            # the box shrinks to the dock and the open list shows the whole text.
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(8)
        self.device_id: str | None = None
        self.link_ids: list[str] = []
        self.group_id: str | None = None
        self._design: Design | None = None
        scene.selectionChanged.connect(self._on_scene_selection_changed)
        document.design_replaced.connect(self._on_document_design_replaced)
        document.undo_group.indexChanged.connect(self._on_undo_group_index_changed)
        self._on_document_design_replaced(document.design)

    # ------------------------------------------------------------------ pages
    def _build_design_page(self) -> None:
        self.design_page, f = form_page(self.stack)
        self.d_name = QLineEdit()
        self.d_desc = QLineEdit()
        self.d_counts = value_label()
        f.addRow("Name", self.d_name)
        f.addRow("Description", self.d_desc)
        f.addRow("Contents", self.d_counts)
        self.d_name.editingFinished.connect(lambda: self._set_design("name", self.d_name.text()))
        self.d_desc.editingFinished.connect(lambda: self._set_design("description", self.d_desc.text()))

    def _build_device_page(self) -> None:
        self.device_page, f = form_page(self.stack)
        self.v_id = value_label()
        self.v_name = QLineEdit()
        self.v_name.setPlaceholderText("(shown as the id)")
        self.v_model = value_label()
        self.v_tier = QComboBox()
        self.v_tier.setEditable(True)
        self.v_tier.addItems(TIERS)
        self.v_group = value_label()
        self.v_x = unit_spin(" u", -MAX_COORD, MAX_COORD, 0)
        self.v_y = unit_spin(" u", -MAX_COORD, MAX_COORD, 0)
        self.v_ports = value_label()
        self.v_power = value_label()
        self.v_props = value_label()
        self.v_rules = value_label()
        self.v_rules.setStyleSheet("color: #D62828;")
        for name, w in (("Id", self.v_id), ("Name", self.v_name), ("Model", self.v_model), ("Tier", self.v_tier),
                        ("Group", self.v_group), ("X", self.v_x), ("Y", self.v_y), ("Ports", self.v_ports),
                        ("Power", self.v_power), ("Properties", self.v_props), ("Rules", self.v_rules)):
            f.addRow(name, w)
        self.v_x.setToolTip("scene units; 100 units = 1 m when link lengths are estimated")
        self.v_links = QTableWidget(0, 3)
        self.v_links.setHorizontalHeaderLabels(["Port", "Connected to", "Link"])
        header = self.v_links.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.v_links.setWordWrap(False)
        self.v_links.verticalHeader().setDefaultSectionSize(20)
        self.v_links.verticalHeader().hide()
        self.v_links.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.v_links.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.v_links.setToolTip("the device's ports that hold a link; double-click a row to select that link")
        self.v_links.setMinimumHeight(140)
        self.v_links.cellDoubleClicked.connect(self._on_links_table_double_clicked)
        f.addRow(self.v_links)
        self.v_name.editingFinished.connect(lambda: self._set_device("name", self.v_name.text()))
        self.v_tier.activated.connect(lambda _i: self._set_device("tier", self.v_tier.currentText()))
        self.v_tier.lineEdit().editingFinished.connect(lambda: self._set_device("tier", self.v_tier.currentText()))
        self.v_x.valueChanged.connect(lambda _v: self._move_device())
        self.v_y.valueChanged.connect(lambda _v: self._move_device())

    def _build_link_page(self) -> None:
        self.link_page, f = form_page(self.stack)
        self.l_ends = value_label()
        self.l_rate = value_label()
        self.l_medium = QComboBox()
        for m in MEDIA:
            self.l_medium.addItem(MEDIUM_STYLES[m].title, m)
        self.l_length = unit_spin(" m", 0.0, 100000.0, 1)
        self.l_cable = QComboBox()
        self.l_failed = QCheckBox("link is down (what-if)")
        self.l_rules = value_label()
        self.l_rules.setStyleSheet("color: #D62828;")
        for name, w in (("Ends", self.l_ends), ("Rate", self.l_rate), ("Medium", self.l_medium),
                        ("Length", self.l_length), ("Cable", self.l_cable), ("Failed", self.l_failed),
                        ("Rules", self.l_rules)):
            f.addRow(name, w)
        self.l_medium.activated.connect(lambda _i: self._set_medium(self.l_medium.currentData()))
        self.l_length.valueChanged.connect(lambda v: self._set_links("length_m", float(v)))
        self.l_cable.activated.connect(lambda _i: self._set_cable(self.l_cable.currentData()))
        self.l_failed.toggled.connect(lambda on: self._set_links("failed", bool(on)))

    def _build_group_page(self) -> None:
        self.group_page, f = form_page(self.stack)
        self.g_id = value_label()
        self.g_name = QLineEdit()
        self.g_name.setPlaceholderText("(shown as the id)")
        self.g_kind = QComboBox()
        self.g_kind.addItems(GROUP_KINDS)
        self.g_collapsed = QCheckBox("show as one box")
        self.g_counts = value_label()
        for name, w in (("Id", self.g_id), ("Name", self.g_name), ("Kind", self.g_kind),
                        ("Collapsed", self.g_collapsed), ("Contents", self.g_counts)):
            f.addRow(name, w)
        self.g_name.editingFinished.connect(lambda: self._set_group("name", self.g_name.text()))
        self.g_kind.activated.connect(lambda _i: self._set_group("kind", self.g_kind.currentText()))
        self.g_collapsed.toggled.connect(lambda on: self._set_group("collapsed", bool(on)))

    def _build_multi_page(self) -> None:
        self.multi_page, f = form_page(self.stack)
        self.m_counts = value_label()
        f.addRow("Selected", self.m_counts)

    # ------------------------------------------------------------------ model -> widgets
    def _on_scene_selection_changed(self) -> None:
        """Finish an edit still being typed for the old selection, then show the new one.

        A toolbar button or a menu does not take the keyboard focus, so a name typed before
        clicking one was never reported by its field; it belongs to the object it was typed for.
        """
        if not shiboken6.isValid(self.scene) or self.scene.design is None:
            return  # the window is closing: its scene is detached, its undo stack may be gone
        self.commit_pending()
        self.notice.hide()
        self.refresh()

    def commit_pending(self) -> None:
        """Apply what is typed in a field and not yet reported (before a save, or a selection change)."""
        for command in self._pending_commands():
            self._push(command)

    def _pending_commands(self) -> list[cmd.DesignCommand]:
        d = self.document.design
        out: list[cmd.DesignCommand] = []
        page = self.stack.currentWidget()
        if page is self.device_page and self.device_id is not None and d.has_device(self.device_id):
            dev = d.device(self.device_id)
            for field, edit in (("name", self.v_name), ("tier", self.v_tier.lineEdit())):
                value = edit.text().strip()
                if edit.isModified() and value != getattr(dev, field):
                    out.append(cmd.SetDeviceFieldCommand(d, dev.id, field, value))
            pos = (typed_value(self.v_x, dev.x), typed_value(self.v_y, dev.y))
            if pos != (dev.x, dev.y):
                out.append(cmd.MoveDevicesCommand(d, {dev.id: pos}))
        elif page is self.group_page and self.group_id is not None and d.has_group(self.group_id):
            name = self.g_name.text().strip()
            if self.g_name.isModified() and name != d.group(self.group_id).name:
                out.append(cmd.SetGroupFieldCommand(d, [self.group_id], "name", name))
        elif page is self.link_page and self.link_ids and all(d.has_link(i) for i in self.link_ids):
            length = typed_value(self.l_length, d.link(self.link_ids[0]).length_m)
            ids = [i for i in self.link_ids if d.link(i).length_m != length]
            if ids:
                out.append(cmd.SetLinkFieldCommand(d, ids, "length_m", length))
        elif page is self.design_page:
            for field, edit in (("name", self.d_name), ("description", self.d_desc)):
                value = edit.text().strip()
                if edit.isModified() and value != getattr(d, field) and (value or field != "name"):
                    out.append(cmd.SetDesignFieldCommand(d, field, value))
        return out

    def _on_document_design_replaced(self, design: Design) -> None:
        if self._design is not None:
            self._design.changed.disconnect(self.refresh)
        self._design = design
        design.changed.connect(self.refresh)
        self.notice.hide()
        self.refresh()

    def _on_undo_group_index_changed(self, _index: int) -> None:
        """An edit, undo or redo: a refusal said earlier is about a state that has gone."""
        self.notice.hide()

    def refresh(self) -> None:
        """Show the current selection, read from the model, with widget signals blocked."""
        d = self.document.design
        sc = self.scene
        if not shiboken6.isValid(sc):
            return
        try:
            selected = sc.selected_device_ids()
        except RuntimeError:  # the scene is being destroyed with its window
            return
        devices = [i for i in selected if d.has_device(i)]
        groups = [g for g in sc.selected_group_ids() if d.has_group(g)]
        links = [lk for lk in sc.selected_link_ids() if d.has_link(lk)]
        self.device_id, self.link_ids, self.group_id = None, [], None
        if len(groups) == 1 and not links and set(devices) <= {m.id for m in d.all_members(groups[0])}:
            self.group_id = groups[0]
            self._show_group()
        elif len(devices) == 1 and not links and not groups:
            self.device_id = devices[0]
            self._show_device()
        elif links and not devices and not groups:
            self.link_ids = links
            self._show_links()
        elif devices or links or groups:
            parts = [count_text(Counter(d.device(i).kind for i in devices))] if devices else []
            if links:
                parts.append(units.count(len(links), "link"))
            if groups:
                parts.append(units.count(len(groups), "group"))
            self.title.setText("Selection")
            self.m_counts.setText(", ".join(parts))
            self._show_page(self.multi_page)
        else:
            self._show_design()

    def _show_page(self, page: QWidget) -> None:
        self.stack.setCurrentWidget(page)

    def _show_design(self) -> None:
        d = self.document.design
        self.title.setText("Design")
        with QSignalBlocker(self.d_name):
            self.d_name.setText(d.name)
            self.d_name.setCursorPosition(0)  # show the beginning of a long name, not its end
        with QSignalBlocker(self.d_desc):
            self.d_desc.setText(d.description)
            self.d_desc.setCursorPosition(0)
        kinds = self.document.device_kinds()
        self.d_counts.setText(
            count_text(kinds) + f"; {units.count(d.link_count(), 'link')}; {units.count(len(d.groups), 'group')}"
            if kinds else "empty: drag components from the palette, or Design \u25b8 Generate"
        )
        self._show_page(self.design_page)

    def _show_device(self) -> None:
        d = self.document.design
        dev = d.device(self.device_id)  # type: ignore[arg-type]
        comp = self.document.catalog.components.get(dev.model)
        self.title.setText(f"{dev.kind.upper() if dev.kind in ('gpu', 'nic') else dev.kind.capitalize()} {dev.label}")
        self.v_id.setText(dev.id)
        with QSignalBlocker(self.v_name):
            self.v_name.setText(dev.name)
            self.v_name.setCursorPosition(0)
        self.v_model.setText(comp.name.split(" (")[0] if comp else (dev.model or "custom"))
        self.v_model.setToolTip(comp.name if comp else "")
        with QSignalBlocker(self.v_tier):
            self.v_tier.setCurrentText(dev.tier)
        self.v_group.setText(" \u2282 ".join(d.ancestors(dev.group)) or "none")
        for spin, v in ((self.v_x, dev.x), (self.v_y, dev.y)):
            with QSignalBlocker(spin):
                spin.setValue(v)
        free = len(d.free_ports(dev.id))
        self.v_ports.setText(
            "; ".join(f"{g.count} \u00d7 {units.line_rate(g.speed_gbps)} {g.kind}" for g in dev.ports)
            + f"  ({free} free)"
        )
        self.v_power.setText(f"{comp.power_w:g} W" if comp and comp.power_w else "\u2014")
        self.v_props.setText(", ".join(f"{k} = {v}" for k, v in dev.properties.items()) or "\u2014")
        self.refresh_rules()
        links = d.links_of(dev.id)
        order = {p.id: i for i, p in enumerate(dev.iter_ports())}
        rows = sorted(
            ((lk.a_port, lk.b, lk) if lk.a_device == dev.id else (lk.b_port, lk.a, lk) for lk in links),
            key=lambda r: order.get(r[0], 0),
        )
        self.v_links.setRowCount(len(rows))
        for i, (port, peer, lk) in enumerate(rows):
            for col, text in enumerate((port, peer, f"{lk.medium.replace('_', ' ')} {lk.length_m:g} m")):
                cell = QTableWidgetItem(text)
                cell.setData(Qt.ItemDataRole.UserRole, lk.id)
                self.v_links.setItem(i, col, cell)
        self._show_page(self.device_page)

    def _show_links(self) -> None:
        d = self.document.design
        links = [d.link(i) for i in self.link_ids]
        first = links[0]
        n = len(links)
        self.title.setText(f"Link {first.id}" if n == 1 else units.count(n, "link"))
        pairs = {frozenset((lk.a_device, lk.b_device)) for lk in links}
        if n == 1:
            ends = f"{first.a} \u2194 {first.b}"
        elif len(pairs) == 1:
            ends = f"{first.a_device} \u2194 {first.b_device}"
        else:  # links picked from several bundles: no single pair of ends to name
            ends = units.count(len(pairs), "pair") + " of devices"
        self.l_ends.setText(ends)
        rates = link_rates_gbps(d, links, self.document.catalog)
        self.l_rate.setText(
            f"{units.line_rate(rates[0])} per direction" if n == 1
            else f"{units.line_rate(sum(rates))} per direction in total"
        )
        with QSignalBlocker(self.l_medium):
            self._offer_media(links)
            self.l_medium.setCurrentIndex(max(0, self.l_medium.findData(first.medium)))
        with QSignalBlocker(self.l_length):
            self.l_length.setValue(first.length_m)
        self._fill_cables(links)
        with QSignalBlocker(self.l_failed):
            self.l_failed.setChecked(first.failed)
        self.refresh_rules()
        self._show_page(self.link_page)

    def _offer_media(self, links: list[Link]) -> None:
        """Only the media the links' ports take: a board medium (NVLink, PCIe) for links between
        those ports, cable media for network links; the others stay listed, greyed."""
        d = self.document.design
        kinds = set()
        for lk in links:
            port = d.device(lk.a_device).port(lk.a_port)
            kinds.add(port.kind if port is not None else "network")
        model = self.l_medium.model()
        for i in range(self.l_medium.count()):
            medium = self.l_medium.itemData(i)
            board = medium in ("nvlink", "pcie")
            ok = kinds == {medium} if board else kinds == {"network"}
            model.item(i).setEnabled(ok)  # type: ignore[attr-defined]
            self.l_medium.setItemData(i, "" if ok else "not for these links' ports",
                                      Qt.ItemDataRole.ToolTipRole)

    def _fill_cables(self, links: list[Link]) -> None:
        """The Cable list: the catalog cables that fit every selected link first, then the others
        greyed out, each with the reason it does not fit as its tooltip."""
        fits: list[tuple[Cable, str]] = []
        misfits: list[tuple[Cable, str]] = []
        for cab in sorted(self.document.catalog.cables.values(), key=lambda c: (c.medium, c.rate_gbps, c.reach_m)):
            why = next(filter(None, (self._misfit(cab, lk) for lk in links)), "")
            (misfits if why else fits).append((cab, why))
        combo = self.l_cable
        model = combo.model()
        with QSignalBlocker(combo):
            combo.clear()
            combo.addItem("(none)", "")
            combo.setItemData(0, "no cable: the bill of materials cannot price the link", Qt.ItemDataRole.ToolTipRole)
            for group in (fits, misfits):
                if group and combo.count() > 1:
                    combo.insertSeparator(combo.count())
                for cab, why in group:
                    combo.addItem(f"{cab.id} ({MEDIUM_STYLES[cab.medium].title}, {cab.reach_m:g} m)", cab.id)
                    i = combo.count() - 1
                    tip = tooltip_html([cab.name] + ([f"<i>does not fit: {why}</i>"] if why else []))
                    combo.setItemData(i, tip, Qt.ItemDataRole.ToolTipRole)
                    if why:
                        model.item(i).setEnabled(False)
            current = links[0].cable
            if current and combo.findData(current) < 0:  # a cable the catalog lacks
                combo.addItem(f"{current} (not in the catalog)", current)
                model.item(combo.count() - 1).setEnabled(False)
            combo.setCurrentIndex(max(0, combo.findData(current)))

    def _misfit(self, cab: Cable, lk: Link) -> str:
        d = self.document.design
        port = d.device(lk.a_device).port(lk.a_port)
        return cable_misfit(cab, port.kind if port else "network", lk.medium, port_rate_gbps(d, lk), lk.length_m)

    def refresh_rules(self) -> None:
        """Show the design-rule findings of the shown device or links, as the last check found them."""
        if self.device_id is not None:
            self.v_rules.setText(unbroken("\n".join(self.scene.findings_for_device(self.device_id))) or "\u2014")
        if self.link_ids:
            self.l_rules.setText(unbroken("\n".join(self.scene.findings_for_links(self.link_ids))) or "\u2014")

    def _show_group(self) -> None:
        d = self.document.design
        g = d.group(self.group_id)  # type: ignore[arg-type]
        self.title.setText(f"{g.kind.capitalize() if g.kind != 'su' else 'Scalable unit'} {g.label}")
        self.g_id.setText(g.id)
        with QSignalBlocker(self.g_name):
            self.g_name.setText(g.name)
            self.g_name.setCursorPosition(0)
        with QSignalBlocker(self.g_kind):
            self.g_kind.setCurrentText(g.kind)
        with QSignalBlocker(self.g_collapsed):
            self.g_collapsed.setChecked(g.collapsed)
        kinds = Counter(m.kind for m in d.all_members(g.id))
        self.g_counts.setText(count_text(kinds) or "empty")
        self._show_page(self.group_page)

    def _on_links_table_double_clicked(self, row: int, _column: int) -> None:
        cell = self.v_links.item(row, 0)
        if cell is not None:
            self.link_activated.emit(cell.data(Qt.ItemDataRole.UserRole))

    # ------------------------------------------------------------------ widgets -> commands
    def refuse(self, text: str) -> None:
        """Say why an edit was not made, in the inspector and the status bar."""
        self.notice.setText(unbroken(text))
        self.notice.show()
        self.status(text)

    def _push(self, command: cmd.DesignCommand) -> None:
        if self.scene.design is None:
            return  # the window has closed (a field losing the focus as it hides reports late)
        try:
            self.document.push(command)
        except DesignError as e:
            self.refuse(str(e))
            self.refresh()
        else:
            self.notice.hide()

    def _set_design(self, field: str, value: str) -> None:
        d = self.document.design
        value = value.strip()
        if field == "name" and not value:
            self.refuse(f"A design needs a name: it stays \u201c{d.name}\u201d.")
            with QSignalBlocker(self.d_name):
                self.d_name.setText(d.name)
            return
        if getattr(d, field) != value:
            self._push(cmd.SetDesignFieldCommand(d, field, value))

    def _set_device(self, field: str, value: object) -> None:
        if self.device_id is None:
            return
        if isinstance(value, str):
            value = value.strip()  # a blank name shows the id, never an invisible label
        d = self.document.design
        if getattr(d.device(self.device_id), field) != value:
            self._push(cmd.SetDeviceFieldCommand(d, self.device_id, field, value))

    def _move_device(self) -> None:
        if self.device_id is None:
            return
        d = self.document.design
        dev = d.device(self.device_id)
        # The fields show whole units: an axis whose field still shows the model's (rounded)
        # value keeps its exact position, so editing Y does not nudge a device at x = 37.5.
        def axis(spin: QDoubleSpinBox, old: float) -> float:
            return old if spin.value() == round(old, spin.decimals()) else spin.value()

        pos = (axis(self.v_x, dev.x), axis(self.v_y, dev.y))
        if (dev.x, dev.y) != pos:
            self._push(cmd.MoveDevicesCommand(d, {dev.id: pos}))

    def _set_links(self, field: str, value: object) -> None:
        d = self.document.design
        ids = [i for i in self.link_ids if getattr(d.link(i), field) != value]
        if ids:
            self._push(cmd.SetLinkFieldCommand(d, ids, field, value))

    def _set_medium(self, medium: str) -> None:
        """Change the links' medium and give each the cable a new link of that medium would get
        (the cheapest of the medium that reaches): one undo step."""
        d = self.document.design
        catalog = self.document.catalog
        ids = [i for i in self.link_ids if d.link(i).medium != medium]
        if not ids:
            return
        by_cable: dict[str, list[str]] = {}
        stranded: list[str] = []
        for lid in ids:
            lk = d.link(lid)
            cab = cable_for(catalog, medium, port_rate_gbps(d, lk), lk.length_m)
            if cab is None:
                stranded.append(lid)
            by_cable.setdefault(cab.id if cab is not None else "", []).append(lid)
        macro = cmd.MacroCommand(d, f"Set medium of {ids[0] if len(ids) == 1 else units.count(len(ids), 'link')}")
        cmd.SetLinkFieldCommand(d, ids, "medium", medium, macro)
        for cable_id, lids in by_cable.items():
            changed = [i for i in lids if d.link(i).cable != cable_id]
            if changed:
                cmd.SetLinkFieldCommand(d, changed, "cable", cable_id, macro)
        self._push(macro)
        if stranded:
            lk = d.link(stranded[0])
            self.refuse(f"No {medium.replace('_', ' ')} cable in the catalog carries "
                        f"{units.line_rate(port_rate_gbps(d, lk))} over {lk.length_m:g} m: "
                        f"{'the link has' if len(stranded) == 1 else units.count(len(stranded), 'link') + ' have'} "
                        "no cable now; choose another medium or shorten the link.")

    def _set_cable(self, cable_id: str) -> None:
        d = self.document.design
        cab = self.document.catalog.cables.get(cable_id)
        ids = list(self.link_ids)
        if not ids:
            return
        macro = cmd.MacroCommand(d, f"Set cable of {ids[0] if len(ids) == 1 else units.count(len(ids), 'link')}")
        cmd.SetLinkFieldCommand(d, ids, "cable", cable_id, macro)
        if cab is not None:
            cmd.SetLinkFieldCommand(d, ids, "medium", cab.medium, macro)
        self._push(macro)

    def _set_group(self, field: str, value: object) -> None:
        if self.group_id is None:
            return
        if isinstance(value, str):
            value = value.strip()
        d = self.document.design
        if field == "collapsed":  # view state: no undo step, not a change to save
            self.document.set_collapsed([self.group_id], bool(value))
        elif getattr(d.group(self.group_id), field) != value:
            self._push(cmd.SetGroupFieldCommand(d, [self.group_id], field, value))

