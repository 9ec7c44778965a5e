"""Independent copies of a design for work in another thread (analysis, rule checks).

``Design.copy()`` deep-copies every record: seconds for a 16,384-GPU design, which would freeze
the window. A snapshot is taken in two steps: :func:`capture` runs on the UI thread and only
reads each record's fields into tuples (C-speed ``attrgetter``; port-group tuples, strings and
numbers are immutable and shared, ``properties`` dicts are copied); :func:`rebuild` runs in the
worker and makes the records and the :class:`Design` from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from designer.model import Design, Device, Group, Link


@dataclass(frozen=True)
class Captured:
    name: str
    description: str
    properties: dict[str, Any]
    groups: list[tuple[Any, ...]]
    devices: list[tuple[Any, ...]]
    links: list[tuple[Any, ...]]


def _fields(cls: type) -> tuple[str, ...]:
    return tuple(f for f in cls.__slots__ if f != "properties")  # type: ignore[attr-defined]


_FIELDS = {cls: _fields(cls) for cls in (Group, Device, Link)}
_GET = {cls: attrgetter(*names) for cls, names in _FIELDS.items()}
_PROPS = attrgetter("properties")


def capture(design: Design) -> Captured:
    """Read the design's state (fast; call on the thread that edits the design)."""

    def rows(cls: type, objs: Any) -> list[tuple[Any, ...]]:
        get = _GET[cls]
        return [(get(o), dict(_PROPS(o))) for o in objs]

    return Captured(
        design.name,
        design.description,
        dict(design.properties),
        rows(Group, design.groups),
        rows(Device, design.iter_devices()),
        rows(Link, design.iter_links()),
    )


def rebuild(state: Captured) -> Design:
    """The captured design as a new, independent Design (safe to call in a worker thread)."""

    def make(cls: type, rows: list[tuple[Any, ...]]) -> list[Any]:
        names = _FIELDS[cls]
        new = object.__new__
        out = []
        for values, props in rows:
            obj = new(cls)
            for n, v in zip(names, values, strict=True):
                object.__setattr__(obj, n, v)
            obj.properties = props
            out.append(obj)
        return out

    design = Design(state.name, state.description)
    design.properties = state.properties
    design.extend(make(Group, state.groups), make(Device, state.devices), make(Link, state.links))
    return design


def snapshot(design: Design) -> Design:
    """``rebuild(capture(design))`` in one call."""
    return rebuild(capture(design))
