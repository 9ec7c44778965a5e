"""What the scene can tell about its items: design-rule marks and the selection in model terms.

:class:`Findings` holds the design-rule messages per device and link and marks the items;
:class:`Selection` turns selected items into model ids and back. Both reach the scene only
through :class:`QueryHost`; items themselves know only their ids.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import Protocol

from PySide6.QtWidgets import QGraphicsItem

from designer.gui import style
from designer.gui.canvas.items import BOX_TYPE, BUNDLE_TYPE, DEVICE_TYPE, FRAME_TYPE, BundleItem, DeviceItem
from designer.gui.canvas.scene_bundles import LinkBundles
from designer.gui.canvas.scene_groups import GroupShapes
from designer.gui.canvas.shown import BundleKey, ShownKey
from designer.model import Design


class QueryHost(Protocol):
    """What findings and selection need from the scene."""

    design: Design | None
    device_items: dict[str, DeviceItem]
    bundles: LinkBundles
    groups: GroupShapes

    def shown_key_of(self, device_id: str) -> ShownKey | None: ...
    def item_for(self, shown: ShownKey) -> QGraphicsItem | None: ...
    def show_bundle(self, bundle: BundleItem) -> None: ...
    def selectedItems(self) -> list[QGraphicsItem]: ...  # noqa: N802 - Qt's name
    def clearSelection(self) -> None: ...  # noqa: N802 - Qt's name
    def selecting(self) -> AbstractContextManager[None]: ...


class Findings:
    """Design-rule messages by device and by link, and the marks they put on items."""

    def __init__(self, host: QueryHost) -> None:
        self._host = host
        self._by_device: dict[str, list[str]] = {}
        self._by_link: dict[str, list[str]] = {}
        #: whether findings mark items (View > Design-Rule Marks); hover texts name them either way
        self.shown = True
        #: Devices whose items may carry a mark: those with findings at the last marking.
        self._marked: set[str] = set()

    def replace(self, by_device: dict[str, list[str]], by_link: dict[str, list[str]]) -> set[str]:
        """Take new findings; return the links whose mark may have changed."""
        changed = set(self._by_link) | set(by_link)
        self._by_device, self._by_link = by_device, by_link
        return changed

    def device_flagged(self, device_id: str) -> bool:
        return device_id in self._by_device

    def link_flagged(self, link_id: str) -> bool:
        return link_id in self._by_link

    @staticmethod
    def _level(texts: Iterable[str]) -> str:
        level = ""
        for t in texts:
            level = style.worst_flag(level, style.ERROR if t.startswith(style.ERROR) else style.WARN)
        return level

    def device_flag(self, device_id: str) -> str:
        """The level of the device's worst finding as marked: "error", "warning" or "" (none, or marks hidden)."""
        return self._level(self._by_device.get(device_id, ())) if self.shown else ""

    def any_link_flag(self) -> bool:
        """Some link is marked (findings of links, and the marks shown)."""
        return self.shown and bool(self._by_link)

    def link_flag(self, link_id: str) -> str:
        """The level of the link's worst finding as marked: "error", "warning" or "" (none, or marks hidden)."""
        return self._level(self._by_link.get(link_id, ())) if self.shown else ""

    def for_device(self, device_id: str) -> list[str]:
        return list(self._by_device.get(device_id, ()))

    def for_links(self, link_ids: Iterable[str]) -> list[str]:
        out: list[str] = []
        for lid in link_ids:
            for msg in self._by_link.get(lid, ()):
                if msg not in out:
                    out.append(msg)
        return out

    def mark_items(self) -> None:
        """Flag the device items and the boxes hiding a flagged device.

        Only the items of devices with findings now or at the last marking can change (an item is
        made with its device's mark), so the cost follows the findings, not the design's size.
        """
        host = self._host
        items = host.device_items
        marked = set(self._by_device) if self.shown else set()
        for did in marked | self._marked:
            item = items.get(did)
            if item is not None:
                item.set_flagged(self.device_flag(did))
        self._marked = marked
        flagged_boxes: dict[str, str] = {}
        for did in self._by_device if self.shown else ():
            shown = host.shown_key_of(did)
            if shown is not None and shown.is_group:
                flagged_boxes[shown.id] = style.worst_flag(flagged_boxes.get(shown.id, ""), self.device_flag(did))
        for gid, box in host.groups.boxes.items():
            box.set_flagged(flagged_boxes.get(gid, ""))


