"""The physical side of a generated design: the floor plan that gives every cable its length, and
each device's ports and twin-port cages as the :class:`designer.generators.base.Builder` hands
them out."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from designer.model import Link, PortGroup
from designer.model.catalog import Cable


# --------------------------------------------------------------------------- physical floor
@dataclass(frozen=True)
class FloorPlan:
    """Racks in rows on a floor: the source of cable lengths (metres).

    Same rack: vertical distance + ``slack_m`` / 2. Different racks: up to the overhead tray at
    ``tray_height_m``, Manhattan distance along the floor, down again, plus ``slack_m``.
    Lengths are rounded up to the next ``round_m``.
    """

    rack_width_m: float = 0.6
    row_pitch_m: float = 2.4
    tray_height_m: float = 2.4
    slack_m: float = 1.0
    round_m: float = 0.5
    #: Racks in a row when the generator chooses (``racks_per_row`` = 0): a common data-hall row.
    row_racks: int = 18

    def square_racks_per_row(self, new_rows: list[bool]) -> int:
        """Racks a row that make a floor about as wide as deep (at least ``row_racks``), for racks
        added in order (True = the rack starts a new row). Its longest runs are the shortest.

        >>> FloorPlan().square_racks_per_row([False] * 100), FloorPlan().square_racks_per_row([False] * 16384)
        (20, 256)
        """
        def rows(per_row: int) -> int:
            nxt = 0
            for new_row in new_rows:
                if new_row and nxt % per_row:
                    nxt += per_row - nxt % per_row
                nxt += 1
            return -(-nxt // per_row)

        per_row = max(self.row_racks, math.ceil(math.sqrt(len(new_rows) * self.row_pitch_m / self.rack_width_m)))
        while rows(per_row) * self.row_pitch_m > per_row * self.rack_width_m * 1.25:
            per_row = math.ceil(per_row * 1.1)
        return per_row

    def lengths_m(self, a: np.ndarray, b: np.ndarray, same_rack: np.ndarray) -> list[float]:
        """Cable lengths between the (x_m, y_m, height_m) points in the rows of ``a`` and ``b``
        (``same_rack``: whether the two ends of a row stand in one rack)."""
        ha, hb = a[:, 2], b[:, 2]
        within = np.abs(ha - hb) + self.slack_m / 2
        across = ((self.tray_height_m - ha) + (self.tray_height_m - hb)
                  + np.abs(a[:, 0] - b[:, 0]) + np.abs(a[:, 1] - b[:, 1]) + self.slack_m)
        raw = np.where(same_rack, within, across)
        return (np.ceil(raw / self.round_m - 1e-9) * self.round_m).tolist()


#: Cost of a link end that finds no room (a cage opened costs 1).
FULL = 1000


def cage_key(cab: Cable) -> tuple[str, str]:
    """What a cable end puts in a cage: its medium and, for optics, its transceiver module."""
    return cab.medium, (cab.transceiver or "") if cab.medium == "optical" else ""


@lru_cache(maxsize=256)
def _group_facts(groups: tuple[PortGroup, ...]) -> tuple[int, bool, frozenset[str], tuple[tuple[str, ...], ...]]:
    """Of a device's network port groups: the port count, whether any has twin-port cages, the
    prefixes of those that do, and every group's port ids in order."""
    return (sum(g.count for g in groups), any(g.per_cage > 1 for g in groups),
            frozenset(g.prefix for g in groups if g.per_cage > 1), tuple(tuple(g.port_ids()) for g in groups))


