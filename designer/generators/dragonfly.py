"""``dragonfly``: groups of routers, all-to-all inside a group, global links between groups.

Kim, Dally, Scott, Abts (ISCA 2008): each router has ``p`` terminals, ``a - 1`` local links (one
to every other router of its group) and ``h`` global links; ``g`` groups (default ``a*h + 1``,
one global link between every pair of groups). The balanced default is ``a = 2p = 2h``. With
fewer groups, every pair of groups gets ``a*h // (g - 1)`` global links. Global ports are
handed out in rounds: in each round every pair (i, j), i < j, takes the next free global port
of each group (router = port // h), which spreads a group's links over its routers.
Terminals are the NICs of servers of ``gpus_per_node`` GPUs filling each group in order.
Ids: ``gG-routerR``, ``gG-nodeN-gpuI``.
"""

from __future__ import annotations

from typing import Any

from designer.generators.base import DX, NODE_DY, TIER_DY, Builder, switch_ports
from designer.generators.clos import SWITCH_BASE_M, SWITCH_STEP_M, SWITCHES_PER_RACK
from designer.generators.params import GeneratorSpec, Param, breakout_params, cabling_params, node_params, setting
from designer.generators.server import add_node, node_height_m, node_kit
from designer.model import Design
from designer.model.catalog import Catalog
from designer.model.units import count

KIND = "dragonfly"


def _build_dragonfly(
    catalog: Catalog | None,
    *,
    p: int,
    a: int,
    h: int,
    g: int,
    switch: str,
    gpus_per_node: int,
    gpu: str,
    nic: str,
    nvswitch: str,
    nvlink: str,
    nodes_per_rack: int,
    cable: str,
    copper_max_m: float,
    long_medium: str,
    racks_per_row: int,
    breakout: int,
) -> Design:
    """Build from parameters ``SPEC.check`` filled in and checked (the defaults live in ``SPEC``)."""
    b = Builder(KIND, catalog, cable=cable, copper_max_m=copper_max_m, long_medium=long_medium,
                racks_per_row=racks_per_row, breakout=breakout)
    for name, value in (("p", p), ("a", a), ("h", h)):
        if value < 1:
            raise b.error(f"{name} must be at least 1, got {value}")
    groups = g or a * h + 1
    if groups < 2:
        raise b.error(f"g must be at least 2 groups, got {groups}")
    if groups - 1 > a * h:
        raise b.error(f"g={groups} groups need {groups - 1} global links per group but a*h = {a * h}")
    router_c = b.model(switch, "switch", "router")
    ports = switch_ports(router_c)
    need = p + (a - 1) + h
    if need > ports:
        raise b.error(
            f"each router needs {p} terminal + {a - 1} local + {h} global ports but {router_c.id} has {ports}")
    kit = node_kit(b, gpus_per_node, gpu, nic, nvswitch, nvlink)
    terminals = a * p
    if terminals % gpus_per_node:
        raise b.error(f"a*p = {terminals} terminals per group is not a multiple of "
                      f"{setting('gpus_per_node', gpus_per_node)}")
    nodes_per_group = terminals // gpus_per_node
    per_pair = (a * h) // (groups - 1)

    # Canvas: the routers in a row, the servers under them in one column per rack.
    racks_per_group = -(-nodes_per_group // nodes_per_rack)
    col_w = kit.width + DX
    group_w = max(a * DX, racks_per_group * col_w) + 2 * DX
    routers: list[list] = []
    for gi in range(1, groups + 1):
        left = (gi - 1) * group_w
        grp = b.group(f"g{gi}", "pod", f"group {gi}")
        net_rack, net_gid = -1, ""
        rts = []
        for r in range(1, a + 1):
            if (r - 1) % SWITCHES_PER_RACK == 0:
                net_gid = f"g{gi}-netrack{(r - 1) // SWITCHES_PER_RACK + 1}"
                net_rack = b.rack(net_gid, "", grp)
            rt = b.device(router_c, f"g{gi}-router{r}", tier="router", x=left + (r - 1) * DX, y=0.0, group=net_gid,
                          properties={"group": gi})
            b.place(rt.id, net_rack, SWITCH_BASE_M + ((r - 1) % SWITCHES_PER_RACK) * SWITCH_STEP_M)
            rts.append(rt)
        routers.append(rts)
        term = 0
        rack, rack_gid = -1, ""
        for nn in range(nodes_per_group):
            slot = nn % nodes_per_rack
            if slot == 0:
                rack_gid = f"g{gi}-rack{nn // nodes_per_rack + 1}"
                rack = b.rack(rack_gid, "", grp)
            nics = add_node(b, kit, f"g{gi}-node{nn + 1}", name="", parent=rack_gid,
                            x=left + nn // nodes_per_rack * col_w, y=TIER_DY + slot * NODE_DY, rack=rack,
                            height_m=node_height_m(slot), props={"group": gi})
            for nic_dev in nics:
                b.cable_link(f"{nic_dev.id}--{rts[term // p].id}", nic_dev, rts[term // p])
                term += 1
        for i in range(a):
            for j in range(i + 1, a):
                b.cable_link(f"{rts[i].id}--{rts[j].id}", rts[i], rts[j])
    next_global = [0] * groups
    seen: dict[tuple[str, str], int] = {}
    for _ in range(per_pair):
        for gi in range(groups):
            for gj in range(gi + 1, groups):
                ri, rj = routers[gi][next_global[gi] // h], routers[gj][next_global[gj] // h]
                next_global[gi] += 1
                next_global[gj] += 1
                m = seen[(ri.id, rj.id)] = seen.get((ri.id, rj.id), 0) + 1
                b.cable_link(f"{ri.id}--{rj.id}{'' if m == 1 else f'.{m}'}", ri, rj)
    gpus = groups * terminals
    return b.design(
        f"dragonfly {gpus:,} GPUs",
        f"dragonfly p={p} a={a} h={h} g={groups}: {groups * a} {router_c.id} routers, {gpus} terminals, "
        f"{count(per_pair, 'global link')} per group pair",
        p=p, a=a, h=h, groups=groups,
    )


SPEC = GeneratorSpec(
    kind=KIND,
    description="dragonfly (Kim et al.): g groups of a all-to-all routers, p terminals and h global links each",
    params=(
        Param("p", "int", 4, "terminals (NICs) per router", minimum=1, maximum=256),
        Param("a", "int", 8, "routers per group (balanced: a = 2p = 2h)", minimum=1, maximum=256),
        Param("h", "int", 4, "global links per router", minimum=1, maximum=256),
        Param("g", "int", 0, "groups (0 = a*h + 1: one global link between every pair of groups)",
              minimum=0, maximum=4097),
        Param("switch", "model", "qm9700", "router switch model (needs p + a - 1 + h ports)", model_kind="switch"),
    )
    + node_params(gpus_per_node=4)
    + cabling_params()
    + breakout_params(),
    func=_build_dragonfly,
)


def build_dragonfly(catalog: Catalog | None = None, **params: Any) -> Design:
    """A dragonfly of ``g`` groups of ``a`` routers with ``p`` terminals and ``h`` global links each.

    Parameters, defaults and limits are ``SPEC.params`` (an unknown or out-of-range value raises
    GeneratorError); ``catalog`` None is the built-in catalog.

    >>> d = build_dragonfly(p=1, a=2, h=1, gpus_per_node=1)
    >>> sum(x.tier == "router" for x in d.devices), d.properties["groups"]
    (6, 3)
    """
    return SPEC.build(catalog, **params)
