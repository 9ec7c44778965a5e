"""The editor: turns gestures, drops and menu actions into undo commands on the document.

It is the one place that knows both the scene (what is selected, where things are drawn) and
the commands; commands themselves only know the model.
"""

from __future__ import annotations

import heapq
import json
import math
import time
from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import QEventLoop, QMimeData, QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QUndoCommand
from PySide6.QtWidgets import QApplication, QGraphicsItem

from designer.gui.canvas.cabling import Pair, nics_to_connect, plan_links, rail_wise, to_switch
from designer.gui.canvas.interactions import snap
from designer.gui.canvas.items import BOX_TYPE, BUNDLE_TYPE, DEVICE_TYPE, FRAME_TYPE
from designer.gui.canvas.linking import LinkError, choose_ports
from designer.gui.canvas.scene import DesignScene
from designer.gui.document import commands as cmd
from designer.gui.document import fragments
from designer.gui.document.document import Document
from designer.gui.style import GRID, GROUP_HEADER, GROUP_PADDING
from designer.model import Design, DesignError, Device, Group, units
from designer.model.catalog import Catalog
from designer.model.entities import clamp_coord
from designer.model.geometry import device_box

MIME_COMPONENT = "application/x-topo-designer-component"
MIME_SERVER = "application/x-topo-designer-server"
#: A server template: the payload is the template file's path (designer.io.server_template).
MIME_TEMPLATE = "application/x-topo-designer-server-template"
MIME_CABLE = "application/x-topo-designer-cable"
DESIGN_SUFFIXES = (".json", ".topo", ".topo.json")

_ID_BASE = {"gpu": "gpu", "nic": "nic", "nvswitch": "nvsw", "switch": "switch", "storage": "storage"}
#: Clear space kept between something placed and what is already drawn (scene units).
PLACE_GAP = GRID
#: Positions tried before giving up on the neighbourhood and placing right of everything.
_PLACE_TRIES = 400
#: Expanding or collapsing groups that hold more devices than this redraws for a second or more (an
#: item per device and link shown): the window shows a busy cursor meanwhile and then says how long.
BUSY_REGROUP_DEVICES = 5_000
_OBSTACLES = (DEVICE_TYPE, BOX_TYPE, FRAME_TYPE)


def footprint(devices: Iterable[Device], group_depth: int = 0) -> QRectF:
    """The area devices take on the canvas (boxes around their centres), with the frames of
    ``group_depth`` nested groups around them."""
    area = QRectF()
    for dev in devices:
        w, h = device_box(dev.kind, dev.port_count)
        area = area.united(QRectF(dev.x - w / 2, dev.y - h / 2, w, h))
    pad = GROUP_PADDING * group_depth
    return area.adjusted(-pad, -pad - GROUP_HEADER * group_depth, pad, pad)


def _grid_out(shift: float) -> float:
    """``shift`` rounded away from zero to the snap grid (so a move clears what it must)."""
    return math.copysign(math.ceil(abs(shift) / GRID - 1e-9) * GRID, shift)


def generator_registry() -> dict[str, Any]:
    """The generators' registry (kind -> spec), imported on first use to keep start-up quick."""
    from designer.generators import GENERATORS

    return dict(GENERATORS)


