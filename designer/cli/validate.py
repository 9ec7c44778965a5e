"""``topo-designer validate FILE``: design-rule findings (exit 0 clean, 1 findings, 2 unreadable)."""

from __future__ import annotations

import argparse

from designer.analysis.rules.check import check_design
from designer.cli.commands import SUMMARIES
from designer.cli.common import command_catalog, command_design, display_name, echo, guard_outputs, write_json
from designer.present.documents import findings_to_dict
from designer.present.findings_text import findings_lines


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "validate",
        help=SUMMARIES["validate"],
        description="Load a design file and report design-rule findings: models and cables missing from the "
        "catalog, ports over a model's budget, links of zero capacity or zero length, media that do not fit "
        "their ports, speed mismatches, cables beyond their reach, twin-port cages mixing media, devices and "
        "links the bill of materials cannot price, GPUs with no path to the others, duplicate links, NICs "
        "with no GPU (docs/design-rules.md lists every rule). Anything analyze or bom would leave out or "
        "count at $0 is reported here first. Exit 0 when clean, 1 when there are findings, 2 when the file "
        "cannot be read.",
    )
    p.add_argument("file", help="design file (.json), or - to read standard input")
    p.add_argument("--json", metavar="PATH", help="also write the findings as JSON to PATH ('-' for stdout only)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    guard_outputs(args, {"--json": args.json}, {"the design file": args.file})
    design = command_design(args.file)
    source = display_name(args.file)
    findings = check_design(design, command_catalog(args))
    if args.json:
        write_json(findings_to_dict(findings, source), args.json)
        if args.json == "-":
            return 1 if findings else 0
    echo("\n".join(findings_lines(design, findings, source)))
    return 1 if findings else 0
