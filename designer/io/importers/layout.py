"""Where an imported fabric's devices go on the canvas: rows by tier, hosts under their leaf.

Pure arithmetic on the records before they join a design (no Qt, no generators: files may not
import them). Rows from the top: core, spine, leaf, then the hosts, each host's server frame in a
grid under the leaf its first adapter is cabled to. Switches of one chassis (a director's blades)
stay side by side so the chassis frame holds them and nothing else: a chassis with leaf blades
gets its own column block (its spine blades above its leaves), other switches of the upper rows
spread over the rest of the width. Switches with no tier go in a row of their own at the bottom.
Sizes follow the canvas' device boxes (68-72 units wide, about 46 high) and group frames
(:mod:`designer.model.geometry`).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass

from designer.model import Device, Group, Link
from designer.model.geometry import FRAME_HEADER, FRAME_PADDING

ROW_Y = {"core": 0.0, "spine": 200.0, "leaf": 400.0}
HOST_TOP = 580.0
#: Distance between the rows of one wide tier, and between bands of wrapped leaves.
UPPER_ROW = 90.0
BAND_GAP = 160.0
#: Horizontal pitch of devices inside a host frame, and of switches in a row.
MEMBER_PITCH = 84.0
MEMBER_ROW = 70.0
SWITCH_PITCH = 110.0
FRAME = FRAME_PADDING
HEADER = FRAME_HEADER
GAP = 28.0


@dataclass
class HostBlock:
    """A host's server group and its devices: one column per adapter (the NIC, then its GPUs)."""

    group: str
    columns: list[list[str]]


