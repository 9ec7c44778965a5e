"""Helpers shared by the command-line subcommands (no Qt)."""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from designer.model import Design
    from designer.model.catalog import Catalog

CATALOG_HELP = (
    "a user catalog file merged over the built-in catalog (repeatable; before or after the command); "
    "~/.config/topo-designer/catalog.json is always merged when it exists"
)


def add_catalog_option(parser: argparse.ArgumentParser) -> None:
    """``--catalog PATH`` on every subcommand (and theirs), so it may follow the command as well.

    The values land in ``sub_catalog``; with no default, a nested command does not clear a value
    given before it.
    """
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                child.add_argument("--catalog", metavar="PATH", action="append", dest="sub_catalog",
                                   default=argparse.SUPPRESS, help=CATALOG_HELP)
                add_catalog_option(child)


def catalog_paths(args: argparse.Namespace) -> list[str]:
    """The ``--catalog`` files given before and after the command, in that order."""
    return [*(getattr(args, "catalog", None) or ()), *(getattr(args, "sub_catalog", None) or ())]


def command_catalog(args: argparse.Namespace) -> Catalog:
    """The catalog of this command: the built-in one, the user catalog and the ``--catalog`` files, merged.

    Read once, when the command first needs it (a command that reads no catalog, ``workloads``, works
    whatever the user catalog holds), and passed to everything the command calls.
    """
    catalog = getattr(args, "_loaded_catalog", None)
    if catalog is None:
        from designer.io.catalog_files import load_catalog  # not at the top: --help and --version read none

        catalog = load_catalog(catalog_paths(args))
        args._loaded_catalog = catalog
    return catalog


def command_design(path: str) -> Design:
    """The design file a command reads (:func:`designer.io.load_design`), kept to the end of the command.

    Its records (about a million objects for 16,384 GPUs) are built without the cyclic collector
    and then exempted from its scans (:func:`designer.model.bulk.built_to_keep`): otherwise every
    later collection while the command runs would scan them again. A design holds no reference
    cycles, so dropping it still frees it.
    """
    import threading

    from designer.io import load_design  # not at the top: --help and --version import no design I/O
    from designer.model.bulk import built_to_keep

    notice = threading.Timer(READ_NOTICE_AFTER_S, _say_still_reading, (path,))
    notice.daemon = True
    notice.start()
    try:
        with built_to_keep():
            return load_design(path)
    finally:
        notice.cancel()


#: A design file still being read after this long (seconds) is announced on standard error, so that
#: reading 131,072 GPUs (109 MB, about six seconds) does not pass in silence.
READ_NOTICE_AFTER_S = 3.0


def _say_still_reading(path: str) -> None:
    from designer.model import units

    try:
        size = f" ({units.size(os.stat(path).st_size)})" if path != "-" else ""
    except OSError:
        size = ""
    name = "standard input" if path == "-" else path
    print(terminal_text(f"topo-designer: still reading {name}{size}\u2026"), file=sys.stderr, flush=True)


def guard_outputs(args: argparse.Namespace, outputs: dict[str, str | None],
                  inputs: dict[str, str | None] | None = None) -> None:
    """Refuse, before the command reads its inputs, an output that is an input or another output.

    ``outputs`` maps an option (``--json``) to its path, ``inputs`` a description (``the design
    file``) to its path; the ``--catalog`` files and the user catalog are inputs of every command.
    Every command that writes a file calls this first.
    """
    from designer.io.catalog_files import user_catalog_path

    named = [*(inputs or {}).items(), *(("a catalog", p) for p in catalog_paths(args)),
             ("the user catalog", str(user_catalog_path()))]
    from designer.io.outputs import check_outputs  # not at the top: --help and --version import no design I/O

    check_outputs(named, outputs.items())


