"""What a user waits for, one row each: start-up, analyze text and JSON of the 16k sample, growth to
131,072 GPUs, live analysis, opening the 16k sample in the window, the test suite. Prints figures
(not a test).

Usage::

    .venv/bin/python benchmarks/bench_waits.py                 # every row but the test suite
    .venv/bin/python benchmarks/bench_waits.py start json      # chosen rows
    .venv/bin/python benchmarks/bench_waits.py --repo OLD start  # the same rows of another checkout
    .venv/bin/python benchmarks/bench_waits.py --cold text     # each command compiling its modules

Rows: ``start`` (``topo-designer --version`` and ``--help``; the window started with its sample design,
from its first import to its first paint), ``text`` and ``json`` (``topo-designer analyze`` of the
16,384-GPU sample, text, and ``--json -``; the text also for the sample read before, whose checks are
then skipped), ``load`` (the 16k sample read into a design), ``growth``
(rail-optimized generate and analyze at 16,384 and 131,072 GPUs, and the analysis' time per link x
message size), ``live`` (``bench_live.py``: edit to panels on 1,024 GPUs, UI stall and overlay on
16k), ``window`` (``bench_canvas.py --large``: the 16k sample and a 131,072-GPU design opened
collapsed, a pod of each deleted and the deletion undone), ``suite`` (the README's ``python -m
pytest``). Each command runs in a fresh process, reading its design as a file never read before
(a record of checked files of its own, empty: ``designer.io.checked_files``) unless its row says
otherwise; a command row is the median of a few runs. Wall
time is what a user waits; on a shared machine the CPU time (user + system, of the process and its
children) is the steadier figure, so both are printed.

Every command runs as an installed program does, with its modules' bytecode already compiled (``pip
install`` compiles a wheel's modules; an editable install writes the bytecode on the first run): the
checkout is compiled once into a bytecode folder of its own (``PYTHONPYCACHEPREFIX``), even where the
environment says not to write bytecode (``PYTHONDONTWRITEBYTECODE``). ``--cold`` measures instead with
the environment as it is, each module compiled again by every command when that variable is set.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLE_16K = "sample_designs/rail-optimized-16k-3tier.json"
ROWS = ("start", "text", "json", "load", "growth", "live", "window")


#: Whether commands run with compiled bytecode (see the module docstring); ``--cold`` clears it.
_WARM = [True]


def _env(repo: Path, **extra: str) -> dict[str, str]:
    """The environment of a command of ``repo``: the checkout first on the path, and its own compiled
    bytecode unless ``--cold``."""
    # A record of checked files of its own, empty: each command reads its design as a file never read
    # before (designer.io.checked_files), unless a row says otherwise.
    env = {**os.environ, "PYTHONPATH": str(repo), "XDG_CACHE_HOME": tempfile.mkdtemp(), **extra}
    if _WARM[0]:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        tag = hashlib.sha256(str(repo).encode()).hexdigest()[:12]
        env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "topo-designer-bench-pyc" / tag)
    return env


def _compile(repo: Path) -> None:
    """Compile the checkout's modules into its bytecode folder, as installing it does."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", "designer"], cwd=repo, env=_env(repo),
                   stdout=subprocess.DEVNULL, check=True)


def _cpu_children() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _timed(repo: Path, args: list[str], runs: int, *, read_before: bool = False) -> tuple[float, float]:
    """Median wall and CPU seconds of ``python ARGS`` run in ``repo`` (output discarded); each run reads
    its design as a file never read before, or (``read_before``) as one a first, untimed run read."""
    env = _env(repo)
    if read_before:
        subprocess.run([sys.executable, *args], cwd=repo, env=env, stdout=subprocess.DEVNULL, check=True)
    walls, cpus = [], []
    for _ in range(runs):
        if not read_before:
            env = _env(repo)
        c0, t0 = _cpu_children(), time.perf_counter()
        subprocess.run([sys.executable, *args], cwd=repo, env=env, stdout=subprocess.DEVNULL, check=True)
        walls.append(time.perf_counter() - t0)
        cpus.append(_cpu_children() - c0)
    return statistics.median(walls), statistics.median(cpus)


def _row(what: str, wall: float, cpu: float, goal: str) -> None:
    print(f"{what:58} {wall:8.2f} s wall {cpu:8.2f} s CPU   goal {goal}", flush=True)


