"""``topo-designer export FILE --png/--panels/--report/--html/--cabling/--graphml``: several outputs, one analysis.

Pictures need Qt: they are drawn with Qt's ``offscreen`` platform when there is no display,
so the command runs on a server. Every output path is checked before the analysis starts, so
a typo fails at once; errors are one line and exit 2.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from designer.cli.analyze import SIZE_HELP, parse_sizes
from designer.cli.commands import SUMMARIES
from designer.cli.common import command_catalog, command_design, decimal_number, echo, guard_outputs, whole_number
from designer.model import units
from designer.present.export import DEFAULT_SIZES, ExportError, check_folder, check_output

#: Width of the canvas picture in the HTML report, pixels.
HTML_PICTURE_PX = 1600


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    from designer.analysis.collectives.names import COLLECTIVES

    p = subparsers.add_parser(
        "export",
        help=SUMMARIES["export"],
        description="Export a design for people who do not run the designer: a PNG of the canvas, a PNG per "
        "analysis panel, the JSON report (analysis, bill of materials, design rules, workload, assumptions), a "
        "self-contained HTML report, the cabling plan (CSV, one row per cable) and GraphML. Several outputs in "
        "one run share one analysis. docs/export.md describes each file.",
    )
    p.add_argument("file", help="design file (.json), or - to read standard input")
    p.add_argument("--png", metavar="OUT.png", help="picture of the whole design with its legend")
    p.add_argument("--png-width", type=whole_number, metavar="PX",
                   help="width of the picture in pixels, legend included (default 2400 unless --png-scale)")
    p.add_argument("--png-scale", type=decimal_number, metavar="S",
                   help="picture scale: pixels per canvas unit (1 = the canvas at 100%%)")
    p.add_argument("--transparent", action="store_true", help="transparent background (default white)")
    p.add_argument("--no-legend", action="store_true", help="leave the legend out of the picture")
    p.add_argument("--colour", "--color", dest="colour", choices=("media", "utilisation"), default="media",
                   help="colour the canvas picture's links by medium (default) or by their utilisation under the "
                        "collective of the largest size, as the window's heat-map")
    p.add_argument("--panels", metavar="DIR", help="one PNG per analysis panel, in DIR (created if missing)")
    p.add_argument("--report", metavar="OUT.json", help="JSON report (docs/report-format.md)")
    p.add_argument("--html", metavar="OUT.html", help="self-contained HTML report (pictures embedded)")
    p.add_argument("--compare", metavar="COMPARE.json",
                   help="with --html: add the 'Measured against predicted' section from the JSON of "
                   "'topo-designer compare --json' (docs/measured.md)")
    p.add_argument("--cabling", metavar="OUT.csv", help="cabling plan: one row per cable, by rack then port")
    p.add_argument("--graphml", metavar="OUT.graphml", help="GraphML: devices as nodes, links as edges")
    p.add_argument("--workload", metavar="NAME|FILE",
                   help="also predict a training step of this workload (a preset, see 'topo-designer workloads', "
                   "or a workload file): in the report, the HTML and the step panel")
    p.add_argument("--placement", metavar="ORDER", help="with --workload: rank placement, innermost first")
    p.add_argument("--serve", metavar="NAME|FILE",
                   help="also predict serving this model (a serving preset or file, docs/serving.md): TTFT, TPOT, "
                   "tokens/s, the network's share, in the report and the HTML")
    p.add_argument("--sizes", metavar="SIZES", default=DEFAULT_SIZES,
                   help=f"collective message sizes: a range '8B:8GiB' (default) or a list '1MiB,1GiB'; {SIZE_HELP}")
    p.add_argument("--collective", default="allreduce", choices=COLLECTIVES, help="collective (default allreduce)")
    p.add_argument("--quiet", "-q", action="store_true", help="print nothing on success")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from designer.present.export import prepare

    outputs = {k: getattr(args, k) for k in ("png", "panels", "report", "html", "cabling", "graphml")}
    if not any(outputs.values()):
        raise ExportError("nothing to export: give at least one of --png, --panels, --report, --html, --cabling, "
                          "--graphml")
    if args.png_width is not None and args.png_scale is not None:
        raise ExportError("--png-width and --png-scale: give one or the other")
    if args.png_width is not None and not 16 <= args.png_width <= 16384:
        raise ExportError(f"--png-width {args.png_width}: from 16 to 16384 pixels")
    if args.png_scale is not None and not 0 < args.png_scale <= 16:
        raise ExportError(f"--png-scale {args.png_scale}: above 0 and at most 16")
    for key in ("png", "report", "html", "cabling", "graphml"):
        if outputs[key]:
            check_output(outputs[key], f"--{key}")
    if outputs["panels"]:
        check_folder(outputs["panels"])
    guard_outputs(args, {**{f"--{key}": path for key, path in outputs.items()}, **_panel_files(outputs["panels"])},
                  {"the design file": args.file, "the workload file": args.workload, "the serving file": args.serve,
                   "the compare JSON": args.compare})
    if args.compare and not outputs["html"]:
        raise ExportError("--compare adds a section to the HTML report: give --html too")
    if args.compare:
        from designer.io.measured import read_compare_json

        args.measured_doc = read_compare_json(args.compare)
    sizes = parse_sizes(args.sizes)
    workload = None
    if args.workload:
        from designer.cli.workloads import workload_arg

        workload = workload_arg(args.workload, args.placement)
    serve = None
    if args.serve:
        from designer.io.workload_file import load_serving

        serve = load_serving(args.serve)
    design = command_design(args.file)
    source = "<stdin>" if args.file == "-" else args.file
    timings: list[tuple[str, float]] = []
    catalog = command_catalog(args)
    data = None
    if outputs["report"] or outputs["html"] or outputs["panels"] or args.colour == "utilisation":
        # the canvas picture, the cabling plan and GraphML need no analysis
        t0 = time.perf_counter()
        data = prepare(design, source=source, catalog=catalog, sizes=sizes, workload=workload,
                       collective=args.collective, serving=serve)
        timings.append(("analysis", time.perf_counter() - t0))
    done: list[str] = []

    def timed(name: str, fn) -> None:  # noqa: ANN001
        t = time.perf_counter()
        fn()
        timings.append((name, time.perf_counter() - t))

    # Files that need no Qt first: a machine without PySide6 still gets them.
    if outputs["report"]:
        from designer.present.export import write_report

        timed("report", lambda: write_report(data, outputs["report"]))
        done.append(outputs["report"])
    if outputs["cabling"]:
        from designer.present.cabling import write_cabling

        timed("cabling", lambda: write_cabling(design, outputs["cabling"], catalog))
        done.append(outputs["cabling"])
    if outputs["graphml"]:
        from designer.interop import write_graphml

        timed("graphml", lambda: write_graphml(design, outputs["graphml"], catalog))
        done.append(outputs["graphml"])
    if outputs["png"] or outputs["panels"] or outputs["html"]:
        done += _pictures(args, design, catalog, data, outputs, timed)
    if not args.quiet:
        for path in done:
            echo(f"wrote {path}")
        echo("time: " + ", ".join(f"{name} {units.duration(sec)}" for name, sec in timings))
    return 0


def heat_map(data) -> dict[str, object]:  # noqa: ANN001
    """The canvas picture's heat-map arguments from an export's analysis: each link's utilisation and the
    bottlenecks ringed, as the window's Utilisation on Canvas shows them."""
    from designer.gui.window.live import HALO_LINKS

    links = data.report.links
    return {"utilisation": (list(links.ids), links.utilization),
            "halo": [b.link for b in data.report.bottlenecks[:HALO_LINKS]]}


