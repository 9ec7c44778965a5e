"""Helpers shared by the command-line subcommands (no Qt)."""

from __future__ import annotations

import json
import sys
from typing import Any

from designer.io import atomic_write_text


def json_text(obj: Any) -> str:
    """Pretty JSON text with a trailing newline; NaN and Infinity are refused."""
    return json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_json(obj: Any, dest: str) -> None:
    """Write ``obj`` as JSON to stdout when ``dest`` is ``-``, else atomically to the file ``dest``."""
    text = json_text(obj)
    if dest == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        atomic_write_text(dest, text)


def table(headers: list[str], rows: list[list[Any]], align: str | None = None) -> str:
    """A plain aligned text table. ``align`` is one character per column, ``l`` or ``r``."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    align = align or ("l" + "r" * (len(headers) - 1))
    out = []
    for n, r in enumerate(cells):
        parts = [c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(r, widths, align, strict=True)]
        out.append("  ".join(parts).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)
