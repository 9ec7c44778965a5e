"""Shared machinery of the generators: a fast design builder and its cabling (parameters are in
:mod:`designer.generators.params`, the floor plan and each device's ports and cages in
:mod:`designer.generators.physical`).

The :class:`Builder` collects groups, devices and links in plain lists (no per-item search),
hands out network ports in order, places devices in racks on a floor and picks each cable by
the length that floor gives it. ``Builder.design()`` adds everything with one ``Design.extend``.
"""

from __future__ import annotations

import dataclasses
from itertools import chain
from typing import Any

import numpy as np

from designer.generators.params import GeneratorError, setting
from designer.generators.physical import FULL, FloorPlan, PortState, cage_key
from designer.model import BOARD_MEDIA, COPPER_MEDIA, Design, Device, Group, Link, PortGroup
from designer.model.bulk import checked_device, checked_link
from designer.model.catalog import Cable, Catalog, Component, builtin_catalog
from designer.model.entities import check_coord, check_id
from designer.model.errors import InvalidValueError
from designer.model.units import line_rate


class _ReachError(GeneratorError):
    """No catalog cable reaches a link's length (the floor plan may be the cause)."""


# --------------------------------------------------------------------------- canvas layout
# The canvas draws every group as a frame FRAME_PADDING around its members with a FRAME_HEADER
# title band on top (designer.generators.layout); the spacings below leave room for them, so
# that no frame reaches over another group's devices (tests check every generator's output).
#: Scene units between device centres in a row (devices are drawn about 70 x 46).
DX = 80.0
#: Scene units between tier rows.
TIER_DY = 160.0
#: Pitch of stacked server blocks (NIC row + GPU row, 106 high; its frame 160 high) in one rack.
NODE_DY = 180.0
#: Extra space where a stack of servers passes from one rack to the next (the two rack frames).
RACK_GAP = 80.0
#: Gap between server columns.
COLUMN_GAP = 80.0
#: Least gap between two neighbouring frames.
FRAME_GAP = 20.0


def spread(count: int, left: float, right: float) -> list[float]:
    """``count`` x positions centred in [left, right], at least DX apart."""
    if count <= 0:
        return []
    width = max(right - left, (count - 1) * DX)
    centre = (left + right) / 2
    if count == 1:
        return [centre]
    step = width / (count - 1)
    start = centre - width / 2
    return [start + i * step for i in range(count)]


#: Default NVLink fabric for each GPU model (an HGX board of the same generation).
DEFAULT_NVSWITCH = {
    "h100-sxm": "hgx-h100-nvswitch",
    "h200-sxm": "hgx-h100-nvswitch",
    "h800-sxm": "hgx-h100-nvswitch",
    "a100-sxm": "hgx-a100-nvswitch",
    "b200": "hgx-b200-nvswitch",
    # HGX B300 keeps HGX B200's fifth-generation NVLink switch board (1.8 TB/s per GPU, catalog b300).
    "b300": "hgx-b200-nvswitch",
}

#: Length given to board connections (NVLink, PCIe), metres.
BOARD_LENGTH_M = 0.5

#: Cable media by preference (cheapest first) and the copper ones.
_MEDIUM_ORDER = {"passive_copper": 0, "active_copper": 1, "aoc": 2, "optical": 3}


