"""Link bundles of the scene: one line per pair of shown objects joined by links.

Parallel links, and the external links of a collapsed group, share one :class:`BundleItem`
whose width is their total rate and whose style is their medium. :class:`LinkBundles` keeps
which links each bundle holds and which bundles touch each shown object; it reaches the scene
only through :class:`BundleHost`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from itertools import chain, compress, filterfalse
from operator import attrgetter, not_
from typing import Protocol

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtWidgets import QGraphicsItem

from designer.gui import style
from designer.gui.canvas.items import BundleItem
from designer.gui.canvas.overlay import LinkMarks
from designer.gui.canvas.shown import BundleKey, ShownKey, bundle_key
from designer.model import Design, Link
from designer.model.catalog import Catalog, link_rates_gbps
from designer.model.hierarchy import bundled_ends

_ID = attrgetter("id")
_MEDIUM = attrgetter("medium")
_FAILED = attrgetter("failed")


class BundleHost(Protocol):
    """What the bundles need from the scene."""

    design: Design | None
    catalog: Catalog
    sketched: bool
    marks: LinkMarks

    def shown_key_of(self, device_id: str) -> ShownKey | None: ...
    def item_for(self, shown: ShownKey) -> QGraphicsItem | None: ...
    def add_item(self, item: QGraphicsItem) -> None: ...
    def drop_item(self, item: QGraphicsItem) -> None: ...
    def link_flagged(self, link_id: str) -> str: ...
    def any_link_flags(self) -> bool: ...
    def invalidate_sketch(self) -> None: ...


class LinkBundles:
    """Bundle bookkeeping (link -> bundle, bundle -> links, shown object -> bundles) and geometry."""

    def __init__(self, host: BundleHost) -> None:
        self._host = host
        #: the bundle items, by key
        self.items: dict[BundleKey, BundleItem] = {}
        self._key_of_link: dict[str, BundleKey | None] = {}
        #: each bundle's links, by id (the design's own records: an edit replaces a link by removing it)
        self._links: dict[BundleKey, dict[str, Link]] = {}
        self._touching: defaultdict[ShownKey, set[BundleKey]] = defaultdict(set)
        self._rates: dict[str, float] = {}  # link id -> line rate (Gb/s), from its ports and cable
        #: what a bundle's pen depends on besides the analysis marks: (total Gb/s, medium, failed, flag)
        self._look: dict[BundleKey, tuple[float, str, bool, str]] = {}

    # ------------------------------------------------------------------ bookkeeping
    def clear(self) -> None:
        """Forget every bundle (the scene already dropped the items)."""
        self.items.clear()
        self._key_of_link.clear()
        self._links.clear()
        self._touching.clear()
        self._rates.clear()
        self._look.clear()

    def forget_rates(self, link_id: str | None = None) -> None:
        """Rates are recomputed on the next refresh: one link's (a new cable), or all (ports changed)."""
        if link_id is None:
            self._rates.clear()
        else:
            self._rates.pop(link_id, None)

    def index(self, design: Design, shown: dict[str, ShownKey]) -> None:
        """Bundle every link of ``design`` by the shown objects at its ends (then :meth:`refresh_all`)."""
        key_of_link, bundle_links, touching = self._key_of_link, self._links, self._touching
        for link, ra, rb in bundled_ends(design.links, shown):
            key = (ra, rb) if ra < rb else (rb, ra)
            key_of_link[link.id] = key
            links = bundle_links.get(key)
            if links is None:
                links = bundle_links[key] = {}
                touching[ra].add(key)
                touching[rb].add(key)
            links[link.id] = link

    def refresh_all(self) -> None:
        d = self._host.design
        if d is not None:  # every rate still unknown worked out in one pass (link_rates_gbps shares lookups)
            rates = self._rates
            bundled = list(chain.from_iterable(map(dict.values, self._links.values())))
            missing = list(compress(bundled, map(not_, map(rates.__contains__, map(_ID, bundled)))))
            rates.update(zip(map(_ID, missing), link_rates_gbps(d, missing, self._host.catalog), strict=True))
        for key in list(self._links):
            self.refresh(key)

    def add_link(self, link: Link) -> BundleKey | None:
        """Put ``link`` in the bundle between the objects showing its ends; return that bundle's key."""
        host = self._host
        ra, rb = host.shown_key_of(link.a_device), host.shown_key_of(link.b_device)
        if ra is None or rb is None or ra == rb:
            self._key_of_link[link.id] = None
            return None
        key = bundle_key(ra, rb)
        self._key_of_link[link.id] = key
        links = self._links.get(key)
        if links is None:
            links = self._links[key] = {}
            self._touching[key[0]].add(key)
            self._touching[key[1]].add(key)
        links[link.id] = link
        return key

    def remove_link(self, link_id: str) -> BundleKey | None:
        """Take a link out of its bundle; return the key of the bundle to refresh."""
        self._rates.pop(link_id, None)
        key = self._key_of_link.pop(link_id, None)
        links = self._links.get(key) if key is not None else None
        if links is None:
            return None
        links.pop(link_id, None)
        return key

    def rebundle(self, link: Link) -> list[BundleKey]:
        """Move a link to the bundle its ends now call for; return the bundles to refresh."""
        out = []
        key = self._key_of_link.get(link.id)
        if key is not None:
            self._links.get(key, {}).pop(link.id, None)
            out.append(key)
        new_key = self.add_link(link)
        if new_key is not None:
            out.append(new_key)
        return out

    def key_of(self, link_id: str) -> BundleKey | None:
        return self._key_of_link.get(link_id)

    def holds(self, key: BundleKey) -> bool:
        return key in self._links

    def link_ids(self, key: BundleKey) -> list[str]:
        return list(self._links.get(key, ()))

    def touching(self, shown: Iterable[ShownKey]) -> set[BundleKey]:
        """Keys of the bundles with an end at one of these shown objects."""
        keys: set[BundleKey] = set()
        for rep in shown:
            keys.update(self._touching.get(rep, ()))
        return keys

    # ------------------------------------------------------------------ items
    def refresh(self, key: BundleKey) -> None:
        """Make the bundle's item match its links: look, place, or removal when it has none."""
        host = self._host
        links = self._links.get(key)
        item = self.items.get(key)
        if not links:
            self._links.pop(key, None)
            self._look.pop(key, None)
            self._touching.get(key[0], set()).discard(key)
            self._touching.get(key[1], set()).discard(key)
            if item is not None:
                host.drop_item(item)
                del self.items[key]
            return
        if item is None:
            item = BundleItem(key)
            self.items[key] = item
            host.add_item(item)
        d = host.design
        assert d is not None
        rates = self._rates
        members = links.values()
        if not links.keys() <= rates.keys():
            missing = list(map(links.__getitem__, filterfalse(rates.__contains__, links)))
            rates.update(zip(map(_ID, missing), link_rates_gbps(d, missing, host.catalog), strict=True))
        total = sum(map(rates.__getitem__, links))
        media = set(map(_MEDIUM, members))
        failed = all(map(_FAILED, members))
        flagged = ""
        if host.any_link_flags():
            link_flagged = host.link_flagged
            for lid in links:
                flagged = style.worst_flag(flagged, link_flagged(lid))
                if flagged == style.ERROR:
                    break
        look = self._look[key] = (total, media.pop() if len(media) == 1 else "mixed", failed, flagged)
        self._restyle(item, links, look)
        self._place(item)

    def _restyle(self, item: BundleItem, links: dict[str, Link], look: tuple[float, str, bool, str]) -> None:
        total, medium, failed, flagged = look
        marks = self._host.marks
        used = marks.bundle_utilisation(links) if marks.utilisation is not None else None
        if used is not None:
            pen = style.utilisation_pen(used, total, failed=failed, flagged=flagged)
        else:
            pen = style.link_pen(medium, total, failed=failed, flagged=flagged)
        item.set_look(pen, len(links), marks.bundle_halo(links))

    def restyle_all(self, marks_only: bool = True) -> None:
        """Re-pen every bundle; nothing moves. ``marks_only``: only the analysis marks changed
        (utilisation, halos), so each bundle's rate, medium, failure and rule flag are taken as
        last computed; otherwise they are computed again (the rule marks were shown or hidden)."""
        for key, links in list(self._links.items()):
            look = self._look.get(key) if marks_only else None
            item = self.items.get(key)
            if look is None or item is None:
                self.refresh(key)
            else:
                self._restyle(item, links, look)

    def follow(self, shown: Iterable[ShownKey]) -> None:
        """Re-place the bundles touching shown objects (during a drag, before the model moves)."""
        for key in self.touching(shown):
            item = self.items.get(key)
            if item is not None:
                self._place(item)
        if self._host.sketched:
            self._host.invalidate_sketch()

    def _place(self, item: BundleItem) -> None:
        a, b = item.key
        ca, ra = self._geometry(a)
        cb, rb = self._geometry(b)
        control = _arc_control(ca, ra, cb, rb, self._kinds(a, b))
        if control is not None:
            # Centre to centre: the two devices, drawn above links, hide the ends.
            item.set_line(ca, cb, control)
        else:
            item.set_line(_clip(ca, ra, cb), _clip(cb, rb, ca))

    def _kinds(self, a: ShownKey, b: ShownKey) -> tuple[str, str]:
        """The device kinds of two shown objects ('' for a group)."""
        ka = getattr(self._host.item_for(a), "kind", "")
        kb = getattr(self._host.item_for(b), "kind", "")
        return (ka if isinstance(ka, str) else "", kb if isinstance(kb, str) else "")

    def _geometry(self, shown: ShownKey) -> tuple[QPointF, QRectF]:
        """Centre (scene) and local rect of a shown object."""
        item = self._host.item_for(shown)
        if item is not None:
            return item.pos(), item.rect()  # type: ignore[attr-defined]
        return QPointF(), QRectF()


