"""How the window makes a new link: ports, length, medium and cable.

Rules (documented in docs/gui.md):

- Ports must be of the same kind (NVLink to NVLink, PCIe to PCIe, network to network).
  Dropping on a device body takes its next free port compatible with the other end; starting
  from a device body picks the first of its free ports whose kind the target also has free,
  preferring the fastest common kind.
- Length: two devices in the same server group are joined by the board (0.5 m); otherwise the
  distance between the device centres, at ``SCENE_UNITS_PER_M`` scene units per metre, rounded
  up to half a metre (at least 0.5 m).
- Medium and cable: NVLink and PCIe ports use the board pseudo-cables; network ports take the
  catalog's cheapest cable that reaches (``Catalog.choose_cable``): copper within its reach,
  then AOC, then optics (:func:`cable_for`; a medium chosen later in the inspector takes the
  cheapest cable of that medium that reaches, by the same function). Links that share a
  twin-port cage share one cable (:mod:`designer.gui.canvas.cabling` makes every new link).
"""

from __future__ import annotations

import math

from designer.gui.style import MEDIUM_STYLES, SCENE_UNITS_PER_M
from designer.model import BOARD_MEDIA, Design, Device, units
from designer.model.catalog import Cable, Catalog

#: Media of board connections: the port kind they join, and their pseudo-cable's medium.


def cable_for(catalog: Catalog, medium: str | None, rate_gbps: float, length_m: float) -> Cable | None:
    """The cable a link gets: the board connection of an ``nvlink`` / ``pcie`` medium, else the
    catalog's cheapest cable of ``medium`` (None: of any cable medium) that carries ``rate_gbps``
    over ``length_m`` (``Catalog.choose_cable``). New links and a medium changed in the inspector
    both take it; None when no such cable reaches.
    """
    if medium in BOARD_MEDIA:
        return catalog.choose_cable(rate_gbps, length_m, board=medium)
    return catalog.choose_cable(rate_gbps, length_m, medium=medium)


def _medium_title(medium: str) -> str:
    style = MEDIUM_STYLES.get(medium)
    return style.title if style is not None else medium.replace("_", " ")


def cable_misfit(cable: Cable, port_kind: str, medium: str, rate_gbps: float, length_m: float) -> str:
    """Why ``cable`` cannot serve a link of ``medium`` and ``length_m`` between ``port_kind`` ports
    running at ``rate_gbps``; "" when it fits.

    A cable fits when it is made for the ports (a board connection for NVLink or PCIe ports, a
    cable for network ports), is of the link's medium, carries the ports' rate without being of a
    faster class (an 800G cable is not for 400G ports) and reaches the link's length.
    """
    board = cable.medium in BOARD_MEDIA
    if board and port_kind != cable.medium:
        return f"a board connection of {cable.medium} ports; this link joins {port_kind} ports"
    if not board and port_kind != "network":
        return f"a network cable; this link joins {port_kind} ports"
    if cable.medium != medium:
        return f"{_medium_title(cable.medium)}; the link's medium is {_medium_title(medium)} (change the medium first)"
    if cable.rate_gbps < rate_gbps - 1e-9:
        return f"carries {units.line_rate(cable.rate_gbps)}, slower than the link's {units.line_rate(rate_gbps)} ports"
    if board:
        return ""
    if cable.rate_gbps >= 2 * rate_gbps - 1e-9:
        return (f"made for {units.line_rate(cable.rate_gbps)} ports; the link's ports run at "
                f"{units.line_rate(rate_gbps)}")
    if cable.reach_m < length_m - 1e-9:
        return f"reaches {cable.reach_m:g} m; the link is {length_m:g} m long"
    return ""


class LinkError(Exception):
    """A link cannot be made between the chosen ends; the message says why."""


def _shares_server(design: Design, a: str, b: str) -> bool:
    ga = design.device(a).group
    gb = design.device(b).group
    if ga is None or gb is None:
        return False
    servers_a = {g for g in design.ancestors(ga) if design.group(g).kind == "server"}
    return any(g in servers_a for g in design.ancestors(gb))


def estimate_length_m(design: Design, a: str, b: str) -> float:
    """A cable length for a new link between devices ``a`` and ``b`` (see module docs)."""
    if _shares_server(design, a, b):
        return 0.5
    da, db = design.device(a), design.device(b)
    metres = math.hypot(da.x - db.x, da.y - db.y) / SCENE_UNITS_PER_M
    return max(0.5, math.ceil(metres * 2.0) / 2.0)


def _kinds(dev: Device) -> str:
    kinds = list(dict.fromkeys(g.kind for g in dev.ports))
    return " and ".join(kinds) if kinds else "no"


def _no_port(dev: Device, kind: str, other: str) -> str:
    """Why ``dev`` takes no link of port ``kind`` from port ``other``: all in use, or none of that kind."""
    if any(g.kind == kind for g in dev.ports):
        return f"{dev.id} has no free {kind} port"
    has = f"has only {_kinds(dev)} ports" if dev.ports else "has no ports"
    return f"the port kinds do not match: {other} is a {kind} port and {dev.id} {has}"


def choose_ports(
    design: Design, a_dev: str, a_port: str | None, b_dev: str, b_port: str | None
) -> tuple[str, str]:
    """Resolve missing port names to free compatible ports; raise LinkError when impossible."""
    if a_dev == b_dev:
        raise LinkError("a link needs two different devices")
    da, db = design.device(a_dev), design.device(b_dev)
    for dev, port in ((da, a_port), (db, b_port)):
        if port is not None:
            if dev.port(port) is None:
                raise LinkError(f"{dev.id} has no port {port}")
            held = design.link_at(dev.id, port)
            if held is not None:
                raise LinkError(f"port {dev.id}:{port} already holds link {held.id}")
    if a_port is not None and b_port is not None:
        ka, kb = da.port(a_port).kind, db.port(b_port).kind  # type: ignore[union-attr]
        if ka != kb:
            raise LinkError(f"cannot join a {ka} port ({a_dev}:{a_port}) to a {kb} port ({b_dev}:{b_port})")
        return a_port, b_port
    if a_port is not None:
        kind = da.port(a_port).kind  # type: ignore[union-attr]
        free = design.free_ports(b_dev, kind)
        if not free:
            raise LinkError(_no_port(db, kind, f"{a_dev}:{a_port}"))
        return a_port, free[0]
    if b_port is not None:
        kind = db.port(b_port).kind  # type: ignore[union-attr]
        free = design.free_ports(a_dev, kind)
        if not free:
            raise LinkError(_no_port(da, kind, f"{b_dev}:{b_port}"))
        return free[0], b_port
    # Device to device: the fastest port kind both have free.
    best: tuple[float, str, str] | None = None
    for pa in da.iter_ports():
        if design.link_at(a_dev, pa.id) is not None:
            continue
        free_b = design.free_ports(b_dev, pa.kind)
        if free_b:
            pb = db.port(free_b[0])
            speed = min(pa.speed_gbps, pb.speed_gbps if pb else 0.0)
            if best is None or speed > best[0]:
                best = (speed, pa.id, free_b[0])
    if best is None:
        if not {g.kind for g in da.ports} & {g.kind for g in db.ports}:
            raise LinkError(f"the port kinds do not match: {a_dev} has {_kinds(da)} ports, {b_dev} "
                            f"{_kinds(db)} ports")
        raise LinkError(f"{a_dev} and {b_dev} have no free ports of a common kind")
    return best[1], best[2]
