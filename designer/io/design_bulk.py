"""A design file's device and link tables checked and built as whole tables.

A generated or saved design is regular: every record has the usual fields with the usual types.
Each check here runs over a whole column at once (one ``map`` of a built-in, one set, one regular
expression over all the ids), and the records are then built without their per-record checks
(:func:`designer.model.bulk.checked_devices`, :func:`~designer.model.bulk.checked_links`). The
checks are those of the careful path in :mod:`designer.io.design_records` and of the model's own
records, field for field; when any of them fails the table is refused here (None) and the careful
path reads it record by record, which finds and names the problem. So a file is refused exactly as
before, and a regular file of 16,384 GPUs is built without a Python call per record.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from itertools import chain, compress, repeat
from operator import attrgetter, is_not, itemgetter, not_
from typing import Any, NamedTuple

import numpy as np

from designer.io.design_tables import TABLE_KEYS, Table
from designer.io.property_rules import DEVICE_PROPERTY_RULES, Rule
from designer.model import DEVICE_KINDS, GROUP_KINDS, MEDIA, Device, Group, Link, PortGroup
from designer.model.bulk import checked_devices, checked_groups, checked_links
from designer.model.entities import MAX_COORD, MAX_LINK_LENGTH_M
from designer.model.fields import FieldError

#: One id per line, every line a valid id (``designer.model.entities.check_id``).
_IDS = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}(?:\n[A-Za-z0-9][A-Za-z0-9_.\-]{0,127})*")
_DEVICE_KINDS = frozenset(DEVICE_KINDS)
_GROUP_KINDS = frozenset(GROUP_KINDS)
_MEDIA = frozenset(MEDIA)
_DICT = frozenset((dict,))
_NUMBERS = frozenset((int, float))
_STR = frozenset((str,))
_STR_OR_NONE = frozenset((str, type(None)))
_BOOL = frozenset((bool,))
_SCALARS = frozenset((str, int, float, bool, type(None)))


#: Every byte but a colon and a line break (what :func:`_ends` deletes to see the separators).
_NOT_SEPARATORS = bytes(c for c in range(256) if c not in b":\n")
#: What a device's ``ports`` column holds where the device has none of its own (the model's).
_ABSENT = object()


def _valid_ids(ids: list[Any]) -> bool:
    """Every entry a valid id (text) and no two alike (:func:`_distinct`: sorted hashes, 0.05 s for
    655,360 link ids where a set of them took 0.15 s)."""
    if not ids:
        return True
    try:
        joined = "\n".join(ids)
    except TypeError:  # an entry that is no text
        return False
    # One line per id: an id holding a line break would read as two valid ids.
    return (joined.count("\n") == len(ids) - 1 and _IDS.fullmatch(joined) is not None
            and _distinct(ids, []))


def _hashable(values: list[Any]) -> bool:
    """Plain JSON scalars only (a list or object where text belongs goes to the careful path)."""
    return set(map(type, values)) <= _SCALARS


def _texts(values: list[Any], limit: int) -> bool:
    return set(map(type, values)) <= _STR and (not values or max(map(len, values)) <= limit)


def _numbers(values: list[Any], low: float, high: float) -> bool:
    """Numbers (not booleans) from ``low`` to ``high``, none of them NaN."""
    if not set(map(type, values)) <= _NUMBERS:
        return False
    if not values:
        return True
    # min and max may step over a NaN, which compares false; the range is checked first so that
    # isnan meets no integer too large for a float.
    return low <= min(values) and max(values) <= high and not any(map(math.isnan, values))


def _checked_properties(props: list[dict[str, Any]], rules: dict[str, Rule]) -> bool:
    """Check (and normalise in place, as :func:`designer.io.property_rules.check_properties`) the
    properties ``rules`` name in every one of ``props``; False when one breaks its rule.

    A rule gives the same answer for equal values of one type, so each distinct scalar value is
    checked once; the records are visited one by one only when a value is normalised (``2.0``
    stored as 2) or is not a scalar.
    """
    present = set(chain.from_iterable(props))
    if present.isdisjoint(rules):
        return True
    try:
        for key, rule in rules.items():
            if key not in present:
                continue
            holders = [p for p in props if key in p]
            values = [p[key] for p in holders]
            if set(map(type, values)) <= _SCALARS:
                kept = True
                for kind, value in set(zip(map(type, values), values, strict=True)):
                    out = rule(value, "")
                    kept = kept and type(out) is kind and out == value
                if kept:
                    continue
            for p in holders:
                p[key] = rule(p[key], "")
    except FieldError:
        return False
    return True


def bulk_groups(table: Table, known: frozenset[str] | set[str], max_text: int
                ) -> tuple[list[Group], dict[str, int]] | None:
    """The groups of ``table`` and each one's position in it, when every record passes every check of
    its own (its parent, if any, is checked against the others afterwards, as on the careful path);
    None to read the table record by record (21,760 groups of 131,072 GPUs: 0.02 s here, 0.12 s
    there)."""
    column = table.columns(known)
    if column is None:
        return None
    ids = column("id", None)
    kinds = column("kind", "custom")
    names = column("name", "")
    parents = column("parent", None)
    collapsed = column("collapsed", False)
    props = column("properties", {})
    if not (_valid_ids(ids) and _hashable(kinds) and set(kinds) <= _GROUP_KINDS and _texts(names, max_text)
            and set(map(type, parents)) <= _STR_OR_NONE and set(map(type, collapsed)) <= _BOOL
            and set(map(type, props)) <= _DICT):
        return None
    groups = checked_groups(zip(ids, kinds, names, parents, collapsed, map(dict, props), strict=True))
    return groups, dict(zip(ids, range(len(ids)), strict=True))


class _DeviceColumns(NamedTuple):
    """A device table's columns (:meth:`~designer.io.design_tables.Table.columns`)."""

    path: str
    ids: list[Any]
    kinds: list[Any]
    models: list[Any]
    names: list[Any]
    tiers: list[Any]
    xs: list[Any]
    ys: list[Any]
    groups: list[Any]
    props: list[Any]
    own_ports: list[Any]
    #: Whether each row holds ports of its own, and the rows that do.
    has_ports: list[bool]
    own: list[int]


