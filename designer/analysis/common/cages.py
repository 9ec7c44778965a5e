"""Twin-port cages: ports that share one physical cage must share one medium and module.

A port group with ``per_cage`` > 1 (a QM9700's 64 NDR ports in 32 twin-port OSFP cages) puts
ports ``1..per_cage`` in cage 1, the next ``per_cage`` in cage 2, and so on. One cage takes
one module or one cable end: one twin-port transceiver carries both ports of a cage, or one
twin-port copper cable (or AOC) end does. So a cage whose ports use different media (copper
and optics), or optics needing different transceivers, cannot be built.

:func:`mixed_cages` lists such cages; :func:`cage_of` says which cage a port is in.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.model import BOARD_MEDIA, Design, Device, Link
from designer.model.catalog import Catalog, builtin_catalog


def cage_of(dev: Device, port_id: str) -> tuple[int, int] | None:
    """``(port group index, cage number from 1)`` of a port in a multi-port cage, else None.

    >>> from designer.model import Device, PortGroup
    >>> d = Device("s", "switch", (PortGroup("p", 64, 400.0, per_cage=2),))
    >>> cage_of(d, "p1"), cage_of(d, "p2"), cage_of(d, "p3"), cage_of(d, "q1")
    ((0, 1), (0, 1), (0, 2), None)
    """
    spec = dev.port(port_id)
    if spec is None:
        return None
    group = dev.ports[spec.group_index]
    if group.per_cage <= 1:
        return None
    number = int(port_id[len(group.prefix):])
    return spec.group_index, (number - 1) // group.per_cage + 1


def end_medium(link: Link, catalog: Catalog) -> str:
    """What a link end puts in its cage: the medium, and for optics the transceiver module.

    ``optical`` links name the module of their catalog cable (``optical mma4z00-ns400``); an
    optical link without a catalog cable is just ``optical``.
    """
    if link.medium != "optical":
        return link.medium
    cab = catalog.cables.get(link.cable) if link.cable else None
    module = cab.transceiver if cab is not None else None
    return f"optical {module}" if module else "optical"


@dataclass(frozen=True)
class MixedCage:
    """A cage of ``device`` whose ports use more than one medium or module."""

    device: str
    cage: int
    ports: tuple[str, ...]
    media: tuple[str, ...]
    links: tuple[str, ...]

    @property
    def message(self) -> str:
        """What is wrong and what to do, naming the device, the ports and their media."""
        used = ", ".join(f"{p} {m.replace('_', ' ')}" for p, m in zip(self.ports, self.media, strict=True))
        return (f"{self.device}: cage {self.cage} mixes media ({used}) but one cage takes one twin-port "
                "module or cable end; give both ports the same medium and module, or move a link to another cage")


def mixed_cages(design: Design, catalog: Catalog | None = None) -> list[MixedCage]:
    """Every multi-port cage holding links of more than one medium or module, in design order.

    Unused ports do not count: a cage with one optical link and one free port is fine.

    >>> from designer.model import Design, Device, Link, PortGroup
    >>> d = Design()
    >>> ports = (PortGroup("p", 4, 400.0, per_cage=2),)
    >>> _ = d.add_device(Device("a", "switch", ports))
    >>> _ = d.add_device(Device("b", "switch", ports))
    >>> _ = d.add_link(Link("l1", "a", "p1", "b", "p1", medium="passive_copper", length_m=1))
    >>> _ = d.add_link(Link("l2", "a", "p2", "b", "p3", medium="optical", length_m=1, cable="sr4-400g-mm"))
    >>> [(m.device, m.cage, m.ports, m.media) for m in mixed_cages(d)]
    [('a', 1, ('p1', 'p2'), ('passive_copper', 'optical mma4z00-ns400'))]
    """
    if catalog is None:
        catalog = builtin_catalog()
    devices = {d.id: d for d in design.iter_devices()}
    order = {did: i for i, did in enumerate(devices)}
    cages: dict[tuple[str, int, int], list[tuple[str, str, str]]] = {}
    media_cache: dict[tuple[str, str], str] = {}
    for link in design.iter_links():
        if link.medium in BOARD_MEDIA:
            continue
        mkey = (link.medium, link.cable)
        medium = media_cache.get(mkey)
        if medium is None:
            medium = media_cache[mkey] = end_medium(link, catalog)
        for dev_id, port_id in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
            where = cage_of(devices[dev_id], port_id)
            if where is not None:
                cages.setdefault((dev_id, *where), []).append((port_id, medium, link.id))
    out = []
    for (dev_id, gi, cage), ends in sorted(cages.items(), key=lambda kv: (order[kv[0][0]], kv[0][1], kv[0][2])):
        if len({m for _, m, _ in ends}) > 1:
            ends = sorted(ends, key=lambda e: int(e[0][len(devices[dev_id].ports[gi].prefix):]))
            out.append(MixedCage(dev_id, cage, tuple(e[0] for e in ends), tuple(e[1] for e in ends),
                                 tuple(e[2] for e in ends)))
    return out


__all__ = ["MixedCage", "cage_of", "end_medium", "mixed_cages"]
