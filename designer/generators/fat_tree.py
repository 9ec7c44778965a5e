"""``fat-tree``: the k-ary fat-tree of Al-Fares, Loukissas and Vahdat (SIGCOMM 2008).

k pods, each of k/2 edge and k/2 aggregation switches; (k/2)^2 core switches; k^3/4 hosts.
Edge switch E of a pod takes k/2 hosts and one link to every aggregation switch of its pod;
aggregation switch A of every pod links to cores ``(A-1)*k/2 + 1 .. A*k/2``. Full bisection.
Hosts are NICs of servers of ``gpus_per_node`` GPUs filling each pod in order.
Ids: ``podP-edgeE``, ``podP-aggA``, ``coreC``, ``podP-nodeN-gpuI``.
"""

from __future__ import annotations

from typing import Any

from designer.generators.base import DX, NODE_DY, TIER_DY, Builder, switch_ports
from designer.generators.clos import TOR_HEIGHT_M, connect_all, switch_row
from designer.generators.params import GeneratorSpec, Param, breakout_params, cabling_params, node_params, setting
from designer.generators.server import add_node, node_height_m, node_kit
from designer.model import Design
from designer.model.catalog import Catalog

KIND = "fat-tree"


def _build_fat_tree(
    catalog: Catalog | None,
    *,
    k: int,
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
    if k < 2 or k % 2:
        raise b.error(f"k must be even and at least 2, got {k}")
    sw = b.model(switch, "switch", "switch")
    ports = switch_ports(sw)
    if k > ports:
        raise b.error(f"k={k} needs {k}-port switches but {sw.id} has {ports}")
    kit = node_kit(b, gpus_per_node, gpu, nic, nvswitch, nvlink)
    half = k // 2
    hosts_per_pod = half * half
    if hosts_per_pod % gpus_per_node:
        raise b.error(f"{hosts_per_pod} hosts per pod (k={k}) is not a multiple of "
                      f"{setting('gpus_per_node', gpus_per_node)}")
    nodes_per_pod = hosts_per_pod // gpus_per_node

    # Canvas: one column per rack, its edge switches on top of its servers; the aggregation row
    # above the pod, the cores above everything.
    racks_per_pod = -(-nodes_per_pod // nodes_per_rack)
    first_hosts = [r * nodes_per_rack * gpus_per_node for r in range(racks_per_pod)] + [hosts_per_pod]
    # edges whose first host is in rack r stand in rack r
    rack_edges = [[e for e in range(half) if first_hosts[r] <= e * half < first_hosts[r + 1]]
                  for r in range(racks_per_pod)]
    col_ws = [max(kit.width, len(edges) * DX) + DX for edges in rack_edges]
    pod_w = sum(col_ws) + 2 * DX
    agg_y, edge_y, node_y = TIER_DY, 2 * TIER_DY, 3 * TIER_DY
    all_aggs = []
    for p in range(1, k + 1):
        left = (p - 1) * pod_w
        pod = b.group(f"pod{p}", "pod", f"pod {p}")
        edges = []
        col_x = left
        for r in range(racks_per_pod):
            rack_gid = f"pod{p}-rack{r + 1}"
            rack = b.rack(rack_gid, "", pod)
            block = (kit.gpus - 1) * DX  # from the first GPU's centre to the last's
            for i, e in enumerate(rack_edges[r]):
                x = col_x + block / 2 + (i - (len(rack_edges[r]) - 1) / 2) * DX
                edge = b.device(sw, f"pod{p}-edge{e + 1}", tier="edge", x=x, y=edge_y, group=rack_gid,
                                properties={"pod": p})
                b.place(edge.id, rack, TOR_HEIGHT_M)
                edges.append(edge)
            for slot in range(min(nodes_per_rack, nodes_per_pod - r * nodes_per_rack)):
                n = r * nodes_per_rack + slot
                nics = add_node(b, kit, f"pod{p}-node{n + 1}", name="", parent=rack_gid, x=col_x,
                                y=node_y + slot * NODE_DY, rack=rack, height_m=node_height_m(slot), props={"pod": p})
                for g, nic_dev in enumerate(nics):
                    e = (n * gpus_per_node + g) // half
                    b.cable_link(f"{nic_dev.id}--{edges[e].id}", nic_dev, edges[e])
            col_x += col_ws[r]
        edge_xs = [edge.x for edge in edges]
        aggs = switch_row(b, sw, [f"pod{p}-agg{a}" for a in range(1, half + 1)], tier="aggregation", y=agg_y,
                          left=edge_xs[0], right=edge_xs[-1], group_prefix=f"pod{p}-agg", parent=pod,
                          props={"pod": p})
        connect_all(b, edges, aggs, 1)
        all_aggs.append(aggs)
    cores = switch_row(b, sw, [f"core{c}" for c in range(1, half * half + 1)], tier="core", y=0.0,
                       left=0.0, right=k * pod_w - 3 * DX, group_prefix="core", new_row=True)
    for aggs in all_aggs:
        for a, agg in enumerate(aggs):
            connect_all(b, [agg], cores[a * half:(a + 1) * half], 1)
    return b.design(
        f"fat-tree k={k}",
        f"k-ary fat-tree (Al-Fares et al. 2008), k={k}: {k ** 3 // 4} hosts, {k} pods, "
        f"{5 * k * k // 4} x {sw.id} switches",
        k=k,
    )


SPEC = GeneratorSpec(
    kind=KIND,
    description="k-ary fat-tree (Al-Fares et al.): k pods, k^3/4 hosts, 5k^2/4 switches, full bisection",
    params=(
        Param("k", "int", 4, "switch radix used (even); k pods of k/2 edge + k/2 aggregation switches",
              minimum=2, maximum=128),
        Param("switch", "model", "qm9700", "switch model for every tier (needs at least k ports)",
              model_kind="switch"),
    )
    + node_params(gpus_per_node=1)
    + cabling_params()
    + breakout_params(),
    func=_build_fat_tree,
)


def build_fat_tree(catalog: Catalog | None = None, **params: Any) -> Design:
    """A k-ary fat-tree: k^3/4 hosts, 5k^2/4 switches.

    Parameters, defaults and limits are ``SPEC.params`` (an unknown or out-of-range value raises
    GeneratorError); ``catalog`` None is the built-in catalog.

    >>> d = build_fat_tree(k=4)
    >>> sum(x.kind == "gpu" for x in d.devices), sum(x.kind == "switch" for x in d.devices)
    (16, 20)
    """
    return SPEC.build(catalog, **params)
