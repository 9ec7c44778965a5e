"""Findings and the catalog checks that every room of the analysis words alike.

A :class:`Finding` is one design-rule result. The checks here are shared by the design rules
(:mod:`designer.analysis.rules.check`), the capacity graph and the bill of materials, so that
``validate`` reports first, in the same words, whatever ``analyze`` would leave out or ``bom``
would count at $0: :func:`catalog_gaps` and :func:`not_in_catalog` (models and cables the catalog
lacks), :func:`is_zero_capacity` with :data:`ZERO_CAPACITY`, :data:`ZERO_LENGTH`,
:func:`is_unpriced_device` and :func:`is_uncabled`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from operator import attrgetter

from designer.analysis.common import constants as K
from designer.model import BOARD_MEDIA, Design, Link
from designer.model.catalog import Catalog
from designer.model.units import count, plural

ERROR = "error"
WARNING = "warning"



@dataclass(frozen=True)
class Finding:
    """One design-rule finding. ``message`` says what is wrong and what to do."""

    severity: str
    code: str
    message: str
    devices: tuple[str, ...] = ()
    links: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "devices": list(self.devices),
            "links": list(self.links),
        }


#: What the analysis calls a link slower than ``constants.MIN_LINK_GBPS`` (it leaves such links out).
ZERO_CAPACITY = "zero-capacity link"
#: Why a 0 m network cable is a problem (the bill of materials counts its shortest orderable length).
ZERO_LENGTH = "0 m long: a 0 m cable cannot be bought"


#: How the bill of materials prices a device whose model is not in the catalog.
UNKNOWN_MODEL_PRICE = "counts it at 0 W, $0 unless it gives power_w/price_usd"


def short_ids(ids: list[str] | tuple[str, ...], limit: int = 3) -> str:
    return ", ".join(ids[:limit]) + ("..." if len(ids) > limit else "")


def unknown_id(what: str, ident: str) -> str:
    """``model 'qm9999' is not in the catalog``: the words for one id the catalog lacks."""
    return f"{what} {ident!r} is not in the catalog"


def not_in_catalog(what: str, gaps: dict[str, tuple[str, ...]], item: str) -> str:
    """The words every command uses for ids missing from the catalog: ``gaps`` maps id -> item ids.

    >>> not_in_catalog("model", {"qm9999": ("leaf1",)}, "device")
    "model 'qm9999' is not in the catalog (1 device: leaf1)"
    >>> not_in_catalog("cable", {"x": ("l1", "l2"), "y": ("l3",)}, "link")
    "2 cables are not in the catalog ('x', 'y'; 3 links: l1, l2, l3)"
    """
    items = [i for ids in gaps.values() for i in ids]
    where = f"{count(len(items), item)}: {short_ids(items)}"
    if len(gaps) == 1:
        return f"{unknown_id(what, next(iter(gaps)))} ({where})"
    names = ", ".join(repr(g) for g in list(gaps)[:3]) + (", ..." if len(gaps) > 3 else "")
    return f"{len(gaps)} {what}s are not in the catalog ({names}; {where})"


@dataclass(frozen=True)
class CatalogGaps:
    """Model and cable ids a design names that the catalog lacks, each with the items naming it."""

    models: dict[str, tuple[str, ...]]
    cables: dict[str, tuple[str, ...]]


def catalog_gaps(design: Design, catalog: Catalog) -> CatalogGaps:
    """The unknown models (-> device ids) and cables (-> link ids) of a design, in design order.

    The one check behind the ``unknown-model`` and ``unknown-cable`` rules and the notes of the
    analysis and the bill of materials. An empty ``model`` or ``cable`` is not unknown.
    """
    return CatalogGaps(_unknown(design.iter_devices(), "model", catalog.components),
                       _unknown(design.iter_links(), "cable", catalog.cables))


def _unknown(items: Iterable, attr: str, known: Mapping) -> dict[str, tuple[str, ...]]:
    """The non-empty ``attr`` values of ``items`` not in ``known`` (first appearance first), each with
    the ids of the items naming it. The distinct values are checked first: most designs have none."""
    items = list(items)
    names = list(map(attrgetter(attr), items))
    missing: dict[str, list[str]] = {x: [] for x in dict.fromkeys(names) if x and x not in known}
    if missing:
        for item, name in zip(items, names, strict=True):
            if name in missing:
                missing[name].append(item.id)
    return {k: tuple(v) for k, v in missing.items()}


def zero_length_message(link: Link, catalog: Catalog) -> str:
    """What ``zero-length`` says about a 0 m network link (and the bill of materials notes)."""
    cable = catalog.cables.get(link.cable) if link.cable else None
    counted = (f"the bill of materials counts its shortest orderable length, {cable.standard_length(0.0):g} m"
               if cable is not None and cable.lengths_m else "the bill of materials prices it at 0 m")
    return f"{link.medium.replace('_', ' ')} link is {ZERO_LENGTH}; {counted}: set the real length"


def zero_length_summary(link_ids: list[str]) -> str:
    """The bill of materials' note on 0 m network links, in the words of the ``zero-length`` rule."""
    n = len(link_ids)
    return (f"{count(n, 'network link')} ({short_ids(link_ids)}) {plural(n, 'is', 'are')} {ZERO_LENGTH}; "
            "counted at the shortest orderable length of the cable (0 m when it lists none)")


def is_zero_capacity(rate_gbps: float) -> bool:
    """True when the analysis leaves a link of this rate out as a zero-capacity link."""
    return not rate_gbps >= K.MIN_LINK_GBPS


UNPRICED = "counted at 0 W, $0"


def is_unpriced_device(dev) -> bool:
    """A custom device (no catalog model) that gives no ``power_w`` or ``price_usd`` of its own."""
    return not dev.model and "power_w" not in dev.properties and "price_usd" not in dev.properties


def is_uncabled(link: Link) -> bool:
    """A network link (not an NVLink/PCIe board connection) with no cable chosen."""
    return not link.cable and link.medium not in BOARD_MEDIA


def findings_by_item(findings: list[Finding]) -> tuple[dict[str, list[Finding]], dict[str, list[Finding]]]:
    """Index findings by device id and by link id (for marking items on the canvas)."""
    by_dev: dict[str, list[Finding]] = defaultdict(list)
    by_link: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        for d in f.devices:
            by_dev[d].append(f)
        for lk in f.links:
            by_link[lk].append(f)
    return dict(by_dev), dict(by_link)
