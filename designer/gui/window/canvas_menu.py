"""The canvas' context menu: what can be done with the object under the mouse.

A device: Properties, Select Neighbours, Select Same Model, Connect Selected ▸ to this switch,
Fail / Restore (switches, NICs, NVLink switches, GPUs), Delete. A collapsed group: Expand,
Properties, Select Neighbours, Fail / Restore its outside links, Delete. A group frame: Collapse,
Properties, Delete. A link or bundle: Properties, Fail / Restore, Delete. The empty canvas: Paste,
Select All, Zoom to Fit. A right-click on an object outside the selection selects it first, so
the menu acts on what it names; Fail / Restore and Delete are undoable edits, the rest view state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QGraphicsItem, QMenu

from designer.gui.canvas.items import (
    BOX_TYPE,
    BUNDLE_TYPE,
    DEVICE_TYPE,
    FRAME_TYPE,
    BundleItem,
    CollapsedGroupItem,
    DeviceItem,
    GroupFrameItem,
)

if TYPE_CHECKING:
    from designer.gui.window.main_window import MainWindow

#: Device kinds a right-click can fail (with all their links).
FAILABLE = ("switch", "nic", "nvswitch", "gpu")
_TYPES = (DEVICE_TYPE, BUNDLE_TYPE, FRAME_TYPE, BOX_TYPE)


def _object_at(w: MainWindow, pos: QPoint) -> QGraphicsItem | None:
    """The device, bundle, frame or box under ``pos`` (a port or a label stands for its owner)."""
    item = w.view.itemAt(pos)
    while item is not None and item.type() not in _TYPES:
        item = item.parentItem()
    return item


def canvas_menu(w: MainWindow, pos: QPoint) -> QMenu:
    """The menu for what is under ``pos`` (viewport coordinates)."""
    item = _object_at(w, pos)
    menu = QMenu(w.view)
    if item is None:
        for key in ("paste", "select_all", "zoom_fit"):
            menu.addAction(w.actions_by_name[key])
        return menu
    if not item.isSelected():
        w.scene.clearSelection()
        item.setSelected(True)
    if isinstance(item, CollapsedGroupItem):
        box = item.group_id
        menu.addAction(f"Expand {box}", lambda: w.editor.set_collapsed([box], False))
    elif isinstance(item, GroupFrameItem):
        frame = item.group_id
        menu.addAction(f"Collapse {frame}", lambda: w.editor.set_collapsed([frame], True))
    menu.addAction("Properties", lambda: show_properties(w))
    if isinstance(item, (DeviceItem, CollapsedGroupItem)):
        menu.addAction("Select Neighbours", lambda: select_neighbours(w))
    if isinstance(item, DeviceItem):
        dev = w.document.design.device(item.device_id)
        if dev.model:
            menu.addAction(f"Select Same Model ({dev.model})", lambda: select_same_model(w, dev.model))
        _add_connect(w, menu, dev.id)
    _add_failures(w, menu, item)
    menu.addSeparator()
    menu.addAction(w.actions_by_name["delete"])
    return menu


def show_properties(w: MainWindow) -> None:
    dock = w.docks["inspector"]
    dock.show()
    dock.raise_()


def _selected_devices(w: MainWindow) -> list[str]:
    """The selected devices, and the members of selected groups."""
    d = w.document.design
    out = list(w.scene.selected_device_ids())
    for gid in w.scene.selected_group_ids():
        out.extend(dev.id for dev in d.all_members(gid))
    return list(dict.fromkeys(out))


def select_neighbours(w: MainWindow) -> list[str]:
    """Add to the selection every device linked to a selected one; return the devices selected."""
    d = w.document.design
    chosen = _selected_devices(w)
    inside = set(chosen)
    more = [lk.b_device if lk.a_device in inside else lk.a_device
            for did in chosen for lk in d.links_of(did)]
    ids = list(dict.fromkeys([*chosen, *(m for m in more if m not in inside)]))
    w.scene.select_devices(ids)
    w.statusBar().showMessage(f"selected {len(ids) - len(inside):,} neighbours", 4000)
    return ids


def select_same_model(w: MainWindow, model: str) -> list[str]:
    ids = [dev.id for dev in w.document.design.iter_devices() if dev.model == model]
    w.scene.select_devices(ids)
    w.statusBar().showMessage(f"selected {len(ids):,} \u00d7 {model}", 4000)
    return ids


def _add_connect(w: MainWindow, menu: QMenu, device_id: str) -> None:
    """Connect Selected ▸ to this switch: the NICs of the other selected devices, in rail order."""
    from designer.gui.canvas.cabling import nics_to_connect

    d = w.document.design
    if d.device(device_id).kind != "switch":
        return
    others = [i for i in _selected_devices(w) if i != device_id]
    if others and nics_to_connect(d, others):
        menu.addAction(f"Connect Selected \u25b8 to {device_id}", lambda: w.editor.connect_to_switch(others, device_id))


def _add_failures(w: MainWindow, menu: QMenu, item: QGraphicsItem) -> None:
    """Fail / Restore the links of a device, a bundle or a collapsed group's outside links."""
    d = w.document.design
    links: list[str] = []
    what = ""
    if isinstance(item, BundleItem):
        links = w.scene.bundle_link_ids(item.key)
        what = links[0] if len(links) == 1 else f"{len(links):,} links"
    elif isinstance(item, DeviceItem):
        dev = d.device(item.device_id)
        if dev.kind in FAILABLE:
            links = w.editor.failure_links(device_ids=[dev.id])
            what = dev.id
    elif isinstance(item, CollapsedGroupItem):
        gid = item.group_id
        members = [dev.id for dev in d.all_members(gid)]
        inside = set(members)
        links = [lid for lid in w.editor.failure_links(device_ids=members)
                 if not ({d.link(lid).a_device, d.link(lid).b_device} <= inside)]
        what = f"the links of {gid}"
    if not links:
        return
    failed = sum(1 for lid in links if d.link(lid).failed)
    menu.addSeparator()
    fail = menu.addAction(f"Fail {what}", lambda: w.editor.set_failed(links, True, what))
    fail.setEnabled(failed < len(links))
    restore = menu.addAction(f"Restore {what}", lambda: w.editor.set_failed(links, False, what))
    restore.setEnabled(failed > 0)


def _sources_and_switches(w: MainWindow) -> tuple[list[str], list[str]]:
    """The selection split into what to cable (servers, NICs) and the switches to cable it to."""
    d = w.document.design
    switches = [i for i in w.scene.selected_device_ids() if d.device(i).kind == "switch"]
    picked = set(switches)
    sources = [i for i in w.scene.selected_device_ids() if i not in picked] + list(w.scene.selected_group_ids())
    return sources, switches


def connect_selected(w: MainWindow) -> list[str]:
    """Design ▸ Connect Selected to Switch: the selected NICs and servers to the one selected switch."""
    sources, switches = _sources_and_switches(w)
    if len(switches) != 1:
        w.statusBar().showMessage("select one switch, and the servers or NICs to connect to it", 6000)
        return []
    return w.editor.connect_to_switch(sources, switches[0])


def cable_selected_rail_wise(w: MainWindow) -> list[str]:
    """Design ▸ Cable Rail-wise to Selected Leaves: rail r of each selected server to the r-th selected leaf."""
    sources, switches = _sources_and_switches(w)
    if not switches:
        w.statusBar().showMessage("select servers and the leaf switches to cable them to, rail by rail", 6000)
        return []
    chosen = set(switches)
    leaves = [dev.id for dev in w.document.design.iter_devices() if dev.id in chosen]  # in design order
    return w.editor.cable_rail_wise(sources, leaves)
