"""How a design's groups look on the canvas, computed without Qt: frames, title bands, overlaps.

The canvas draws an expanded group as a frame around its members (device boxes and the frames
of its sub-groups), ``FRAME_PADDING`` outside them with a ``FRAME_HEADER`` title band on top
(:mod:`designer.model.geometry`, the sizes the canvas draws with). A
generator's layout is sound when, with every group expanded, each frame holds its own members
and nothing else: the frames and device boxes under one parent do not overlap, so no frame
covers another group's devices or title band. :func:`layout_problems` lists what breaks that.

Device boxes are sized as the canvas sizes them (:func:`device_box`, the same function), so a
layout that passes here passes on the canvas too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from designer.model import Design, Device
from designer.model.geometry import FRAME_HEADER, FRAME_PADDING, device_box

Box = Callable[[Device], tuple[float, float]]


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle: left, top, right, bottom (y grows downwards)."""

    left: float
    top: float
    right: float
    bottom: float

    def united(self, other: Rect | None) -> Rect:
        if other is None:
            return self
        return Rect(min(self.left, other.left), min(self.top, other.top),
                    max(self.right, other.right), max(self.bottom, other.bottom))

    def overlaps(self, other: Rect, gap: float = 0.0) -> bool:
        """Whether the two share area (or come closer than ``gap``)."""
        return (self.left < other.right + gap and other.left < self.right + gap
                and self.top < other.bottom + gap and other.top < self.bottom + gap)

    def header(self) -> Rect:
        return Rect(self.left, self.top, self.right, self.top + FRAME_HEADER)

    @property
    def width(self) -> float:
        return self.right - self.left

    @property
    def height(self) -> float:
        return self.bottom - self.top


def canvas_box(device: Device) -> tuple[float, float]:
    return device_box(device.kind, device.port_count)


def device_rect(device: Device, box: Box = canvas_box) -> Rect:
    w, h = box(device)
    return Rect(device.x - w / 2, device.y - h / 2, device.x + w / 2, device.y + h / 2)


def frame_rects(design: Design, box: Box = canvas_box) -> dict[str, Rect]:
    """Every group's frame with all groups expanded, as the canvas draws it (empty groups have none)."""
    frames: dict[str, Rect] = {}
    depth = {g.id: len(design.ancestors(g.id)) for g in design.groups}
    inner: dict[str, Rect | None] = {g.id: None for g in design.groups}
    for dev in design.iter_devices():
        if dev.group is not None:
            inner[dev.group] = device_rect(dev, box).united(inner[dev.group])
    for g in sorted(design.groups, key=lambda g: -depth[g.id]):  # innermost first
        r = inner[g.id]
        if r is None:
            continue
        frame = Rect(r.left - FRAME_PADDING, r.top - FRAME_PADDING - FRAME_HEADER,
                     r.right + FRAME_PADDING, r.bottom + FRAME_PADDING)
        frames[g.id] = frame
        if g.parent is not None:
            inner[g.parent] = frame.united(inner[g.parent])
    return frames


def layout_problems(design: Design, box: Box = canvas_box, *, gap: float = 0.0, limit: int = 20) -> list[str]:
    """What keeps the canvas from reading cleanly, one line each (at most ``limit``):
    a frame that overlaps another group's frame or devices (so it would seem to hold them, and
    a title band may be covered), and devices drawn over each other.

    Only things with the same parent can collide: a frame holds its sub-groups and devices, so
    two unrelated groups overlap exactly when their outermost distinct ancestors do.
    """
    frames = frame_rects(design, box)
    # parent group (None = top level) -> its children: ("group", id, frame) and ("device", id, box)
    children: dict[str | None, list[tuple[str, str, Rect]]] = {}
    for g in design.groups:
        if g.id in frames:
            children.setdefault(g.parent, []).append(("group", g.id, frames[g.id]))
    for dev in design.iter_devices():
        children.setdefault(dev.group, []).append(("device", dev.id, device_rect(dev, box)))
    problems: list[str] = []
    for parent, items in children.items():
        items.sort(key=lambda t: t[2].left)
        active: list[tuple[str, str, Rect]] = []
        for item in items:
            r = item[2]
            active = [a for a in active if a[2].right + gap > r.left]
            for other in active:
                if other[2].overlaps(r, gap):
                    where = f" in {parent}" if parent else ""
                    problems.append(f"{other[0]} {other[1]} and {item[0]} {item[1]} overlap{where}")
                    if len(problems) >= limit:
                        return problems
            active.append(item)
    return problems
