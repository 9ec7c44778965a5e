"""The ``topo-designer`` program: the main parser, the command it names, errors as one line.

No Qt is imported here: ``validate``, ``generate``, ``analyze`` and ``bom`` run on machines
without a display or without PySide6. The parser comes from the static table of
``designer.cli.commands``: only the module of the command that runs is imported.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys

from designer import __version__
from designer.cli.commands import COMMANDS, MODULE_OF, MODULES
from designer.cli.common import CATALOG_HELP, add_catalog_option, catalog_paths, terminal_text

PROG = "topo-designer"

EPILOG = """\
commands:
  topo-designer [FILE]                      open the designer window (a sample design when no FILE)
  topo-designer validate FILE               design-rule findings: exit 0 clean, 1 findings, 2 unreadable
  topo-designer generate KIND ... -o FILE   generate a fabric (topo-designer generate --help lists kinds)
  topo-designer analyze FILE [--json PATH|-]  bisection bounds, collective times, bottlenecks
  topo-designer bom FILE [--json PATH|-]    bill of materials: devices, cables, optics, power, cost
  topo-designer workloads                   training workload presets (analyze FILE --workload NAME)
  topo-designer whatif FILE --fail ID       fail links or devices: before / after / delta
  topo-designer scan FILE [--links]         N-1 failure ranking and single points of failure
  topo-designer scale FILE --workload W     the workload at 1/4 .. 4 times the GPUs; growth headroom
  topo-designer advise FILE --workload W    more GPUs or a better network: which buys more
  topo-designer export FILE --html OUT      PNG, JSON and HTML reports, cabling plan CSV, GraphML
  topo-designer import FILE -o DESIGN       a fabric from ibnetdiscover, GML, GraphML, Slurm, NCCL, SimAI...
  topo-designer sweep SPEC -o RESULTS       design-space sweep on Dask (sweep-report, sweep-point)
  topo-designer compare DESIGN LOG...       nccl-tests logs of the real cluster against the prediction

Units: link speeds are per-direction line rates (Gb/s in designs); the analyzer reports bytes
and bytes/s per direction. Exit codes: 0 success, 1 findings (validate), 2 error.
"""


class OneLineParser(argparse.ArgumentParser):
    """argparse, its usage errors in one line (every command's parser is one: subparsers take their
    parent's class)."""

    def error(self, message: str):  # noqa: ANN201 - argparse's signature; never returns
        hint = ""
        if "expected one argument" in message:
            hint = " (a value that starts with '-' is written as --option=VALUE)"
        self.exit(2, terminal_text(f"{self.prog}: {message}{hint}; '{self.prog} --help' lists the options") + "\n")


def build_parser(command: str | None = "*") -> argparse.ArgumentParser:
    """The main parser. ``command``: the one command whose module is imported for its options
    (``"*"``: every command, ``None``: none); the others are listed by name and summary only."""
    parser = OneLineParser(
        prog=PROG,
        description="Topology Designer: design GPU-cluster network fabrics and see how fast they will be.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("--catalog", metavar="PATH", action="append", default=[], help=CATALOG_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    loaded = MODULES if command == "*" else (MODULE_OF[command],) if command in MODULE_OF else ()
    for name, module, summary in COMMANDS:
        if module not in loaded:
            sub.add_parser(name, help=summary)
        elif name not in sub.choices:  # a module adds all of its commands at once
            importlib.import_module(f"designer.cli.{module}").add_parser(sub)
    add_catalog_option(parser)
    return parser


def _command_parser(command: str | None) -> argparse.ArgumentParser:
    """:func:`build_parser` for the command that runs, its module imported with the collector paused.

    Importing a command's module (the analysis: numpy, scipy) creates a few hundred thousand
    objects that live as long as the program; the collector would scan them about a hundred times
    while they are created, and again in every later full collection. They are built without it
    and then exempted from its scans (:func:`designer.model.bulk.built_to_keep`).
    """
    if command is None:  # --help, --version: no command module, no model
        return build_parser(None)
    from designer.model.bulk import built_to_keep

    with built_to_keep():
        return build_parser(command)


def _split_command(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """``argv`` with ``gui`` inserted before a bare FILE, so ``topo-designer FILE`` opens it."""
    return _find_command(parser, argv)[0]


def _find_command(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[list[str], str | None]:
    """``argv`` with ``gui`` inserted before a bare FILE, and the command it runs (None: none named).

    The command is the first word that is neither an option nor the value of a global option
    that takes one (``--catalog PATH``), so ``topo-designer --catalog mine.json analyze F`` runs
    ``analyze``.
    """
    takes_value = {
        opt for action in parser._actions if action.nargs != 0 and action.option_strings
        for opt in action.option_strings
    }
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return ([*argv[:i], "gui", *argv[i + 1:]], "gui") if i + 1 < len(argv) else (argv, None)
        if arg in takes_value:
            i += 2
            continue
        if arg.startswith("-") and arg != "-":
            i += 1
            continue
        return (argv, arg) if arg in MODULE_OF else ([*argv[:i], "gui", *argv[i:]], "gui")
    return argv, None


def _design_error() -> type[Exception]:
    """The model's error class, imported when an exception is being matched (``except`` evaluates it
    then): ``--help`` and ``--version`` import no model."""
    from designer.model import DesignError

    return DesignError


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        try:
            argv, command = _find_command(build_parser(None), argv)
            args = _command_parser(command).parse_args(argv)
        except SystemExit as e:  # --help or --version (0), or a usage error (2): argparse printed it
            return e.code if isinstance(e.code, int) else 2
        if args.command is None:
            from designer.cli.gui import open_window

            return open_window(None, catalog_paths(args))
        return int(args.func(args))
    except _design_error() as e:
        print(terminal_text(f"{PROG}: {e}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except MemoryError:
        print(f"{PROG}: out of memory", file=sys.stderr)
        return 2
    finally:
        # What the command built and exempted from the collector's scans goes back to it: a process
        # that calls main() more than once (a script, the tests) keeps no garbage of earlier commands.
        gc.unfreeze()


def console() -> None:
    """The program as the shell starts it (``topo-designer``, ``python -m designer``): :func:`main`,
    then out with its exit code.

    What is still alive then counts as permanent for the collector (:func:`gc.freeze`), so that the
    interpreter's shutdown frees it without a last pass hunting for reference cycles among it (50 ms
    after analysing 16,384 GPUs); :func:`main` itself, which the tests and scripts call many times in
    one process, leaves the collector as it found it.
    """
    code = main()
    gc.freeze()
    sys.exit(code)
