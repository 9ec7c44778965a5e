"""Keys of the objects the canvas shows: a device, or the collapsed group that hides devices.

Every device maps to one :class:`ShownKey`: its own when it is drawn, its outermost collapsed
group's when it is hidden inside one. Link bundles are keyed by the pair of shown objects at
their ends (:func:`bundle_key`), so parallel links and the external links of a collapsed group
share one line.
"""

from __future__ import annotations

from typing import NamedTuple

DEVICE = "device"
GROUP = "group"


class ShownKey(NamedTuple):
    """A shown object: ``kind`` is :data:`DEVICE` or :data:`GROUP`, ``id`` the model id."""

    kind: str
    id: str

    @classmethod
    def device(cls, device_id: str) -> ShownKey:
        return cls(DEVICE, device_id)

    @classmethod
    def group(cls, group_id: str) -> ShownKey:
        return cls(GROUP, group_id)

    @property
    def is_device(self) -> bool:
        return self.kind == DEVICE

    @property
    def is_group(self) -> bool:
        return self.kind == GROUP


#: The two shown objects a link bundle joins, in sorted order.
BundleKey = tuple[ShownKey, ShownKey]


def bundle_key(a: ShownKey, b: ShownKey) -> BundleKey:
    """The key of the bundle between ``a`` and ``b`` (the same whichever end comes first)."""
    return (a, b) if a < b else (b, a)
