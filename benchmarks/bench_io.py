"""Time and peak memory to load, check and save the shipped sample designs.

Usage: python benchmarks/bench_io.py [--quick]   (--quick: skip the 16k-GPU sample)

Each sample runs in a fresh Python process so its peak resident memory (ru_maxrss) is its own.
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


def child(path: str) -> None:
    sys.path.insert(0, str(ROOT))
    from designer.analysis.rules.check import check_design
    from designer.io import load_design, save_design

    t0 = time.perf_counter()
    design = load_design(path)
    t1 = time.perf_counter()
    findings = check_design(design)
    t2 = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        save_design(design, Path(folder) / "copy.json")
    t3 = time.perf_counter()
    print(json.dumps({
        "sample": Path(path).stem, "devices": design.device_count(), "links": design.link_count(),
        "file_mib": Path(path).stat().st_size / 2**20, "load_s": t1 - t0, "rules_s": t2 - t1,
        "save_s": t3 - t2, "findings": len(findings),
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }))


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        child(argv[1])
        return 0
    samples = sorted((ROOT / "sample_designs").glob("*.json"), key=lambda p: p.stat().st_size)
    if "--quick" in argv:
        samples = [p for p in samples if "16k" not in p.name]
    print(f"{'sample':32} {'devices':>8} {'links':>7} {'MiB':>6} {'load s':>7} {'rules s':>7} "
          f"{'save s':>7} {'peak MiB':>8}")
    for path in samples:
        out = subprocess.run([sys.executable, __file__, "--child", str(path)], capture_output=True, text=True,
                             check=True)
        r = json.loads(out.stdout)
        print(f"{r['sample']:32} {r['devices']:>8,} {r['links']:>7,} {r['file_mib']:>6.1f} {r['load_s']:>7.2f} "
              f"{r['rules_s']:>7.2f} {r['save_s']:>7.2f} {r['peak_rss_mib']:>8.0f}")
    return 0


if __name__ == "__main__":
    t = time.perf_counter()
    code = main(sys.argv[1:])
    if "--child" not in sys.argv:
        print(f"total {time.perf_counter() - t:.1f} s")
    sys.exit(code)
