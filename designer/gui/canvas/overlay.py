"""Analysis marks on the canvas: links coloured by utilisation, halos on bottlenecks and on a cut.

View state only: nothing here touches the design, the undo stack or the modified flag. The
scene holds one :class:`LinkMarks`; a bundle (parallel links, or the links a collapsed group
hides) shows the *maximum* utilisation of the links it holds and a halo when any of them has one.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import repeat

import numpy as np
from PySide6.QtGui import QColor


class LinkMarks:
    """Per-link utilisation (when the overlay is on) and halo colours."""

    def __init__(self) -> None:
        #: link id -> utilisation (fraction of the time busy, busier direction); None: overlay off
        self.utilisation: dict[str, float] | None = None
        #: Whether the utilisation is measured (port counters: links without counters keep their media
        #: colours, as unknown) rather than predicted (every link has a figure).
        self.measured = False
        self._halo: dict[str, dict[str, QColor]] = {}  # layer ("bottleneck", "cut") -> link id -> colour

    def set_utilisation(self, ids: Iterable[str] | None, values: np.ndarray | None = None, *,
                        measured: bool = False) -> None:
        """Colour links by ``values`` (same order as ``ids``); None turns the overlay off. ``measured``:
        the figures come from port counters, and links without one are unknown, not idle."""
        self.measured = measured and ids is not None
        if ids is None or values is None:
            self.utilisation = None
        else:
            self.utilisation = dict(zip(ids, np.asarray(values, dtype=float).tolist(), strict=True))

    def set_halo(self, layer: str, ids: Iterable[str], colour: QColor) -> None:
        links = {i: colour for i in ids}
        if links:
            self._halo[layer] = links
        else:
            self._halo.pop(layer, None)

    def halo_ids(self, layer: str) -> set[str]:
        return set(self._halo.get(layer, ()))

    def bundle_utilisation(self, link_ids: Iterable[str]) -> float | None:
        """The busiest of the links' utilisations; None when measured and none of them has a figure."""
        util = self.utilisation
        if not util:
            return None if self.measured else 0.0
        if self.measured:
            known = [util[i] for i in link_ids if i in util]
            return max(known) if known else None
        return max(map(util.get, link_ids, repeat(0.0)), default=0.0)

    def bundle_halo(self, link_ids: Iterable[str]) -> QColor | None:
        if not self._halo:
            return None
        ids = link_ids if isinstance(link_ids, (set, dict)) else set(link_ids)
        for layer in ("cut", "measured", "bottleneck"):  # the cut the user asked to see wins
            links = self._halo.get(layer)
            if links and not links.keys().isdisjoint(ids):
                return next(links[i] for i in ids if i in links)
        return None


BOTTLENECK = "bottleneck"
CUT = "cut"
#: Links the loaded port counters flag (designer.gui.window.measured).
MEASURED = "measured"
__all__ = ["BOTTLENECK", "CUT", "MEASURED", "LinkMarks"]
