"""``topo-designer whatif FILE --fail ID [--fail ID ...]``: the design before and after failures."""

from __future__ import annotations

import argparse

from designer.cli.commands import SUMMARIES
from designer.cli.common import command_catalog, command_design, echo, guard_outputs, write_json


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "whatif",
        help=SUMMARIES["whatif"],
        description="Fail links or devices (a device fails as all its links) and compare the design before and "
        "after: bisection bounds (bytes/s per direction, line rate), GPUs left without a network path, and with "
        "--workload the training step. Units: s, bytes/s per direction.",
    )
    p.add_argument("file", help="design file (.json), or - to read standard input")
    p.add_argument("--fail", action="append", metavar="ID", required=True,
                   help="a link or device id to fail (repeatable, or a comma list)")
    p.add_argument("--workload", metavar="NAME|FILE", help="also compare the training step of this workload")
    p.add_argument("--json", metavar="PATH", help="write before / after / delta as JSON to PATH ('-' for stdout)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    guard_outputs(args, {"--json": args.json}, {"the design file": args.file, "the workload file": args.workload})
    from designer.analysis.training.failures import whatif
    from designer.cli.workloads import workload_arg
    from designer.present.failures_text import whatif_lines, whatif_to_dict

    ids = [x.strip() for item in args.fail for x in item.split(",") if x.strip()]
    workload = workload_arg(args.workload) if args.workload else None
    result = whatif(command_design(args.file), ids, workload, command_catalog(args))
    if args.json:
        write_json(whatif_to_dict(result), args.json)
        if args.json == "-":
            return 0
    echo("\n".join(whatif_lines(result)))
    return 0
