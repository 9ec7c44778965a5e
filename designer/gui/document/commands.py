"""Undo commands: every edit of the design made in the window.

Commands call only model primitives (``designer.model.Design``); the scene redraws because the
model emits events. Commands never touch graphics items. Multi-step commands run inside
``design.batch()`` so listeners hear one ``changed`` per user action.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtGui import QUndoCommand

from designer.model import Design, Device, Group, Link, units


class DesignCommand(QUndoCommand):
    """A command on one design; subclasses implement ``_redo`` / ``_undo``.

    A command may have steps (``parent=`` another command): they run after the parent's own
    ``_redo`` in order, and are undone in reverse before its ``_undo``. Steps are kept in a Python
    list, not as QUndoCommand children: PySide6 leaves children owned by Python, so Qt deleting
    them with their parent would free them twice.
    """

    def __init__(self, design: Design, text: str, parent: DesignCommand | None = None) -> None:
        super().__init__(text)
        self.design = design
        self.applied = False
        self.steps: list[DesignCommand] = []
        if parent is not None:
            parent.steps.append(self)

    def apply(self) -> None:
        """Run the first redo now, so that a refused edit raises here instead of inside Qt's push."""
        self.redo()
        self.applied = True

    def redo(self) -> None:
        if self.applied:  # already run by apply(); QUndoStack.push calls redo once more
            self.applied = False
            return
        with self.design.batch():
            self._redo_all()

    def undo(self) -> None:
        with self.design.batch():
            self._undo_all()

    def _redo_all(self) -> None:
        """Run this command and its steps; if the model refuses one, undo what ran and re-raise.

        So a refused edit changes nothing, even when it is the third step of a macro.
        """
        self._redo()
        done: list[DesignCommand] = []
        try:
            for step in self.steps:
                step._redo_all()
                done.append(step)
        except Exception:
            for step in reversed(done):
                step._undo_all()
            self._undo()
            raise

    def _undo_all(self) -> None:
        for step in reversed(self.steps):
            step._undo_all()
        self._undo()

    def _redo(self) -> None:
        pass

    def _undo(self) -> None:
        pass


class MacroCommand(DesignCommand):
    """A command whose steps do the work; one undo step, one ``changed`` event."""


# ----------------------------------------------------------------------------- devices
class AddDeviceCommand(DesignCommand):
    def __init__(self, design: Design, device: Device, parent: DesignCommand | None = None) -> None:
        super().__init__(design, f"Place {device.label}", parent)
        self.device = device
        self.index: int | None = None

    def _redo(self) -> None:
        self.index = self.design.add_device(self.device, self.index)

    def _undo(self) -> None:
        self.device, self.index = self.design.remove_device(self.device.id)


class RemoveRecordsCommand(DesignCommand):
    """Remove records of one table in one pass over it, and put them back on undo (a step of
    :func:`delete_command`): ``remove`` and ``restore`` are the design's pair of methods for it."""

    noun: str
    remove: Callable[[Design, list[str]], list[tuple[Any, int]]]
    restore: Callable[[Design, list[tuple[Any, int]]], None]

    def __init__(self, design: Design, ids: Iterable[str], parent: DesignCommand | None = None) -> None:
        self.ids = list(ids)
        super().__init__(design, f"Remove {units.count(len(self.ids), self.noun)}", parent)
        self.removed: list[tuple[Any, int]] = []

    def _redo(self) -> None:
        self.removed = self.remove(self.design, self.ids)

    def _undo(self) -> None:
        self.restore(self.design, self.removed)


class RemoveLinksCommand(RemoveRecordsCommand):
    """Remove links (:meth:`Design.remove_links`)."""

    noun = "link"
    remove, restore = staticmethod(Design.remove_links), staticmethod(Design.restore_links)


class RemoveDevicesCommand(RemoveRecordsCommand):
    """Remove devices that have no links (:meth:`Design.remove_devices`)."""

    noun = "device"
    remove, restore = staticmethod(Design.remove_devices), staticmethod(Design.restore_devices)


class RemoveGroupsCommand(RemoveRecordsCommand):
    """Remove groups, sub-groups first (:meth:`Design.remove_groups`)."""

    noun = "group"
    remove, restore = staticmethod(Design.remove_groups), staticmethod(Design.restore_groups)


class MoveDevicesCommand(DesignCommand):
    """Move devices to new positions: one command per drag gesture."""

    def __init__(
        self,
        design: Design,
        new: dict[str, tuple[float, float]],
        old: dict[str, tuple[float, float]] | None = None,
        parent: DesignCommand | None = None,
    ) -> None:
        n = len(new)
        super().__init__(design, f"Move {next(iter(new)) if n == 1 else units.count(n, 'device')}", parent)
        self.new = dict(new)
        self.old = dict(old) if old is not None else {d: (design.device(d).x, design.device(d).y) for d in new}

    def _redo(self) -> None:
        self.design.move_devices(self.new)

    def _undo(self) -> None:
        self.design.move_devices(self.old)


