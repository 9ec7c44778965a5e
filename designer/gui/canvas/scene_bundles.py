"""Link bundles of the scene: one line per pair of shown objects joined by links.

A mixin of :class:`designer.gui.canvas.scene.DesignScene` (it uses the scene's ``design``,
``device_items``, ``boxes``, ``bundle_items`` and its bundle indexes). Parallel links, and the
external links of a collapsed group, share one :class:`BundleItem` whose width is their total
rate and whose style is their medium.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtWidgets import QGraphicsItem

from designer.gui import style
from designer.gui.canvas.items import BundleItem
from designer.gui.canvas.linking import link_rate_gbps
from designer.model import Link

Rep = str  # "d:<device id>" or "g:<group id>": the shown object standing for a device


class SceneBundles:
    """Bundle bookkeeping and geometry."""

    _rep: dict[str, Rep]
    _link_key: dict[str, tuple[Rep, Rep] | None]
    _bundle_links: dict[tuple[Rep, Rep], dict[str, None]]
    _rep_bundles: Any
    _rates: dict[str, float]
    _flagged_links: Any
    bundle_items: dict[tuple[Rep, Rep], BundleItem]
    device_items: Any
    boxes: Any
    design: Any
    catalog: Any
    sketched: bool

    def _add_link_to_bundle(self, link: Link) -> tuple[Rep, Rep] | None:
        ra, rb = self._rep.get(link.a_device), self._rep.get(link.b_device)
        if ra is None or rb is None or ra == rb:
            self._link_key[link.id] = None
            return None
        key = (ra, rb) if ra < rb else (rb, ra)
        self._link_key[link.id] = key
        links = self._bundle_links.get(key)
        if links is None:
            links = self._bundle_links[key] = {}
            self._rep_bundles[key[0]].add(key)
            self._rep_bundles[key[1]].add(key)
        links[link.id] = None
        return key

    def _refresh_bundle(self, key: tuple[Rep, Rep]) -> None:
        links = self._bundle_links.get(key)
        item = self.bundle_items.get(key)
        if not links:
            self._bundle_links.pop(key, None)
            self._rep_bundles.get(key[0], set()).discard(key)
            self._rep_bundles.get(key[1], set()).discard(key)
            if item is not None:
                if item.scene() is self:
                    self.removeItem(item)
                del self.bundle_items[key]
            return
        if item is None:
            item = BundleItem(key)
            self.bundle_items[key] = item
            self._add(item)
        d = self.design
        assert d is not None
        total = 0.0
        media = set()
        failed = True
        flagged = False
        rates = self._rates
        for lid in links:
            link = d.link(lid)
            rate = rates.get(lid)
            if rate is None:
                rate = rates[lid] = link_rate_gbps(d, link, self.catalog)
            total += rate
            media.add(link.medium)
            failed = failed and link.failed
            flagged = flagged or lid in self._flagged_links
        medium = media.pop() if len(media) == 1 else "mixed"
        item.set_look(style.link_pen(medium, total, failed=failed, flagged=flagged), len(links))
        self._place_bundle(item)

    def _place_bundle(self, item: BundleItem) -> None:
        a, b = item.key
        ca, ra = self._rep_geometry(a)
        cb, rb = self._rep_geometry(b)
        item.set_line(_clip(ca, ra, cb), _clip(cb, rb, ca))

    def _rep_geometry(self, rep: Rep) -> tuple[QPointF, QRectF]:
        """Centre (scene) and local rect of a shown object."""
        if rep.startswith("d:"):
            item: QGraphicsItem | None = self.device_items.get(rep[2:])
            if item is not None:
                return item.pos(), item.rect()  # type: ignore[attr-defined]
        else:
            item = self.boxes.get(rep[2:])
            if item is not None:
                return item.pos(), item.rect()  # type: ignore[attr-defined]
        return QPointF(), QRectF()

    def update_bundles_of(self, reps: Iterable[Rep]) -> None:
        """Re-place the bundles touching shown objects (during a drag, before the model moves)."""
        keys: set[tuple[Rep, Rep]] = set()
        for rep in reps:
            keys.update(self._rep_bundles.get(rep, ()))
        for key in keys:
            item = self.bundle_items.get(key)
            if item is not None:
                self._place_bundle(item)
        if self.sketched:
            self.invalidate_sketch()


def _clip(centre: QPointF, rect: QRectF, toward: QPointF) -> QPointF:
    """Where the segment from ``centre`` to ``toward`` leaves ``rect`` (local, centred on ``centre``)."""
    dx = toward.x() - centre.x()
    dy = toward.y() - centre.y()
    hw, hh = rect.width() / 2, rect.height() / 2
    if (dx == 0 and dy == 0) or hw == 0:
        return QPointF(centre)
    tx = hw / abs(dx) if dx else float("inf")
    ty = hh / abs(dy) if dy else float("inf")
    t = min(tx, ty, 1.0)
    return QPointF(centre.x() + dx * t, centre.y() + dy * t)
