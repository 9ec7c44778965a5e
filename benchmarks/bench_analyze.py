"""Benchmark ``analyze`` on rail-optimized fabrics of growing size (prints figures; not a test).

Each size runs in its own process so that peak memory is that size's alone:

    .venv/bin/python benchmarks/bench_analyze.py            # 1k, 4k, 16k GPUs
    .venv/bin/python benchmarks/bench_analyze.py 1024 65536 # chosen sizes (GPUs, multiples of 256)
    .venv/bin/python benchmarks/bench_analyze.py 131072     # SN5600s broken out 2 x 400G (bench_generate.rail_params)
    .venv/bin/python benchmarks/bench_analyze.py --direct   # tori, a mesh, hypercubes n=12..16 and dragonflies

Figures: generation time, full ``analyze`` time (bisection bounds, the all-reduce sweep 8 B..8 GiB
for every algorithm, link loads and bottlenecks), the peak resident memory the analysis added,
and time per link x size to show the growth is near-linear. Direct-connect fabrics also print the
algorithm selected for an 8 GiB all-reduce and its busbw; a run past a few seconds prints its
stages on standard error as ``topo-designer analyze`` does.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_generate import rail_params, switches_text  # noqa: E402  (the one recipe of each size)

DEFAULT_SIZES = (1024, 4096, 16384)


def _rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def one(gpus: int) -> dict:
    sys.path.insert(0, str(ROOT))
    from designer.analysis import analyze
    from designer.generators import GENERATORS

    t0 = time.perf_counter()
    design = GENERATORS["rail-optimized"].build(**rail_params(gpus))
    t_gen = time.perf_counter() - t0
    rss0 = _rss_mib()
    t0 = time.perf_counter()
    rep = analyze(design)
    t_an = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    sizes = len({r.message_bytes for r in rep.collectives})
    return {
        "gpus": rep.design.gpus,
        "links": rep.design.links,
        "switches": rep.design.switches,
        "generate_s": round(t_gen, 2),
        "analyze_s": round(t_an, 2),
        "peak_rss_mib": round(peak),
        "analysis_rss_mib": round(peak - rss0),
        "us_per_link_size": round(t_an / (rep.design.links * sizes) * 1e6, 3),
        "bisection_exact": rep.bisection.exact,
        "bisection_tb_s": round(rep.bisection.lower_bytes_per_s / 1e12, 2),
    }


#: Direct-connect fabrics: (name, generator, parameters).
DIRECT = (
    ("torus 8x8x8", "torus", {"dims": "8x8x8"}),
    ("torus 16x16x16", "torus", {"dims": "16x16x16"}),
    ("mesh 64x64", "torus", {"dims": "64x64", "wrap": False}),
    ("hypercube n=12", "hypercube", {"n": 12}),
    ("hypercube n=13", "hypercube", {"n": 13}),
    ("hypercube n=14", "hypercube", {"n": 14}),
    ("hypercube n=15", "hypercube", {"n": 15}),
    ("hypercube n=16", "hypercube", {"n": 16}),
    ("dragonfly p=4 a=8 h=4", "dragonfly", {}),
    ("dragonfly p=8 a=16 h=8", "dragonfly", {"p": 8, "a": 16, "h": 8}),
)


def one_direct(name: str) -> dict:
    sys.path.insert(0, str(ROOT))
    from designer.analysis import analyze
    from designer.cli.analyze import stage_progress
    from designer.generators import GENERATORS

    _, kind, params = next(c for c in DIRECT if c[0] == name)
    t0 = time.perf_counter()
    design = GENERATORS[kind].build(**params)
    t_gen = time.perf_counter() - t0
    t0 = time.perf_counter()
    rep = analyze(design, progress=stage_progress())
    t_an = time.perf_counter() - t0
    big = max(r.message_bytes for r in rep.collectives)
    sel = next(r for r in rep.collectives if r.selected and r.message_bytes == big)
    return {
        "name": name, "gpus": rep.design.gpus, "links": rep.design.links, "generate_s": round(t_gen, 2),
        "analyze_s": round(t_an, 2), "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "bisection_exact": rep.bisection.exact, "bisection_tb_s": round(rep.bisection.lower_bytes_per_s / 1e12, 2),
        "selected": sel.algorithm, "busbw_gb_s": round(sel.busbw_bytes_per_s / 1e9, 1),
    }


def direct() -> int:
    print(f"{'fabric':>22} {'GPUs':>6} {'links':>7} {'gen s':>6} {'analyze s':>9} {'peak MiB':>9} {'bisection':>18}"
          f"  8 GiB all-reduce (selected, busbw)")
    for name, _, _ in DIRECT:
        # standard error passes through: a long run shows its stages while it runs
        out = subprocess.run([sys.executable, __file__, "--one-direct", name], stdout=subprocess.PIPE, text=True,
                             cwd=ROOT)
        if out.returncode:
            print(f"{name:>22} failed with exit code {out.returncode}")
            continue
        r = json.loads(out.stdout)
        bis = f"{r['bisection_tb_s']} TB/s{' exact' if r['bisection_exact'] else ''}"
        print(f"{name:>22} {r['gpus']:>6} {r['links']:>7} {r['generate_s']:>6} {r['analyze_s']:>9} "
              f"{r['peak_rss_mib']:>9} {bis:>18}  {r['selected']}, {r['busbw_gb_s']} GB/s", flush=True)
    return 0


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--one":
        print(json.dumps(one(int(argv[1]))))
        return 0
    if len(argv) == 2 and argv[0] == "--one-direct":
        print(json.dumps(one_direct(argv[1])))
        return 0
    if argv == ["--direct"]:
        return direct()
    sizes = [int(a) for a in argv] or list(DEFAULT_SIZES)
    print(f"{'GPUs':>7} {'switches':>14} {'links':>8} {'gen s':>7} {'analyze s':>9} {'peak MiB':>9} {'+MiB':>7}"
          f" {'us/(link*size)':>14} {'bisection':>16}")
    for n in sizes:
        out = subprocess.run([sys.executable, __file__, "--one", str(n)], capture_output=True, text=True, cwd=ROOT)
        if out.returncode:
            print(f"{n:>7} failed: {out.stderr.strip().splitlines()[-1] if out.stderr else out.returncode}")
            continue
        r = json.loads(out.stdout)
        bis = f"{r['bisection_tb_s']} TB/s{' exact' if r['bisection_exact'] else ''}"
        print(f"{r['gpus']:>7} {switches_text(rail_params(n)):>14}"
              f" {r['links']:>8} {r['generate_s']:>7} {r['analyze_s']:>9} {r['peak_rss_mib']:>9} "
              f"{r['analysis_rss_mib']:>7} {r['us_per_link_size']:>14} {bis:>16}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
