"""Time and peak memory to generate and write rail-optimized fabrics of 1k, 4k, 16k, 64k and 128k GPUs.

Usage: python benchmarks/bench_generate.py [--quick]   (--quick: 1k and 4k only)

Up to 65,536 GPUs the fabric is the SuperPOD default (QM9700, 64 ports); 131,072 GPUs need more ports
per switch, so that size takes SN5600s with each 800G port broken out as 2 x 400G (128 ports).

Each size runs in a fresh Python process so its peak resident memory (ru_maxrss) is its own.
Figures are printed, not asserted: this is a benchmark, not a timed test.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZES_GPUS = (1024, 4096, 16384, 65536, 131072)
GPUS_PER_SU = 256
#: Largest fabric of 64-port switches: 64 pods of 4 SUs.
MAX_64_PORT_GPUS = 65536


def rail_params(gpus: int) -> dict:
    """The rail-optimized parameters the benchmarks build ``gpus`` GPUs with (one definition for both)."""
    params: dict = {"sus": max(1, gpus // GPUS_PER_SU)}
    if gpus > MAX_64_PORT_GPUS:
        params.update(switch="sn5600", breakout=2)
    return params


def switches_text(params: dict) -> str:
    """How the benchmark tables name the switches of a size: ``qm9700`` or ``sn5600 split 2``."""
    return f"{params['switch']} split {params['breakout']}" if "breakout" in params else "qm9700"


def child(gpus: int, folder: str) -> None:
    sys.path.insert(0, str(ROOT))
    from designer.generators import GENERATORS
    from designer.io import save_design

    t0 = time.perf_counter()
    design = GENERATORS["rail-optimized"].build(**rail_params(gpus))
    t1 = time.perf_counter()
    path = Path(folder) / f"rail-{gpus}.json"
    save_design(design, path)
    t2 = time.perf_counter()
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(json.dumps({
        "gpus": gpus, "devices": design.device_count(), "links": design.link_count(),
        "tiers": design.properties["tiers"], "generate_s": t1 - t0, "write_s": t2 - t1,
        "file_mib": path.stat().st_size / 2**20, "peak_rss_mib": peak_kib / 1024,
    }))


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        child(int(argv[1]), argv[2])
        return 0
    sizes = SIZES_GPUS[:2] if "--quick" in argv else SIZES_GPUS
    header = (f"{'GPUs':>7} {'switches':>14} {'tiers':>5} {'devices':>8} {'links':>8} {'generate s':>10} "
              f"{'write s':>8} {'total s':>8} {'file MiB':>9} {'peak RSS MiB':>12}")
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as folder:
        for gpus in sizes:
            r = subprocess.run([sys.executable, __file__, "--child", str(gpus), folder], capture_output=True,
                               text=True, check=False)
            if r.returncode != 0:
                print(f"{gpus:>7} failed: {r.stderr.strip().splitlines()[-1] if r.stderr else r.returncode}")
                continue
            m = json.loads(r.stdout)
            print(f"{m['gpus']:>7} {switches_text(rail_params(gpus)):>14} {m['tiers']:>5}"
                  f" {m['devices']:>8} {m['links']:>8} {m['generate_s']:>10.2f} "
                  f"{m['write_s']:>8.2f} {m['generate_s'] + m['write_s']:>8.2f} {m['file_mib']:>9.1f} "
                  f"{m['peak_rss_mib']:>12.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
