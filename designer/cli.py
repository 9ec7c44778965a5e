"""The ``topo-designer`` command: the GUI, or the same core headless.

No Qt is imported here at module level: ``validate``, ``generate``, ``analyze`` and ``bom`` run
on machines without a display or without PySide6.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from designer import __version__
from designer.cli_common import CATALOG_HELP, add_catalog_option, terminal_text
from designer.model import DesignError

PROG = "topo-designer"

#: Subcommand modules. Each has ``add_parser(subparsers)`` and ``run(args) -> int``.
SUBCOMMAND_MODULES = ("designer.cli_validate", "designer.cli_generate", "designer.cli_analyze", "designer.cli_bom")
COMMANDS = ("gui", "validate", "generate", "analyze", "bom")

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
    parser.add_argument("--catalog", metavar="PATH", action="append", default=[], help=CATALOG_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    gui = sub.add_parser("gui", help="open the designer window (the default command)")
    gui.add_argument("file", nargs="?", help="design file to open (default: a sample design)")
    for mod in _modules():
        mod.add_parser(sub)
    add_catalog_option(parser)
    return parser


def _qt_platform_problem(env: dict[str, str] | None = None, platform: str = sys.platform) -> str | None:
    """Why the window could not start here (Qt would abort the process), or None.

    Checked before Qt starts: without a display Qt prints a page of plugin text and aborts with
    signal 6, which no exception handler can turn into a message.
    """
    env = dict(os.environ) if env is None else env
    if not platform.startswith("linux"):
        return None
    chosen = env.get("QT_QPA_PLATFORM", "").split(":")[0].strip()
    if chosen and chosen not in ("xcb", "wayland", "wayland-egl"):
        return None  # offscreen, vnc, eglfs...: the user chose; Qt says what it lacks
    if chosen.startswith("wayland"):
        return None if env.get("WAYLAND_DISPLAY") else (
            "QT_QPA_PLATFORM is wayland but WAYLAND_DISPLAY is not set"
        )
    if env.get("WAYLAND_DISPLAY") and not chosen:
        return None
    if not env.get("DISPLAY"):
        return "no display (DISPLAY is not set)"
    return _xcb_plugin_problem()


def _xcb_plugin_problem() -> str | None:
    """Why Qt's X11 platform plugin would not load (a system library missing), or None.

    Loading the plugin's shared library resolves its dependencies exactly as Qt will, so the
    message names the library that is really missing.
    """
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None  # reported as a missing PySide6 next
    plugin = Path(next(iter(spec.submodule_search_locations))) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    if not plugin.is_file():
        return None
    try:
        ctypes.CDLL(str(plugin))
    except OSError as e:
        # "libxcb-icccm.so.4: cannot open shared object file: No such file or directory"
        text = str(e)
        lib = text.split(":")[0].strip()
        missing = f"{lib} is missing" if "cannot open shared object" in text and "/" not in lib else text
        return (f"Qt's X11 plugin cannot load ({missing}; on Debian or Ubuntu, "
                "bash scripts/ensure-qt-libs.sh --x11 installs the X11 libraries)")
    return None


NO_WINDOW_HINT = (
    "the commands validate, generate, analyze and bom work without a window; "
    "set QT_QPA_PLATFORM=offscreen for scripted use"
)


def _run_gui(path: str | None) -> int:
    if path is not None and not Path(path).exists():
        raise DesignError(f"{path}: no such file")
    problem = _qt_platform_problem()
    if problem is not None:
        raise DesignError(f"cannot open the designer window: {problem}; {NO_WINDOW_HINT}")
    try:
        import pyqtgraph  # noqa: F401
        import PySide6.QtWidgets  # noqa: F401

        from designer.gui.app import run_gui
    except ImportError as e:
        raise DesignError(
            f"the designer window needs PySide6 and pyqtgraph, which cannot be loaded ({e}); "
            f"install the package with its dependencies (pip install topo-designer), or, on a minimal "
            f"Linux, Qt's system libraries (bash scripts/ensure-qt-libs.sh); {NO_WINDOW_HINT}"
        ) from None
    return run_gui(path)


def _split_command(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """``argv`` with ``gui`` inserted before a bare FILE, so ``topo-designer FILE`` opens it.

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
            return [*argv[:i], "gui", *argv[i + 1:]] if i + 1 < len(argv) else argv
        if arg in takes_value:
            i += 2
            continue
        if arg.startswith("-") and arg != "-":
            i += 1
            continue
        return argv if arg in COMMANDS else [*argv[:i], "gui", *argv[i:]]
    return argv


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser()
        args = parser.parse_args(_split_command(parser, argv))
        catalogs = [*args.catalog, *(getattr(args, "sub_catalog", None) or ())]
        if catalogs:
            from designer.model.catalog import load_catalog, set_default_catalog

            set_default_catalog(load_catalog([Path(p) for p in catalogs]))
        if args.command in (None, "gui"):
            return _run_gui(getattr(args, "file", None))
        return int(args.func(args))
    except DesignError as e:
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


if __name__ == "__main__":
    sys.exit(main())
