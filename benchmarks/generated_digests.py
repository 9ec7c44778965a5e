"""Digests of generated designs: one line per case (kind, parameters, SHA-256 of the saved text).

Usage: python benchmarks/generated_digests.py [--large] > digests.txt

Every generator kind at small sizes with the options that change cabling (breakouts, twin-port
cages with mixed media, direct NVLink, a UFM appliance, named cables, copper reach), plus the
16,384-GPU rail-optimized fabric; ``--large`` adds the 131,072-GPU one. Run before and after a
change to the generators or the model's construction path and diff the two outputs: a speed-up
must leave every line as it was. A case whose parameters are refused prints its one-line message
instead of a digest (so refusals are compared too).
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_generate import rail_params  # noqa: E402

from designer.generators import GENERATORS, GeneratorError  # noqa: E402
from designer.io import design_to_text  # noqa: E402
from designer.model.errors import ModelError  # noqa: E402

CASES: list[tuple[str, dict]] = [
    ("server", {}),
    ("server", {"gpus_per_node": 4, "with_nics": False}),
    ("server", {"nvlink": "mesh", "gpus_per_node": 4}),
    ("server", {"nvlink": "cube-mesh"}),
    ("server", {"nvlink": "bridge-pairs", "gpus_per_node": 2, "gpu": "h100-nvl"}),
    ("nvl72", {}),
    ("nvl72", {"racks": 4, "racks_per_domain": 2}),
    ("nvl72", {"racks": 2, "breakout": 2}),
    ("leaf-spine", {}),
    ("leaf-spine", {"leaves": 8, "hosts_per_leaf": 16, "oversubscription": 2.0}),
    ("leaf-spine", {"copper_max_m": 3.0, "long_medium": "auto"}),
    ("leaf-spine", {"long_medium": "aoc"}),
    ("leaf-spine", {"cable": "dr4-400g-sm"}),
    ("leaf-spine", {"switch": "sn5600", "breakout": 2, "leaves": 6}),
    ("leaf-spine", {"nvlink": "mesh", "gpus_per_node": 4}),
    ("leaf-spine", {"racks_per_row": 3}),
    ("leaf-spine", {"cable": "dac-400g-ndr"}),
    ("clos3", {}),
    ("clos3", {"pods": 2, "leaves_per_pod": 4, "hosts_per_leaf": 8, "copper_max_m": 3.0}),
    ("fat-tree", {}),
    ("fat-tree", {"k": 8, "gpus_per_node": 4}),
    ("fat-tree", {"k": 8, "switch": "sn5600", "breakout": 4}),
    ("rail-optimized", {}),
    ("rail-optimized", {"sus": 4, "ufm": True}),
    ("rail-optimized", {"sus": 4, "copper_max_m": 3.0, "long_medium": "auto"}),
    ("rail-optimized", {"sus": 2, "switch": "sn5600", "breakout": 2}),
    ("rail-optimized", {"sus": 8, "tiers": 3, "sus_per_pod": 2}),
    ("rail-optimized", {"sus": 2, "nvlink": "mesh", "nodes_per_su": 16}),
    ("rail-optimized", {"sus": 2, "switch": "sn5600", "breakout": 2, "cable": "sr4-400g-mm"}),
    ("rail-optimized", {"sus": 2, "racks_per_row": 2}),
    ("rail-optimized", {"sus": 2, "gpu": "b200", "nic": "connectx-8-800g", "switch": "q3400"}),
    ("rail-optimized", rail_params(16384)),
    ("torus", {}),
    ("torus", {"dims": (8, 8, 4), "wrap": False}),
    ("torus", {"dims": (4, 4), "rack_dims": (2, 2), "link_speed_gbps": 400.0}),
    ("hypercube", {}),
    ("hypercube", {"n": 7, "nodes_per_rack": 8}),
    ("dragonfly", {}),
    ("dragonfly", {"p": 2, "a": 4, "h": 2, "copper_max_m": 3.0}),
    ("dragonfly", {"switch": "sn5600", "breakout": 2}),
]


def digest(kind: str, params: dict) -> str:
    try:
        design = GENERATORS[kind].build(**params)
    except (GeneratorError, ModelError) as e:
        return f"refused: {e}"
    text = design_to_text(design)
    return f"{hashlib.sha256(text.encode()).hexdigest()} {design.device_count()} devices {design.link_count()} links"


def main(argv: list[str]) -> int:
    cases = CASES + ([("rail-optimized", rail_params(131072))] if "--large" in argv else [])
    for kind, params in cases:
        print(f"{kind} {params}: {digest(kind, params)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
