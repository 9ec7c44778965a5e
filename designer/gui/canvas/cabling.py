"""Cabling by hand that follows the design rules: one medium per twin-port cage, NICs in rail order.

- :func:`plan_links` makes the links for a list of port pairs. Links whose ends share a
  multi-port cage (a QM9700's twin-port OSFP cages), with each other or with links already
  there, form one bundle and get one cable: the cheapest that carries their rate over the
  longest of them (``Catalog.choose_cable``). A link already in such a cage whose cable does not
  reach is given the bundle's cable too (``retune``), in the same undo step, so a cage never mixes
  media or modules (the rule of :mod:`designer.analysis.common.cages`).
- :func:`nics_to_connect` lists the NICs of a selection with a free network port, in rail order:
  server by server, each server's NICs by their ``rail`` property (else their order in it).
- :func:`to_switch` pairs them with a switch's next free network ports; :func:`rail_wise` puts
  rail *r* of every server on leaf *r* (modulo the number of leaves), as a rail-optimized fabric
  is cabled.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from designer.analysis.common.cages import cage_of
from designer.gui.canvas.linking import LinkError, cable_for, estimate_length_m
from designer.model import Design, Link
from designer.model.catalog import Catalog

Pair = tuple[str, str, str, str]  # a device, its port, b device, its port


@dataclass
class Plan:
    """New links, and the cable given to links already in a cage the new ones share."""

    links: list[Link] = field(default_factory=list)
    #: existing link id -> (medium, cable id) it must take to match its cage
    retune: dict[str, tuple[str, str]] = field(default_factory=dict)


def _cage_keys(design: Design, dev_id: str, port_id: str) -> list[tuple[str, int, int]]:
    where = cage_of(design.device(dev_id), port_id)
    return [] if where is None else [(dev_id, *where)]


def _cage_links(design: Design, key: tuple[str, int, int]) -> list[Link]:
    """The links already in cage ``key`` (device, port group index, cage number)."""
    dev_id, gi, cage = key
    dev = design.device(dev_id)
    out = []
    for lk in design.links_of(dev_id):
        port = lk.a_port if lk.a_device == dev_id else lk.b_port
        spec = dev.port(port)
        if spec is not None and spec.group_index == gi and cage_of(dev, port) == (gi, cage):
            out.append(lk)
    return out


@dataclass
class _Draft:
    id: str
    a_device: str
    a_port: str
    b_device: str
    b_port: str
    board: str  # "nvlink" / "pcie" for a board connection, else ""
    length_m: float
    rate_gbps: float
    medium: str = "optical"
    cable: str = ""

    def link(self) -> Link:
        return Link(self.id, self.a_device, self.a_port, self.b_device, self.b_port, medium=self.medium,
                    length_m=self.length_m, cable=self.cable)


def plan_links(design: Design, catalog: Catalog, pairs: list[Pair]) -> Plan:
    """The links for ``pairs`` (ports checked free and of one kind), cabled cage by cage."""
    drafts: list[_Draft] = []
    taken: set[tuple[str, str]] = set()
    for a_dev, a_port, b_dev, b_port in pairs:
        pa, pb = design.device(a_dev).port(a_port), design.device(b_dev).port(b_port)
        if pa is None or pb is None:
            raise LinkError(f"no port {a_dev}:{a_port} or {b_dev}:{b_port}")
        if pa.kind != pb.kind:
            raise LinkError(f"cannot join a {pa.kind} port ({a_dev}:{a_port}) to a {pb.kind} port ({b_dev}:{b_port})")
        for end in ((a_dev, a_port), (b_dev, b_port)):
            if end in taken or design.link_at(*end) is not None:
                raise LinkError(f"port {end[0]}:{end[1]} is already in use")
            taken.add(end)
        board = pa.kind if pa.kind in ("nvlink", "pcie") else ""
        length = 0.5 if board else estimate_length_m(design, a_dev, b_dev)
        link_id = design.unique_id(f"{a_dev}.{a_port}--{b_dev}.{b_port}"[:120].rstrip(".-_"), "link")
        drafts.append(_Draft(link_id, a_dev, a_port, b_dev, b_port, board, length,
                             min(pa.speed_gbps, pb.speed_gbps)))
    # Bundles: new links joined through the cages they share (union-find over cage keys).
    parent = list(range(len(drafts)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first_in_cage: dict[tuple[str, int, int], int] = {}
    for i, dr in enumerate(drafts):
        if dr.board:
            continue  # a board connection: no cage, no choice
        for key in _cage_keys(design, dr.a_device, dr.a_port) + _cage_keys(design, dr.b_device, dr.b_port):
            j = first_in_cage.setdefault(key, i)
            parent[root(i)] = root(j)
    bundles: dict[int, list[_Draft]] = {}
    for i, dr in enumerate(drafts):
        bundles.setdefault(root(i), []).append(dr)
    plan = Plan()
    for r, members in bundles.items():
        cages = [k for k, j in first_in_cage.items() if root(j) == r]
        _cable_bundle(design, catalog, plan, members, cages)
    plan.links = [dr.link() for dr in drafts]
    return plan


def _cable_bundle(design: Design, catalog: Catalog, plan: Plan, members: list[_Draft],
                  cages: list[tuple[str, int, int]]) -> None:
    """One cable for the new links ``members`` and the links already in their ``cages``."""
    if members[0].board:  # board connections
        for dr in members:
            cab = cable_for(catalog, dr.board, dr.rate_gbps, dr.length_m)
            dr.medium, dr.cable = dr.board, cab.id if cab is not None else ""
        return
    present = {lk.id: lk for key in cages for lk in _cage_links(design, key)}
    rate = max(dr.rate_gbps for dr in members)
    longest = max([dr.length_m for dr in members] + [lk.length_m for lk in present.values()])
    # Keep the cable already in the cage when it carries the new links too; else one that does.
    kept = {lk.cable for lk in present.values() if lk.cable}
    cab = None
    if len(kept) == 1:
        old = catalog.cables.get(next(iter(kept)))
        if old is not None and old.reach_m >= longest - 1e-9 and old.rate_gbps >= rate - 1e-9:
            cab = old
    if cab is None:
        cab = cable_for(catalog, None, rate, longest)
    medium = cab.medium if cab is not None else "optical"
    cable_id = cab.id if cab is not None else ""
    for dr in members:
        dr.medium, dr.cable = medium, cable_id
    for lk in present.values():
        if (lk.medium, lk.cable) != (medium, cable_id):
            plan.retune[lk.id] = (medium, cable_id)


def nics_to_connect(design: Design, device_ids: list[str]) -> list[tuple[str, str]]:
    """(NIC, its first free network port) for the NICs among ``device_ids``, in rail order."""
    order: dict[str | None, int] = {}
    rows = []
    for rank, did in enumerate(device_ids):
        dev = design.device(did)
        if dev.kind != "nic":
            continue
        free = design.free_ports(did, "network")
        if not free:
            continue
        server = dev.group
        order.setdefault(server, len(order))
        rail = dev.properties.get("rail")
        rows.append(((order[server], rail if isinstance(rail, int) else rank, rank), did, free[0]))
    return [(did, port) for _key, did, port in sorted(rows)]


def to_switch(design: Design, nics: list[tuple[str, str]], switch_id: str) -> list[Pair]:
    """Each NIC to the switch's next free network port, in order; LinkError when they do not fit."""
    free = design.free_ports(switch_id, "network")
    if len(free) < len(nics):
        raise LinkError(f"{switch_id} has {len(free):,} free network ports for {len(nics):,} NICs")
    return [(nic, port, switch_id, free[i]) for i, (nic, port) in enumerate(nics)]


def rail_wise(design: Design, nics: list[tuple[str, str]], leaf_ids: list[str]) -> list[Pair]:
    """Rail *r* of every server to leaf *r* (modulo the leaves), each on the leaf's next free port."""
    free = {leaf: list(design.free_ports(leaf, "network")) for leaf in leaf_ids}
    rank_in_server: dict[str | None, int] = {}
    pairs = []
    for nic, port in nics:
        server = design.device(nic).group
        r = rank_in_server.get(server, 0)
        rank_in_server[server] = r + 1
        leaf = leaf_ids[r % len(leaf_ids)]
        if not free[leaf]:
            raise LinkError(f"{leaf} has no free network port left for {nic}")
        pairs.append((nic, port, leaf, free[leaf].pop(0)))
    return pairs
