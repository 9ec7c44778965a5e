"""The reference sample designs shipped in ``sample_designs/``: file, generator and parameters.

Building one is deterministic; ``python sample_designs/make_samples.py`` writes them as design
files and ``--check`` fails when a file differs from what the generators build now (so a
generator change cannot silently drift from them). Writing files is not a generator's job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from designer.generators.registry import GENERATORS
from designer.model import Design
from designer.model.catalog import Catalog


@dataclass(frozen=True)
class Sample:
    """A sample design: file name, generator kind and parameters, one-line description."""

    file: str
    kind: str
    params: dict[str, Any] = field(default_factory=dict)
    title: str = ""
    summary: str = ""

    def build(self, catalog: Catalog | None = None) -> Design:
        design = GENERATORS[self.kind].build(catalog, **self.params)
        if self.title:
            design.name = self.title
        if self.summary:
            design.description = self.summary
        return design


SAMPLES: tuple[Sample, ...] = (
    Sample("hgx-h100-server.json", "server", {},
           "HGX H100 server",
           "One HGX/DGX H100 node: 8 H100 SXM GPUs on the HGX NVSwitch board, one ConnectX-7 400G NIC per GPU."),
    Sample("superpod-h100-1su.json", "rail-optimized", {"sus": 1, "ufm": True},
           "DGX H100 SuperPOD, 1 SU",
           "One DGX SuperPOD H100 scalable unit: 31 DGX H100 + UFM, 8 rail leaves, 4 spines, QM9700 NDR 400G "
           "(NVIDIA RA Table 4: 248 GPUs, 252 node/UFM-leaf and 256 leaf-spine cables)."),
    Sample("superpod-h100-4su.json", "rail-optimized", {"sus": 4, "ufm": True},
           "DGX H100 SuperPOD, 4 SUs",
           "DGX SuperPOD H100 reference compute fabric: 127 DGX H100 (1,016 GPUs) + UFM, 32 leaf + 16 spine "
           "QM9700, 1,020 node/UFM-leaf and 1,024 leaf-spine cables, non-blocking (NVIDIA RA Table 4)."),
    Sample("roce-leaf-spine-512-2to1.json", "leaf-spine",
           {"leaves": 16, "hosts_per_leaf": 32, "oversubscription": 2.0, "gpu": "b200", "nic": "connectx-8-800g",
            "switch": "sn5600"},
           "RoCE leaf-spine, 512 GPUs, 2:1",
           "512 B200 GPUs (64 HGX B200 nodes), ConnectX-8 800G RoCE, 16 Spectrum-4 SN5600 top-of-rack leaves "
           "with 32 hosts and 16 uplinks each (2:1), 4 SN5600 spines."),
    Sample("rail-optimized-16k-3tier.json", "rail-optimized", {"sus": 64},
           "Rail-optimized 16,384 GPUs, 3 tiers",
           "64 SUs of 32 DGX H100 (16,384 GPUs) in 16 pods of 4 SUs: 512 leaf, 512 spine and 256 core QM9700, "
           "non-blocking rail-optimized fat-tree."),
    Sample("tpu-torus-4x4x8.json", "torus", {"dims": "4x4x8"},
           "TPU-style 3D torus 4x4x8",
           "128 accelerators in a 4x4x8 3D torus with wrap-around, 6 direct 400 Gb/s links each, "
           "two 4x4x4 racks: copper inside a rack, optics between them."),
    Sample("dragonfly-p4-a8-h4.json", "dragonfly", {"p": 4, "a": 8, "h": 4},
           "Dragonfly p=4 a=8 h=4 (33 groups)",
           "Balanced dragonfly: 33 groups of 8 all-to-all QM9700 routers, 4 terminals and 4 global links per "
           "router, one global link between every pair of groups, 1,056 H100 GPUs in 4-GPU nodes."),
    Sample("gb200-nvl72.json", "nvl72", {"racks": 1},
           "GB200 NVL72-style rack",
           "One rack-scale NVLink domain: 18 trays x 4 B200 GPUs on one NVLink switch fabric, ConnectX-8 800G "
           "NICs on 4 rail leaves (SN5600) and 2 spines."),
)
