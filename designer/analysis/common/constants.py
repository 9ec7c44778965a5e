"""Every efficiency and latency constant of the analyzer, in one place, each with its source.

Bisection bandwidth is reported at line rate. Time estimates use *effective* rates: the line
rate of a hop times the efficiency of its protocol (what NCCL achieves on it in practice).
Latencies are in seconds, bandwidths in bytes per second per direction.

Sources, abbreviated below:

- ``tuning.cc``: NVIDIA/nccl ``src/graph/tuning.cc`` (NCCL's own cost model: ``baseLat``,
  ``hwLat``, per-algorithm bandwidth corrections) and ``src/graph/topo.h`` (``SM90_NVLINK_BW``).
- ``#212``, ``#267``, ``#290``, ``#160``: NVIDIA/nccl-tests issues, quoted with their sources in
  ``tests/data/calibration.json``; ``nccl#812``, ``nccl#1455``: NVIDIA/nccl issues 812 and 1455.
- ``PERFORMANCE.md``: NVIDIA/nccl-tests ``doc/PERFORMANCE.md`` (algbw / busbw conventions).

Examples
--------
>>> round(NVLINK_EFFICIENCY * 450, 1)          # HGX H100 ring busbw, GB/s
370.8
>>> PROTOCOL_EFFICIENCY["infiniband"] * 50 >= 46
True
"""

from __future__ import annotations

from designer.model import units as _units
from designer.model.entities import MIN_PORT_GBPS as _MIN_PORT_GBPS

# --------------------------------------------------------------------------- units
#: Bytes per second in one Gb/s of line rate (defined with the units, in the model).
BYTES_PER_S_PER_GBPS = _units.BYTES_PER_S_PER_GBPS
US = 1e-6
NS = 1e-9

# --------------------------------------------------------------------------- efficiencies
#: NVLink: NCCL models an SM90 NVLink4 link at 20.6 GB/s of its 25 GB/s (topo.h ``SM90_NVLINK_BW``),
#: i.e. 18 links x 20.6 = 370.8 GB/s; nccl-tests #212 (sjeaugey): "with the protocol overhead (~20%)
#: NCCL can get an effective NVLink bandwidth of 370GB/s" on HGX H100 (line rate 450 GB/s).
NVLINK_EFFICIENCY = 20.6 / 25.0
#: NVLink by generation (a GPU's catalog ``specs.nvlink_gen``; ``capacity.nvlink_efficiency`` applies it):
#: NCCL's per-link bandwidth over the link's per-direction line rate. NCCL: NVIDIA/nccl src/graph/topo.h
#: ``SM60_NVLINK_BW`` 18.0, ``SM70_NVLINK_BW`` 20.0, ``SM80_NVLINK_BW`` 20.0, ``SM90_NVLINK_BW`` 20.6,
#: ``SM100_NVLINK_BW`` 40.1 GB/s per link (``ncclTopoNVLinkBw``). Line rate per link and direction: NVLink 1
#: (P100) 20 GB/s (4 links, 160 GB/s bidirectional); NVLink 2 (V100), 3 (A100), 4 (H100) 25 GB/s (6, 12, 18
#: links: 300, 600, 900 GB/s) (Wikipedia "NVLink", https://en.wikipedia.org/wiki/NVLink: 20 / 25 / 50 Gbit/s per
#: differential pair, 8 pairs per sub-link in NVLink 1-2 and 4 from NVLink 3); NVLink 5 (B200) 50 GB/s (18 links:
#: 1.8 TB/s bidirectional, the b200 catalog entry). nccl-tests #149 (sjeaugey, A100): "Each NVLink has a line
#: rate of 25GB/s (in each direction) which converts to ~20GB/s effective bandwidth with a 128B payload size".
#: Generation 4 is NVLINK_EFFICIENCY, also the figure of a link whose generation is unknown.
NVLINK_EFFICIENCY_BY_GEN = {1: 18.0 / 20.0, 2: 20.0 / 25.0, 3: 20.0 / 25.0, 4: 20.6 / 25.0, 5: 40.1 / 50.0}
#: NDR InfiniBand NIC: nccl-tests #290 "46-48GB/s per NIC", #267 "up to 48-49GB/s per NIC" of 50 GB/s;
#: HDR: #160 "24 GB/s" per 25 GB/s NIC, nccl#812 "192GB/s" for 8 x HDR (0.96). We take 0.96.
INFINIBAND_EFFICIENCY = 0.96
#: RoCE / Ethernet: slightly below InfiniBand (larger headers, ECN/PFC congestion control). Modelling
#: choice, consistent with #267 (RoCE CX-7 users report 45-48 GB/s per NIC).
ETHERNET_EFFICIENCY = 0.93
#: PCIe Gen4/Gen5 x16: TLP/DLLP overhead leaves ~85% of the raw rate for payload (modelling choice,
#: common figure for 256-byte max payload size). A PCIe hop is rarely the bottleneck (64 GB/s > 50 GB/s).
PCIE_EFFICIENCY = 0.85
#: Direct chip-to-chip links (torus, mesh, hypercube; TPU ICI style: a reliable link layer with
#: credit-based flow control, no NIC, transport headers or congestion control). Modelling choice,
#: set from the Cloud TPU v4 documentation (https://cloud.google.com/tpu/docs/v4, "Bisection bandwidth
#: per Pod 24 TB/s"): the bisection of its 16x16x16 torus crosses 512 links of 400 Gb/s per direction
#: (the ICI rate, Jouppi et al., "TPU v4", ISCA 2023) = 25.6 TB/s of line rate, so 24 / 25.6 = 0.9375.
DIRECT_EFFICIENCY = 24.0 / 25.6

