"""Benchmark the training-step model and the N-1 failure scan on the sample designs (prints figures).

    .venv/bin/python benchmarks/bench_training.py

For the 4-SU SuperPOD (1,016 GPUs) and the 16,384-GPU rail-optimized sample: loading, the analysis
context, one ``step_analysis`` of each preset that fits, the N-1 switch scan (one failure per class
of equivalent switches, with the llama3-405b step) and the single points of failure. Targets: the
step model within a few seconds, the scan <= 30 s (4 SU) and <= 120 s (16k GPUs).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ("superpod-h100-4su.json", "rail-optimized-16k-3tier.json")


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from designer.analysis.fabric.context import build_context
    from designer.analysis.training import step_analysis
    from designer.analysis.training.failures import n1_scan, single_points
    from designer.io import load_design
    from designer.io.workload_file import load_workload, preset_names

    print(f"{'design':<34} {'what':<30} {'seconds':>8}  result")
    for name in SAMPLES:
        t = time.perf_counter()
        design = load_design(ROOT / "sample_designs" / name)
        print(f"{name:<34} {'load':<30} {time.perf_counter() - t:8.2f}")
        t = time.perf_counter()
        ctx = build_context(design)
        print(f"{name:<34} {'context':<30} {time.perf_counter() - t:8.2f}")
        for preset in preset_names():
            t = time.perf_counter()
            rep = step_analysis(ctx, load_workload(preset))
            print(f"{name:<34} {'step ' + preset:<30} {time.perf_counter() - t:8.2f}  "
                  f"{rep.gpus:,} GPUs, step {rep.step_time_s:.3g} s, idle {rep.gpu_idle_fraction:.1%}, "
                  f"MFU {rep.mfu:.1%}")
        t = time.perf_counter()
        scan = n1_scan(design, workload=load_workload("llama3-405b"))
        print(f"{name:<34} {'N-1 switch scan':<30} {time.perf_counter() - t:8.2f}  "
              f"{scan.elements:,} switches in {scan.classes} classes")
        t = time.perf_counter()
        sp = single_points(design)
        print(f"{name:<34} {'single points of failure':<30} {time.perf_counter() - t:8.2f}  "
              f"{len(sp.links)} links, {len(sp.devices)} devices")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