class SetDeviceFieldCommand(DesignCommand):
    """Set a device field (``name``, ``model``, ``tier``, ``kind``, ``ports``) or ``group``."""

    def __init__(
        self, design: Design, device_id: str, field: str, value: Any, parent: DesignCommand | None = None
    ) -> None:
        super().__init__(design, f"Set {field} of {device_id}", parent)
        self.device_id = device_id
        self.field = field
        self.value = value
        self.old: Any = None

    def _redo(self) -> None:
        if self.field == "group":
            self.old = self.design.set_device_group(self.device_id, self.value)
        else:
            self.old = self.design.set_device_field(self.device_id, self.field, self.value)

    def _undo(self) -> None:
        if self.field == "group":
            self.design.set_device_group(self.device_id, self.old)
        else:
            self.design.set_device_field(self.device_id, self.field, self.old)


class SetDevicePropertyCommand(DesignCommand):
    def __init__(
        self, design: Design, device_id: str, key: str, value: Any, parent: DesignCommand | None = None
    ) -> None:
        super().__init__(design, f"Set {key} of {device_id}", parent)
        self.device_id = device_id
        self.key = key
        self.value = value
        self.old: Any = None

    def _redo(self) -> None:
        self.old = self.design.set_device_property(self.device_id, self.key, self.value)

    def _undo(self) -> None:
        self.design.set_device_property(self.device_id, self.key, self.old)


class SetDesignFieldCommand(DesignCommand):
    """Set the design's ``name`` or ``description``."""

    def __init__(self, design: Design, field: str, value: str, parent: DesignCommand | None = None) -> None:
        super().__init__(design, f"Set design {field}", parent)
        self.field = field
        self.value = value
        self.old = ""

    def _redo(self) -> None:
        self.old = self.design.set_design_field(self.field, self.value)

    def _undo(self) -> None:
        self.design.set_design_field(self.field, self.old)


# ----------------------------------------------------------------------------- links
class AddLinkCommand(DesignCommand):
    def __init__(self, design: Design, link: Link, parent: DesignCommand | None = None) -> None:
        super().__init__(design, f"Connect {link.a} to {link.b}", parent)
        self.link = link
        self.index: int | None = None

    def _redo(self) -> None:
        self.index = self.design.add_link(self.link, self.index)

    def _undo(self) -> None:
        self.link, self.index = self.design.remove_link(self.link.id)


class SetLinkFieldCommand(DesignCommand):
    """Set ``medium``, ``length_m``, ``cable`` or ``failed`` on one or more links."""

    def __init__(
        self, design: Design, link_ids: Iterable[str], field: str, value: Any, parent: DesignCommand | None = None
    ) -> None:
        self.link_ids = list(link_ids)
        what = self.link_ids[0] if len(self.link_ids) == 1 else units.count(len(self.link_ids), "link")
        super().__init__(design, f"Set {field} of {what}", parent)
        self.field = field
        self.value = value
        self.old: dict[str, Any] = {}

    def _redo(self) -> None:
        self.old = {lid: self.design.set_link_field(lid, self.field, self.value) for lid in self.link_ids}

    def _undo(self) -> None:
        for lid in reversed(self.link_ids):
            self.design.set_link_field(lid, self.field, self.old[lid])


# ----------------------------------------------------------------------------- groups
class AddGroupCommand(DesignCommand):
    def __init__(self, design: Design, group: Group, parent: DesignCommand | None = None) -> None:
        super().__init__(design, f"Add group {group.label}", parent)
        self.group = group
        self.index: int | None = None

    def _redo(self) -> None:
        self.index = self.design.add_group(self.group, self.index)

    def _undo(self) -> None:
        self.group, self.index = self.design.remove_group(self.group.id)


class RemoveGroupCommand(DesignCommand):
    def __init__(self, design: Design, group_id: str, parent: DesignCommand | None = None) -> None:
        super().__init__(design, f"Remove group {group_id}", parent)
        self.group_id = group_id
        self.removed: tuple[Group, int] | None = None

    def _redo(self) -> None:
        self.removed = self.design.remove_group(self.group_id)

    def _undo(self) -> None:
        assert self.removed is not None
        group, index = self.removed
        self.design.add_group(group, index)


