"""How the canvas scene follows its design: model events queued, then applied once per change.

Model events are queued and applied when the model says ``changed`` (once per primitive, or once
per batch), so a generated design arrives as one rebuild rather than 100,000 small updates;
each kind of event has one handler, and what the handlers leave dirty is recomputed once. A mixin
of :class:`designer.gui.canvas.scene.DesignScene`, which owns the items these handlers touch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING, Any

from designer.gui.canvas.scene_groups import subtree
from designer.gui.canvas.shown import BundleKey, ShownKey
from designer.model import Design, Device, Group, Link

if TYPE_CHECKING:
    from designer.gui.canvas.items import DeviceItem

#: A pending batch larger than this is applied by rebuilding the scene (one of added and removed records
#: only: larger than this and a twentieth of the design's records, see :meth:`QueuedModelEvents.flush`).
REBUILD_THRESHOLD = 400


class _Event(Enum):
    """Kinds of queued model events; each has one handler in ``DesignScene._handlers``."""

    DEVICE_ADDED = auto()
    DEVICE_REMOVED = auto()
    LINK_ADDED = auto()
    LINK_REMOVED = auto()
    GROUP_ADDED = auto()
    GROUP_REMOVED = auto()
    MOVED = auto()
    DEVICE_CHANGED = auto()
    LINK_CHANGED = auto()
    GROUP_TEXT = auto()
    REGROUP = auto()
    REBUILD = auto()


#: Events that add or remove one record: cheap to apply one by one (see :meth:`QueuedModelEvents.flush`).
_RECORDS = frozenset((_Event.DEVICE_ADDED, _Event.DEVICE_REMOVED, _Event.LINK_ADDED, _Event.LINK_REMOVED,
                      _Event.GROUP_ADDED, _Event.GROUP_REMOVED))


@dataclass
class _Dirty:
    """What a batch of events leaves to recompute once they are all applied."""

    bundles: set[BundleKey] = field(default_factory=set)
    shown: set[ShownKey] = field(default_factory=set)  # shown objects whose bundles must be re-placed
    groups: set[str] = field(default_factory=set)  # groups whose frame or box must be re-sized


class QueuedModelEvents:
    """The design's events, queued by kind and applied by one handler each (see the module)."""

    design: Design | None
    device_items: dict[str, DeviceItem]
    _shown: dict[str, ShownKey]
    groups: Any
    bundles: Any
    refreshed: Any

    def start_event_queue(self) -> None:
        """Start with nothing queued (called once by the scene's constructor)."""
        self._pending: list[tuple[_Event, tuple]] = []
        self._handlers = {
            _Event.DEVICE_ADDED: self._apply_device_added,
            _Event.DEVICE_REMOVED: self._apply_device_removed,
            _Event.LINK_ADDED: self._apply_link_added,
            _Event.LINK_REMOVED: self._apply_link_removed,
            _Event.GROUP_ADDED: self._apply_group_added,
            _Event.GROUP_REMOVED: self._apply_group_removed,
            _Event.MOVED: self._apply_moved,
            _Event.DEVICE_CHANGED: self._apply_device_changed,
            _Event.LINK_CHANGED: self._apply_link_changed,
            _Event.GROUP_TEXT: self._apply_group_text,
            _Event.REGROUP: self._apply_regroup,
            _Event.REBUILD: self._apply_rebuild,
        }

    # ------------------------------------------------------------------ model events (queued)
    def _on_design_device_added(self, device: Device, index: int) -> None:
        self._pending.append((_Event.DEVICE_ADDED, (device,)))

    def _on_design_device_removed(self, device: Device, index: int) -> None:
        self._pending.append((_Event.DEVICE_REMOVED, (device,)))

    def _on_design_link_added(self, link: Link, index: int) -> None:
        self._pending.append((_Event.LINK_ADDED, (link,)))

    def _on_design_link_removed(self, link: Link, index: int) -> None:
        self._pending.append((_Event.LINK_REMOVED, (link,)))

    def _on_design_group_added(self, group: Group, index: int) -> None:
        self._pending.append((_Event.GROUP_ADDED, (group,)))

    def _on_design_group_removed(self, group: Group, index: int) -> None:
        self._pending.append((_Event.GROUP_REMOVED, (group,)))

    def _on_design_devices_moved(self, ids: list[str]) -> None:
        self._pending.append((_Event.MOVED, (ids,)))

    def _on_design_device_changed(self, device_id: str, field: str, old: object, new: object) -> None:
        self._pending.append((_Event.DEVICE_CHANGED, (device_id, field)))

    def _on_design_link_changed(self, link_id: str, field: str, old: object, new: object) -> None:
        self._pending.append((_Event.LINK_CHANGED, (link_id,)))

    def _on_design_group_changed(self, group_id: str, field: str, old: object, new: object) -> None:
        if field in ("name", "kind"):
            self._pending.append((_Event.GROUP_TEXT, (group_id,)))
        elif field == "collapsed":
            self._pending.append((_Event.REGROUP, (group_id,)))
        else:
            self._pending.append((_Event.REBUILD, ()))

    def _on_design_changed(self) -> None:
        self.flush()

    # ------------------------------------------------------------------ applying changes
    def flush(self) -> None:
        """Apply queued model events to the items: each by its handler, then what they left dirty."""
        pending, self._pending = self._pending, []
        if not pending or self.design is None:
            return
        moved_count = sum(len(args[0]) for kind, args in pending if kind is _Event.MOVED)
        # A rebuild costs the whole design. Records added or removed cost a few microseconds each:
        # those are applied one by one up to a twentieth of the design's records (a pod of 131,072
        # GPUs, 15,000 events, 0.36 s instead of a 2 s rebuild); any other kind (a regroup redraws
        # a subtree) only up to REBUILD_THRESHOLD events.
        limit = REBUILD_THRESHOLD
        if len(pending) > limit and all(kind in _RECORDS for kind, _ in pending):
            limit = max(limit, (self.design.device_count() + self.design.link_count()) // 20)
        if (
            len(pending) > limit
            or moved_count > 20 * REBUILD_THRESHOLD
            or any(kind is _Event.REBUILD for kind, _ in pending)
        ):
            self.rebuild()
            return
        dirty = _Dirty()
        handlers = self._handlers
        for kind, args in pending:
            if handlers[kind](dirty, *args):
                self.rebuild()
                return
        self.groups.update(dirty.groups)
        boxes = self.groups.boxes
        dirty.shown.update(ShownKey.group(gid) for gid in dirty.groups if gid in boxes)
        dirty.bundles.update(self.bundles.touching(dirty.shown))
        for key in dirty.bundles:
            self.bundles.refresh(key)
        self.invalidate_sketch()
        self.refreshed.emit(False)

    # Each handler applies one event; it returns True when only a rebuild can apply it.
    def _apply_device_added(self, dirty: _Dirty, dev: Device) -> bool:
        if self.design is None or not self.design.has_device(dev.id):
            return False
        shown = self._shown_key_for(dev)
        self._shown[dev.id] = shown
        if shown.is_device:
            self._add_device_item(dev)
        dirty.groups.update(self.groups.chain(dev.group))
        return False

    def _apply_device_removed(self, dirty: _Dirty, dev: Device) -> bool:
        item = self.device_items.pop(dev.id, None)
        if item is not None:
            self.removeItem(item)
        self._shown.pop(dev.id, None)
        dirty.groups.update(self.groups.chain(dev.group))
        return False

    def _apply_link_added(self, dirty: _Dirty, link: Link) -> bool:
        if self.design is None or not self.design.has_link(link.id):
            return False
        key = self.bundles.add_link(link)
        if key is not None:
            # Its own bundle only: the objects at its ends do not move (the bundles touching them
            # were re-placed for nothing, all 4,096 when a pod of 131,072 GPUs comes back).
            dirty.bundles.add(key)
        self._mark_port(link.a_device, link.a_port, True)
        self._mark_port(link.b_device, link.b_port, True)
        return False

    def _apply_link_removed(self, dirty: _Dirty, link: Link) -> bool:
        key = self.bundles.remove_link(link.id)
        if key is not None:
            dirty.bundles.add(key)
        self._mark_port(link.a_device, link.a_port, False)
        self._mark_port(link.b_device, link.b_port, False)
        return False

    def _apply_moved(self, dirty: _Dirty, ids: list[str]) -> bool:
        d = self.design
        assert d is not None
        for did in ids:
            if not d.has_device(did):
                continue
            dev = d.device(did)
            item = self.device_items.get(did)
            if item is not None:
                item.setPos(dev.x, dev.y)
            shown = self._shown.get(did)
            if shown is not None:
                dirty.shown.add(shown)
            dirty.groups.update(self.groups.chain(dev.group))
        return False

    def _apply_device_changed(self, dirty: _Dirty, did: str, field: str) -> bool:
        d = self.design
        if d is None or not d.has_device(did):
            return False
        dev = d.device(did)
        if field == "group":
            if self._shown.get(did) != self._shown_key_for(dev):
                return True
            dirty.groups.update(self.groups.chain(dev.group))
            dirty.groups.update(self.groups.frames)
        elif field in ("ports", "kind"):
            self.bundles.forget_rates()
            old_item = self.device_items.pop(did, None)
            if old_item is not None:
                self.removeItem(old_item)
                self._add_device_item(dev)
                dirty.shown.add(ShownKey.device(did))
            dirty.groups.update(self.groups.chain(dev.group))
        else:
            item = self.device_items.get(did)
            if item is not None:
                item.set_text(*self._device_text(dev))
        return False

    def _apply_link_changed(self, dirty: _Dirty, link_id: str) -> bool:
        self.bundles.forget_rates(link_id)  # a new cable may change the rate
        key = self.bundles.key_of(link_id)
        if key is not None:
            dirty.bundles.add(key)
        return False

    def _apply_group_text(self, dirty: _Dirty, gid: str) -> bool:
        if self.design is not None and self.design.has_group(gid):
            self.groups.refresh_text(gid)
        return False

    def _apply_regroup(self, dirty: _Dirty, gid: str) -> bool:
        d = self.design
        if d is not None and d.has_group(gid):
            dirty.bundles.update(self._regroup(gid))
            dirty.groups.update(self.groups.chain(gid))
            dirty.groups.update(g.id for g in subtree(d, gid))
        return False

    def _apply_group_added(self, dirty: _Dirty, g: Group) -> bool:
        d = self.design
        if d is None or not d.has_group(g.id) or d.outermost_collapsed_group(g.id, include_self=False) is not None:
            return False
        self.groups.show(g, hidden=True)  # hidden until it has members
        dirty.groups.add(g.id)
        return False

    def _apply_group_removed(self, dirty: _Dirty, g: Group) -> bool:
        self.groups.drop(g.id)
        if g.parent is not None:
            dirty.groups.add(g.parent)
        return False

    def _apply_rebuild(self, dirty: _Dirty) -> bool:
        return True