def _natural(text: str) -> tuple:
    if re.fullmatch(r"[SHR]-[0-9a-fA-F]{16}", text):  # a GUID name: hexadecimal, compared as text
        return (text.lower(),)
    return tuple(int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", text))


def _host_size(block: HostBlock) -> tuple[float, float]:
    cols = max(1, len(block.columns))
    rows = max((len(c) for c in block.columns), default=1)
    return cols * MEMBER_PITCH - 16 + 2 * FRAME + GAP, rows * MEMBER_ROW - 24 + 2 * FRAME + HEADER + GAP


#: A leaf's block: the leaf, the block's width and height, and its hosts at (x, y) from the block's top left.
LeafPlan = tuple[Device, float, float, list[tuple[HostBlock, float, float]]]


@dataclass
class _Floor:
    """What the leaf row leaves for the rows above and below it.

    ``spans``: chassis with leaf blades -> its x range; ``free``: x ranges the other upper-row switches
    spread over; ``x_end``: the right edge so far; ``depth``: the bottom of the hosts under the leaves.
    """

    spans: dict[str, tuple[float, float]]
    free: list[tuple[float, float]]
    x_end: float
    depth: float


def lay_out_fabric(devices: list[Device], groups: list[Group], links: list[Link], hosts: list[HostBlock]) -> None:
    """Set ``x``, ``y`` of ``devices`` (see the module docstring)."""
    by_id = {d.id: d for d in devices}
    chassis_of = {d.id: d.group for d in devices if d.kind == "switch" and d.group}
    leaves = sorted((d for d in devices if d.kind == "switch" and d.tier == "leaf"),
                    key=lambda d: (chassis_of.get(d.id) or "", _natural(d.id)))
    under, shared, loose = _sort_hosts(hosts, links, leaves, chassis_of)
    plans = [_plan_leaf(leaf, under.get(leaf.id, [])) for leaf in leaves]
    floor = _place_leaf_row(by_id, plans, chassis_of, bool(shared))
    if shared:
        _place_shared(by_id, shared, leaves, bool(under), floor)
    base_y = dict(ROW_Y)
    for tier in ("spine", "core"):
        _place_upper_tier(devices, tier, chassis_of, floor, base_y)
    _place_bottom_rows(by_id, devices, under, chassis_of, loose)


def _sort_hosts(hosts: list[HostBlock], links: list[Link], leaves: list[Device],
                chassis_of: dict[str, str]) -> tuple[dict[str, list[HostBlock]], list[HostBlock], list[HostBlock]]:
    """Hosts under the first leaf they are cabled to; hosts cabled to several leaves (rails) shared by
    the whole leaf row; hosts under no leaf loose."""
    peers: dict[str, list[str]] = defaultdict(list)
    for link in links:
        if link.medium != "pcie":
            peers[link.a_device].append(link.b_device)
            peers[link.b_device].append(link.a_device)
    leaf_rank = {d.id: i for i, d in enumerate(leaves)}
    under: dict[str, list[HostBlock]] = defaultdict(list)
    shared: list[HostBlock] = []
    loose: list[HostBlock] = []
    for block in hosts:
        up = {p for col in block.columns for dev in col for p in peers.get(dev, ()) if p in leaf_rank}
        if len(up) > 1 and not {chassis_of.get(p) for p in up} - {None} and len(leaves) > 1:
            shared.append(block)
        elif up:
            under[min(up, key=leaf_rank.__getitem__)].append(block)
        else:
            loose.append(block)
    return under, shared, loose


def _plan_leaf(leaf: Device, blocks: list[HostBlock]) -> LeafPlan:
    """A leaf's block: its hosts in a near-square grid of evenly filled rows (16 as 4 x 4)."""
    if not blocks:
        return leaf, SWITCH_PITCH, 0.0, []
    w, h = _host_size(blocks[0])
    cols = max(1, min(len(blocks), math.ceil(math.sqrt(len(blocks) * 1.5))))
    cols = math.ceil(len(blocks) / math.ceil(len(blocks) / cols))
    placed = [(block, (i % cols) * w, (i // cols) * h) for i, block in enumerate(blocks)]
    return leaf, max(cols * w, SWITCH_PITCH), math.ceil(len(blocks) / cols) * h, placed


def _band_width(plans: list[LeafPlan], chassis_of: dict[str, str], shared: bool) -> tuple[bool, float]:
    """Whether the leaves wrap into bands under the spines, and the bands' width.

    Many leaves make a row far wider than it is tall: wrap the leaves (with their hosts) into
    bands, unless a chassis or rail-cabled hosts need the one row.
    """
    total = sum(p[1] for p in plans)
    area = sum(p[1] * (p[2] + HOST_TOP - ROW_Y["leaf"]) for p in plans)
    band_width = max(max((p[1] for p in plans), default=0.0), math.sqrt(area) * 2.0, 2400.0)
    wrap = total > band_width * 1.5 and not shared and not any(chassis_of.get(p[0].id) for p in plans)
    if wrap:
        band_width = total / math.ceil(total / band_width)  # bands of even width
    return wrap, band_width


def _place_leaf_row(by_id: dict[str, Device], plans: list[LeafPlan], chassis_of: dict[str, str],
                    shared: bool) -> _Floor:
    """Each leaf over its hosts, left to right (in bands when it wraps); the x ranges it leaves above."""
    wrap, band_width = _band_width(plans, chassis_of, shared)
    x = 0.0
    offset = 0.0  # vertical offset of the current band
    band_bottom = HOST_TOP
    floor = _Floor({}, [], 0.0, HOST_TOP)
    widest = 0.0
    for leaf, width, height, placed in plans:
        if wrap and x > 0 and x + width / 2 > band_width:
            widest = max(widest, x)
            x = 0.0
            offset = band_bottom + BAND_GAP - ROW_Y["leaf"]
        x0 = x
        for block, dx, dy in placed:
            _place_host(by_id, block, x0 + dx, HOST_TOP + offset + dy)
        band_bottom = max(band_bottom, HOST_TOP + offset + height)
        floor.depth = max(floor.depth, HOST_TOP + offset + height)
        leaf.x, leaf.y = x0 + width / 2 - 36, ROW_Y["leaf"] + offset
        x += width
        chassis = chassis_of.get(leaf.id)
        if chassis:
            lo, hi = floor.spans.get(chassis, (x0, x))
            floor.spans[chassis] = (min(lo, x0), max(hi, x))
        elif not floor.free or not wrap:
            floor.free.append((x0, x))
    floor.x_end = max(x, widest)
    if wrap:
        floor.free = [(0.0, floor.x_end)]
    return floor


def _place_shared(by_id: dict[str, Device], shared: list[HostBlock], leaves: list[Device], any_under: bool,
                  floor: _Floor) -> None:
    """Rail-cabled hosts in a grid under the whole leaf row (the leaves spread over them when alone)."""
    w, h = _host_size(shared[0])
    cols = max(1, math.ceil(math.sqrt(len(shared) * 2.0)))
    grid = min(cols, len(shared)) * w
    if not any_under and not floor.spans:
        # Only rail-cabled hosts: the leaves spread over the hosts' width.
        floor.x_end = max(floor.x_end, grid)
        pitch = floor.x_end / len(leaves)
        for i, leaf in enumerate(leaves):
            leaf.x = i * pitch + pitch / 2 - 36
        floor.free = [(0.0, floor.x_end)]
    left = max(0.0, (floor.x_end - grid) / 2)
    for i, block in enumerate(shared):
        _place_host(by_id, block, left + (i % cols) * w, floor.depth + (i // cols) * h)
    floor.x_end = max(floor.x_end, left + grid)


def _tier_units(row: list[Device], chassis_of: dict[str, str],
                spans: dict[str, tuple[float, float]]) -> tuple[dict[str, list[Device]], list[list[Device]]]:
    """A tier's switches as blades anchored over their chassis' leaves, and units to spread: the
    blades of one other chassis together, each other switch alone."""
    anchored: dict[str, list[Device]] = defaultdict(list)
    units: list[list[Device]] = []
    unit_of_chassis: dict[str, list[Device]] = {}
    for d in sorted(row, key=lambda d: _natural(d.id)):
        chassis = chassis_of.get(d.id)
        if chassis in spans:
            anchored[chassis].append(d)
        elif chassis:
            if chassis not in unit_of_chassis:
                unit_of_chassis[chassis] = []
                units.append(unit_of_chassis[chassis])
            unit_of_chassis[chassis].append(d)
        else:
            units.append([d])
    return anchored, units


def _place_upper_tier(devices: list[Device], tier: str, chassis_of: dict[str, str], floor: _Floor,
                      base_y: dict[str, float]) -> None:
    """Spine or core row: chassis blades over their chassis, the rest spread over the free width
    (several rows stacked upwards when a tier is far wider than the fabric; ``base_y`` then moves the core)."""
    row = [d for d in devices if d.kind == "switch" and d.tier == tier]
    anchored, units = _tier_units(row, chassis_of, floor.spans)
    for chassis, members in anchored.items():
        lo, hi = floor.spans[chassis]
        _spread(members, lo, hi, ROW_Y[tier])
    n = sum(len(u) for u in units)
    if not n:
        return
    free, x_end = floor.free, floor.x_end
    lo, hi = (free[0][0], free[-1][1]) if free else (x_end, x_end)
    per_row = max(8, int(max(hi - lo, 1200.0) // SWITCH_PITCH))
    if n > per_row and all(len(u) == 1 for u in units):
        _stack_tier([u[0] for u in units], tier, lo, hi, per_row, base_y)
        return
    need = n * SWITCH_PITCH + (len(units) - 1) * 2 * FRAME
    if hi - lo < need:
        if free:
            lo = (lo + hi - need) / 2 if not floor.spans else lo
            hi = lo + need
        else:
            lo, hi = x_end + GAP, x_end + GAP + need
    pitch = (hi - lo) / n
    cursor = lo
    for unit in units:
        for d in unit:
            d.x, d.y = cursor + pitch / 2 - 36, base_y[tier]
            cursor += pitch


def _stack_tier(row: list[Device], tier: str, lo: float, hi: float, per_row: int, base_y: dict[str, float]) -> None:
    """A tier far wider than the fabric below it (64 spines over 8 leaves): several rows, stacked
    upwards, so the picture keeps the fabric's width."""
    n = len(row)
    rows = math.ceil(n / per_row)
    y0 = base_y[tier]
    for i, d in enumerate(row):
        r, c = divmod(i, per_row)
        in_row = min(per_row, n - r * per_row)
        pitch = max(SWITCH_PITCH, (hi - lo) / in_row)
        start = (lo + hi) / 2 - pitch * in_row / 2
        d.x, d.y = start + c * pitch + pitch / 2 - 36, y0 - r * UPPER_ROW
    if tier == "spine":
        base_y["core"] = min(base_y["core"], y0 - (rows - 1) * UPPER_ROW - (ROW_Y["spine"] - ROW_Y["core"]))


def _place_bottom_rows(by_id: dict[str, Device], devices: list[Device], under: dict[str, list[HostBlock]],
                       chassis_of: dict[str, str], loose: list[HostBlock]) -> None:
    """Switches without a tier, and hosts not under a leaf: rows of their own below everything."""
    bottom = HOST_TOP + max((len(b) for b in under.values()), default=0) * 200.0 + 200.0
    bottom = max([bottom, *(d.y + 200.0 for d in devices if d.kind != "switch" and d.y)])
    others = sorted((d for d in devices if d.kind == "switch" and d.tier not in ROW_Y),
                    key=lambda d: (chassis_of.get(d.id) or "", _natural(d.id)))
    if others:
        per_row = max(8, int(math.sqrt(len(others)) * 1.6))
        for i, d in enumerate(others):
            d.x, d.y = (i % per_row) * SWITCH_PITCH, bottom + (i // per_row) * 120.0
        bottom += (math.ceil(len(others) / per_row)) * 120.0 + 80.0
    if loose:
        w, h = _host_size(loose[0])
        per_row = max(6, int(math.sqrt(len(loose)) * 1.5))
        for i, block in enumerate(loose):
            _place_host(by_id, block, (i % per_row) * w, bottom + (i // per_row) * h)


def _spread(members: list[Device], lo: float, hi: float, y: float) -> None:
    pitch = max(SWITCH_PITCH, (hi - lo) / max(1, len(members)))
    start = (lo + hi) / 2 - pitch * len(members) / 2
    for i, d in enumerate(members):
        d.x, d.y = start + i * pitch + pitch / 2 - 36, y


def _place_host(by_id: dict[str, Device], block: HostBlock, x: float, y: float) -> None:
    for c, column in enumerate(block.columns):
        for r, dev_id in enumerate(column):
            dev = by_id[dev_id]
            dev.x, dev.y = x + FRAME + c * MEMBER_PITCH, y + FRAME + HEADER + r * MEMBER_ROW


def lay_out_grid(devices: list[Device], pitch: float = 140.0) -> None:
    """Devices with no tier and no coordinates: a near-square grid in id order."""
    ordered = sorted(devices, key=lambda d: _natural(d.id))
    per_row = max(1, math.ceil(math.sqrt(len(ordered) * 1.6)))
    for i, d in enumerate(ordered):
        d.x, d.y = (i % per_row) * pitch, (i // per_row) * pitch


def lay_out_coordinates(devices: list[Device], coords: dict[str, tuple[float, float]], width: float = 2400.0) -> None:
    """Devices at map coordinates (longitude, latitude): scaled to ``width`` units, north up.

    Devices without coordinates go in a row under the map.
    """
    placed = [d for d in devices if d.id in coords]
    if not placed:
        lay_out_grid(devices)
        return
    xs = [coords[d.id][0] for d in placed]
    ys = [coords[d.id][1] for d in placed]
    span = max(max(xs) - min(xs), (max(ys) - min(ys)) * 1.4, 1e-9)
    scale = width / span
    for d in placed:
        lon, lat = coords[d.id]
        d.x = (lon - min(xs)) * scale
        d.y = (max(ys) - lat) * scale * 1.4
    bottom = max((d.y for d in placed), default=0.0) + 160.0
    rest = [d for d in devices if d.id not in coords]
    for i, d in enumerate(sorted(rest, key=lambda d: _natural(d.id))):
        d.x, d.y = (i % 16) * 120.0, bottom + (i // 16) * 100.0
