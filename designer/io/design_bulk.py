"""A design file's device and link tables checked and built as whole tables.

A generated or saved design is regular: every record has the usual fields with the usual types.
Each check here runs over a whole column at once (one comprehension, one set, one regular
expression over all the ids), and the records are then built without their per-record checks
(:func:`designer.model.bulk.checked_devices`, :func:`~designer.model.bulk.checked_links`). The
checks are those of the careful path in :mod:`designer.io.design_records` and of the model's own
records, field for field; when any of them fails the table is refused here (None) and the careful
path reads it record by record, which finds and names the problem. So a file is refused exactly as
before, and a regular file of 16,384 GPUs is built without a Python call per record.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from designer.io.property_rules import DEVICE_PROPERTY_RULES, check_properties
from designer.model import DEVICE_KINDS, MEDIA, Device, Link, PortGroup
from designer.model.bulk import checked_devices, checked_links
from designer.model.entities import MAX_COORD, MAX_LINK_LENGTH_M
from designer.model.fields import FieldError

#: One id per line, every line a valid id (``designer.model.entities.check_id``).
_IDS = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}(?:\n[A-Za-z0-9][A-Za-z0-9_.\-]{0,127})*")
_DEVICE_KINDS = frozenset(DEVICE_KINDS)
_MEDIA = frozenset(MEDIA)
_NUMBERS = frozenset((int, float))
_STR = frozenset((str,))
_SCALARS = frozenset((str, int, float, bool, type(None)))


def _valid_ids(ids: list[Any]) -> bool:
    """Every entry a valid id and no two alike."""
    return (set(map(type, ids)) <= _STR and len(set(ids)) == len(ids)
            and (not ids or _IDS.fullmatch("\n".join(ids)) is not None))


def _hashable(values: list[Any]) -> bool:
    """Plain JSON scalars only (a list or object where text belongs goes to the careful path)."""
    return set(map(type, values)) <= _SCALARS


def _texts(values: list[Any], limit: int) -> bool:
    return set(map(type, values)) <= _STR and (not values or max(map(len, values)) <= limit)


def _numbers(values: list[Any], low: float, high: float) -> bool:
    # NaN fails the comparison, so it is refused with everything out of range.
    return set(map(type, values)) <= _NUMBERS and all(low <= v <= high for v in values)


def bulk_devices(raw: list[Any], known: frozenset[str] | set[str], templates: dict[str, tuple[PortGroup, ...]],
                 group_ids: dict[str, int], max_text: int,
                 port_groups: Callable[[Any, str], tuple[PortGroup, ...] | None]) -> list[Device] | None:
    """The devices of ``raw`` when every record passes every check; None to read the table record by
    record. A record's ports are its model's entry in ``models``, or its own ``ports`` read by
    ``port_groups`` (the careful path's reader; None when they break the format)."""
    if not all(type(d) is dict and d.keys() <= known for d in raw):
        return None
    ids = [d.get("id") for d in raw]
    kinds = [d.get("kind") for d in raw]
    models = [d.get("model", "") for d in raw]
    names = [d.get("name", "") for d in raw]
    tiers = [d.get("tier", "") for d in raw]
    xs = [d.get("x", 0.0) for d in raw]
    ys = [d.get("y", 0.0) for d in raw]
    groups = [d.get("group") for d in raw]
    props = [d.get("properties", {}) for d in raw]
    own = [i for i, d in enumerate(raw) if "ports" in d]
    modelled = [m for i, m in enumerate(models) if "ports" not in raw[i]] if own else models
    if not (_valid_ids(ids) and _hashable(kinds) and set(kinds) <= _DEVICE_KINDS and _texts(models, max_text)
            and set(modelled) <= templates.keys() and _texts(names, max_text) and _texts(tiers, max_text)
            and _numbers(xs, -MAX_COORD, MAX_COORD) and _numbers(ys, -MAX_COORD, MAX_COORD)
            and all(type(p) is dict for p in props) and set(map(type, groups)) <= {str, type(None)}
            and set(groups) - {None} <= group_ids.keys()):
        return None
    ports: list[tuple[PortGroup, ...] | None] = [templates.get(m, ()) for m in models]
    for i in own:
        ports[i] = port_groups(raw[i]["ports"], f"devices[{i}].ports")
    if None in ports:
        return None
    for groups_of_ports in {id(p): p for p in ports}.values():
        prefixes = [g.prefix for g in groups_of_ports]
        if len(set(prefixes)) != len(prefixes):
            return None
    props = [dict(p) for p in props]
    ruled = DEVICE_PROPERTY_RULES.keys()
    try:
        for p in props:
            if not ruled.isdisjoint(p):
                check_properties(p, DEVICE_PROPERTY_RULES, "")
    except FieldError:
        return None
    return checked_devices(zip(ids, kinds, ports, models, names, tiers, map(float, xs), map(float, ys), groups,
                               props, strict=True))


def _port_ids(devices: list[Device]) -> dict[str, frozenset[str]]:
    """Each device's port ids (one set per distinct tuple of port groups)."""
    by_ports: dict[int, frozenset[str]] = {}
    out = {}
    for dev in devices:
        ids = by_ports.get(id(dev.ports))
        if ids is None:
            ids = by_ports[id(dev.ports)] = frozenset(p for g in dev.ports for p in g.port_ids())
        out[dev.id] = ids
    return out


def bulk_links(raw: list[Any], known: frozenset[str] | set[str], devices: list[Device],
               max_text: int) -> list[Link] | None:
    """The links of ``raw`` when every record passes every check (ends on existing ports of two
    different devices, each port holding one link); None to read the table record by record."""
    if not all(type(r) is dict and r.keys() <= known for r in raw):
        return None
    ids = [r.get("id") for r in raw]
    a = [r.get("a") for r in raw]
    b = [r.get("b") for r in raw]
    media = [r.get("medium") for r in raw]
    lengths = [r.get("length_m") for r in raw]
    cables = [r.get("cable", "") for r in raw]
    failed = [r.get("failed", False) for r in raw]
    props = [r.get("properties", {}) for r in raw]
    if not (_valid_ids(ids) and set(map(type, a)) | set(map(type, b)) <= _STR
            and _hashable(media) and set(media) <= _MEDIA and _numbers(lengths, 0.0, MAX_LINK_LENGTH_M)
            and _texts(cables, max_text)
            and set(map(type, failed)) <= {bool} and all(type(p) is dict for p in props)):
        return None
    # "device:port" names a port: the same text is the same port, so the ends are distinct ports
    # exactly when the texts are.
    if len(set(a).union(b)) != 2 * len(raw):
        return None
    ends_a = [e.split(":") for e in a]
    ends_b = [e.split(":") for e in b]
    if (set(map(len, ends_a)) | set(map(len, ends_b))) - {2}:
        return None
    ports = _port_ids(devices)
    none: frozenset[str] = frozenset()
    if not (all(p in ports.get(d, none) for d, p in ends_a) and all(p in ports.get(d, none) for d, p in ends_b)
            and all(ea[0] != eb[0] for ea, eb in zip(ends_a, ends_b, strict=True))):
        return None
    return checked_links(
        (lid, ea[0], ea[1], eb[0], eb[1], medium, float(length), cable, fail, dict(prop))
        for lid, ea, eb, medium, length, cable, fail, prop
        in zip(ids, ends_a, ends_b, media, lengths, cables, failed, props, strict=True)
    )