def _device_columns(table: Table, known: frozenset[str] | set[str]) -> _DeviceColumns | None:
    column = table.columns(known)
    if column is None:
        return None
    ids = column("id", None)
    own_ports = column("ports", _ABSENT)
    has_ports = list(map(is_not, own_ports, repeat(_ABSENT)))
    return _DeviceColumns(table.path, ids, column("kind", None), column("model", ""), column("name", ""),
                          column("tier", ""), column("x", 0.0), column("y", 0.0), column("group", None),
                          column("properties", {}), own_ports, has_ports, list(compress(range(len(ids)), has_ports)))


def _devices_pass(cols: _DeviceColumns, templates: dict[str, tuple[PortGroup, ...]], group_ids: dict[str, int],
                  max_text: int) -> bool:
    """Every field of every device of the right type and in its range (those of the careful path)."""
    models = cols.models
    modelled = list(compress(models, map(not_, cols.has_ports))) if cols.own else models
    return (_valid_ids(cols.ids) and _hashable(cols.kinds) and set(cols.kinds) <= _DEVICE_KINDS
            and _texts(models, max_text) and set(modelled) <= templates.keys() and _texts(cols.names, max_text)
            and _texts(cols.tiers, max_text) and _numbers(cols.xs, -MAX_COORD, MAX_COORD)
            and _numbers(cols.ys, -MAX_COORD, MAX_COORD) and set(map(type, cols.props)) <= _DICT
            and set(map(type, cols.groups)) <= _STR_OR_NONE and set(cols.groups) - {None} <= group_ids.keys())