class Selection:
    """Selected items as model ids, and selecting items by model ids."""

    def __init__(self, host: QueryHost) -> None:
        self._host = host

    def keys(self) -> set[ShownKey | BundleKey]:
        """What is selected, in a form that survives a rebuild (see :meth:`restore`): devices and
        groups (frames or boxes) by their :class:`ShownKey`, bundles by their key."""
        out: set[ShownKey | BundleKey] = set()
        for item in self._host.selectedItems():
            t = item.type()
            if t == DEVICE_TYPE:
                out.add(ShownKey.device(item.device_id))  # type: ignore[attr-defined]
            elif t == BUNDLE_TYPE:
                out.add(item.key)  # type: ignore[attr-defined]
            elif t in (FRAME_TYPE, BOX_TYPE):
                out.add(ShownKey.group(item.group_id))  # type: ignore[attr-defined]
        return out

    def restore(self, keys: set[ShownKey | BundleKey]) -> None:
        host = self._host
        if not keys:
            return
        with host.selecting():
            for key in keys:
                item: QGraphicsItem | None
                if not isinstance(key, ShownKey):
                    item = host.bundles.items.get(key)
                    if item is not None:
                        host.show_bundle(item)  # links are out of the scene while it is sketched
                elif key.is_device:
                    item = host.device_items.get(key.id)
                else:
                    item = host.groups.frames.get(key.id) or host.groups.boxes.get(key.id)
                if item is not None:
                    item.setSelected(True)

    def device_ids(self) -> list[str]:
        """Selected devices, including every member of selected groups, in design order."""
        d = self._host.design
        if d is None:
            return []
        ids: dict[str, None] = {}
        for item in self._host.selectedItems():
            t = item.type()
            if t == DEVICE_TYPE:
                ids[item.device_id] = None  # type: ignore[attr-defined]
            elif t in (FRAME_TYPE, BOX_TYPE):
                for dev in d.all_members(item.group_id):  # type: ignore[attr-defined]
                    ids[dev.id] = None
        if len(ids) < 2:
            return list(ids)
        return [dev.id for dev in d.iter_devices() if dev.id in ids]

    def link_ids(self) -> list[str]:
        out: list[str] = []
        for item in self._host.selectedItems():
            if item.type() == BUNDLE_TYPE:
                out.extend(self._host.bundles.link_ids(item.key))  # type: ignore[attr-defined]
        return out

    def group_ids(self) -> list[str]:
        return [
            item.group_id  # type: ignore[attr-defined]
            for item in self._host.selectedItems()
            if item.type() in (FRAME_TYPE, BOX_TYPE)
        ]

    def item_for_device(self, device_id: str) -> QGraphicsItem | None:
        """The item showing a device: its own, or the box of the collapsed group hiding it."""
        shown = self._host.shown_key_of(device_id)
        return None if shown is None else self._host.item_for(shown)

    def select_devices(self, device_ids: Iterable[str]) -> None:
        """Select the shown items standing for these devices (their collapsed groups, if hidden)."""
        with self._host.selecting():
            self._host.clearSelection()
            for did in device_ids:
                item = self.item_for_device(did)
                if item is not None:
                    item.setSelected(True)

    def select_links(self, link_ids: Iterable[str]) -> QGraphicsItem | None:
        """Select the bundles holding these links (or the devices/boxes at their ends); return one item."""
        host = self._host
        first: QGraphicsItem | None = None
        with host.selecting():
            host.clearSelection()
            for lid in link_ids:
                key = host.bundles.key_of(lid)
                bundle = host.bundles.items.get(key) if key is not None else None
                if bundle is not None:
                    host.show_bundle(bundle)  # links are out of the scene while it is sketched
                item: QGraphicsItem | None = bundle
                if item is None and host.design is not None and host.design.has_link(lid):
                    item = self.item_for_device(host.design.link(lid).a_device)
                if item is not None:
                    item.setSelected(True)
                    first = first or item
        return first
