"""Design rules that look at the whole fabric: GPUs that cannot reach one another (with advice on
what would join them, :mod:`designer.analysis.fabric.islands`), devices left unconnected, NICs
without a GPU, and its tiers (a tier skipped, a NIC on another rail's leaf).

:func:`designer.analysis.rules.check.check_design` runs them with the per-device and per-link rules.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from designer.analysis.common.findings import WARNING, Finding
from designer.analysis.fabric.islands import gpu_islands
from designer.model import BOARD_MEDIA, Design


def check_connectivity(design: Design, out: list[Finding]) -> None:
    # scipy is imported by the first check, not with the window (its start: 0.79 s instead of 0.95 s).
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    ids = [d.id for d in design.iter_devices()]
    index = {did: i for i, did in enumerate(ids)}
    kinds = [d.kind for d in design.iter_devices()]
    n = len(ids)
    if n == 0:
        return
    links = design.links
    src = np.fromiter((index[lk.a_device] for lk in links), dtype=np.int64, count=len(links))
    dst = np.fromiter((index[lk.b_device] for lk in links), dtype=np.int64, count=len(links))
    up = np.fromiter((not lk.failed for lk in links), dtype=bool, count=len(links))
    degree = np.bincount(np.concatenate([src, dst]), minlength=n)
    pcie_peers: dict[int, set[str]] = defaultdict(set)
    for lk in links:
        if lk.medium == "pcie":
            a, b = index[lk.a_device], index[lk.b_device]
            pcie_peers[a].add(kinds[b])
            pcie_peers[b].add(kinds[a])
    graph = coo_matrix((np.ones(int(up.sum()), dtype=np.int8), (src[up], dst[up])), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    gpus = [i for i in range(n) if kinds[i] == "gpu"]
    if len(gpus) > 1:
        finding = gpu_islands(design, ids, kinds, labels, gpus)
        if finding is not None:
            out.append(finding)
    for i in np.flatnonzero(degree == 0):
        out.append(Finding(WARNING, "unconnected", f"{ids[i]}: has no links; connect it or delete it", (ids[i],)))
    for i in range(n):
        if kinds[i] == "nic" and degree[i] and not (pcie_peers.get(i, set()) & {"gpu", "storage"}):
            out.append(Finding(
                WARNING, "nic-without-gpu",
                f"{ids[i]}: NIC has no PCIe link to a GPU; link its pcie port to the GPU it serves",
                (ids[i],),
            ))


#: Clos tiers from the endpoints up: leaf (edge), spine (aggregation), core. Other tiers (a
#: dragonfly's routers) have no rank and are not checked for skipping.
TIER_RANK = {"leaf": 1, "edge": 1, "spine": 2, "aggregation": 2, "core": 3}


def _int_property(dev, key: str) -> int | None:
    value = dev.properties.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def check_fabric_shape(design: Design, out: list[Finding]) -> None:
    """``tier-skip`` and ``rail-misaligned``: network links that bypass a tier, or leave their rail.

    A rail is read from the devices' ``rail`` (and ``su``) properties, as the rail-optimized
    generators record them: a NIC belongs to the rail of the GPU it serves over PCIe (else to its
    own ``rail``), and must be cabled to a leaf of that rail in its own scalable unit.
    """
    devices = {d.id: d for d in design.iter_devices()}
    ranked = {d.id: TIER_RANK[d.tier] for d in devices.values() if d.kind == "switch" and d.tier in TIER_RANK}
    tier_at: dict[int, str] = {}
    for did, rank in ranked.items():
        tier_at.setdefault(rank, devices[did].tier)
    served: dict[str, str] = {}  # NIC id -> the GPU it serves over PCIe
    rail_leaves: dict[tuple[int | None, int], str] = {}  # (su, rail) -> the first leaf of that rail
    for d in devices.values():
        rail = _int_property(d, "rail")
        if d.kind == "switch" and rail is not None:
            rail_leaves.setdefault((_int_property(d, "su"), rail), d.id)
    for lk in design.iter_links():
        if lk.medium == "pcie":
            a, b = devices[lk.a_device], devices[lk.b_device]
            if {a.kind, b.kind} == {"nic", "gpu"}:
                nic, gpu = (a, b) if a.kind == "nic" else (b, a)
                served.setdefault(nic.id, gpu.id)
    for lk in design.iter_links():
        if lk.medium in BOARD_MEDIA:
            continue
        a, b = devices[lk.a_device], devices[lk.b_device]
        ends = (a.id, b.id)
        if a.id in ranked and b.id in ranked:
            low, high = (a, b) if ranked[a.id] < ranked[b.id] else (b, a)
            skipped = [tier_at[r] for r in range(ranked[low.id] + 1, ranked[high.id]) if r in tier_at]
            if skipped:
                out.append(Finding(WARNING, "tier-skip", (
                    f"{lk.id}: {low.id} ({low.tier}) is cabled straight to {high.id} ({high.tier}), skipping the "
                    f"{skipped[0]} tier: traffic between them bypasses the {skipped[0]} switches; cable {low.id} "
                    f"to a {skipped[0]} switch instead"), ends, (lk.id,)))
            continue
        switch, end = (a, b) if a.kind == "switch" else (b, a)
        if switch.kind != "switch" or end.kind not in ("nic", "gpu"):
            continue
        rank = ranked.get(switch.id)
        if rank is not None and rank > 1 and 1 in tier_at:
            leaf = tier_at[1]
            out.append(Finding(WARNING, "tier-skip", (
                f"{lk.id}: {end.id} ({end.kind.upper()}) is cabled straight to {switch.id}, a {switch.tier} switch, "
                f"skipping the {leaf} tier: endpoints attach to {leaf} switches, and a {switch.tier} port spent on one "
                f"endpoint is an uplink lost; cable {end.id} to a {leaf} switch"), ends, (lk.id,)))
        leaf_rail = _int_property(switch, "rail")
        if leaf_rail is None:
            continue
        gpu = devices.get(served.get(end.id, ""))
        owner = gpu if gpu is not None and _int_property(gpu, "rail") is not None else end
        rail = _int_property(owner, "rail")
        su, leaf_su = _int_property(owner, "su"), _int_property(switch, "su")
        wrong_su = su is not None and leaf_su is not None and su != leaf_su
        if rail is None or (rail == leaf_rail and not wrong_su):
            continue
        whose = f"{end.id}, the NIC of {owner.id}," if owner is not end else end.id
        where = f"rail {rail}" + (f" of SU {su}" if su is not None else "")
        there = f"rail {leaf_rail}" + (f" of SU {leaf_su}" if leaf_su is not None else "")
        right = rail_leaves.get((su if su is not None else leaf_su, rail))
        fix = f"cable it to {right}" if right else f"cable it to the {where} leaf"
        out.append(Finding(WARNING, "rail-misaligned", (
            f"{lk.id}: {whose} is on {where} but is cabled to {switch.id} on {there}: in a rail-optimized fabric "
            f"GPU i's NIC goes to leaf i of its SU, so same-rail traffic stays one hop apart; {fix}"),
            ends, (lk.id,)))


#: How the bill of materials counts what it cannot price (the rules and the BOM say it alike).
