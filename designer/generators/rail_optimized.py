"""``rail-optimized``: an NVIDIA DGX SuperPOD-style fabric of scalable units (SUs).

An SU is ``nodes_per_su`` servers of ``gpus_per_node`` GPUs and one leaf switch per rail: NIC I
of every server of SU N goes to leaf ``suN-leafI`` (rail I). Each leaf has ``nodes_per_su /
oversubscription`` uplinks.

Two tiers when one spine layer can reach every leaf: the fewest spines that give every leaf
the same number of links to each spine (4 SUs of QM9700: 32 leaves, 16 spines, 2 links per
pair, as in the DGX SuperPOD H100 reference design). Otherwise three tiers: SUs are grouped into
pods of ``sus_per_pod`` SUs, each pod has its own spines (half their ports down, half up),
and spine S of every pod joins core plane S (a k-ary fat-tree of leaves, spines and cores).

``ufm=True`` gives one server slot of the last SU to a UFM fabric-manager appliance with
``ufm_links`` links to that SU's first leaves (the published SuperPOD counts: 127 nodes per
4 SUs, 1,020 node-and-UFM-to-leaf cables). The appliance is a ``storage``-kind device with
``properties.role = "ufm"`` because the model has no management-host kind; its power and price are
those of the catalog's ``ufm-appliance``, written as the device's own ``power_w`` / ``price_usd``.

Ids: ``suN-nodeM-gpuI``, ``suN-nodeM-nicI``, ``suN-nodeM-nvsw``, ``suN-leafI``, ``spineS`` (two
tiers) or ``podP-spineS`` and ``coreC`` (three tiers), ``suN-ufm``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from designer.generators.base import (
    COLUMN_GAP,
    DX,
    FRAME_GAP,
    NODE_DY,
    RACK_GAP,
    TIER_DY,
    Builder,
    switch_ports,
    upper_tier_size,
    whole,
)
from designer.generators.clos import SWITCH_BASE_M, SWITCH_STEP_M, connect_all, switch_row
from designer.generators.params import (
    GeneratorError,
    GeneratorSpec,
    Param,
    breakout_params,
    cabling_params,
    node_params,
    setting,
)
from designer.generators.server import NodeKit, add_node, node_height_m, node_kit
from designer.model import Design, Device, PortGroup, units
from designer.model.catalog import Catalog, Component
from designer.model.geometry import FRAME_HEADER, FRAME_PADDING

KIND = "rail-optimized"
#: The catalog component whose power and price a UFM appliance carries.
UFM_MODEL = "ufm-appliance"


def plan_spines(leaves: int, uplinks: int, spine_ports: int, spine_id: str) -> tuple[int, int] | None:
    """Two-tier spine count and links per leaf-spine pair, or None when one spine layer cannot reach."""
    try:
        return upper_tier_size(KIND, leaves, uplinks, spine_ports, "leaves", "spines", spine_id)
    except GeneratorError:
        return None


@dataclass(frozen=True)
class _Tiers:
    """The switch tiers above the leaves: pods, spines per pod, cores per plane, links between tiers."""

    count: int
    pods: int
    pod_sus: int
    spines_per_pod: int
    leaf_spine_links: int
    cores_per_plane: int = 0
    spine_core_links: int = 0


@dataclass(frozen=True)
class _Canvas:
    """Where things go: SU columns and rows inside a pod, pods in a grid (canvas units)."""

    compute_racks: int
    per_column: int
    node_w: float
    col_w: float
    su_w: float
    leaf_dx: float
    top: float
    su_row_h: float
    sus_per_row: int
    pod_w: float
    pod_h: float
    pods_per_row: int


@dataclass
class _Fabric:
    """What every step of one build shares: the builder, the models, the settings, the plans and tallies."""

    b: Builder
    leaf_c: Component
    spine_c: Component
    core_c: Component
    kit: NodeKit
    sus: int
    nodes_per_su: int
    nodes_per_rack: int
    ufm: bool
    ufm_links: int
    tiers: _Tiers
    canvas: _Canvas
    nodes: int = 0
    gpus: int = 0

    @property
    def rails(self) -> int:
        return self.kit.gpus


def _check_counts(b: Builder, sus: int, tiers: int, nodes_per_su: int) -> None:
    """Refuse SU, tier and server counts that make no fabric."""
    if sus < 1:
        raise b.error(f"sus must be at least 1, got {sus}")
    if tiers not in (0, 2, 3):
        raise b.error(f"tiers must be 2, 3 or 0 (automatic), got {tiers}")
    if nodes_per_su < 1:
        raise b.error(f"nodes_per_su must be at least 1, got {nodes_per_su}")


def _leaf_uplinks(b: Builder, kit: NodeKit, leaf_c: Component, nodes_per_su: int, oversubscription: float) -> int:
    """Uplinks per leaf, refusing a server without NICs or a leaf with too few ports."""
    if kit.nic is None:
        raise b.error("a rail-optimized fabric needs a NIC per GPU")
    uplinks = whole(KIND, f"uplinks per leaf (nodes_per_su / oversubscription = {nodes_per_su}/{oversubscription:g})",
                    nodes_per_su / oversubscription)
    leaf_ports = switch_ports(leaf_c)
    if nodes_per_su + uplinks > leaf_ports:
        raise b.error(f"each leaf needs {nodes_per_su} host + {uplinks} uplink ports but {leaf_c.id} has {leaf_ports}")
    return uplinks


def _check_ufm(b: Builder, ufm: bool, ufm_links: int, rails: int, sus: int, nodes_per_su: int) -> None:
    """Refuse a UFM appliance with more links than rail leaves, or one that takes the only server."""
    if ufm and not 1 <= ufm_links <= rails:
        raise b.error(f"{setting('ufm_links', metavar='N')} must be 1..{rails} (one per rail leaf of the freed "
                      f"server slot), got {ufm_links}")
    if ufm and sus == 1 and nodes_per_su < 2:
        raise b.error(f"ufm takes one server slot: a single SU needs at least 2 servers, "
                      f"{setting('nodes_per_su', 2)}")


def _plan_tiers(b: Builder, tiers: int, sus: int, sus_per_pod: int, rails: int, uplinks: int,
                spine_c: Component, core_c: Component) -> _Tiers:
    """Two tiers when one spine layer reaches every leaf (or ``tiers`` says so), else pods and cores."""
    leaves = sus * rails
    spine_ports, core_ports = switch_ports(spine_c), switch_ports(core_c)
    two = plan_spines(leaves, uplinks, spine_ports, spine_c.id) if tiers in (0, 2) else None
    if tiers == 2 and two is None:
        raise b.error(f"{leaves} leaves need one port each on every spine but {spine_c.id} has {spine_ports}; "
                      f"use {setting('tiers', 3)}, or {setting('tiers', 0)} for automatic")
    if two is not None:
        return _Tiers(2, 1, sus, *two)
    spine_down = spine_ports // 2
    pod_sus = sus_per_pod or spine_down // rails
    if pod_sus < 1 or pod_sus * rails > spine_down:
        raise b.error(f"a pod of {units.count(max(pod_sus, 1), 'SU')} has {max(pod_sus, 1) * rails} leaves but a "
                      f"{spine_ports}-port {spine_c.id} spine has {spine_down} ports down")
    pod_sus = min(pod_sus, sus)
    pods = -(-sus // pod_sus)
    spines_per_pod, leaf_spine_links = upper_tier_size(
        KIND, pod_sus * rails, uplinks, spine_down, "leaves per pod", "spines", spine_c.id)
    spine_up = pod_sus * rails * leaf_spine_links
    cores_per_plane, spine_core_links = upper_tier_size(KIND, pods, spine_up, core_ports, "pods", "cores", core_c.id)
    return _Tiers(3, pods, pod_sus, spines_per_pod, leaf_spine_links, cores_per_plane, spine_core_links)


def _best_columns(count: int, w: float, h: float) -> int:
    """Columns of a grid of ``count`` blocks of ``w`` x ``h`` that come nearest to twice as wide as tall."""
    return min(range(1, count + 1), key=lambda c: abs(c * w / (-(-count // c) * h) - 2.0))


def _plan_canvas(kit: NodeKit, nodes_per_su: int, nodes_per_rack: int, tiers: _Tiers) -> _Canvas:
    """Sizes and places of SUs and pods on the canvas, about twice as wide as tall to fit a window."""
    # Each SU is a block of node columns, a column holding whole racks, about four columns per SU so
    # that a unit reads as a wide block rather than one tall stack.
    rails = kit.gpus
    compute_racks = -(-nodes_per_su // nodes_per_rack)
    racks_per_column = max(1, -(-compute_racks // 4))
    per_column = nodes_per_rack * racks_per_column
    node_columns = -(-nodes_per_su // per_column)
    node_w = kit.width + COLUMN_GAP
    col_w = node_columns * node_w + 2 * COLUMN_GAP
    su_w = col_w - 3 * COLUMN_GAP
    leaf_dx = max(DX, (su_w - DX) / max(1, rails - 1)) if rails > 1 else DX
    top = TIER_DY if tiers.count == 3 else 0.0
    # One pod's SUs wrap into rows (each with its own leaf row), several pods tile a grid. Rows leave
    # room for the frames: from a leaf row to the bottom of its SU's frame (server, rack and SU frames
    # under the last server), then a gap and the frames above the next leaf row.
    frame = FRAME_PADDING + FRAME_HEADER
    su_block = TIER_DY + (per_column - 1) * NODE_DY + (racks_per_column - 1) * RACK_GAP + 83 + 3 * FRAME_PADDING
    su_row_h = su_block + FRAME_GAP + 26 + 2 * frame
    pods, pod_sus = tiers.pods, tiers.pod_sus
    sus_per_row = _best_columns(pod_sus, col_w, su_row_h) if pods == 1 else pod_sus
    pod_w = sus_per_row * col_w
    pod_h = TIER_DY + (-(-pod_sus // sus_per_row) - 1) * su_row_h + su_block + FRAME_PADDING + FRAME_GAP \
        + 26 + 3 * frame
    pods_per_row = _best_columns(pods, pod_w, pod_h) if pods > 1 else 1
    return _Canvas(compute_racks, per_column, node_w, col_w, su_w, leaf_dx, top, su_row_h, sus_per_row,
                   pod_w, pod_h, pods_per_row)


def _su_racks(f: _Fabric, n: int, su: str, new_row: bool) -> tuple[str, int, list[tuple[str, int]]]:
    """An SU's racks: its network rack in the middle of the row, the compute racks either side."""
    rack_ids: list[tuple[str, int]] = []
    net_slot = f.canvas.compute_racks // 2
    for r in range(f.canvas.compute_racks + 1):
        gid = f"su{n}-rack{r + 1}"
        rack_ids.append((gid, f.b.rack(gid, "", su, new_row=(r == 0 and new_row))))
    net_gid, net_rack = rack_ids[net_slot]
    return net_gid, net_rack, rack_ids[:net_slot] + rack_ids[net_slot + 1:]


