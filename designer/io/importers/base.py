"""What every importer shares: options, the import report, errors, reading text, parsing rates.

No Qt. An importer turns another tool's file into an ordinary :class:`~designer.model.Design` and
an :class:`ImportReport` that says what was read, what was guessed and what was skipped, with
line numbers. Truly broken input raises :class:`ImportFileError` (one line: the source, the line
and the reason).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Any

from designer.io.reading import read_input
from designer.model import DesignError
from designer.model.catalog import Catalog
from designer.model.entities import MAX_PORT_GBPS, MIN_PORT_GBPS
from designer.model.units import line_rate

#: The largest file an importer reads, as for design files (a 16,384-GPU design exports about 90 MB of GraphML).
MAX_IMPORT_BYTES = 256 * 1024 * 1024
#: The most devices and links an import builds (a 100,000-GPU fabric has fewer of either).
MAX_IMPORT_RECORDS = 2_000_000
#: The most devices (hosts, adapters, switches, graph nodes) one import may declare. Counts a file
#: states (a hostlist range, the nodes of a graph) are held to it before anything is expanded or
#: parsed, so a 35-byte line cannot cost minutes; a real fabric of 100,000 GPUs has fewer.
MAX_IMPORT_NODES = 200_000
#: Where the report stops listing entries of one kind one by one (it still counts them all).
REPORT_LIST_LIMIT = 200


class ImportFileError(DesignError):
    """A file cannot be imported: the message names the source, the line when known, and why."""


@dataclass
class ImportOptions:
    """What the user tells an import that the file does not.

    ``default_rate_gbps``: the per-direction rate of a link whose speed the file does not give (or
    gives as text that is not a rate); None lets each format choose (and the report says which).
    ``name_map``: node-name map (GUID or node name -> host name), as read by :func:`read_name_map`.
    ``gpus_per_adapter``: GPUs stamped behind each host adapter so collectives have endpoints
    (0: the adapters alone) where no server is known. ``attributes``: GML/GraphML attribute mapping
    (``kind``, ``rate``, ``tier``, ``name``, ``rate_unit``: which node/edge attribute holds what).
    ``hosts_regex``: a regular expression whose group ``host`` (else its first group, else the
    match) names an adapter's host from its name or node description; ``host_map``: adapter GUID
    or description -> host name. ``server``: the GPU hosts' server (``auto``: guessed from their
    adapters; ``none``: adapters alone; else a catalog GPU or NVLink switch model);
    ``server_template``: a server read from a file (:mod:`designer.io.importers.hosts`), which wins.
    ``catalog``: the catalog the servers' and switches' models come from (None: the built-in one).
    """

    format: str | None = None
    default_rate_gbps: float | None = None
    name_map: dict[str, str] = field(default_factory=dict)
    gpus_per_adapter: int = 1
    attributes: dict[str, str] = field(default_factory=dict)
    max_bytes: int = MAX_IMPORT_BYTES
    hosts_regex: str = ""
    host_map: dict[str, str] = field(default_factory=dict)
    server: str = "auto"
    server_template: Any = None
    catalog: Catalog | None = None


@dataclass
class ReportEntry:
    """One thing the import guessed or skipped: where (line, 0 when none), what, and why."""

    line: int
    what: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"what": self.what, "reason": self.reason}
        if self.line:
            out["line"] = self.line
        return out

    def text(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        return f"{where}{self.what}: {self.reason}"


@dataclass
class ImportReport:
    """What an import read, guessed and skipped (``to_dict`` is the ``--report`` JSON)."""

    source: str
    format: str = ""
    read: dict[str, int] = field(default_factory=dict)
    guessed: list[ReportEntry] = field(default_factory=list)
    skipped: list[ReportEntry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    counts: dict[str, dict[str, int]] = field(default_factory=lambda: {"guessed": {}, "skipped": {}})

    def guess(self, what: str, reason: str, line: int = 0, kind: str = "") -> None:
        self._add(self.guessed, "guessed", ReportEntry(line, what, reason), kind or what)

    def skip(self, what: str, reason: str, line: int = 0, kind: str = "") -> None:
        self._add(self.skipped, "skipped", ReportEntry(line, what, reason), kind or what)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def _add(self, entries: list[ReportEntry], bucket: str, entry: ReportEntry, kind: str) -> None:
        tally = self.counts[bucket]
        tally[kind] = tally.get(kind, 0) + 1
        if tally[kind] <= REPORT_LIST_LIMIT:
            entries.append(entry)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": "topo-designer-import-report",
            "version": 1,
            "source": self.source,
            "source_format": self.format,
            "read": dict(self.read),
            "guessed": [e.to_dict() for e in self.guessed],
            "skipped": [e.to_dict() for e in self.skipped],
            "counts": {k: dict(v) for k, v in self.counts.items()},
            "notes": list(self.notes),
        }

    def summary_lines(self, limit: int = 12) -> list[str]:
        """The report as short lines for a terminal or a dialog (at most ``limit`` per section)."""
        read = ", ".join(f"{v:,} {k}" for k, v in self.read.items() if v)
        lines = [f"{self.source}: read as {self.format}: {read or 'nothing'}"]
        for title, bucket, entries in (("guessed", "guessed", self.guessed), ("skipped", "skipped", self.skipped)):
            total = sum(self.counts[bucket].values())
            if not total:
                continue
            lines.append(f"{title} ({total:,}):")
            lines.extend(f"  {e.text()}" for e in entries[:limit])
            if total > min(limit, len(entries)):
                lines.append(f"  ... {total - min(limit, len(entries)):,} more (see the JSON report)")
        lines.extend(self.notes)
        return lines


def decode_text(raw: bytes, source: str) -> tuple[str, int]:
    """UTF-8 text (a byte-order mark dropped; CRLF and CR read as LF), and 0; or, when the bytes
    are not UTF-8, the text read as Latin-1 (what old tools wrote) and the first line that is
    not UTF-8, for the report. A binary file (NUL bytes) is refused."""
    if b"\x00" in raw[:65536]:
        raise ImportFileError(f"{source}: a binary file (NUL bytes), not a text topology")
    bad = 0
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        bad = raw.count(b"\n", 0, e.start) + 1
        text = raw.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n"), bad


def read_source(path: str | os.PathLike[str], max_bytes: int = MAX_IMPORT_BYTES) -> tuple[bytes, str]:
    """The bytes of ``path`` (``-``: standard input), bounded; and the name messages use."""
    return read_input(path, max_bytes, "a file to import", ImportFileError)


_UNIT_SCALE = {"": 1.0, "k": 1e-6, "m": 1e-3, "g": 1.0, "t": 1e3}
_RATE_RE = re.compile(
    r"^\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>[kKmMgGtT]?)\s*(?:(?:bit|bits|b)(?:/s|ps|it/s)?|bps|e|ge)?\s*$",
    re.IGNORECASE,
)
#: SONET/SDH carriers by their OC-n name: n x 51.84 Mb/s (OC-192 is the "10G" of WAN links).
_OC_RE = re.compile(r"^\s*(?:OC|STM)-?(?P<n>\d+)c?\s*$", re.IGNORECASE)
_STM_TO_OC = 3


def parse_rate_gbps(text: object, default_unit: str = "") -> float | None:
    """A per-direction rate in Gb/s from a number or a label, or None when it is not one rate.

    Understood: a bare number (in ``default_unit``, K/M/G/T; none: Gb/s), ``400G``, ``100 Mb/s``,
    ``2.5 Gbit/s``, ``10 Gbps``, ``10GE``, ``40GbE``, ``OC-192c`` / ``STM-64`` (SONET/SDH:
    9.95 Gb/s). Ranges (``1-2.5 Gb/s``), bounds (``< 100 Mb/s``) and words (``DWDM``) are not one
    rate: None, and the caller reports the guess it makes instead.

    >>> [parse_rate_gbps(t) for t in ("400G", "100 Mb/s", "10GE", "OC-192c", "1-2.5 Gb/s", "DWDM", "40GbE")]
    [400.0, 0.1, 10.0, 9.95328, None, None, 40.0]
    >>> parse_rate_gbps("155", default_unit="M"), parse_rate_gbps(1e10, default_unit="bps")
    (0.155, 10.0)
    """
    if isinstance(text, bool) or text is None:
        return None
    if isinstance(text, (int, float)):
        if not math.isfinite(float(text)) or float(text) <= 0:
            return None
        if default_unit == "bps":
            return float(text) / 1e9
        scale = _UNIT_SCALE.get(default_unit.lower()[:1])
        return None if scale is None else float(text) * scale
    s = str(text).strip()
    if not s:
        return None
    m = _OC_RE.match(s)
    if m:
        n = int(m.group("n")) * (_STM_TO_OC if s.upper().startswith("STM") else 1)
        return n * 0.05184 if n else None
    s2 = re.sub(r"(?i)gbe$", "G", s)
    m = _RATE_RE.match(s2)
    if not m:
        return None
    value = float(m.group("num"))
    unit = m.group("unit") or default_unit
    if unit == "bps":
        return value / 1e9 if value > 0 else None
    scale = _UNIT_SCALE.get(unit.lower()[:1]) if unit else 1.0
    if scale is None or value <= 0:
        return None
    return value * scale


def check_rate(gbps: float, what: str) -> float:
    """``gbps`` if a port can run at it (0.001 .. 100,000 Gb/s), else ImportFileError."""
    if not (MIN_PORT_GBPS <= gbps <= MAX_PORT_GBPS):
        raise ImportFileError(f"{what}: {line_rate(gbps) if math.isfinite(gbps) else gbps} is outside "
                              f"{line_rate(MIN_PORT_GBPS)} .. {line_rate(MAX_PORT_GBPS)}")
    return gbps


def parse_rate_option(text: str) -> float:
    """A rate the user typed (``--default-rate 400G``, ``100``, ``25Gb/s``) in Gb/s, or ImportFileError."""
    value = parse_rate_gbps(text)
    if value is None:
        raise ImportFileError(f"default rate {text!r} is not a rate: write for example 400G, 100Gb/s or 25")
    return check_rate(value, f"default rate {text!r}")


#: Keys of the GML/GraphML attribute mapping (``ImportOptions.attributes``).
ATTRIBUTE_KEYS = ("kind", "rate", "rate_unit", "tier", "name")


def parse_attribute_mapping(items: list[str] | str) -> dict[str, str]:
    """``["rate=bw", "kind=type"]`` (or one string ``"rate=bw, kind=type"``) as a mapping; ImportFileError
    naming the item that is not ``KEY=ATTR`` with a known key."""
    if isinstance(items, str):
        items = [t for t in re.split(r"[,\s]+", items) if t]
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or key not in ATTRIBUTE_KEYS or not value:
            raise ImportFileError(f"attribute mapping {item!r}: write KEY=ATTR with KEY one of "
                                  f"{', '.join(ATTRIBUTE_KEYS)}")
        out[key] = value
    return out


_NAME_MAP_LINE = re.compile(r'^\s*(?:0x)?(?P<key>[0-9A-Za-z_.:\-]+)\s+"?(?P<name>[^"#]*?)"?\s*(?:#.*)?$')


def read_name_map(path: str | os.PathLike[str]) -> dict[str, str]:
    """A node-name map (``ibnetdiscover --node-name-map``): ``GUID "name"`` or ``key name`` per line.

    Keys are kept as written and also as a bare lower-case GUID (``0x0002c903...`` and
    ``H-0002c903...`` both find ``0002c903...``). ``#`` starts a comment.
    """
    raw, source = read_source(path, 16 * 1024 * 1024)
    text, _ = decode_text(raw, source)
    out: dict[str, str] = {}
    for n, line in enumerate(text.split("\n"), 1):
        stripped = line.split("#", 1)[0].strip() if not line.lstrip().startswith('"') else line.strip()
        if not stripped:
            continue
        m = _NAME_MAP_LINE.match(stripped)
        if not m or not m.group("name").strip():
            raise ImportFileError(f"{source}: line {n}: not 'GUID name': {line.strip()[:80]!r}")
        name = m.group("name").strip()
        key = m.group("key")
        out[key] = name
        out.setdefault(guid_key(key), name)
    return out


def guid_key(text: str) -> str:
    """A GUID or node name as a lookup key: ``S-``/``H-``/``0x`` prefixes and leading zeros dropped,
    lower case (``S-0008f10500200b50`` and ``0x8f10500200b50`` give the same key)."""
    t = text.strip().strip('"')
    if len(t) > 2 and t[1] == "-" and t[0] in "SHRshr":
        t = t[2:]
    if t.lower().startswith("0x"):
        t = t[2:]
    if re.fullmatch(r"[0-9A-Fa-f]+", t):
        return t.lower().lstrip("0") or "0"
    return t


def safe_id(text: str, fallback: str = "n") -> str:
    """A readable design id from a name: runs of other characters become ``-`` (``New York`` ->
    ``New-York``), at most 100 characters, starting with a letter or digit."""
    s = re.sub(r"[^A-Za-z0-9_.\-]+", "-", str(text)).strip("-._")
    return (s or fallback)[:100]
