"""``topo-designer sweep SPEC -o RESULTS``, ``sweep-report RESULTS --html OUT``, ``sweep-point RESULTS POINT -o FILE``.

The spec is checked whole before anything runs (docs/sweeps.md), and the command says how many
points it has and about how long they will take. Points run on Dask: a local cluster of one
worker process per core, or an existing cluster (``--scheduler tcp://HOST:PORT``). Results are
written as points finish; ``--resume`` skips the points a results file already holds. A progress
line on standard error shows the points done, the rate and the time left.
"""

from __future__ import annotations

import argparse
import math
import signal
import sys
import time

from designer.cli.commands import SUMMARIES
from designer.cli.common import command_catalog, echo, guard_outputs, whole_number
from designer.model import units

SPEC_HELP = "sweep spec (JSON, docs/sweeps.md): a generator, a grid of its parameters, workloads, sizes, metrics"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "sweep",
        help=SUMMARIES["sweep"],
        description="Run a design-space sweep: every point of the spec's grid of generator parameters is generated "
        "and analysed on a Dask worker (bisection bounds, collective times at the chosen sizes, bill of materials, "
        "with workloads the training step, with failure scans the N-1 worst case), and written to RESULTS as it "
        "finishes (CSV or Parquet by the file's suffix); the Pareto front of cost against time is marked at the "
        "end. Without --scheduler a local cluster runs one worker process per core. docs/sweeps.md describes the "
        "spec and the columns.",
    )
    p.add_argument("spec", help=SPEC_HELP)
    p.add_argument("-o", "--output", required=True, metavar="RESULTS", help="results file: .csv or .parquet")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on an existing Dask cluster: its scheduler's address, e.g. tcp://10.0.0.5:8786")
    p.add_argument("--workers", type=whole_number, metavar="N",
                   help="worker processes of the local cluster (default: one per core)")
    p.add_argument("--resume", action="store_true",
                   help="keep the points RESULTS already holds and run only the others (failed points run again)")
    p.add_argument("--force", action="store_true",
                   help="replace RESULTS when it exists (without --resume or --force an existing file is refused)")
    p.add_argument("--check", action="store_true",
                   help="check the spec and print the number of points and the time estimate; run nothing")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress line and no summary")
    p.set_defaults(func=run)

    r = subparsers.add_parser(
        "sweep-report",
        help=SUMMARIES["sweep-report"],
        description="Write a self-contained HTML report of a sweep's results (the style of 'export --html'): key "
        "figures, the Pareto front of cost against time to train (or collective time) for each workload as a "
        "picture, the points on the front, every point, and the points that were refused or failed.",
    )
    r.add_argument("results", help="results file of 'topo-designer sweep' (.csv or .parquet)")
    r.add_argument("--html", required=True, metavar="OUT.html", help="the HTML file to write")
    r.set_defaults(func=run_report)

    s = subparsers.add_parser(
        "sweep-point",
        help=SUMMARIES["sweep-point"],
        description="Rebuild the design of one point of a sweep's results from its parameters (the generator is "
        "deterministic: the same design the sweep analysed) and write it as a design file, to open in the window "
        "or analyse further. The window's File > Open Sweep Point... does the same.",
    )
    s.add_argument("results", help="results file of 'topo-designer sweep' (.csv or .parquet)")
    s.add_argument("point", help="the point: its number (the 'point' column) or its key")
    s.add_argument("-o", "--output", required=True, metavar="FILE", help="design file to write (.json)")
    s.set_defaults(func=run_point)


def long_duration(seconds: float) -> str:
    """A wall-clock time as a person plans with it: ``45 s``, ``12.5 min``, ``3.2 h``.

    >>> long_duration(45), long_duration(750), long_duration(11520)
    ('45 s', '12.5 min', '3.2 h')
    """
    if seconds < 120:
        return units.duration(seconds)
    if seconds < 7200:
        return f"{units.figures(seconds / 60)} min"
    return f"{units.figures(seconds / 3600)} h"


# --------------------------------------------------------------------------- progress
class ProgressLine:
    """Points done, rate and time left on standard error: redrawn in place on a terminal, else a line
    every 10 seconds (and at the end)."""

    def __init__(self, stream=None) -> None:  # noqa: ANN001
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.last = -math.inf
        self.width = 0

    def __call__(self, done: int, total: int, errors: int, elapsed: float) -> None:
        now = time.monotonic()
        final = done == total
        if not final and now - self.last < (0.2 if self.tty else 10.0):
            return
        self.last = now
        rate = done / elapsed if elapsed > 0 and done else 0.0
        left = (total - done) / rate if rate > 0 else math.nan
        bar = ""
        if self.tty:
            filled = int(24 * done / total) if total else 24
            bar = "[" + "#" * filled + "." * (24 - filled) + "] "
        text = (f"{bar}{done:,}/{total:,} points"
                + (f", {errors:,} not analysed" if errors else "")
                + (f", {units.figures(rate)} points/s" if rate else "")
                + (f", {long_duration(left)} left" if math.isfinite(left) and not final else "")
                + (f", {long_duration(elapsed)}" if final else ""))
        if self.tty:
            pad = max(self.width - len(text), 0)
            self.stream.write("\r" + text + " " * pad + ("\n" if final else ""))
            self.width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


