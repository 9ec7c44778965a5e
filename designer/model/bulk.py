"""Helpers for building very large designs quickly."""

from __future__ import annotations

import gc
import itertools
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from designer.model.entities import Device, Group, Link, PortGroup

if TYPE_CHECKING:
    from designer.model.design import Design


@contextmanager
def gc_paused(*, aged: bool = False) -> Iterator[None]:
    """Pause the cyclic garbage collector while building many objects that all stay alive.

    Loading or generating a 16k-GPU design allocates about a million containers; without the
    pause the collector rescans them again and again and finds no garbage, which costs about
    a third of the time. ``aged``: what was built counts as old when the collector restarts
    (:func:`_enable_aged`), for a build whose caller goes on at once (generating); not in the
    window's threads, where the full collection it leads to holds the interpreter lock for 50 ms
    more while a 16k-GPU design is analysed (the window keeps its designs with :func:`built_to_keep`).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if aged:
                _enable_aged()
            else:
                gc.enable()


def _enable_aged() -> None:
    """Enable the collector with what was built while it was paused counted as old.

    Enabled as it is, the collector's next young collection would scan every object built while
    it was paused (0.6 s for the 131,072-GPU fabric), then again when they are moved up a
    generation, and find no garbage. Frozen and unfrozen, they (and every other object alive now)
    join the oldest generation at once, as if they had survived those scans; only a full
    collection looks at them again. Skipped while objects are frozen (:func:`built_to_keep`),
    which unfreezing would release.
    """
    if gc.get_freeze_count():
        gc.enable()
        return
    gc.freeze()
    gc.enable()
    gc.unfreeze()


@contextmanager
def built_to_keep() -> Iterator[None]:
    """Build many long-lived objects without the collector, then exempt them from its scans.

    For a design (and what is derived from it) rebuilt in a worker thread while the window stays
    responsive: with the collector paused, the next collection would scan every object built
    here at once, holding the interpreter lock for tens of milliseconds; :func:`gc.freeze` moves
    them (and every other object alive now) to the permanent generation instead. A design and its
    analysis context hold no reference cycles, so reference counting still frees them when they
    are dropped; :func:`release_kept` (called when another design is opened) returns the
    permanent generation to the collector.
    """
    with gc_paused():
        yield
        gc.freeze()


def release_kept() -> None:
    """Return what :func:`built_to_keep` exempted to the collector's oldest generation."""
    gc.unfreeze()


def release_gradually(design: Design, step: int = 4000) -> None:
    """Empty a design no one else uses a slice at a time (call it in a worker thread).

    Dropping a 16k-GPU design at once is one C-level cascade of about a million deallocations that
    holds the interpreter lock for 50-100 ms, and the window waits that long. Here its record
    tables and indexes are emptied ``step`` entries at a time in a Python loop, which lets other
    threads run between slices; the design is empty afterwards.
    """
    for container in design.internal_containers():
        if isinstance(container, list):
            while container:
                del container[-step:]
        else:
            while container:
                for key in list(itertools.islice(container, step)):
                    del container[key]


def checked_device(did: str, kind: str, ports: tuple[PortGroup, ...], model: str, name: str, tier: str, x: float,
                   y: float, group: str | None, properties: dict[str, Any]) -> Device:
    """A device whose every field the caller has already checked against :class:`Device`'s
    invariants (a generator, or a file loader that validated a whole table at once): a valid id,
    a known kind, port groups with distinct prefixes, finite float ``x`` and ``y`` within the
    canvas. The per-record checks of ``Device.__post_init__`` are skipped; anything else must be
    built with ``Device(...)``."""
    dev = object.__new__(Device)
    dev.id, dev.kind, dev.ports, dev.model, dev.name, dev.tier = did, kind, ports, model, name, tier
    dev.x, dev.y, dev.group, dev.properties = x, y, group, properties
    dev._indexed, dev._index = (), {}
    return dev


def checked_devices(rows: Iterable[tuple[Any, ...]]) -> list[Device]:
    """:func:`checked_device` of each ``(id, kind, ports, model, name, tier, x, y, group, properties)`` row."""
    return _MAKE_DEVICES(rows)


def checked_link(lid: str, a_device: str, a_port: str, b_device: str, b_port: str, medium: str, length_m: float,
                 cable: str, properties: dict[str, Any], failed: bool = False) -> Link:
    """A link whose every field the caller has already checked against :class:`Link`'s invariants
    (a valid id, a known medium, a finite float length >= 0, a boolean ``failed``): for a builder
    that checks each distinct medium and length once, or a whole table at once, not per link."""
    link = object.__new__(Link)
    link.id, link.a_device, link.a_port, link.b_device, link.b_port = lid, a_device, a_port, b_device, b_port
    link.medium, link.length_m, link.cable, link.failed, link.properties = medium, length_m, cable, failed, properties
    return link


def checked_links(rows: Iterable[tuple[Any, ...]]) -> list[Link]:
    """:func:`checked_link` of each ``(id, a_device, a_port, b_device, b_port, medium, length_m, cable,
    properties, failed)`` row."""
    return _MAKE_LINKS(rows)


def checked_groups(rows: Iterable[tuple[Any, ...]]) -> list[Group]:
    """Groups from ``(id, kind, name, parent, collapsed, properties)`` rows whose every field the caller
    has already checked against :class:`Group`'s invariants (a valid id, a known kind): a file
    loader that validated a whole table at once. The per-record checks of ``Group.__post_init__``
    are skipped; anything else must be built with ``Group(...)``."""
    return _MAKE_GROUPS(rows)


def record_maker(kind: type, names: tuple[str, ...], *, copy_properties: Callable[[dict[str, Any]], dict[str, Any]]
                 | None = None, then: str = "") -> Callable[[Iterable[Any]], list[Any]]:
    """The function that makes ``kind`` records from rows whose values were checked already.

    Each row holds the values of ``names`` in that order; with ``copy_properties``, a row is a pair
    (those values, a properties dict), the dict given to the record through ``copy_properties``
    (an empty one as a new dict). ``then``: one more statement run on each record ``obj`` (fields
    not in the rows). The body assigns every field by name in one statement, written out from the
    names as :mod:`dataclasses` writes ``__init__``: a function called per record costs half as much
    again, a loop over the names a call per field (five times as much).
    """
    targets = "".join(f"obj.{name}, " for name in names)
    lines = ["def make(rows):", "    out = []", "    append = out.append"]
    if copy_properties is None:
        lines += ["    for values in rows:", "        obj = new(kind)", f"        {targets}= values"]
    else:
        lines += ["    for values, props in rows:", "        obj = new(kind)", f"        {targets}= values",
                  "        obj.properties = copy_properties(props) if props else {}"]
    if then:
        lines.append(f"        {then}")
    lines += ["        append(obj)", "    return out", ""]
    scope = {"new": object.__new__, "kind": kind, "copy_properties": copy_properties}
    exec("\n".join(lines), scope)  # noqa: S102 - the text is built from the record's own slot names
    return scope["make"]  # type: ignore[no-any-return]


_MAKE_DEVICES = record_maker(Device, ("id", "kind", "ports", "model", "name", "tier", "x", "y", "group", "properties"),
                             then="obj._indexed, obj._index = (), {}")
_MAKE_LINKS = record_maker(Link, ("id", "a_device", "a_port", "b_device", "b_port", "medium", "length_m", "cable",
                                  "properties", "failed"))
_MAKE_GROUPS = record_maker(Group, ("id", "kind", "name", "parent", "collapsed", "properties"))
