"""Group frames and collapsed-group boxes of the scene: their texts, sizes and places.

:class:`GroupShapes` owns a frame for every shown expanded group and a box for every shown
collapsed group; it reaches the scene only through :class:`GroupHost`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from operator import attrgetter
from typing import Protocol

from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QGraphicsItem

from designer.gui import style
from designer.gui.canvas.describe import count_text
from designer.gui.canvas.items import CollapsedGroupItem, DeviceItem, GroupFrameItem
from designer.gui.document.fragments import bounds
from designer.model import Design, Device, Group, units

_KIND = attrgetter("kind")


def box_title(design: Design, group_id: str) -> str:
    """A collapsed group's label: its name, or its id without the prefix of the group around it
    (``rack1`` inside ``su1``), as devices are labelled, so a small box still says which it is."""
    g = design.group(group_id)
    if g.name:
        return g.label
    for gid in design.ancestors(group_id)[1:]:
        if group_id.startswith(gid + "-") and len(group_id) > len(gid) + 1:
            return group_id[len(gid) + 1:]
    return g.label

class GroupHost(Protocol):
    """What the group shapes need from the scene."""

    design: Design | None
    device_items: dict[str, DeviceItem]

    def add_item(self, item: QGraphicsItem) -> None: ...
    def drop_item(self, item: QGraphicsItem) -> None: ...


class GroupShapes:
    """Frames around expanded groups, boxes for collapsed ones."""

    def __init__(self, host: GroupHost) -> None:
        self._host = host
        self.frames: dict[str, GroupFrameItem] = {}
        self.boxes: dict[str, CollapsedGroupItem] = {}
        #: While the scene is rebuilt: the devices each box hides, gathered in the rebuild's one pass
        #: over the devices (:meth:`box_members`); None otherwise.
        self.hidden: dict[str, list[Device]] | None = None

    def box_members(self, gid: str) -> list[Device]:
        """The devices a box hides, in any order: the design's ``all_members``, or what the rebuild
        gathered (at 131,072 GPUs, walking every box's subtree twice took 0.2 s of the rebuild)."""
        hidden = self.hidden
        members = hidden.get(gid) if hidden is not None else None
        if members is not None:
            return members
        d = self._host.design
        assert d is not None
        return d.all_members(gid)

    def clear(self) -> None:
        """Forget every shape (the scene already dropped the items)."""
        self.frames.clear()
        self.boxes.clear()

    def show(self, group: Group, *, text: bool = True, hidden: bool = False) -> CollapsedGroupItem | GroupFrameItem:
        """Add the shape for ``group`` as its collapsed state says.

        ``text``: fill in its title now; ``hidden``: invisible until :meth:`update` finds members.
        """
        item: CollapsedGroupItem | GroupFrameItem
        if group.collapsed:
            item = self.boxes[group.id] = CollapsedGroupItem(group.id, group.kind)
        else:
            item = self.frames[group.id] = GroupFrameItem(group.id, group.kind)
        if hidden:
            item.setVisible(False)
        self._host.add_item(item)
        if text:
            self.refresh_text(group.id)
        return item

    def drop(self, group_id: str) -> QGraphicsItem | None:
        """Remove the group's shape, if it has one; return it."""
        item: QGraphicsItem | None = self.boxes.pop(group_id, None) or self.frames.pop(group_id, None)
        if item is not None:
            self._host.drop_item(item)
        return item

    def shape_of(self, group_id: str) -> str | None:
        """``"box"``, ``"frame"`` or None: how the group is shown now."""
        if group_id in self.boxes:
            return "box"
        return "frame" if group_id in self.frames else None

    def chain(self, group_id: str | None) -> list[str]:
        """The group and the groups enclosing it that still exist, innermost first."""
        d = self._host.design
        assert d is not None
        out = []
        while group_id is not None and d.has_group(group_id):
            out.append(group_id)
            group_id = d.group(group_id).parent
        return out

    def refresh_text(self, gid: str) -> None:
        d = self._host.design
        assert d is not None
        g = d.group(gid)
        if gid in self.frames:
            self.frames[gid].set_title(f"{g.label}  ({g.kind})" if g.name else g.label)
        if gid in self.boxes:
            counts = Counter(map(_KIND, self.box_members(gid)))
            subs = Counter(map(_KIND, subtree(d, gid)[1:]))
            parts = [units.count(n, k) for k, n in subs.items() if k != "server" or n > 1]
            if subs.get("server") == 1:
                parts.append("1 server")
            parts += count_text(counts).split(", ") if counts else []
            self.boxes[gid].set_text(box_title(d, gid), " \u00b7 ".join(parts) or "empty")

    def update(self, group_ids: Iterable[str], rebuilding: bool = False) -> None:
        """Recompute frames (around their contents) and box positions (centre of their members)."""
        d = self._host.design
        assert d is not None
        todo = set()
        for gid in group_ids:
            todo.update(self.chain(gid) if d.has_group(gid) else ())
        if not todo:
            return
        device_items = self._host.device_items
        # innermost first: deeper groups before their parents
        depth = {g: len(d.ancestors(g)) for g in todo}
        for gid in sorted(todo, key=lambda g: -depth[g]):
            if gid in self.boxes:
                b = bounds(self.box_members(gid))
                box = self.boxes[gid]
                if not rebuilding:
                    self.refresh_text(gid)
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
                    item = device_items.get(dev.id)
                    if item is not None:
                        rect = rect.united(item.rect().translated(item.pos()))
                for child in d.child_groups(gid):
                    sub = self.frames.get(child.id)
                    if sub is not None and sub.isVisible():
                        rect = rect.united(sub.rect())
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


def subtree(d: Design, gid: str) -> list[Group]:
    """The group and all groups nested in it (the group first)."""
    out, stack = [], [d.group(gid)]
    while stack:
        g = stack.pop()
        out.append(g)
        stack.extend(d.child_groups(g.id))
    return out
