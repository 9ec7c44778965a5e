"""``topo-designer scan FILE [--links]``: the N-1 failure ranking and the single points of failure."""

from __future__ import annotations

import argparse

from designer.cli.commands import SUMMARIES
from designer.cli.common import command_catalog, command_design, count_option, echo, guard_outputs, write_json


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "scan",
        help=SUMMARIES["scan"],
        description="Fail every switch once (with --links every link too), one per class of equivalent elements, "
        "and rank the failures by GPUs cut off, bisection lost and (with --workload) step time added; list the "
        "single points of failure (links and devices whose loss separates GPUs). Units: s, bytes/s per direction.",
    )
    p.add_argument("file", help="design file (.json), or - to read standard input")
    p.add_argument("--links", action="store_true", help="fail every link as well as every switch")
    p.add_argument("--workload", metavar="NAME|FILE", help="also rank by the step time each failure adds")
    p.add_argument("--top", type=count_option, default=20, metavar="N", help="classes to print (default 20)")
    p.add_argument("--json", metavar="PATH", help="write the ranking as JSON to PATH ('-' for stdout)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    guard_outputs(args, {"--json": args.json}, {"the design file": args.file, "the workload file": args.workload})
    from designer.analysis.training.failures import n1_scan, single_points
    from designer.cli.workloads import workload_arg
    from designer.present.failures_text import scan_lines, scan_to_dict

    workload = workload_arg(args.workload) if args.workload else None
    design = command_design(args.file)
    scan = n1_scan(design, links=args.links, workload=workload, catalog=command_catalog(args))
    spof = single_points(design)
    if args.json:
        write_json(scan_to_dict(scan, spof), args.json)
        if args.json == "-":
            return 0
    echo("\n".join(scan_lines(scan, spof, top=max(args.top, 1))))
    return 0
