"""Design files: versioned JSON, migrated forward, validated with exact paths, written atomically.

Format (documented in docs/file-format.md, schema in resources/schema/design.schema.json)::

    {"format": "topo-designer-design", "version": 1,
     "design": {"name": ..., "description": ..., "properties": {...}},
     "models": [{"id": "h100-sxm", "ports": [...]}],
     "groups": [...], "devices": [...], "links": [...]}

``models`` holds each device model's port groups once; a device whose ports equal its model's
entry leaves ``ports`` out. The file never depends on the catalog to be read.

Loading is: size check -> JSON parse (NaN, Infinity and duplicate keys refused) -> format check
-> migrate step by step to the current version -> validate every record, naming the exact path
of the first problem -> build the model. Saving writes one record per line in a fixed key
order, so load -> save -> load -> save gives byte-identical files.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from designer.io.atomic import atomic_write_text
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
from designer.model.bulk import gc_paused

FORMAT = "topo-designer-design"
VERSION = 1
MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_TEXT = 4096

#: Migrations from version N to N+1: ``MIGRATIONS[N](data) -> data``. Never delete one:
#: every file ever written must keep loading.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


class DesignFileError(DesignError):
    """A design file cannot be read; the message names the file and the exact problem."""


class _Invalid(Exception):
    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)


# ---------------------------------------------------------------------------- writing
def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))


def _port_group_dict(g: PortGroup) -> dict[str, Any]:
    d: dict[str, Any] = {"prefix": g.prefix, "count": g.count, "speed_gbps": g.speed_gbps, "kind": g.kind}
    if g.form_factor:
        d["form_factor"] = g.form_factor
    if g.lanes != 1:
        d["lanes"] = g.lanes
    if g.per_cage != 1:
        d["per_cage"] = g.per_cage
    return d


def device_to_dict(dev: Device, templates: dict[str, tuple[PortGroup, ...]] | None = None) -> dict[str, Any]:
    """A device record; ``ports`` is left out when it equals its model's entry in ``templates``."""
    d: dict[str, Any] = {"id": dev.id, "kind": dev.kind}
    if dev.model:
        d["model"] = dev.model
    if dev.name:
        d["name"] = dev.name
    if dev.tier:
        d["tier"] = dev.tier
    d["x"] = dev.x
    d["y"] = dev.y
    if dev.group is not None:
        d["group"] = dev.group
    if not (templates and dev.model and templates.get(dev.model) == dev.ports):
        d["ports"] = [_port_group_dict(g) for g in dev.ports]
    if dev.properties:
        d["properties"] = dev.properties
    return d


def link_to_dict(link: Link) -> dict[str, Any]:
    d: dict[str, Any] = {"id": link.id, "a": link.a, "b": link.b, "medium": link.medium, "length_m": link.length_m}
    if link.cable:
        d["cable"] = link.cable
    if link.failed:
        d["failed"] = True
    if link.properties:
        d["properties"] = link.properties
    return d


def group_to_dict(group: Group) -> dict[str, Any]:
    d: dict[str, Any] = {"id": group.id, "kind": group.kind}
    if group.name:
        d["name"] = group.name
    if group.parent is not None:
        d["parent"] = group.parent
    if group.collapsed:
        d["collapsed"] = True
    if group.properties:
        d["properties"] = group.properties
    return d


def _records(key: str, items: list[dict[str, Any]], last: bool) -> list[str]:
    end = "" if last else ","
    if not items:
        return [f'  "{key}": []{end}']
    lines = [f'  "{key}": [']
    lines.extend(f"    {_dumps(it)}," for it in items[:-1])
    lines.append(f"    {_dumps(items[-1])}")
    lines.append(f"  ]{end}")
    return lines


def design_to_text(design: Design) -> str:
    """Serialize a design: one record per line, fixed key order, trailing newline."""
    head = {"name": design.name, "description": design.description}
    if design.properties:
        head["properties"] = design.properties
    # Each model's ports are written once, from its first device; devices equal to it omit them.
    templates: dict[str, tuple[PortGroup, ...]] = {}
    for dev in design.iter_devices():
        if dev.model and dev.model not in templates:
            templates[dev.model] = dev.ports
    try:
        lines = ["{", f'  "format": "{FORMAT}",', f'  "version": {VERSION},', f'  "design": {_dumps(head)},']
        models = [{"id": m, "ports": [_port_group_dict(g) for g in ports]} for m, ports in templates.items()]
        lines += _records("models", models, False)
        lines += _records("groups", [group_to_dict(g) for g in design.groups_parent_first()], False)
        lines += _records("devices", [device_to_dict(d, templates) for d in design.iter_devices()], False)
        lines += _records("links", [link_to_dict(link) for link in design.iter_links()], True)
    except (TypeError, ValueError) as e:
        raise DesignFileError(f"design cannot be saved: a property is not plain JSON data ({e})") from None
    lines.append("}")
    return "\n".join(lines) + "\n"