class PortState:
    """The network ports of one device, handed out in order; on a port group with ``per_cage`` > 1
    every cage is given to one cage key (medium and module) and filled before another opens."""

    __slots__ = ("device_id", "groups", "gi", "opened", "open", "cages", "used", "total", "caged", "_last",
                 "_caged_prefixes", "_names")

    def __init__(self, device_id: str, groups: list[PortGroup] | tuple[PortGroup, ...]) -> None:
        self.device_id = device_id
        groups = tuple(groups)
        self.groups = groups
        self.gi = 0
        #: Per group: ports handed out (no cages) or cages opened (cages).
        self.opened = [0] * len(groups)
        #: Per group: cage key -> index of the cage of that key with room left.
        self.open: list[dict[tuple[str, str], int]] = [{} for _ in groups]
        #: Per group: cage index -> [key, ports used, links].
        self.cages: list[dict[int, list[Any]]] = [{} for _ in groups]
        self.used = 0
        # What follows depends on the port groups alone, so devices of one model share it.
        self.total, self.caged, self._caged_prefixes, self._names = _group_facts(groups)
        self._last: list[Any] | None = None

    def _room(self, g: int) -> bool:
        grp = self.groups[g]
        if grp.per_cage <= 1:
            return self.opened[g] < grp.count
        return bool(self.open[g]) or self.opened[g] * grp.per_cage < grp.count

    def speed(self) -> float:
        """Speed of the port group the next port comes from."""
        while self.gi < len(self.groups) and not self._room(self.gi):
            self.gi += 1
        if self.gi < len(self.groups):
            return self.groups[self.gi].speed_gbps
        return self.groups[-1].speed_gbps if self.groups else math.inf

    def cost(self, key: tuple[str, str]) -> int:
        """0 if a port for ``key`` is free without opening a cage, 1 if a cage opens, FULL if none is free."""
        for g in range(self.gi, len(self.groups)):
            grp = self.groups[g]
            if grp.per_cage <= 1:
                if self.opened[g] < grp.count:
                    return 0
            elif key in self.open[g]:
                return 0
            elif self.opened[g] * grp.per_cage < grp.count:
                return 1
        return FULL

    def uniform_cost(self) -> int | None:
        """:meth:`cost`, when it is the same for every cage key (no cages, or no cage of the next
        port's group open yet); None when it depends on the key. Call after :meth:`speed`."""
        if not self.caged:
            return 0 if self.used < self.total else FULL
        g = self.gi
        if g < len(self.groups) and (self.groups[g].per_cage <= 1 or not self.open[g]):
            return 0 if self.groups[g].per_cage <= 1 else 1
        return None

    def take(self, key: tuple[str, str]) -> str | None:
        """The next port for a link of cage key ``key``, or None if there is none."""
        self._last = None
        for g in range(self.gi, len(self.groups)):
            grp = self.groups[g]
            pc = grp.per_cage
            if pc <= 1:
                if self.opened[g] < grp.count:
                    self.opened[g] += 1
                    self.used += 1
                    return self._names[g][self.opened[g] - 1]
                continue
            cage = self.open[g].get(key)
            if cage is None:
                if self.opened[g] * pc >= grp.count:
                    continue
                cage = self.opened[g]
                self.opened[g] += 1
                self.cages[g][cage] = [key, 0, []]
                self.open[g][key] = cage
            entry = self.cages[g][cage]
            entry[1] += 1
            if entry[1] >= min(pc, grp.count - cage * pc):
                del self.open[g][key]
            self.used += 1
            self._last = entry
            return self._names[g][cage * pc + entry[1] - 1]
        return None

    def record(self, link: Link) -> None:
        """Remember the link given the port last taken (when that port is in a cage)."""
        if self._last is not None:
            self._last[2].append(link)
            self._last = None

    def open_cages(self) -> list[tuple[tuple[int, int], tuple[str, str], list[Link]]]:
        """Cages with room: ((group, cage), key, links)."""
        return [((g, cage), key, self.cages[g][cage][2]) for g in range(len(self.groups))
                for key, cage in self.open[g].items()]

    def has_open(self, key: tuple[str, str]) -> bool:
        return any(key in o for o in self.open)

    def rekey(self, where: tuple[int, int], key: tuple[str, str]) -> None:
        g, cage = where
        entry = self.cages[g][cage]
        del self.open[g][entry[0]]
        entry[0] = key
        self.open[g][key] = cage

    def in_cage(self, port_id: str) -> bool:
        return bool(self._caged_prefixes) and port_id.rstrip("0123456789") in self._caged_prefixes
