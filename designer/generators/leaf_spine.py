"""``leaf-spine``: a 2-tier folded Clos with any oversubscription.

``leaves`` leaf switches, each a top-of-rack switch for ``hosts_per_leaf`` NICs (whole servers
of ``gpus_per_node`` GPUs) and ``hosts_per_leaf / oversubscription`` uplinks spread evenly over
the spines (the same number of links to every spine). Ids: ``leafL``, ``spineS``, ``nodeN-gpuI``.
"""

from __future__ import annotations

from typing import Any

from designer.generators.base import TIER_DY, Builder, switch_ports, upper_tier_size, whole
from designer.generators.clos import connect_all, switch_row, tor_leaves
from designer.generators.params import GeneratorSpec, Param, breakout_params, cabling_params, node_params, setting
from designer.generators.server import node_kit
from designer.model import Design
from designer.model.catalog import Catalog

KIND = "leaf-spine"


def _build_leaf_spine(
    catalog: Catalog | None,
    *,
    leaves: int,
    hosts_per_leaf: int,
    spines: int,
    oversubscription: float,
    switch: str,
    spine_switch: str,
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
    if leaves < 1:
        raise b.error(f"leaves must be at least 1, got {leaves}")
    if hosts_per_leaf < 1:
        raise b.error(f"hosts_per_leaf must be at least 1, got {hosts_per_leaf}")
    leaf_c = b.model(switch, "switch", "leaf switch")
    spine_c = b.model(spine_switch or switch, "switch", "spine switch")
    kit = node_kit(b, gpus_per_node, gpu, nic, nvswitch, nvlink)
    if hosts_per_leaf % gpus_per_node:
        raise b.error(f"{setting('hosts_per_leaf', hosts_per_leaf)} is not a multiple of "
                      f"{setting('gpus_per_node', gpus_per_node)}")
    uplinks = whole(
        KIND, f"uplinks per leaf (hosts_per_leaf / oversubscription = {hosts_per_leaf}/{oversubscription:g})",
        hosts_per_leaf / oversubscription)
    leaf_ports = switch_ports(leaf_c)
    if hosts_per_leaf + uplinks > leaf_ports:
        raise b.error(
            f"each leaf needs {hosts_per_leaf} host + {uplinks} uplink ports but {leaf_c.id} has {leaf_ports}")
    spine_ports = switch_ports(spine_c)
    if spines:
        if uplinks % spines:
            raise b.error(f"{uplinks} uplinks per leaf cannot be spread evenly over {spines} spines; "
                          f"set {setting('spines', metavar='N')} to a divisor of {uplinks}, or 0 for automatic")
        per_pair = uplinks // spines
        if leaves * per_pair > spine_ports:
            raise b.error(f"each spine needs {leaves} x {per_pair} leaf ports but {spine_c.id} has {spine_ports}")
    else:
        spines, per_pair = upper_tier_size(KIND, leaves, uplinks, spine_ports, "leaves", "spines", spine_c.id)

    leaf_devs = tor_leaves(b, kit, leaf_c, leaves=leaves, hosts_per_leaf=hosts_per_leaf, prefix="", parent=None,
                           left=0.0, leaf_y=TIER_DY, node_y=2 * TIER_DY, nodes_per_rack=nodes_per_rack)
    spine_devs = switch_row(b, spine_c, [f"spine{s}" for s in range(1, spines + 1)], tier="spine", y=0.0,
                            left=leaf_devs[0].x, right=leaf_devs[-1].x, group_prefix="spine")
    connect_all(b, leaf_devs, spine_devs, per_pair)
    gpus = leaves * hosts_per_leaf
    return b.design(
        f"leaf-spine {gpus:,} GPUs",
        f"2-tier leaf-spine: {leaves} x {leaf_c.id} leaves with {hosts_per_leaf} hosts and {uplinks} uplinks "
        f"({hosts_per_leaf / uplinks:g}:1), {spines} x {spine_c.id} spines, {gpus:,} {gpu} GPUs",
        oversubscription=hosts_per_leaf / uplinks,
    )


SPEC = GeneratorSpec(
    kind=KIND,
    description="2-tier leaf-spine (folded Clos) with any oversubscription ratio",
    params=(
        Param("leaves", "int", 4, "leaf switches", minimum=1, maximum=4096),
        Param("hosts_per_leaf", "int", 32, "NIC ports per leaf (a multiple of gpus_per_node)", minimum=1, maximum=4096),
        Param("spines", "int", 0, "spine switches (0 = fewest giving every leaf equal links to each spine)",
              minimum=0, maximum=4096),
        Param("oversubscription", "float", 1.0, "leaf host ports per uplink (2 = 2:1)", minimum=1.0, maximum=64.0),
        Param("switch", "model", "qm9700", "leaf switch model", model_kind="switch"),
        Param("spine_switch", "model", "", "spine switch model ('' = same as leaf)", model_kind="switch"),
    )
    + node_params()
    + cabling_params()
    + breakout_params(),
    func=_build_leaf_spine,
)


def build_leaf_spine(catalog: Catalog | None = None, **params: Any) -> Design:
    """A 2-tier leaf-spine fabric of ``leaves x hosts_per_leaf`` GPUs.

    Parameters, defaults and limits are ``SPEC.params`` (an unknown or out-of-range value raises
    GeneratorError); ``catalog`` None is the built-in catalog.

    >>> d = build_leaf_spine(leaves=2, hosts_per_leaf=16)
    >>> sorted(x.id for x in d.devices if x.kind == "switch")
    ['leaf1', 'leaf2', 'spine1']
    """
    return SPEC.build(catalog, **params)
