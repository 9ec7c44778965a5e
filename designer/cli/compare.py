"""``topo-designer compare DESIGN LOG...``: nccl-tests runs of a real cluster held against the design."""

from __future__ import annotations

import argparse

from designer.analysis.common.errors import AnalysisError
from designer.analysis.measured.runs import MEASURED_COLLECTIVES
from designer.cli.commands import SUMMARIES
from designer.cli.common import command_catalog, command_design, decimal_number, echo, guard_outputs, write_json


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "compare",
        help=SUMMARIES["compare"],
        description="Read nccl-tests logs (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf, "
        "broadcast_perf, sendrecv_perf; several runs per log) and set every message size beside the design's "
        "prediction: measured and predicted time and busbw, their ratio (predicted time / measured time: 1 is "
        "the model, 0.5 half as fast), the algorithm the prediction used; a verdict per range of sizes "
        "(latency-bound, bandwidth-bound) and the likeliest reasons for a gap. Ranks map to the design's GPUs by "
        "host name (a server group named after the host), else --gpus. docs/measured.md.",
    )
    p.add_argument("design", help="design file (.json), or - to read standard input")
    p.add_argument("logs", nargs="*", metavar="LOG", help="nccl-tests output files ('-': standard input)")
    p.add_argument("--gpus", metavar="GPUS",
                   help="the design's GPUs the ranks ran on, in rank order: a group id, a comma list of GPU ids or "
                   "'all' (default: by the log's host names)")
    p.add_argument("--collective", choices=MEASURED_COLLECTIVES,
                   help="the collective of logs that do not say (nccl-tests before 2.13 print no 'Collective test "
                   "starting' line)")
    p.add_argument("--counters", nargs="+", metavar="FILE", default=[],
                   help="port-counter snapshots of the fabric (perfquery, ibdiagnet2.pm, ibdiagnet db_csv, Prometheus "
                   "text of infiniband_exporter, node_exporter or dcgm-exporter): the later sample, or the only one")
    p.add_argument("--counters-before", nargs="+", metavar="FILE", default=[],
                   help="the earlier sample of the same ports: rates are (later - earlier) / seconds")
    p.add_argument("--interval", metavar="SECONDS", type=decimal_number,
                   help="seconds between the two samples (default: their time stamps), or with one sample the "
                   "seconds since the counters were reset")
    p.add_argument("--fit", metavar="OVERLAY",
                   help="fit the model's per-medium efficiency to the logs' bandwidth-bound sizes and write it as a "
                   "catalog overlay (read it with topo-designer --catalog OVERLAY ...); the fit is printed")
    p.add_argument("--html", metavar="PATH", help="write the comparison as a self-contained HTML page (charts of "
                   "measured over predicted busbw, the tables, verdicts, reasons, counters); 'export --html --compare "
                   "JSON' puts it in the design's full report")
    p.add_argument("--json", metavar="PATH", help="write the comparison as JSON to PATH ('-' for stdout instead of "
                   "the table)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    files = [*args.logs, *args.counters, *args.counters_before]
    guard_outputs(args, {"--json": args.json, "--fit": args.fit, "--html": args.html},
                  {"the design file": args.design, **{f"the input {path}": path for path in files}})
    from designer.analysis.fabric.context import build_context
    from designer.present.measured_json import compare_to_dict, counters_to_dict
    from designer.present.measured_text import comparison_lines, counters_lines, fit_lines

    if not args.logs and not args.counters:
        raise AnalysisError("compare: give nccl-tests logs, --counters files, or both")
    if args.counters_before and not args.counters:
        raise AnalysisError("--counters-before needs --counters, the later sample")
    if args.interval is not None and not args.interval > 0:
        raise AnalysisError(f"--interval {args.interval:g}: the seconds between samples must be positive")
    runs = _read_runs(args)
    fabric_samples = _read_counters(args)
    design = command_design(args.design)
    catalog = command_catalog(args)
    fabric = None
    if fabric_samples is not None:
        from designer.analysis.measured.ports import map_ports, port_uses

        after, before = fabric_samples
        uses, seconds, notes = port_uses(after, before, args.interval)
        fabric = map_ports(design, uses, catalog, seconds, notes)
    done = []
    if runs:
        from designer.analysis.measured.compare import compare_run
        from designer.analysis.measured.reasons import counter_reasons, likely_reasons

        ctx = build_context(design, catalog)
        if not ctx.n_gpus:
            raise AnalysisError(f"{args.design}: the design has no GPU to compare a measurement with")
        for r in runs:
            comp = compare_run(ctx, r, args.gpus)
            done.append((comp, counter_reasons(ctx, comp, fabric) + likely_reasons(ctx, comp)))
    fits = None
    if args.fit:
        if not runs:
            raise AnalysisError("--fit needs nccl-tests logs to fit the efficiency to")
        fits = _fit(ctx, [c for c, _ in done], args.fit)
    extra = {"counters": counters_to_dict(fabric)} if fabric is not None else {}
    if fits is not None:
        extra["fit"] = [{"medium": f.medium, "before": f.before, "after": f.after, "sizes": f.sizes,
                         "runs": list(f.runs), "notes": list(f.notes), "overlay": args.fit} for f in fits]
    doc = compare_to_dict(args.design, done, extra)
    if args.html:
        from designer.io.atomic import atomic_write_text
        from designer.present.html_measured import measured_page

        atomic_write_text(args.html, measured_page(doc, design.name or args.design))
    if args.json:
        write_json(doc, args.json)
        if args.json == "-":
            return 0
    lines: list[str] = []
    for comp, reasons in done:
        if lines:
            lines.append("")
        lines += comparison_lines(comp, reasons)
    if fabric is not None:
        if lines:
            lines.append("")
        lines += counters_lines(fabric)
    if fits is not None:
        lines += ["", *fit_lines(fits, args.fit)]
    echo("\n".join(lines))
    return 0


def _fit(ctx, comparisons: list, path: str) -> list:  # noqa: ANN001
    """Fit, write the overlay, return the fits (an empty fit writes nothing and says why)."""
    import datetime

    from designer.analysis.measured.fit import fit_efficiency, overlay

    fits = fit_efficiency(ctx, comparisons)
    if not fits:
        raise AnalysisError("--fit: no bandwidth-bound size in the logs to fit the efficiency to (every size is "
                            "latency-bound, or no run's bottleneck is a link of the design)")
    write_json(overlay(fits, datetime.date.today().isoformat()), path)
    return fits


def _read_runs(args: argparse.Namespace) -> list:
    from designer.io.measured.nccl_tests import read_nccl_tests

    return [r for path in args.logs for r in read_nccl_tests(path, args.collective)]


def _read_counters(args: argparse.Namespace):  # noqa: ANN202
    """(later samples, earlier samples or None), or None without --counters."""
    if not args.counters:
        return None
    from designer.io.measured.counters import read_counters

    after = [c for path in args.counters for c in read_counters(path)]
    before = [c for path in args.counters_before for c in read_counters(path)] if args.counters_before else None
    return after, before
