"""``topo-designer bom FILE [--json PATH|-]``: the bill of materials of a design."""

from __future__ import annotations

import argparse

from designer.analysis.bom.bill import bill_of_materials
from designer.cli.commands import SUMMARIES
from designer.cli.common import command_catalog, command_design, echo, guard_outputs, write_json
from designer.present.bom_text import format_bom
from designer.present.documents import bom_to_dict


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "bom",
        help=SUMMARIES["bom"],
        description="Count a design's GPUs, NICs and switches (by model and tier), cables (by model, medium, "
        "the tiers they join and length bucket), transceivers (twin-port modules on twin-port switch cages), "
        "total power (W) and indicative cost (USD) from the catalog.",
    )
    p.add_argument("file", help="design file (.json), or - to read standard input")
    p.add_argument("--json", metavar="PATH", help="write the bill of materials as JSON to PATH ('-' for stdout "
                   "instead of the table)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    guard_outputs(args, {"--json": args.json}, {"the design file": args.file})
    design = command_design(args.file)
    bom = bill_of_materials(design, command_catalog(args))
    if args.json:
        write_json(bom_to_dict(bom), args.json)
        if args.json == "-":
            return 0
    echo(format_bom(bom).rstrip("\n"))
    return 0
