"""``clos3``: a 3-tier folded Clos (leaf, spine, core) for fabrics beyond one spine layer.

``pods`` pods, each a leaf-spine: ``leaves_per_pod`` top-of-rack leaves with ``hosts_per_leaf``
NICs and ``hosts_per_leaf / oversubscription`` uplinks spread evenly over the pod's spines.
Each spine sends ``down / spine_oversubscription`` uplinks to its core plane: spine S of every
pod joins the cores of plane S, each with the same number of links (as in a fat-tree).
Ids: ``podP-leafL``, ``podP-spineS``, ``coreC``, ``podP-nodeN-gpuI``.
"""

from __future__ import annotations

from typing import Any

from designer.generators.base import DX, TIER_DY, Builder, switch_ports, upper_tier_size, whole
from designer.generators.clos import connect_all, switch_row, tor_leaves
from designer.generators.params import GeneratorSpec, Param, breakout_params, cabling_params, node_params, setting
from designer.generators.server import node_kit
from designer.model import Design
from designer.model.catalog import Catalog

KIND = "clos3"


def _build_clos3(
    catalog: Catalog | None,
    *,
    pods: int,
    leaves_per_pod: int,
    hosts_per_leaf: int,
    spines_per_pod: int,
    oversubscription: float,
    spine_oversubscription: float,
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
    for name, value in (("pods", pods), ("leaves_per_pod", leaves_per_pod), ("hosts_per_leaf", hosts_per_leaf)):
        if value < 1:
            raise b.error(f"{name} must be at least 1, got {value}")
    leaf_c = b.model(switch, "switch", "leaf switch")
    spine_c = b.model(spine_switch or switch, "switch", "spine switch")
    core_c = b.model(core_switch or spine_switch or switch, "switch", "core switch")
    kit = node_kit(b, gpus_per_node, gpu, nic, nvswitch, nvlink)
    if hosts_per_leaf % gpus_per_node:
        raise b.error(f"{setting('hosts_per_leaf', hosts_per_leaf)} is not a multiple of "
                      f"{setting('gpus_per_node', gpus_per_node)}")
    uplinks = whole(KIND, f"uplinks per leaf (hosts_per_leaf / oversubscription = {hosts_per_leaf}/"
                    f"{oversubscription:g})", hosts_per_leaf / oversubscription)
    leaf_ports = switch_ports(leaf_c)
    if hosts_per_leaf + uplinks > leaf_ports:
        raise b.error(
            f"each leaf needs {hosts_per_leaf} host + {uplinks} uplink ports but {leaf_c.id} has {leaf_ports}")
    spine_ports = switch_ports(spine_c)
    r = spine_oversubscription
    down_budget = int(spine_ports * r / (1 + r) + 1e-9)
    if spines_per_pod:
        if uplinks % spines_per_pod:
            raise b.error(f"{uplinks} uplinks per leaf cannot be spread evenly over {spines_per_pod} spines; "
                          f"set {setting('spines_per_pod', metavar='N')} to a divisor of {uplinks}, "
                          "or 0 for automatic")
        per_pair = uplinks // spines_per_pod
    else:
        spines_per_pod, per_pair = upper_tier_size(
            KIND, leaves_per_pod, uplinks, down_budget, "leaves per pod", "spines", spine_c.id)
    down = leaves_per_pod * per_pair
    spine_up = whole(KIND, f"uplinks per spine (down ports / spine_oversubscription = {down}/{r:g})", down / r)
    if down + spine_up > spine_ports:
        raise b.error(f"each spine needs {down} leaf + {spine_up} core ports but {spine_c.id} has {spine_ports}")
    cores_per_plane, core_links = upper_tier_size(
        KIND, pods, spine_up, switch_ports(core_c), "pods", "cores", core_c.id)

    pod_w = leaves_per_pod * (kit.width + DX) + DX
    all_spines = []
    for p in range(1, pods + 1):
        pod = b.group(f"pod{p}", "pod", f"pod {p}")
        left = (p - 1) * pod_w
        leaves = tor_leaves(b, kit, leaf_c, leaves=leaves_per_pod, hosts_per_leaf=hosts_per_leaf,
                            prefix=f"pod{p}-", parent=pod, left=left, leaf_y=2 * TIER_DY, node_y=3 * TIER_DY,
                            nodes_per_rack=nodes_per_rack, props={"pod": p})
        spines = switch_row(b, spine_c, [f"pod{p}-spine{s}" for s in range(1, spines_per_pod + 1)], tier="spine",
                            y=TIER_DY, left=leaves[0].x, right=leaves[-1].x, group_prefix=f"pod{p}-spine",
                            parent=pod, props={"pod": p})
        connect_all(b, leaves, spines, per_pair)
        all_spines.append(spines)
    cores = switch_row(b, core_c, [f"core{c}" for c in range(1, spines_per_pod * cores_per_plane + 1)], tier="core",
                       y=0.0, left=0.0, right=pods * pod_w - 2 * DX, group_prefix="core", new_row=True)
    for spines in all_spines:
        for s, spine in enumerate(spines):
            connect_all(b, [spine], cores[s * cores_per_plane:(s + 1) * cores_per_plane], core_links)
    gpus = pods * leaves_per_pod * hosts_per_leaf
    return b.design(
        f"clos3 {gpus:,} GPUs",
        f"3-tier Clos: {pods} pods of {leaves_per_pod} leaves x {hosts_per_leaf} hosts and {spines_per_pod} spines, "
        f"{len(cores)} cores; {hosts_per_leaf / uplinks:g}:1 at the leaves, {down / spine_up:g}:1 at the spines",
        oversubscription=hosts_per_leaf / uplinks, spine_oversubscription=down / spine_up,
    )


SPEC = GeneratorSpec(
    kind=KIND,
    description="3-tier Clos: pods of leaf-spine with a core tier joining the pods",
    params=(
        Param("pods", "int", 4, "pods (each a leaf-spine block)", minimum=1, maximum=1024),
        Param("leaves_per_pod", "int", 8, "leaf switches per pod", minimum=1, maximum=1024),
        Param("hosts_per_leaf", "int", 32, "NIC ports per leaf (a multiple of gpus_per_node)", minimum=1, maximum=4096),
        Param("spines_per_pod", "int", 0, "spines per pod (0 = fewest giving every leaf equal links to each)",
              minimum=0, maximum=4096),
        Param("oversubscription", "float", 1.0, "leaf host ports per uplink (2 = 2:1)", minimum=1.0, maximum=64.0),
        Param("spine_oversubscription", "float", 1.0, "spine down ports per core uplink", minimum=1.0, maximum=64.0),
        Param("switch", "model", "qm9700", "leaf switch model", model_kind="switch"),
        Param("spine_switch", "model", "", "spine switch model ('' = same as leaf)", model_kind="switch"),
        Param("core_switch", "model", "", "core switch model ('' = same as spine)", model_kind="switch"),
    )
    + node_params()
    + cabling_params()
    + breakout_params(),
    func=_build_clos3,
)


def build_clos3(catalog: Catalog | None = None, **params: Any) -> Design:
    """A 3-tier Clos of ``pods x leaves_per_pod x hosts_per_leaf`` GPUs.

    Parameters, defaults and limits are ``SPEC.params`` (an unknown or out-of-range value raises
    GeneratorError); ``catalog`` None is the built-in catalog.

    >>> d = build_clos3(pods=2, leaves_per_pod=2, hosts_per_leaf=8)
    >>> sorted({x.tier for x in d.devices if x.kind == "switch"})
    ['core', 'leaf', 'spine']
    """
    return SPEC.build(catalog, **params)
