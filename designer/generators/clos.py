"""Pieces shared by the folded-Clos generators (leaf-spine, clos3, fat-tree, rail-optimized)."""

from __future__ import annotations

from designer.generators.base import Builder, spread
from designer.model import Device
from designer.model.catalog import Component

#: Switches per network rack, and the height of the lowest one and of each 1U step, metres.
SWITCHES_PER_RACK = 16
SWITCH_BASE_M = 0.5
SWITCH_STEP_M = 0.045
#: Height of a top-of-rack switch, metres.
TOR_HEIGHT_M = 1.9


def switch_row(
    b: Builder,
    comp: Component,
    ids: list[str],
    *,
    tier: str,
    y: float,
    left: float,
    right: float,
    group_prefix: str,
    parent: str | None = None,
    props: dict | None = None,
    new_row: bool = False,
) -> list[Device]:
    """Switches ``ids`` spread over [left, right] at canvas row ``y``, stacked in network racks.

    The racks are groups ``<group_prefix>-rackN`` (N from 1), ``SWITCHES_PER_RACK`` switches each.
    """
    out = []
    xs = spread(len(ids), left, right)
    rack = -1
    for i, (sid, x) in enumerate(zip(ids, xs, strict=True)):
        slot = i % SWITCHES_PER_RACK
        if slot == 0:
            rack_gid = f"{group_prefix}-rack{i // SWITCHES_PER_RACK + 1}"
            rack = b.rack(rack_gid, f"{tier} rack {i // SWITCHES_PER_RACK + 1}", parent, new_row=new_row and i == 0)
        dev = b.device(comp, sid, tier=tier, x=x, y=y, group=rack_gid, properties=dict(props or {}))
        b.place(sid, rack, SWITCH_BASE_M + slot * SWITCH_STEP_M)
        out.append(dev)
    return out


def connect_all(b: Builder, lower: list[Device], upper: list[Device], per_pair: int) -> None:
    """Join every lower switch to every upper switch with ``per_pair`` links each.

    Links are ``<lower>--<upper>``, then ``<lower>--<upper>.2``...; a lower switch's uplinks are
    spread round the upper switches (``p33`` to the first, ``p34`` to the second...).
    """
    for lo in lower:
        for m in range(1, per_pair + 1):
            suffix = "" if m == 1 else f".{m}"
            for up in upper:
                b.cable_link(f"{lo.id}--{up.id}{suffix}", lo, up)
