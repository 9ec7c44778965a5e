"""Storage traffic of a training job: checkpoints written, input data read.

The storage devices of the design (kind ``storage``, except fabric-manager hosts marked
``properties.role = "ufm"``) are reached over their own links, whether
they hang off the compute fabric or a separate front-end network, as drawn. The rate between the
job's GPUs and the storage is the **maximum flow** from every GPU to every storage device (writes;
the reverse for reads) over the effective link rates (protocol efficiency applied; NVLink left out,
as a GPU's data leaves through its own NIC), each storage
device also limited by its catalog ``specs.write_gb_s`` / ``read_gb_s`` (GB/s, decimal) when the
catalog has it. A maximum flow is the best any routing can do, so the times are lower bounds. What
binds is named: the storage devices' own throughput, their links, or the fabric between.

- checkpoint time = checkpoint bytes / write rate; its share of training time = checkpoint time /
  (interval + checkpoint time), checkpoints taken synchronously (training waits for them);
- input loading: tokens per second x bytes per token, against the read rate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import maximum_flow

from designer.analysis.fabric.capacity import K_STORAGE, P_NVLINK
from designer.analysis.fabric.context import Context
from designer.model.catalog import Catalog

_INT32_SAFE = 2**30


@dataclass(frozen=True)
class StorageReport:
    """Storage traffic of a step report's job (units: bytes, s, bytes/s per direction)."""

    storage_devices: int
    write_bytes_per_s: float
    read_bytes_per_s: float
    write_binds: str
    read_binds: str
    storage_link_bytes_per_s: float
    storage_write_limit_bytes_per_s: float | None
    storage_read_limit_bytes_per_s: float | None
    checkpoint_bytes: float
    checkpoint_s: float
    checkpoint_interval_s: float
    checkpoint_share: float
    input_bytes_per_s: float
    input_utilization: float


def _specs_rate(ctx: Context, node: int, key: str, catalog: Catalog) -> float | None:
    dev = ctx.design.device(ctx.cap.node_ids[node])
    comp = catalog.components.get(dev.model) if dev.model else None
    v = comp.specs.get(key) if comp is not None else None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
        return None
    return float(v) * 1e9


def max_flow_rate(ctx: Context, sources: np.ndarray, sinks: np.ndarray, sink_caps: np.ndarray) -> float:
    """Maximum flow (bytes/s) from the nodes ``sources`` to the nodes ``sinks`` over effective arc rates,
    sink ``i`` taking at most ``sink_caps[i]`` (inf: unlimited). Rounded down to 2^-30 of the total."""
    cap = ctx.cap
    n = cap.n_nodes
    m = cap.n_links
    if not len(sources) or not len(sinks) or not m:
        return 0.0
    # NVLink is left out: a GPU's data reaches storage through its own NIC, never relayed by its peers.
    nvl = np.concatenate([cap.protocol, cap.protocol]) == P_NVLINK
    arc_c = np.where(nvl, 0.0, cap.arc_effective_bytes_per_s)
    finite_sink = np.where(np.isfinite(sink_caps), sink_caps, 0.0)
    total = float(arc_c.sum() / 2 + finite_sink.sum())
    unit = max(total / _INT32_SAFE, 1.0)
    big = _INT32_SAFE
    src = np.concatenate([cap.a, cap.b, np.full(len(sources), n), sinks])
    dst = np.concatenate([cap.b, cap.a, sources, np.full(len(sinks), n + 1)])
    c_sink = np.where(np.isfinite(sink_caps), np.floor(finite_sink / unit), big)
    w = np.concatenate([np.floor(arc_c / unit), np.full(len(sources), big), c_sink])  # arc k: a->b, k+m: b->a
    w = np.minimum(w, big).astype(np.int32)
    g = sp.csr_matrix((w, (src, dst)), shape=(n + 2, n + 2))
    return float(maximum_flow(g, n, n + 1).flow_value) * unit


def storage_analysis(ctx: Context, gpus: np.ndarray, checkpoint_bytes: float, interval_s: float,
                     input_bytes_per_s: float, catalog: Catalog | None = None) -> StorageReport | None:
    """Checkpoint and input traffic between the GPUs ``gpus`` (positions) and the design's storage
    devices; None when the design has none."""
    catalog = catalog if catalog is not None else ctx.catalog
    cap = ctx.cap
    stor = np.flatnonzero(cap.node_kind == K_STORAGE)
    # A fabric-manager host is drawn as a storage device (properties.role = "ufm"): it holds no data.
    stor = stor[[ctx.design.device(cap.node_ids[i]).properties.get("role") != "ufm" for i in stor]] \
        if len(stor) else stor
    if not len(stor):
        return None
    nodes = ctx.fabric.gpus[np.asarray(gpus, dtype=np.int64)]
    writes = np.array([_specs_rate(ctx, s, "write_gb_s", catalog) or np.inf for s in stor])
    reads = np.array([_specs_rate(ctx, s, "read_gb_s", catalog) or np.inf for s in stor])
    eff = cap.effective_bytes_per_s
    touches = np.isin(cap.a, stor) | np.isin(cap.b, stor)
    link_total = float(eff[touches].sum())
    w_limit = float(writes.sum()) if np.isfinite(writes).all() else None
    r_limit = float(reads.sum()) if np.isfinite(reads).all() else None

    # Writes run GPU -> storage; reads storage -> GPU, the same flow on the reversed graph (links are
    # full duplex with equal rates each way), so one computation serves both with its own sink limits.
    write = max_flow_rate(ctx, nodes, stor, writes)
    read = max_flow_rate(ctx, nodes, stor, reads)

    def binds(rate: float, limit: float | None) -> str:
        if rate <= 0:
            return "no path"
        if limit is not None and rate >= limit * (1 - 1e-6):
            return "storage devices"
        if rate >= link_total * (1 - 1e-6):
            return "storage links"
        return "fabric"

    ck = checkpoint_bytes / write if write > 0 and checkpoint_bytes > 0 else (0.0 if checkpoint_bytes <= 0
                                                                            else float("inf"))
    share = ck / (interval_s + ck) if interval_s > 0 and ck > 0 and np.isfinite(ck) else (1.0 if not np.isfinite(ck)
                                                                                          else 0.0)
    return StorageReport(len(stor), write, read, binds(write, w_limit), binds(read, r_limit), link_total, w_limit,
                         r_limit, checkpoint_bytes, ck, interval_s, share, input_bytes_per_s,
                         input_bytes_per_s / read if read > 0 else float("inf"))


__all__ = ["StorageReport", "max_flow_rate", "storage_analysis"]
