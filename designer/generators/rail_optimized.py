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
from designer.generators.server import add_node, node_height_m, node_kit
from designer.model import Design, Device, PortGroup, units
from designer.model.catalog import Catalog
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
    if sus < 1:
        raise b.error(f"sus must be at least 1, got {sus}")
    if tiers not in (0, 2, 3):
        raise b.error(f"tiers must be 2, 3 or 0 (automatic), got {tiers}")
    if nodes_per_su < 1:
        raise b.error(f"nodes_per_su must be at least 1, got {nodes_per_su}")
    leaf_c = b.model(switch, "switch", "leaf switch")
    spine_c = b.model(spine_switch or switch, "switch", "spine switch")
    core_c = b.model(core_switch or spine_switch or switch, "switch", "core switch")
    kit = node_kit(b, gpus_per_node, gpu, nic, nvswitch, nvlink)
    if kit.nic is None:
        raise b.error("a rail-optimized fabric needs a NIC per GPU")
    rails = gpus_per_node
    uplinks = whole(KIND, f"uplinks per leaf (nodes_per_su / oversubscription = {nodes_per_su}/{oversubscription:g})",
                    nodes_per_su / oversubscription)
    leaf_ports = switch_ports(leaf_c)
    if nodes_per_su + uplinks > leaf_ports:
        raise b.error(f"each leaf needs {nodes_per_su} host + {uplinks} uplink ports but {leaf_c.id} has {leaf_ports}")
    if ufm and not 1 <= ufm_links <= rails:
        raise b.error(f"{setting('ufm_links', metavar='N')} must be 1..{rails} (one per rail leaf of the freed "
                      f"server slot), got {ufm_links}")
    if ufm and sus == 1 and nodes_per_su < 2:
        raise b.error(f"ufm takes one server slot: a single SU needs at least 2 servers, "
                      f"{setting('nodes_per_su', 2)}")
    leaves = sus * rails
    spine_ports, core_ports = switch_ports(spine_c), switch_ports(core_c)
    two = plan_spines(leaves, uplinks, spine_ports, spine_c.id) if tiers in (0, 2) else None
    if tiers == 2 and two is None:
        raise b.error(f"{leaves} leaves need one port each on every spine but {spine_c.id} has {spine_ports}; "
                      f"use {setting('tiers', 3)}, or {setting('tiers', 0)} for automatic")
    if two is not None:
        n_tiers, pods, pod_sus = 2, 1, sus
        spines_per_pod, leaf_spine_links = two
        cores_per_plane = spine_core_links = 0
    else:
        n_tiers = 3
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
        cores_per_plane, spine_core_links = upper_tier_size(
            KIND, pods, spine_up, core_ports, "pods", "cores", core_c.id)

    # Canvas layout: each SU is a block of node columns, a column holding whole racks, about
    # four columns per SU so that a unit reads as a wide block rather than one tall stack.
    compute_racks = -(-nodes_per_su // nodes_per_rack)
    racks_per_column = max(1, -(-compute_racks // 4))
    per_column = nodes_per_rack * racks_per_column
    node_columns = -(-nodes_per_su // per_column)
    node_w = kit.width + COLUMN_GAP
    col_w = node_columns * node_w + 2 * COLUMN_GAP
    su_w = col_w - 3 * COLUMN_GAP
    leaf_dx = max(DX, (su_w - DX) / max(1, rails - 1)) if rails > 1 else DX
    top = TIER_DY if n_tiers == 3 else 0.0
    # The picture should be about twice as wide as tall so that it fits a window: one pod's
    # SUs wrap into rows (each with its own leaf row), several pods tile a grid. Rows leave
    # room for the frames: from a leaf row to the bottom of its SU's frame (server, rack and SU
    # frames under the last server), then a gap and the frames above the next leaf row.
    frame = FRAME_PADDING + FRAME_HEADER
    su_block = TIER_DY + (per_column - 1) * NODE_DY + (racks_per_column - 1) * RACK_GAP + 83 + 3 * FRAME_PADDING
    su_row_h = su_block + FRAME_GAP + 26 + 2 * frame

    def best_columns(count: int, w: float, h: float) -> int:
        return min(range(1, count + 1), key=lambda c: abs(c * w / (-(-count // c) * h) - 2.0))

    sus_per_row = best_columns(pod_sus, col_w, su_row_h) if pods == 1 else pod_sus
    pod_w = sus_per_row * col_w
    pod_h = TIER_DY + (-(-pod_sus // sus_per_row) - 1) * su_row_h + su_block + FRAME_PADDING + FRAME_GAP \
        + 26 + 3 * frame
    pods_per_row = best_columns(pods, pod_w, pod_h) if pods > 1 else 1
    leaves_by_pod: list[list[Device]] = []
    spines_by_pod: list[list[Device]] = []
    nodes_total = gpus_total = 0
    for p in range(1, pods + 1):
        pod_gid = None
        if n_tiers == 3:
            pod_gid = b.group(f"pod{p}", "pod", f"pod {p}")
        pod_leaves: list[Device] = []
        first_su = (p - 1) * pod_sus + 1
        last_su = min(sus, p * pod_sus)
        pod_row, pod_col = divmod(p - 1, pods_per_row)
        pod_x, pod_y = pod_col * pod_w, top + pod_row * pod_h
        spine_y = pod_y
        for n in range(first_su, last_su + 1):
            su = b.group(f"su{n}", "su", f"SU {n}", pod_gid, su=n)
            su_row, su_col = divmod(n - first_su, sus_per_row)
            left = pod_x + su_col * col_w
            leaf_y = pod_y + TIER_DY + su_row * su_row_h
            node_y = leaf_y + TIER_DY
            rack_ids: list[tuple[str, int]] = []
            net_slot = compute_racks // 2
            for r in range(compute_racks + 1):
                gid = f"su{n}-rack{r + 1}"
                rack_ids.append((gid, b.rack(gid, "", su, new_row=(r == 0 and n == first_su and p > 1))))
            net_gid, net_rack = rack_ids[net_slot]
            compute = rack_ids[:net_slot] + rack_ids[net_slot + 1:]
            su_leaves = []
            for r in range(1, rails + 1):
                leaf = b.device(leaf_c, f"su{n}-leaf{r}", tier="leaf", x=left + (r - 1) * leaf_dx, y=leaf_y,
                                group=net_gid, properties={"su": n, "rail": r})
                b.place(leaf.id, net_rack, SWITCH_BASE_M + (r - 1) * SWITCH_STEP_M)
                su_leaves.append(leaf)
            with_ufm = ufm and n == sus
            su_nodes = nodes_per_su - 1 if with_ufm else nodes_per_su
            for m in range(1, su_nodes + 1):
                rack_gid, rack = compute[(m - 1) // nodes_per_rack]
                column, row = divmod(m - 1, per_column)
                nics = add_node(b, kit, f"su{n}-node{m}", name="", parent=rack_gid, x=left + column * node_w,
                                y=node_y + row * NODE_DY + row // nodes_per_rack * RACK_GAP, rack=rack,
                                height_m=node_height_m((m - 1) % nodes_per_rack), props={"su": n})
                for nic_dev, leaf in zip(nics, su_leaves, strict=True):
                    b.cable_link(f"{nic_dev.id}--{leaf.id}", nic_dev, leaf)
            nodes_total += su_nodes
            gpus_total += su_nodes * rails
            if with_ufm:
                port = next(g for g in kit.nic.ports if g.kind == "network")
                # Its ports follow the fabric's NICs, so it carries the catalog appliance's power and
                # price as its own figures rather than the model (whose ports may differ).
                ufm_model = b.catalog.components.get(UFM_MODEL)
                ufm_figures = ({"based_on": UFM_MODEL, "power_w": ufm_model.power_w, "price_usd": ufm_model.price_usd}
                               if ufm_model is not None else {})
                appliance = b.add(Device(
                    f"su{n}-ufm", "storage",
                    (PortGroup("p", ufm_links, float(port.speed_gbps), "network", port.form_factor),),
                    # Drawn at the end of the leaf row: it stands in the network rack with the leaves.
                    name="UFM fabric manager appliance", x=left + su_w, y=leaf_y, group=net_gid,
                    properties={"role": "ufm", "su": n, **ufm_figures},
                ))
                b.place(appliance.id, net_rack, node_height_m(0))
                for leaf in su_leaves[:ufm_links]:
                    b.cable_link(f"{appliance.id}--{leaf.id}", appliance, leaf)
            pod_leaves.extend(su_leaves)
        leaves_by_pod.append(pod_leaves)
        names = ([f"spine{s}" for s in range(1, spines_per_pod + 1)] if n_tiers == 2
                 else [f"pod{p}-spine{s}" for s in range(1, spines_per_pod + 1)])
        spines = switch_row(
            b, spine_c, names, tier="spine", y=spine_y, left=pod_x,
            right=pod_x + (min(sus_per_row, last_su - first_su + 1) - 1) * col_w + (rails - 1) * leaf_dx,
            group_prefix=f"pod{p}-spine" if n_tiers == 3 else "spine",
            parent=pod_gid, props={"pod": p} if n_tiers == 3 else {}, new_row=True,
        )
        connect_all(b, pod_leaves, spines, leaf_spine_links)
        spines_by_pod.append(spines)
    cores = 0
    if n_tiers == 3:
        cores = spines_per_pod * cores_per_plane
        core_devs = switch_row(
            b, core_c, [f"core{c}" for c in range(1, cores + 1)], tier="core", y=0.0,
            left=0.0, right=(min(pods, pods_per_row) * sus_per_row - 1) * col_w + (rails - 1) * leaf_dx,
            group_prefix="core", new_row=True,
        )
        for spines in spines_by_pod:
            for s, spine in enumerate(spines):
                plane = core_devs[s * cores_per_plane:(s + 1) * cores_per_plane]
                connect_all(b, [spine], plane, spine_core_links)
    spines_total = spines_per_pod * pods
    ratio = nodes_per_su / uplinks
    return b.design(
        f"rail-optimized {gpus_total:,} GPUs",
        f"Rail-optimized {n_tiers}-tier fabric: {units.count(sus, 'SU')} of {nodes_per_su} x {gpus_per_node}-GPU "
        f"{gpu} nodes"
        + (" (one slot used by UFM)" if ufm else "")
        + f", {leaves} leaf + {spines_total} spine" + (f" + {cores} core" if cores else "")
        + f" {leaf_c.id} switches, {ratio:g}:1 at the leaves",
        sus=sus, nodes=nodes_total, gpus=gpus_total, tiers=n_tiers, oversubscription=ratio,
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
