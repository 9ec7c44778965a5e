"""Pieces shared by the folded-Clos generators (leaf-spine, clos3, fat-tree, rail-optimized)."""

from __future__ import annotations

from designer.generators.base import DX, NODE_DY, RACK_GAP, Builder, spread
from designer.generators.server import NodeKit, add_node, node_height_m
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

    The racks are groups ``<group_prefix>-rackN`` (N from 1), ``SWITCHES_PER_RACK`` switches each;
    on the canvas each rack's switches are ``RACK_GAP`` further apart from the next rack's.
    """
    out = []
    gaps = (len(ids) - 1) // SWITCHES_PER_RACK * RACK_GAP
    xs = [x + i // SWITCHES_PER_RACK * RACK_GAP
          for i, x in enumerate(spread(len(ids), left, max(left, right - gaps)))]
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


def tor_leaves(
    b: Builder,
    kit: NodeKit,
    leaf_c: Component,
    *,
    leaves: int,
    hosts_per_leaf: int,
    prefix: str,
    parent: str | None,
    left: float,
    leaf_y: float,
    node_y: float,
    nodes_per_rack: int,
    props: dict | None = None,
) -> list[Device]:
    """Leaves ``<prefix>leafL``, each the top-of-rack switch of ``hosts_per_leaf / gpus`` servers.

    Servers are ``<prefix>nodeN`` (N counted across the leaves), stacked in a canvas column under
    their leaf and in racks ``<prefix>rackR`` of ``nodes_per_rack``; each NIC links to its leaf.
    """
    col_w = kit.width + DX
    nodes_per_leaf = hosts_per_leaf // kit.gpus
    out = []
    node_no = 0
    for li in range(1, leaves + 1):
        x0 = left + (li - 1) * col_w
        rack, rack_gid = -1, ""
        leaf = None
        for n in range(nodes_per_leaf):
            slot = n % nodes_per_rack
            if slot == 0:
                rack_gid = f"{prefix}rack{b.rack_count + 1}"
                rack = b.rack(rack_gid, "", parent)
            if leaf is None:
                leaf = b.device(leaf_c, f"{prefix}leaf{li}", tier="leaf", x=x0 + (kit.gpus - 1) * DX / 2,
                                y=leaf_y, group=rack_gid, properties=dict(props or {}))
                b.place(leaf.id, rack, TOR_HEIGHT_M)
                out.append(leaf)
            node_no += 1
            nics = add_node(b, kit, f"{prefix}node{node_no}", name="", parent=rack_gid, x=x0,
                            y=node_y + n * NODE_DY + n // nodes_per_rack * RACK_GAP, rack=rack,
                            height_m=node_height_m(slot), props=props)
            for nic_dev in nics:
                b.cable_link(f"{nic_dev.id}--{leaf.id}", nic_dev, leaf)
    return out