def _devices(table: Table, known: frozenset[str] | set[str], templates: dict[str, tuple[PortGroup, ...]],
             group_ids: dict[str, int], max_text: int,
             port_groups: Callable[[Any, str], tuple[PortGroup, ...] | None], check: bool
             ) -> tuple[_DeviceColumns, list[tuple[PortGroup, ...]], list[dict[str, Any]]] | None:
    """The device table's columns, each device's port groups and its properties (normalised), when every
    record passes every check (``check=False``: without the checks of each field, see
    :func:`bulk_devices`); None to read the table record by record."""
    cols = _device_columns(table, known)
    if cols is None or (check and not _devices_pass(cols, templates, group_ids, max_text)):
        return None
    ports: list[tuple[PortGroup, ...] | None] = list(map(templates.get, cols.models, repeat(())))
    for i in cols.own:
        ports[i] = port_groups(cols.own_ports[i], f"{cols.path}[{i}].ports")
    if None in ports:
        return None
    for groups_of_ports in dict(zip(map(id, ports), ports, strict=True)).values():
        prefixes = [g.prefix for g in groups_of_ports]  # type: ignore[union-attr]
        if len(set(prefixes)) != len(prefixes):
            return None
    props = list(map(dict, cols.props))
    if not _checked_properties(props, DEVICE_PROPERTY_RULES):
        return None
    return cols, ports, props  # type: ignore[return-value]


def bulk_devices(table: Table, known: frozenset[str] | set[str], templates: dict[str, tuple[PortGroup, ...]],
                 group_ids: dict[str, int], max_text: int,
                 port_groups: Callable[[Any, str], tuple[PortGroup, ...] | None], *,
                 check: bool = True) -> list[Device] | None:
    """The devices of ``table`` when every record passes every check; None to read the table record
    by record. A record's ports are its model's entry in ``models``, or its own ``ports`` read by
    ``port_groups`` (the careful path's reader; None when they break the format).

    ``check=False`` builds what the table holds without checking each field's type and range (a text
    where a number belongs may still raise here): for text whose tables passed every check here
    before (:mod:`designer.io.checked_files`), from which it builds exactly what the checked call built.
    """
    read = _devices(table, known, templates, group_ids, max_text, port_groups, check)
    if read is None:
        return None
    cols, ports, props = read
    return checked_devices(zip(cols.ids, cols.kinds, ports, cols.models, cols.names, cols.tiers, map(float, cols.xs),
                               map(float, cols.ys), cols.groups, props, strict=True))


def _ports_exist(devices: list[Device], dev_a: list[str], port_a: list[str], dev_b: list[str],
                 port_b: list[str]) -> bool:
    """Each end names a device of ``devices`` and one of its ports: one set of port ids per
    distinct tuple of port groups (devices of one model share theirs), one lookup per end."""
    ports = list(map(attrgetter("ports"), devices))
    keys = list(map(id, ports))
    distinct = dict(zip(keys, ports, strict=True))
    sets = {key: frozenset(p for g in groups for p in g.port_ids()) for key, groups in distinct.items()}
    port_ids = dict(zip(map(attrgetter("id"), devices), map(sets.__getitem__, keys), strict=True))
    try:
        return (all(map(frozenset.__contains__, map(port_ids.__getitem__, dev_a), port_a))
                and all(map(frozenset.__contains__, map(port_ids.__getitem__, dev_b), port_b)))
    except KeyError:  # no such device
        return False


def _distinct(a: list[str], b: list[str]) -> bool:
    """No text appears twice in ``a`` and ``b`` together. Equal texts hash alike, so the hashes,
    sorted, are compared first (1.3 million link ends in 0.11 s, where a set of them takes 0.27 s);
    the texts themselves only when two hashes meet, a repeat or a rare collision."""
    hashes = np.fromiter(chain(map(hash, a), map(hash, b)), dtype=np.int64, count=len(a) + len(b))
    hashes.sort()
    if not np.any(hashes[1:] == hashes[:-1]):
        return True
    seen = set(a)
    seen.update(b)
    return len(seen) == len(a) + len(b)