class Builder:
    """Collects a design's groups, devices and links, with ports, racks and cables handled."""

    def __init__(
        self,
        kind: str,
        catalog: Catalog | None,
        *,
        cable: str = "",
        copper_max_m: float = 0.0,
        long_medium: str = "auto",
        racks_per_row: int = 0,
        floor: FloorPlan | None = None,
        breakout: int = 1,
    ) -> None:
        self.kind = kind
        #: Logical ports per network port of every switch (1 = the ports as the catalog lists them).
        self.breakout = breakout
        self._broken: dict[str, Component] = {}
        self.catalog = catalog if catalog is not None else builtin_catalog()
        self.copper_max_m = copper_max_m
        self.long_medium = long_medium
        self.racks_per_row = racks_per_row
        self.floor = floor or FloorPlan()
        self.forced_cable: Cable | None = self.cable_model(cable) if cable else None
        self.groups: list[Group] = []
        self.devices: list[Device] = []
        #: Links in creation order; a cabled link is None until ``design()`` lays out the floor.
        self.links: list[Link | None] = []
        self._pending: list[tuple[int, tuple[Any, ...]]] = []
        self._net_ports: dict[str, PortState] = {}
        self._place: dict[str, tuple[int, float]] = {}
        #: Racks a row, pending links and their lengths, of the floor last laid out.
        self._lengths: tuple[int, int, list[float]] | None = None
        self._racks: list[tuple[float, float]] = []
        self._rack_rows: list[bool] = []
        self._rack_groups: list[Group] = []
        self._cables: dict[tuple[float, float], tuple[Cable, ...]] = {}
        self._boards: dict[str, Cable | None] = {}
        self._model_ports: dict[Any, tuple[PortGroup, ...]] = {}
        #: Ids of the port tuples (kept in ``_model_ports``) of the models a device has been made of with every check.
        self._made_of: set[int] = set()
        #: id(component) -> (the component, its float ports), for the models made with every check.
        self._comp_ports: dict[int, tuple[Component, tuple[PortGroup, ...]]] = {}
        #: Network port groups of each port tuple, by its id (devices of one model share one tuple).
        self._net_groups: dict[int, tuple[tuple[PortGroup, ...], tuple[PortGroup, ...]]] = {}
        #: Cage key of each cable id, and per (rate, length) the first candidate cable of each cage key.
        self._cage_keys: dict[str, tuple[str, str]] = {}
        self._keyed_cands: dict[tuple[float, float], tuple[tuple[tuple[str, str], Cable], ...]] = {}
        #: (medium, type, length) of links made by ``Link`` with every check: later links of them need only an id check.
        self._checked_fields: set[tuple[str, type, float]] = set()

    # ---------------------------------------------------------------- catalog
    def error(self, message: str) -> GeneratorError:
        return GeneratorError(f"{self.kind}: {message}")

    def model(self, model_id: str, kind: str, role: str) -> Component:
        """The catalog component ``model_id``, which must be of device kind ``kind``."""
        comp = self.catalog.components.get(model_id)
        if comp is None:
            known = ", ".join(sorted(c.id for c in self.catalog.by_kind(kind)))
            raise self.error(f"{role} model {model_id!r} is not in the catalog (known {kind} models: {known})")
        if comp.kind != kind:
            raise self.error(f"{role} model {model_id!r} is a {comp.kind}, not a {kind}")
        if kind == "switch" and self.breakout > 1:
            return self.broken_out(comp)
        return comp

    def broken_out(self, comp: Component) -> Component:
        """Switch model ``comp`` with every network port split ``breakout`` ways, if the catalog allows it."""
        if self.breakout not in comp.breakouts:
            allowed = " or ".join(str(n) for n in comp.breakouts)
            why = f"its ports split {allowed} ways" if allowed else "the catalog lists no breakout for it"
            raise self.error(f"{comp.id} cannot break each port out {self.breakout} ways ({why}); "
                             f"use {setting('breakout', 1)}" + (f" or {setting('breakout', comp.breakouts[0])}"
                                                              if comp.breakouts else ""))
        # One broken-out model per id, so every device of it shares one port tuple.
        split = self._broken.get(comp.id)
        if split is None:
            split = self._broken[comp.id] = comp.broken_out(self.breakout)
        return split

    def cable_model(self, cable_id: str) -> Cable:
        cab = self.catalog.cables.get(cable_id)
        if cab is None:
            raise self.error(f"cable {cable_id!r} is not in the catalog")
        if cab.medium in BOARD_MEDIA:
            raise self.error(f"cable {cable_id!r} is a {cab.medium} board connection, not a network cable")
        return cab

    # ---------------------------------------------------------------- floor
    def rack(self, group_id: str, name: str = "", parent: str | None = None, *, new_row: bool = False) -> int:
        """Add a rack group at the next floor position (optionally starting a new row); return its index.

        Positions are fixed when the design is finished (``racks_per_row`` = 0 sizes the rows from the
        number of racks), so cables are chosen then.
        """
        group = Group(group_id, "rack", name, parent, properties={})
        self.groups.append(group)
        self._rack_groups.append(group)
        self._rack_rows.append(new_row)
        return len(self._rack_rows) - 1

    @property
    def rack_count(self) -> int:
        return len(self._rack_rows)

    def _lay_out_floor(self, per_row: int) -> None:
        self._racks = []
        nxt = 0
        for new_row, group in zip(self._rack_rows, self._rack_groups, strict=True):
            if new_row and nxt % per_row:
                nxt += per_row - nxt % per_row
            row, col = divmod(nxt, per_row)
            nxt += 1
            self._racks.append((col * self.floor.rack_width_m, row * self.floor.row_pitch_m))
            group.properties.update(row=row + 1, position=col + 1)

    def _make_links(self, per_row: int) -> None:
        """Lay out the floor with ``per_row`` racks a row, then make every cabled link in order."""
        lengths = self._pending_lengths(per_row)
        self._net_ports = {}
        links = self.links
        cable, port = self._make_cable_link, self._make_port_link
        for (i, args), length in zip(self._pending, lengths, strict=True):
            links[i] = cable(*args, length) if len(args) == 4 else port(*args, length)

    def _pending_lengths(self, per_row: int) -> list[float]:
        """Lay out the floor with ``per_row`` racks a row; the length of every pending link on it, in order."""
        self._lay_out_floor(per_row)
        known = self._lengths
        if known is not None and known[0] == per_row and known[1] == len(self._pending):
            return known[2]
        place = self._place
        n = len(self._pending)
        # Per link: (rack, height) of each end.
        ends = chain.from_iterable((place[args[1].id], place[(args[2] if len(args) == 4 else args[3]).id])
                                   for _, args in self._pending)
        where = np.fromiter(chain.from_iterable(ends), dtype=float, count=4 * n).reshape(n, 2, 2)
        racks = np.array(self._racks, dtype=float).reshape(-1, 2)
        ra, rb = where[:, 0, 0].astype(np.intp), where[:, 1, 0].astype(np.intp)
        a = np.column_stack((racks[ra], where[:, 0, 1]))
        b = np.column_stack((racks[rb], where[:, 1, 1]))
        lengths = self.floor.lengths_m(a, b, ra == rb)
        self._lengths = (per_row, len(self._pending), lengths)
        return lengths

    def _some_cable_reaches(self, per_row: int) -> bool:
        """False when, on a floor of ``per_row`` racks a row, the longest cabled link is longer than
        every cable it could take there (of any rate): making the links would fail on it."""
        if self.forced_cable is not None:
            return True  # a named cable that falls short is an error of its own (cable_candidates)
        lengths = self._pending_lengths(per_row)
        longest = max((n for (_, args), n in zip(self._pending, lengths, strict=True) if len(args) == 4), default=0.0)
        return bool(self._may_reach(longest))

    def _may_reach(self, length_m: float) -> list[Cable]:
        """The catalog's cables a link of ``length_m`` may take, whatever its rate: long enough, and
        copper only within the copper reach, other media as ``long_medium`` allows."""
        copper_ok = self.copper_max_m <= 0 or length_m <= self.copper_max_m + 1e-9
        return [c for c in self.catalog.cables.values()
                if c.medium in _MEDIUM_ORDER and c.reach_m >= length_m - 1e-9
                and (c.medium in COPPER_MEDIA and copper_ok
                     or c.medium not in COPPER_MEDIA and self.long_medium in ("auto", c.medium))]

    def place(self, device_id: str, rack: int, height_m: float) -> None:
        self._place[device_id] = (rack, height_m)

    # ---------------------------------------------------------------- records
    def group(self, group_id: str, kind: str, name: str = "", parent: str | None = None, **props: Any) -> str:
        self.groups.append(Group(group_id, kind, name, parent, properties=props))
        return group_id

    def device(self, comp: Component, device_id: str, *, name: str = "", tier: str = "", x: float = 0.0,
               y: float = 0.0, group: str | None = None, properties: dict[str, Any] | None = None) -> Device:
        props = properties if properties is not None else {}
        known = self._comp_ports.get(id(comp))
        ports = known[1] if known is not None and known[0] is comp else self._float_ports(comp)
        if id(ports) in self._made_of:
            # A model made once already passed Device's checks of its kind and ports; what varies
            # per device is checked here (any refusal is left to Device, for its own message).
            try:
                check_id(device_id)
                xf, yf = check_coord(x, "x"), check_coord(y, "y")
            except InvalidValueError:
                pass
            else:
                dev = checked_device(device_id, comp.kind, ports, comp.id, name, tier, xf, yf, group, props)
                self.devices.append(dev)
                return dev
        dev = comp.make_device(device_id, name=name, tier=tier, x=x, y=y, group=group, properties=props)
        dev.ports = ports
        self._made_of.add(id(ports))
        self._comp_ports[id(comp)] = (comp, ports)
        self.devices.append(dev)
        return dev

    def _float_ports(self, comp: Component) -> tuple[PortGroup, ...]:
        """The model's port groups with float speeds, so a saved design reloads byte-identically."""
        # The catalog's own model is cached by id (cheap); a derived one (NVLink ports split per link)
        # by its ports too, so the two never share an entry.
        key: Any = comp.id if self.catalog.components.get(comp.id) is comp else (comp.id, comp.ports)
        ports = self._model_ports.get(key)
        if ports is None:
            ports = self._model_ports[key] = tuple(
                dataclasses.replace(g, speed_gbps=float(g.speed_gbps)) for g in comp.ports
            )
        return ports

    def add(self, dev: Device) -> Device:
        """Add a device made by hand (not from a catalog model)."""
        self.devices.append(dev)
        return dev

    # ---------------------------------------------------------------- ports and cables
    def _ports(self, dev: Device) -> PortState:
        state = self._net_ports.get(dev.id)
        if state is None:
            ports = dev.ports
            known = self._net_groups.get(id(ports))
            if known is None or known[0] is not ports:
                known = self._net_groups[id(ports)] = (ports, tuple(g for g in ports if g.kind == "network"))
            groups = known[1]
            state = self._net_ports[dev.id] = PortState(dev.id, groups)
        return state

    def ports_used(self, device_id: str) -> int:
        """Network ports handed out so far on a device."""
        state = self._net_ports.get(device_id)
        return 0 if state is None else state.used

    def cable_candidates(self, rate_gbps: float, length_m: float) -> tuple[Cable, ...]:
        """Every cable a link of ``rate_gbps`` over ``length_m`` may use, the preferred (cheapest) first."""
        key = (rate_gbps, length_m)
        cands = self._cables.get(key)
        if cands is not None:
            return cands
        if self.forced_cable is not None:
            cab = self.forced_cable
            if cab.rate_gbps < rate_gbps - 1e-9:
                raise self.error(
                    f"cable {cab.id} carries {line_rate(cab.rate_gbps)} but the ports run at {line_rate(rate_gbps)}")
            if cab.reach_m < length_m - 1e-9:
                raise self.error(f"cable {cab.id} reaches {cab.reach_m:g} m but a link needs {length_m:g} m")
            cands = (cab,)
        else:
            found = [c for c in self._may_reach(length_m) if c.rate_gbps >= rate_gbps - 1e-9]
            if not found:
                extra = "" if self.long_medium == "auto" else f" ({self.long_medium} required beyond copper)"
                raise _ReachError(f"{self.kind}: no {rate_gbps:g}G cable in the catalog reaches {length_m:g} m{extra}")
            cands = tuple(sorted(found, key=lambda c: (c.rate_gbps, _MEDIUM_ORDER[c.medium], c.reach_m, c.id)))
        self._cables[key] = cands
        return cands

    def choose_cable(self, rate_gbps: float, length_m: float) -> Cable:
        """The preferred cable for a link of ``rate_gbps`` over ``length_m``."""
        return self.cable_candidates(rate_gbps, length_m)[0]

    def cable_link(self, link_id: str, a: Device, b: Device, **props: Any) -> None:
        """A cabled network link between the next free network ports of ``a`` and ``b`` (made by ``design()``).

        On twin-port cages (``per_cage`` > 1) every cage holds one medium and one transceiver
        module, since one module or one cable end fills a cage: the link takes the cheapest cable
        that fits a cage already open on its ends, and opens a new cage only when none does.
        """
        self._pending.append((len(self.links), (link_id, a, b, props)))
        self.links.append(None)

    def _make_cable_link(self, link_id: str, a: Device, b: Device, props: dict[str, Any], length: float) -> Link:
        sa, sb = self._ports(a), self._ports(b)
        rate = min(sa.speed(), sb.speed())
        keyed = self._keyed(rate, length)
        cab = self._cheapest_fit(sa, sb, keyed)
        if cab is None:
            cab = self._fit_recaging(a, sa, b, sb, self.cable_candidates(rate, length), keyed)
        key = self._cage_keys[cab.id]
        pa = sa.take(key)
        pb = sb.take(key)
        if pa is None:
            self._out_of_ports(a, sa)
        if pb is None:
            self._out_of_ports(b, sb)
        link = self._link(link_id, a.id, pa, b.id, pb, cab.medium, length, cab.id, props)
        sa.record(link)
        sb.record(link)
        return link

    def _keyed(self, rate_gbps: float, length_m: float) -> tuple[tuple[tuple[str, str], Cable], ...]:
        """The first (preferred) of :meth:`cable_candidates` for each cage key, in order: cables of
        one key cost the same on every port, so the first of them is the only one a link may take."""
        keyed = self._keyed_cands.get((rate_gbps, length_m))
        if keyed is None:
            seen: dict[tuple[str, str], Cable] = {}
            for c in self.cable_candidates(rate_gbps, length_m):
                key = self._cage_keys.setdefault(c.id, cage_key(c))
                seen.setdefault(key, c)
            keyed = self._keyed_cands[(rate_gbps, length_m)] = tuple(seen.items())
        return keyed

    @staticmethod
    def _cheapest_fit(sa: PortState, sb: PortState, keyed: tuple[tuple[tuple[str, str], Cable], ...]) -> Cable | None:
        """The first cable of the fewest cages opened on the two ends (None if an end has no room for any)."""
        ua, ub = sa.uniform_cost(), sb.uniform_cost()
        if ua is not None and ub is not None:  # every key costs the same: the preferred cable
            return keyed[0][1] if ua + ub < FULL else None
        best = None
        best_cost = FULL
        for key, c in keyed:
            cost = (sa.cost(key) if ua is None else ua) + (sb.cost(key) if ub is None else ub)
            if cost < best_cost:
                best, best_cost = c, cost
                if cost == 0:
                    break
        return best

    def _fit_recaging(self, a: Device, sa: PortState, b: Device, sb: PortState, cands: tuple[Cable, ...],
                      keyed: tuple[tuple[tuple[str, str], Cable], ...]) -> Cable:
        """A cable for a link whose ends have no room for any of ``cands`` (``keyed``: the first of
        each cage key) as their cages stand: re-cable a part-used cage of a blocked end
        (:meth:`_recage`) and look again, up to twice."""
        for attempt in range(3):
            blocked = [(dev, st) for dev, st in ((a, sa), (b, sb)) if all(st.cost(key) >= FULL for key, _ in keyed)]
            if attempt == 2 or not any(self._recage(st, cands) for _, st in blocked):
                break
            cab = self._cheapest_fit(sa, sb, keyed)
            if cab is not None:
                return cab
        for dev, st in blocked:  # the end that has no room (a first)
            self._out_of_ports(dev, st)
        self._out_of_ports(a, sa)
        raise AssertionError("unreachable: _out_of_ports raises")  # pragma: no cover

    def _recage(self, state: PortState, cands: tuple[Cable, ...]) -> bool:
        """Free room for a link: re-cable the links of a part-used cage to a cable the link may use.

        Only links whose other end is not in a shared cage are changed (so no other cage mixes),
        and only to a cable that reaches and carries them.
        """
        for where, key, links in state.open_cages():
            for c in cands:
                new_key = cage_key(c)
                if new_key == key or state.has_open(new_key):
                    continue
                if any(c.reach_m < lk.length_m - 1e-9 for lk in links):
                    continue
                if any(self._other_end_caged(state.device_id, lk) for lk in links):
                    continue
                for lk in links:
                    lk.medium, lk.cable = c.medium, c.id
                state.rekey(where, new_key)
                return True
        return False

    def _other_end_caged(self, device_id: str, link: Link) -> bool:
        other, port = (link.b_device, link.b_port) if link.a_device == device_id else (link.a_device, link.a_port)
        st = self._net_ports.get(other)
        return st is not None and st.in_cage(port)

    def _out_of_ports(self, dev: Device, state: PortState) -> None:
        if state.used >= state.total:
            raise self.error(f"{dev.id} ({dev.model or dev.kind}) has only {state.total} network ports")
        raise self.error(
            f"{dev.id} ({dev.model or dev.kind}) has {state.total - state.used} free ports, but only in twin-port "
            "cages holding another medium (one cage takes one module or cable end); use one cable for every link "
            "(--cable) or fewer links on it")

    def port_link(self, link_id: str, a: Device, a_port: str, b: Device, b_port: str) -> None:
        """A cabled network link between two named network ports (made, with a cable chosen by length,
        by ``design()``)."""
        pa, pb = a.port(a_port), b.port(b_port)
        if pa is None or pb is None:
            missing = f"{a.id}:{a_port}" if pa is None else f"{b.id}:{b_port}"
            raise self.error(f"port {missing} does not exist")
        self._pending.append((len(self.links), (link_id, a, a_port, b, b_port, min(pa.speed_gbps, pb.speed_gbps))))
        self.links.append(None)

    def _make_port_link(self, link_id: str, a: Device, a_port: str, b: Device, b_port: str, rate: float,
                        length: float) -> Link:
        cab = self.choose_cable(rate, length)
        return self._link(link_id, a.id, a_port, b.id, b_port, cab.medium, length, cab.id, {})

    def board_link(self, link_id: str, a: str, a_port: str, b: str, b_port: str, board: str) -> Link:
        """A board connection (medium ``nvlink`` or ``pcie``) between two named ports."""
        if board not in self._boards:
            self._boards[board] = self.catalog.choose_cable(0.0, 0.0, board=board)
        cab = self._boards[board]
        link = self._link(link_id, a, a_port, b, b_port, board, BOARD_LENGTH_M, cab.id if cab is not None else "", {})
        self.links.append(link)
        return link

    def _link(self, link_id: str, a: str, a_port: str, b: str, b_port: str, medium: str, length_m: float,
              cable: str, props: dict[str, Any]) -> Link:
        """``Link(...)`` of these fields, its medium and length checked once per distinct pair (the
        first link of a pair is made by ``Link`` itself, so a refusal has its own message)."""
        key = (medium, length_m.__class__, length_m)
        if key not in self._checked_fields:
            link = Link(link_id, a, a_port, b, b_port, medium=medium, length_m=length_m, cable=cable, properties=props)
            if length_m.__class__ is float:
                self._checked_fields.add(key)
            return link
        check_id(link_id, "link id")
        return checked_link(link_id, a, a_port, b, b_port, medium, length_m, cable, props)

    def design(self, name: str, description: str, **properties: Any) -> Design:
        """The finished design (everything added in one batch)."""
        if self.racks_per_row:
            try:
                self._make_links(self.racks_per_row)
            except _ReachError as e:
                raise self.error(f"{str(e).removeprefix(self.kind + ': ')}; racks in rows of {self.racks_per_row}: "
                                 "--racks-per-row 0 chooses a floor whose cables reach") from None
        else:
            try:
                if not self._some_cable_reaches(self.floor.row_racks):
                    raise _ReachError("the longest link outreaches every cable")  # known before making any
                self._make_links(self.floor.row_racks)
            except _ReachError:
                # Rows of the usual length make the floor too deep for some cable: lay it out square.
                square = self.floor.square_racks_per_row(self._rack_rows)
                try:
                    self._make_links(square)
                except _ReachError as e:
                    rows = self._racks[-1][1] / self.floor.row_pitch_m + 1 if self._racks else 0
                    raise self.error(
                        f"{str(e).removeprefix(self.kind + ': ')} even on a square floor of {len(self._racks)} "
                        f"racks ({square} a row, {rows:g} rows): build fewer racks or name a cable that reaches "
                        "(--cable)") from None
        self._pending = []
        links = self.links
        design = Design(name, description)
        design.properties = {"generator": self.kind, **properties}
        if self.breakout > 1:  # recorded so that the fabric rebuilds at another size with it
            design.properties["breakout"] = self.breakout
        design.extend(self.groups, self.devices, links)
        return design


