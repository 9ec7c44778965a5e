"""The prediction of ``sendrecv_perf``: every rank sends S bytes to the next rank and receives S from the
previous one, all at once (nccl-tests ``src/sendrecv.cu``: peer ``(rank + 1) % nranks``).

One phase of p flows in rank order, routed on the fabric like any other (NVLink inside a server, the
GPU's own NIC otherwise, as NCCL's point-to-point does without PXN); the latency is one point-to-point
step: NCCL's base ring latency and one step over NVLink or the network (tuning.cc ``baseLat``,
``hwLat``), plus the network hop latency when a flow leaves its server. busbw = algbw (factor 1).
"""

from __future__ import annotations

import numpy as np

from designer.analysis.collectives.algorithms import AlgorithmModel
from designer.analysis.collectives.embedding import Embedder
from designer.analysis.common import constants as K


def sendrecv_model(E: Embedder, ranks: np.ndarray) -> AlgorithmModel:
    """The model of one sendrecv round over GPU positions ``ranks`` (in rank order)."""
    src = np.asarray(ranks, dtype=np.int64)
    dst = np.roll(src, -1)
    ph = E.phase(src, dst, np.ones(len(src)))
    net_lat, _ = E.network_hop_latency_s(src, dst)
    crosses = net_lat > 0
    lat = {}
    for proto in ("LL", "Simple"):
        step = (K.STEP_LATENCY_S[("net", "ring", proto)] + net_lat) if crosses else E.intra_step_s(proto, "ring")
        lat[proto] = K.BASE_LATENCY_S[("ring", proto)] + step
    bw = {"LL": K.PROTOCOL_BW_FACTOR[("ring", "LL")], "Simple": 1.0}
    formula = ("t = base latency + one point-to-point step + S x max load/capacity; rank r sends S to rank r+1 "
               "over NVLink in its server and through its own NIC otherwise")
    return AlgorithmModel("sendrecv", "p2p", E.p, E.m, (ph,), lat, bw, formula)
