"""Time and peak memory to generate and write rail-optimized fabrics of 1k, 4k, 16k and 64k GPUs.

Usage: python benchmarks/bench_generate.py [--quick]   (--quick: 1k and 4k only)

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
SIZES_GPUS = (1024, 4096, 16384, 65536)
GPUS_PER_SU = 256


def child(gpus: int, folder: str) -> None:
    sys.path.insert(0, str(ROOT))
    from designer.generators import GENERATORS
    from designer.io import save_design

    t0 = time.perf_counter()
    design = GENERATORS["rail-optimized"].build(sus=gpus // GPUS_PER_SU)
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
    header = (f"{'GPUs':>7} {'tiers':>5} {'devices':>8} {'links':>8} {'generate s':>10} {'write s':>8} "
              f"{'total s':>8} {'file MiB':>9} {'peak RSS MiB':>12}")
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
            print(f"{m['gpus']:>7} {m['tiers']:>5} {m['devices']:>8} {m['links']:>8} {m['generate_s']:>10.2f} "
                  f"{m['write_s']:>8.2f} {m['generate_s'] + m['write_s']:>8.2f} {m['file_mib']:>9.1f} "
                  f"{m['peak_rss_mib']:>12.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
