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
from designer.generators.base import GeneratorError, GeneratorSpec
from designer.model import Design
from designer.model.catalog import Catalog

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


def generate(kind: str, catalog: Catalog | None = None, **params: Any) -> Design:
    """Build a design of ``kind`` (one of GENERATORS) from keyword parameters."""
    spec = GENERATORS.get(kind)
    if spec is None:
        raise GeneratorError(f"unknown generator {kind!r} (known: {', '.join(GENERATORS)})")
    return spec.build(catalog, **params)