def switch_ports(comp: Component) -> int:
    """Network ports of a catalog model."""
    return sum(g.count for g in comp.ports if g.kind == "network")


def whole(kind: str, what: str, value: float) -> int:
    """``value`` as int if it is a whole number, else GeneratorError naming ``what``."""
    n = round(value)
    if abs(value - n) > 1e-6 or n < 1:
        raise GeneratorError(f"{kind}: {what} must be a whole number >= 1, got {value:g}")
    return int(n)


def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def upper_tier_size(kind: str, lower: int, uplinks: int, upper_ports: int, lower_name: str, upper_name: str,
                    upper_model: str) -> tuple[int, int]:
    """Fewest upper switches so every lower switch has the same links to each: (count, links per pair).

    The count divides ``uplinks`` (equal-cost paths) and each upper switch takes
    ``lower x links per pair`` <= ``upper_ports`` ports.

    >>> upper_tier_size("x", 24, 32, 64, "leaves", "spines", "qm9700")
    (16, 2)
    """
    for s in divisors(uplinks):
        per_pair = uplinks // s
        if lower * per_pair <= upper_ports:
            return s, per_pair
    raise GeneratorError(
        f"{kind}: {lower} {lower_name} need one port each on every {upper_name[:-1]} but {upper_model} has "
        f"{upper_ports}; use fewer {lower_name} or another tier"
    )
