"""Failures: what a failed link, switch or NIC costs, the N-1 scan, and single points of failure.

- :func:`fail` marks links down (a device fails as all its links): the design's own ``failed``
  flag, which the capacity graph already leaves out.
- :func:`whatif` analyses the design before and after: bisection bounds, GPUs left without a
  network path, and with a workload the training step (:func:`step_analysis`).
- :func:`n1_scan` fails every switch (optionally every link) once per **class of equivalent
  elements**: colour refinement (1-dimensional Weisfeiler-Lehman) over the device graph, starting
  from kind, tier, model and port count, groups devices that no local structure tells apart (the
  spines of a leaf-spine, the leaves of all rails); a link's class is its two ends' classes. One
  representative per class is failed and analysed; the result stands for every member. Ranked by
  GPUs cut off, then bisection lost (the best cut found before, less the best cut found after: a
  real cut's capacity; the certified lower bound's loss is given too), then step time added.
- :func:`single_points`: bridges (links) and articulation points (devices) whose loss cuts GPUs
  off in the one sense :func:`gpus_cut_off` gives (what-if and the scan count the same GPUs).

Units: bytes/s per direction (bisection at line rate), seconds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from designer.analysis.bisection.bounds import bisection_bounds
from designer.analysis.common.errors import AnalysisError
from designer.analysis.fabric.context import Context, build_context
from designer.analysis.training.step import StepReport, step_analysis
from designer.analysis.training.workload import Workload
from designer.model import Design, DesignError
from designer.model.catalog import Catalog
from designer.model.units import count

SCANNED_KINDS = ("switch",)


def fail(design: Design, ids: Iterable[str]) -> Design:
    """A copy of ``design`` with the links ``ids`` down and every link of the devices ``ids`` down."""
    out = design.copy()
    ids = list(ids)
    for x in ids:
        if out.has_link(x):
            out.set_link_field(x, "failed", True)
        elif out.has_device(x):
            for lk in out.links_of(x):
                if not lk.failed:
                    out.set_link_field(lk.id, "failed", True)
        else:
            raise AnalysisError(f"no link or device {x!r} in the design")
    return out


@dataclass(frozen=True)
class State:
    """What a design (with its failures) offers: bisection bounds, cut-off GPUs, the step."""

    #: None when the design has fewer than 2 GPUs (no bisection exists).
    bisection_lower_bytes_per_s: float | None
    bisection_upper_bytes_per_s: float | None
    gpus_without_network: int
    step: StepReport | None
    step_error: str = ""

    @property
    def step_time_s(self) -> float | None:
        return self.step.step_time_s if self.step is not None else None


def state(ctx: Context, workload: Workload | None, catalog: Catalog | None = None) -> State:
    bis = bisection_bounds(ctx)
    cut_off = gpus_cut_off(ctx.design)
    step, err = None, ""
    if workload is not None:
        try:
            step = step_analysis(ctx, workload, catalog)
        except DesignError as e:  # the job no longer fits the broken design
            err = str(e)
    return State(bis.lower_bytes_per_s, bis.upper_bytes_per_s, cut_off, step, err)


def bisection_loss(before: float | None, after: float | None) -> float | None:
    """How far a bisection bound fell (bytes/s per direction, never negative); None when there is
    no bisection (fewer than 2 GPUs).

    >>> bisection_loss(3.2e12, 1.6e12), bisection_loss(1.0, 2.0), bisection_loss(None, None)
    (1600000000000.0, 0.0, None)
    """
    if before is None or after is None:
        return None
    return max(before - after, 0.0)


@dataclass(frozen=True)
class WhatIf:
    failed: tuple[str, ...]
    links_down: int
    before: State
    after: State

    @property
    def lost_bisection_bytes_per_s(self) -> float | None:
        """What the best cut found lost (None without a bisection: fewer than 2 GPUs)."""
        return bisection_loss(self.before.bisection_upper_bytes_per_s, self.after.bisection_upper_bytes_per_s)

    @property
    def lost_bisection_lower_bytes_per_s(self) -> float | None:
        """What the certified lower bound lost (None without a bisection)."""
        return bisection_loss(self.before.bisection_lower_bytes_per_s, self.after.bisection_lower_bytes_per_s)

    @property
    def added_step_s(self) -> float | None:
        return _added(self.before, self.after)


def _added(before: State, after: State) -> float | None:
    """Step time added by a failure (inf: the step never completes). Changes within 0.1% of the step read 0."""
    b, a = before.step_time_s, after.step_time_s
    if a is None or b is None:
        return None
    if not math.isfinite(a):
        return math.inf if math.isfinite(b) else 0.0
    d = a - b
    return 0.0 if abs(d) <= 1e-3 * b else d


def whatif(design: Design, ids: Iterable[str], workload: Workload | None = None,
           catalog: Catalog | None = None) -> WhatIf:
    """The design before and after failing ``ids`` (links or devices)."""
    ids = tuple(ids)
    if not ids:
        raise AnalysisError("nothing to fail: give link or device ids")
    broken = fail(design, ids)
    down = sum(1 for lk in broken.links if lk.failed) - sum(1 for lk in design.links if lk.failed)
    before = state(build_context(design, catalog), workload, catalog)
    after = state(build_context(broken, catalog), workload, catalog)
    return WhatIf(ids, down, before, after)


# --------------------------------------------------------------------------- equivalence classes
def _adjacency(design: Design) -> tuple[sp.csr_matrix, list[str], dict[str, int]]:
    ids = [d.id for d in design.devices]
    index = {x: i for i, x in enumerate(ids)}
    up = [lk for lk in design.links if not lk.failed]
    a = np.array([index[lk.a_device] for lk in up], dtype=np.int64)
    b = np.array([index[lk.b_device] for lk in up], dtype=np.int64)
    n = len(ids)
    adj = sp.coo_matrix((np.ones(2 * len(a)), (np.concatenate([a, b]), np.concatenate([b, a]))), shape=(n, n))
    return adj.tocsr(), ids, index


def device_classes(design: Design, rounds: int = 12) -> np.ndarray:
    """Colour refinement: a class number per device; devices in one class are not told apart by
    kind, tier, model, port count and (iterated) the classes of their neighbours with multiplicity."""
    adj, ids, _ = _adjacency(design)
    keys = [(d.kind, d.tier, d.model, sum(g.count for g in d.ports)) for d in design.devices]
    _, color = np.unique(np.array([repr(k) for k in keys]), return_inverse=True)
    color = color.reshape(-1)
    rng = np.random.default_rng(20240601)
    n_colors = int(color.max()) + 1 if len(color) else 0
    for _ in range(rounds):
        weights = rng.integers(1, 2**61, size=n_colors, dtype=np.int64).astype(np.float64)
        # Sum of random weights of the neighbours' colours (with multiplicity): equal for equal multisets.
        agg = adj @ weights[color]
        pairs = np.stack([color.astype(np.float64), agg], axis=1)
        _, new = np.unique(pairs, axis=0, return_inverse=True)
        new = new.reshape(-1)
        if int(new.max()) + 1 == n_colors:
            break
        color, n_colors = new, int(new.max()) + 1
    return color


@dataclass(frozen=True)
class ScanRow:
    """One class of equivalent failures: its representative, members, and what failing one costs."""

    element: str
    kind: str
    members: int
    gpus_cut_off: int
    lost_bisection_bytes_per_s: float | None
    added_step_s: float | None
    step_error: str
    #: Loss of the certified lower bound (it may fall further than the true bisection on a broken,
    #: asymmetric fabric, where ECMP routing is no longer balanced). Both losses are None without
    #: a bisection (fewer than 2 GPUs).
    lost_bisection_lower_bytes_per_s: float | None = 0.0


@dataclass(frozen=True)
class Scan:
    before: State
    rows: tuple[ScanRow, ...]
    classes: int
    elements: int


def n1_scan(design: Design, *, links: bool = False, workload: Workload | None = None,
            catalog: Catalog | None = None) -> Scan:
    """Fail every switch (and with ``links`` every link) once per equivalence class; ranked rows."""
    color = device_classes(design)
    ids = [d.id for d in design.devices]
    kinds = {d.id: d.kind for d in design.devices}
    cands: dict[tuple, list[str]] = {}
    for i, d in enumerate(design.devices):
        if d.kind in SCANNED_KINDS:
            cands.setdefault(("device", int(color[i])), []).append(d.id)
    if links:
        idx = {x: i for i, x in enumerate(ids)}
        for lk in design.links:
            if lk.failed:
                continue
            ca, cb = sorted((int(color[idx[lk.a_device]]), int(color[idx[lk.b_device]])))
            cands.setdefault(("link", ca, cb, lk.medium), []).append(lk.id)
    before = state(build_context(design, catalog), workload, catalog)
    rows = []
    for key, members in cands.items():
        rep = members[0]
        after = state(build_context(fail(design, [rep]), catalog), workload, catalog)
        added = _added(before, after)
        rows.append(ScanRow(rep, kinds.get(rep, "link") if key[0] == "device" else "link", len(members),
                            after.gpus_without_network - before.gpus_without_network,
                            bisection_loss(before.bisection_upper_bytes_per_s, after.bisection_upper_bytes_per_s),
                            added, after.step_error,
                            bisection_loss(before.bisection_lower_bytes_per_s, after.bisection_lower_bytes_per_s)))
    rows.sort(key=lambda r: (-r.gpus_cut_off, -(r.lost_bisection_bytes_per_s or 0.0),
                             -(r.added_step_s if r.added_step_s is not None else 0.0), r.element))
    return Scan(before, tuple(rows), len(cands), sum(len(v) for v in cands.values()))


# --------------------------------------------------------------------------- single points of failure
@dataclass(frozen=True)
class SinglePoints:
    """Links and devices whose loss alone cuts GPUs off (with how many), in the sense of
    :func:`gpus_cut_off`: the scan's and what-if's 'GPUs cut off' and the step that never completes."""

    links: tuple[tuple[str, int], ...]
    devices: tuple[tuple[str, int], ...]


def _is_nvlink(design: Design, lk) -> bool:
    if lk.medium == "nvlink":
        return True
    pa = design.device(lk.a_device).port(lk.a_port)
    pb = design.device(lk.b_device).port(lk.b_port)
    return (pa is not None and pa.kind == "nvlink") or (pb is not None and pb.kind == "nvlink")


def _reach_graph(design: Design) -> tuple[list, np.ndarray, list[str]]:
    """The working links GPUs reach each other over, as the analyzer routes them, and which devices
    are GPUs: every working link when all GPUs share one NVLink domain; otherwise the links other
    than NVLink (a GPU reaches other servers only through its own NIC: NVLink and NICs are never
    transit, so its server's NVLink does not keep it connected)."""
    ids = [d.id for d in design.devices]
    index = {x: i for i, x in enumerate(ids)}
    is_gpu = np.array([d.kind == "gpu" for d in design.devices], dtype=bool)
    up = [lk for lk in design.links if not lk.failed]
    nvl = [_is_nvlink(design, lk) for lk in up]
    n = len(ids)
    na = np.array([index[lk.a_device] for lk, v in zip(up, nvl, strict=True) if v], dtype=np.int64)
    nb = np.array([index[lk.b_device] for lk, v in zip(up, nvl, strict=True) if v], dtype=np.int64)
    adj = sp.coo_matrix((np.ones(len(na)), (na, nb)), shape=(n, n))
    _, lab = connected_components(adj, directed=False)
    one_domain = len(np.unique(lab[is_gpu])) <= 1
    edges = [(index[lk.a_device], index[lk.b_device], lk.id) for lk, v in zip(up, nvl, strict=True)
             if one_domain or not v]
    return edges, is_gpu, ids


def gpus_cut_off(design: Design) -> int:
    """GPUs cut off from the others: outside the part of the fabric (:func:`_reach_graph`) that
    holds the most GPUs. The one definition the what-if, the N-1 scan and the single points of
    failure use; with any GPU cut off the training step never completes."""
    edges, is_gpu, _ = _reach_graph(design)
    n = len(is_gpu)
    a = np.array([e[0] for e in edges], dtype=np.int64)
    b = np.array([e[1] for e in edges], dtype=np.int64)
    adj = sp.coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n)).tocsr()
    return _gpus_cut(adj, is_gpu)