def _panel_files(folder: str | None) -> dict[str, str]:
    """The files ``--panels FOLDER`` may write (one per panel), checked like every output."""
    if not folder:
        return {}
    try:
        from designer.gui.panels.plots import PANELS
    except ImportError:  # no Qt: the pictures step says so in one line
        return {}
    return {f"--panels ({key}.png)": str(Path(folder) / f"{key}.png") for key in PANELS}


def _pictures(args: argparse.Namespace, design, catalog, data, outputs: dict[str, str | None],  # noqa: ANN001
              timed) -> list[str]:  # noqa: ANN001
    """The outputs that need Qt: the canvas PNG, the panel PNGs, the HTML report."""
    from designer.io.atomic import atomic_write_bytes
    from designer.present.export import write_html

    notes: list[str] = []
    try:
        from designer.gui.window import pictures
    except ImportError as e:
        if outputs["png"] or outputs["panels"]:
            raise ExportError(f"pictures need PySide6 and pyqtgraph, which cannot be imported here ({e})") from None
        pictures = None
        notes.append("The pictures are missing: PySide6 or pyqtgraph cannot be imported where this report was made.")
    done: list[str] = []
    canvas = None
    panels: list = []
    if pictures is not None:
        pictures.ensure_application(quiet=True)
        box: dict[str, object] = {}
        heat = heat_map(data) if args.colour == "utilisation" else {}
        if outputs["png"]:
            def draw_png() -> None:
                box["png"] = pictures.canvas_png(
                    design, catalog, width=args.png_width, scale=args.png_scale,
                    transparent=args.transparent, legend=not args.no_legend, **heat)
            timed("canvas picture", draw_png)
            atomic_write_bytes(outputs["png"], box["png"].png)
            done.append(outputs["png"])
        if outputs["html"]:
            # the page has its own picture: 1,600 px wide on white, with the legend
            same = outputs["png"] and args.png_width == HTML_PICTURE_PX and not args.transparent and not args.no_legend
            if same:
                canvas = box["png"]
            else:
                timed("html picture", lambda: box.__setitem__(
                    "html", pictures.canvas_png(design, catalog, width=HTML_PICTURE_PX)))
                canvas = box["html"]
        if outputs["panels"] or outputs["html"]:
            timed("panel pictures", lambda: box.__setitem__("panels", pictures.panel_pngs(data)))
            panels = box["panels"]
        if outputs["panels"]:
            folder = Path(outputs["panels"])
            try:
                folder.mkdir(exist_ok=True)
            except OSError as e:
                raise ExportError(f"{folder}: cannot create the folder: {e.strerror or e}") from None
            for pic in panels:
                path = folder / f"{pic.name}.png"
                atomic_write_bytes(path, pic.png)
                done.append(str(path))
    if outputs["html"]:
        timed("html", lambda: write_html(data, outputs["html"], canvas=canvas, panels=panels, notes=notes,
                                              measured=getattr(args, "measured_doc", None)))
        done.append(outputs["html"])
    return done
