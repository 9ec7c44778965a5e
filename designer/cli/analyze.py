"""``topo-designer analyze FILE``: bisection bounds, collective times and bottlenecks of a design."""

from __future__ import annotations

import argparse
import sys
import time

from designer.analysis.collectives.hashed import DEFAULT_HASH_DRAWS, DEFAULT_HASH_SEED, MAX_HASH_DRAWS, ROUTING_MODES
from designer.analysis.collectives.names import ALGORITHMS, COLLECTIVES
from designer.analysis.common.errors import AnalysisError
from designer.cli.commands import SUMMARIES
from designer.cli.common import (
    command_catalog,
    command_design,
    count_option,
    echo,
    guard_outputs,
    write_json,
    write_json_text,
)
from designer.cli.workloads import workload_arg
from designer.model import units
from designer.model.units import SIZE_HELP, duration


def parse_size(text: str) -> int:
    """:func:`designer.model.units.parse_size`, its refusal an :class:`AnalysisError` (one line, exit 2)."""
    try:
        return units.parse_size(text)
    except ValueError as e:
        raise AnalysisError(str(e)) from None


def parse_sizes(text: str) -> list[int]:
    """:func:`designer.model.units.parse_sizes`, its refusal an :class:`AnalysisError` (one line, exit 2)."""
    try:
        return units.parse_sizes(text)
    except ValueError as e:
        raise AnalysisError(str(e)) from None


def whole_arg(flag: str, text: str, low: int, high: int | None) -> int:
    """A whole-number option from ``low`` to ``high`` (None: no limit); else an :class:`AnalysisError`."""
    try:
        value = int(str(text).strip())
    except ValueError:
        value = None
    if value is None or value < low or (high is not None and value > high):
        span = f"from {low:,} to {high:,}" if high is not None else f"{low} or more"
        raise AnalysisError(f"{flag} {text}: a whole number {span}")
    return value


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    algos = sorted({a for v in ALGORITHMS.values() for a in v})
    p = subparsers.add_parser(
        "analyze",
        help=SUMMARIES["analyze"],
        description="Analyze a design: certified bisection bandwidth bounds over the GPUs, the time, algbw and "
        "busbw (nccl-tests conventions) of a collective for every algorithm and message size with the one an "
        "NCCL-style tuner would pick, per-link utilisation and the top bottleneck links. Units: s, bytes, "
        "bytes/s per direction.",
    )
    p.add_argument("file", help="design file (.json), or - to read standard input")
    p.add_argument("--json", metavar="PATH", help="write the report as JSON to PATH ('-' for stdout instead "
                   "of the summary)")
    p.add_argument("--collective", default="allreduce", choices=COLLECTIVES, help="collective (default allreduce)")
    p.add_argument("--algorithm", action="append", metavar="NAME",
                   help=f"an algorithm to model (repeatable, or comma list; default all that apply): "
                   f"{', '.join(algos)}")
    p.add_argument("--sizes", metavar="SIZES", default="8B:8GiB",
                   help="message sizes: a range of powers of two '8B:8GiB' (default) or a list '1MiB,1GiB'; "
                   f"{SIZE_HELP}")
    p.add_argument("--gpus", metavar="GPUS", default="all",
                   help="the GPUs taking part: 'all' (default), a group id (server, su...), or a comma list of "
                   "GPU ids")
    p.add_argument("--top", type=count_option, default=5, metavar="N", help="bottlenecks to print (default 5; 0: none)")
    p.add_argument("--workload", metavar="NAME|FILE",
                   help="also predict a training step of this workload (a preset, see 'topo-designer workloads', or "
                   "a workload file, docs/workload-format.md): step time, GPU idle fraction, MFU, tokens/s, cost")
    p.add_argument("--serve", metavar="NAME|FILE",
                   help="also predict serving this model (a serving preset, see 'topo-designer workloads', or a "
                   "serving file, docs/serving.md): time to first token, time per output token, tokens/s per GPU, "
                   "the network's share and what bounds decode")
    p.add_argument("--placement", metavar="ORDER",
                   help="with --workload: rank placement, innermost first, e.g. tp,cp,pp,dp (the default) or "
                   "dp,tp,cp,pp")
    p.add_argument("--routing", metavar="MODE",
                   help="how switches route flows: fluid (equal split over equal-cost links), hashed (each flow "
                   "pinned to one path by ECMP hashing: expected and p99 time over seeded draws), adaptive "
                   "(InfiniBand, Spectrum-X: the fluid split); default by fabric: hashed for Ethernet switches "
                   "without adaptive routing, adaptive for InfiniBand and Spectrum-X class, fluid without switches")
    p.add_argument("--hash-draws", metavar="N", default=str(DEFAULT_HASH_DRAWS),
                   help=f"hashed routing: seeded hash draws (default {DEFAULT_HASH_DRAWS})")
    p.add_argument("--hash-seed", metavar="N", default=str(DEFAULT_HASH_SEED),
                   help=f"hashed routing: seed of the draws (default {DEFAULT_HASH_SEED}: the same report every run)")
    p.add_argument("--concurrent", action="store_true",
                   help="also time every group of a parallel layout at once (--layout, or the --workload's): each "
                   "communicator's collective in all its groups together at --sizes, under the routing mode "
                   "(hashed: the groups' flows pinned to paths together, mean and p99)")
    p.add_argument("--layout", metavar="LAYOUT",
                   help="with --concurrent: the parallel layout, sizes of tp, cp, pp, dp, ep, e.g. tp8,pp4,dp "
                   "('dp' alone: every GPU left)")
    p.add_argument("--explain", action="store_true",
                   help="also print how each number was computed: the bisection methods and cut links, each "
                   "algorithm's formula, bottleneck link and latency per protocol, the busbw factor")
    p.set_defaults(func=run)