#: Efficiency by protocol name (the ``protocol`` column of the capacity graph).
PROTOCOL_EFFICIENCY = {
    "nvlink": NVLINK_EFFICIENCY,
    "infiniband": INFINIBAND_EFFICIENCY,
    "ethernet": ETHERNET_EFFICIENCY,
    "pcie": PCIE_EFFICIENCY,
    "direct": DIRECT_EFFICIENCY,
}

#: NVLS (NVLink SHARP) all-reduce, NCCL's own model (tuning.cc ``nvlsEfficiency``, Hopper 0.85): the
#: NVLS data rate is 0.85 of the *effective* NVLink rate (SM90 20.6 GB/s per link). Each GPU of an
#: n-GPU NVSwitch domain sends and receives (1 + 1/n) S (its data into the switch, the reduced
#: result back, plus its 1/n share as the channel head: search.cc ``ncclTopoSearchTryNvls`` charges
#: the head twice), so algbw = 0.85 x 370.8 x n/(n+1) on HGX H100: 280 GB/s at 8 GPUs (busbw 490;
#: nccl-tests #212: "~480GB/s (algbw ~275GB/s)"), 252 at 4 and 262-276 at 5-7 (nccl#1455 measured
#: algbw 258-273 at 5-8 GPUs and busbw ~370 at 4). Hopper's figure, the default when the GPUs'
#: NVLink generation is not known (by generation: :data:`NVLS_EFFICIENCY_BY_GEN`).
NVLS_EFFICIENCY = 0.85
#: NVLS efficiency by the NVLink generation of the GPUs on the switch (tuning.cc ``nvlsEfficiency``,
#: NCCL master, June 2026: Hopper 0.85, Blackwell 0.74); other generations: :data:`NVLS_EFFICIENCY`.
NVLS_EFFICIENCY_BY_GEN = {4: 0.85, 5: 0.74}
#: NVLSTree (NVLS inside each server, NCCL's trees across servers): NCCL caps its bus bandwidth per
#: NVLS channel (one channel per NIC head) at 57.7 GB/s on 2 servers and 45.5 GB/s on more (tuning.cc
#: ``perChMaxNVLSTreeBws``, Hopper): busbw <= 8 x 57.7 = 462 / 8 x 45.5 = 364 GB/s with 8 NICs. Bytes/s
#: per rail channel, by server count (2, or 3 and more); Hopper's (Blackwell's are 96 / 80 GB/s).
NVLS_TREE_MAX_BUSBW_PER_CHANNEL = {2: 57.7e9, 3: 45.5e9}
#: The same cap by NVLink generation (tuning.cc ``perChMaxNVLSTreeBws``, NCCL master, June 2026:
#: Hopper 57.7 / 45.5, Blackwell 96 / 80 GB/s); other generations: Hopper's.
NVLS_TREE_MAX_BUSBW_PER_CHANNEL_BY_GEN = {4: NVLS_TREE_MAX_BUSBW_PER_CHANNEL, 5: {2: 96.0e9, 3: 80.0e9}}
#: SHARP (InfiniBand in-network reduction, NCCL CollNet): tuning.cc multiplies CollNet bandwidth by 0.9.
SHARP_EFFICIENCY = 0.9
#: NCCL tree bandwidth correction: tuning.cc ``busBw = min(busBw * .9, maxTreeBw)``.
TREE_EFFICIENCY = 0.9