def _child(repo: Path, *args: str, env: dict[str, str] | None = None) -> dict:
    env = _env(repo, **(env or {}))
    out = subprocess.run([sys.executable, __file__, "--child", str(repo), *args], capture_output=True, text=True,
                         cwd=repo, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def child(repo: str, kind: str, arg: str) -> None:
    """One measurement in this (fresh) process, printed as JSON."""
    sys.path.insert(0, repo)
    sys.path.insert(0, str(HERE))
    clock = time.process_time
    if kind == "window":  # the program's imports, the window with its sample design, and its first paint
        t0, c0 = time.perf_counter(), clock()
        from designer.gui.window.app import create_application, create_window, show_window

        create_application()
        show_window(create_window(None), None)
        print(json.dumps({"wall": time.perf_counter() - t0, "cpu": clock() - c0}), flush=True)
        os._exit(0)  # the live analysis of the sample goes on in its worker: not waited for
    if kind == "load":
        from designer.io import load_design

        t0, c0 = time.perf_counter(), clock()
        design = load_design(Path(repo) / SAMPLE_16K)
        print(json.dumps({"wall": time.perf_counter() - t0, "cpu": clock() - c0, "links": design.link_count()}))
        return
    from bench_generate import rail_params

    from designer.analysis import analyze
    from designer.generators import GENERATORS

    t0, c0 = time.perf_counter(), clock()
    design = GENERATORS["rail-optimized"].build(**rail_params(int(arg)))
    gen = (time.perf_counter() - t0, clock() - c0)
    t0, c0 = time.perf_counter(), clock()
    rep = analyze(design)
    an = (time.perf_counter() - t0, clock() - c0)
    sizes = len({r.message_bytes for r in rep.collectives})
    print(json.dumps({"gen": gen, "analyze": an, "links": rep.design.links, "sizes": sizes,
                      "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def _relay(repo: Path, script: str, keep: tuple[str, ...], *args: str) -> None:
    """Run another benchmark of ``repo`` (with ``args``) and print the lines that start with ``keep``."""
    env = _env(repo, QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([sys.executable, str(repo / "benchmarks" / script), *args], capture_output=True, text=True,
                         cwd=repo, env=env)
    lines = [ln for ln in out.stdout.splitlines() if ln.strip().startswith(keep)]
    for ln in lines or [f"{script} failed: {(out.stderr.strip().splitlines() or ['no output'])[-1]}"]:
        print(f"  {script}: {ln.strip()}", flush=True)


def growth(repo: Path) -> None:
    per_unit = {}
    for gpus in (16384, 131072):
        r = _child(repo, "growth", str(gpus))
        _row(f"generate {gpus:,} GPUs", *r["gen"], "<= 10 s at 131,072")
        _row(f"analyze {gpus:,} GPUs ({r['links']:,} links, {r['peak_mib']:,.0f} MiB peak)", *r["analyze"],
             "<= 10 s at 131,072, <= 4 GiB")
        per_unit[gpus] = [t / (r["links"] * r["sizes"]) * 1e6 for t in r["analyze"]]
        print(f"{'  us per link x size (wall, CPU)':58} {per_unit[gpus][0]:8.3f}      {per_unit[gpus][1]:8.3f}")
    ratio = [b / a for a, b in zip(per_unit[16384], per_unit[131072], strict=True)]
    print(f"{'  per-unit cost at 131,072 over 16,384 (wall, CPU)':58} {ratio[0]:8.2f}x     {ratio[1]:8.2f}x"
          "   goal <= 1.5x")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        child(argv[1], argv[2], argv[3] if len(argv) > 3 else "")
        return 0
    repo = HERE.parent
    if argv[:1] == ["--repo"]:
        repo, argv = Path(argv[1]).resolve(), argv[2:]
    if "--cold" in argv:
        _WARM[0] = False
        argv = [a for a in argv if a != "--cold"]
    rows = argv or list(ROWS)
    if _WARM[0]:
        _compile(repo)
    print(f"checkout: {repo} ({'bytecode compiled, as installed' if _WARM[0] else 'environment as it is'})")
    if "start" in rows:
        _row("topo-designer --version", *_timed(repo, ["-m", "designer", "--version"], 5), "<= 0.3 s")
        _row("topo-designer --help", *_timed(repo, ["-m", "designer", "--help"], 5), "<= 0.3 s")
    if "start" in rows:
        home = Path(tempfile.mkdtemp())  # no settings or recovery files of the user's
        starts = [_child(repo, "window", env={"QT_QPA_PLATFORM": "offscreen", "HOME": str(home),
                                              "XDG_CONFIG_HOME": str(home / "config"),
                                              "XDG_DATA_HOME": str(home / "data")}) for _ in range(3)]
        _row("topo-designer (the window, sample design shown)", statistics.median(r["wall"] for r in starts),
             statistics.median(r["cpu"] for r in starts), "as short as it can be")
    if "text" in rows:
        _row("topo-designer analyze 16k sample (text)", *_timed(repo, ["-m", "designer", "analyze", SAMPLE_16K], 3),
             "<= 1.5 s")
        _row("  the same file read before (checks skipped)",
             *_timed(repo, ["-m", "designer", "analyze", SAMPLE_16K], 3, read_before=True), "<= 1.5 s")
    if "json" in rows:
        _row("topo-designer analyze 16k sample --json -",
             *_timed(repo, ["-m", "designer", "analyze", SAMPLE_16K, "--json", "-"], 3), "<= 2.5 s")
    if "load" in rows:
        loads = [_child(repo, "load") for _ in range(3)]
        size = (repo / SAMPLE_16K).stat().st_size / 1e6
        _row(f"load the 16k sample ({size:.1f} MB)", statistics.median(r["wall"] for r in loads),
             statistics.median(r["cpu"] for r in loads), "part of analyze's 1.5 s")
    if "growth" in rows:
        growth(repo)
    if "live" in rows:
        _relay(repo, "bench_live.py", ("edit to panels", "16k edit", "16k result", "live:"))
    if "window" in rows:
        _relay(repo, "bench_canvas.py",
               ("16k sample", "16k opened again", "16k delete", "16k fail", "16k expand", "131k design",
                "131k opened again", "131k delete", "131k fail", "131k launch"), "--large")
    if "suite" in rows:
        t0, c0 = time.perf_counter(), _cpu_children()
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=repo,
                              env=_env(repo), capture_output=True, text=True)
        tail = (done.stdout.strip().splitlines() or ["no output"])[-1]
        _row(f"test suite (python -m pytest): {tail}", time.perf_counter() - t0, _cpu_children() - c0, "<= 6 min")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