def _gpus_cut(adj: sp.csr_matrix, is_gpu: np.ndarray) -> int:
    """GPUs outside the component holding most GPUs."""
    _, lab = connected_components(adj, directed=False)
    gl = lab[is_gpu]
    if not len(gl):
        return 0
    return int(len(gl) - np.bincount(gl).max())


def _cut_elements(n: int, edges: list, is_gpu: np.ndarray) -> tuple[list[tuple[str, int]], list[tuple[int, int]]]:
    """Bridges (links with no parallel twin) and articulation points (devices other than GPUs) of
    the graph, each with the GPUs it cuts off: those of its component outside the largest part its
    loss leaves. One iterative depth-first search (Tarjan's low links) with GPU counts per subtree."""
    a = np.array([e[0] for e in edges], dtype=np.int64)
    b = np.array([e[1] for e in edges], dtype=np.int64)
    src = np.concatenate([a, b])
    dst = np.concatenate([b, a])
    eid = np.concatenate([np.arange(len(edges)), np.arange(len(edges))])
    order = np.argsort(src, kind="stable")
    nbr, nid = dst[order].tolist(), eid[order].tolist()
    ptr = np.searchsorted(src[order], np.arange(n + 1)).tolist()
    gpu = is_gpu.astype(np.int64).tolist()
    disc = [-1] * n
    low = [0] * n
    sub = [0] * n
    bridges: list[tuple[str, int]] = []
    arts: list[tuple[int, int]] = []
    t = 0
    for root in range(n):
        if disc[root] >= 0 or ptr[root] == ptr[root + 1]:
            continue
        comp_nodes = []
        stack = [(root, -1, ptr[root])]
        disc[root] = low[root] = t
        t += 1
        sub[root] = gpu[root]
        comp_nodes.append(root)
        cut_parts: dict[int, list[int]] = {}
        bridge_cands = []
        while stack:
            u, pe, i = stack[-1]
            if i < ptr[u + 1]:
                stack[-1] = (u, pe, i + 1)
                v, e = nbr[i], nid[i]
                if e == pe:
                    continue
                if disc[v] < 0:
                    disc[v] = low[v] = t
                    t += 1
                    sub[v] = gpu[v]
                    comp_nodes.append(v)
                    stack.append((v, e, ptr[v]))
                else:
                    low[u] = min(low[u], disc[v])
                continue
            stack.pop()
            if not stack:
                continue
            p = stack[-1][0]
            sub[p] += sub[u]
            low[p] = min(low[p], low[u])
            if low[u] > disc[p]:
                bridge_cands.append((pe, u))
            if low[u] >= disc[p]:
                cut_parts.setdefault(p, []).append(sub[u])
        total = sub[root]
        for e, u in bridge_cands:
            lost = min(sub[u], total - sub[u])
            if lost > 0:
                bridges.append((edges[e][2], lost))
        for v, parts in cut_parts.items():
            if gpu[v] or (v == root and len(parts) < 2):
                continue
            rest = total - gpu[v] - sum(parts)
            lost = total - gpu[v] - max([*parts, rest])
            if lost > 0:
                arts.append((v, lost))
    return bridges, arts


def single_points(design: Design, *, limit: int | None = None) -> SinglePoints:
    """Links and devices whose loss alone cuts GPUs off (:func:`gpus_cut_off`), worst first."""
    edges, is_gpu, ids = _reach_graph(design)
    links, devs = _cut_elements(len(ids), edges, is_gpu)
    links.sort(key=lambda x: (-x[1], x[0]))
    out_dev = sorted(((ids[v], lost) for v, lost in devs), key=lambda x: (-x[1], x[0]))
    return SinglePoints(tuple(links[:limit]), tuple(out_dev[:limit]))


def describe_cut(n: int) -> str:
    return count(n, "GPU") + " cut off"


__all__ = ["Scan", "ScanRow", "SinglePoints", "State", "WhatIf", "describe_cut", "device_classes", "fail",
           "gpus_cut_off", "n1_scan", "single_points", "state", "whatif"]
