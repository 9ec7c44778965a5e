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


def lay_out_fabric(devices: list[Device], groups: list[Group], links: list[Link], hosts: list[HostBlock]) -> None:
    """Set ``x``, ``y`` of ``devices`` (see the module docstring)."""
    by_id = {d.id: d for d in devices}
    chassis_of = {d.id: d.group for d in devices if d.kind == "switch" and d.group}
    peers: dict[str, list[str]] = defaultdict(list)
    for link in links:
        if link.medium != "pcie":
            peers[link.a_device].append(link.b_device)
            peers[link.b_device].append(link.a_device)
    leaves = sorted((d for d in devices if d.kind == "switch" and d.tier == "leaf"),
                    key=lambda d: (chassis_of.get(d.id) or "", _natural(d.id)))
    leaf_rank = {d.id: i for i, d in enumerate(leaves)}
    under: dict[str, list[HostBlock]] = defaultdict(list)
    shared: list[HostBlock] = []  # hosts cabled to several leaves (rails): under the whole leaf row
    loose: list[HostBlock] = []
    for block in hosts:
        up = {p for col in block.columns for dev in col for p in peers.get(dev, ()) if p in leaf_rank}
        if len(up) > 1 and not {chassis_of.get(p) for p in up} - {None} and len(leaves) > 1:
            shared.append(block)
        elif up:
            under[min(up, key=leaf_rank.__getitem__)].append(block)
        else:
            loose.append(block)

    # Each leaf's block: its width and the places of its hosts relative to the block's top left.
    plans: list[tuple[Device, float, float, list[tuple[HostBlock, float, float]]]] = []
    for leaf in leaves:
        blocks = under.get(leaf.id, [])
        placed: list[tuple[HostBlock, float, float]] = []
        height = 0.0
        if blocks:
            w, h = _host_size(blocks[0])
            cols = max(1, min(len(blocks), math.ceil(math.sqrt(len(blocks) * 1.5))))
            cols = math.ceil(len(blocks) / math.ceil(len(blocks) / cols))  # rows evenly filled: 16 as 4 x 4
            placed = [(block, (i % cols) * w, (i // cols) * h) for i, block in enumerate(blocks)]
            height = math.ceil(len(blocks) / cols) * h
            width = max(cols * w, SWITCH_PITCH)
        else:
            width = SWITCH_PITCH
        plans.append((leaf, width, height, placed))
    # Many leaves make a row far wider than it is tall: wrap the leaves (with their hosts) into
    # bands under the spines, unless a chassis or rail-cabled hosts need the one row.
    total = sum(p[1] for p in plans)
    area = sum(p[1] * (p[2] + HOST_TOP - ROW_Y["leaf"]) for p in plans)
    band_width = max(max((p[1] for p in plans), default=0.0), math.sqrt(area) * 2.0, 2400.0)
    wrap = total > band_width * 1.5 and not shared and not any(chassis_of.get(p[0].id) for p in plans)
    if wrap:
        band_width = total / math.ceil(total / band_width)  # bands of even width
    x = 0.0
    offset = 0.0  # vertical offset of the current band
    band_bottom = HOST_TOP
    spans: dict[str, tuple[float, float]] = {}  # chassis with leaf blades -> its x range
    free: list[tuple[float, float]] = []
    depth = HOST_TOP
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
        depth = max(depth, HOST_TOP + offset + height)
        leaf.x, leaf.y = x0 + width / 2 - 36, ROW_Y["leaf"] + offset
        x += width
        chassis = chassis_of.get(leaf.id)
        if chassis:
            lo, hi = spans.get(chassis, (x0, x))
            spans[chassis] = (min(lo, x0), max(hi, x))
        elif not free or not wrap:
            free.append((x0, x))
    x = max(x, widest)
    if wrap:
        free = [(0.0, x)]
    x_end = x
    if shared:
        w, h = _host_size(shared[0])
        cols = max(1, math.ceil(math.sqrt(len(shared) * 2.0)))
        grid = min(cols, len(shared)) * w
        if not under and not spans:
            # Only rail-cabled hosts: the leaves spread over the hosts' width.
            x_end = max(x_end, grid)
            pitch = x_end / len(leaves)
            for i, leaf in enumerate(leaves):
                leaf.x = i * pitch + pitch / 2 - 36
            free = [(0.0, x_end)]
        left = max(0.0, (x_end - grid) / 2)
        for i, block in enumerate(shared):
            _place_host(by_id, block, left + (i % cols) * w, depth + (i // cols) * h)
        x_end = max(x_end, left + grid)
    # Upper rows: chassis blades over their chassis, the rest spread over the free width.
    base_y = dict(ROW_Y)
    for tier in ("spine", "core"):
        row = [d for d in devices if d.kind == "switch" and d.tier == tier]
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
        for chassis, members in anchored.items():
            lo, hi = spans[chassis]
            _spread(members, lo, hi, ROW_Y[tier])
        flat_units = units
        n = sum(len(u) for u in flat_units)
        if not n:
            continue
        lo, hi = (free[0][0], free[-1][1]) if free else (x_end, x_end)
        per_row = max(8, int(max(hi - lo, 1200.0) // SWITCH_PITCH))
        if n > per_row and all(len(u) == 1 for u in flat_units):
            # A tier far wider than the fabric below it (64 spines over 8 leaves): several rows,
            # stacked upwards, so the picture keeps the fabric's width.
            rows = math.ceil(n / per_row)
            y0 = base_y[tier]
            for i, (d,) in enumerate(flat_units):
                r, c = divmod(i, per_row)
                in_row = min(per_row, n - r * per_row)
                pitch = max(SWITCH_PITCH, (hi - lo) / in_row)
                start = (lo + hi) / 2 - pitch * in_row / 2
                d.x, d.y = start + c * pitch + pitch / 2 - 36, y0 - r * UPPER_ROW
            if tier == "spine":
                base_y["core"] = min(base_y["core"], y0 - (rows - 1) * UPPER_ROW - (ROW_Y["spine"] - ROW_Y["core"]))
            continue
        need = n * SWITCH_PITCH + (len(flat_units) - 1) * 2 * FRAME
        if hi - lo < need:
            if free:
                lo = (lo + hi - need) / 2 if not spans else lo
                hi = lo + need
            else:
                lo, hi = x_end + GAP, x_end + GAP + need
        pitch = (hi - lo) / n
        cursor = lo
        for unit in flat_units:
            for d in unit:
                d.x, d.y = cursor + pitch / 2 - 36, base_y[tier]
                cursor += pitch
    # Switches without a tier, and hosts not under a leaf: rows of their own below everything.
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