# --------------------------------------------------------------------------- protocols
#: NCCL protocols: bandwidth factor relative to Simple (tuning.cc: ring LL ``busBw *= 1/4`` multi-node,
#: LL128 ``* 0.92``; tree LL ``* 1/3.8``), and whether the protocol exists for an algorithm.
PROTOCOL_BW_FACTOR = {
    ("ring", "LL"): 1.0 / 4.0,
    ("ring", "LL128"): 0.92,
    ("ring", "Simple"): 1.0,
    ("tree", "LL"): 1.0 / 3.8,
    ("tree", "LL128"): 0.915,
    ("tree", "Simple"): 1.0,
    ("nvls", "Simple"): 1.0,
    ("sharp", "Simple"): 1.0,
}
PROTOCOLS = ("LL", "LL128", "Simple")

#: Base (software) latency per collective call, seconds: tuning.cc ``baseLat`` (us)
#: Tree {LL 6.8, LL128 14.0, Simple 8.4}, Ring {6.6, 14.0, 8.4}, NVLS and NVLSTree {0} (NCCL master,
#: ``ncclTunerConstantsDefaults``, June 2026: an NVLS call's latency is its hardware terms alone).
BASE_LATENCY_S = {
    ("ring", "LL"): 6.6 * US,
    ("ring", "LL128"): 14.0 * US,
    ("ring", "Simple"): 8.4 * US,
    ("tree", "LL"): 6.8 * US,
    ("tree", "LL128"): 14.0 * US,
    ("tree", "Simple"): 8.4 * US,
    ("nvls", "Simple"): 0.0,
    ("sharp", "Simple"): 8.4 * US,
}

#: Per-step hardware latency, seconds, by the hardware a step crosses: tuning.cc ``hwLat`` (us),
#: NVLink: Tree {.6, 1.25, 4 (Simple per-chunk, newer NCCL)}, Ring {.6, 1.9, 3.4};
#: PCI: Ring {1.0, 2.5, 5.7}; NET: Tree {5.0, 8.5, 14}, Ring {2.7, 4.0, 14.0}; NVLS 25; CollNet 30;
#: NET NVLSTree Simple 20.9 (the tree level of an NVLSTree all-reduce: ``intraLat + 2 log2(nNodes) x
#: interLat``, NCCL master ``src/graph/tuning.cc``, June 2026).
STEP_LATENCY_S = {
    ("nvlink", "ring", "LL"): 0.6 * US,
    ("nvlink", "ring", "LL128"): 1.9 * US,
    ("nvlink", "ring", "Simple"): 3.4 * US,
    ("nvlink", "tree", "LL"): 0.6 * US,
    ("nvlink", "tree", "LL128"): 1.25 * US,
    ("nvlink", "tree", "Simple"): 4.0 * US,
    ("pcie", "ring", "LL"): 1.0 * US,
    ("pcie", "ring", "LL128"): 2.5 * US,
    ("pcie", "ring", "Simple"): 5.7 * US,
    ("pcie", "tree", "LL"): 1.0 * US,
    ("pcie", "tree", "LL128"): 1.9 * US,
    ("pcie", "tree", "Simple"): 4.0 * US,
    ("net", "ring", "LL"): 2.7 * US,
    ("net", "ring", "LL128"): 4.0 * US,
    ("net", "ring", "Simple"): 14.0 * US,
    ("net", "tree", "LL"): 5.0 * US,
    ("net", "tree", "LL128"): 8.5 * US,
    ("net", "tree", "Simple"): 14.0 * US,
    ("nvlink", "nvls", "Simple"): 25.0 * US,
    ("net", "nvls_tree", "Simple"): 20.9 * US,
    ("net", "sharp", "Simple"): 30.0 * US,
}

