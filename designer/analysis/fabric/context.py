"""One analysis context per design: capacity graph, routing structure, GPU properties, GPU sets."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import repeat

import numpy as np

from designer.analysis.common.errors import AnalysisError
from designer.analysis.fabric.capacity import CapacityGraph, build_capacity_graph
from designer.analysis.fabric.routing import CoreRouter, Fabric, build_fabric
from designer.model import Design
from designer.model.catalog import Catalog, builtin_catalog


@dataclass(eq=False)
class Context:
    """Everything the analyses share. ``su`` and ``rail`` are per GPU (-1 when unknown)."""

    design: Design
    cap: CapacityGraph
    fabric: Fabric
    router: CoreRouter
    gpu_ids: tuple[str, ...]
    su: np.ndarray
    rail: np.ndarray
    #: The catalog the capacity graph was built with: every analysis given this context reads its
    #: models' figures (peak FLOP/s, prices, adaptive routing) from it too.
    catalog: Catalog
    #: Results that depend only on this context and their arguments (collective models, bisection
    #: bounds, fair rates), kept so that a new message size or algorithm choice re-uses the routes.
    #: A Context is not shared between threads while in use.
    memo: dict = field(default_factory=dict, repr=False)

    @property
    def n_gpus(self) -> int:
        return len(self.gpu_ids)

    def gpu_positions(self, gpus: str | Iterable[str] | None) -> np.ndarray:
        """Positions (in ``fabric.gpus``) of the GPUs taking part.

        ``None`` or ``"all"``: every GPU; a group id: the GPUs of that group and its sub-groups;
        a comma-separated string or a list: GPU ids (or group ids).
        """
        pos = {g: i for i, g in enumerate(self.gpu_ids)}
        if gpus is None or gpus == "all":
            return np.arange(self.n_gpus)
        items = [s.strip() for s in gpus.split(",")] if isinstance(gpus, str) else list(gpus)
        out: list[int] = []
        for it in items:
            if not it:
                continue
            if it in pos:
                out.append(pos[it])
            elif self.design.has_group(it):
                members = [pos[d.id] for d in self.design.all_members(it) if d.id in pos]
                if not members:
                    raise AnalysisError(f"group {it!r} holds no GPU")
                out.extend(members)
            elif self.design.has_device(it):
                raise AnalysisError(f"{it!r} is not a GPU (--gpus takes GPU or group ids)")
            else:
                raise AnalysisError(f"no GPU or group {it!r} in the design")
        if not out:
            raise AnalysisError("the GPU selection is empty")
        return np.unique(np.array(out, dtype=np.int64))


def _int_prop(value: object) -> int:
    """A whole-number property (``rail``, ``su``) as an int; -1 when it is not one."""
    if value.__class__ is int:
        return value  # the common case
    if isinstance(value, bool):
        return -1
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return -1


def build_context(design: Design, catalog: Catalog | None = None) -> Context:
    """Capacity graph, fabric and router of ``design`` with ``catalog`` (None: the built-in, default catalog).

    Build it once per design and pass it to every analysis (:func:`bisection_bounds`,
    :func:`collective_times`, :func:`traffic_loads`); :func:`designer.analysis.analyze` does.
    """
    catalog = catalog if catalog is not None else builtin_catalog()
    cap = build_capacity_graph(design, catalog)
    devices = design.devices
    gpu_nodes = cap.nodes_of_kind("gpu")
    props = [devices[i].properties for i in gpu_nodes.tolist()]
    rail, su = (np.fromiter(map(_int_prop, map(dict.get, props, repeat(key), repeat(-1))), dtype=np.int64,
                            count=len(props)) for key in ("rail", "su"))
    fabric = build_fabric(cap, rail)
    router = CoreRouter(fabric)
    router.arc_label_source = lambda: core_arc_ports(design, cap, fabric)
    return Context(design, cap, fabric, router, tuple(cap.node_ids[i] for i in gpu_nodes), su, rail, catalog)


def core_arc_ports(design: Design, cap: CapacityGraph, fabric: Fabric) -> np.ndarray | None:
    """Per core arc, a number naming the port it leaves its device from (equal names, equal numbers).

    The router uses them to recognise translation-symmetric fabrics (tori, hypercubes:
    :meth:`CoreRouter.translations`); None when the core graph has no arcs.
    """
    arcs = fabric.core_arc
    if not len(arcs):
        return None
    m = cap.n_links
    # The capacity graph's links are the design's links in use, in design order.
    left_out = {i for i, _ in cap.excluded}
    kept = [link for link in design.links if link.id not in left_out] if left_out else design.links
    codes: dict[str, int] = {}
    code_a = np.fromiter((codes.setdefault(link.a_port, len(codes)) for link in kept), dtype=np.int64, count=m)
    code_b = np.fromiter((codes.setdefault(link.b_port, len(codes)) for link in kept), dtype=np.int64, count=m)
    k = arcs % m
    return np.where(arcs >= m, code_b[k], code_a[k])


def require_context(ctx: object, func: str) -> Context:
    """``ctx`` if it is a Context; a TypeError naming :func:`build_context` otherwise."""
    if not isinstance(ctx, Context):
        raise TypeError(f"{func} takes an analysis Context, not {type(ctx).__name__}: "
                        "pass build_context(design) (build it once and reuse it)")
    return ctx


def members_of(ctx: Context, members) -> np.ndarray:
    """GPU positions from None, an array of positions, or a ``gpus`` selection (ids / group / "all")."""
    if members is None or isinstance(members, str):
        return ctx.gpu_positions(members)
    arr = list(members)
    if arr and all(isinstance(x, str) for x in arr):
        return ctx.gpu_positions(arr)
    return np.unique(np.asarray(arr, dtype=np.int64))
