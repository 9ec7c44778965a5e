"""The component catalog: device models and cables with their published figures.

The built-in catalog is ``resources/catalog/*.json``, shipped with the program and read once
(:func:`builtin_catalog`, never changed). A user catalog file of the same format is merged over a
copy of it (same id replaces, new ids are added): the user's files are read by
:mod:`designer.io.catalog_files`, and the front ends pass the merged catalog to whatever needs one.
The model holds no catalog a command or a test can swap. Every figure carries its source in the
file's ``sources`` map. Units: port ``speed_gbps`` and cable ``rate_gbps`` are per-direction line
rates in Gb/s; power in W; prices in USD (indicative); lengths in m.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from designer.model.entities import DEVICE_KINDS, MAX_POWER_W, MAX_PRICE_USD, MEDIA, Device, Link, PortGroup
from designer.model.errors import DesignError
from designer.model.fields import FieldError, as_list, as_number, as_text, parse_json
from designer.model.shipped import resources_dir

if TYPE_CHECKING:
    from designer.model.design import Design

_A_DEVICE, _B_DEVICE = attrgetter("a_device"), attrgetter("b_device")
CATALOG_FORMAT = "topo-designer-catalog"
CATALOG_VERSION = 1
MAX_CATALOG_BYTES = 8 * 1024 * 1024


#: The media whose efficiency (effective over line rate) a catalog may set, as the analysis names them: board
#: links (NVLink, PCIe), network links by protocol, and direct chip-to-chip links.
EFFICIENCY_MEDIA = ("nvlink", "pcie", "infiniband", "ethernet", "direct")


class CatalogError(DesignError):
    """A catalog file is unreadable or holds an invalid entry."""


@dataclass(frozen=True)
class Component:
    """A device model: GPU, NIC, NVLink switch fabric, network switch or storage node."""

    id: str
    kind: str
    name: str
    vendor: str
    ports: tuple[PortGroup, ...]
    power_w: float = 0.0
    price_usd: float = 0.0
    latency_ns: float = 0.0
    specs: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    sources: dict[str, str] = field(default_factory=dict, hash=False, compare=False)

    def make_device(self, device_id: str, **kwargs: Any) -> Device:
        """A new design device of this model (ports copied from the catalog)."""
        return Device(device_id, self.kind, self.ports, model=self.id, **kwargs)

    def port_speed_gbps(self, kind: str) -> float:
        """The speed of this model's first port of a kind (0 if none)."""
        for g in self.ports:
            if g.kind == kind:
                return g.speed_gbps
        return 0.0

    @property
    def breakouts(self) -> tuple[int, ...]:
        """The ways each network port may be split (``specs.breakout``, e.g. ``(2, 4)``; empty: none)."""
        raw = self.specs.get("breakout") or ()
        return tuple(int(n) for n in raw if isinstance(n, int) and not isinstance(n, bool) and n > 1)

    def broken_out(self, n: int) -> Component:
        """This model with every network port split ``n`` ways (see :func:`breakout_ports`)."""
        if n == 1:
            return self
        return dataclasses.replace(self, ports=breakout_ports(self.ports, n))

    @property
    def scale_up_links(self) -> int:
        """The NVLink (scale-up) links behind this model's NVLink ports: the ``lanes`` of its ``nvlink``
        port groups (an H100 SXM's one 3600 Gb/s port is 18 NVLink4 links; 0 without NVLink)."""
        return sum(g.count * g.lanes for g in self.ports if g.kind == "nvlink")

    def split_scale_up(self, n: int) -> Component:
        """This model with its NVLink links gathered into ``n`` ports per NVLink port instead of one
        (see :func:`split_scale_up_ports`): a GPU with direct links to ``n`` peers."""
        if n == 1:
            return self
        return dataclasses.replace(self, ports=split_scale_up_ports(self.ports, n))


