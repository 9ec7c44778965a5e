"""Validating design-file records and building the model from them.

Every field of every record is checked; the first problem is reported with its exact path
(``links.rows[12].b: device 'leaf3' has no port 'p65'``). Port speeds and link lengths must lie in the
ranges of :mod:`designer.model.entities` (``MIN_PORT_GBPS`` .. ``MAX_PORT_GBPS`` Gb/s, 0 ..
``MAX_LINK_LENGTH_M`` m): a value outside them is a slip of the keyboard, not a design.
Records that pass every check cheaply take a fast path; anything unusual takes the careful
path, which finds and names the problem.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from designer.io.design_bulk import bulk_devices, bulk_groups, bulk_links
from designer.io.design_tables import FIELDS, Table, read_table
from designer.io.property_rules import DESIGN_PROPERTY_RULES, DEVICE_PROPERTY_RULES, Rule, check_properties
from designer.model import (
    DEVICE_KINDS,
    GROUP_KINDS,
    MEDIA,
    PORT_KINDS,
    Design,
    DesignError,
    Device,
    Group,
    Link,
    PortGroup,
)
from designer.model.entities import (
    MAX_COORD,
    MAX_LINK_LENGTH_M,
    MAX_PORT_GBPS,
    MIN_PORT_GBPS,
)
from designer.model.fields import (
    MAX_TEXT,
    FieldError,
    as_bool,
    as_choice,
    as_int,
    as_list,
    as_number,
    as_object,
    as_text,
)
from designer.model.hierarchy import parents_first

# The path-prefixed error of every field reader: a design record's path (``links.rows[12].b``) first.
RecordError = FieldError


def _obj(v: Any, path: str) -> dict[str, Any]:
    return as_object(v, path)


def _list(v: Any, path: str) -> list[Any]:
    return as_list(v, path)


def _text(obj: dict[str, Any], key: str, path: str, default: str | None = None) -> str:
    v = obj.get(key, default)
    if v is None:
        raise RecordError(path, f"missing {key!r}")
    return as_text(v, f"{path}.{key}")


def _number(obj: dict[str, Any], key: str, path: str, *, default: float | None = None, positive: bool = False,
            minimum: float = 0.0, maximum: float = math.inf, unit: str = "") -> float:
    v = obj.get(key, default)
    if v is None:
        raise RecordError(path, f"missing {key!r}")
    return as_number(v, f"{path}.{key}", minimum=minimum, maximum=maximum, positive=positive, unit=unit)


def _int(obj: dict[str, Any], key: str, path: str, lo: int, hi: int, default: int | None = None) -> int:
    v = obj.get(key, default)
    if v is None:
        raise RecordError(path, f"missing {key!r}")
    return as_int(v, f"{path}.{key}", lo, hi)


def _coord(obj: dict[str, Any], key: str, path: str) -> float:
    return _number(obj, key, path, default=0.0, minimum=-MAX_COORD, maximum=MAX_COORD)


def _bool(obj: dict[str, Any], key: str, path: str) -> bool:
    return as_bool(obj.get(key, False), f"{path}.{key}")


def _choice(obj: dict[str, Any], key: str, path: str, choices: tuple[str, ...], default: str | None = None) -> str:
    v = obj.get(key, default)
    if v is None:
        raise RecordError(path, f"missing {key!r}")
    return as_choice(v, f"{path}.{key}", choices)


def _props(obj: dict[str, Any], path: str, rules: dict[str, Rule] | None = None
           ) -> dict[str, Any]:
    v = dict(_obj(obj.get("properties", {}), f"{path}.properties"))
    if rules:
        check_properties(v, rules, f"{path}.properties")
    return v


_KNOWN = {"device": frozenset(FIELDS["devices"]), "link": frozenset(FIELDS["links"]),
          "group": frozenset(FIELDS["groups"])}


def _unknown_keys(obj: dict[str, Any], what: str, path: str) -> None:
    extra = obj.keys() - _KNOWN[what]
    if extra:
        raise RecordError(path, f"unknown field {sorted(extra)[0]!r}")


def _port_ref(obj: dict[str, Any], key: str, path: str) -> tuple[str, str]:
    ref = _text(obj, key, path)
    if ref.count(":") != 1 or ref.startswith(":") or ref.endswith(":"):
        raise RecordError(f"{path}.{key}", f"must look like 'device:port', not {ref!r}")
    dev, port = ref.split(":")
    return dev, port


_DEVICE_KINDS = frozenset(DEVICE_KINDS)
_MEDIA = frozenset(MEDIA)
_NUMBER = (int, float)


def _fine_number(v: Any, minimum: float, maximum: float = math.inf) -> bool:
    # The range first: an integer too large for a float is out of range, not an OverflowError.
    return type(v) in _NUMBER and minimum <= v <= maximum and math.isfinite(v)


def _fast_device(d: dict[str, Any], seen: dict[str, Any], templates: dict[str, tuple[PortGroup, ...]],
                 group_ids: dict[str, int]) -> Device | None:
    """A device from a record that passes every check, or None to take the careful path."""
    did, kind, model = d.get("id"), d.get("kind"), d.get("model", "")
    if type(did) is not str or did in seen or type(kind) is not str or kind not in _DEVICE_KINDS \
            or type(model) is not str:
        return None
    if "ports" in d or model not in templates:
        return None
    name, tier, props = d.get("name", ""), d.get("tier", ""), d.get("properties", {})
    if type(name) is not str or type(tier) is not str or type(props) is not dict:
        return None
    if len(name) > MAX_TEXT or len(tier) > MAX_TEXT or len(model) > MAX_TEXT:
        return None
    x, y, group = d.get("x", 0.0), d.get("y", 0.0), d.get("group")
    if not (_fine_number(x, -MAX_COORD, MAX_COORD) and _fine_number(y, -MAX_COORD, MAX_COORD)):
        return None
    if group is not None and (type(group) is not str or group not in group_ids):
        return None
    props = dict(props)
    if not props.keys().isdisjoint(DEVICE_PROPERTY_RULES):
        try:
            check_properties(props, DEVICE_PROPERTY_RULES, "")
        except RecordError:
            return None
    try:
        return Device(did, kind, templates[model], model=model, name=name, tier=tier, x=x, y=y, group=group,
                      properties=props)
    except DesignError:
        return None


def _fast_link(raw: dict[str, Any], devices: dict[str, tuple[Device, int]], link_ids: dict[str, int],
               port_used: dict[tuple[str, str], int]) -> Link | None:
    """A link from a record that passes every check, or None to take the careful path."""
    lid, a, b = raw.get("id"), raw.get("a"), raw.get("b")
    if type(lid) is not str or lid in link_ids or type(a) is not str or type(b) is not str:
        return None
    pa, pb = a.split(":"), b.split(":")
    if len(pa) != 2 or len(pb) != 2 or pa[0] == pb[0]:
        return None
    ea, eb = devices.get(pa[0]), devices.get(pb[0])
    if ea is None or eb is None or ea[0].port(pa[1]) is None or eb[0].port(pb[1]) is None:
        return None
    if (pa[0], pa[1]) in port_used or (pb[0], pb[1]) in port_used:
        return None
    medium, length, cable = raw.get("medium"), raw.get("length_m"), raw.get("cable", "")
    failed, props = raw.get("failed", False), raw.get("properties", {})
    if type(medium) is not str or medium not in _MEDIA or not _fine_number(length, 0.0, MAX_LINK_LENGTH_M):
        return None
    if type(cable) is not str or len(cable) > MAX_TEXT:
        return None
    if type(failed) is not bool or type(props) is not dict:
        return None
    try:
        return Link(lid, pa[0], pa[1], pb[0], pb[1], medium=medium, length_m=length, cable=cable, failed=failed,
                    properties=dict(props))
    except DesignError:
        return None


class NotWholeTables(Exception):
    """A table that :func:`build_design` with ``check=False`` cannot build a column at a time."""


def build_design(data: dict[str, Any], *, check: bool = True, careful: list[str] | None = None) -> Design:
    """Validate the records of a migrated file and build the design (raise RecordError).

    ``careful``: the path of each device or link table that was read record by record (it did not
    pass every check of the whole-table path) is appended to it. ``check=False`` builds the device
    and link tables a column at a time without the checks of each field
    (:func:`designer.io.design_bulk.bulk_devices`), or raises :class:`NotWholeTables`: only for text
    whose tables passed every one of those checks before (:mod:`designer.io.checked_files`), from
    which it builds what the checked path built. Everything else is checked as always.
    """
    head = _obj(data.get("design", {}), "design")
    design = Design(_text(head, "name", "design", "Untitled"), _text(head, "description", "design", ""))
    design.properties = _props(head, "design", DESIGN_PROPERTY_RULES)

    groups_table = read_table(data.get("groups", []), "groups")
    devices_table = read_table(data.get("devices", []), "devices")
    links_table = read_table(data.get("links", []), "links")

    groups, group_ids = bulk_groups(groups_table, _KNOWN["group"], MAX_TEXT) or _read_groups(groups_table)
    _check_group_tree(groups, group_ids, groups_table.path)
    ordered = parents_first(groups, {g.id: g for g in groups})
    port_groups = _port_group_reader()
    templates = _read_models(data, port_groups)

    def own_ports(raw: Any, path: str) -> tuple[PortGroup, ...] | None:
        try:
            return port_groups(raw, path)
        except RecordError:
            return None  # the careful path names the problem

    devices = bulk_devices(devices_table, _KNOWN["device"], templates, group_ids, MAX_TEXT, own_ports, check=check)
    if devices is None:
        if not check:
            raise NotWholeTables(devices_table.path)
        devices = _devices_one_by_one(devices_table, templates, group_ids, port_groups)
        if careful is not None:
            careful.append(devices_table.path)
    links = bulk_links(links_table, _KNOWN["link"], devices, MAX_TEXT, check=check)
    if links is None:
        if not check:
            raise NotWholeTables(links_table.path)
        links = _links_one_by_one(links_table, {dev.id: (dev, i) for i, dev in enumerate(devices)})
        if careful is not None:
            careful.append(links_table.path)
    design.extend(ordered, devices, links, validated=True)  # every link was checked above
    return design


def _read_groups(table: Table) -> tuple[list[Group], dict[str, int]]:
    """The group records, each checked on its own, and each group id's position in the table."""
    groups: list[Group] = []
    group_ids: dict[str, int] = {}
    for i, g in enumerate(table.records()):
        p = f"{table.path}[{i}]"
        g = _obj(g, p)
        _unknown_keys(g, "group", p)
        gid = _text(g, "id", p)
        if gid in group_ids:
            raise RecordError(f"{p}.id", f"group {gid!r} is already defined at {table.path}[{group_ids[gid]}]")
        parent = g.get("parent")
        if parent is not None and not isinstance(parent, str):
            raise RecordError(f"{p}.parent", "must be a group id or null")
        try:
            groups.append(Group(gid, _choice(g, "kind", p, GROUP_KINDS, "custom"), _text(g, "name", p, ""),
                                parent, _bool(g, "collapsed", p), _props(g, p)))
        except DesignError as e:
            raise RecordError(p, str(e)) from None
        group_ids[gid] = i
    return groups, group_ids


