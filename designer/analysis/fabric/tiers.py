"""Which part of the fabric each link belongs to: the tiers the utilisation panel splits links by.

A link's tier follows from the kinds of its two ends and, between switches, from the switches'
``tier`` field (the generators set it; imported or hand-drawn designs may leave it empty):

==================  ==========================================================================
tier                links
==================  ==========================================================================
``nvlink``          NVLink between a GPU and an NVSwitch, or between NVSwitches
``pcie``            board links (PCIe) between a GPU and its NIC
``direct``          GPU to GPU, or NIC to NIC, with no switch between (NVLink bridges, meshes)
``access``          a GPU, NIC or storage port to a switch (the leaf tier's downlinks)
``leaf-spine``      leaf (or edge / ToR) to spine (or aggregation) switches
``spine-core``      spine to core switches
``switch``          any other switch-to-switch link (tiers unknown or the same tier)
==================  ==========================================================================
"""

from __future__ import annotations

import numpy as np

from designer.analysis.fabric.capacity import K_GPU, K_NIC, K_NVSWITCH, K_STORAGE, K_SWITCH, P_NVLINK, CapacityGraph
from designer.model import Design

TIERS = ("nvlink", "pcie", "direct", "access", "leaf-spine", "spine-core", "switch")
TIER_LABELS = {
    "nvlink": "NVLink",
    "pcie": "PCIe (board)",
    "direct": "Direct links",
    "access": "GPU/NIC to leaf",
    "leaf-spine": "Leaf to spine",
    "spine-core": "Spine to core",
    "switch": "Switch to switch",
}
#: Switch ``tier`` values by level (1 = leaf); other values count as unknown.
_LEVEL = {"leaf": 1, "edge": 1, "tor": 1, "spine": 2, "aggregation": 2, "agg": 2, "core": 3}


def link_tiers(design: Design, cap: CapacityGraph) -> np.ndarray:
    """Index into :data:`TIERS` of every link of ``cap`` (design order of the usable links)."""
    kind = cap.node_kind
    ka, kb = kind[cap.a], kind[cap.b]
    devices = design.devices
    level = np.zeros(cap.n_nodes, dtype=np.int64)
    switches = np.flatnonzero(kind == K_SWITCH)
    level[switches] = [_LEVEL.get(devices[i].tier.lower(), 0) for i in switches.tolist()]
    la, lb = level[cap.a], level[cap.b]
    lo, hi = np.minimum(la, lb), np.maximum(la, lb)
    endpoint = (K_GPU, K_NIC, K_STORAGE)
    ea, eb = np.isin(ka, endpoint), np.isin(kb, endpoint)
    sa, sb = ka == K_SWITCH, kb == K_SWITCH
    out = np.full(cap.n_links, TIERS.index("switch"), dtype=np.int64)
    out[sa & sb & (lo == 1) & (hi == 2)] = TIERS.index("leaf-spine")
    out[sa & sb & (lo == 2) & (hi == 3)] = TIERS.index("spine-core")
    out[(ea & sb) | (sa & eb)] = TIERS.index("access")
    out[ea & eb] = TIERS.index("direct")
    gpu_nic = ((ka == K_GPU) & (kb == K_NIC)) | ((ka == K_NIC) & (kb == K_GPU))
    out[gpu_nic & (cap.protocol != P_NVLINK)] = TIERS.index("pcie")
    nvs = (ka == K_NVSWITCH) | (kb == K_NVSWITCH)
    out[nvs] = TIERS.index("nvlink")
    return out
