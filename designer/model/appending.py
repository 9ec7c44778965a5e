"""Appending many records to a design at once: generators, file loading, copies.

A mixin of :class:`designer.model.design.Design`: :meth:`BulkAppend.extend` has the effect and the
events of adding each record with its primitive, with the per-link checks done inline (or, for
links the caller has validated, skipped) and each table filled a column at a time where no listener
hears of the records.

The index of the links' ends (device id -> ``{port id: link id}``) is left to be built when first
used after records are appended at the end of a design that has no links yet (a file loaded, a copy
made, a fabric generated): :attr:`BulkAppend._device_ports` builds it from the tables, in table
order, which is the order the links were added; :meth:`BulkAppend.index_link_ends` builds it a slice
at a time for a window that has time while it waits for its user.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice, repeat
from operator import attrgetter
from typing import Any

from designer.model.entities import Device, Group, Link, PortGroup, port_index
from designer.model.errors import DuplicateIdError, UnknownIdError

_ID = attrgetter("id")
#: Records appended to an index in one C-level step (see :meth:`BulkAppend._append_links`).
_SLICE = 32_768


class BulkAppend:
    """:meth:`extend` and its helpers (the design's tables, indexes and events hold the records)."""

    _devices: Any
    _links: Any
    _groups: Any
    #: device id -> {port id: id of the link on it}, in the order the links were added; None while
    #: it is to be built from the tables (see :attr:`_device_ports`)
    _held_ports: dict[str, dict[str, str]] | None
    #: a build of ``_held_ports`` under way: the index so far, the devices and the links it holds
    _ends_pending: tuple[dict[str, dict[str, str]], int, int] | None
    _group_members: dict[str, dict[str, None]]
    _batch_dirty: bool
    link_added: Any
    device_added: Any
    # and Design's batch(), add_group() and check_link()

    @property
    def _device_ports(self) -> dict[str, dict[str, str]]:
        """The index of the links' ends, built first if it is still to be built."""
        held = self._held_ports
        if held is None:
            self.index_link_ends()
            held = self._held_ports
            assert held is not None
        return held

    def index_link_ends(self, limit: int | None = None) -> bool:
        """Build the index of the links' ends if it is still to be built, taking at most ``limit``
        devices and links per call (None: all); True when it is built.

        Only a bulk append leaves it to be built (see :meth:`extend`); every query and edit that
        needs it builds the rest at once. A window calls this with a limit while it is idle after
        opening a large design (0.5 s for the 285,696 devices and 655,360 links of 131,072 GPUs),
        so that its user's first edit does not wait for it.
        """
        if self._held_ports is not None:
            return True
        held, devices_done, links_done = self._ends_pending or ({}, 0, 0)
        budget = len(self._devices.order) + len(self._links.order) if limit is None else max(limit, 1)
        devices = self._devices.order[devices_done:devices_done + budget]
        held.update(zip(map(_ID, devices), map(dict, repeat((), len(devices))), strict=True))
        devices_done += len(devices)
        budget -= len(devices)
        links = self._links.order
        end = min(len(links), links_done + budget) if devices_done == len(self._devices.order) else links_done
        for link in islice(links, links_done, end):
            lid = link.id
            held[link.a_device][link.a_port] = lid
            held[link.b_device][link.b_port] = lid
        if end < len(links) or devices_done < len(self._devices.order):
            self._ends_pending = (held, devices_done, end)
            return False
        self._held_ports, self._ends_pending = held, None
        return True

    def extend(self, groups: Iterable[Group] = (), devices: Iterable[Device] = (), links: Iterable[Link] = (),
               *, validated: bool = False) -> None:
        """Append groups, then devices, then links, inside one batch (generators, loading, copies).

        Same effect and events as adding each record with its primitive. ``validated=True`` is
        the caller's promise that every link already meets the link invariants against this
        design plus ``devices`` (both ends exist, two different devices, ports that exist and
        that no other link holds), as a file loader that checked them or a copy of a valid
        design does: the per-link check is then skipped, so a large design loads faster.
        Groups and devices are always checked, and a duplicate link id is always refused.
        Validated records that no listener hears of, appended to a design with no links yet (or
        whose index of the links' ends is still to be built), leave that index to be built when
        it is first used.
        """
        lazy = (validated and not len(self.device_added) and not len(self.link_added)
                and (self._held_ports is None or not self._links.order))
        with self.batch():
            for g in groups:
                self.add_group(g)
            if lazy:
                self._held_ports = self._ends_pending = None  # a build under way starts again
            self._extend_devices(devices, lazy)
            self._extend_links(links, validated, lazy)

    def _extend_links(self, links: Iterable[Link], validated: bool, lazy: bool = False) -> None:
        """Append links as :meth:`add_link` does each, inside a batch (``lazy``: the index of their
        ends is left to be built, see :meth:`extend`).

        The checks of :meth:`check_link` run inline, on each device's port ids looked up once per
        port tuple (devices of one model share theirs); a link that fails any of them goes through
        :meth:`check_link` itself, which refuses it with its own message.
        """
        emit = self.link_added.emit if len(self.link_added) else None
        if validated and emit is None:
            links = links if isinstance(links, list) else list(links)
            if self._append_links(links, lazy):
                return
        device_ports = self._device_ports
        devices = self._devices.by_id
        by_id = self._links.by_id
        order = self._links.order
        #: id(port tuple) -> (the tuple, its port ids); the tuple is kept so its id stays its own.
        port_ids: dict[int, tuple[tuple[PortGroup, ...], Any]] = {}
        for link in links:
            lid = link.id
            a, b, pa, pb = link.a_device, link.b_device, link.a_port, link.b_port
            if validated:
                if lid in by_id:
                    raise DuplicateIdError(f"a link named {lid!r} already exists")
            else:
                da, db = devices.get(a), devices.get(b)
                if (lid in by_id or a == b or da is None or db is None or pa in device_ports[a]
                        or pb in device_ports[b]):
                    self.check_link(link)
                known_a = port_ids.get(id(da.ports))
                if known_a is None or known_a[0] is not da.ports:
                    known_a = port_ids[id(da.ports)] = (da.ports, port_index(da.ports))
                known_b = port_ids.get(id(db.ports))
                if known_b is None or known_b[0] is not db.ports:
                    known_b = port_ids[id(db.ports)] = (db.ports, port_index(db.ports))
                if pa not in known_a[1] or pb not in known_b[1]:
                    self.check_link(link)
            order.append(link)
            by_id[lid] = link
            device_ports[a][pa] = lid
            device_ports[b][pb] = lid
            if emit is not None:
                emit(link, len(order) - 1)
            self._batch_dirty = True

    def _append_links(self, links: list[Link], lazy: bool) -> bool:
        """Append checked links no listener hears of, the id table filled in one pass; False, with
        nothing changed, when an id is taken, for the loop to refuse it at the same link as ever.
        ``lazy``: the index of their ends is left to be built (see :meth:`extend`)."""
        if not links:
            return True
        by_id = self._links.by_id
        held = len(by_id)
        # In slices: a copy built in a worker thread (the live analysis' at 131,072 GPUs) lets the
        # window run between them, where one update of 655,360 entries held it for 0.15 s.
        for start in range(0, len(links), _SLICE):
            part = links[start:start + _SLICE]
            by_id.update(zip(map(_ID, part), part, strict=True))
        if len(by_id) != held + len(links):  # a repeated id: the index is rebuilt as it was
            by_id.clear()
            by_id.update(zip(map(_ID, self._links.order), self._links.order, strict=True))
            return False
        self._links.order.extend(links)
        if not lazy:
            device_ports = self._device_ports
            for link in links:
                lid = link.id
                device_ports[link.a_device][link.a_port] = lid
                device_ports[link.b_device][link.b_port] = lid
        self._batch_dirty = True
        return True

    def _extend_devices(self, devices: Iterable[Device], lazy: bool = False) -> None:
        """Append devices as :meth:`add_device` does each (same checks and events), inside a batch
        (``lazy``: the index of the links' ends is left to be built, see :meth:`extend`)."""
        by_id = self._devices.by_id
        groups = self._groups.by_id
        insert = self._devices.insert
        device_ports = None if lazy else self._device_ports
        members = self._group_members
        emit = self.device_added.emit if len(self.device_added) else None
        for device in devices:
            if device.id in by_id:
                raise DuplicateIdError(f"a device named {device.id!r} already exists")
            group = device.group
            if group is not None and group not in groups:
                raise UnknownIdError(f"device {device.id!r}: no group {group!r}")
            index = insert(device, None)
            if device_ports is not None:
                device_ports[device.id] = {}
            if group is not None:
                members.setdefault(group, {})[device.id] = None
            if emit is not None:
                emit(device, index)
            self._batch_dirty = True