def _rail_leaves(f: _Fabric, n: int, left: float, leaf_y: float, net_gid: str, net_rack: int) -> list[Device]:
    """An SU's leaf per rail, in a row on the canvas and stacked in the network rack."""
    su_leaves = []
    for r in range(1, f.rails + 1):
        leaf = f.b.device(f.leaf_c, f"su{n}-leaf{r}", tier="leaf", x=left + (r - 1) * f.canvas.leaf_dx, y=leaf_y,
                          group=net_gid, properties={"su": n, "rail": r})
        f.b.place(leaf.id, net_rack, SWITCH_BASE_M + (r - 1) * SWITCH_STEP_M)
        su_leaves.append(leaf)
    return su_leaves


def _su_servers(f: _Fabric, n: int, su_nodes: int, compute: list[tuple[str, int]], left: float, node_y: float,
                su_leaves: list[Device]) -> None:
    """An SU's servers in their racks, NIC I of each cabled to rail leaf I."""
    c = f.canvas
    for m in range(1, su_nodes + 1):
        rack_gid, rack = compute[(m - 1) // f.nodes_per_rack]
        column, row = divmod(m - 1, c.per_column)
        nics = add_node(f.b, f.kit, f"su{n}-node{m}", name="", parent=rack_gid, x=left + column * c.node_w,
                        y=node_y + row * NODE_DY + row // f.nodes_per_rack * RACK_GAP, rack=rack,
                        height_m=node_height_m((m - 1) % f.nodes_per_rack), props={"su": n})
        for nic_dev, leaf in zip(nics, su_leaves, strict=True):
            f.b.cable_link(f"{nic_dev.id}--{leaf.id}", nic_dev, leaf)


def _add_ufm(f: _Fabric, n: int, x: float, y: float, net_gid: str, net_rack: int, su_leaves: list[Device]) -> None:
    """The UFM appliance in the SU's network rack, cabled to its first ``ufm_links`` leaves."""
    b = f.b
    port = next(g for g in f.kit.nic.ports if g.kind == "network")
    # Its ports follow the fabric's NICs, so it carries the catalog appliance's power and
    # price as its own figures rather than the model (whose ports may differ).
    ufm_model = b.catalog.components.get(UFM_MODEL)
    ufm_figures = ({"based_on": UFM_MODEL, "power_w": ufm_model.power_w, "price_usd": ufm_model.price_usd}
                   if ufm_model is not None else {})
    appliance = b.add(Device(
        f"su{n}-ufm", "storage",
        (PortGroup("p", f.ufm_links, float(port.speed_gbps), "network", port.form_factor),),
        # Drawn at the end of the leaf row: it stands in the network rack with the leaves.
        name="UFM fabric manager appliance", x=x, y=y, group=net_gid,
        properties={"role": "ufm", "su": n, **ufm_figures},
    ))
    b.place(appliance.id, net_rack, node_height_m(0))
    for leaf in su_leaves[:f.ufm_links]:
        b.cable_link(f"{appliance.id}--{leaf.id}", appliance, leaf)


def _build_su(f: _Fabric, n: int, pod_gid: str | None, first_su: int, new_row: bool, pod_x: float,
              pod_y: float) -> list[Device]:
    """One scalable unit: its racks, rail leaves, servers cabled to them, and the UFM in the last SU."""
    c = f.canvas
    su = f.b.group(f"su{n}", "su", f"SU {n}", pod_gid, su=n)
    su_row, su_col = divmod(n - first_su, c.sus_per_row)
    left = pod_x + su_col * c.col_w
    leaf_y = pod_y + TIER_DY + su_row * c.su_row_h
    net_gid, net_rack, compute = _su_racks(f, n, su, new_row)
    su_leaves = _rail_leaves(f, n, left, leaf_y, net_gid, net_rack)
    with_ufm = f.ufm and n == f.sus
    su_nodes = f.nodes_per_su - 1 if with_ufm else f.nodes_per_su
    _su_servers(f, n, su_nodes, compute, left, leaf_y + TIER_DY, su_leaves)
    f.nodes += su_nodes
    f.gpus += su_nodes * f.rails
    if with_ufm:
        _add_ufm(f, n, left + c.su_w, leaf_y, net_gid, net_rack, su_leaves)
    return su_leaves


def _build_pod(f: _Fabric, p: int) -> list[Device]:
    """Pod ``p``: its SUs, then its spines cabled to every leaf of the pod; returns the spines."""
    t, c = f.tiers, f.canvas
    three = t.count == 3
    pod_gid = f.b.group(f"pod{p}", "pod", f"pod {p}") if three else None
    first_su = (p - 1) * t.pod_sus + 1
    last_su = min(f.sus, p * t.pod_sus)
    pod_row, pod_col = divmod(p - 1, c.pods_per_row)
    pod_x, pod_y = pod_col * c.pod_w, c.top + pod_row * c.pod_h
    pod_leaves: list[Device] = []
    for n in range(first_su, last_su + 1):
        pod_leaves.extend(_build_su(f, n, pod_gid, first_su, n == first_su and p > 1, pod_x, pod_y))
    names = ([f"pod{p}-spine{s}" for s in range(1, t.spines_per_pod + 1)] if three
             else [f"spine{s}" for s in range(1, t.spines_per_pod + 1)])
    spines = switch_row(
        f.b, f.spine_c, names, tier="spine", y=pod_y, left=pod_x,
        right=pod_x + (min(c.sus_per_row, last_su - first_su + 1) - 1) * c.col_w + (f.rails - 1) * c.leaf_dx,
        group_prefix=f"pod{p}-spine" if three else "spine",
        parent=pod_gid, props={"pod": p} if three else {}, new_row=True,
    )
    connect_all(f.b, pod_leaves, spines, t.leaf_spine_links)
    return spines


def _add_cores(f: _Fabric, spines_by_pod: list[list[Device]]) -> int:
    """The core row: spine S of every pod cabled to core plane S. Returns the number of cores."""
    t, c = f.tiers, f.canvas
    cores = t.spines_per_pod * t.cores_per_plane
    core_devs = switch_row(
        f.b, f.core_c, [f"core{i}" for i in range(1, cores + 1)], tier="core", y=0.0,
        left=0.0, right=(min(t.pods, c.pods_per_row) * c.sus_per_row - 1) * c.col_w + (f.rails - 1) * c.leaf_dx,
        group_prefix="core", new_row=True,
    )
    for spines in spines_by_pod:
        for s, spine in enumerate(spines):
            plane = core_devs[s * t.cores_per_plane:(s + 1) * t.cores_per_plane]
            connect_all(f.b, [spine], plane, t.spine_core_links)
    return cores


def _build_rail_optimized(
    catalog: Catalog | None,
    *,
    sus: int,
    nodes_per_su: int,
    oversubscription: float,
    tiers: int,
    sus_per_pod: int,
    ufm: bool,
    ufm_links: int,
    switch: str,
    spine_switch: str,
    core_switch: str,
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
    _check_counts(b, sus, tiers, nodes_per_su)
    leaf_c = b.model(switch, "switch", "leaf switch")
    spine_c = b.model(spine_switch or switch, "switch", "spine switch")
    core_c = b.model(core_switch or spine_switch or switch, "switch", "core switch")
    kit = node_kit(b, gpus_per_node, gpu, nic, nvswitch, nvlink)
    uplinks = _leaf_uplinks(b, kit, leaf_c, nodes_per_su, oversubscription)
    _check_ufm(b, ufm, ufm_links, gpus_per_node, sus, nodes_per_su)
    plan = _plan_tiers(b, tiers, sus, sus_per_pod, gpus_per_node, uplinks, spine_c, core_c)
    f = _Fabric(b, leaf_c, spine_c, core_c, kit, sus, nodes_per_su, nodes_per_rack, ufm, ufm_links, plan,
                _plan_canvas(kit, nodes_per_su, nodes_per_rack, plan))
    spines_by_pod = [_build_pod(f, p) for p in range(1, plan.pods + 1)]
    cores = _add_cores(f, spines_by_pod) if plan.count == 3 else 0
    leaves, spines, ratio = sus * gpus_per_node, plan.spines_per_pod * plan.pods, nodes_per_su / uplinks
    return b.design(
        f"rail-optimized {f.gpus:,} GPUs",
        f"Rail-optimized {plan.count}-tier fabric: {units.count(sus, 'SU')} of {nodes_per_su} x {gpus_per_node}-GPU "
        f"{gpu} nodes"
        + (" (one slot used by UFM)" if ufm else "")
        + f", {leaves} leaf + {spines} spine" + (f" + {cores} core" if cores else "")
        + f" {leaf_c.id} switches, {ratio:g}:1 at the leaves",
        sus=sus, nodes=f.nodes, gpus=f.gpus, tiers=plan.count, oversubscription=ratio,
    )


SPEC = GeneratorSpec(
    kind=KIND,
    description="DGX SuperPOD-style rail-optimized fabric: SUs of 32 nodes, a leaf per rail, spines, core if needed",
    params=(
        Param("sus", "int", 1, "scalable units", minimum=1, maximum=1024),
        Param("nodes_per_su", "int", 32, "servers per scalable unit (host ports per leaf)", minimum=1, maximum=1024),
        Param("oversubscription", "float", 1.0, "leaf host ports per uplink (1 = non-blocking, 2 = 2:1)",
              minimum=1.0, maximum=64.0),
        Param("tiers", "int", 0, "switch tiers: 2, 3, or 0 = two when one spine layer reaches every leaf",
              minimum=0, maximum=3),
        Param("sus_per_pod", "int", 0, "SUs per pod in a 3-tier fabric (0 = as many as a spine's down ports take)",
              minimum=0, maximum=1024),
        Param("ufm", "bool", False, "give one server slot of the last SU to a UFM appliance (SuperPOD practice)"),
        Param("ufm_links", "int", 4, "links from the UFM appliance to the last SU's leaves", minimum=1, maximum=64),
        Param("switch", "model", "qm9700", "leaf switch model", model_kind="switch"),
        Param("spine_switch", "model", "", "spine switch model ('' = same as leaf)", model_kind="switch"),
        Param("core_switch", "model", "", "core switch model ('' = same as spine)", model_kind="switch"),
    )
    + node_params()
    + cabling_params(long_medium="optical")
    + breakout_params(),
    func=_build_rail_optimized,
)


def build_rail_optimized(catalog: Catalog | None = None, **params: Any) -> Design:
    """A rail-optimized fabric of ``sus`` scalable units (two or three switch tiers).

    Parameters, defaults and limits are ``SPEC.params`` (an unknown or out-of-range value raises
    GeneratorError); ``catalog`` None is the built-in catalog.

    >>> d = build_rail_optimized(sus=1, nodes_per_su=4)
    >>> sorted(x.id for x in d.devices if x.tier == "spine")
    ['spine1']
    """
    return SPEC.build(catalog, **params)
