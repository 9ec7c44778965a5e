"""Design files: versioned JSON, migrated forward, validated with exact paths, written atomically.

Format (documented in docs/file-format.md, schema in resources/schema/design.schema.json)::

    {"format": "topo-designer-design", "version": 3,
     "design": {"name": ..., "description": ..., "properties": {...}},
     "models": [{"id": "h100-sxm", "ports": [...]}],
     "groups": {"fields": [...], "rows": [...]}, "devices": {...}, "links": {...},
     "variants": [{"design": {...}, "models": [...], "groups": {...}, "devices": {...}, "links": {...}}]}

Each table is its fields once and then a row per record (version 3, :mod:`designer.io.design_tables`);
versions 1 and 2 wrote lists of records, which every version reads.

``variants`` (version 2, optional) holds other versions of the same fabric kept in the same file
(the window's Design > New Variant); each has the body of a design. Commands that take one design
read the main one.

``models`` holds each device model's port groups once; a device whose ports equal its model's
entry leaves ``ports`` out. The file never depends on the catalog to be read.

Loading is: size check -> JSON parse (NaN, Infinity and duplicate keys refused; a file over
:data:`SHAPE_CHECK_BYTES` measured first, read by msgspec and its members counted) -> format check
-> migrate step by step to the current version -> validate every record, naming the exact path
of the first problem -> build the model. Saving writes one record (row) per line in a fixed field
order, so load -> save -> load -> save gives byte-identical files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, BinaryIO, TypeVar

from designer.io import checked_files
from designer.io.atomic import atomic_write_text
from designer.io.design_bulk import counted_members
from designer.io.design_records import RecordError, build_design
from designer.io.design_tables import table_rows
from designer.io.json_shape import JsonShape, measure, rough_shape
from designer.io.reading import read_bounded as _read_bounded
from designer.io.reading import read_input
from designer.model import (
    Design,
    DesignError,
    Device,
    Group,
    Link,
    PortGroup,
)
from designer.model.bulk import gc_paused
from designer.model.fields import parse_json as parse_fields_json

FORMAT = "topo-designer-design"
VERSION = 3
MAX_FILE_BYTES = 256 * 1024 * 1024
_CHUNK = 1 << 20
#: No JSON object in a design file has more members than this. Records have a dozen fields; the
#: limit bounds free-form ``properties`` objects, so a file cannot expand into millions of keys.
MAX_OBJECT_MEMBERS = 1000
#: Files larger than this have their shape measured before parsing (see json_shape): below it, even
#: the densest JSON parses in a few dozen MiB. A measured file is read by msgspec and its members
#: counted (see :func:`_decode_bytes`), which pays for the measure from about this size (the 16k
#: sample, 13.2 MB: 0.05 s to measure, 0.06 s to read, where the checked parse took 0.15 s).
SHAPE_CHECK_BYTES = 4 * 1024 * 1024
#: The UTF-8 byte-order mark a file may start with.
_BOM = b"\xef\xbb\xbf"


#: A design file holds at most this many JSON objects and arrays, and this many values of every
#: kind. A real design uses about one container per 84 bytes and one value per 13 (the 16,384-GPU
#: sample: 157,000 and 985,000 in 13.2 MB), so a file at the size limit stays inside both;
#: a file of nothing but ``[]`` or ``1,`` would otherwise expand 25-fold in memory.
MAX_CONTAINERS = 4_000_000
MAX_VALUES = 24_000_000


def _check_shape(raw: bytes, source: str) -> JsonShape | None:
    """Refuse, before parsing, a text that would expand into too many objects, arrays or values;
    return its shape when it was measured (None: byte counts sufficed).

    A file up to :data:`SHAPE_CHECK_BYTES` gets an upper bound from byte counts at once; the exact
    count (outside strings) is taken when that bound is over a limit, or at once for a larger file,
    which could hide one huge object.
    """
    if len(raw) <= SHAPE_CHECK_BYTES:  # a large file is measured anyway: its byte counts would be wasted
        rough = rough_shape(raw)
        if rough.containers <= MAX_CONTAINERS and rough.values <= MAX_VALUES:
            return None
    shape = measure(raw)
    if shape.largest_object > MAX_OBJECT_MEMBERS:
        raise DesignFileError(f"{source}: {_too_many_members(shape.largest_object)}")
    if shape.containers > MAX_CONTAINERS:
        raise DesignFileError(f"{source}: holds {shape.containers:,} JSON objects and arrays; a design file "
                              f"allows at most {MAX_CONTAINERS:,}")
    if shape.values > MAX_VALUES:
        raise DesignFileError(f"{source}: holds about {shape.values:,} JSON values; a design file allows at most "
                              f"{MAX_VALUES:,}")
    return shape


def _too_many_members(n: int) -> str:
    return f"an object has {n:,} members; a design file allows at most {MAX_OBJECT_MEMBERS:,} per object"

#: Migrations from version N to N+1: ``MIGRATIONS[N](data) -> data``. Never delete one:
#: every file ever written must keep loading.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    1: lambda data: data,  # version 2 adds the optional "variants"; a version 1 file has none
    2: lambda data: data,  # version 3 writes tables as rows; the records of version 2 still read as they are
}
#: The members of a design body (the top level and each variant).
BODY_KEYS = ("design", "models", "groups", "devices", "links")


class DesignFileError(DesignError):
    """A design file cannot be read; the message names the file and the exact problem."""


#: One encoder for every record of a file: ``json.dumps`` with options builds a new one per call,
#: a fifth of the time of writing the lines (0.8 s of 3.6 for the 131,072-GPU design's 962,824 rows).
_dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(", ", ": ")).encode


def port_group_to_dict(g: PortGroup) -> dict[str, Any]:
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
        d["ports"] = [port_group_to_dict(g) for g in dev.ports]
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


def group_to_dict(group: Group, view_only: AbstractSet[str] = frozenset()) -> dict[str, Any]:
    """A group's record; its ``collapsed`` flag is left out when its id is in ``view_only``."""
    d: dict[str, Any] = {"id": group.id, "kind": group.kind}
    if group.name:
        d["name"] = group.name
    if group.parent is not None:
        d["parent"] = group.parent
    if group.collapsed and group.id not in view_only:
        d["collapsed"] = True
    if group.properties:
        d["properties"] = group.properties
    return d


