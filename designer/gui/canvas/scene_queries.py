"""What the scene can tell about its items: selection in model terms, design-rule marks.

A mixin of :class:`designer.gui.canvas.scene.DesignScene` (it uses the scene's id -> item maps).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from PySide6.QtWidgets import QGraphicsItem

from designer.gui.canvas.items import BOX_TYPE, BUNDLE_TYPE, DEVICE_TYPE, FRAME_TYPE
from designer.model import Design

Rep = str


class SceneQueries:
    """Selection queries and findings; items themselves know only their ids."""

    design: Design | None
    device_items: dict[str, Any]
    bundle_items: dict[tuple[Rep, Rep], Any]
    frames: dict[str, Any]
    boxes: dict[str, Any]
    _flagged_devices: dict[str, list[str]]
    _flagged_links: dict[str, list[str]]
    _bundle_links: dict[tuple[Rep, Rep], dict[str, None]]
    _link_key: dict[str, tuple[Rep, Rep] | None]
    _rep: dict[str, Rep]

    def set_findings(self, by_device: dict[str, list[str]], by_link: dict[str, list[str]]) -> None:
        """Mark devices and links that break design rules (messages shown on hover)."""
        old_links = set(self._flagged_links)
        self._flagged_devices, self._flagged_links = by_device, by_link
        keys = {self._link_key.get(lid) for lid in old_links | set(by_link)}
        for key in keys:
            if key is not None and key in self._bundle_links:
                self._refresh_bundle(key)
        self._apply_flags()
        self.invalidate_sketch()

    def _apply_flags(self) -> None:
        for did, item in self.device_items.items():
            item.set_flagged(did in self._flagged_devices)
        flagged_boxes = set()
        for did in self._flagged_devices:
            rep = self._rep.get(did)
            if rep is not None and rep.startswith("g:"):
                flagged_boxes.add(rep[2:])
        for gid, box in self.boxes.items():
            box.set_flagged(gid in flagged_boxes)

    def findings_for_links(self, link_ids: Iterable[str]) -> list[str]:
        out: list[str] = []
        for lid in link_ids:
            for msg in self._flagged_links.get(lid, ()):
                if msg not in out:
                    out.append(msg)
        return out

    def findings_for_device(self, device_id: str) -> list[str]:
        return list(self._flagged_devices.get(device_id, ()))

    # ------------------------------------------------------------------ selection
    def bundle_link_ids(self, key: tuple[Rep, Rep]) -> list[str]:
        return list(self._bundle_links.get(key, ()))

    def selection_keys(self) -> set[tuple[str, object]]:
        out: set[tuple[str, object]] = set()
        for item in self.selectedItems():
            t = item.type()
            if t == DEVICE_TYPE:
                out.add(("d", item.device_id))  # type: ignore[attr-defined]
            elif t == BUNDLE_TYPE:
                out.add(("b", item.key))  # type: ignore[attr-defined]
            elif t in (FRAME_TYPE, BOX_TYPE):
                out.add(("g", item.group_id))  # type: ignore[attr-defined]
        return out

    def restore_selection(self, keys: set[tuple[str, object]]) -> None:
        for kind, value in keys:
            item: QGraphicsItem | None = None
            if kind == "d":
                item = self.device_items.get(value)  # type: ignore[arg-type]
            elif kind == "b":
                item = self.bundle_items.get(value)  # type: ignore[arg-type]
            else:
                item = self.frames.get(value) or self.boxes.get(value)  # type: ignore[arg-type]
            if item is not None:
                item.setSelected(True)

    def selected_device_ids(self) -> list[str]:
        """Selected devices, including every member of selected groups, in design order."""
        d = self.design
        if d is None:
            return []
        ids: dict[str, None] = {}
        for item in self.selectedItems():
            t = item.type()
            if t == DEVICE_TYPE:
                ids[item.device_id] = None  # type: ignore[attr-defined]
            elif t in (FRAME_TYPE, BOX_TYPE):
                for dev in d.all_members(item.group_id):  # type: ignore[attr-defined]
                    ids[dev.id] = None
        if len(ids) < 2:
            return list(ids)
        return [dev.id for dev in d.iter_devices() if dev.id in ids]

    def selected_link_ids(self) -> list[str]:
        out: list[str] = []
        for item in self.selectedItems():
            if item.type() == BUNDLE_TYPE:
                out.extend(self._bundle_links.get(item.key, ()))  # type: ignore[attr-defined]
        return out

    def selected_group_ids(self) -> list[str]:
        return [
            item.group_id  # type: ignore[attr-defined]
            for item in self.selectedItems()
            if item.type() in (FRAME_TYPE, BOX_TYPE)
        ]

    def select_devices(self, device_ids: Iterable[str]) -> None:
        """Select the shown items standing for these devices (their collapsed groups, if hidden)."""
        self.clearSelection()
        for did in device_ids:
            rep = self._rep.get(did)
            if rep is None:
                continue
            item: QGraphicsItem | None = self.device_items.get(rep[2:]) if rep[0] == "d" else self.boxes.get(rep[2:])
            if item is not None:
                item.setSelected(True)

    def select_links(self, link_ids: Iterable[str]) -> QGraphicsItem | None:
        """Select the bundles holding these links (or the devices/boxes at their ends); return one item."""
        self.clearSelection()
        first: QGraphicsItem | None = None
        for lid in link_ids:
            key = self._link_key.get(lid)
            item: QGraphicsItem | None = self.bundle_items.get(key) if key is not None else None
            if item is None and self.design is not None and self.design.has_link(lid):
                item = self.item_for_device(self.design.link(lid).a_device)
            if item is not None:
                item.setSelected(True)
                first = first or item
        return first

    def item_for_device(self, device_id: str) -> QGraphicsItem | None:
        rep = self._rep.get(device_id)
        if rep is None:
            return None
        return self.device_items.get(rep[2:]) if rep[0] == "d" else self.boxes.get(rep[2:])