def _check_group_tree(groups: list[Group], group_ids: dict[str, int], path: str) -> None:
    """Every parent a group of the file, and no group its own ancestor."""
    for i, g in enumerate(groups):
        if g.parent is not None and g.parent not in group_ids:
            raise RecordError(f"{path}[{i}].parent", f"no group {g.parent!r}")
    state: dict[str, int] = {}
    for i, g in enumerate(groups):
        chain: list[str] = []
        cur: str | None = g.id
        while cur is not None and state.get(cur) != 2:
            if cur in chain:
                raise RecordError(f"{path}[{i}].parent", f"groups nest in a cycle: {' -> '.join(chain + [cur])}")
            chain.append(cur)
            cur = groups[group_ids[cur]].parent
        for c in chain:
            state[c] = 2


#: Reads a list of port-group records at a path of the file.
PortGroupReader = Callable[[Any, str], tuple[PortGroup, ...]]


def _port_group_reader() -> PortGroupReader:
    """A reader of port-group lists: equal lists (by their text) share one built tuple."""
    cache: dict[str, tuple[PortGroup, ...]] = {}

    def port_groups(raw: Any, path: str) -> tuple[PortGroup, ...]:
        raw = _list(raw, path)
        key = repr(raw)
        cached = cache.get(key)
        if cached is not None:
            return cached
        built = []
        for j, pg in enumerate(raw):
            pp = f"{path}[{j}]"
            pg = _obj(pg, pp)
            extra = pg.keys() - {"prefix", "count", "speed_gbps", "kind", "form_factor", "lanes", "per_cage"}
            if extra:
                raise RecordError(pp, f"unknown field {sorted(extra)[0]!r}")
            try:
                built.append(PortGroup(
                    _text(pg, "prefix", pp), _int(pg, "count", pp, 1, 4096),
                    _number(pg, "speed_gbps", pp, positive=True, minimum=MIN_PORT_GBPS, maximum=MAX_PORT_GBPS,
                            unit=" Gb/s"),
                    _choice(pg, "kind", pp, PORT_KINDS, "network"), _text(pg, "form_factor", pp, ""),
                    _int(pg, "lanes", pp, 1, 1024, 1), _int(pg, "per_cage", pp, 1, 16, 1),
                ))
            except DesignError as e:
                raise RecordError(pp, str(e)) from None
        result = tuple(built)
        cache[key] = result
        return result

    return port_groups