T = TypeVar("T")


class SaveStopped(Exception):
    """A save given ``stop`` found it true (:func:`save_design`): nothing was written."""


#: Records made or written between two looks at a save's ``stop``.
_STOP_EVERY = 8192


def _watched(items: Iterable[T], stop: Callable[[], bool] | None) -> Iterable[T]:
    """``items``, raising :class:`SaveStopped` when ``stop()`` says so (asked every few thousand)."""
    if stop is None:
        return items
    return _watching(items, stop)


def _watching(items: Iterable[T], stop: Callable[[], bool]) -> Iterator[T]:
    for i, item in enumerate(items):
        if i % _STOP_EVERY == 0 and stop():
            raise SaveStopped
        yield item


def _records(key: str, items: list[dict[str, Any]], last: bool, indent: str = "  ",
             stop: Callable[[], bool] | None = None) -> list[str]:
    end = "" if last else ","
    if not items:
        return [f'{indent}"{key}": []{end}']
    lines = [f'{indent}"{key}": [']
    lines.extend(f"{indent}  {_dumps(it)}," for it in _watched(items[:-1], stop))
    lines.append(f"{indent}  {_dumps(items[-1])}")
    lines.append(f"{indent}]{end}")
    return lines


def _table(key: str, records: list[dict[str, Any]], last: bool, indent: str,
           stop: Callable[[], bool] | None = None) -> list[str]:
    """A table's lines: its fields on the first line, then a row per line
    (:mod:`designer.io.design_tables`)."""
    end = "" if last else ","
    fields, rows = table_rows(key, records)
    if not records:
        return [f'{indent}"{key}": {{"fields": [], "rows": []}}{end}']
    lines = [f'{indent}"{key}": {{"fields": {_dumps(fields)}, "rows": [']
    lines.extend(f"{indent}  {text}," for text in map(_dumps, _watched(rows, stop)))
    lines[-1] = lines[-1][:-1]
    lines.append(f"{indent}]}}{end}")
    return lines


