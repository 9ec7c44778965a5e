"""Parametric fabric generators: pure functions returning a ``Design``.

``GENERATORS[kind].build(**params)`` builds a design of a kind; each :class:`GeneratorSpec`
lists its parameters (name, type, default, help, limits) so the GUI and the CLI need no
per-kind code. Impossible parameters raise :class:`GeneratorError` naming the limit.
"""

from designer.generators.clos3 import build_clos3
from designer.generators.dragonfly import build_dragonfly
from designer.generators.fat_tree import build_fat_tree
from designer.generators.hypercube import build_hypercube
from designer.generators.leaf_spine import build_leaf_spine
from designer.generators.nvl72 import build_nvl72
from designer.generators.params import GeneratorError, GeneratorSpec, Param
from designer.generators.rail_optimized import build_rail_optimized
from designer.generators.registry import GENERATORS, generate
from designer.generators.server import build_server
from designer.generators.torus import build_torus

__all__ = [
    "GENERATORS",
    "GeneratorError",
    "GeneratorSpec",
    "Param",
    "build_clos3",
    "build_dragonfly",
    "build_fat_tree",
    "build_hypercube",
    "build_leaf_spine",
    "build_nvl72",
    "build_rail_optimized",
    "build_server",
    "build_torus",
    "generate",
]
