"""The ``topo-designer`` command: the GUI, or the same core headless.

No Qt is imported here at module level: ``validate``, ``generate``, ``analyze`` and ``bom`` run
on machines without a display or without PySide6.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from types import ModuleType

from designer import __version__
from designer.model import DesignError

PROG = "topo-designer"

#: Subcommand modules. Each has ``add_parser(subparsers)`` and ``run(args) -> int``.
SUBCOMMAND_MODULES = ("designer.cli_validate", "designer.cli_generate", "designer.cli_analyze", "designer.cli_bom")

EPILOG = """\
commands:
  topo-designer [FILE]                      open the designer window (a sample design when no FILE)
  topo-designer validate FILE               design-rule findings: exit 0 clean, 1 findings, 2 unreadable
  topo-designer generate KIND ... -o FILE   generate a fabric (topo-designer generate --help lists kinds)
  topo-designer analyze FILE [--json PATH|-]  bisection bounds, collective times, bottlenecks
  topo-designer bom FILE [--json PATH|-]    bill of materials: devices, cables, optics, power, cost

Units: link speeds are per-direction line rates (Gb/s in designs); the analyzer reports bytes
and bytes/s per direction. Exit codes: 0 success, 1 findings (validate), 2 error.
"""


def _modules() -> list[ModuleType]:
    return [importlib.import_module(name) for name in SUBCOMMAND_MODULES]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Topology Designer: design GPU-cluster network fabrics and see how fast they will be.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument(
        "--catalog", metavar="PATH", action="append", default=[],
        help="a user catalog file merged over the built-in catalog (repeatable); "
        "~/.config/topo-designer/catalog.json is always merged when it exists",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    gui = sub.add_parser("gui", help="open the designer window (the default command)")
    gui.add_argument("file", nargs="?", help="design file to open (default: a sample design)")
    for mod in _modules():
        mod.add_parser(sub)
    return parser


def _run_gui(path: str | None) -> int:
    if path is not None and not Path(path).exists():
        raise DesignError(f"{path}: no such file")
    try:
        from designer.gui.app import run_gui
    except ImportError as e:
        raise DesignError(
            f"the designer window needs PySide6 and pyqtgraph ({e}); the other commands work without"
        ) from None
    return run_gui(path)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser()
        commands = {"gui", "validate", "generate", "analyze", "bom"}
        # ``topo-designer FILE`` opens FILE in the window.
        first = next((a for a in argv if not a.startswith("-")), None)
        if first is not None and first not in commands:
            idx = argv.index(first)
            argv = argv[:idx] + ["gui"] + argv[idx:]
        args = parser.parse_args(argv)
        if args.catalog:
            from designer.model.catalog import load_catalog, set_default_catalog

            set_default_catalog(load_catalog([Path(p) for p in args.catalog]))
        if args.command in (None, "gui"):
            return _run_gui(getattr(args, "file", None))
        return int(args.func(args))
    except DesignError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except MemoryError:
        print(f"{PROG}: out of memory", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