# --------------------------------------------------------------------------- sweep
def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    from designer.cli.analyze import parse_size
    from designer.io.outputs import FileWriteError, check_fresh_output
    from designer.present.export import check_output
    from designer.sweep.results import results_format
    from designer.sweep.runner import default_workers, estimate, plan, run_sweep
    from designer.sweep.spec import SweepError, describe, load_spec

    guard_outputs(args, {"-o": args.output}, {"the sweep spec": args.spec})
    if args.resume and args.force:
        raise FileWriteError("--resume and --force: give one or the other (--resume keeps the points already "
                             "written, --force replaces the file)")
    if not (args.resume or args.force or args.check):
        check_fresh_output(args.output, "the results file",
                           "give --resume to finish its sweep or --force to replace it")
    spec = load_spec(args.spec, parse_size)
    results_format(args.output)
    check_output(args.output, "-o")
    if args.workers is not None and args.scheduler:
        raise SweepError("--workers sets the size of the local cluster; with --scheduler the cluster has its own "
                         "workers")
    if args.workers is not None and not 1 <= args.workers <= 1024:
        raise SweepError(f"--workers {args.workers}: from 1 to 1024")
    catalog = command_catalog(args)
    if args.check or not args.quiet:
        workers = args.workers or default_workers()
        seconds, how = estimate(spec, 1 if args.scheduler else workers, catalog, local=not args.scheduler)
        where = ("of work, shared by the cluster's workers" if args.scheduler else
                 f"on {units.count(workers, 'local worker')}")
        head = f"{args.spec}: {describe(spec)}; about {long_duration(seconds)} {where} ({how})"
        if args.check:
            echo(head)
            return 0
        echo(head, file=sys.stderr)
        if args.resume:
            points, todo, _, _ = plan(spec, args.output, True)
            echo(f"resuming {args.output}: {units.count(len(points) - len(todo), 'point')} already done, "
                 f"{units.count(len(todo), 'point')} to run", file=sys.stderr)
    previous = signal.signal(signal.SIGTERM, _interrupt)  # a polite kill closes the results file like Ctrl+C
    try:
        outcome = run_sweep(spec, args.output, scheduler=args.scheduler, workers=args.workers, resume=args.resume,
                            catalog=catalog, progress=None if args.quiet else ProgressLine())
    except KeyboardInterrupt:
        print(file=sys.stderr)
        echo(f"topo-designer: interrupted; the points finished so far are in {args.output}: run the same command "
             "with --resume to finish", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    if not args.quiet:
        from designer.sweep.results import read_results

        _, rows = read_results(args.output)
        front = sum(1 for r in rows if r.get("pareto"))
        bad = {s: sum(1 for r in rows if r.get("status") == s) for s in ("refused", "failed")}
        ran = (f"ran {units.count(outcome.ran, 'point')} in {long_duration(outcome.seconds)}"
               + (f" on {units.count(outcome.workers, 'worker')}" if outcome.workers else ""))
        echo(f"wrote {args.output}: {units.count(outcome.rows, 'point')} ({bad['refused']:,} refused, "
             f"{bad['failed']:,} failed), {front:,} on the Pareto front; {ran}"
             + (f", {outcome.skipped:,} already done" if outcome.skipped else ""))
    return 0


# --------------------------------------------------------------------------- sweep-report
def run_report(args: argparse.Namespace) -> int:
    from designer.io.atomic import atomic_write_text
    from designer.present.export import check_output
    from designer.present.sweep_report import pareto_series, sweep_html
    from designer.sweep.results import read_results

    guard_outputs(args, {"--html": args.html}, {"the results file": args.results})
    check_output(args.html, "--html")
    cols, rows = read_results(args.results)
    if rows and all(r.get("pareto") is None for r in rows):
        # a sweep still running or interrupted: its front is marked when it completes; mark it here meanwhile
        from designer.sweep.results import mark_pareto

        mark_pareto([c.name for c in cols], rows)
    series = pareto_series(cols, rows)
    pictures: list = []
    notes: list[str] = []
    if series:
        try:
            from designer.gui.window.sweep import pareto_pngs
        except ImportError as e:
            notes.append(f"The pictures are missing: PySide6 or pyqtgraph cannot be imported here ({e}).")
        else:
            pictures = pareto_pngs(series)
    atomic_write_text(args.html, sweep_html(cols, rows, source=args.results, pictures=pictures, notes=notes))
    echo(f"wrote {args.html}: {units.count(len(rows), 'point')}, "
         f"{sum(1 for r in rows if r.get('pareto')):,} on the Pareto front")
    return 0


# --------------------------------------------------------------------------- sweep-point
def run_point(args: argparse.Namespace) -> int:
    from designer.io import save_design
    from designer.sweep.evaluate import design_of
    from designer.sweep.results import read_results
    from designer.sweep.spec import SweepError

    guard_outputs(args, {"-o": args.output}, {"the results file": args.results})
    _, rows = read_results(args.results)
    text = args.point.strip()
    if text.isdigit():
        row = next((r for r in rows if r.get("point") == int(text)), None)
    else:
        row = next((r for r in rows if r.get("key") == text), None)
    if row is None:
        points = [r.get("point") for r in rows if isinstance(r.get("point"), int)]
        span = f"points {min(points)} to {max(points)}" if points else "no points"
        raise SweepError(f"{args.results}: no point {text!r} (it holds {span})")
    design = design_of(row, command_catalog(args))
    save_design(design, args.output)
    params = ", ".join(f"{k} {v}" for k, v in _params(row).items())
    echo(f"wrote {args.output}: point {row.get('point')} ({params}): "
         f"{units.count(design.device_count(), 'device')}, {units.count(design.link_count(), 'link')}")
    return 0


def _params(row: dict) -> dict:
    from designer.sweep.results import parameters_of

    return parameters_of(row)
