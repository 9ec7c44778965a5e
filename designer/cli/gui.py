"""``topo-designer [gui] [FILE]``: open the designer window, or say in one line why it cannot open.

Two checks run before Qt starts. Without a display Qt prints a page of plugin text and aborts
with signal 6, which no exception handler can turn into a message, so the platform is checked
here first (with no Qt import: the X11 plugin's system libraries are probed through ctypes).
Then the window module is imported: it imports PySide6 and pyqtgraph itself, so an ImportError
from it means they cannot be loaded. This package never imports them.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from designer.cli.commands import SUMMARIES
from designer.cli.common import catalog_paths
from designer.model import DesignError

NO_WINDOW_HINT = (
    "the commands validate, generate, analyze and bom work without a window; "
    "set QT_QPA_PLATFORM=offscreen for scripted use"
)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("gui", help=SUMMARIES["gui"])
    p.add_argument("file", nargs="?", help="design file to open (default: a sample design)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return open_window(getattr(args, "file", None), catalog_paths(args))


def qt_platform_problem(env: dict[str, str] | None = None, platform: str = sys.platform) -> str | None:
    """Why the window could not start here (Qt would abort the process), or None."""
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
    return xcb_plugin_problem()


def xcb_plugin_problem() -> str | None:
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


def open_window(path: str | None, catalog_files: Sequence[str] = ()) -> int:
    """Open the window on ``path`` (a sample design when None), with ``catalog_files`` (``--catalog``)
    merged over the built-in and user catalogs; DesignError when it cannot open."""
    if path is not None and not Path(path).exists():
        raise DesignError(f"{path}: no such file")
    problem = qt_platform_problem()
    if problem is not None:
        raise DesignError(f"cannot open the designer window: {problem}; {NO_WINDOW_HINT}")
    try:
        from designer.gui.window.app import run_gui  # imports PySide6 and pyqtgraph
    except ImportError as e:
        raise DesignError(
            f"the designer window needs PySide6 and pyqtgraph, which cannot be loaded ({e}); "
            f"install the package with its dependencies (pip install topo-designer), or, on a minimal "
            f"Linux, Qt's system libraries (bash scripts/ensure-qt-libs.sh); {NO_WINDOW_HINT}"
        ) from None
    return run_gui(path, catalog_files)
