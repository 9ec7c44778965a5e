"""The canvas scene: observes a design's events and keeps one item per shown object.

What is shown: every device that is not inside a collapsed group (a :class:`DeviceItem`), every
outermost collapsed group (a :class:`CollapsedGroupItem`), a frame for every expanded group that
is shown, and one :class:`BundleItem` per pair of shown objects joined by at least one link
(parallel links and the external links of a collapsed group are bundled). Members of collapsed
groups get no items at all, which keeps a 16,384-GPU design light.

Model events are queued and applied when the model says ``changed`` (once per primitive, or once
per batch), so a generated design arrives as one rebuild rather than 100,000 small updates.
"""

from __future__ import annotations

from collections import defaultdict

from PySide6.QtCore import QRectF, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QGraphicsSceneHelpEvent, QToolTip

from designer.gui import style
from designer.gui.canvas.items import (
    BUNDLE_TYPE,
    BundleItem,
    CollapsedGroupItem,
    DeviceItem,
    GroupFrameItem,
    set_sketched,
)
from designer.gui.canvas.scene_bundles import Rep, SceneBundles
from designer.gui.canvas.scene_groups import SceneGroups, _subtree
from designer.gui.canvas.scene_paint import paint_grid, paint_titles
from designer.gui.canvas.scene_queries import SceneQueries
from designer.gui.canvas.sketch import Sketch
from designer.model import Design, Device, Group, Link
from designer.model.catalog import Catalog

#: A pending batch larger than this is applied by rebuilding the scene.
REBUILD_THRESHOLD = 400



