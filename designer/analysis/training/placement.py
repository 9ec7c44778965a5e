"""Placement of a job's ranks on the GPUs, and the communicator groups it gives.

Ranks are numbered with the parallel dimensions nested in ``Parallelism.order``, innermost first
(default tensor, context, pipeline, data parallel, the usual Megatron-style convention with the
pipeline inside data parallel): rank = tp + TP (cp + CP (pp + PP dp)). Rank r runs on the r-th GPU
in *server order*: the GPUs of one NVLink domain together, domains in design order, a domain's GPUs
in rail (then design) order, so tensor-parallel groups of up to a domain's size stay on NVLink.
Expert-parallel groups are ``ep`` consecutive data-parallel ranks (experts are sharded inside data
parallel); expert gradients are reduced over the data-parallel ranks that hold the same experts.

Examples
--------
>>> import numpy as np
>>> grid = rank_grid(16, {"tp": 2, "cp": 1, "pp": 2, "dp": 4}, ("tp", "cp", "pp", "dp"))
>>> groups_of(grid, ("tp",))[:2].tolist(), groups_of(grid, ("dp",))[0].tolist()
([[0, 1], [2, 3]], [0, 4, 8, 12])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.analysis.fabric.context import Context
from designer.analysis.training.workload import DIMENSIONS, Workload, WorkloadError
from designer.model.units import count


def server_order(ctx: Context) -> np.ndarray:
    """GPU positions in server order (see the module docstring)."""
    fab = ctx.fabric
    n = ctx.n_gpus
    pos = np.arange(n)
    dom = fab.domain
    key = np.where(dom >= 0, dom, -1 - pos)
    uniq, inv = np.unique(key, return_inverse=True)
    first = np.full(len(uniq), n, dtype=np.int64)
    np.minimum.at(first, inv.reshape(-1), pos)
    rail = np.where(ctx.rail >= 0, ctx.rail, 0)
    return np.lexsort((pos, rail, first[inv.reshape(-1)]))


def rank_grid(n_ranks: int, sizes: dict[str, int], order: tuple[str, ...]) -> np.ndarray:
    """Ranks as an array with one axis per dimension, axes in :data:`DIMENSIONS` order."""
    shape = tuple(sizes[d] for d in reversed(order))  # C order: the last axis varies fastest
    grid = np.arange(n_ranks).reshape(shape)
    axes = [len(order) - 1 - order.index(d) for d in DIMENSIONS]
    return np.transpose(grid, axes)


def groups_of(grid: np.ndarray, dims: tuple[str, ...]) -> np.ndarray:
    """Communicator groups over ``dims`` (rows of ranks): every other coordinate fixed."""
    idx = [DIMENSIONS.index(d) for d in dims]
    rest = [i for i in reversed(range(grid.ndim)) if i not in idx]  # outer dimensions vary slowest
    moved = np.transpose(grid, rest + idx)
    size = int(np.prod([grid.shape[i] for i in idx]))
    return moved.reshape(-1, size)


@dataclass(frozen=True, eq=False)
class Placement:
    """Ranks on GPUs and the groups of each communicator (rows of GPU positions).

    ``tp``, ``cp``, ``pp`` (one row per pipeline, stages in order), ``dp`` (dense gradients: data
    and context parallel ranks together), ``ep`` (expert all-to-all) and ``edp`` (expert gradients)
    are arrays of shape (groups, group size); a dimension of size 1 has groups of one GPU.
    """

    sizes: dict[str, int]
    gpus: np.ndarray
    tp: np.ndarray
    cp: np.ndarray
    pp: np.ndarray
    dp: np.ndarray
    ep: np.ndarray
    edp: np.ndarray
    idle_gpus: int
    notes: tuple[str, ...]

    @property
    def n_ranks(self) -> int:
        return len(self.gpus)


def place(ctx: Context, workload: Workload) -> Placement:
    """Place ``workload``'s ranks on the design's GPUs; :class:`WorkloadError` when they do not fit."""
    par = workload.parallelism
    n = ctx.n_gpus
    inner = par.tp * par.cp * par.pp
    if n == 0:
        raise WorkloadError("the design has no GPU to place the workload on")
    if inner > n:
        raise WorkloadError(f"the workload needs tp x cp x pp = {inner:,} GPUs per data-parallel rank; the design "
                            f"has {count(n, 'GPU')}")
    # dp "auto": every GPU left, rounded down to a multiple of ep (experts are sharded inside data parallel).
    dp = par.dp if par.dp else (n // inner) // par.ep * par.ep
    if dp < 1:
        raise WorkloadError(f"the workload needs tp x cp x pp x ep = {inner * par.ep:,} GPUs; the design has "
                            f"{count(n, 'GPU')}")
    if dp * inner > n:
        raise WorkloadError(f"the workload needs tp x cp x pp x dp = {dp * inner:,} GPUs; the design has "
                            f"{count(n, 'GPU')}")
    if dp % par.ep:
        raise WorkloadError(f"parallelism.ep ({par.ep}) must divide the data-parallel size ({dp:,} on "
                            f"{count(n, 'GPU')})")
    sizes = {"tp": par.tp, "cp": par.cp, "pp": par.pp, "dp": dp}
    n_ranks = dp * inner
    order = server_order(ctx)
    gpus = order[:n_ranks]
    grid = gpus[rank_grid(n_ranks, sizes, par.order)]
    notes: list[str] = []
    if n_ranks < n:
        notes.append(f"{count(n - n_ranks, 'GPU')} of {n:,} left idle: the job uses tp x cp x pp x dp = "
                     f"{n_ranks:,}")
    # Expert parallel: ep consecutive data-parallel ranks; expert gradients over the other dp ranks.
    tp_ax, cp_ax, pp_ax, _ = grid.shape
    split = grid.reshape(tp_ax, cp_ax, pp_ax, dp // par.ep, par.ep)
    ep_groups = split.reshape(-1, par.ep)
    edp_groups = np.moveaxis(split, 3, 4).reshape(-1, dp // par.ep)
    fab = ctx.fabric
    tp_groups = groups_of(grid, ("tp",))
    if par.tp > 1:
        dom = fab.domain[tp_groups]
        if ((dom < 0) | (dom != dom[:, :1])).any():
            notes.append(f"tensor-parallel groups of {par.tp} do not fit in one NVLink domain: their all-reduces "
                         "cross the network")
    return Placement(sizes, gpus, tp_groups, groups_of(grid, ("cp",)), groups_of(grid, ("pp",)),
                     groups_of(grid, ("cp", "dp")), ep_groups, edp_groups, n - n_ranks, tuple(notes))


__all__ = ["Placement", "groups_of", "place", "rank_grid", "server_order"]