def _read_models(data: dict[str, Any], port_groups: PortGroupReader) -> dict[str, tuple[PortGroup, ...]]:
    """The file's ``models``: each model id's port groups, which its devices share."""
    templates: dict[str, tuple[PortGroup, ...]] = {}
    for i, m in enumerate(_list(data.get("models", []), "models")):
        p = f"models[{i}]"
        m = _obj(m, p)
        extra = m.keys() - {"id", "ports"}
        if extra:
            raise RecordError(p, f"unknown field {sorted(extra)[0]!r}")
        mid = _text(m, "id", p)
        if mid in templates:
            raise RecordError(f"{p}.id", f"model {mid!r} is listed twice")
        templates[mid] = port_groups(m.get("ports"), f"{p}.ports")
    return templates


def _devices_one_by_one(table: Table, templates: dict[str, tuple[PortGroup, ...]],
                        group_ids: dict[str, int], port_groups: Any) -> list[Device]:
    """The device table read record by record: the fast path where a record passes every check,
    else the careful path, which finds and names the exact problem."""
    devices: list[Device] = []
    device_ports: dict[str, tuple[Device, int]] = {}
    known_device = _KNOWN["device"]
    for i, d in enumerate(table.records()):
        if type(d) is dict and d.keys() <= known_device:
            fast = _fast_device(d, device_ports, templates, group_ids)
            if fast is not None:
                devices.append(fast)
                device_ports[fast.id] = (fast, i)
                continue
        # The careful path: finds and names the exact problem.
        p = f"{table.path}[{i}]"
        d = _obj(d, p)
        _unknown_keys(d, "device", p)
        did = _text(d, "id", p)
        if did in device_ports:
            raise RecordError(f"{p}.id", f"device {did!r} is already defined at {table.path}[{device_ports[did][1]}]")
        kind = _choice(d, "kind", p, DEVICE_KINDS)
        model = _text(d, "model", p, "")
        if "ports" in d:
            ports = port_groups(d["ports"], f"{p}.ports")
        elif model in templates:
            ports = templates[model]
        else:
            raise RecordError(p, f"missing 'ports' and model {model!r} has no entry in 'models'" if model
                           else "missing 'ports'")
        group = d.get("group")
        if group is not None and (not isinstance(group, str) or group not in group_ids):
            raise RecordError(f"{p}.group", f"no group {group!r}")
        try:
            dev = Device(did, kind, ports, model=model, name=_text(d, "name", p, ""),
                         tier=_text(d, "tier", p, ""), x=_coord(d, "x", p), y=_coord(d, "y", p), group=group,
                         properties=_props(d, p, DEVICE_PROPERTY_RULES))
        except DesignError as e:
            raise RecordError(p, str(e)) from None
        devices.append(dev)
        device_ports[did] = (dev, i)

    return devices