class Editor(QObject):
    """Edits of one document through one scene."""

    #: a message for the status bar
    message = Signal(str)
    #: a local file was dropped on the canvas (a design file if there was one among them)
    file_dropped = Signal(str)

    def __init__(self, document: Document, scene: DesignScene) -> None:
        super().__init__()
        self.document = document
        self.scene = scene
        self.paste_offset = 0

    @property
    def design(self) -> Design:
        return self.document.design

    @property
    def catalog(self) -> Catalog:
        return self.document.catalog

    def status(self, text: str) -> None:
        self.message.emit(text)

    def _push(self, command: QUndoCommand) -> bool:
        """Push a command; a model refusal becomes a status message (and nothing changes)."""
        try:
            self.document.push(command)
        except DesignError as e:
            self.status(str(e))
            return False
        return True

    # ------------------------------------------------------------------ placing
    def place_component(self, model_id: str, pos: QPointF) -> str | None:
        """Add a device of catalog model ``model_id`` centred at ``pos`` (snapped); return its id."""
        comp = self.catalog.components.get(model_id)
        if comp is None:
            self.status(f"no component {model_id!r} in the catalog")
            return None
        dev_id = self.design.unique_id(f"{_ID_BASE.get(comp.kind, comp.kind)}-1")
        tier = "leaf" if comp.kind == "switch" else ""
        device = comp.make_device(dev_id, x=snap(pos.x()), y=snap(pos.y()), tier=tier)
        dx, dy = self.free_offset(footprint([device]))
        if dx or dy:
            device = comp.make_device(dev_id, x=device.x + dx, y=device.y + dy, tier=tier)
        command = cmd.AddDeviceCommand(self.design, device)
        command.setText(f"Place {comp.name.split(' (')[0]}")
        if self._push(command):
            self.scene.select_devices([dev_id])
            self.reveal(footprint([device]))
            return dev_id
        return None

    def place_server(self, params: dict, pos: QPointF) -> list[str]:
        """Build a server with the server generator and insert it centred at ``pos``."""
        registry = generator_registry()
        spec = registry.get("server") if registry else None
        if spec is None:
            self.status("the server generator is not available")
            return []
        try:
            design = spec.build(catalog=self.catalog, **params)
        except DesignError as e:
            self.status(str(e))
            return []
        design = fragments.renumber_servers(self.design, design)
        return self.insert_design(design, f"Place {design.name}", centre=pos, free_space=True)

    def place_template(self, path: str, pos: QPointF) -> list[str]:
        """Read the server template at ``path`` and insert a copy centred at ``pos`` (in free space)."""
        from designer.io.server_template import load_server_template

        try:
            design = load_server_template(path)
        except DesignError as e:
            self.status(str(e))
            return []
        design = fragments.renumber_servers(self.design, design)
        return self.insert_design(design, f"Place {design.name}", centre=pos, free_space=True)

    def insert_design(self, design: Design, text: str, centre: QPointF | None = None,
                      free_space: bool = False) -> list[str]:
        """Insert a whole design as one undo step; return the new device ids.

        With ``centre``, the design's devices are centred there (with ``free_space``, in the
        nearest space around it where they cover nothing already drawn); without, a design
        inserted into a non-empty one goes to the right of what is there.
        """
        b = fragments.bounds(design.iter_devices())
        dx = dy = 0.0
        placed: QRectF | None = None
        if b is not None:
            if centre is not None:
                dx = snap(centre.x() - (b[0] + b[2]) / 2)
                dy = snap(centre.y() - (b[1] + b[3]) / 2)
                if free_space:
                    depth = max((len(design.ancestors(g.id)) + 1 for g in design.groups), default=0)
                    area = footprint(design.iter_devices(), depth).translated(dx, dy)
                    fx, fy = self.free_offset(area)
                    dx, dy = dx + fx, dy + fy
                    placed = area.translated(fx, fy)
            else:
                here = fragments.bounds(self.design.iter_devices())
                if here is not None:
                    dx = snap(here[2] + 400 - b[0])
                    dy = snap(here[1] - b[1])
        groups, devices, links = fragments.rename_for(self.design, design, dx, dy)
        if not (groups or devices or links):
            self.status("nothing to insert")
            return []
        if self._push(cmd.InsertDesignCommand(self.design, groups, devices, links, text)):
            ids = [dv.id for dv in devices]
            if len(ids) <= 5000:
                self.scene.select_devices(ids)
            if placed is not None:
                self.reveal(placed)
            return ids
        return []

    def reveal(self, area: QRectF) -> None:
        """Scroll a view just enough to show ``area`` when none of it is in sight (a placement
        moved to free space beyond the view); a view that shows part of it keeps still."""
        for view in self.scene.views():
            shown = view.mapToScene(view.viewport().rect()).boundingRect()
            if not shown.intersects(area):
                view.ensureVisible(area, 20, 20)

    def _obstacles(self, area: QRectF) -> list[QRectF]:
        """Scene rectangles of the devices, collapsed boxes and group frames drawn in ``area``."""
        mode = Qt.ItemSelectionMode.IntersectsItemBoundingRect
        return [
            it.sceneBoundingRect()
            for it in self.scene.items(area, mode)
            if it.type() in _OBSTACLES and it.isVisible()
        ]

    def free_offset(self, area: QRectF) -> tuple[float, float]:
        """The shortest grid shift (dx, dy) that leaves ``area`` clear of everything drawn.

        A best-first search: from each tried position, the four shifts that just clear one of
        the things in the way (left, right, above, below it) are queued by their distance.
        """
        gap = PLACE_GAP
        queue: list[tuple[float, float, float]] = [(0.0, 0.0, 0.0)]
        seen = {(0.0, 0.0)}
        for _ in range(_PLACE_TRIES):
            if not queue:
                break
            _, dx, dy = heapq.heappop(queue)
            here = area.translated(dx, dy)
            hits = self._obstacles(here.adjusted(-gap, -gap, gap, gap))
            if not hits:
                return dx, dy
            for hit in hits:
                for step in (
                    (_grid_out(hit.right() + gap - here.left()), 0.0),
                    (_grid_out(hit.left() - gap - here.right()), 0.0),
                    (0.0, _grid_out(hit.bottom() + gap - here.top())),
                    (0.0, _grid_out(hit.top() - gap - here.bottom())),
                ):
                    key = (dx + step[0], dy + step[1])
                    if key not in seen:
                        seen.add(key)
                        heapq.heappush(queue, (math.hypot(*key), *key))
        everything = self.scene.itemsBoundingRect()  # crowded all round: right of the whole design
        return _grid_out(everything.right() + 2 * gap - area.left()), 0.0

    # ------------------------------------------------------------------ links
    def connect_ports(self, a_dev: str, a_port: str | None, b_dev: str, b_port: str | None) -> str | None:
        """Connect two devices (ports chosen when None); return the new link id or None.

        The cable follows the twin-port cages (:mod:`designer.gui.canvas.cabling`): a link into a
        cage that already holds one takes its cable, or both take one that reaches.
        """
        try:
            ports = choose_ports(self.design, a_dev, a_port, b_dev, b_port)
            ids = self._connect([(a_dev, ports[0], b_dev, ports[1])], "")
        except (LinkError, DesignError) as e:
            self.status(f"cannot connect: {e}")
            return None
        if not ids:
            return None
        link = self.design.link(ids[0])
        self.status(f"connected {link.a} to {link.b}: {link.medium.replace('_', ' ')}, {link.length_m:g} m")
        return link.id

    def _connect(self, pairs: list[Pair], text: str) -> list[str]:
        """Add the links of ``pairs`` as one undo step, cabled cage by cage; their ids.

        LinkError or DesignError when a pair cannot be joined (nothing is changed then)."""
        plan = plan_links(self.design, self.catalog, pairs)
        if len(plan.links) == 1 and not plan.retune:
            command: cmd.DesignCommand = cmd.AddLinkCommand(self.design, plan.links[0])
        else:
            command = cmd.MacroCommand(self.design, text or f"Connect {units.count(len(plan.links), 'link')}")
            for link in plan.links:
                cmd.AddLinkCommand(self.design, link, command)
            for lid, (medium, cable) in plan.retune.items():
                cmd.SetLinkFieldCommand(self.design, [lid], "medium", medium, command)
                cmd.SetLinkFieldCommand(self.design, [lid], "cable", cable, command)
        self.document.push(command)
        return [link.id for link in plan.links]

    def connect_to_switch(self, device_ids: list[str], switch_id: str) -> list[str]:
        """Connect Selected ▸ to switch: the NICs among ``device_ids`` (and in their groups), in rail
        order, to the switch's next free network ports, as one undo step."""
        return self._cable(device_ids, [switch_id], rail=False)

    def cable_rail_wise(self, device_ids: list[str], leaf_ids: list[str]) -> list[str]:
        """Rail r of every selected server to leaf r of ``leaf_ids``, as one undo step."""
        return self._cable(device_ids, leaf_ids, rail=True)

    def _cable(self, device_ids: list[str], switches: list[str], rail: bool) -> list[str]:
        d = self.design
        members = [m.id for did in device_ids if d.has_group(did) for m in d.all_members(did)]
        nics = nics_to_connect(d, [i for i in dict.fromkeys((*device_ids, *members)) if d.has_device(i)])
        if not nics or not switches:
            self.status("select servers or NICs with a free network port, and the switches to cable them to")
            return []
        try:
            pairs = rail_wise(d, nics, switches) if rail else to_switch(d, nics, switches[0])
            where = f"{units.count(len(switches), 'leaf', 'leaves')} rail-wise" if rail else switches[0]
            ids = self._connect(pairs, f"Connect {units.count(len(pairs), 'NIC')} to {where}")
        except (LinkError, DesignError) as e:
            self.status(f"cannot connect: {e}")
            return []
        media = sorted({d.link(i).cable or d.link(i).medium for i in ids})
        self.status(f"connected {units.count(len(ids), 'NIC')} to {where}: {', '.join(media)}")
        return ids

    def apply_cable(self, cable_id: str, link_ids: list[str]) -> bool:
        """Give links a catalog cable (and its medium) as one undo step."""
        cable = self.catalog.cables.get(cable_id)
        if cable is None or not link_ids:
            return False
        macro = cmd.MacroCommand(self.design, f"Use {cable.id} on {units.count(len(link_ids), 'link')}")
        cmd.SetLinkFieldCommand(self.design, link_ids, "medium", cable.medium, macro)
        cmd.SetLinkFieldCommand(self.design, link_ids, "cable", cable.id, macro)
        return self._push(macro)

    # ------------------------------------------------------------------ moving
    def commit_move(self, items: Iterable[QGraphicsItem], offset: QPointF) -> None:
        """One Move command for what a drag moved: devices, and every member of moved groups."""
        d = self.design
        new: dict[str, tuple[float, float]] = {}
        for it in items:
            t = it.type()
            if t == DEVICE_TYPE:
                dev = d.device(it.device_id)  # type: ignore[attr-defined]
                new[dev.id] = (clamp_coord(dev.x + offset.x()), clamp_coord(dev.y + offset.y()))
            elif t in (BOX_TYPE, FRAME_TYPE):
                for dev in d.all_members(it.group_id):  # type: ignore[attr-defined]
                    new[dev.id] = (clamp_coord(dev.x + offset.x()), clamp_coord(dev.y + offset.y()))
        if new:
            self._push(cmd.MoveDevicesCommand(d, new))

    # ------------------------------------------------------------------ drops
    def accepts_drop(self, mime: QMimeData) -> bool:
        if any(mime.hasFormat(m) for m in (MIME_COMPONENT, MIME_SERVER, MIME_TEMPLATE, MIME_CABLE)):
            return True
        return bool(self.local_paths(mime))

    @staticmethod
    def local_paths(mime: QMimeData) -> list[str]:
        """Local files (of any kind) in a drop: the window opens a design or says why it cannot."""
        if not mime.hasUrls():
            return []
        return [u.toLocalFile() for u in mime.urls() if u.isLocalFile()]

    @staticmethod
    def is_design_name(path: str) -> bool:
        return path.lower().endswith(DESIGN_SUFFIXES)

    @classmethod
    def design_paths(cls, mime: QMimeData) -> list[str]:
        return [p for p in cls.local_paths(mime) if cls.is_design_name(p)]

    def drop(self, mime: QMimeData, pos: QPointF) -> bool:
        """Handle a drop on the canvas at scene position ``pos``."""
        if mime.hasFormat(MIME_COMPONENT):
            model_id = bytes(mime.data(MIME_COMPONENT).data()).decode("utf-8")
            return self.place_component(model_id, pos) is not None
        if mime.hasFormat(MIME_SERVER):
            params = json.loads(bytes(mime.data(MIME_SERVER).data()).decode("utf-8"))
            return bool(self.place_server(params, pos))
        if mime.hasFormat(MIME_TEMPLATE):
            return bool(self.place_template(bytes(mime.data(MIME_TEMPLATE).data()).decode("utf-8"), pos))
        if mime.hasFormat(MIME_CABLE):
            cable_id = bytes(mime.data(MIME_CABLE).data()).decode("utf-8")
            for item in self.scene.items(pos):
                if item.type() == BUNDLE_TYPE:
                    return self.apply_cable(cable_id, self.scene.bundle_link_ids(item.key))  # type: ignore[attr-defined]
            self.status("drop a cable on a link to use it there")
            return False
        paths = self.design_paths(mime) or self.local_paths(mime)
        if paths:
            self.file_dropped.emit(paths[0])
            return True
        return False

    # ------------------------------------------------------------------ selection edits
    def select_all(self) -> None:
        with self.scene.selecting():
            for item in self.scene.items():
                if item.type() in (DEVICE_TYPE, BOX_TYPE, BUNDLE_TYPE, FRAME_TYPE):
                    item.setSelected(True)

    def delete_selection(self) -> bool:
        command = cmd.delete_command(
            self.design,
            self.scene.selected_device_ids(),
            self.scene.selected_link_ids(),
            self.scene.selected_group_ids(),
        )
        if command is None:
            return False
        return self._push(command)

    def copy_selection(self) -> str | None:
        """Put the selection (devices, links among them, whole groups) on the clipboard.

        The clipboard gets design-file JSON as plain text, which other windows and programs
        paste. (Text, not a QMimeData made here: Qt would delete a Python-made QMimeData held by
        the clipboard after Python has shut down, and crash on exit.)
        """
        devices = self.scene.selected_device_ids()
        if not devices:
            self.status("nothing to copy: select devices or groups")
            return None
        frag = fragments.extract(self.design, devices, self.scene.selected_group_ids())
        text = fragments.to_text(frag)
        QApplication.clipboard().setText(text)
        self.paste_offset = 0
        self.status(f"copied {units.count(frag.device_count(), 'device')} and {units.count(frag.link_count(), 'link')}")
        return text

    def cut_selection(self) -> bool:
        if self.copy_selection() is None:
            return False
        self.delete_selection()
        return True

    def paste(self, centre: QPointF | None = None) -> list[str]:
        """Insert the clipboard's fragment (from this or another window), shifted or at ``centre``."""
        mime = QApplication.clipboard().mimeData()
        if mime is None:
            return []
        if mime.hasFormat(fragments.MIME_FRAGMENT):
            text = bytes(mime.data(fragments.MIME_FRAGMENT).data()).decode("utf-8")
        elif mime.hasText() and fragments.looks_like_design(mime.text()):
            text = mime.text()
        else:
            self.status("the clipboard holds no devices")
            return []
        try:
            frag = fragments.from_text(text)
        except DesignError as e:
            self.status(f"cannot paste: {e}")
            return []
        return self._insert_fragment(frag, "Paste", centre)

    def duplicate_selection(self) -> list[str]:
        devices = self.scene.selected_device_ids()
        if not devices:
            return []
        frag = fragments.extract(self.design, devices, self.scene.selected_group_ids())
        self.paste_offset = 0
        return self._insert_fragment(frag, "Duplicate", None)

    def _insert_fragment(self, frag: Design, verb: str, centre: QPointF | None) -> list[str]:
        b = fragments.bounds(frag.iter_devices())
        if b is None:
            return []
        if centre is not None:
            dx = snap(centre.x() - (b[0] + b[2]) / 2)
            dy = snap(centre.y() - (b[1] + b[3]) / 2)
        else:
            self.paste_offset += 1
            dx = dy = 40.0 * self.paste_offset
        groups, devices, links = fragments.rename_for(self.design, frag, dx, dy)
        text = f"{verb} {units.count(len(devices), 'device')}"
        if self._push(cmd.InsertDesignCommand(self.design, groups, devices, links, text)):
            ids = [dv.id for dv in devices]
            with self.scene.selecting():
                self.scene.select_devices(ids)
                for gid in (g.id for g in groups if g.parent is None):
                    item = self.scene.frames.get(gid) or self.scene.boxes.get(gid)
                    if item is not None:
                        item.setSelected(True)
            return ids
        return []

    # ------------------------------------------------------------------ groups
    def set_collapsed(self, group_ids: list[str], collapsed: bool) -> bool:
        """Collapse or expand groups: view state, neither an undo step nor a change to save.

        Groups holding more than :data:`BUSY_REGROUP_DEVICES` devices are redrawn under a busy
        cursor, and the status bar then says how many devices were shown or hidden, in how long."""
        d = self.design
        ids = self.document.changing_groups(group_ids, collapsed)
        chosen = set(ids)
        outermost = [g for g in ids if chosen.isdisjoint(d.ancestors(g)[1:])]
        devices = sum(len(d.all_members(g)) for g in outermost)
        if devices <= BUSY_REGROUP_DEVICES:
            return self.document.set_collapsed(ids, collapsed)
        what = f"{units.count(len(ids), 'group')} holding {units.count(devices, 'device')}"
        no_input = QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents
        t0 = time.perf_counter()
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            self.status(f"{'Collapsing' if collapsed else 'Expanding'} {what}\u2026")
            QApplication.processEvents(no_input)  # the words and the cursor shown before the window is busy
            changed = self.document.set_collapsed(ids, collapsed)
            QApplication.processEvents(no_input)  # and drawn, still under the busy cursor
        finally:
            QApplication.restoreOverrideCursor()
        self.status(f"{'Collapsed' if collapsed else 'Expanded'} {what} in {units.duration(time.perf_counter() - t0)}")
        return changed

    def collapse_all(self, kind: str | None = None) -> bool:
        """Collapse every group (of one kind), as view state."""
        ids = [g.id for g in self.design.groups if (kind is None or g.kind == kind) and not g.collapsed]
        return self.set_collapsed(ids, True)

    def expand_all(self) -> bool:
        """Expand every group, as view state."""
        return self.set_collapsed([g.id for g in self.design.groups if g.collapsed], False)

    def toggle_collapse_selection(self) -> bool:
        groups = self.scene.selected_group_ids()
        if not groups:
            # a selected device: collapse its innermost group
            devs = [i for i in self.scene.selected_device_ids() if self.design.device(i).group]
            groups = list(dict.fromkeys(self.design.device(i).group for i in devs))  # type: ignore[misc]
            return self.set_collapsed(groups, True)
        collapse = not all(self.design.group(g).collapsed for g in groups)
        return self.set_collapsed(groups, collapse)

    def group_selection(self, kind: str = "custom") -> str | None:
        devices = [i for i in self.scene.selected_device_ids()]
        if not devices:
            self.status("select devices to group")
            return None
        d = self.design
        parents = {d.device(i).group for i in devices}
        parent = parents.pop() if len(parents) == 1 else None
        gid = fragments.free_id(f"{kind}-1", d.has_group)
        group = Group(gid, kind, "", parent)
        ok = self._push(cmd.group_command(d, devices, group))
        if ok:
            item = self.scene.frames.get(gid)
            self.scene.clearSelection()
            if item is not None:
                item.setSelected(True)
        return gid if ok else None

    def ungroup_selection(self) -> bool:
        groups = self.scene.selected_group_ids()
        if not groups:
            self.status("select a group to ungroup")
            return False
        stack = self.document.undo_stack
        stack.beginMacro(f"Ungroup {groups[0] if len(groups) == 1 else units.count(len(groups), 'group')}")
        try:
            for gid in groups:
                if self.design.has_group(gid):
                    self.document.push(cmd.ungroup_command(self.design, gid))
        finally:
            stack.endMacro()
        return True

    # ------------------------------------------------------------------ failures (what-if)
    def failure_links(self, link_ids: Iterable[str] = (), device_ids: Iterable[str] = ()) -> list[str]:
        """The links a Fail / Restore acts on: the links given, and every link of the devices given."""
        d = self.design
        out = [lid for lid in link_ids if d.has_link(lid)]
        for did in device_ids:
            if d.has_device(did):
                out.extend(lk.id for lk in d.links_of(did))
        return list(dict.fromkeys(out))

    def set_failed(self, link_ids: list[str], failed: bool, what: str) -> bool:
        """Fail (take out of service) or restore links for a what-if analysis, as one undo step."""
        ids = [lid for lid in link_ids if self.design.has_link(lid) and self.design.link(lid).failed != failed]
        if not ids:
            self.status(f"{what}: nothing to {'fail' if failed else 'restore'}")
            return False
        command = cmd.SetLinkFieldCommand(self.design, ids, "failed", failed)
        command.setText(f"{'Fail' if failed else 'Restore'} {what}")
        return self._push(command)