def save_design(design: Design, path: str | os.PathLike[str]) -> None:
    """Write ``design`` to ``path`` atomically (temporary file, then rename)."""
    with gc_paused():
        text = design_to_text(design)
    atomic_write_text(path, text)


# ---------------------------------------------------------------------------- reading
def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed in a design file")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise ValueError(f"duplicate key {k!r}")
            seen.add(k)
    return d


def parse_json(text: str, source: str) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)
    except RecursionError:
        raise DesignFileError(f"{source}: nested too deeply to be a design file") from None
    except json.JSONDecodeError as e:
        raise DesignFileError(f"{source}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    except ValueError as e:
        raise DesignFileError(f"{source}: not valid JSON: {e}") from None


def _obj(v: Any, path: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise _Invalid(path, f"must be an object, not {type(v).__name__}")
    return v


def _list(v: Any, path: str) -> list[Any]:
    if not isinstance(v, list):
        raise _Invalid(path, f"must be a list, not {type(v).__name__}")
    return v


def _text(obj: dict[str, Any], key: str, path: str, default: str | None = None) -> str:
    v = obj.get(key, default)
    if v is None:
        raise _Invalid(path, f"missing {key!r}")
    if not isinstance(v, str):
        raise _Invalid(f"{path}.{key}", f"must be text, not {type(v).__name__}")
    if len(v) > MAX_TEXT:
        raise _Invalid(f"{path}.{key}", f"text is {len(v)} characters long, over {MAX_TEXT}")
    return v


def _number(obj: dict[str, Any], key: str, path: str, *, default: float | None = None, positive: bool = False,
            minimum: float = 0.0) -> float:
    v = obj.get(key, default)
    if v is None:
        raise _Invalid(path, f"missing {key!r}")
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _Invalid(f"{path}.{key}", f"must be a number, not {v!r}")
    v = float(v)
    if not math.isfinite(v):
        raise _Invalid(f"{path}.{key}", f"must be finite, not {v!r}")
    if positive and v <= 0:
        raise _Invalid(f"{path}.{key}", f"must be > 0, not {v:g}")
    if v < minimum:
        raise _Invalid(f"{path}.{key}", f"must be >= {minimum:g}, not {v:g}")
    return v


def _int(obj: dict[str, Any], key: str, path: str, lo: int, hi: int, default: int | None = None) -> int:
    v = obj.get(key, default)
    if v is None:
        raise _Invalid(path, f"missing {key!r}")
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise _Invalid(f"{path}.{key}", f"must be an integer in {lo}..{hi}, not {v!r}")
    return v


def _bool(obj: dict[str, Any], key: str, path: str) -> bool:
    v = obj.get(key, False)
    if not isinstance(v, bool):
        raise _Invalid(f"{path}.{key}", f"must be true or false, not {v!r}")
    return v


def _choice(obj: dict[str, Any], key: str, path: str, choices: tuple[str, ...], default: str | None = None) -> str:
    v = _text(obj, key, path, default)
    if v not in choices:
        raise _Invalid(f"{path}.{key}", f"must be one of {', '.join(choices)}, not {v!r}")
    return v


def _props(obj: dict[str, Any], path: str) -> dict[str, Any]:
    v = obj.get("properties", {})
    return dict(_obj(v, f"{path}.properties"))


_KNOWN = {
    "device": {"id", "kind", "model", "name", "tier", "x", "y", "group", "ports", "properties"},
    "link": {"id", "a", "b", "medium", "length_m", "cable", "failed", "properties"},
    "group": {"id", "kind", "name", "parent", "collapsed", "properties"},
}


def _unknown_keys(obj: dict[str, Any], what: str, path: str) -> None:
    extra = obj.keys() - _KNOWN[what]
    if extra:
        raise _Invalid(path, f"unknown field {sorted(extra)[0]!r}")


def _port_ref(obj: dict[str, Any], key: str, path: str) -> tuple[str, str]:
    ref = _text(obj, key, path)
    if ref.count(":") != 1 or ref.startswith(":") or ref.endswith(":"):
        raise _Invalid(f"{path}.{key}", f"must look like 'device:port', not {ref!r}")
    dev, port = ref.split(":")
    return dev, port


_DEVICE_KINDS = frozenset(DEVICE_KINDS)
_MEDIA = frozenset(MEDIA)
_NUMBER = (int, float)


def _fine_number(v: Any, minimum: float) -> bool:
    return type(v) in _NUMBER and math.isfinite(v) and v >= minimum


def _fast_device(d: dict[str, Any], seen: dict[str, Any], templates: dict[str, tuple[PortGroup, ...]],
                 group_ids: dict[str, int]) -> Device | None:
    """A device from a record that passes every check, or None to take the careful path."""
    did, kind, model = d.get("id"), d.get("kind"), d.get("model", "")
    if type(did) is not str or did in seen or kind not in _DEVICE_KINDS or type(model) is not str:
        return None
    if "ports" in d or model not in templates:
        return None
    name, tier, props = d.get("name", ""), d.get("tier", ""), d.get("properties", {})
    if type(name) is not str or type(tier) is not str or type(props) is not dict:
        return None
    if len(name) > MAX_TEXT or len(tier) > MAX_TEXT or len(model) > MAX_TEXT:
        return None
    x, y, group = d.get("x", 0.0), d.get("y", 0.0), d.get("group")
    if not (_fine_number(x, -1e9) and _fine_number(y, -1e9)):
        return None
    if group is not None and (type(group) is not str or group not in group_ids):
        return None
    try:
        return Device(did, kind, templates[model], model=model, name=name, tier=tier, x=x, y=y, group=group,
                      properties=dict(props))
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
    if medium not in _MEDIA or not _fine_number(length, 0.0) or type(cable) is not str or len(cable) > MAX_TEXT:
        return None
    if type(failed) is not bool or type(props) is not dict:
        return None
    try:
        return Link(lid, pa[0], pa[1], pb[0], pb[1], medium=medium, length_m=length, cable=cable, failed=failed,
                    properties=dict(props))
    except DesignError:
        return None


def _build(data: dict[str, Any]) -> Design:
    head = _obj(data.get("design", {}), "design")
    design = Design(_text(head, "name", "design", "Untitled"), _text(head, "description", "design", ""))
    design.properties = dict(_obj(head.get("properties", {}), "design.properties"))

    groups_raw = _list(data.get("groups", []), "groups")
    devices_raw = _list(data.get("devices", []), "devices")
    links_raw = _list(data.get("links", []), "links")

    groups: list[Group] = []
    group_ids: dict[str, int] = {}
    for i, g in enumerate(groups_raw):
        p = f"groups[{i}]"
        g = _obj(g, p)
        _unknown_keys(g, "group", p)
        gid = _text(g, "id", p)
        if gid in group_ids:
            raise _Invalid(f"{p}.id", f"group {gid!r} is already defined at groups[{group_ids[gid]}]")
        parent = g.get("parent")
        if parent is not None and not isinstance(parent, str):
            raise _Invalid(f"{p}.parent", "must be a group id or null")
        try:
            groups.append(Group(gid, _choice(g, "kind", p, GROUP_KINDS, "custom"), _text(g, "name", p, ""),
                                parent, _bool(g, "collapsed", p), _props(g, p)))
        except DesignError as e:
            raise _Invalid(p, str(e)) from None
        group_ids[gid] = i
    for i, g in enumerate(groups):
        if g.parent is not None and g.parent not in group_ids:
            raise _Invalid(f"groups[{i}].parent", f"no group {g.parent!r}")
    # Parents must come before children; detect cycles.
    state: dict[str, int] = {}
    for i, g in enumerate(groups):
        chain: list[str] = []
        cur: str | None = g.id
        while cur is not None and state.get(cur) != 2:
            if cur in chain:
                raise _Invalid(f"groups[{i}].parent", f"groups nest in a cycle: {' -> '.join(chain + [cur])}")
            chain.append(cur)
            cur = groups[group_ids[cur]].parent
        for c in chain:
            state[c] = 2
    ordered: list[Group] = []
    placed: set[str] = set()

    def place(g: Group) -> None:
        if g.id in placed:
            return
        if g.parent is not None:
            place(groups[group_ids[g.parent]])
        placed.add(g.id)
        ordered.append(g)

    for g in groups:
        place(g)

    ports_cache: dict[str, tuple[PortGroup, ...]] = {}

    def port_groups(raw: Any, path: str) -> tuple[PortGroup, ...]:
        raw = _list(raw, path)
        key = repr(raw)
        cached = ports_cache.get(key)
        if cached is not None:
            return cached
        built = []
        for j, pg in enumerate(raw):
            pp = f"{path}[{j}]"
            pg = _obj(pg, pp)
            extra = pg.keys() - {"prefix", "count", "speed_gbps", "kind", "form_factor", "lanes", "per_cage"}
            if extra:
                raise _Invalid(pp, f"unknown field {sorted(extra)[0]!r}")
            try:
                built.append(PortGroup(
                    _text(pg, "prefix", pp), _int(pg, "count", pp, 1, 4096),
                    _number(pg, "speed_gbps", pp, positive=True),
                    _choice(pg, "kind", pp, PORT_KINDS, "network"), _text(pg, "form_factor", pp, ""),
                    _int(pg, "lanes", pp, 1, 1024, 1), _int(pg, "per_cage", pp, 1, 16, 1),
                ))
            except DesignError as e:
                raise _Invalid(pp, str(e)) from None
        result = tuple(built)
        ports_cache[key] = result
        return result

    templates: dict[str, tuple[PortGroup, ...]] = {}
    for i, m in enumerate(_list(data.get("models", []), "models")):
        p = f"models[{i}]"
        m = _obj(m, p)
        extra = m.keys() - {"id", "ports"}
        if extra:
            raise _Invalid(p, f"unknown field {sorted(extra)[0]!r}")
        mid = _text(m, "id", p)
        if mid in templates:
            raise _Invalid(f"{p}.id", f"model {mid!r} is listed twice")
        templates[mid] = port_groups(m.get("ports"), f"{p}.ports")

    devices: list[Device] = []
    device_ports: dict[str, tuple[Device, int]] = {}
    known_device = _KNOWN["device"]
    for i, d in enumerate(devices_raw):
        if type(d) is dict and d.keys() <= known_device:
            fast = _fast_device(d, device_ports, templates, group_ids)
            if fast is not None:
                devices.append(fast)
                device_ports[fast.id] = (fast, i)
                continue
        # The careful path: finds and names the exact problem.
        p = f"devices[{i}]"
        d = _obj(d, p)
        _unknown_keys(d, "device", p)
        did = _text(d, "id", p)
        if did in device_ports:
            raise _Invalid(f"{p}.id", f"device {did!r} is already defined at devices[{device_ports[did][1]}]")
        kind = _choice(d, "kind", p, DEVICE_KINDS)
        model = _text(d, "model", p, "")
        if "ports" in d:
            ports = port_groups(d["ports"], f"{p}.ports")
        elif model in templates:
            ports = templates[model]
        else:
            raise _Invalid(p, f"missing 'ports' and model {model!r} has no entry in 'models'" if model
                           else "missing 'ports'")
        group = d.get("group")
        if group is not None and (not isinstance(group, str) or group not in group_ids):
            raise _Invalid(f"{p}.group", f"no group {group!r}")
        try:
            dev = Device(did, kind, ports, model=model, name=_text(d, "name", p, ""),
                         tier=_text(d, "tier", p, ""), x=_number(d, "x", p, default=0.0, minimum=-1e9),
                         y=_number(d, "y", p, default=0.0, minimum=-1e9), group=group, properties=_props(d, p))
        except DesignError as e:
            raise _Invalid(p, str(e)) from None
        devices.append(dev)
        device_ports[did] = (dev, i)

    links: list[Link] = []
    link_ids: dict[str, int] = {}
    port_used: dict[tuple[str, str], int] = {}
    known_link = _KNOWN["link"]
    for i, raw in enumerate(links_raw):
        if type(raw) is dict and raw.keys() <= known_link:
            fast_link = _fast_link(raw, device_ports, link_ids, port_used)
            if fast_link is not None:
                port_used[(fast_link.a_device, fast_link.a_port)] = i
                port_used[(fast_link.b_device, fast_link.b_port)] = i
                link_ids[fast_link.id] = i
                links.append(fast_link)
                continue
        p = f"links[{i}]"
        raw = _obj(raw, p)
        _unknown_keys(raw, "link", p)
        lid = _text(raw, "id", p)
        if lid in link_ids:
            raise _Invalid(f"{p}.id", f"link {lid!r} is already defined at links[{link_ids[lid]}]")
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
                raise _Invalid(f"{p}.{side}", f"no device {dev_id!r}")
            if entry[0].port(port_id) is None:
                raise _Invalid(f"{p}.{side}", f"device {dev_id!r} has no port {port_id!r}")
            if (dev_id, port_id) in port_used:
                held = port_used[(dev_id, port_id)]
                raise _Invalid(f"{p}.{side}", f"port {dev_id}:{port_id} already holds links[{held}]")
            ends.append((dev_id, port_id))
        if ends[0][0] == ends[1][0]:
            raise _Invalid(p, f"link joins device {ends[0][0]!r} to itself")
        try:
            link = Link(lid, ends[0][0], ends[0][1], ends[1][0], ends[1][1],
                        medium=_choice(raw, "medium", p, MEDIA), length_m=_number(raw, "length_m", p),
                        cable=_text(raw, "cable", p, ""), failed=_bool(raw, "failed", p), properties=_props(raw, p))
        except DesignError as e:
            raise _Invalid(p, str(e)) from None
        for e in ends:
            port_used[e] = i
        link_ids[lid] = i
        links.append(link)

    design._extend_validated(ordered, devices, links)
    return design


def migrate(data: dict[str, Any], source: str) -> dict[str, Any]:
    """Bring a parsed file of an older version up to :data:`VERSION`, one step at a time."""
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise DesignFileError(f"{source}: version must be a whole number, not {version!r}")
    if version > VERSION:
        raise DesignFileError(
            f"{source}: file version {version} is newer than this program reads (up to {VERSION}); "
            "update Topology Designer to open it"
        )
    while version < VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise DesignFileError(f"{source}: no migration from file version {version}; the file is not supported")
        data = step(data)
        version += 1
        data["version"] = version
    return data


def design_from_data(data: Any, source: str = "<design>") -> Design:
    """Check the envelope, migrate, validate and build a design from parsed JSON."""
    if not isinstance(data, dict):
        raise DesignFileError(f"{source}: not a design file (the top level must be a JSON object)")
    fmt = data.get("format")
    if fmt != FORMAT:
        raise DesignFileError(f"{source}: not a design file (format is {fmt!r}, expected {FORMAT!r})")
    data = migrate(data, source)
    extra = data.keys() - {"format", "version", "design", "models", "groups", "devices", "links"}
    if extra:
        raise DesignFileError(f"{source}: unknown top-level field {sorted(extra)[0]!r}")
    try:
        return _build(data)
    except _Invalid as e:
        raise DesignFileError(f"{source}: {e}") from None
    except RecursionError:
        raise DesignFileError(f"{source}: nested too deeply to be a design file") from None
    except DesignError as e:
        raise DesignFileError(f"{source}: {e}") from None


def design_from_text(text: str, source: str = "<design>") -> Design:
    with gc_paused():
        return design_from_data(parse_json(text, source), source)


def load_design(path: str | os.PathLike[str]) -> Design:
    """Read, migrate and validate a design file; raise DesignFileError naming the exact problem."""
    p = Path(path)
    try:
        size = p.stat().st_size
    except FileNotFoundError:
        raise DesignFileError(f"{p}: no such file") from None
    except OSError as e:
        raise DesignFileError(f"{p}: cannot read: {e.strerror or e}") from None
    if p.is_dir():
        raise DesignFileError(f"{p}: is a folder, not a design file")
    if size > MAX_FILE_BYTES:
        raise DesignFileError(f"{p}: file is {size / 2**20:.0f} MiB, over the {MAX_FILE_BYTES // 2**20} MiB limit")
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise DesignFileError(f"{p}: cannot read: {e.strerror or e}") from None
    if not raw.strip():
        raise DesignFileError(f"{p}: file is empty")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise DesignFileError(f"{p}: not UTF-8 text (byte {e.start})") from None
    return design_from_text(text, str(p))
