"""The design: an ordered collection of devices, links and groups with invertible edits.

Every change goes through a primitive here. Each primitive checks the model's invariants,
applies the change, emits a past-tense event, and returns what is needed to invert it:
``remove_*`` returns the removed object and its index, ``add_*`` accepts that index, and
``set_*`` / ``move_*`` return the previous value. Undo commands are built from these alone.

Invariants: ids are unique per table; a port holds at most one link; a link joins two
different devices through ports that exist; a device in a group names an existing group;
groups nest without cycles; a device is removed only after its links are removed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from designer.model.appending import BulkAppend
from designer.model.entities import (
    DEVICE_KINDS,
    GROUP_KINDS,
    MAX_LINK_LENGTH_M,
    MEDIA,
    Device,
    Group,
    Link,
    PortGroup,
    check_coord,
    check_finite,
    check_id,
)
from designer.model.errors import (
    DuplicateIdError,
    InvalidValueError,
    ModelError,
    PortInUseError,
    SelfLinkError,
    UnknownIdError,
)
from designer.model.events import Signal
from designer.model.hierarchy import GroupHierarchy
from designer.model.table import Table
from designer.model.units import count

DEVICE_FIELDS = ("name", "model", "tier", "kind", "ports")
LINK_FIELDS = ("medium", "length_m", "cable", "failed")
GROUP_FIELDS = ("name", "kind", "parent", "collapsed")

_SUFFIX_RE = re.compile(r"^(.*?)-(\d+)$")


class Design(GroupHierarchy, BulkAppend):
    """A fabric design: devices, links, groups, positions and free-form metadata.

    Examples
    --------
    >>> from designer.model import Design, Device, Link, PortGroup
    >>> d = Design("two GPUs")
    >>> net = (PortGroup("p", 1, 400.0),)
    >>> _ = d.add_device(Device("a", "nic", net))
    >>> _ = d.add_device(Device("b", "nic", net))
    >>> _ = d.add_link(Link("l1", "a", "p1", "b", "p1", medium="passive_copper", length_m=2))
    >>> [l.id for l in d.links_of("a")]
    ['l1']
    """

    def __init__(self, name: str = "Untitled", description: str = "") -> None:
        self.name = name
        self.description = description
        self.properties: dict[str, Any] = {}
        self._devices = Table()
        self._links = Table()
        self._groups = Table()
        #: device id -> {port id: id of the link on it} (read through ``_device_ports``)
        self._held_ports: dict[str, dict[str, str]] | None = {}
        self._ends_pending: tuple[dict[str, dict[str, str]], int, int] | None = None
        self._group_members: dict[str, dict[str, None]] = {}
        self._group_children: dict[str, dict[str, None]] = {}
        self._suffix_hint: dict[str, int] = {}
        self._batch_depth = 0
        self._batch_dirty = False
        # Events (past tense). Arguments are documented next to each emit.
        self.device_added = Signal("device_added")  # (device, index)
        self.device_removed = Signal("device_removed")  # (device, index)
        self.link_added = Signal("link_added")  # (link, index)
        self.link_removed = Signal("link_removed")  # (link, index)
        self.group_added = Signal("group_added")  # (group, index)
        self.group_removed = Signal("group_removed")  # (group, index)
        self.devices_moved = Signal("devices_moved")  # (list of device ids)
        self.device_changed = Signal("device_changed")  # (device id, field, old, new)
        self.link_changed = Signal("link_changed")  # (link id, field, old, new)
        self.group_changed = Signal("group_changed")  # (group id, field, old, new)
        self.design_changed = Signal("design_changed")  # (field, old, new)
        self.batch_finished = Signal("batch_finished")  # ()
        self.changed = Signal("changed")  # () once per primitive, or once per outermost batch

    # ------------------------------------------------------------------ queries
    def __repr__(self) -> str:
        return (
            f"Design({self.name!r}, {len(self._devices.order)} devices, "
            f"{len(self._links.order)} links, {len(self._groups.order)} groups)"
        )

    @property
    def devices(self) -> list[Device]:
        """Devices in order (a copy of the list; the devices themselves are live)."""
        return list(self._devices.order)

    @property
    def links(self) -> list[Link]:
        return list(self._links.order)

    @property
    def groups(self) -> list[Group]:
        return list(self._groups.order)

    def iter_devices(self) -> Iterator[Device]:
        return iter(self._devices.order)

    def iter_links(self) -> Iterator[Link]:
        return iter(self._links.order)

    def iter_groups(self) -> Iterator[Group]:
        return iter(self._groups.order)

    def group_count(self) -> int:
        return len(self._groups.order)

    def device_count(self) -> int:
        return len(self._devices.order)

    def link_count(self) -> int:
        return len(self._links.order)

    def has_device(self, device_id: str) -> bool:
        return device_id in self._devices.by_id

    def has_link(self, link_id: str) -> bool:
        return link_id in self._links.by_id

    def has_group(self, group_id: str) -> bool:
        return group_id in self._groups.by_id

    def device(self, device_id: str) -> Device:
        try:
            return self._devices.by_id[device_id]
        except KeyError:
            raise UnknownIdError(f"no device {device_id!r}") from None

    def link(self, link_id: str) -> Link:
        try:
            return self._links.by_id[link_id]
        except KeyError:
            raise UnknownIdError(f"no link {link_id!r}") from None

    def devices_named(self, device_ids: Iterable[str]) -> list[Device]:
        """The devices of ``device_ids``, in their order, as :meth:`device` of each, looked up without
        a Python call per device (the two ends of every link the canvas draws)."""
        try:
            return list(map(self._devices.by_id.__getitem__, device_ids))
        except KeyError as e:
            raise UnknownIdError(f"no device {e.args[0]!r}") from None

    def links_named(self, link_ids: Iterable[str]) -> list[Link]:
        """The links of ``link_ids``, in their order, as :meth:`link` of each, looked up without a Python
        call per link (the canvas asks for the 262,144 links it draws at 131,072 GPUs at once)."""
        try:
            return list(map(self._links.by_id.__getitem__, link_ids))
        except KeyError as e:
            raise UnknownIdError(f"no link {e.args[0]!r}") from None

    def group(self, group_id: str) -> Group:
        try:
            return self._groups.by_id[group_id]
        except KeyError:
            raise UnknownIdError(f"no group {group_id!r}") from None

    def device_index(self, device_id: str) -> int:
        return self._devices.order.index(self.device(device_id))

    def links_of(self, device_id: str) -> list[Link]:
        """Links attached to a device, in the order they were added."""
        by_id = self._links.by_id
        return [by_id[i] for i in self._device_ports.get(device_id, {}).values()]

    def link_at(self, device_id: str, port_id: str) -> Link | None:
        lid = self._device_ports.get(device_id, {}).get(port_id)
        return None if lid is None else self._links.by_id[lid]

    def free_ports(self, device_id: str, kind: str | None = None) -> list[str]:
        """Ids of the device's ports that hold no link, optionally of one port kind."""
        dev = self.device(device_id)
        used = self._device_ports[device_id]
        return [p.id for p in dev.iter_ports() if (kind is None or p.kind == kind) and p.id not in used]

    def unique_id(self, base: str, table: str = "device") -> str:
        """A free id in the table ``device``, ``link`` or ``group``: ``base`` or ``base-N``."""
        check_id(base)
        by_id = {"device": self._devices, "link": self._links, "group": self._groups}[table].by_id
        if base not in by_id:
            return base
        m = _SUFFIX_RE.match(base)
        stem = m.group(1) if m and m.group(1) else base
        n = max(self._suffix_hint.get(f"{table}:{stem}", 2), int(m.group(2)) if m else 2)
        while f"{stem}-{n}" in by_id:
            n += 1
        self._suffix_hint[f"{table}:{stem}"] = n
        return f"{stem}-{n}"

    # ------------------------------------------------------------------ storage
    def internal_containers(self) -> list[list[Any] | dict[Any, Any]]:
        """The lists and dicts holding the records and their indexes, largest structures first
        (:func:`designer.model.bulk.release_gradually` empties them to free a copy gradually)."""
        if self._held_ports is not None:
            ports = self._held_ports
        else:  # still to be built: what a build under way holds so far
            ports = self._ends_pending[0] if self._ends_pending is not None else {}
        out: list[list[Any] | dict[Any, Any]] = [ports, self._group_members, self._group_children,
                                                 self._suffix_hint]
        for table in (self._links, self._devices, self._groups):
            out += [table.by_id, table.order]
        return out

    # ------------------------------------------------------------------ batching
    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group primitives: listeners of ``changed`` hear once, at the end of the outermost batch."""
        self._batch_depth += 1
        try:
            yield
        finally:
            self._batch_depth -= 1
            if self._batch_depth == 0:
                self.batch_finished.emit()
                if self._batch_dirty:
                    self._batch_dirty = False
                    self.changed.emit()

    def _touched(self) -> None:
        if self._batch_depth:
            self._batch_dirty = True
        else:
            self.changed.emit()

    # ------------------------------------------------------------------ devices
    def add_device(self, device: Device, index: int | None = None) -> int:
        """Insert a device (at ``index``, default the end) and return its index."""
        if device.id in self._devices.by_id:
            raise DuplicateIdError(f"a device named {device.id!r} already exists")
        if device.group is not None and device.group not in self._groups.by_id:
            raise UnknownIdError(f"device {device.id!r}: no group {device.group!r}")
        ports = self._device_ports  # built, if it is still to be, from the table before the insert
        index = self._devices.insert(device, index)
        ports[device.id] = {}
        if device.group is not None:
            self._group_members.setdefault(device.group, {})[device.id] = None
        self.device_added.emit(device, index)
        self._touched()
        return index

    def remove_device(self, device_id: str) -> tuple[Device, int]:
        """Remove a device that has no links; return it and the index it had."""
        return self.remove_devices((device_id,))[0]

    def remove_devices(self, device_ids: Iterable[str]) -> list[tuple[Device, int]]:
        """Remove devices that have no links, as :meth:`remove_device` of each in turn (same checks,
        events and returns) but in one pass over the table; a refused one changes nothing."""
        ids = list(dict.fromkeys(device_ids))
        for did in ids:
            self.device(did)
            held = self._device_ports[did]
            if held:
                raise ModelError(f"device {did!r} still has {count(len(held), 'link')}: remove them first")
        removed = self._devices.remove_many(ids)
        members = self._group_members
        for dev, index in removed:
            del self._device_ports[dev.id]
            if dev.group is not None:
                members.get(dev.group, {}).pop(dev.id, None)
            self.device_removed.emit(dev, index)
        if removed:
            self._touched()
        return removed

    def restore_devices(self, removed: list[tuple[Device, int]]) -> None:
        """Put back what :meth:`remove_devices` returned, as :meth:`add_device` of each, last first
        (same checks and events); a refused one changes nothing."""
        _ids_free(self._devices, removed, "device")
        for dev, _ in removed:
            if dev.group is not None and dev.group not in self._groups.by_id:
                raise UnknownIdError(f"device {dev.id!r}: no group {dev.group!r}")
        ports = self._device_ports  # built, if it is still to be, from the table before the insert
        self._devices.insert_many(removed)
        members = self._group_members
        for dev, index in reversed(removed):
            ports[dev.id] = {}
            if dev.group is not None:
                members.setdefault(dev.group, {})[dev.id] = None
            self.device_added.emit(dev, index)
        if removed:
            self._touched()

    def move_devices(self, positions: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
        """Move devices to new (x, y); return their previous positions (pass back to undo)."""
        old: dict[str, tuple[float, float]] = {}
        checked: list[tuple[Device, float, float]] = []
        for did, (x, y) in positions.items():
            dev = self.device(did)
            checked.append((dev, check_coord(x, "x"), check_coord(y, "y")))
        for dev, x, y in checked:
            old[dev.id] = (dev.x, dev.y)
            dev.x, dev.y = x, y
        if checked:
            self.devices_moved.emit([d.id for d, _, _ in checked])
            self._touched()
        return old

    def set_device_field(self, device_id: str, name: str, value: Any) -> Any:
        """Set ``name``, ``model``, ``tier``, ``kind`` or ``ports``; return the old value."""
        dev = self.device(device_id)
        if name not in DEVICE_FIELDS:
            raise InvalidValueError(f"device field must be one of {', '.join(DEVICE_FIELDS)}, not {name!r}")
        if name in ("name", "model", "tier"):
            if not isinstance(value, str):
                raise InvalidValueError(f"device {device_id!r}: {name} must be text")
        elif name == "kind":
            if value not in DEVICE_KINDS:
                raise InvalidValueError(f"device kind must be one of {', '.join(DEVICE_KINDS)}, not {value!r}")
        elif name == "ports":
            value = tuple(value)
            if not all(isinstance(g, PortGroup) for g in value):
                raise InvalidValueError("ports must be PortGroup records")
            probe = Device(dev.id, dev.kind, value)
            for p, lid in self._device_ports[device_id].items():
                if probe.port(p) is None:
                    raise ModelError(
                        f"device {device_id!r}: port {p!r} holds link {lid!r} and would disappear; "
                        "remove the link first"
                    )
        old = getattr(dev, name)
        setattr(dev, name, value)
        self.device_changed.emit(device_id, name, old, value)
        self._touched()
        return old

    def set_device_group(self, device_id: str, group_id: str | None) -> str | None:
        """Put a device in a group (None: in no group); return the previous group."""
        dev = self.device(device_id)
        if group_id is not None and group_id not in self._groups.by_id:
            raise UnknownIdError(f"no group {group_id!r}")
        old = dev.group
        if old is not None:
            self._group_members.get(old, {}).pop(device_id, None)
        dev.group = group_id
        if group_id is not None:
            self._group_members.setdefault(group_id, {})[device_id] = None
        self.device_changed.emit(device_id, "group", old, group_id)
        self._touched()
        return old

    def set_device_property(self, device_id: str, key: str, value: Any) -> Any:
        """Set a free-form property (None deletes it); return the old value (None if absent)."""
        dev = self.device(device_id)
        old = dev.properties.get(key)
        if value is None:
            dev.properties.pop(key, None)
        else:
            dev.properties[key] = value
        self.device_changed.emit(device_id, f"properties.{key}", old, value)
        self._touched()
        return old

    # ------------------------------------------------------------------ links
    def check_link(self, link: Link) -> None:
        """Raise a ModelError if ``link`` cannot be added to this design as it stands."""
        if link.id in self._links.by_id:
            raise DuplicateIdError(f"a link named {link.id!r} already exists")
        if link.a_device == link.b_device:
            raise SelfLinkError(f"link {link.id!r} joins device {link.a_device!r} to itself")
        for dev_id, port_id in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
            dev = self._devices.by_id.get(dev_id)
            if dev is None:
                raise UnknownIdError(f"link {link.id!r}: no device {dev_id!r}")
            if dev.port(port_id) is None:
                raise UnknownIdError(f"link {link.id!r}: device {dev_id!r} has no port {port_id!r}")
            held = self._device_ports[dev_id].get(port_id)
            if held is not None:
                raise PortInUseError(f"link {link.id!r}: port {dev_id}:{port_id} already holds link {held!r}")

    def add_link(self, link: Link, index: int | None = None) -> int:
        """Insert a link between two free ports of two different devices; return its index."""
        self.check_link(link)
        index = self._links.insert(link, index)
        self._device_ports[link.a_device][link.a_port] = link.id
        self._device_ports[link.b_device][link.b_port] = link.id
        self.link_added.emit(link, index)
        self._touched()
        return index

    def remove_link(self, link_id: str) -> tuple[Link, int]:
        """Remove a link; return it and the index it had."""
        return self.remove_links((link_id,))[0]

    def remove_links(self, link_ids: Iterable[str]) -> list[tuple[Link, int]]:
        """Remove links, as :meth:`remove_link` of each in turn (same events and returns) but in one
        pass over the table: deleting a pod of a 131,072-GPU design takes 10,240 of its 655,360
        links. An unknown id changes nothing."""
        ids = list(dict.fromkeys(link_ids))
        for lid in ids:
            self.link(lid)
        ports = self._device_ports  # built, if it is still to be, from the table before the removal
        removed = self._links.remove_many(ids)
        for link, index in removed:
            del ports[link.a_device][link.a_port]
            del ports[link.b_device][link.b_port]
            self.link_removed.emit(link, index)
        if removed:
            self._touched()
        return removed

    def restore_links(self, removed: list[tuple[Link, int]]) -> None:
        """Put back what :meth:`remove_links` returned, as :meth:`add_link` of each, last first (same
        checks and events); a refused one changes nothing."""
        ports = self._device_ports
        done: list[Link] = []
        try:
            for link, _ in reversed(removed):
                self.check_link(link)
                self._links.by_id[link.id] = link  # held while the rest are checked against it
                ports[link.a_device][link.a_port] = link.id
                ports[link.b_device][link.b_port] = link.id
                done.append(link)
        except ModelError:
            for link in done:
                del self._links.by_id[link.id]
                del ports[link.a_device][link.a_port]
                del ports[link.b_device][link.b_port]
            raise
        self._links.insert_many(removed)
        for link, index in reversed(removed):
            self.link_added.emit(link, index)
        if removed:
            self._touched()

    def set_link_field(self, link_id: str, name: str, value: Any) -> Any:
        """Set ``medium``, ``length_m``, ``cable`` or ``failed``; return the old value."""
        link = self.link(link_id)
        if name not in LINK_FIELDS:
            raise InvalidValueError(f"link field must be one of {', '.join(LINK_FIELDS)}, not {name!r}")
        if name == "medium" and value not in MEDIA:
            raise InvalidValueError(f"medium must be one of {', '.join(MEDIA)}, not {value!r}")
        if name == "length_m":
            value = check_finite(value, f"link {link_id!r} length_m")
            if not 0 <= value <= MAX_LINK_LENGTH_M:
                raise InvalidValueError(f"link {link_id!r} length_m must be 0 .. {MAX_LINK_LENGTH_M:,.0f} m, "
                                        f"not {value:g}")
        if name == "cable" and not isinstance(value, str):
            raise InvalidValueError("cable must be a catalog id (text)")
        if name == "failed" and not isinstance(value, bool):
            raise InvalidValueError("failed must be true or false")
        old = getattr(link, name)
        setattr(link, name, value)
        self.link_changed.emit(link_id, name, old, value)
        self._touched()
        return old

    def set_link_property(self, link_id: str, key: str, value: Any) -> Any:
        link = self.link(link_id)
        old = link.properties.get(key)
        if value is None:
            link.properties.pop(key, None)
        else:
            link.properties[key] = value
        self.link_changed.emit(link_id, f"properties.{key}", old, value)
        self._touched()
        return old

    # ------------------------------------------------------------------ groups
    def add_group(self, group: Group, index: int | None = None) -> int:
        if group.id in self._groups.by_id:
            raise DuplicateIdError(f"a group named {group.id!r} already exists")
        if group.parent is not None and group.parent not in self._groups.by_id:
            raise UnknownIdError(f"group {group.id!r}: no parent group {group.parent!r}")
        index = self._groups.insert(group, index)
        self._group_members.setdefault(group.id, {})
        self._group_children.setdefault(group.id, {})
        if group.parent is not None:
            self._group_children.setdefault(group.parent, {})[group.id] = None
        self.group_added.emit(group, index)
        self._touched()
        return index

    def remove_group(self, group_id: str) -> tuple[Group, int]:
        """Remove an empty group (no devices, no sub-groups); return it and its index."""
        return self.remove_groups((group_id,))[0]

    def remove_groups(self, group_ids: Iterable[str]) -> list[tuple[Group, int]]:
        """Remove empty groups (no devices, no sub-groups once those before them are gone: sub-groups
        first), each with the index it had then, in one pass over the table; a refused one changes
        nothing. A pod of 131,072 GPUs holds 339 groups, and each
        removal on its own searched the table of 21,760."""
        ids = list(dict.fromkeys(group_ids))
        gone: set[str] = set()
        for gid in ids:
            self.group(gid)
            if self._group_members.get(gid) or not gone.issuperset(self._group_children.get(gid, ())):
                raise ModelError(f"group {gid!r} is not empty: move its members and sub-groups out first")
            gone.add(gid)
        removed = self._groups.remove_many(ids)
        children = self._group_children
        for group, index in removed:
            self._group_members.pop(group.id, None)
            children.pop(group.id, None)
            if group.parent is not None:
                children.get(group.parent, {}).pop(group.id, None)
            self.group_removed.emit(group, index)
        if removed:
            self._touched()
        return removed

    def restore_groups(self, removed: list[tuple[Group, int]]) -> None:
        """Put back what :meth:`remove_groups` returned, as :meth:`add_group` of each, last first (same
        checks and events); a refused one changes nothing."""
        _ids_free(self._groups, removed, "group")
        back: set[str] = set()
        for group, _ in reversed(removed):
            if group.parent is not None and group.parent not in self._groups.by_id and group.parent not in back:
                raise UnknownIdError(f"group {group.id!r}: no parent group {group.parent!r}")
            back.add(group.id)
        self._groups.insert_many(removed)
        children = self._group_children
        for group, index in reversed(removed):
            self._group_members.setdefault(group.id, {})
            children.setdefault(group.id, {})
            if group.parent is not None:
                children.setdefault(group.parent, {})[group.id] = None
            self.group_added.emit(group, index)
        if removed:
            self._touched()

    def set_group_field(self, group_id: str, name: str, value: Any) -> Any:
        """Set ``name``, ``kind``, ``parent`` or ``collapsed``; return the old value."""
        group = self.group(group_id)
        if name not in GROUP_FIELDS:
            raise InvalidValueError(f"group field must be one of {', '.join(GROUP_FIELDS)}, not {name!r}")
        if name == "name" and not isinstance(value, str):
            raise InvalidValueError("group name must be text")
        if name == "kind" and value not in GROUP_KINDS:
            raise InvalidValueError(f"group kind must be one of {', '.join(GROUP_KINDS)}, not {value!r}")
        if name == "collapsed" and not isinstance(value, bool):
            raise InvalidValueError("collapsed must be true or false")
        if name == "parent":
            if value is not None:
                if value not in self._groups.by_id:
                    raise UnknownIdError(f"no group {value!r}")
                if group_id in self.ancestors(value):
                    raise ModelError(f"group {group_id!r} cannot be put inside itself or its own sub-group")
            if group.parent is not None:
                self._group_children.get(group.parent, {}).pop(group_id, None)
            if value is not None:
                self._group_children.setdefault(value, {})[group_id] = None
        old = getattr(group, name)
        setattr(group, name, value)
        self.group_changed.emit(group_id, name, old, value)
        self._touched()
        return old

    # ------------------------------------------------------------------ design
    def set_design_field(self, name: str, value: Any) -> Any:
        if name not in ("name", "description"):
            raise InvalidValueError(f"design field must be name or description, not {name!r}")
        if not isinstance(value, str):
            raise InvalidValueError(f"design {name} must be text")
        old = getattr(self, name)
        setattr(self, name, value)
        self.design_changed.emit(name, old, value)
        self._touched()
        return old

    def copy(self) -> Design:
        """An independent, listener-free copy of this design.

        Records are new objects; their immutable parts (ids, port groups, numbers) are shared
        and their ``properties`` are copied (nested lists and dicts too), so editing either
        design never affects the other. The same as ``DesignSnapshot.capture(self).build()``
        (:mod:`designer.model.snapshot`), which splits the copy across two threads.
        """
        from designer.model.snapshot import DesignSnapshot

        return DesignSnapshot.capture(self).build()


def _ids_free(table: Table, removed: list[tuple[Any, int]], noun: str) -> None:
    """Refuse to put back records (``restore_*``) when an id among them is taken in ``table`` or
    repeated: DuplicateIdError naming the first."""
    ids = [record.id for record, _ in removed]
    if len(set(ids)) != len(ids) or not table.by_id.keys().isdisjoint(ids):
        taken = next(i for n, i in enumerate(ids) if i in table.by_id or i in ids[:n])
        raise DuplicateIdError(f"a {noun} named {taken!r} already exists")