def _body_lines(design: Design, indent: str, last: bool, view_only: AbstractSet[str] = frozenset(),
                stop: Callable[[], bool] | None = None) -> list[str]:
    """The members of a design body (design head, models, groups, devices, links), one record per line
    (``stop``: see :func:`save_design`)."""
    head = {"name": design.name, "description": design.description}
    if design.properties:
        head["properties"] = design.properties
    # Each model's ports are written once, from its first device; devices equal to it omit them.
    templates: dict[str, tuple[PortGroup, ...]] = {}
    for dev in design.iter_devices():
        if dev.model and dev.model not in templates:
            templates[dev.model] = dev.ports
    lines = [f'{indent}"design": {_dumps(head)},']
    models = [{"id": m, "ports": [port_group_to_dict(g) for g in ports]} for m, ports in templates.items()]
    lines += _records("models", models, False, indent)
    lines += _table("groups", [group_to_dict(g, view_only) for g in design.groups_parent_first()], False, indent)
    devices = [device_to_dict(d, templates) for d in _watched(design.iter_devices(), stop)]
    lines += _table("devices", devices, False, indent, stop)
    del devices
    links = [link_to_dict(link) for link in _watched(design.iter_links(), stop)]
    lines += _table("links", links, last, indent, stop)
    return lines


#: Lines joined into one piece of a design file's text at a time: :func:`save_design` writes each piece
#: as it is made, never the whole text (109 MB for 131,072 GPUs) in one copy.
LINES_PER_PIECE = 4096


def design_lines(design: Design, variants: Sequence[Design] = (),
                 view_only: Sequence[AbstractSet[str]] = (), stop: Callable[[], bool] | None = None) -> list[str]:
    """The lines of :func:`design_to_text`, without their line breaks (``stop``: see :func:`save_design`)."""
    views = [*view_only, *([frozenset()] * (1 + len(variants) - len(view_only)))]
    try:
        lines = ["{", f'  "format": "{FORMAT}",', f'  "version": {VERSION},']
        lines += _body_lines(design, "  ", not variants, views[0], stop)
        if variants:
            lines.append('  "variants": [')
            for i, v in enumerate(variants):
                lines.append("    {")
                lines += _body_lines(v, "      ", True, views[i + 1], stop)
                lines.append("    }" + ("," if i < len(variants) - 1 else ""))
            lines.append("  ]")
    except (TypeError, ValueError) as e:
        raise DesignFileError(f"design cannot be saved: a property is not plain JSON data ({e})") from None
    lines.append("}")
    return lines


def design_to_text(design: Design, variants: Sequence[Design] = (),
                   view_only: Sequence[AbstractSet[str]] = ()) -> str:
    """Serialize a design (and its variants): one record per line, fixed key order, trailing newline.

    ``view_only``: for the design and each variant in turn, the groups whose collapsed flag is a
    viewer's own (collapsed to fit a large design on screen, not by the user): not written.
    """
    return "".join(_pieces(design_lines(design, variants, view_only)))


def _pieces(lines: list[str], stop: Callable[[], bool] | None = None) -> Iterator[str]:
    """The text of ``lines``, each followed by a line break, :data:`LINES_PER_PIECE` lines at a time
    (``stop``: see :func:`save_design`)."""
    for start in range(0, len(lines), LINES_PER_PIECE):
        if stop is not None and stop():
            raise SaveStopped
        yield "\n".join(lines[start:start + LINES_PER_PIECE]) + "\n"


def save_design(design: Design, path: str | os.PathLike[str], variants: Sequence[Design] = (),
                view_only: Sequence[AbstractSet[str]] = (), *, stop: Callable[[], bool] | None = None) -> None:
    """Write ``design`` (and its ``variants``) to ``path`` atomically (temporary file, then rename);
    ``view_only`` as in :func:`design_to_text`. The text is written a piece at a time.

    ``stop``: asked every few thousand records while the text is made and before each piece is
    written; when it says true, :class:`SaveStopped` is raised and ``path`` is as it was (a
    background autosave dropped by a save or a close: 5 s of work at 131,072 GPUs not waited for).
    """
    with gc_paused():
        lines = design_lines(design, variants, view_only, stop)
    atomic_write_text(path, _pieces(lines, stop))