#: At most this many message sizes are timed concurrently (--concurrent); a longer list, the largest.
CONCURRENT_SIZES = 4
#: A run this long (seconds) starts telling which stage it is in on standard error.
PROGRESS_AFTER_S = 3.0


def stage_progress(stream=None, clock=time.monotonic):  # noqa: ANN001
    """An ``analyze(progress=...)`` callback: once the run has taken :data:`PROGRESS_AFTER_S`, each
    new stage prints one line on standard error (``analyze: collectives (stage 3 of 4), 4.2 s so far``),
    so a large design shows where it is; short runs print nothing."""
    out = stream if stream is not None else sys.stderr
    start = clock()

    def report(stage: str, done: int, total: int) -> None:
        elapsed = clock() - start
        if elapsed >= PROGRESS_AFTER_S:
            out.write(f"analyze: {stage} (stage {done + 1} of {total}), {duration(elapsed)} so far\n")
            out.flush()

    return report


def run(args: argparse.Namespace) -> int:
    guard_outputs(args, {"--json": args.json}, {"the design file": args.file, "the workload file": args.workload,
                                                "the serving workload file": args.serve})
    from designer.analysis.report import analyze
    from designer.present.report_json import report_to_json
    from designer.present.report_text import explain_lines, summary_lines

    sizes = parse_sizes(args.sizes)
    if args.top < 0:
        raise AnalysisError(f"--top {args.top}: the number of bottlenecks to print is 0 or more")
    if args.routing is not None and args.routing not in ROUTING_MODES:
        raise AnalysisError(f"--routing {args.routing}: use one of {', '.join(ROUTING_MODES)}")
    draws = whole_arg("--hash-draws", args.hash_draws, 1, MAX_HASH_DRAWS)
    seed = whole_arg("--hash-seed", args.hash_seed, 0, None)
    algos = None
    if args.algorithm:
        algos = [a.strip() for item in args.algorithm for a in item.split(",") if a.strip()]
    workload = workload_arg(args.workload, args.placement) if args.workload else None
    serve = None
    if args.serve:
        from designer.io.workload_file import load_serving

        serve = load_serving(args.serve)
    layout = _layout(args, workload)
    design = command_design(args.file)
    catalog = command_catalog(args)
    ctx = None
    if layout is not None:  # the concurrent timing shares the report's context (routes, embedded models)
        from designer.analysis.fabric.context import build_context

        ctx = build_context(design, catalog)
    report = analyze(design, catalog, collective=args.collective, algorithms=algos, sizes=sizes, gpus=args.gpus,
                     top=args.top, progress=stage_progress(), routing=args.routing, hash_draws=draws,
                     hash_seed=seed, context=ctx)
    together = _together(args, ctx, layout, sizes, draws, seed) if layout is not None else None
    step = None
    if workload is not None:
        from designer.analysis.training import step_analysis

        step = step_analysis(design, workload, catalog, routing=args.routing, hash_draws=draws, hash_seed=seed)
    served = None
    if serve is not None:
        from designer.analysis.serving.model import serving_analysis

        served = serving_analysis(design, serve, catalog)
    if args.json:
        if step is None and served is None and together is None:
            write_json_text(report_to_json(report), args.json)
        else:
            from designer.present.report_json import report_to_dict

            doc = report_to_dict(report)
            if step is not None:
                from designer.present.step_json import step_to_dict

                doc["workload"] = step_to_dict(step)
            if served is not None:
                from designer.present.serving_json import serving_to_dict

                doc["serving"] = serving_to_dict(served)
            if together is not None:
                from designer.present.concurrent_text import concurrent_to_dict

                doc["concurrent"] = concurrent_to_dict(together)
            write_json(doc, args.json)
        if args.json == "-":
            return 0
    lines = summary_lines(report, top=args.top)
    if args.explain:
        lines += explain_lines(report)
    if together is not None:
        from designer.present.concurrent_text import concurrent_lines

        lines += concurrent_lines(together)
    if step is not None:
        from designer.present.step_text import step_lines

        lines += step_lines(step, explain=args.explain)
    if served is not None:
        from designer.present.serving_text import serving_lines

        lines += serving_lines(served, explain=args.explain)
    echo("\n".join(lines))
    return 0


def _layout(args: argparse.Namespace, workload):  # noqa: ANN001, ANN202
    """The parallel layout ``--concurrent`` times: ``--layout``, else the workload's; None without it."""
    if args.layout and not args.concurrent:
        raise AnalysisError("--layout goes with --concurrent")
    if not args.concurrent:
        return None
    from designer.analysis.training.concurrent import parse_layout

    if args.layout:
        return parse_layout(args.layout)
    if workload is not None:
        return workload.parallelism
    raise AnalysisError("--concurrent needs a layout: --layout tp8,pp4,dp or --workload NAME")


def _together(args: argparse.Namespace, ctx, layout, sizes: list[int], draws: int, seed: int):  # noqa: ANN001, ANN202
    """Every group of ``layout`` at once (``--concurrent``) under the routing mode."""
    from designer.analysis.collectives.hashed import routing_mode
    from designer.analysis.collectives.names import ALIASES
    from designer.analysis.training.concurrent import concurrent_layout

    rt = routing_mode(ctx, args.routing, draws=draws, seed=seed)
    # A handful of sizes as asked; of a long range (the default 8 B..8 GiB), the largest.
    at = sorted(sizes) if len(sizes) <= CONCURRENT_SIZES else [max(sizes)]
    return concurrent_layout(ctx, layout, ALIASES.get(args.collective, args.collective), at, rt)
