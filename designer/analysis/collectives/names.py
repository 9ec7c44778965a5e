"""The collectives and their algorithms by name, and nccl-tests' bus-bandwidth factor: what a menu,
a command-line option or a report needs of :mod:`designer.analysis.collectives.times` without its
time models (and scipy behind them). ``times`` and ``direct`` export these same objects.
"""

from __future__ import annotations

COLLECTIVES = ("allreduce", "reducescatter", "allgather", "alltoall", "broadcast")
#: How each collective is named in words (panels, reports, sweep axes).
COLLECTIVE_TITLES = {"allreduce": "All-reduce", "reducescatter": "Reduce-scatter", "allgather": "All-gather",
                     "alltoall": "All-to-all", "broadcast": "Broadcast"}
#: The algorithms of :mod:`designer.analysis.collectives.direct` (tori, meshes, hypercubes).
DIRECT_ALGORITHMS = ("bidir-ring", "multi-dim", "halving-doubling")
#: Collectives they model: all-reduce, and its two halves.
DIRECT_COLLECTIVES = ("allreduce", "reducescatter", "allgather")
ALGORITHMS = {
    "allreduce": ("ring", "tree", "hierarchical", "nvls", "sharp") + DIRECT_ALGORITHMS,
    "reducescatter": ("ring",) + DIRECT_ALGORITHMS,
    "allgather": ("ring",) + DIRECT_ALGORITHMS,
    "broadcast": ("ring",),
    "alltoall": ("pairwise",),
}
#: Algorithms NCCL's tuner does not consider unless asked: SHARP needs the CollNet plugin
#: (``NCCL_COLLNET_ENABLE=1``); they are still computed and shown, but not *selected* by default.
NOT_DEFAULT = ("sharp",)
ALIASES = {"all-reduce": "allreduce", "all_reduce": "allreduce", "reduce-scatter": "reducescatter",
           "reduce_scatter": "reducescatter", "all-gather": "allgather", "all_gather": "allgather",
           "all-to-all": "alltoall", "all_to_all": "alltoall", "bcast": "broadcast"}


def bus_factor(collective: str, p: int) -> float:
    """nccl-tests busbw / algbw factor.

    >>> bus_factor("allreduce", 8), bus_factor("allgather", 8), bus_factor("broadcast", 8)
    (1.75, 0.875, 1.0)
    """
    if p < 2:
        return 0.0
    if collective == "allreduce":
        return 2.0 * (p - 1) / p
    if collective == "broadcast":
        return 1.0
    return (p - 1) / p
