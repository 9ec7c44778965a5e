"""The registry of generators by kind name, in the order the GUI and CLI list them."""

from __future__ import annotations

from typing import Any

from designer.generators import (
    clos3,
    dragonfly,
    fat_tree,
    hypercube,
    leaf_spine,
    nvl72,
    rail_optimized,
    server,
    torus,
)
from designer.generators.direct import GPU_DIRECT_LINK_GBPS
from designer.generators.params import GeneratorError, GeneratorSpec
from designer.model import Design
from designer.model.catalog import Catalog, builtin_catalog
from designer.model.units import line_rate

GENERATORS: dict[str, GeneratorSpec] = {
    spec.kind: spec
    for spec in (
        server.SPEC,
        nvl72.SPEC,
        leaf_spine.SPEC,
        clos3.SPEC,
        fat_tree.SPEC,
        rail_optimized.SPEC,
        torus.SPEC,
        hypercube.SPEC,
        dragonfly.SPEC,
    )
}


def _network_speed(catalog: Catalog, model_id: str) -> float | None:
    comp = catalog.components.get(model_id) if model_id else None
    speeds = [g.speed_gbps for g in comp.ports if g.kind == "network"] if comp is not None else []
    return max(speeds) if speeds else None


def details(spec: GeneratorSpec, catalog: Catalog | None = None) -> str:
    """What a kind's links are, in words derived from its default parameters and the catalog.

    >>> details(GENERATORS["nvl72"]).split(",")[0]
    'Network links run at 800 Gb/s with the defaults (connectx-8-800g NICs'
    """
    catalog = catalog if catalog is not None else builtin_catalog()
    d = spec.defaults()
    names = {p.name for p in spec.params}
    cabled = "cable" in names
    floor = "cables are chosen by reach from a floor plan of racks in rows (see --racks-per-row)"
    if "link_speed_gbps" in names:
        rate = (line_rate(d["link_speed_gbps"]) if d["link_speed_gbps"] > 0 else
                f"the accelerator's own ICI link rate ({line_rate(GPU_DIRECT_LINK_GBPS)} for a GPU)")
        return (f"Accelerators link directly, with no switches, at {rate} by default "
                f"({spec.param('link_speed_gbps').cli_flag}); " + floor + ".")
    parts = []
    if d.get("nic"):
        parts.append((d["nic"], "NICs", _network_speed(catalog, d["nic"])))
    for name in ("switch", "spine_switch", "core_switch"):
        if d.get(name):
            parts.append((d[name], "switches" if spec.kind != "dragonfly" else "routers",
                          _network_speed(catalog, d[name])))
    if not cabled:
        nic = f", PCIe from each GPU to its {d['nic']} NIC" if d.get("nic") else ""
        return f"Board connections only (NVLink from each GPU to the NVLink fabric{nic}); no network cables."
    twin = [m for m, _, _ in parts if any(g.per_cage > 1 for g in catalog.components[m].ports)] \
        if all(m in catalog.components for m, _, _ in parts) else []
    if twin:
        floor += f"; the two ports of a {twin[0]} twin-port cage share one medium and module"
    speeds = [s for _, _, s in parts if s]
    if not speeds:
        return floor[0].upper() + floor[1:] + "."
    models = ", ".join(f"{m} {what}" for m, what, _ in parts)
    return (f"Network links run at {line_rate(min(speeds))} with the defaults ({models}), the speed of the "
            f"slower port; {floor}.")


def generate(kind: str, catalog: Catalog | None = None, **params: Any) -> Design:
    """Build a design of ``kind`` (one of GENERATORS) from keyword parameters."""
    spec = GENERATORS.get(kind)
    if spec is None:
        raise GeneratorError(f"unknown generator {kind!r} (known: {', '.join(GENERATORS)})")
    return spec.build(catalog, **params)