def _links_one_by_one(table: Table, device_ports: dict[str, tuple[Device, int]]) -> list[Link]:
    """The link table read record by record (as :func:`_devices_one_by_one`)."""
    links: list[Link] = []
    link_ids: dict[str, int] = {}
    port_used: dict[tuple[str, str], int] = {}
    known_link = _KNOWN["link"]
    for i, raw in enumerate(table.records()):
        if type(raw) is dict and raw.keys() <= known_link:
            fast_link = _fast_link(raw, device_ports, link_ids, port_used)
            if fast_link is not None:
                port_used[(fast_link.a_device, fast_link.a_port)] = i
                port_used[(fast_link.b_device, fast_link.b_port)] = i
                link_ids[fast_link.id] = i
                links.append(fast_link)
                continue
        p = f"{table.path}[{i}]"
        raw = _obj(raw, p)
        _unknown_keys(raw, "link", p)
        lid = _text(raw, "id", p)
        if lid in link_ids:
            raise RecordError(f"{p}.id", f"link {lid!r} is already defined at {table.path}[{link_ids[lid]}]")
        ends = []
        for side in ("a", "b"):
            ref = raw.get(side)
            parts = ref.split(":") if isinstance(ref, str) else ()
            if len(parts) != 2 or not parts[0] or not parts[1]:
                dev_id, port_id = _port_ref(raw, side, p)
            else:
                dev_id, port_id = parts
            entry = device_ports.get(dev_id)
            if entry is None:
                raise RecordError(f"{p}.{side}", f"no device {dev_id!r}")
            if entry[0].port(port_id) is None:
                raise RecordError(f"{p}.{side}", f"device {dev_id!r} has no port {port_id!r}")
            if (dev_id, port_id) in port_used:
                held = port_used[(dev_id, port_id)]
                raise RecordError(f"{p}.{side}", f"port {dev_id}:{port_id} already holds {table.path}[{held}]")
            ends.append((dev_id, port_id))
        if ends[0][0] == ends[1][0]:
            raise RecordError(p, f"link joins device {ends[0][0]!r} to itself")
        try:
            length = _number(raw, "length_m", p, maximum=MAX_LINK_LENGTH_M, unit=" m")
            link = Link(lid, ends[0][0], ends[0][1], ends[1][0], ends[1][1],
                        medium=_choice(raw, "medium", p, MEDIA), length_m=length,
                        cable=_text(raw, "cable", p, ""), failed=_bool(raw, "failed", p), properties=_props(raw, p))
        except DesignError as e:
            raise RecordError(p, str(e)) from None
        for e in ends:
            port_used[e] = i
        link_ids[lid] = i
        links.append(link)

    return links
