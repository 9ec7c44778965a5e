"""The ``topo-designer`` command: the window, or the same core headless.

One module per command (``validate``, ``generate``, ``analyze``, ``bom``, ``gui``), each with
``add_parser(subparsers)`` and ``run(args) -> int``, listed in the static table of ``commands``
so that only the module of the command that runs is imported; ``entry`` holds the main parser
and turns errors into one-line messages and exit codes; ``common`` the helpers they share. No Qt is
imported by this package: the commands other than ``gui`` run on machines without a display or
without PySide6.
"""

from designer.cli.entry import build_parser, console, main

__all__ = ["build_parser", "console", "main"]
