"""``topo-designer scale FILE --workload W``: the workload at 1/4 .. 4 times the GPUs, and growth headroom."""

from __future__ import annotations

import argparse
from argparse import ArgumentTypeError

from designer.cli.commands import SUMMARIES
from designer.cli.common import command_catalog, command_design, decimal_number, echo, guard_outputs, write_json

FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "scale",
        help=SUMMARIES["scale"],
        description="Rebuild the design's fabric family (from the generator parameters it records) at 1/4, 1/2, "
        "1, 2 and 4 times its size and predict the workload's step on each: step time, GPU idle fraction, MFU, "
        "tokens/s; the size where the idle fraction jumps is where the network binds. Also: how many more GPUs the "
        "free ports of each switch tier admit as built. Hand-drawn designs cannot be scaled.",
    )
    p.add_argument("file", help="design file (.json), or - to read standard input")
    p.add_argument("--workload", metavar="NAME|FILE", required=True, help="a preset or workload file")
    p.add_argument("--factors", metavar="LIST", default=",".join(f"{f:g}" for f in FACTORS),
                   help="sizes relative to the design (default 0.25,0.5,1,2,4)")
    p.add_argument("--json", metavar="PATH", help="write the projection as JSON to PATH ('-' for stdout)")
    p.set_defaults(func=run)


def _factors(text: str) -> list[float]:
    from designer.analysis.common.errors import AnalysisError

    try:
        out = sorted({decimal_number(x) for x in text.split(",") if x.strip()})
    except (ValueError, ArgumentTypeError):
        raise AnalysisError(f"--factors {text!r}: a comma list of numbers such as 0.5,1,2") from None
    if not out or any(not 0 < f <= 64 for f in out):
        raise AnalysisError(f"--factors {text!r}: numbers above 0 and at most 64")
    return out


def run(args: argparse.Namespace) -> int:
    guard_outputs(args, {"--json": args.json}, {"the design file": args.file, "the workload file": args.workload})
    from designer.analysis.training.scaling import growth_headroom, scale_projection
    from designer.cli.fabric_family import family_params, rebuild
    from designer.cli.workloads import workload_arg
    from designer.present.scaling_text import scaling_lines, scaling_to_dict

    factors = _factors(args.factors)
    workload = workload_arg(args.workload)
    design = command_design(args.file)
    family_params(design)  # refuses hand-drawn designs before any work
    # Every size, the design's own included, is rebuilt from the same parameters, so they compare alike.
    catalog = command_catalog(args)
    designs = [(f, rebuild(design, f, catalog)) for f in factors]
    sc = scale_projection(designs, workload, catalog)
    head = growth_headroom(design)
    if args.json:
        write_json(scaling_to_dict(sc, head), args.json)
        if args.json == "-":
            return 0
    echo("\n".join(scaling_lines(sc, head)))
    return 0
