"""``topo-designer compare DESIGN LOG...``: nccl-tests runs of a real cluster held against the design."""

from __future__ import annotations

import argparse

from designer.analysis.common.errors import AnalysisError
from designer.analysis.measured.runs import MEASURED_COLLECTIVES
from designer.cli.common import echo, guard_outputs, write_json


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "compare",
        help="nccl-tests logs of the real cluster against the design's prediction",
        description="Read nccl-tests logs (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf, "
        "broadcast_perf, sendrecv_perf; several runs per log) and set every message size beside the design's "
        "prediction: measured and predicted time and busbw, their ratio (predicted time / measured time: 1 is "
        "the model, 0.5 half as fast), the algorithm the prediction used; a verdict per range of sizes "
        "(latency-bound, bandwidth-bound) and the likeliest reasons for a gap. Ranks map to the design's GPUs by "
        "host name (a server group named after the host), else --gpus. docs/measured.md.",
    )
    p.add_argument("design", help="design file (.json), or - to read standard input")
    p.add_argument("logs", nargs="+", metavar="LOG", help="nccl-tests output files ('-': standard input)")
    p.add_argument("--gpus", metavar="GPUS",
                   help="the design's GPUs the ranks ran on, in rank order: a group id, a comma list of GPU ids or "
                   "'all' (default: by the log's host names)")
    p.add_argument("--collective", choices=MEASURED_COLLECTIVES,
                   help="the collective of logs that do not say (nccl-tests before 2.13 print no 'Collective test "
                   "starting' line)")
    p.add_argument("--json", metavar="PATH", help="write the comparison as JSON to PATH ('-' for stdout instead of "
                   "the table)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    guard_outputs(args, {"--json": args.json},
                  {"the design file": args.design, **{f"the log {path}": path for path in args.logs}})
    from designer.analysis.fabric.context import build_context
    from designer.analysis.measured.compare import compare_run
    from designer.analysis.measured.reasons import likely_reasons
    from designer.io import load_design
    from designer.io.measured.nccl_tests import read_nccl_tests
    from designer.present.measured_json import compare_to_dict
    from designer.present.measured_text import comparison_lines

    runs = [r for path in args.logs for r in read_nccl_tests(path, args.collective)]
    design = load_design(args.design)
    ctx = build_context(design)
    if not ctx.n_gpus:
        raise AnalysisError(f"{args.design}: the design has no GPU to compare a measurement with")
    done = []
    for r in runs:
        comp = compare_run(ctx, r, args.gpus)
        done.append((comp, likely_reasons(ctx, comp)))
    if args.json:
        write_json(compare_to_dict(args.design, done), args.json)
        if args.json == "-":
            return 0
    lines: list[str] = []
    for comp, reasons in done:
        if lines:
            lines.append("")
        lines += comparison_lines(comp, reasons)
    echo("\n".join(lines))
    return 0