def _arc_control(ca: QPointF, ra: QRectF, cb: QPointF, rb: QRectF, kinds: tuple[str, str]) -> QPointF | None:
    """The control point of an arc for a link along a row (or, between GPUs, a column) of devices
    that leaves room for a device between its ends, so that it does not run straight over them
    (a full NVLink mesh, a torus's wrap-around links); None for a straight line.

    Row links bow downwards, column links to the right, a little further the longer they are, but
    staying within half a row or column pitch of the devices (see designer.generators.base)."""
    if not kinds[0] or kinds[0] != kinds[1]:
        return None
    dx, dy = cb.x() - ca.x(), cb.y() - ca.y()
    if abs(dy) < 0.5 and ra.width() > 0:
        gap = abs(dx) - (ra.width() + rb.width()) / 2
        if gap <= min(ra.width(), rb.width()):
            return None
        # The apex (half the control offset) clears the devices between by 5 to 18 units, inside
        # the server frame's bottom padding.
        offset = min(ra.height() + 10 + 10 * math.log2(gap / ra.width()), ra.height() + 36)
        return QPointF((ca.x() + cb.x()) / 2, ca.y() + offset)
    if abs(dx) < 0.5 and kinds[0] == "gpu" and ra.height() > 0:
        gap = abs(dy) - (ra.height() + rb.height()) / 2
        if gap <= min(ra.height(), rb.height()):
            return None
        offset = ra.width() + 10  # apex just beyond the device's side, short of the next column
        return QPointF(ca.x() + offset, (ca.y() + cb.y()) / 2)
    return None


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
