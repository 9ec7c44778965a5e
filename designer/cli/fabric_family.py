"""Rebuild a generated design at another size, or with another part: the fabric family of a design.

A generated design records its generator and some of its parameters in ``design.properties``
(``generator``, ``sus``, ``oversubscription``...). The size parameter of its family is scaled
(rail-optimized: scalable units, else servers per SU; leaf-spine: leaves; clos3: pods; nvl72: racks);
sizes the design does not record are read from it (leaf-spine: its leaf count and host ports per
leaf); every parameter it does not record takes the generator's default. Hand-drawn designs, and
families without a size rule, are refused in one line.
"""

from __future__ import annotations

from typing import Any

from designer.analysis.common.errors import AnalysisError
from designer.model import Design
from designer.model.catalog import Catalog

#: The parameter each family scales by, and its fallback when the first cannot take the factor.
SIZE_PARAMS = {"rail-optimized": ("sus", "nodes_per_su"), "leaf-spine": ("leaves", "hosts_per_leaf"),
               "clos3": ("pods", "leaves_per_pod"), "nvl72": ("racks", None)}


def family_params(design: Design) -> tuple[str, dict[str, Any]]:
    """The generator kind and the parameters that rebuild ``design``; AnalysisError when it cannot be."""
    from designer.generators import GENERATORS

    props = design.properties or {}
    kind = props.get("generator")
    if not isinstance(kind, str) or kind not in GENERATORS:
        raise AnalysisError("the design records no generator (design.properties.generator): only generated designs "
                            "can be rebuilt at another size")
    if kind not in SIZE_PARAMS:
        raise AnalysisError(f"a {kind} design has no size rule to scale by; scaling covers "
                            f"{', '.join(SIZE_PARAMS)}")
    spec = GENERATORS[kind]
    names = {p.name for p in spec.params}
    params = {k: v for k, v in props.items() if k in names}
    if kind == "rail-optimized":
        params.pop("tiers", None)  # let the generator choose the tiers the new size needs
        if "nodes" in props and "sus" in props and "nodes_per_su" not in params:
            params["nodes_per_su"] = max(-(-int(props["nodes"]) // int(props["sus"])), 1)
    # Parts the design records only in its devices: the GPU, NIC and switch models it was built with.
    first_model = {}
    for d in design.devices:
        key = d.kind if d.kind != "switch" else f"switch:{d.tier}"
        if d.model and key not in first_model:
            first_model[key] = d.model
    for param, key in (("gpu", "gpu"), ("nic", "nic"), ("nvswitch", "nvswitch"), ("switch", "switch:leaf"),
                       ("spine_switch", "switch:spine"), ("core_switch", "switch:core")):
        if param in names and param not in params and key in first_model:
            params[param] = first_model[key]
    servers = [g for g in design.groups if g.kind == "server"]
    n_gpus = sum(1 for d in design.devices if d.kind == "gpu")
    if "gpus_per_node" in names and "gpus_per_node" not in params and servers and n_gpus % len(servers) == 0:
        params["gpus_per_node"] = n_gpus // len(servers)
    if kind == "leaf-spine":
        leaves = [d for d in design.devices if d.kind == "switch" and d.tier == "leaf"]
        gpus = sum(1 for d in design.devices if d.kind == "gpu")
        params.setdefault("leaves", len(leaves) or 1)
        params.setdefault("hosts_per_leaf", max(gpus // max(len(leaves), 1), 1))
    return kind, params


def rebuild(design: Design, factor: float = 1.0, catalog: Catalog | None = None, **overrides: Any) -> Design:
    """``design``'s family at ``factor`` times its size, with parameters ``overrides`` changed, built from
    ``catalog`` (None: the built-in one)."""
    from designer.generators import GENERATORS

    kind, params = family_params(design)
    params.update(overrides)
    spec = GENERATORS[kind]
    first, second = SIZE_PARAMS[kind]
    if factor != 1.0:
        base = int(params.get(first, spec.param(first).default))
        want = base * factor
        if want >= 1 and abs(want - round(want)) < 1e-9:
            params[first] = int(round(want))
        elif second is not None:
            inner = int(params.get(second, spec.param(second).default))
            total = base * inner * factor
            if base > 1 and want >= 1:
                params[first] = max(int(round(want)), 1)
            else:
                params[first] = 1
                params[second] = max(int(round(total)), 1)
        else:
            params[first] = max(int(round(want)), 1)
    from designer.model import DesignError

    try:
        return spec.build(catalog, **params)
    except DesignError as e:
        if factor != 1.0 and second is not None and first in params:
            # The finer size does not fit the switches: whole units of the coarser one, rounded up.
            retry = {**params, first: max(int(-(-base * factor // 1)), 1)}
            retry.pop(second, None)
            if second in kind_params(design, kind):
                retry[second] = kind_params(design, kind)[second]
            try:
                return spec.build(catalog, **retry)
            except DesignError:
                pass
        raise AnalysisError(f"cannot rebuild the {kind} design at x{factor:g}: {e}") from None


def kind_params(design: Design, kind: str) -> dict[str, Any]:
    return family_params(design)[1]
