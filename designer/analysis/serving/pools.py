"""Where a serving workload's instances run: pools of servers and each instance's groups.

GPUs are taken in the training room's server order (a server's GPUs together, in rail order).
Disaggregated: the prefill pool takes its instances' GPUs first, rounded up to whole servers, and
the decode pool starts on the next server; colocated: one pool serves both phases. Inside an
instance, rank = tp + TP (dp + DP pp): tensor-parallel groups are consecutive GPUs (one server when
they fit), a pipeline stage is ``tp x dp`` consecutive GPUs (the expert-parallel group when ``ep``
> 1), and stage s of every ``tp x dp`` position forms a pipeline.

Examples
--------
>>> import numpy as np
>>> from designer.analysis.serving.workload import Phase
>>> g = instance_groups(np.arange(8), Phase(tp=2, dp=2, pp=2, ep=4))
>>> g["tp"].tolist(), g["ep"].tolist(), g["pp"].tolist()
([[0, 1], [2, 3], [4, 5], [6, 7]], [[0, 1, 2, 3], [4, 5, 6, 7]], [[0, 4], [1, 5], [2, 6], [3, 7]])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.analysis.fabric.context import Context
from designer.analysis.serving.workload import Phase, ServingError, ServingWorkload
from designer.analysis.training.placement import server_order
from designer.model.units import count


@dataclass(frozen=True, eq=False)
class Pool:
    """The instances of one phase: ``gpus`` (instances x GPUs per instance) and each communicator's groups
    over every instance (rows of GPU positions)."""

    phase: Phase
    gpus: np.ndarray
    tp: np.ndarray
    ep: np.ndarray
    pp: np.ndarray

    @property
    def instances(self) -> int:
        return self.gpus.shape[0]

    @property
    def n_gpus(self) -> int:
        return int(self.gpus.size)


def instance_groups(gpus: np.ndarray, phase: Phase) -> dict[str, np.ndarray]:
    """The tp, ep and pp groups of one instance on ``gpus`` (its GPUs in rank order)."""
    grid = gpus.reshape(phase.pp, phase.dp, phase.tp)
    stage = grid.reshape(phase.pp, phase.dp * phase.tp)
    ep = stage if phase.ep > 1 else grid.reshape(-1, 1)
    return {"tp": grid.reshape(-1, phase.tp), "ep": ep, "pp": stage.T.copy()}


def _pool(gpus: np.ndarray, phase: Phase) -> Pool:
    rows = gpus.reshape(-1, phase.gpus)
    parts = [instance_groups(r, phase) for r in rows]
    return Pool(phase, rows, *(np.concatenate([p[k] for p in parts]) for k in ("tp", "ep", "pp")))


def server_size(ctx: Context) -> int:
    """GPUs of the largest NVLink domain (a server), 1 when the GPUs have none."""
    dom = ctx.fabric.domain
    dom = dom[dom >= 0]
    return int(np.bincount(dom).max()) if len(dom) else 1


def _instances(phase: Phase, available: int, name: str) -> int:
    if phase.instances:
        return phase.instances
    return available // phase.gpus


def pools(ctx: Context, w: ServingWorkload) -> tuple[Pool, Pool, int, list[str]]:
    """The prefill and decode pools (the same pool when colocated), idle GPUs and notes; a
    :class:`ServingError` when an instance does not fit."""
    n = ctx.n_gpus
    order = server_order(ctx)
    notes: list[str] = []
    if n == 0:
        raise ServingError("the design has no GPU to serve the model on")
    if not w.disaggregated:
        ph = w.decode
        k = _instances(ph, n, "decode")
        if k < 1 or k * ph.gpus > n:
            raise ServingError(f"an instance needs tp x dp x pp = {ph.gpus:,} GPUs"
                               f"{f' x {ph.instances:,} instances' if ph.instances else ''}; the design has "
                               f"{count(n, 'GPU')}")
        pool = _pool(order[:k * ph.gpus], ph)
        return pool, pool, n - k * ph.gpus, notes
    per_server = server_size(ctx)
    pf, dc = w.prefill, w.decode
    kp = pf.instances or 1
    used_p = kp * pf.gpus
    start_d = -(-used_p // per_server) * per_server
    kd = _instances(dc, max(n - start_d, 0), "decode")
    if used_p > n or kd < 1 or start_d + kd * dc.gpus > n:
        raise ServingError(f"prefill needs {kp:,} x {pf.gpus:,} GPUs (whole servers of {per_server}) and decode "
                           f"{f'{kd:,}' if dc.instances else 'at least one'} x {dc.gpus:,}; the design has "
                           f"{count(n, 'GPU')}")
    if start_d > used_p:
        notes.append(f"{count(start_d - used_p, 'GPU')} of the last prefill server left idle: decode starts on "
                     "the next server")
    prefill = _pool(order[:used_p], pf)
    decode = _pool(order[start_d:start_d + kd * dc.gpus], dc)
    return prefill, decode, n - used_p - kd * dc.gpus, notes


__all__ = ["Pool", "instance_groups", "pools", "server_size"]