# ---------------------------------------------------------------------------- reading
def parse_json(text: str, source: str) -> Any:
    """A design file's JSON (the rules of :func:`designer.model.fields.parse_json`, objects bounded)."""
    return parse_fields_json(text, source, "a design file", DesignFileError, max_members=MAX_OBJECT_MEMBERS,
                             too_many=_too_many_members)


def _decode_counted(raw: bytes, shape: JsonShape) -> Any | None:
    """The JSON of a measured file, read without the check of each object's keys (:func:`_decode_bytes`);
    None when the checked parse must read it instead.

    The measure bounded every object already; a repeated key would leave its object one member short,
    so the members counted in what was read (:func:`designer.io.design_bulk.counted_members`) equal
    the colons the measure found outside strings exactly when no key repeats. When they differ, or
    msgspec refuses the text, None: the checked parse names the first problem, as it always has
    (131,072 GPUs, 109 MB: 0.5 s to read and 0.11 s to count).
    """
    data = _decode_bytes(raw)
    return data if data is not None and counted_members(data) == shape.members else None


def _decode_bytes(raw: bytes) -> Any | None:
    """A measured file's JSON read by msgspec straight from its bytes (UTF-8, a byte-order mark
    skipped), without the check of each object's keys; None when msgspec refuses it.

    msgspec refuses every text this reader refuses (malformed JSON, ``NaN``, lone surrogates, bytes
    that are not UTF-8, nesting too deep) and some it reads (numbers beyond a double, which
    ``json.loads`` makes infinite); where both read a text they build equal values, floats to the
    bit (``tests/io/test_fast_decode.py``: JSONTestSuite and 120,000 numbers). So a refusal here only
    sends the text to the checked parse, which names the problem as it always has. (131,072 GPUs,
    109 MB: 0.5 s, where decoding the text, ``json.loads`` without the check and the search for
    surrogate escapes took 0.9 s.)
    """
    import msgspec  # only files this large come here

    body = memoryview(raw)[len(_BOM):] if raw.startswith(_BOM) else raw
    try:
        return msgspec.json.decode(body)
    except Exception:  # noqa: BLE001 - any refusal: the careful path reads the text and names it
        return None


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
    """Check the envelope, migrate, validate and build a design from parsed JSON (the main design)."""
    return designs_from_data(data, source)[0]


def designs_from_data(data: Any, source: str = "<design>", *, check: bool = True,
                      careful: list[str] | None = None) -> list[Design]:
    """The main design and its variants (in file order) from parsed JSON.

    ``careful`` and ``check``: as :func:`designer.io.design_records.build_design` takes them, for
    every body (``check=False`` only for text whose tables passed every check before).
    """
    if not isinstance(data, dict):
        raise DesignFileError(f"{source}: not a design file (the top level must be a JSON object)")
    fmt = data.get("format")
    if "format" not in data:
        raise DesignFileError(f"{source}: not a design file (it has no \"format\" field; expected {FORMAT!r})")
    if fmt != FORMAT:
        raise DesignFileError(f"{source}: not a design file (format is {fmt!r}, expected {FORMAT!r})")
    data = migrate(data, source)
    extra = data.keys() - {"format", "version", "variants", *BODY_KEYS}
    if extra:
        raise DesignFileError(f"{source}: unknown top-level field {sorted(extra)[0]!r}")
    variants = data.get("variants", [])
    if not isinstance(variants, list):
        raise DesignFileError(f"{source}: variants: must be a list of designs")
    try:
        out = [build_design(data, check=check, careful=careful)]
        for i, body in enumerate(variants):
            if not isinstance(body, dict):
                raise RecordError(f"variants[{i}]", "must be an object (a design body)")
            unknown = body.keys() - set(BODY_KEYS)
            if unknown:
                raise RecordError(f"variants[{i}]", f"unknown field {sorted(unknown)[0]!r}")
            try:
                out.append(build_design(body, check=check, careful=careful))
            except RecordError as e:
                raise RecordError(f"variants[{i}]", str(e)) from None
        return out
    except RecordError as e:
        raise DesignFileError(f"{source}: {e}") from None
    except RecursionError:
        raise DesignFileError(f"{source}: nested too deeply to be a design file") from None
    except DesignError as e:
        raise DesignFileError(f"{source}: {e}") from None