def _ends(refs: list[str]) -> tuple[list[str], list[str]] | None:
    """The device and port of each ``device:port`` text (exactly one colon each), or None."""
    if not refs:
        return [], []
    try:
        joined = "\n".join(refs)
    except TypeError:  # an end that is no text
        return None
    # The colons and line breaks of the joined texts, in order, alternate from a colon to a colon:
    # each text holds exactly one colon and no line break, and the texts split at colons and line
    # breaks alternate device, port. (Neither byte occurs inside another character's UTF-8 bytes;
    # one pass of bytes.translate where a test of each text took 0.09 s for 655,360 ends.)
    separators = joined.encode("utf-8", "surrogatepass").translate(None, _NOT_SEPARATORS)
    if separators != b":\n" * (len(refs) - 1) + b":":
        return None
    return _split_joined(joined)


def _split_ends(refs: list[str]) -> tuple[list[str], list[str]]:
    """The device and port of each ``device:port`` text, unchecked (:func:`_ends` checks them)."""
    return ([], []) if not refs else _split_joined("\n".join(refs))


def _split_joined(joined: str) -> tuple[list[str], list[str]]:
    parts = joined.replace(":", "\n").split("\n")
    return parts[0::2], parts[1::2]


class _LinkColumns(NamedTuple):
    """A link table's columns (:meth:`~designer.io.design_tables.Table.columns`)."""

    ids: list[Any]
    a: list[Any]
    b: list[Any]
    media: list[Any]
    lengths: list[Any]
    cables: list[Any]
    failed: list[Any]
    props: list[Any]


def _link_columns(table: Table, known: frozenset[str] | set[str]) -> _LinkColumns | None:
    column = table.columns(known)
    if column is None:
        return None
    return _LinkColumns(column("id", None), column("a", None), column("b", None), column("medium", None),
                        column("length_m", None), column("cable", ""), column("failed", False),
                        column("properties", {}))


def _checked_ends(cols: _LinkColumns, devices: list[Device], max_text: int
                  ) -> tuple[list[str], list[str], list[str], list[str]] | None:
    """Every check of every link (ends on existing ports of two different ``devices``, each port
    holding one link): the ends' devices and ports, or None."""
    if not (_valid_ids(cols.ids) and _hashable(cols.media) and set(cols.media) <= _MEDIA
            and _numbers(cols.lengths, 0.0, MAX_LINK_LENGTH_M) and _texts(cols.cables, max_text)
            and set(map(type, cols.failed)) <= _BOOL and set(map(type, cols.props)) <= _DICT):
        return None
    ends_a, ends_b = _ends(cols.a), _ends(cols.b)
    if ends_a is None or ends_b is None:
        return None
    (dev_a, port_a), (dev_b, port_b) = ends_a, ends_b
    # Each end's text holds one colon (_ends): equal texts are the same port of the same device.
    if (not _distinct(cols.a, cols.b) or not _ports_exist(devices, dev_a, port_a, dev_b, port_b)
            or any(map(str.__eq__, dev_a, dev_b))):
        return None
    return dev_a, port_a, dev_b, port_b


def bulk_links(table: Table, known: frozenset[str] | set[str], devices: list[Device],
               max_text: int, *, check: bool = True) -> list[Link] | None:
    """The links of ``table`` when every record passes every check (ends on existing ports of two
    different devices, each port holding one link); None to read the table record by record.
    ``check=False``: built without the checks, as :func:`bulk_devices`."""
    cols = _link_columns(table, known)
    if cols is None:
        return None
    if check:
        ends = _checked_ends(cols, devices, max_text)
        if ends is None:
            return None
        dev_a, port_a, dev_b, port_b = ends
    else:
        (dev_a, port_a), (dev_b, port_b) = _split_ends(cols.a), _split_ends(cols.b)
    return checked_links(zip(cols.ids, dev_a, port_a, dev_b, port_b, cols.media, map(float, cols.lengths),
                             cols.cables, map(dict, cols.props), cols.failed, strict=True))