def breakout_ports(ports: tuple[PortGroup, ...], n: int) -> tuple[PortGroup, ...]:
    """Port groups with each network port split into ``n`` logical ports (breakout cabling).

    A port of speed S and L lanes becomes ``n`` ports of S/n and L/n lanes in the same physical
    cage, so a group's ``per_cage`` is multiplied by ``n`` and its cage count stays: an 800G OSFP
    port broken out 2 ways is two 400G ports in one cage (one twin-port module or one splitter
    cable end), as a QM9700 lists its 64 NDR ports in 32 cages. Board ports are unchanged.

    >>> g = breakout_ports((PortGroup("p", 64, 800.0, lanes=8),), 2)[0]
    >>> g.count, g.speed_gbps, g.lanes, g.per_cage
    (128, 400.0, 4, 2)
    """
    out = []
    for g in ports:
        if g.kind != "network" or n == 1:
            out.append(g)
            continue
        out.append(PortGroup(g.prefix, g.count * n, g.speed_gbps / n, g.kind, g.form_factor,
                             max(1, g.lanes // n), g.per_cage * n))
    return tuple(out)


def split_scale_up_ports(ports: tuple[PortGroup, ...], n: int) -> tuple[PortGroup, ...]:
    """Port groups with each NVLink port split into ``n`` ports of 1/n its rate and links.

    A GPU's catalog model lists its NVLink links as one aggregated port (H100 SXM: 18 links of
    25 GB/s per direction = one 3600 Gb/s port), which suits an NVSwitch board. A GPU linked
    directly to its peers (a mesh, a bridge, a hybrid cube-mesh) has one port per peer link: the
    same links in ``n`` ports of speed S/n and L/n lanes (at least 1). Other ports are unchanged.

    >>> g = split_scale_up_ports((PortGroup("xgmi", 1, 3584.0, "nvlink", lanes=7),), 7)[0]
    >>> g.count, g.speed_gbps, g.lanes
    (7, 512.0, 1)
    """
    return tuple(
        PortGroup(g.prefix, g.count * n, g.speed_gbps / n, g.kind, g.form_factor, max(1, g.lanes // n), g.per_cage)
        if g.kind == "nvlink" and n > 1 else g
        for g in ports
    )


@dataclass(frozen=True)
class Transceiver:
    id: str
    name: str
    form_factor: str
    rate_gbps: float
    reach_m: float
    fibre: str | None
    power_w: float
    price_usd: float
    sources: dict[str, str] = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class Cable:
    """A cable model (or a board connection for media ``nvlink`` and ``pcie``)."""

    id: str
    name: str
    medium: str
    rate_gbps: float
    reach_m: float
    lengths_m: tuple[float, ...] = ()
    latency_ns_per_m: float = 5.0
    power_w_per_end: float = 0.0
    price_usd: float = 0.0
    price_usd_per_m: float = 0.0
    transceiver: str | None = None
    fibre: str | None = None
    sources: dict[str, str] = field(default_factory=dict, hash=False, compare=False)

    def standard_length(self, length_m: float) -> float:
        """The shortest orderable length covering ``length_m`` (the length itself if none listed)."""
        for ln in sorted(self.lengths_m):
            if ln >= length_m - 1e-9:
                return ln
        return length_m


class Catalog:
    """Components, cables and transceivers by id."""

    def __init__(self) -> None:
        self.components: dict[str, Component] = {}
        self.cables: dict[str, Cable] = {}
        self.transceivers: dict[str, Transceiver] = {}
        self.origins: dict[str, str] = {}
        #: Per-medium efficiency set by a catalog file (an overlay ``compare --fit`` writes), replacing the
        #: analyzer's default for that medium, and the source each file gives for it.
        self.efficiency: dict[str, float] = {}
        self.efficiency_sources: dict[str, str] = {}
        #: Set on the built-in catalog, which every caller shares: merging into it raises.
        self.frozen = False

    def copy(self) -> Catalog:
        """A catalog holding the same entries, which can be merged into (entries are immutable, shared)."""
        out = copy.copy(self)
        for name in ("components", "cables", "transceivers", "origins", "efficiency", "efficiency_sources"):
            setattr(out, name, dict(getattr(self, name)))
        out.frozen = False
        return out

    def component(self, model_id: str) -> Component:
        try:
            return self.components[model_id]
        except KeyError:
            raise CatalogError(f"no component {model_id!r} in the catalog") from None

    def cable(self, cable_id: str) -> Cable:
        try:
            return self.cables[cable_id]
        except KeyError:
            raise CatalogError(f"no cable {cable_id!r} in the catalog") from None

    def by_kind(self, kind: str) -> list[Component]:
        return [c for c in self.components.values() if c.kind == kind]

    def cables_for(self, rate_gbps: float, medium: str | None = None) -> list[Cable]:
        """Cables whose rate is at least ``rate_gbps`` (optionally of one medium), shortest reach first."""
        out = [
            c
            for c in self.cables.values()
            if c.rate_gbps >= rate_gbps - 1e-9 and (medium is None or c.medium == medium)
        ]
        return sorted(out, key=lambda c: (c.reach_m, c.rate_gbps, c.id))

    def choose_cable(self, rate_gbps: float, length_m: float, *, board: str | None = None,
                     medium: str | None = None) -> Cable | None:
        """The cheapest-to-run cable for a link: copper if it reaches, else AOC/optics.

        ``board`` selects the ``nvlink`` or ``pcie`` board connection instead; ``medium`` keeps to
        one cable medium (None: any). None when no cable of the rate reaches.
        """
        if board is not None:
            cands = [c for c in self.cables.values() if c.medium == board]
            return min(cands, key=lambda c: c.id) if cands else None
        order = {"passive_copper": 0, "active_copper": 1, "aoc": 2, "optical": 3}
        cands = [
            c
            for c in self.cables.values()
            if c.medium in order and (medium is None or c.medium == medium)
            and c.reach_m >= length_m - 1e-9 and c.rate_gbps >= rate_gbps - 1e-9
        ]
        if not cands:
            return None
        # Prefer the exact rate class (a 400G port takes a 400G cable, not an 800G one), then medium.
        return min(cands, key=lambda c: (c.rate_gbps, order[c.medium], c.reach_m, c.id))

    def merge(self, data: dict[str, Any], origin: str) -> None:
        """Merge one parsed catalog file (entries with an existing id replace it)."""
        if self.frozen:
            raise TypeError("the built-in catalog is shared and never changed: merge into builtin_catalog().copy()")
        for comp in _entries(data, "components", origin):
            c = _component(comp, origin)
            self.components[c.id] = c
            self.origins[c.id] = origin
        for cab in _entries(data, "cables", origin):
            c2 = _cable(cab, origin)
            self.cables[c2.id] = c2
            self.origins[c2.id] = origin
        for tr in _entries(data, "transceivers", origin):
            t = _transceiver(tr, origin)
            self.transceivers[t.id] = t
            self.origins[t.id] = origin
        for medium, (value, source) in _efficiency(data.get("efficiency", {}), origin).items():
            self.efficiency[medium] = value
            self.efficiency_sources[medium] = source


def line_rate_gbps(a_port_gbps: float, b_port_gbps: float, cable: Cable | None) -> float:
    """The rule for a link's per-direction line rate: the slowest of its two ports and its cable.

    ``cable`` is the link's catalog cable, or None when it names none the catalog has (the ports
    alone set the rate). Every figure of a link's rate (rules, analysis, the window) comes from here.

    >>> line_rate_gbps(800.0, 800.0, None), line_rate_gbps(800.0, 400.0, None)
    (800.0, 400.0)
    """
    if cable is None:
        return min(a_port_gbps, b_port_gbps)
    return min(a_port_gbps, b_port_gbps, cable.rate_gbps)


def link_rate_gbps(design: Design, link: Link, catalog: Catalog | None = None) -> float:
    """The per-direction line rate of ``link`` in Gb/s: :func:`line_rate_gbps` of its ports and cable,
    and no more than the rate it negotiated when discovery recorded one (:func:`negotiated_gbps`).

    ``catalog`` is where the link's ``cable`` is looked up (None: :func:`builtin_catalog`); a cable
    the catalog lacks does not limit the rate. A port the device lacks counts as 0 Gb/s. The
    analysis gives a link this rate (capped at its ``MAX_LINK_GBPS``) and leaves it out under
    ``MIN_LINK_GBPS``.
    """
    return link_rates_gbps(design, (link,), catalog)[0]


def link_rates_gbps(design: Design, links: Iterable[Link], catalog: Catalog | None = None) -> list[float]:
    """:func:`link_rate_gbps` of each of ``links``, in order, for many links at once (a canvas
    bundle, a whole design): the rate of each distinct pair of port groups, ports and cable is
    worked out once. Links whose devices share a model share their port-group tuple, so a
    131,072-GPU fabric's 655,360 links come to a few dozen distinct rates."""
    if catalog is None:
        catalog = builtin_catalog()
    cables = catalog.cables
    links = links if isinstance(links, list) else list(links)
    ends_a = design.devices_named(map(_A_DEVICE, links))
    ends_b = design.devices_named(map(_B_DEVICE, links))
    #: (id of a's port groups, a's port, id of b's, b's port, cable) -> rate; the tuples stay alive
    #: in the design's devices while this runs, so their ids stay theirs.
    known: dict[tuple[int, str, int, str, str], float] = {}
    out: list[float] = []
    for link, da, db in zip(links, ends_a, ends_b, strict=True):
        key = (id(da.ports), link.a_port, id(db.ports), link.b_port, link.cable)
        rate = known.get(key)
        if rate is None:
            a, b = da.port(link.a_port), db.port(link.b_port)
            cable = cables.get(link.cable) if link.cable else None
            rate = known[key] = line_rate_gbps(a.speed_gbps if a else 0.0, b.speed_gbps if b else 0.0, cable)
        if link.properties:
            negotiated = negotiated_gbps(link)
            if negotiated is not None:
                rate = min(rate, negotiated)
        out.append(rate)
    return out


def negotiated_gbps(link: Link) -> float | None:
    """The rate a discovered link trained to (``properties.negotiated_gbps``, set by an import when it
    is below the link's ports: a degraded link), or None. It caps the link's rate wherever a rate is
    read, as the cable does.

    >>> negotiated_gbps(Link("l", "a", "p1", "b", "p1", properties={"negotiated_gbps": 16.0}))
    16.0
    """
    value = link.properties.get("negotiated_gbps") if link.properties else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        return None
    return float(value)


def port_rate_gbps(design: Design, link: Link) -> float:
    """The rate ``link``'s ports run at (the slower of the two), in Gb/s: what its cable must carry.

    Not the link's rate, which its cable may lower (:func:`link_rate_gbps`); this is the figure
    to choose a cable by.
    """
    a = design.device(link.a_device).port(link.a_port)
    b = design.device(link.b_device).port(link.b_port)
    return line_rate_gbps(a.speed_gbps if a else 0.0, b.speed_gbps if b else 0.0, None)


def _num(obj: dict[str, Any], key: str, where: str, default: float | None = None,
         maximum: float = math.inf) -> float:
    v = obj.get(key, default)
    if v is None:
        raise CatalogError(f"{where}: missing {key!r}")
    try:
        return as_number(v, f"{where}: {key}", minimum=0.0, maximum=maximum)
    except FieldError as e:
        raise CatalogError(str(e)) from None


def _str(obj: dict[str, Any], key: str, where: str, default: str | None = None) -> str:
    try:
        return as_text(obj.get(key, default), f"{where}: {key}")
    except FieldError as e:
        raise CatalogError(str(e)) from None


def _entries(data: dict[str, Any], key: str, origin: str) -> list[Any]:
    try:
        return as_list(data.get(key, []), f"{origin}: {key}")
    except FieldError as e:
        raise CatalogError(str(e)) from None


def _sources(obj: dict[str, Any], where: str) -> dict[str, str]:
    s = obj.get("sources", {})
    if not isinstance(s, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in s.items()):
        raise CatalogError(f"{where}: sources must map field names to citation text")
    return dict(s)


def _component(obj: Any, origin: str) -> Component:
    if not isinstance(obj, dict):
        raise CatalogError(f"{origin}: a component must be an object")
    cid = _str(obj, "id", origin)
    where = f"{origin}: component {cid!r}"
    kind = _str(obj, "kind", where)
    if kind not in DEVICE_KINDS:
        raise CatalogError(f"{where}: kind must be one of {', '.join(DEVICE_KINDS)}")
    ports_raw = obj.get("ports")
    if not isinstance(ports_raw, list) or not ports_raw:
        raise CatalogError(f"{where}: ports must be a non-empty list")
    ports = []
    for i, p in enumerate(ports_raw):
        if not isinstance(p, dict):
            raise CatalogError(f"{where}: ports[{i}] must be an object")
        try:
            ports.append(
                PortGroup(
                    prefix=p.get("prefix"),
                    count=p.get("count"),
                    speed_gbps=p.get("speed_gbps"),
                    kind=p.get("kind", "network"),
                    form_factor=p.get("form_factor", ""),
                    lanes=p.get("lanes", 1),
                    per_cage=p.get("per_cage", 1),
                )
            )
        except DesignError as e:
            raise CatalogError(f"{where}: ports[{i}]: {e}") from None
    specs = obj.get("specs", {})
    if not isinstance(specs, dict):
        raise CatalogError(f"{where}: specs must be an object")
    return Component(
        id=cid,
        kind=kind,
        name=_str(obj, "name", where, cid),
        vendor=_str(obj, "vendor", where, ""),
        ports=tuple(ports),
        power_w=_num(obj, "power_w", where, 0.0, MAX_POWER_W),
        price_usd=_num(obj, "price_usd", where, 0.0, MAX_PRICE_USD),
        latency_ns=_num(obj, "latency_ns", where, 0.0),
        specs=dict(specs),
        sources=_sources(obj, where),
    )


def _cable(obj: Any, origin: str) -> Cable:
    if not isinstance(obj, dict):
        raise CatalogError(f"{origin}: a cable must be an object")
    cid = _str(obj, "id", origin)
    where = f"{origin}: cable {cid!r}"
    medium = _str(obj, "medium", where)
    if medium not in MEDIA:
        raise CatalogError(f"{where}: medium must be one of {', '.join(MEDIA)}")
    lengths = obj.get("lengths_m", [])
    if not isinstance(lengths, list):
        raise CatalogError(f"{where}: lengths_m must be a list")
    tr = obj.get("transceiver")
    fibre = obj.get("fibre")
    return Cable(
        id=cid,
        name=_str(obj, "name", where, cid),
        medium=medium,
        rate_gbps=_num(obj, "rate_gbps", where),
        reach_m=_num(obj, "reach_m", where),
        lengths_m=tuple(_num({"l": v}, "l", f"{where}: lengths_m") for v in lengths),
        latency_ns_per_m=_num(obj, "latency_ns_per_m", where, 5.0),
        power_w_per_end=_num(obj, "power_w_per_end", where, 0.0),
        price_usd=_num(obj, "price_usd", where, 0.0, MAX_PRICE_USD),
        price_usd_per_m=_num(obj, "price_usd_per_m", where, 0.0),
        transceiver=tr if isinstance(tr, str) else None,
        fibre=fibre if isinstance(fibre, str) else None,
        sources=_sources(obj, where),
    )


def _transceiver(obj: Any, origin: str) -> Transceiver:
    if not isinstance(obj, dict):
        raise CatalogError(f"{origin}: a transceiver must be an object")
    tid = _str(obj, "id", origin)
    where = f"{origin}: transceiver {tid!r}"
    fibre = obj.get("fibre")
    return Transceiver(
        id=tid,
        name=_str(obj, "name", where, tid),
        form_factor=_str(obj, "form_factor", where, ""),
        rate_gbps=_num(obj, "rate_gbps", where),
        reach_m=_num(obj, "reach_m", where),
        fibre=fibre if isinstance(fibre, str) else None,
        power_w=_num(obj, "power_w", where, 0.0, MAX_POWER_W),
        price_usd=_num(obj, "price_usd", where, 0.0, MAX_PRICE_USD),
        sources=_sources(obj, where),
    )


def _efficiency(obj: Any, origin: str) -> dict[str, tuple[float, str]]:
    """``{"infiniband": {"value": 0.9, "source": "..."}}``: a value in (0, 1] and its source, per medium."""
    if not isinstance(obj, dict):
        raise CatalogError(f"{origin}: efficiency must be an object of media")
    out = {}
    for medium, entry in obj.items():
        where = f"{origin}: efficiency {medium!r}"
        if medium not in EFFICIENCY_MEDIA:
            raise CatalogError(f"{where}: the medium must be one of {', '.join(EFFICIENCY_MEDIA)}")
        if not isinstance(entry, dict):
            raise CatalogError(f"{where}: must be an object with value and source")
        value = _num(entry, "value", where)
        if not 0 < value <= 1:
            raise CatalogError(f"{where}: value must be above 0 and at most 1, not {value:g}")
        out[medium] = (value, _str(entry, "source", where))
    return out


def parse_catalog(raw: bytes, source: str) -> dict[str, Any]:
    """The parsed document of one catalog file's bytes, its envelope (format, version) checked.

    ``source`` names the file in every error. The entries are checked when merged (:meth:`Catalog.merge`).
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise CatalogError(f"{source}: not UTF-8 text (byte {e.start:,})") from None
    if not text.strip():
        raise CatalogError(f"{source}: file is empty")
    data = parse_json(text, source, "a catalog file", CatalogError)
    if not isinstance(data, dict) or data.get("format") != CATALOG_FORMAT:
        raise CatalogError(f"{source}: not a catalog file (format must be {CATALOG_FORMAT!r})")
    if data.get("version") != CATALOG_VERSION:
        raise CatalogError(
            f"{source}: catalog version {data.get('version')!r} is not supported (expected {CATALOG_VERSION})"
        )
    return data


@functools.cache
def builtin_catalog() -> Catalog:
    """The catalog shipped with the program (``resources/catalog/*.json``), read once and shared.

    It is frozen: a catalog with the user's files merged is :func:`designer.io.catalog_files.load_catalog`,
    built on a copy. The analysis and the generators use this one when they are given no catalog.
    """
    folder = resources_dir() / "catalog"
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if not files:
        raise CatalogError(f"built-in catalog not found in {folder}: is the package installed completely?")
    cat = Catalog()
    for f in files:
        if f.stat().st_size > MAX_CATALOG_BYTES:
            raise CatalogError(f"{f}: over {MAX_CATALOG_BYTES // 2**20} MiB, not a catalog file")
        cat.merge(parse_catalog(f.read_bytes(), f.name), f.name)
    cat.frozen = True
    return cat
