"""Outputs never replace inputs: every command that writes checks its paths here before it reads or writes.

Two paths are the same file when they name the same inode (through symbolic links, ``./``, hard
links or another spelling of the folder); a path that does not exist yet is the same as another
when both resolve to the same place. Standard input and output (``-``) are never files here.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from designer.io.atomic import FileWriteError

#: ``(what, path)``: ``what`` names the path in a message (an option such as ``--json``, or
#: ``the design file``); a ``None`` or ``-`` path is skipped.
Named = tuple[str, "str | os.PathLike[str] | None"]


def file_identity(path: str | os.PathLike[str]) -> tuple[int, int] | str:
    """The inode of an existing file (symbolic links followed), else the path fully resolved."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return os.path.realpath(path)
    return (st.st_dev, st.st_ino)


def _real(items: Iterable[Named]) -> list[tuple[str, str]]:
    return [(what, os.fspath(p)) for what, p in items if p is not None and os.fspath(p) not in ("", "-")]


def check_outputs(inputs: Iterable[Named], outputs: Iterable[Named]) -> None:
    """Refuse, in one line, an output that is one of the ``inputs`` or another of the ``outputs``.

    Inputs that do not exist (a preset's name, say) cannot be overwritten and are not compared.
    """
    ins = [(what, p, file_identity(p)) for what, p in _real(inputs) if os.path.lexists(p)]
    seen: dict[tuple[int, int] | str, tuple[str, str]] = {}
    for what, p in _real(outputs):
        key = file_identity(p)
        for in_what, in_path, in_key in ins:
            if key == in_key:
                alias = "" if os.path.normpath(in_path) == os.path.normpath(p) else f" ({in_path})"
                raise FileWriteError(f"{p}: {what} would overwrite {in_what}{alias}; write it to another file")
        if key in seen:
            other, other_path = seen[key]
            alias = "" if os.path.normpath(other_path) == os.path.normpath(p) else f" ({other_path})"
            raise FileWriteError(f"{p}: {other}{alias} and {what} name the same file; give each output its own file")
        seen[key] = (what, p)


def check_fresh_output(path: str | os.PathLike[str], what: str, hint: str) -> None:
    """Refuse an output file that already exists (``hint`` says how to keep or replace it)."""
    p = os.fspath(path)
    if p != "-" and os.path.lexists(p):
        raise FileWriteError(f"{p}: {what} already exists; {hint}")
