"""The canvas scene: observes a design's events and keeps one item per shown object.

What is shown: every device that is not inside a collapsed group (a :class:`DeviceItem`), every
outermost collapsed group (a :class:`CollapsedGroupItem`), a frame for every expanded group that
is shown, and one :class:`BundleItem` per pair of shown objects joined by at least one link
(parallel links and the external links of a collapsed group are bundled). Members of collapsed
groups get no items at all, which keeps a 16,384-GPU design light. Each device maps to the
:class:`~designer.gui.canvas.shown.ShownKey` of the object standing for it.

Model events are queued and applied when the model says ``changed`` (see
:mod:`designer.gui.canvas.scene_events`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from itertools import compress, groupby, repeat
from operator import attrgetter, is_, itemgetter, not_

import shiboken6
from PySide6.QtCore import QRectF, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QGraphicsSceneHelpEvent, QGraphicsView, QToolTip

from designer.gui import style
from designer.gui.canvas.items import (
    BOX_TYPE,
    BUNDLE_TYPE,
    DEVICE_TYPE,
    BundleItem,
    CollapsedGroupItem,
    DeviceItem,
    GroupFrameItem,
    set_sketched,
)
from designer.gui.canvas.overlay import LinkMarks
from designer.gui.canvas.scene_bundles import LinkBundles
from designer.gui.canvas.scene_events import QueuedModelEvents
from designer.gui.canvas.scene_groups import GroupShapes, subtree
from designer.gui.canvas.scene_paint import box_labels, paint_grid, paint_titles, title_pills
from designer.gui.canvas.scene_queries import Findings, Selection
from designer.gui.canvas.shown import DEVICE, GROUP, BundleKey, ShownKey
from designer.gui.canvas.sketch import Sketch
from designer.model import Design, Device
from designer.model.catalog import Catalog
from designer.model.geometry import device_box

_ID = attrgetter("id")
_FIRST, _SECOND = itemgetter(0), itemgetter(1)


class DesignScene(QueuedModelEvents, QGraphicsScene):
    """Items for one design; rebuilt on :meth:`set_design`, updated from model events.

    It owns the device items and four helpers: :attr:`bundles` (link bundles), :attr:`groups`
    (frames and boxes), :attr:`findings` (design-rule marks) and :attr:`selection` (selection in
    model terms). They reach back only through the small host interface below (``design``,
    ``device_items``, :meth:`shown_key_of`, :meth:`item_for`, :meth:`add_item`, :meth:`drop_item`,
    :meth:`link_flagged`, :meth:`invalidate_sketch`).
    """

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
        self._shown: dict[str, ShownKey] = {}  # device id -> the shown object standing for it
        #: analysis marks (utilisation colours, halos): view state, see designer.gui.canvas.overlay
        self.marks = LinkMarks()
        self.bundles = LinkBundles(self)
        self.groups = GroupShapes(self)
        self.findings = Findings(self)
        self.selection = Selection(self)
        self.start_event_queue()
        self.show_grid = True
        #: True while the zoomed-out sketch replaces per-item painting (see designer.gui.canvas.sketch)
        self.sketched = False
        self._sketch: Sketch | None = None
        #: a title was pinned inside the window at the last paint (the view repaints them on a scroll)
        self.titles_pinned = False
        self.selectionChanged.connect(self.invalidate_sketch)

    def restyle_links(self) -> None:
        """Redraw every link after :attr:`marks` changed (utilisation overlay, halos)."""
        self.bundles.restyle_all()
        self.invalidate_sketch()

    # ------------------------------------------------------------------ item maps
    @property
    def bundle_items(self) -> dict[BundleKey, BundleItem]:
        return self.bundles.items

    @property
    def frames(self) -> dict[str, GroupFrameItem]:
        return self.groups.frames

    @property
    def boxes(self) -> dict[str, CollapsedGroupItem]:
        return self.groups.boxes

    # ------------------------------------------------------------------ binding
    def set_design(self, design: Design) -> None:
        if self.design is not None:
            self._connect(self.design, False)
        self.design = design
        self.findings.replace({}, {})
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

    def rebuild(self) -> None:
        """Drop every item and build them again from the design."""
        self._pending = []
        selected = self.selection.keys()
        self.clear()
        self.device_items.clear()
        self._shown.clear()
        self.bundles.clear()
        self.groups.clear()
        d = self.design
        if d is None:
            return
        # group id -> the outermost collapsed group among it and its ancestors (None: not hidden)
        hidden_in = d.hiding_groups()
        for g in d.groups:
            if g.parent is None or hidden_in[g.parent] is None:
                self.groups.show(g, text=False)
        shown = self._shown
        devices = d.devices
        tops = d.devices_hidden_in(hidden_in)
        drawn = list(map(is_, tops, repeat(None)))
        for dev in compress(devices, drawn):
            shown[dev.id] = ShownKey(DEVICE, dev.id)
            self._add_device_item(dev)
        # The hidden devices a column at a time (at 131,072 GPUs all 285,696 are): one key object per
        # hiding group, and each group's devices, which follow one another in the table, a run at a time.
        hiding = list(map(not_, drawn))
        hidden_devices, hidden_tops = list(compress(devices, hiding)), list(compress(tops, hiding))
        group_keys = {top: ShownKey(GROUP, top) for top in dict.fromkeys(hidden_tops)}
        shown.update(zip(map(_ID, hidden_devices), map(group_keys.__getitem__, hidden_tops), strict=True))
        hidden: dict[str, list[Device]] = {}  # the devices each hiding group hides
        for top, run in groupby(zip(hidden_tops, hidden_devices, strict=True), key=_FIRST):
            hidden.setdefault(top, []).extend(map(_SECOND, run))
        self.bundles.index(d, shown)
        self.groups.hidden = hidden
        try:
            for gid in self.groups.boxes:
                self.groups.refresh_text(gid)
            for gid in self.groups.frames:
                self.groups.refresh_text(gid)
            self.groups.update(set(self.groups.frames) | set(self.groups.boxes), rebuilding=True)
        finally:
            self.groups.hidden = None
        self.bundles.refresh_all()
        self.findings.mark_items()
        self.selection.restore(selected)
        self.invalidate_sketch()
        self.refreshed.emit(True)

    def _regroup(self, gid: str) -> set[BundleKey]:
        """Show group ``gid`` as its collapsed state now says, touching only its own subtree.

        Members that became hidden lose their items, members that became shown get one; frames
        and boxes of the subtree are swapped; the links of the members are re-bundled. Returns
        the bundle keys to refresh. (A collapse or expand does not rebuild the whole canvas.)
        """
        d = self.design
        assert d is not None
        members = d.all_members(gid)
        lost_selection = False
        for dev in members:
            new = self._shown_key_for(dev)
            old = self._shown.get(dev.id)
            if new == old:
                continue
            self._shown[dev.id] = new
            if old is not None and old.is_device:
                item = self.device_items.pop(dev.id, None)
                if item is not None:
                    lost_selection = lost_selection or item.isSelected()
                    self.removeItem(item)
            if new.is_device:
                self._add_device_item(dev)
        shapes = self.groups
        for g in subtree(d, gid):
            hidden = d.outermost_collapsed_group(g.id, include_self=False) is not None
            want = None if hidden else ("box" if g.collapsed else "frame")
            if want == shapes.shape_of(g.id):
                continue
            old_item = shapes.boxes.get(g.id) or shapes.frames.get(g.id)
            was_selected = old_item is not None and old_item.isSelected()
            shapes.drop(g.id)
            if want is not None:
                shapes.show(g).setSelected(was_selected or (lost_selection and want == "box"))
        dirty: set[BundleKey] = set()
        seen: set[str] = set()
        for dev in members:
            for link in d.links_of(dev.id):
                if link.id not in seen:
                    seen.add(link.id)
                    dirty.update(self.bundles.rebundle(link))
        self.findings.mark_items()
        return dirty

    # ------------------------------------------------------------------ shown objects
    def _shown_key_for(self, dev: Device) -> ShownKey:
        """The shown object that stands for ``dev`` as the design is now."""
        assert self.design is not None
        top = self.design.outermost_collapsed_group(dev.group)
        return ShownKey(DEVICE, dev.id) if top is None else ShownKey(GROUP, top)

    def shown_key_of(self, device_id: str) -> ShownKey | None:
        """The shown object standing for a device: itself, or the collapsed group hiding it."""
        return self._shown.get(device_id)

    def item_for(self, shown: ShownKey) -> QGraphicsItem | None:
        """The device item or collapsed-group box of a shown object."""
        if shown.kind == DEVICE:
            return self.device_items.get(shown.id)
        return self.groups.boxes.get(shown.id)

    def add_item(self, item: QGraphicsItem) -> None:
        """Add an item, sketched if the scene is (links stay out while sketched, see :meth:`set_sketched`)."""
        if self.sketched:
            if item.type() == BUNDLE_TYPE:
                return
            set_sketched(item, True)
        self.addItem(item)

    def drop_item(self, item: QGraphicsItem) -> None:
        """Remove an item if it is in the scene (links are out of it while sketched)."""
        if item.scene() is self:
            self.removeItem(item)

    def link_flagged(self, link_id: str) -> str:
        """The level of the link's worst design-rule finding ("" for none)."""
        return self.findings.link_flag(link_id)

    def any_link_flags(self) -> bool:
        """Some link has a design-rule finding marked (else no link needs asking)."""
        return self.findings.any_link_flag()

    # ------------------------------------------------------------------ queries (see scene_queries)
    def set_findings(self, by_device: dict[str, list[str]], by_link: dict[str, list[str]]) -> None:
        """Mark devices and links that break design rules (messages shown on hover)."""
        bundles = self.bundles
        for key in {bundles.key_of(lid) for lid in self.findings.replace(by_device, by_link)}:
            if key is not None and bundles.holds(key):
                bundles.refresh(key)
        self.findings.mark_items()
        self.invalidate_sketch()

    def show_rule_marks(self, on: bool) -> None:
        """Mark (or stop marking) what breaks a design rule in red and amber: view state only."""
        if on == self.findings.shown:
            return
        self.findings.shown = on
        self.findings.mark_items()
        self.bundles.restyle_all(marks_only=False)
        self.invalidate_sketch()

    def findings_for_device(self, device_id: str) -> list[str]:
        return self.findings.for_device(device_id)

    def findings_for_links(self, link_ids: Iterable[str]) -> list[str]:
        return self.findings.for_links(link_ids)

    def bundle_link_ids(self, key: BundleKey) -> list[str]:
        return self.bundles.link_ids(key)

    def selected_device_ids(self) -> list[str]:
        return self.selection.device_ids()

    def selected_link_ids(self) -> list[str]:
        return self.selection.link_ids()

    def selected_group_ids(self) -> list[str]:
        return self.selection.group_ids()

    def select_devices(self, device_ids: Iterable[str]) -> None:
        self.selection.select_devices(device_ids)

    @contextmanager
    def selecting(self) -> Iterator[None]:
        """Select or deselect many items with one ``selectionChanged`` at the end. Qt emits it for
        every item, and each time the inspector and the status read the whole selection: selecting
        the 112 boxes of the 16k sample one by one took 1.3 s."""
        if self.signalsBlocked():
            yield
            return
        self.blockSignals(True)
        try:
            yield
        finally:
            self.blockSignals(False)
            self.selectionChanged.emit()

    def select_links(self, link_ids: Iterable[str]) -> QGraphicsItem | None:
        return self.selection.select_links(link_ids)

    def item_for_device(self, device_id: str) -> QGraphicsItem | None:
        return self.selection.item_for_device(device_id)

    # ------------------------------------------------------------------ gestures
    def update_bundles_of(self, shown: Iterable[ShownKey]) -> None:
        """Re-place the bundles touching shown objects (during a drag, before the model moves)."""
        self.bundles.follow(shown)

    def restore_positions(self, items: Iterable[QGraphicsItem]) -> None:
        """Put items a gesture moved back where the model says (devices at their positions, boxes
        at the centre of their members, frames at rest); items no longer in the scene are skipped."""
        d = self.design
        if d is None:
            return
        shown, boxes = [], []
        for item in items:
            if not shiboken6.isValid(item) or item.scene() is not self:
                continue
            if isinstance(item, GroupFrameItem):
                item.setPos(0, 0)
            elif isinstance(item, CollapsedGroupItem):
                boxes.append(item.group_id)
                shown.append(ShownKey.group(item.group_id))
            elif d.has_device(item.device_id):  # type: ignore[attr-defined]
                dev = d.device(item.device_id)  # type: ignore[attr-defined]
                item.setPos(dev.x, dev.y)
                shown.append(ShownKey.device(dev.id))
        self.groups.update(boxes)
        self.bundles.follow(shown)

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
        w, h = device_box(dev.kind, dev.port_count)
        item = DeviceItem(dev.id, dev.kind, w, h)
        item.setPos(dev.x, dev.y)
        item.set_text(*self._device_text(dev))
        d = self.design
        assert d is not None
        used = set()
        for link in d.links_of(dev.id):
            used.add(link.a_port if link.a_device == dev.id else link.b_port)
        item.set_ports([(p.id, p.kind) for p in dev.iter_ports()], used)
        if self.findings.device_flagged(dev.id):
            item.set_flagged(self.findings.device_flag(dev.id))
        self.device_items[dev.id] = item
        self.add_item(item)
        return item

    def _mark_port(self, device_id: str, port_id: str, used: bool) -> None:
        item = self.device_items.get(device_id)
        if item is not None:
            item.set_port_used(port_id, used)

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
        # A selected link stays (a selection survives zooming); the sketch draws it highlighted.
        for bundle in self.bundle_items.values():
            if on:
                if bundle.scene() is self and not bundle.isSelected():
                    self.removeItem(bundle)
            elif bundle.scene() is None:
                self.addItem(bundle)
        self.invalidate_sketch()
        self.update()

    def show_bundle(self, bundle: BundleItem) -> None:
        """Put a link bundle in the scene even while sketched, so that it can be selected."""
        if bundle.scene() is None:
            self.addItem(bundle)

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
            self.titles_pinned = paint_titles(painter, rect, self.frames.values(), self.boxes.values(),
                                              self.holds_nothing)

    def holds_nothing(self, area: QRectF) -> bool:
        """Whether no device or collapsed box is drawn in ``area`` (scene units): room for a title."""
        return not any(item.type() in (DEVICE_TYPE, BOX_TYPE) and item.isVisible() for item in self.items(area))

    def shown_titles(self, view: QGraphicsView) -> set[str]:
        """Groups whose title (frame) or label (collapsed box) the view shows as it stands."""
        world = view.viewportTransform()
        px = QRectF(view.viewport().rect())
        rect = view.mapToScene(view.viewport().rect()).boundingRect()
        pills = title_pills(world, rect, self.frames.values(), px, self.holds_nothing)
        labels = box_labels(world, rect, self.boxes.values(), px, [p for p, _, _ in pills])
        return {frame.group_id for _, _, frame in pills} | {box.group_id for _, box in labels}

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

