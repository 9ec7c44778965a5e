"""Group frames and collapsed-group boxes of the scene: their texts, sizes and places.

A mixin of :class:`designer.gui.canvas.scene.DesignScene` (it uses the scene's ``design``, ``frames``,
``boxes`` and ``device_items``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import shiboken6
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QGraphicsItem

from designer.gui import style
from designer.gui.canvas.items import CollapsedGroupItem, GroupFrameItem
from designer.gui.document.fragments import bounds
from designer.model import Design, Group


class SceneGroups:
    """Frames around expanded groups, boxes for collapsed ones."""

    def _regroup(self, gid: str) -> set[tuple[str, str]]:
        """Show group ``gid`` as its collapsed state now says, touching only its own subtree.

        Members that became hidden lose their items, members that became shown get one; frames
        and boxes of the subtree are swapped; the links of the members are re-bundled. Returns
        the bundle keys to refresh. (A collapse or expand no longer rebuilds the whole canvas.)
        """
        d = self.design
        assert d is not None
        scene: Any = self
        groups = _subtree(d, gid)
        members = d.all_members(gid)
        lost_selection = False
        for dev in members:
            new = scene._rep_for(dev)
            old = scene._rep.get(dev.id)
            if new == old:
                continue
            scene._rep[dev.id] = new
            if old == "d:" + dev.id:
                item = scene.device_items.pop(dev.id, None)
                if item is not None:
                    lost_selection = lost_selection or item.isSelected()
                    scene.removeItem(item)
            if new == "d:" + dev.id:
                scene._add_device_item(dev)
        for g in groups:
            hidden = any(d.group(a).collapsed for a in d.ancestors(g.parent))
            want = None if hidden else ("box" if g.collapsed else "frame")
            have = "box" if g.id in self.boxes else ("frame" if g.id in self.frames else None)
            if want == have:
                continue
            old_item = self.boxes.pop(g.id, None) or self.frames.pop(g.id, None)
            was_selected = False
            if old_item is not None:
                was_selected = old_item.isSelected()
                scene.removeItem(old_item)
            if want is not None:
                item = CollapsedGroupItem(g.id, g.kind) if want == "box" else GroupFrameItem(g.id, g.kind)
                (self.boxes if want == "box" else self.frames)[g.id] = item
                scene._add(item)
                scene._refresh_group_text(g.id)
                item.setSelected(was_selected or (lost_selection and want == "box"))
        dirty: set[tuple[str, str]] = set()
        seen: set[str] = set()
        for dev in members:
            for link in d.links_of(dev.id):
                if link.id in seen:
                    continue
                seen.add(link.id)
                key = scene._link_key.get(link.id)
                if key is not None:
                    scene._bundle_links.get(key, {}).pop(link.id, None)
                    dirty.add(key)
                new_key = scene._add_link_to_bundle(link)
                if new_key is not None:
                    dirty.add(new_key)
        scene._apply_flags()
        return dirty

    design: Design | None
    frames: dict[str, Any]
    boxes: dict[str, Any]
    device_items: dict[str, Any]

    def restore_positions(self, items: Iterable[QGraphicsItem]) -> None:
        """Put items a gesture moved back where the model says (devices at their positions, boxes
        at the centre of their members, frames at rest); items no longer in the scene are skipped."""
        d = self.design
        if d is None:
            return
        reps, boxes = [], []
        for item in items:
            if not shiboken6.isValid(item) or item.scene() is not self:
                continue
            if isinstance(item, GroupFrameItem):
                item.setPos(0, 0)
            elif isinstance(item, CollapsedGroupItem):
                boxes.append(item.group_id)
                reps.append("g:" + item.group_id)
            elif d.has_device(item.device_id):  # type: ignore[attr-defined]
                dev = d.device(item.device_id)  # type: ignore[attr-defined]
                item.setPos(dev.x, dev.y)
                reps.append("d:" + dev.id)
        self._update_groups(boxes)
        self.update_bundles_of(reps)  # type: ignore[attr-defined]

    def _groups_of(self, group_id: str | None) -> list[str]:
        d = self.design
        assert d is not None
        out = []
        while group_id is not None and d.has_group(group_id):
            out.append(group_id)
            group_id = d.group(group_id).parent
        return out

    def _refresh_group_text(self, gid: str) -> None:
        d = self.design
        assert d is not None
        g = d.group(gid)
        if gid in self.frames:
            self.frames[gid].set_title(f"{g.label}  ({g.kind})" if g.name else g.label)
        if gid in self.boxes:
            counts = Counter(dev.kind for dev in d.all_members(gid))
            subs = Counter(c.kind for c in _subgroups(d, gid))
            parts = [f"{n:,} {k}{'s' if n != 1 else ''}" for k, n in subs.items() if k != "server" or n > 1]
            if subs.get("server") == 1:
                parts.append("1 server")
            names = {"gpu": "GPU", "nic": "NIC", "nvswitch": "NVLink switch", "switch": "switch", "storage": "storage"}
            parts += [
                f"{counts[k]:,} {names[k]}{'s' if counts[k] != 1 and k != 'storage' else ''}"
                for k in names
                if counts.get(k)
            ]
            self.boxes[gid].set_text(g.label, " \u00b7 ".join(parts) or "empty")

    def _update_groups(self, group_ids: Iterable[str], rebuilding: bool = False) -> None:
        """Recompute frames (around their contents) and box positions (centre of their members)."""
        d = self.design
        assert d is not None
        todo = set()
        for gid in group_ids:
            todo.update(self._groups_of(gid) if d.has_group(gid) else ())
        if not todo:
            return
        # innermost first: deeper groups before their parents
        depth = {g: len(d.ancestors(g)) for g in todo}
        for gid in sorted(todo, key=lambda g: -depth[g]):
            if gid in self.boxes:
                b = bounds(d.all_members(gid))
                box = self.boxes[gid]
                if not rebuilding:
                    self._refresh_group_text(gid)
                if b is not None:
                    box.setPos((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
                    box.setVisible(True)
                else:
                    box.setVisible(False)
                if b is not None:
                    mw, mh = style.COLLAPSED_SIZES.get(box.kind, style.COLLAPSED_SIZES["custom"])
                    box.set_size(max(mw, b[2] - b[0] + 90), max(mh, b[3] - b[1] + 70))
            elif gid in self.frames:
                rect = QRectF()
                for dev in d.members(gid):
                    item = self.device_items.get(dev.id)
                    if item is not None:
                        rect = rect.united(item.rect().translated(item.pos()))
                for child in d.child_groups(gid):
                    sub: QGraphicsItem | None = self.frames.get(child.id)
                    if sub is not None and sub.isVisible():
                        rect = rect.united(sub.rect())  # type: ignore[attr-defined]
                    box = self.boxes.get(child.id)
                    if box is not None and box.isVisible():
                        rect = rect.united(box.rect().translated(box.pos()))
                frame = self.frames[gid]
                if rect.isNull():
                    frame.setVisible(False)
                    continue
                pad = style.GROUP_PADDING
                frame.set_rect(rect.adjusted(-pad, -pad - style.GROUP_HEADER, pad, pad))
                frame.setVisible(True)
                frame.setZValue(-10 + (depth[gid] - 1) * 0.01)  # inner frames above outer ones


def _subgroups(d: Design, gid: str) -> list:
    out, stack = [], list(d.child_groups(gid))
    while stack:
        g = stack.pop()
        out.append(g)
        stack.extend(d.child_groups(g.id))
    return out




def _subtree(d: Design, gid: str) -> list[Group]:
    """The group and all groups nested in it."""
    out, stack = [], [d.group(gid)]
    while stack:
        g = stack.pop()
        out.append(g)
        stack.extend(d.child_groups(g.id))
    return out
