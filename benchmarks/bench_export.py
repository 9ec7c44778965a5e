"""Benchmark ``topo-designer export`` on the 16,384-GPU sample (prints figures; not a test).

    .venv/bin/python benchmarks/bench_export.py                 # sample_designs/rail-optimized-16k-3tier.json
    .venv/bin/python benchmarks/bench_export.py DESIGN.json     # another design

Two tables:

1. Each export on its own, as a user runs it: ``topo-designer export FILE --OUTPUT PATH`` in a
   fresh process (start-up, reading the file, the analysis and the output), wall-clock seconds,
   and the size of the file written. Target: at most 10 s each.
2. The parts of one run with every output (``export FILE --png ... --graphml ...``): the shared
   analysis once, then each writer, as the command's own ``time:`` line reports them.

Qt draws offscreen (the command chooses it when there is no display).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "sample_designs" / "rail-optimized-16k-3tier.json"
OUTPUTS = (("png", "canvas.png"), ("panels", "panels"), ("report", "report.json"), ("html", "report.html"),
           ("cabling", "cabling.csv"), ("graphml", "fabric.graphml"))
TARGET_S = 10.0


def _size(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.iterdir())
    return path.stat().st_size


def _run(args: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "designer", *args], capture_output=True, text=True, cwd=ROOT, env=env)
    return time.perf_counter() - t0, out


def main(argv: list[str]) -> int:
    design = Path(argv[0]) if argv else DEFAULT
    print(f"design: {design.name}")
    with tempfile.TemporaryDirectory(prefix="bench-export-") as tmp:
        folder = Path(tmp)
        print(f"{'export':<10} {'wall s':>7} {'file':>10}  within {TARGET_S:g} s")
        worst = 0.0
        for key, name in OUTPUTS:
            seconds, out = _run(["export", str(design), f"--{key}", str(folder / name), "--quiet"])
            if out.returncode:
                print(f"{key:<10} failed: {out.stderr.strip()}")
                continue
            worst = max(worst, seconds)
            size = _size(folder / name)
            print(f"{key:<10} {seconds:>7.2f} {size / 1e6:>8.1f} MB  {'yes' if seconds <= TARGET_S else 'NO'}",
                  flush=True)
        args = ["export", str(design)]
        for key, name in OUTPUTS:
            args += [f"--{key}", str(folder / f"all-{name}")]
        seconds, out = _run(args)
        print()
        if out.returncode:
            print(f"all outputs in one run failed: {out.stderr.strip()}")
            return 1
        parts = next((ln for ln in out.stdout.splitlines() if ln.startswith("time: ")), "")
        print(f"all six outputs in one run: {seconds:.2f} s wall")
        print("  " + parts)
        print(f"\nslowest single export: {worst:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