#: NCCL ring plateau: tuning.cc multiplies multi-node ring Simple all-reduce latency by 1.9 once the
#: message exceeds nRanks/16 x 64 KiB. It biases NCCL's *choice* of protocol; it is not applied to
#: our absolute times by default (``AlgorithmModel.plateau``), since it would cost large rings ~10%
#: of busbw that nccl-tests does not show.
RING_PLATEAU_FACTOR = 1.9
RING_PLATEAU_BYTES_PER_RANK = 65536 / 16

#: Per-step latency of a step over a direct chip link (:mod:`designer.analysis.collectives.direct`), seconds,
#: by protocol.
#: Modelling choice: a step between two accelerators over a point-to-point link with no NIC or network
#: proxy is NCCL's NVLink step (tuning.cc ``hwLat`` NVLink ring: LL 0.6, LL128 1.9, Simple 3.4 us);
#: the link's wire latency is added per step. TPU ICI publishes no per-step figure.
DIRECT_STEP_LATENCY_S = {"LL": 0.6 * US, "LL128": 1.9 * US, "Simple": 3.4 * US}

# --------------------------------------------------------------------------- wires and switches
#: Propagation delay of fibre and copper when the cable is not in the catalog (about 5 ns/m: light in glass at ~2/3 c).
CABLE_LATENCY_S_PER_M = 5.0 * NS
#: Port-to-port latency of a network switch whose model is unknown or has no ``latency_ns``:
#: a cut-through InfiniBand switch is ~130-150 ns (QM9700 datasheet), Ethernet ~600-700 ns. Modelling choice.
DEFAULT_SWITCH_LATENCY_S = {"infiniband": 150 * NS, "ethernet": 700 * NS}
#: NIC processing latency added once per network traversal (send + receive side), modelling choice.
NIC_LATENCY_S = 0.6 * US

# --------------------------------------------------------------------------- sizes and limits
#: Links slower than 1 Mb/s are left out as zero capacity (modelling choice: the min-cut works in
#: Mb/s, and a time over such a link would be years); links faster than 1 Eb/s count at 1 Eb/s,
#: so that no rate, sum of rates or time overflows to inf.
MIN_LINK_GBPS = _MIN_PORT_GBPS
MAX_LINK_GBPS = 1e9
#: Default message sweep: 8 B to 8 GiB in powers of two (nccl-tests ``-b 8 -e 8G -f 2``).
DEFAULT_SIZES_BYTES = tuple(2**k for k in range(3, 34))
#: Relative tolerance for "the bisection bounds meet".
EXACT_RTOL = 1e-9
#: Work budget (elements) of dense per-pair ECMP computations; larger fabrics use cheaper paths.
PAIR_WORK_BUDGET = 150_000_000
#: Above this many attachment switches, uniform traffic and the hose bound are routed once per class
#: of twin switches (switches with identical neighbours) instead of once per switch.
CLASS_ROUTING_MIN = 128
#: Max-min fair rates need the (flows x links) fraction matrix: built only under these limits
#: (pairs of attachment switches x core arcs, and matrix entries); above, bottlenecks still name
#: their utilisation and algorithm but not the fair rate of each flow.
FAIR_WORK_BUDGET = 4_000_000
FAIR_MAX_NNZ = 3_000_000
