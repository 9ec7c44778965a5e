"""JSON documents as text: the standard library's C encoder, laid out one record per line.

Every JSON file the program writes (``analyze --json``, ``bom --json``, ``validate --json``, the
export report...) goes through :func:`json_chunks`. The pretty printer of :func:`json.dumps`
(``indent=``) runs in Python, one call per value: 3.3 s for the 20.8 MB report of a 16,384-GPU
design. Here the C encoder writes every value, and Python only lays out the first two levels:
the document's members one per line, and inside a member that holds containers (the
``collectives`` rows, the ``links`` columns, a nested document's sections) one entry per line.
A container of plain values stays on one line, so a column of 81,920 link utilisations is one
line of numbers, encoded in C.

Rules for every document: UTF-8 text as it is (no ``\\u`` escapes of non-ASCII letters), numbers
finite (NaN and infinity are refused, never written), a final newline. No per-object hooks: the
values must already be plain ``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` or ``None``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(", ", ": ")).encode
#: How many levels are laid out one entry per line (the document's, and its members').
_LAID_OUT_LEVELS = 2


def _has_containers(value: Any) -> bool:
    members = value.values() if isinstance(value, dict) else value
    return any(isinstance(m, dict | list | tuple) for m in members)


def _chunks(value: Any, level: int) -> Iterator[str]:
    if level >= _LAID_OUT_LEVELS or not isinstance(value, dict | list | tuple) or not value \
            or not _has_containers(value):
        yield _ENCODE(value)
        return
    pad = " " * (level + 1)
    is_dict = isinstance(value, dict)
    yield "{\n" if is_dict else "[\n"
    last = len(value) - 1
    for i, item in enumerate(value.items() if is_dict else value):
        if is_dict:
            key, item = item
            if not isinstance(key, str):
                raise TypeError(f"JSON keys are strings, not {type(key).__name__}")
            yield f"{pad}{_ENCODE(key)}: "
        else:
            yield pad
        yield from _chunks(item, level + 1)
        yield ",\n" if i < last else "\n"
    yield pad[:-1] + ("}" if is_dict else "]")


def json_chunks(doc: Any) -> Iterator[str]:
    """The JSON text of ``doc`` in pieces (to write as they come), the last ending in a newline.

    >>> "".join(json_chunks({"format": "x", "rows": [{"a": 1}, {"a": 2}], "col": {"v": [1.5, 2]}}))
    '{\\n "format": "x",\\n "rows": [\\n  {"a": 1},\\n  {"a": 2}\\n ],\\n "col": {\\n  "v": [1.5, 2]\\n }\\n}\\n'
    """
    yield from _chunks(doc, 0)
    yield "\n"


def json_text(doc: Any) -> str:
    """The JSON text of ``doc`` (see :func:`json_chunks`) as one string."""
    return "".join(json_chunks(doc))
