"""Bill of materials: devices by model and tier, cables by medium and length, optics, power and cost.

Counting rules:

- Devices: one line per (kind, model, tier). A device without a catalog model is priced from
  its ``properties`` ``power_w`` / ``price_usd`` when present (else 0, with a note), and counted
  with the devices of the same ``properties.part`` (an imported switch's part number, an adapter's
  ports and rate), else ``description``, else name. Servers stamped from one template (a server
  group's ``properties.server``) are counted in a note.
- Cables: every link that is not a board connection (``nvlink``, ``pcie``), one line per
  (cable model, medium, the tiers it joins, length bucket). Endpoints (GPU, NIC, storage) count
  as tier ``node``. Price = cable price + price per metre x length; power = 2 ends x power per end.
  Lengths are bucketed <= 1, 3, 5, 10, 30, 100 m and > 100 m.
- Transceivers: links of medium ``optical`` need one module per end (the cable's transceiver).
  On a port group with ``per_cage`` > 1 (twin-port OSFP cages) the optical ends in one cage
  share one twin-port module of the matching fibre; each cage counts on its own (ports
  ``1..per_cage`` are cage 1, and so on), so optics spread over N cages need N modules. The
  module carries the cage's rate (per_cage x port speed): on a switch whose 800G ports are broken
  out 4 ways, four 200G ends share one 800G twin-port module. A cage
  mixing media or modules (see ``designer.analysis.common.cages``) cannot be built: each module in it
  is counted as a module of its own and a note names the cages.
- Board connections are not cables; they are counted in ``board_links`` only.

Power in W, prices in indicative USD (see the catalog's ``sources`` for each figure).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from designer.analysis.common.cages import cage_of, end_medium
from designer.analysis.common.findings import (
    UNPRICED,
    catalog_gaps,
    is_uncabled,
    is_unpriced_device,
    not_in_catalog,
    zero_length_summary,
)
from designer.model import BOARD_MEDIA, DEVICE_KINDS, Design
from designer.model.catalog import Catalog, Transceiver, builtin_catalog
from designer.model.units import count, plural

#: Upper bounds of the cable length buckets, metres (the last bucket is "> 100 m").
LENGTH_BUCKETS_M = (1.0, 3.0, 5.0, 10.0, 30.0, 100.0)
CATEGORIES = (*DEVICE_KINDS, "cable", "transceiver")


def length_bucket(length_m: float) -> str:
    """The bucket label of a cable length: ``<=1 m`` ... ``<=100 m``, ``>100 m``.

    >>> length_bucket(3.0), length_bucket(3.5), length_bucket(250)
    ('<=3 m', '<=5 m', '>100 m')
    """
    for b in LENGTH_BUCKETS_M:
        if length_m <= b + 1e-9:
            return f"<={b:g} m"
    return f">{LENGTH_BUCKETS_M[-1]:g} m"


@dataclass(frozen=True)
class BomLine:
    """One line: ``quantity`` items with their unit power (W) and unit price (USD, mean over the line).

    ``tier`` is set for switches; ``medium``, ``between`` (e.g. ``leaf-spine``, ``node-leaf``)
    and ``length_bucket`` for cables.
    """

    category: str
    item: str
    name: str
    quantity: int
    unit_power_w: float
    unit_price_usd: float
    tier: str = ""
    medium: str = ""
    between: str = ""
    length_bucket: str = ""
    #: items of the line with no figure of their own, counted at 0 W, $0 (a custom device without
    #: ``power_w`` / ``price_usd``, a link without a catalog cable): a report says "not priced"
    unpriced: int = 0

    @property
    def power_w(self) -> float:
        return self.quantity * self.unit_power_w

    @property
    def price_usd(self) -> float:
        return self.quantity * self.unit_price_usd


@dataclass(frozen=True)
class Bom:
    """A bill of materials: lines, totals, board connections and notes on what could not be priced."""

    design: str
    lines: tuple[BomLine, ...]
    board_links: tuple[tuple[str, int], ...]
    notes: tuple[str, ...]

    @property
    def total_power_w(self) -> float:
        return sum(line.power_w for line in self.lines)

    @property
    def total_price_usd(self) -> float:
        return sum(line.price_usd for line in self.lines)

    def quantity(self, category: str, *, item: str | None = None, tier: str | None = None,
                 between: str | None = None, medium: str | None = None) -> int:
        """Total quantity of the lines matching every given field."""
        return sum(
            line.quantity for line in self.lines
            if line.category == category
            and (item is None or line.item == item)
            and (tier is None or line.tier == tier)
            and (between is None or line.between == between)
            and (medium is None or line.medium == medium)
        )


def _role(tier: str) -> str:
    return tier or "node"


_TIER_ORDER = {"node": 0, "edge": 1, "leaf": 1, "router": 1, "aggregation": 2, "spine": 2, "core": 3}


def _between(a: str, b: str) -> str:
    lo, hi = sorted((a, b), key=lambda t: (_TIER_ORDER.get(t, 4), t))
    return f"{lo}-{hi}"


def _between_rank(between: str) -> tuple[int, ...]:
    return tuple(sorted((_TIER_ORDER.get(t, 4) for t in between.split("-", 1)), reverse=True))


def twin_module(catalog: Catalog, base: Transceiver, per_cage: int,
                port_gbps: float | None = None) -> Transceiver | None:
    """The multi-port module carrying ``per_cage`` links of ``base``'s kind in one cage, if any.

    The module's rate is the cage's: ``per_cage`` x the port speed ``port_gbps`` (default: the
    rate of ``base``), so a cage of four 200G breakout ports takes one 800G twin-port module whose
    fibres split to 200G single-port modules (NVIDIA MMS4X00-NS400: '200Gb/s mode ... 1:2 splitter
    fiber cables ... creates links to four 200Gb/s ConnectX-7/OSFP cards').
    """
    rate = (port_gbps if port_gbps else base.rate_gbps) * per_cage
    cands = [
        t for t in catalog.transceivers.values()
        if t.fibre == base.fibre and abs(t.rate_gbps - rate) < 1e-6 and t.reach_m >= base.reach_m
    ]
    return min(cands, key=lambda t: (t.reach_m, t.id)) if cands else None


def bill_of_materials(design: Design, catalog: Catalog | None = None) -> Bom:
    """Count a design's devices, cables and optics, with unit and total power and price.

    Examples
    --------
    >>> from designer.model import Design, Device, Link, PortGroup
    >>> d = Design("pair")
    >>> net = (PortGroup("p", 1, 400.0),)
    >>> _ = d.add_device(Device("a", "switch", net, tier="leaf"))
    >>> _ = d.add_device(Device("b", "switch", net, tier="spine"))
    >>> _ = d.add_link(Link("l", "a", "p1", "b", "p1", medium="optical", length_m=20, cable="sr4-400g-mm"))
    >>> bom = bill_of_materials(d)
    >>> bom.quantity("cable", between="leaf-spine"), bom.quantity("transceiver")
    (1, 2)
    """
    if catalog is None:
        catalog = builtin_catalog()
    devices = {d.id: d for d in design.iter_devices()}
    notes = _catalog_gap_notes(design, catalog)
    dev_count = _count_devices(devices, catalog, notes)
    notes += _server_template_notes(design)
    cabling = _count_links(design, devices, catalog, notes)
    modules = _count_modules(devices, catalog, cabling, notes)
    lines = (*_device_lines(dev_count), *_cable_lines(cabling.cables, catalog), *_module_lines(modules, catalog))
    return Bom(design.name, lines, tuple(sorted(cabling.board.items())), tuple(notes))


#: Per line key: [quantity, total power W, total price USD(, items without figures)].
_Acc = dict[tuple[str, str, str, str], list[float]]


@dataclass
class _DeviceCount:
    """Devices summed per (kind, model, tier, name) key, with each key's line name."""

    acc: _Acc
    names: dict[tuple[str, str, str, str], str]


@dataclass
class _Cabling:
    """What the links add up to: cables per line key, board connections per medium, optical ends
    needing a module of their own, and per twin-port cage its optical ends by module and its media."""

    cables: _Acc
    board: dict[str, int]
    single_modules: dict[str, int]
    #: (device, port group, cage) -> [optical ends by module, media of every end in the cage]
    cages: dict[tuple[str, int, int], tuple[dict[str, int], set[str]]]


def _catalog_gap_notes(design: Design, catalog: Catalog) -> list[str]:
    """Notes on device models and cables the catalog does not know (not priced)."""
    notes: list[str] = []
    gaps = catalog_gaps(design, catalog)  # the same check as the unknown-model / unknown-cable rules
    if gaps.models:
        notes.append(f"{not_in_catalog('model', gaps.models, 'device')}: {UNPRICED} unless the device "
                     "gives power_w/price_usd")
    if gaps.cables:
        notes.append(f"{not_in_catalog('cable', gaps.cables, 'link')}: {UNPRICED}")
    return notes


def _device_figures(dev, catalog: Catalog) -> tuple[tuple[str, str, str, str], str, float, float, bool]:
    """A device's line key, line name, unit power and price, and whether it is catalog-priced."""
    comp = catalog.components.get(dev.model) if dev.model else None
    if comp is not None:
        return (dev.kind, comp.id, dev.tier, ""), comp.name, comp.power_w, comp.price_usd, True
    power = float(dev.properties.get("power_w", 0.0) or 0.0)
    price = float(dev.properties.get("price_usd", 0.0) or 0.0)
    based_on = dev.properties.get("based_on")
    # a line per model, not per device: an imported device's part (what the import read it as:
    # a switch's part number, an adapter's ports and rate), else its model description (every
    # host adapter of one make reads alike), before its own name (a host name)
    described = str(dev.properties.get("part") or dev.properties.get("description") or "")
    name = described or dev.name or (f"{dev.kind} ({based_on}-class)" if based_on else f"custom {dev.kind}")
    return (dev.kind, dev.model, dev.tier, name), name, power, price, False


def _count_devices(devices: dict, catalog: Catalog, notes: list[str]) -> _DeviceCount:
    """Sum the devices per line; note the custom devices with no figures."""
    dev_lines: _Acc = {}
    dev_names: dict[tuple[str, str, str, str], str] = {}
    unpriced = 0
    for dev in devices.values():
        key, name, power, price, in_catalog = _device_figures(dev, catalog)
        acc = dev_lines.setdefault(key, [0, 0.0, 0.0, 0])
        acc[0] += 1
        acc[1] += power
        acc[2] += price
        if not in_catalog and is_unpriced_device(dev):
            unpriced += 1
            acc[3] += 1
        dev_names.setdefault(key, name)
    if unpriced:
        notes.append(f"{count(unpriced, 'custom device')} with no catalog model and no power_w/price_usd: "
                     f"{UNPRICED}")
    return _DeviceCount(dev_lines, dev_names)


def _server_template_notes(design: Design) -> list[str]:
    """One note per server template: how many server groups were stamped from it."""
    servers: dict[str, int] = defaultdict(int)
    for group in design.iter_groups():
        template = group.properties.get("server") if group.kind == "server" else None
        if isinstance(template, str) and template:
            servers[template] += 1
    return [f"{count(n, 'server')} of one template: {template} (its GPUs and NVLink switch are on the "
            "lines above)" for template, n in sorted(servers.items())]


def _count_links(design: Design, devices: dict, catalog: Catalog, notes: list[str]) -> _Cabling:
    """Sum the cables per line, the board connections, and the optical ends per module and cage;
    note the links with no cable, zero length or no transceiver."""
    out = _Cabling({}, defaultdict(int), defaultdict(int), {})
    media_cache: dict[tuple[str, str], str] = {}
    no_module = 0
    unknown_cables = 0
    zero_length: list[str] = []
    for link in design.iter_links():
        if link.medium in BOARD_MEDIA:
            out.board[link.medium] += 1
            continue
        da, db = devices[link.a_device], devices[link.b_device]
        cab = catalog.cables.get(link.cable) if link.cable else None
        if cab is None and is_uncabled(link):  # an unknown cable id has its own note (catalog_gaps)
            unknown_cables += 1
        if link.length_m == 0:
            zero_length.append(link.id)
        _add_cable(out.cables, link, cab, _between(_role(da.tier), _role(db.tier)))
        mkey = (link.medium, link.cable)
        medium = media_cache.get(mkey)
        if medium is None:
            medium = media_cache[mkey] = end_medium(link, catalog)
        ends = ((da, cage_of(da, link.a_port)), (db, cage_of(db, link.b_port)))
        for dev, where in ends:
            if where is not None:
                out.cages.setdefault((dev.id, *where), ({}, set()))[1].add(medium)
        if link.medium != "optical":
            continue
        module = cab.transceiver if cab is not None else None
        if not module or module not in catalog.transceivers:
            no_module += 2
            continue
        _add_optical_ends(out, module, ends)
    if unknown_cables:
        notes.append(f"{count(unknown_cables, 'network link')} with no cable chosen: {UNPRICED}")
    if zero_length:
        notes.append(zero_length_summary(zero_length))
    if no_module:
        notes.append(f"{count(no_module, 'optical link end')} {plural(no_module, 'has', 'have')} no catalog "
                     "transceiver: not counted")
    return out


def _add_cable(cable_acc: _Acc, link, cab, between: str) -> None:
    """Add one link to its cable line: the cable's price at its standard length, 2 ends' power."""
    if cab is not None:
        length = cab.standard_length(link.length_m)
        price = cab.price_usd + cab.price_usd_per_m * length
        power = 2 * cab.power_w_per_end
    else:
        price = power = 0.0
    key = (link.cable, link.medium, between, length_bucket(link.length_m))
    acc = cable_acc.setdefault(key, [0, 0.0, 0.0])
    acc[0] += 1
    acc[1] += power
    acc[2] += price


def _add_optical_ends(out: _Cabling, module: str, ends) -> None:
    """Count an optical link's two ends: in their twin-port cage, else as single modules."""
    for dev, where in ends:
        if where is not None:
            by_module = out.cages[(dev.id, *where)][0]
            by_module[module] = by_module.get(module, 0) + 1
        else:
            out.single_modules[module] += 1


def _count_modules(devices: dict, catalog: Catalog, cabling: _Cabling, notes: list[str]) -> dict[str, int]:
    """Transceivers by id: single ends one each, a cage's ends of one module one twin-port module
    (each on its own when the catalog has no such module); note the cages mixing media."""
    modules: dict[str, int] = defaultdict(int, cabling.single_modules)
    twin_cache: dict[tuple[str, int, float], Transceiver | None] = {}
    mixed: list[str] = []
    for (dev_id, gi, cage), (by_module, media) in cabling.cages.items():
        if len(media) > 1:
            mixed.append(f"{dev_id} cage {cage}")
        group = devices[dev_id].ports[gi]
        per_cage = group.per_cage
        for module, ends in by_module.items():
            tkey = (module, per_cage, group.speed_gbps)
            if tkey not in twin_cache:
                twin_cache[tkey] = twin_module(catalog, catalog.transceivers[module], per_cage, group.speed_gbps)
            twin = twin_cache[tkey]
            if twin is None:
                modules[module] += ends
            else:
                modules[twin.id] += 1
    if mixed:
        notes.append(
            f"{count(len(mixed), 'twin-port cage')} {plural(len(mixed), 'mixes', 'mix')} media or modules "
            f"({', '.join(mixed[:3])}{'...' if len(mixed) > 3 else ''}): one cage takes one module or cable end, "
            "so this cannot be built as designed; each module in such a cage is counted on its own")
    return modules


def _device_lines(dev_count: _DeviceCount) -> list[BomLine]:
    """The device lines, by category, then tier from the nodes up, then key."""
    order = {c: i for i, c in enumerate(CATEGORIES)}
    lines = []
    for key, (qty, power, price, no_figures) in sorted(
        dev_count.acc.items(),
        key=lambda kv: (order.get(kv[0][0], 9), _TIER_ORDER.get(kv[0][2] or "node", 4), kv[0]),
    ):
        kind, item, tier, _ = key
        lines.append(BomLine(kind, item, dev_count.names[key], int(qty), power / qty, price / qty, tier=tier,
                             unpriced=int(no_figures)))
    return lines


def _cable_lines(cable_acc: _Acc, catalog: Catalog) -> list[BomLine]:
    """The cable lines, from the top tier down, then by length bucket, medium and cable."""
    bucket_order = {length_bucket(b): i for i, b in enumerate(LENGTH_BUCKETS_M)}
    lines = []
    for (cable_id, medium, between, bucket), (qty, power, price) in sorted(
        cable_acc.items(),
        key=lambda kv: (_between_rank(kv[0][2]), kv[0][2], bucket_order.get(kv[0][3], 99), kv[0][1], kv[0][0]),
    ):
        cab = catalog.cables.get(cable_id)
        name = cab.name if cab is not None else f"{medium.replace('_', ' ')} (no catalog cable)"
        lines.append(BomLine("cable", cable_id, name, int(qty), power / qty, price / qty,
                             medium=medium, between=between, length_bucket=bucket,
                             unpriced=int(qty) if cab is None else 0))
    return lines


def _module_lines(modules: dict[str, int], catalog: Catalog) -> list[BomLine]:
    """The transceiver lines, by module id."""
    lines = []
    for module, qty in sorted(modules.items()):
        t = catalog.transceivers[module]
        lines.append(BomLine("transceiver", module, t.name, qty, t.power_w, t.price_usd))
    return lines
