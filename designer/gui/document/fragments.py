"""Pieces of designs: cut out a selection, rename ids for insertion, (de)serialise for the clipboard.

A fragment is a plain :class:`designer.model.Design` holding copies of some devices, the links
among them and the groups that came along. On the clipboard it travels as design-file text
(``designer.io.design_to_text``), so paste works between windows and between processes; a
drag or another program may also offer it under :data:`MIME_FRAGMENT`.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable
from operator import attrgetter

from designer.io import design_from_text, design_to_text
from designer.model import Design, Device, Group, Link

MIME_FRAGMENT = "application/x-topo-designer-fragment"

_X, _Y = attrgetter("x"), attrgetter("y")
_SUFFIX = re.compile(r"^(.*?)-(\d+)$")


def extract(design: Design, device_ids: Iterable[str], group_ids: Iterable[str] = ()) -> Design:
    """Copies of the devices, every link with both ends among them, and the groups that are wholly in.

    A group comes along when it is named in ``group_ids`` or all of its devices are selected; a
    device whose group does not come along is copied without a group.
    """
    wanted = dict.fromkeys(device_ids)
    groups: dict[str, Group] = {}
    for gid in group_ids:
        for sub in _subtree(design, gid):
            groups[sub] = design.group(sub)
            for dev in design.members(sub):
                wanted[dev.id] = None
    # Groups all of whose members (and sub-groups) are selected come along too.
    for g in design.groups:
        if g.id not in groups:
            members = design.all_members(g.id)
            if members and all(m.id in wanted for m in members):
                groups.update({s: design.group(s) for s in _subtree(design, g.id)})
    frag = Design(design.name)
    ordered_groups = [g for g in design.groups if g.id in groups]
    new_groups = []
    for g in ordered_groups:
        ng = copy.deepcopy(g)
        if ng.parent is not None and ng.parent not in groups:
            ng.parent = None
        new_groups.append(ng)
    new_devices = []
    for dev in design.devices:
        if dev.id in wanted:
            nd = copy.deepcopy(dev)
            if nd.group is not None and nd.group not in groups:
                nd.group = None
            new_devices.append(nd)
    links = []
    seen: set[str] = set()
    for did in wanted:
        for link in design.links_of(did):
            if link.id not in seen and link.a_device in wanted and link.b_device in wanted:
                seen.add(link.id)
                links.append(link)
    order = {link.id: i for i, link in enumerate(design.iter_links())} if links else {}
    links.sort(key=lambda lk: order[lk.id])
    frag.extend(new_groups, new_devices, (copy.deepcopy(lk) for lk in links))
    return frag


def _subtree(design: Design, gid: str) -> list[str]:
    out, stack = [], [gid]
    while stack:
        g = stack.pop()
        out.append(g)
        stack.extend(c.id for c in design.child_groups(g))
    return out


def looks_like_design(text: str) -> bool:
    """Whether clipboard text is a design file (checked cheaply before parsing it)."""
    return '"topo-designer-design"' in text[:300]


def to_text(fragment: Design) -> str:
    return design_to_text(fragment)


def from_text(text: str) -> Design:
    """Parse clipboard text; raises ``DesignFileError`` when it is not a design."""
    return design_from_text(text, "clipboard")


def free_id(base: str, taken: Callable[[str], bool]) -> str:
    """``base`` if free, else ``stem-N`` with the smallest free N >= 2."""
    if not taken(base):
        return base
    m = _SUFFIX.match(base)
    stem, n = (m.group(1), int(m.group(2))) if m and m.group(1) else (base, 1)
    n = max(n, 1) + 1
    while taken(f"{stem}-{n}"):
        n += 1
    return f"{stem}-{n}"


_NUMBERED = re.compile(r"^(.*?)(\d+)$")


def renumber_servers(design: Design, fragment: Design) -> Design:
    """The fragment with each top-level server group renumbered to the next free name in ``design``
    (a second ``node1`` placed becomes ``node2`` with ``node2-gpu1``..., not ``node1-gpu1-2``), and
    titled after it (``node2: 8x NVIDIA H100 SXM5 80GB``). Other records are kept as they are."""
    used_groups = {g.id for g in design.groups}
    used_prefixes = {dev.id.split("-", 1)[0] for dev in design.iter_devices()}
    rename: dict[str, str] = {}
    for g in fragment.groups:
        m = _NUMBERED.match(g.id)
        if g.kind != "server" or g.parent is not None or m is None or not m.group(1):
            continue
        k = 1
        while (f"{m.group(1)}{k}" in used_groups or f"{m.group(1)}{k}" in used_prefixes
               or f"{m.group(1)}{k}" in rename.values()):
            k += 1
        rename[g.id] = f"{m.group(1)}{k}"
    if not rename:
        return fragment

    def new(i: str) -> str:
        head, sep, tail = i.partition("-")
        return rename.get(head, head) + sep + tail if head in rename else i

    out = Design(fragment.name, fragment.description)
    groups = []
    for g in fragment.groups:
        g = copy.copy(g)
        if g.id in rename:
            g.name = f"{rename[g.id]}: {g.name}" if g.name else ""
        g.id, g.parent = new(g.id), new(g.parent) if g.parent is not None else None
        groups.append(g)
    devices = []
    for dev in fragment.iter_devices():
        dev = copy.copy(dev)
        dev.properties = dict(dev.properties)
        dev.id, dev.group = new(dev.id), new(dev.group) if dev.group is not None else None
        devices.append(dev)
    links = []
    for link in fragment.iter_links():
        link = copy.copy(link)
        link.id = "--".join(new(part) for part in link.id.split("--"))
        link.a_device, link.b_device = new(link.a_device), new(link.b_device)
        links.append(link)
    out.extend(groups, devices, links, validated=True)
    return out


def rename_for(
    design: Design, fragment: Design, dx: float = 0.0, dy: float = 0.0
) -> tuple[list[Group], list[Device], list[Link]]:
    """The fragment's records with ids made free in ``design`` and positions shifted by (dx, dy).

    Records are reused as they are when nothing needs to change (a generated design inserted
    into an empty one), which keeps a 16k-GPU insert cheap.
    """
    new_ids: dict[str, set[str]] = {"group": set(), "device": set(), "link": set()}

    def taken(table: str) -> Callable[[str], bool]:
        has = {"group": design.has_group, "device": design.has_device, "link": design.has_link}[table]
        used = new_ids[table]
        return lambda i: has(i) or i in used

    gmap: dict[str, str] = {}
    for g in fragment.groups:
        gmap[g.id] = free_id(g.id, taken("group"))
        new_ids["group"].add(gmap[g.id])
    dmap: dict[str, str] = {}
    t_dev = taken("device")
    for dev in fragment.iter_devices():
        nid = free_id(dev.id, t_dev)
        dmap[dev.id] = nid
        new_ids["device"].add(nid)
    groups = []
    for g in fragment.groups:
        if gmap[g.id] != g.id or (g.parent is not None and gmap[g.parent] != g.parent):
            g = copy.copy(g)
            g.properties = dict(g.properties)
            g.id = gmap[g.id]
            g.parent = gmap[g.parent] if g.parent is not None else None
        groups.append(g)
    devices = []
    shift = dx != 0.0 or dy != 0.0
    for dev in fragment.iter_devices():
        if dmap[dev.id] != dev.id or (dev.group is not None and gmap[dev.group] != dev.group) or shift:
            nd = copy.copy(dev)
            nd.properties = dict(dev.properties)
            nd.id = dmap[dev.id]
            nd.group = gmap[dev.group] if dev.group is not None else None
            nd.x = dev.x + dx
            nd.y = dev.y + dy
            dev = nd
        devices.append(dev)
    links = []
    t_link = taken("link")
    for link in fragment.iter_links():
        base = link.id
        if dmap[link.a_device] != link.a_device or dmap[link.b_device] != link.b_device:
            # an id naming the old ends would point at other devices (or none): name the new ends,
            # the way a link drawn in the window is named (designer.gui.canvas.cabling.plan_links)
            a, b = dmap[link.a_device], dmap[link.b_device]
            base = f"{a}.{link.a_port}--{b}.{link.b_port}"[:120].rstrip(".-_")
        nid = free_id(base, t_link)
        new_ids["link"].add(nid)
        if nid != link.id or dmap[link.a_device] != link.a_device or dmap[link.b_device] != link.b_device:
            link = copy.copy(link)
            link.properties = dict(link.properties)
            link.id = nid
            link.a_device = dmap[link.a_device]
            link.b_device = dmap[link.b_device]
        links.append(link)
    return groups, devices, links


def bounds(devices: Iterable[Device]) -> tuple[float, float, float, float] | None:
    """(min x, min y, max x, max y) of device centres, or None for no devices."""
    devices = devices if isinstance(devices, list) else list(devices)
    xs = list(map(_X, devices))
    ys = list(map(_Y, devices))
    if not xs:
        return None
    return min(xs), min(ys), max(xs), max(ys)
