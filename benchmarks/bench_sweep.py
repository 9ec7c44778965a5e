"""Benchmark design-space sweeps on Dask (prints figures; docs/sweeps.md and the README quote them).

    .venv/bin/python benchmarks/bench_sweep.py [--points 200] [--skip-scheduler]

A 200-point sweep of rail-optimized fabrics from 1,024 to 16,384 GPUs (scalable units x
oversubscription x copper reach x racks per row; the all-reduce at 1 GiB, the bisection bounds and
the bill of materials per point), run:

1. on a local cluster of 1 worker process, then of 2 (``topo-designer sweep --workers N``);
2. on a scheduler and 2 worker processes the benchmark starts on 127.0.0.1 (``dask scheduler`` and
   ``dask worker``), reached by address (``--scheduler``).

For each: wall time from submitting to the last row written (cluster start-up shown apart),
points per second, the analysis alone (the sum of the points' own evaluation times, measured on
the workers by ``evaluate_point``), the runner's overhead per point (wall x workers - analysis,
over the points), and the speed-up of 2 workers over 1. Target: speed-up >= 1.7 on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SUS = [4, 5, 6, 7, 8, 12, 16, 64]  # 1,024 .. 16,384 GPUs


def spec_data(points: int) -> dict:
    copper = [0, 1.5, 2, 3, 5]
    rows = [0, 8, 12, 18, 24]
    per_sus = max(points // len(SUS), 1)
    # oversubscription x copper reach x racks per row, as many as the point count asks for
    combos = [(o, c, r) for o in (1, 2) for c in copper for r in rows][:per_sus]
    zipped_o, zipped_c, zipped_r = zip(*combos, strict=True)
    return {"generator": "rail-optimized",
            "parameters": {"sus": SUS, "oversubscription": list(zipped_o), "copper_max_m": list(zipped_c),
                           "racks_per_row": list(zipped_r)},
            "zip": [["oversubscription", "copper_max_m", "racks_per_row"]],
            "sizes": ["1GiB"], "metrics": ["bom", "bisection", "collective"]}


def _start_cluster(tmp: Path, workers: int) -> tuple[list[subprocess.Popen], str]:
    dask = str(Path(sys.executable).parent / "dask")
    sched_file = tmp / "scheduler.json"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    log = open(tmp / "cluster.log", "w")  # noqa: SIM115
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                               "--scheduler-file", str(sched_file)], stdout=log, stderr=log, env=env)]
    for _ in range(100):
        if sched_file.exists() and sched_file.stat().st_size:
            break
        time.sleep(0.1)
    address = json.loads(sched_file.read_text())["address"]
    procs.append(subprocess.Popen([dask, "worker", address, "--nworkers", str(workers), "--nthreads", "1",
                                   "--no-dashboard", "--host", "127.0.0.1"], stdout=log, stderr=log, env=env))
    from distributed import Client

    with Client(address, timeout="30s") as c:
        c.wait_for_workers(workers, timeout=60)
        c.run(lambda: __import__("designer.sweep.evaluate"))  # workers import the designer first
    return procs, address


def main() -> int:
    sys.path.insert(0, str(ROOT))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=200)
    ap.add_argument("--skip-scheduler", action="store_true")
    args = ap.parse_args()
    from designer.cli.analyze import parse_size
    from designer.sweep import parse_spec
    from designer.sweep.results import read_results
    from designer.sweep.runner import LOOPBACK, run_sweep

    spec = parse_spec(spec_data(args.points), "bench", parse_size)
    print(f"{spec.count} points: rail-optimized, sus {SUS} (1,024 to 16,384 GPUs) x "
          f"{spec.count // len(SUS)} (oversubscription, copper reach, racks per row)")
    print(f"{'run':<34} {'wall s':>8} {'points/s':>9} {'analysis s':>11} {'overhead/pt':>12} {'speed-up':>9}")
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-sweep-") as tmp_s:
        tmp = Path(tmp_s)

        def report(name: str, out: Path, wall: float, workers: int, base: float | None) -> None:
            _, rows = read_results(out)
            ok = sum(1 for r in rows if r["status"] == "ok")
            analysis = sum(r["seconds"] or 0.0 for r in rows)
            overhead = (wall * workers - analysis) / len(rows)
            speed = f"{base / wall:9.2f}" if base else f"{'':9}"
            print(f"{name:<34} {wall:8.1f} {len(rows) / wall:9.2f} {analysis:11.1f} {overhead * 1e3:10.0f} ms "
                  f"{speed}  ({ok} ok)")
            results[name] = wall

        for n in (1, 2):
            from distributed import Client, LocalCluster

            t = time.perf_counter()
            with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host=LOOPBACK,
                              dashboard_address=f"{LOOPBACK}:0") as lc, \
                    Client(lc, set_as_default=False) as client:
                client.run(lambda: __import__("designer.sweep.evaluate"))  # workers import the designer first
                start = time.perf_counter() - t
                out = tmp / f"local{n}.csv"
                t = time.perf_counter()
                run_sweep(spec, out, client=client)
                wall = time.perf_counter() - t
            print(f"  (local cluster of {n} started in {start:.1f} s)")
            report(f"local cluster, {n} worker{'s' if n > 1 else ''}", out, wall, n,
                   results.get("local cluster, 1 worker"))
        if not args.skip_scheduler:
            t = time.perf_counter()
            procs, address = _start_cluster(tmp, 2)
            print(f"  (scheduler + 2 workers on 127.0.0.1 started in {time.perf_counter() - t:.1f} s: {address})")
            try:
                out = tmp / "scheduler.parquet"
                t = time.perf_counter()
                run_sweep(spec, out, scheduler=address)
                wall = time.perf_counter() - t
                report("--scheduler, 2 workers (127.0.0.1)", out, wall, 2, results.get("local cluster, 1 worker"))
            finally:
                for p in reversed(procs):
                    p.terminate()
                for p in procs:
                    p.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
