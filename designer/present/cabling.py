"""The cabling plan: one row per cable, both ends placed, in the order a crew works (docs/export.md).

Every link that is not a board connection (``nvlink``, ``pcie``: counted in the bill of materials'
``board_links``, never laid as a cable) is a cable. End A is the end that sorts first (by rack
row and position, rack, device, port in natural order: ``p2`` before ``p10``); rows are sorted by
end A, then end B, so a crew walks the racks in order and each rack's ports in order.

Transceivers follow the bill of materials' rules: an optical cable needs its catalog module at
each end; an end in a twin-port cage (``per_cage`` > 1) takes the cage's twin-port module, shared
with the cage's other port (the column names the cage).
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from designer.analysis.bom.bill import twin_module
from designer.analysis.common.cages import cage_of
from designer.interop.graph import device_places
from designer.io.atomic import atomic_write_text
from designer.model import BOARD_MEDIA, Design
from designer.model.catalog import Catalog, builtin_catalog, link_rates_gbps

#: The CSV's columns, in order (docs/export.md describes each).
COLUMNS = (
    "cable", "link",
    "a_rack", "a_row", "a_position", "a_server", "a_device", "a_port", "a_transceiver",
    "b_rack", "b_row", "b_position", "b_server", "b_device", "b_port", "b_transceiver",
    "medium", "length_m", "ordered_length_m", "cable_part", "cable_name", "rate_gbps", "failed",
)


@dataclass(frozen=True)
class End:
    device: str
    port: str
    server: str
    rack: str
    row: int | None
    position: int | None
    transceiver: str

    def sort_key(self) -> tuple[Any, ...]:
        big = 1 << 30
        return (self.row if self.row is not None else big, self.position if self.position is not None else big,
                self.rack or "\uffff", natural_key(self.device), natural_key(self.port))


def natural_key(text: str) -> tuple[Any, ...]:
    """Sort key reading digit runs as numbers: ``p2`` < ``p10``, ``node9`` < ``node10``."""
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def cabling_rows(design: Design, catalog: Catalog | None = None) -> list[dict[str, Any]]:
    """One dict per cable with the keys of :data:`COLUMNS`, sorted by rack, then port.

    >>> from designer.generators import GENERATORS
    >>> rows = cabling_rows(GENERATORS["leaf-spine"].build())
    >>> len(rows) > 0, rows[0]["cable"], set(rows[0]) == set(COLUMNS)
    (True, 1, True)
    """
    cat = catalog if catalog is not None else builtin_catalog()
    places = device_places(design)
    groups = {g.id: g for g in design.iter_groups()}
    devices = {d.id: d for d in design.iter_devices()}
    twins: dict[tuple[str, int, float], str] = {}

    def module_at(dev_id: str, port: str, module: str) -> str:
        if not module:
            return ""
        dev = devices[dev_id]
        where = cage_of(dev, port)
        if where is None:
            return module
        group = dev.ports[where[0]]
        per_cage = group.per_cage
        key = (module, per_cage, group.speed_gbps)
        if key not in twins:
            base = cat.transceivers.get(module)
            twin = twin_module(cat, base, per_cage, group.speed_gbps) if base is not None else None
            twins[key] = twin.id if twin is not None else module
        return f"{twins[key]} (cage {where[1]}, shared)"

    def end(dev_id: str, port: str, module: str) -> End:
        server, rack = places[dev_id]
        props = groups[rack].properties if rack else {}
        return End(dev_id, port, server, rack, _int(props.get("row")), _int(props.get("position")),
                   module_at(dev_id, port, module))

    rows: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    cabled = [link for link in design.iter_links() if link.medium not in BOARD_MEDIA]
    for link, rate in zip(cabled, link_rates_gbps(design, cabled, cat), strict=True):
        cab = cat.cables.get(link.cable) if link.cable else None
        module = cab.transceiver if cab is not None and link.medium == "optical" and cab.transceiver else ""
        a, b = end(link.a_device, link.a_port, module), end(link.b_device, link.b_port, module)
        if b.sort_key() < a.sort_key():
            a, b = b, a
        row: dict[str, Any] = {"link": link.id}
        for prefix, e in (("a", a), ("b", b)):
            row.update({f"{prefix}_rack": e.rack, f"{prefix}_row": e.row, f"{prefix}_position": e.position,
                        f"{prefix}_server": e.server, f"{prefix}_device": e.device, f"{prefix}_port": e.port,
                        f"{prefix}_transceiver": e.transceiver})
        row.update(medium=link.medium, length_m=float(link.length_m),
                   ordered_length_m=float(cab.standard_length(link.length_m)) if cab is not None else None,
                   cable_part=link.cable or "", cable_name=cab.name if cab is not None else "",
                   rate_gbps=float(rate), failed=bool(link.failed))
        rows.append(((*a.sort_key(), *b.sort_key()), row))
    rows.sort(key=lambda kr: kr[0])
    out = []
    for n, (_, row) in enumerate(rows, 1):
        row["cable"] = n
        out.append({c: row[c] for c in COLUMNS})
    return out


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else ""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def cabling_csv(rows: Iterable[dict[str, Any]]) -> str:
    """The rows as CSV text (RFC 4180, a header line, ``\\r\\n`` line ends)."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(COLUMNS)
    for row in rows:
        w.writerow([_cell(row[c]) for c in COLUMNS])
    return buf.getvalue()


def write_cabling(design: Design, path: str | os.PathLike[str], catalog: Catalog | None = None) -> int:
    """Write the cabling plan CSV atomically; return the number of cables."""
    rows = cabling_rows(design, catalog)
    atomic_write_text(path, cabling_csv(rows))
    return len(rows)


__all__ = ["COLUMNS", "cabling_csv", "cabling_rows", "natural_key", "write_cabling"]