def design_from_text(text: str, source: str = "<design>") -> Design:
    with gc_paused():
        return design_from_data(parse_json(text, source), source)


def designs_from_text(text: str, source: str = "<design>") -> list[Design]:
    """The main design and its variants from a design file's text."""
    with gc_paused():
        return designs_from_data(parse_json(text, source), source)


def read_bounded(stream: BinaryIO, source: str, limit: int | None = None) -> bytes:
    """Read ``stream`` to its end, refusing to hold more than ``limit`` bytes (default
    :data:`MAX_FILE_BYTES`); :func:`designer.io.reading.read_bounded` for a design file."""
    return _read_bounded(stream, source, MAX_FILE_BYTES if limit is None else limit, "a design file",
                         DesignFileError)


def load_design_stream(stream: BinaryIO, source: str = "<stdin>") -> Design:
    """Read a design from an open binary stream (standard input, a pipe), bounded like a file."""
    return _designs_from_owned_bytes([read_bounded(stream, source)], source)[0]


def _designs_checked_before(raw: bytes, source: str) -> list[Design] | None:
    """The designs of a file whose exact bytes passed every check of the reading before, with this
    program's reading code (:mod:`designer.io.checked_files`): parsed and their tables built without
    the checks, which builds what the checked reading built (131,072 GPUs, 109 MB: 2.4-2.9 s where
    the checked reading takes 3.8-4.2 s). None if that fails after all: the checked reading then reads it."""
    with gc_paused():
        data = _decode_bytes(raw)
        if data is None:
            return None
        try:
            return designs_from_data(data, source, check=False)
        except Exception:  # noqa: BLE001 - the checked reading reads the file and names any problem
            return None


def _designs_from_owned_bytes(holder: list[bytes], source: str) -> list[Design]:
    # The caller's only reference to the bytes is in ``holder``: dropping it after decoding keeps
    # the raw bytes and the parsed records from being held at the same time.
    raw = holder.pop()
    if not raw or raw.isspace():
        raise DesignFileError(f"{source}: file is empty")
    key = checked_files.key_of(raw) if len(raw) > SHAPE_CHECK_BYTES else None
    if key is not None and checked_files.checked_before(key):
        designs = _designs_checked_before(raw, source)
        if designs is not None:
            return designs
    shape = _check_shape(raw, source)
    if shape is not None:
        with gc_paused():
            data = _decode_counted(raw, shape)
            if data is not None:
                del raw
                careful: list[str] = []
                designs = designs_from_data(data, source, careful=careful)
                if key is not None and not careful:  # every table passed every whole-table check
                    checked_files.remember(key)
                return designs
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise DesignFileError(f"{source}: not UTF-8 text (byte {e.start})") from None
    del raw
    with gc_paused():
        data = parse_json(text, source)
        del text
        return designs_from_data(data, source)


def load_design(path: str | os.PathLike[str]) -> Design:
    """Read, migrate and validate a design file; raise DesignFileError naming the exact problem.

    ``-`` reads standard input. Every path is read through :func:`designer.io.reading.read_input`:
    nothing can make the program hold more than :data:`MAX_FILE_BYTES`, a device is refused and a
    named pipe with no writer is refused after a few seconds. A file with variants
    gives its main design (:func:`load_designs` gives all).
    """
    return load_designs(path)[0]


def load_designs(path: str | os.PathLike[str]) -> list[Design]:
    """The main design of a design file followed by its variants (see :func:`load_design`)."""
    raw, source = read_input(path, MAX_FILE_BYTES, "a design file", DesignFileError)
    holder = [raw]
    del raw
    return _designs_from_owned_bytes(holder, source)