def whole_number(text: str) -> int:
    """An argparse ``type``: a whole number in ASCII digits (``int()`` would read ``'١٢'`` as 12)."""
    if not re.fullmatch(r"\s*[+-]?[0-9]+\s*", text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(text)


def decimal_number(text: str) -> float:
    """An argparse ``type``: a finite number in ASCII (``float()`` would read other scripts' digits
    and ``nan``)."""
    if not re.fullmatch(r"\s*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*", text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number")
    value = float(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def count_option(text: str) -> int:
    """An argparse ``type``: a whole number, 0 or more (``--top N``)."""
    n = whole_number(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give 0 or more")
    return n


def display_name(path: str) -> str:
    """How messages name a design argument: ``<stdin>`` for ``-``."""
    return "<stdin>" if path == "-" else path


def json_text(obj: Any) -> str:
    """JSON text, one record per line, with a trailing newline; NaN and Infinity are refused
    (:func:`designer.present.json_text.json_text`: the C encoder, no per-object hooks)."""
    from designer.present.json_text import json_text as text

    return text(obj)


def write_json(obj: Any, dest: str) -> None:
    """Write ``obj`` as JSON to stdout when ``dest`` is ``-``, else atomically to the file ``dest``."""
    write_json_text(json_text(obj), dest)


def write_json_text(text: str, dest: str) -> None:
    """Write JSON ``text`` to stdout (``-``, characters a terminal would act on as ``\\u`` escapes)
    or atomically to the file ``dest`` (as it is)."""
    if dest == "-":
        sys.stdout.write(_json_escaped(text))
        sys.stdout.flush()
    else:
        from designer.io import atomic_write_text  # not at the top: --help and --version import no design I/O

        atomic_write_text(dest, text)


#: What may need an escape: anything but printable ASCII, newline and tab (then checked by ``unsafe``).
_MAYBE_UNSAFE = re.compile(r"[^\x20-\x7e\n\t]")
#: The bytes ``_MAYBE_UNSAFE`` leaves alone: printable ASCII, newline and tab.
_PLAIN_ASCII = bytes(range(0x20, 0x7F)) + b"\n\t"


def _json_escape(match: re.Match[str]) -> str:
    from designer.model.text import unsafe  # not at the top: --help and --version import no model

    ch = match.group()
    if not unsafe(ch):
        return ch
    if ord(ch) < 0x10000:
        return f"\\u{ord(ch):04x}"
    hi, lo = divmod(ord(ch) - 0x10000, 0x400)
    return f"\\u{0xD800 + hi:04x}\\u{0xDC00 + lo:04x}"


def _json_escaped(text: str) -> str:
    r"""``text`` (JSON) with the characters a terminal would act on as ``\u`` escapes.

    json.dumps escapes C0 controls; C1 controls and format characters can only occur inside
    strings, where a \u escape means the same character. The search is in C: only characters
    outside printable ASCII reach Python.

    >>> _json_escaped('{"name": "rack\u202e1\x85", "ok": "é"}\n')
    '{"name": "rack\\u202e1\\u0085", "ok": "é"}\n'
    """
    if text.isascii() and not text.encode("ascii").translate(None, _PLAIN_ASCII):
        return text  # nothing to escape: found by one pass in C over the bytes (a search of the text is slower)
    return _MAYBE_UNSAFE.sub(_json_escape, text)


def terminal_text(text: str) -> str:
    r"""``text`` safe to show on a terminal: control, format and separator characters escaped.

    Names in a design file are free text; printed raw, an escape sequence could rewrite the
    screen and a bidirectional override (U+202E) could reverse what follows. Newlines and tabs
    are kept.

    >>> terminal_text("rack\u202e1\x1b[2J\tok\n")
    'rack\\u202e1\\x1b[2J\tok\n'
    """
    from designer.model.text import visible  # not at the top: --help and --version import no model

    return visible(text)


def echo(text: str = "", *, file: Any = None) -> None:
    """Print ``text`` (a line or several) with :func:`terminal_text` applied."""
    print(terminal_text(text), file=file if file is not None else sys.stdout)