class SetGroupFieldCommand(DesignCommand):
    """Set ``name``, ``kind``, ``parent`` or ``collapsed`` of one or more groups."""

    def __init__(
        self, design: Design, group_ids: Iterable[str], field: str, value: Any, parent: DesignCommand | None = None
    ) -> None:
        self.group_ids = list(group_ids)
        what = self.group_ids[0] if len(self.group_ids) == 1 else units.count(len(self.group_ids), "group")
        if field == "collapsed":
            text = f"{'Collapse' if value else 'Expand'} {what}"
        else:
            text = f"Set {field} of {what}"
        super().__init__(design, text, parent)
        self.field = field
        self.value = value
        self.old: dict[str, Any] = {}

    def _redo(self) -> None:
        self.old = {gid: self.design.set_group_field(gid, self.field, self.value) for gid in self.group_ids}

    def _undo(self) -> None:
        for gid in reversed(self.group_ids):
            self.design.set_group_field(gid, self.field, self.old[gid])


class InsertDesignCommand(DesignCommand):
    """Append whole groups, devices and links (generate, paste, duplicate, place a server).

    The records must already carry ids that are free in the design (see
    :func:`designer.gui.document.fragments.rename_for`). Undo removes them in reverse order.
    """

    def __init__(
        self,
        design: Design,
        groups: list[Group],
        devices: list[Device],
        links: list[Link],
        text: str,
        parent: DesignCommand | None = None,
    ) -> None:
        super().__init__(design, text, parent)
        self.groups = groups
        self.devices = devices
        self.links = links

    def _redo(self) -> None:
        d = self.design
        added: list[tuple[str, str]] = []
        try:
            for g in self.groups:
                d.add_group(g)
                added.append(("group", g.id))
            for dev in self.devices:
                d.add_device(dev)
                added.append(("device", dev.id))
            for link in self.links:
                d.add_link(link)
                added.append(("link", link.id))
        except Exception:  # a refused record: take back the ones already in
            remove = {"group": d.remove_group, "device": d.remove_device, "link": d.remove_link}
            for table, rid in reversed(added):
                remove[table](rid)
            raise

    def _undo(self) -> None:
        d = self.design
        for link in reversed(self.links):
            d.remove_link(link.id)
        for dev in reversed(self.devices):
            d.remove_device(dev.id)
        for g in reversed(self.groups):
            d.remove_group(g.id)


# ----------------------------------------------------------------------------- compound edits
def delete_command(
    design: Design,
    device_ids: Iterable[str] = (),
    link_ids: Iterable[str] = (),
    group_ids: Iterable[str] = (),
) -> MacroCommand | None:
    """One undo step that deletes links, devices (their links first) and groups (with their contents).

    Children run in order: links, then devices, then groups innermost first; undo replays them
    backwards, so every object returns to its index. Returns None when there is nothing to delete.
    """
    groups: dict[str, None] = {}
    for gid in group_ids:
        stack = [gid]
        while stack:
            g = stack.pop()
            if g not in groups:
                groups[g] = None
                stack.extend(c.id for c in design.child_groups(g))
    devices: dict[str, None] = dict.fromkeys(device_ids)
    for gid in groups:
        for dev in design.members(gid):
            devices[dev.id] = None
    links: dict[str, None] = dict.fromkeys(link_ids)
    for did in devices:
        for link in design.links_of(did):
            links[link.id] = None
    if not (groups or devices or links):
        return None
    parts = []
    if devices:
        parts.append(units.count(len(devices), "device"))
    if links:
        parts.append(units.count(len(links), "link"))
    if groups:
        parts.append(units.count(len(groups), "group"))
    macro = MacroCommand(design, "Delete " + ", ".join(parts))
    if links:
        RemoveLinksCommand(design, links, macro)
    if devices:
        RemoveDevicesCommand(design, devices, macro)
    if groups:
        depth = {g: len(design.ancestors(g)) for g in groups}
        RemoveGroupsCommand(design, sorted(groups, key=lambda g: -depth[g]), macro)
    return macro


def group_command(design: Design, device_ids: list[str], group: Group) -> MacroCommand:
    """Put devices into a new group (nested in their common group, if they share one)."""
    macro = MacroCommand(design, f"Group {units.count(len(device_ids), 'device')}")
    AddGroupCommand(design, group, macro)
    for did in device_ids:
        SetDeviceFieldCommand(design, did, "group", group.id, macro)
    return macro


def ungroup_command(design: Design, group_id: str) -> MacroCommand:
    """Dissolve a group: its devices and sub-groups move to its parent, then it is removed."""
    group = design.group(group_id)
    macro = MacroCommand(design, f"Ungroup {group.label}")
    if group.collapsed:
        SetGroupFieldCommand(design, [group_id], "collapsed", False, macro)
    for dev in design.members(group_id):
        SetDeviceFieldCommand(design, dev.id, "group", group.parent, macro)
    for child in design.child_groups(group_id):
        SetGroupFieldCommand(design, [child.id], "parent", group.parent, macro)
    RemoveGroupCommand(design, group_id, macro)
    return macro
