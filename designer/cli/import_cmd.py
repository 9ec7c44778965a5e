"""``topo-designer import FILE -o DESIGN``: another tool's fabric description as a design file.

Formats (detected from the content unless ``--format`` names one): ibnetdiscover and ibdiagnet
link lists, GML, GraphML (our own export reads back exactly), Slurm ``topology.conf``, NCCL
topology XML (one server), SimAI, containerlab and ASTRA-sim network files (docs/import.md). The
import report (what was read, guessed, skipped, with line numbers) is printed, and written as JSON
with ``--report``.
"""

from __future__ import annotations

import argparse

from designer.cli.commands import SUMMARIES
from designer.cli.common import command_catalog, display_name, echo, guard_outputs, whole_number, write_json
from designer.io import save_design
from designer.io.importers import (
    ATTRIBUTE_KEYS,
    FORMATS,
    ImportFileError,
    ImportOptions,
    check_hosts_regex,
    import_file,
    parse_attribute_mapping,
    parse_rate_option,
    read_name_map,
    read_server_template,
)
from designer.model import units


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "import",
        help=SUMMARIES["import"],
        description="Read another tool's description of a fabric and write it as a design file: switches, hosts "
        "and cables, tiers inferred, laid out by tiers. The format is detected from the content. The import "
        "report says what was read, what was guessed (inferred tiers, default rates, the GPUs stamped behind "
        "each host adapter) and what was skipped and why, with line numbers. Exit 0 when imported, 2 when the "
        "file cannot be read or is not a format we read (one line saying where and why). See docs/import.md.",
    )
    p.add_argument("file", help="the file to import, or - to read standard input")
    p.add_argument("-o", "--output", required=True, metavar="DESIGN", help="design file to write (.json)")
    p.add_argument("--format", choices=list(FORMATS), help="the file's format (default: detected from the content)")
    p.add_argument("--map", metavar="FILE", help="node-name map: one 'GUID name' per line (ibnetdiscover's "
                   "--node-name-map format); names hosts and switches")
    p.add_argument("--default-rate", metavar="RATE", help="rate of links whose speed the file does not give, per "
                   "direction (400G, 100Gb/s, 25; default: the fabric's most common rate, else 100G for Slurm and "
                   "10G for graphs)")
    p.add_argument("--gpus-per-adapter", type=whole_number, default=1, metavar="N",
                   help="GPUs stamped behind each host adapter as the analysis' endpoints (default 1; 0: none)")
    p.add_argument("--hosts", metavar="REGEX", help="regular expression naming an adapter's host from its name or node "
                   "description: its group 'host', else its first group (e.g. '^(\\S+) ' or '(?P<host>dgx\\d+)'); "
                   "default: '<host> HCA-<n>', '<host> mlx5_<n>' or a bare host name")
    p.add_argument("--host-map", metavar="FILE", help="adapter GUID (or node name) -> host, one per line, as a "
                   "node-name map: which adapters make one host")
    p.add_argument("--server", metavar="MODEL", default="auto",
                   help="what each GPU host is: a catalog GPU or NVLink-switch model (an NVSwitch board of its GPUs: "
                   "h100-sxm, a100-sxm, b200...), 'auto' (default: guessed from the hosts' adapters, 8 HDR: DGX A100, "
                   "8 NDR: DGX H100) or 'none' (adapters alone, --gpus-per-adapter GPUs each)")
    p.add_argument("--server-xml", metavar="FILE", help="an NCCL topology XML (or a design file) of one server: the "
                   "template of every GPU host, its NICs taken in order by the host's adapters")
    p.add_argument("--attribute", action="append", default=[], metavar="KEY=ATTR",
                   help=f"GML/GraphML: which attribute holds what ({', '.join(ATTRIBUTE_KEYS)}; e.g. rate=bw "
                   "rate_unit=M kind=type); repeatable")
    p.add_argument("--report", metavar="PATH", help="also write the import report as JSON ('-' for stdout)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    p.set_defaults(func=run)


def options_from_args(args: argparse.Namespace) -> ImportOptions:
    opts = ImportOptions(format=args.format, catalog=command_catalog(args))
    if args.default_rate is not None:
        opts.default_rate_gbps = parse_rate_option(args.default_rate)
    if args.gpus_per_adapter < 0 or args.gpus_per_adapter > 64:
        raise ImportFileError(f"--gpus-per-adapter {args.gpus_per_adapter}: give 0 to 64")
    opts.gpus_per_adapter = args.gpus_per_adapter
    if args.map:
        opts.name_map = read_name_map(args.map)
    opts.attributes = parse_attribute_mapping(args.attribute)
    if args.hosts:
        opts.hosts_regex = check_hosts_regex(args.hosts)
    if args.host_map:
        opts.host_map = read_name_map(args.host_map)
    opts.server = args.server
    if args.server_xml:
        opts.server_template = read_server_template(args.server_xml)
    return opts


def run(args: argparse.Namespace) -> int:
    guard_outputs(args, {"-o": args.output, "--report": args.report},
                  {"the imported file": args.file, "the name map": args.map, "the host map": args.host_map,
                   "the server XML": args.server_xml})
    options = options_from_args(args)
    design, report = import_file(args.file, options)
    save_design(design, args.output)
    if args.report:
        write_json(report.to_dict(), args.report)
        if args.report == "-":
            return 0
    if not args.quiet:
        echo("\n".join(report.summary_lines()))
        echo(f"{display_name(args.output)}: {design.name}: {units.count(design.device_count(), 'device')}, "
             f"{units.count(design.link_count(), 'link')}")
    return 0