class DesignScene(SceneBundles, SceneGroups, SceneQueries, QGraphicsScene):
    """Items for one design; rebuilt on :meth:`set_design`, updated from model events."""

    #: emitted after the scene applied model changes (argument: True when it rebuilt)
    refreshed = Signal(bool)
    #: the sketch (zoomed-out picture, overview) must be redrawn
    sketch_changed = Signal()

    def __init__(self, catalog: Catalog, parent: object | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.design: Design | None = None
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.setBackgroundBrush(style.BACKGROUND)
        self.device_items: dict[str, DeviceItem] = {}
        self.bundle_items: dict[tuple[Rep, Rep], BundleItem] = {}
        self.frames: dict[str, GroupFrameItem] = {}
        self.boxes: dict[str, CollapsedGroupItem] = {}
        self._rep: dict[str, Rep] = {}
        self._link_key: dict[str, tuple[Rep, Rep] | None] = {}
        self._bundle_links: dict[tuple[Rep, Rep], dict[str, None]] = {}
        self._rep_bundles: dict[Rep, set[tuple[Rep, Rep]]] = defaultdict(set)
        self._rates: dict[str, float] = {}  # link id -> line rate (Gb/s), from its ports and cable
        self._pending: list[tuple[str, tuple]] = []
        self._flagged_devices: dict[str, list[str]] = {}
        self._flagged_links: dict[str, list[str]] = {}
        self.show_grid = True
        #: True while the zoomed-out sketch replaces per-item painting (see designer.gui.canvas.sketch)
        self.sketched = False
        self._sketch: Sketch | None = None
        self.selectionChanged.connect(self.invalidate_sketch)

    # ------------------------------------------------------------------ binding
    def set_design(self, design: Design) -> None:
        if self.design is not None:
            self._connect(self.design, False)
        self.design = design
        self._flagged_devices, self._flagged_links = {}, {}
        self._connect(design, True)
        self.rebuild()

    def _connect(self, d: Design, on: bool) -> None:
        pairs = [
            (d.device_added, self._on_design_device_added),
            (d.device_removed, self._on_design_device_removed),
            (d.link_added, self._on_design_link_added),
            (d.link_removed, self._on_design_link_removed),
            (d.group_added, self._on_design_group_added),
            (d.group_removed, self._on_design_group_removed),
            (d.devices_moved, self._on_design_devices_moved),
            (d.device_changed, self._on_design_device_changed),
            (d.link_changed, self._on_design_link_changed),
            (d.group_changed, self._on_design_group_changed),
            (d.changed, self._on_design_changed),
        ]
        for sig, slot in pairs:
            (sig.connect if on else sig.disconnect)(slot)

    def detach(self) -> None:
        if self.design is not None:
            self._connect(self.design, False)
            self.design = None

    # ------------------------------------------------------------------ model events
    def _on_design_device_added(self, device: Device, index: int) -> None:
        self._pending.append(("device_added", (device,)))

    def _on_design_device_removed(self, device: Device, index: int) -> None:
        self._pending.append(("device_removed", (device,)))

    def _on_design_link_added(self, link: Link, index: int) -> None:
        self._pending.append(("link_added", (link,)))

    def _on_design_link_removed(self, link: Link, index: int) -> None:
        self._pending.append(("link_removed", (link,)))

    def _on_design_group_added(self, group: Group, index: int) -> None:
        self._pending.append(("group_added", (group,)))

    def _on_design_group_removed(self, group: Group, index: int) -> None:
        self._pending.append(("group_removed", (group,)))

    def _on_design_devices_moved(self, ids: list[str]) -> None:
        self._pending.append(("moved", (ids,)))

    def _on_design_device_changed(self, device_id: str, field: str, old: object, new: object) -> None:
        self._pending.append(("device_changed", (device_id, field)))

    def _on_design_link_changed(self, link_id: str, field: str, old: object, new: object) -> None:
        self._pending.append(("link_changed", (link_id,)))

    def _on_design_group_changed(self, group_id: str, field: str, old: object, new: object) -> None:
        if field in ("name", "kind"):
            self._pending.append(("group_text", (group_id,)))
        elif field == "collapsed":
            self._pending.append(("regroup", (group_id,)))
        else:
            self._pending.append(("rebuild", ()))

    def _on_design_changed(self) -> None:
        self.flush()

    # ------------------------------------------------------------------ applying changes
    def flush(self) -> None:
        """Apply queued model events to the items."""
        pending, self._pending = self._pending, []
        if not pending or self.design is None:
            return
        moved_count = sum(len(a[0]) for k, a in pending if k == "moved")
        if (
            len(pending) > REBUILD_THRESHOLD
            or moved_count > 20 * REBUILD_THRESHOLD
            or any(k == "rebuild" for k, _ in pending)
        ):
            self.rebuild()
            return
        d = self.design
        dirty_bundles: set[tuple[Rep, Rep]] = set()
        dirty_geometry: set[Rep] = set()
        dirty_groups: set[str] = set()
        for kind, args in pending:
            if kind == "device_added":
                dev = args[0]
                if not d.has_device(dev.id):
                    continue
                rep = self._rep_for(dev)
                self._rep[dev.id] = rep
                if rep == "d:" + dev.id:
                    self._add_device_item(dev)
                dirty_groups.update(self._groups_of(dev.group))
            elif kind == "device_removed":
                dev = args[0]
                item = self.device_items.pop(dev.id, None)
                if item is not None:
                    self.removeItem(item)
                self._rep.pop(dev.id, None)
                dirty_groups.update(self._groups_of(dev.group))
            elif kind == "link_added":
                link = args[0]
                if not d.has_link(link.id):
                    continue
                key = self._add_link_to_bundle(link)
                if key is not None:
                    dirty_bundles.add(key)
                    dirty_geometry.update(key)
                self._mark_port(link.a_device, link.a_port, True)
                self._mark_port(link.b_device, link.b_port, True)
            elif kind == "link_removed":
                link = args[0]
                self._rates.pop(link.id, None)
                key = self._link_key.pop(link.id, None)
                if key is not None:
                    links = self._bundle_links.get(key)
                    if links is not None:
                        links.pop(link.id, None)
                        dirty_bundles.add(key)
                self._mark_port(link.a_device, link.a_port, False)
                self._mark_port(link.b_device, link.b_port, False)
            elif kind == "moved":
                for did in args[0]:
                    if not d.has_device(did):
                        continue
                    dev = d.device(did)
                    item = self.device_items.get(did)
                    if item is not None:
                        item.setPos(dev.x, dev.y)
                    rep = self._rep.get(did)
                    if rep is not None:
                        dirty_geometry.add(rep)
                    dirty_groups.update(self._groups_of(dev.group))
            elif kind == "device_changed":
                did, field = args
                if not d.has_device(did):
                    continue
                dev = d.device(did)
                if field == "group":
                    if self._rep.get(did) != self._rep_for(dev):
                        self.rebuild()
                        return
                    dirty_groups.update(self._groups_of(dev.group))
                    dirty_groups.update(self.frames)
                elif field in ("ports", "kind"):
                    self._rates.clear()
                    old_item = self.device_items.pop(did, None)
                    if old_item is not None:
                        self.removeItem(old_item)
                        self._add_device_item(dev)
                        dirty_geometry.add("d:" + did)
                    dirty_groups.update(self._groups_of(dev.group))
                else:
                    item = self.device_items.get(did)
                    if item is not None:
                        item.set_text(*self._device_text(dev))
            elif kind == "link_changed":
                self._rates.pop(args[0], None)  # a new cable may change the rate
                key = self._link_key.get(args[0])
                if key is not None:
                    dirty_bundles.add(key)
            elif kind == "group_text":
                gid = args[0]
                if d.has_group(gid):
                    self._refresh_group_text(gid)
            elif kind == "regroup":
                gid = args[0]
                if d.has_group(gid):
                    dirty_bundles.update(self._regroup(gid))
                    dirty_groups.update(self._groups_of(gid))
                    dirty_groups.update(g.id for g in _subtree(d, gid))
            elif kind == "group_added":
                g = args[0]
                if not d.has_group(g.id) or any(d.group(a).collapsed for a in d.ancestors(g.parent)):
                    continue
                item: QGraphicsItem
                if g.collapsed:
                    item = self.boxes[g.id] = CollapsedGroupItem(g.id, g.kind)
                else:
                    item = self.frames[g.id] = GroupFrameItem(g.id, g.kind)
                item.setVisible(False)  # until it has members
                self._add(item)
                self._refresh_group_text(g.id)
                dirty_groups.add(g.id)
            elif kind == "group_removed":
                g = args[0]
                for table in (self.frames, self.boxes):
                    old = table.pop(g.id, None)
                    if old is not None:
                        self.removeItem(old)
                if g.parent is not None:
                    dirty_groups.add(g.parent)
        self._update_groups(dirty_groups)
        for gid in dirty_groups:
            if gid in self.boxes:
                dirty_geometry.add("g:" + gid)
        for rep in dirty_geometry:
            dirty_bundles.update(self._rep_bundles.get(rep, ()))
        for key in dirty_bundles:
            self._refresh_bundle(key)
        self.invalidate_sketch()
        self.refreshed.emit(False)

    def rebuild(self) -> None:
        """Drop every item and build them again from the design."""
        self._pending = []
        selected = self.selection_keys()
        self.clear()
        self.device_items.clear()
        self.bundle_items.clear()
        self.frames.clear()
        self.boxes.clear()
        self._rep.clear()
        self._link_key.clear()
        self._bundle_links.clear()
        self._rep_bundles.clear()
        self._rates.clear()
        d = self.design
        if d is None:
            return
        top_collapsed = self._top_collapsed_map()
        for g in d.groups:
            if top_collapsed[g.id] is None:
                if g.collapsed:
                    box = CollapsedGroupItem(g.id, g.kind)
                    self.boxes[g.id] = box
                    self._add(box)
                else:
                    frame = GroupFrameItem(g.id, g.kind)
                    self.frames[g.id] = frame
                    self._add(frame)
        rep = self._rep
        for dev in d.iter_devices():
            top = top_collapsed.get(dev.group) if dev.group is not None else None
            if top is None and dev.group is not None and d.group(dev.group).collapsed:
                top = dev.group
            if top is None:
                rep[dev.id] = "d:" + dev.id
                self._add_device_item(dev)
            else:
                rep[dev.id] = "g:" + top
        # Bundle every link by the shown objects at its ends (inlined: 82k links at 16k GPUs,
        # most of them inside collapsed groups, which are skipped).
        link_key, bundle_links, rep_bundles = self._link_key, self._bundle_links, self._rep_bundles
        for link in d.iter_links():
            ra, rb = rep[link.a_device], rep[link.b_device]
            if ra == rb:
                continue
            key = (ra, rb) if ra < rb else (rb, ra)
            link_key[link.id] = key
            links = bundle_links.get(key)
            if links is None:
                links = bundle_links[key] = {}
                rep_bundles[ra].add(key)
                rep_bundles[rb].add(key)
            links[link.id] = None
        for gid in self.boxes:
            self._refresh_group_text(gid)
        for gid in self.frames:
            self._refresh_group_text(gid)
        self._update_groups(set(self.frames) | set(self.boxes), rebuilding=True)
        for key in list(self._bundle_links):
            self._refresh_bundle(key)
        self._apply_flags()
        self.restore_selection(selected)
        self.invalidate_sketch()
        self.refreshed.emit(True)

    # ------------------------------------------------------------------ representation
    def _top_collapsed_map(self) -> dict[str | None, str | None]:
        """For every group, its outermost collapsed *strict* ancestor (None if none)."""
        d = self.design
        assert d is not None
        out: dict[str | None, str | None] = {None: None}
        for g in d.groups:
            top = None
            for anc in d.ancestors(g.parent):
                if d.group(anc).collapsed:
                    top = anc
            out[g.id] = top
        return out

    def _rep_for(self, dev: Device) -> Rep:
        d = self.design
        assert d is not None
        top = None
        for anc in d.ancestors(dev.group):
            if d.group(anc).collapsed:
                top = anc
        return "d:" + dev.id if top is None else "g:" + top

    def rep_of(self, device_id: str) -> Rep | None:
        return self._rep.get(device_id)

    def _device_text(self, dev: Device) -> tuple[str, str]:
        """Label and subtitle drawn on a device: its name, or its id without its group's prefix."""
        label = dev.name
        if not label:
            label = dev.id
            d = self.design
            if d is not None and dev.group is not None:
                for gid in d.ancestors(dev.group):
                    if dev.id.startswith(gid + "-") and len(dev.id) > len(gid) + 1:
                        label = dev.id[len(gid) + 1:]
                        break
        sub = " \u00b7 ".join(p for p in (dev.tier, dev.model) if p)
        return label, sub

    def _add_device_item(self, dev: Device) -> DeviceItem:
        w, h = style.device_size(dev.kind, dev.port_count)
        item = DeviceItem(dev.id, dev.kind, w, h)
        item.setPos(dev.x, dev.y)
        item.set_text(*self._device_text(dev))
        d = self.design
        assert d is not None
        used = set()
        for link in d.links_of(dev.id):
            used.add(link.a_port if link.a_device == dev.id else link.b_port)
        item.set_ports([(p.id, p.kind) for p in dev.iter_ports()], used)
        if dev.id in self._flagged_devices:
            item.set_flagged(True)
        self.device_items[dev.id] = item
        self._add(item)
        return item

    def _mark_port(self, device_id: str, port_id: str, used: bool) -> None:
        item = self.device_items.get(device_id)
        if item is not None:
            item.set_port_used(port_id, used)

    def _add(self, item: QGraphicsItem) -> None:
        if self.sketched:
            if item.type() == BUNDLE_TYPE:
                return  # links stay out of the scene while sketched (see set_sketched)
            set_sketched(item, True)
        self.addItem(item)

    # ------------------------------------------------------------------ sketch (zoomed out)
    def set_sketched(self, on: bool) -> None:
        """Draw the batched sketch instead of the items (the view calls this as it zooms)."""
        if on == self.sketched:
            return
        self.sketched = on
        for items in (self.device_items, self.frames, self.boxes):
            for item in items.values():
                set_sketched(item, on)
        # Links leave the scene while sketched: at that zoom they are too thin to click, and
        # the view no longer walks thousands of them on every repaint. They stay in
        # bundle_items and keep being updated; the sketch draws them.
        for bundle in self.bundle_items.values():
            if on:
                if bundle.scene() is self:
                    self.removeItem(bundle)
            elif bundle.scene() is None:
                self.addItem(bundle)
        self.invalidate_sketch()
        self.update()

    def sketch(self) -> Sketch:
        if self._sketch is None:
            self._sketch = Sketch(self)
        return self._sketch

    def invalidate_sketch(self) -> None:
        if self._sketch is not None:
            self._sketch = None
            self.sketch_changed.emit()
            if self.sketched:
                self.update()

    # ------------------------------------------------------------------ painting and hover
    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:
        painter.fillRect(rect, style.BACKGROUND)
        if self.sketched:
            self.sketch().paint(painter)
        elif self.show_grid:
            paint_grid(painter, rect)

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        """Group titles on top of the links (see :func:`designer.gui.canvas.scene_paint.paint_titles`)."""
        if self.frames or self.boxes:
            paint_titles(painter, rect, self.frames.values(), self.boxes.values())

    def helpEvent(self, event: QGraphicsSceneHelpEvent) -> None:
        """Tooltips are computed from the model when asked, so items carry no text."""
        from designer.gui.canvas.describe import describe_item

        text = ""
        for item in self.items(event.scenePos()):
            text = describe_item(self, item)
            if text:
                break
        if text:
            QToolTip.showText(event.screenPos(), text)
        else:
            QToolTip.hideText()
        event.setAccepted(bool(text))