#: The fields of each table's records that the format lets hold objects or arrays; every other field
#: holds text, a number or a boolean.
_NESTED = {"groups": ("properties",), "devices": ("properties", "ports"), "links": ("properties",)}
_CONTAINERS = frozenset((dict, list))


def counted_members(data: Any) -> int:
    """The members of the objects of a parsed design file, the large tables counted a column at a time.

    Exactly the members of all its objects when its records hold objects only where the format puts
    them (``properties``, ``ports``); fewer otherwise, never more. So the count equals the members the
    text holds (:attr:`designer.io.json_shape.JsonShape.members`) only when no object lost a member
    to a repeated key and every object was counted: what a file read without the parser's per-object
    duplicate check must show (:mod:`designer.io.design_file`).
    """
    if type(data) is not dict:
        return _members(data)
    total = len(data)
    for key, value in data.items():
        if key == "variants" and type(value) is list and set(map(type, value)) <= _DICT:
            total += sum(map(len, value)) + sum(_table_members(v, _NESTED.get(k))
                                                for body in value for k, v in body.items())
        else:
            total += _table_members(value, _NESTED.get(key))
    return total


def _table_members(rows: Any, nested: tuple[str, ...] | None) -> int:
    """The members of the objects in ``rows``, a table whose records hold objects only in ``nested``
    fields (None: not a table, every value walked); a table of rows (:mod:`designer.io.design_tables`)
    has its rows' cells of those fields counted."""
    if nested is not None and type(rows) is dict:
        return _rows_members(rows, nested)
    if nested is None or type(rows) is not list or not set(map(type, rows)) <= _DICT:
        return _members(rows)
    total = sum(map(len, rows))
    for key in nested:
        total += _cells_members(list(map(dict.get, rows, repeat(key))))
    return total


def _rows_members(table: dict[str, Any], nested: tuple[str, ...]) -> int:
    """The members of ``{"fields": [...], "rows": [...]}``: its own, and those of the objects in the
    rows' cells of ``nested`` fields (every value walked unless the fields are text and each row has
    a cell for each: a row of another kind has its objects, if any, walked too)."""
    fields, rows = table.get("fields"), table.get("rows")
    if not (table.keys() == TABLE_KEYS and type(fields) is list and set(map(type, fields)) <= _STR
            and type(rows) is list):
        return _members(table)
    total = len(table)
    try:
        for key in nested:
            if key in fields:
                total += _cells_members(list(map(itemgetter(fields.index(key)), rows)))
    except (IndexError, KeyError, TypeError):  # a row that is no list as long as the fields
        return _members(table)
    # A row that is a list has no members of its own. A row of another kind was refused by the
    # lookups above, or holds no object, or (an object in a table with no nested field) is left
    # out: the count is then short, never over, and the file is parsed again with the check.
    return total


def _cells_members(cells: list[Any]) -> int:
    """The members of the objects in one nested field's values (objects of scalars counted at once)."""
    held = list(filter(None, cells))  # an empty object or array holds none
    if not held:
        return 0
    if not set(map(type, held)) <= _DICT:
        return _members(held)
    values = list(chain.from_iterable(map(dict.values, held)))
    total = sum(map(len, held))
    if not _CONTAINERS.isdisjoint(set(map(type, values))):
        total += _members(values)
    return total


def _members(value: Any) -> int:
    """The members of every object in ``value``, one container at a time (a loop: no depth limit)."""
    total = 0
    todo = [value]
    while todo:
        v = todo.pop()
        if type(v) is dict:
            total += len(v)
            todo.extend(v.values())
        elif type(v) is list:
            todo.extend(v)
    return total
