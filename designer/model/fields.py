"""Typed fields of JSON documents, one rule each, shared by every reader.

Design files (:mod:`designer.io.design_records`), workload files
(:mod:`designer.analysis.training.workload`) and catalogs (:mod:`designer.model.catalog`) all read
their fields through these functions, so a value means the same everywhere: a whole number
written ``2.0`` is 2 in each, text is at most :data:`MAX_TEXT` characters in each, and a number
is finite and inside its range in each. :func:`parse_json` is the one JSON parser of the
documents: ``NaN``, ``Infinity``, duplicate keys and text that is not Unicode (a lone surrogate
``\\ud800``) are refused with a one-line reason.

Every refusal is a :class:`FieldError` whose message starts with the field's path
(``devices[3].properties.power_w: must be a number, not 'abc'``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

#: The longest text field (a name, a description, an id) any document may hold, in characters.
MAX_TEXT = 4096


class FieldError(Exception):
    """A field breaks its rule; the message starts with the field's path."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)


def shown(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters (a refused value may be a long string or list)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def as_object(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise FieldError(path, f"must be an object, not {type(value).__name__}")
    return value


def as_list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise FieldError(path, f"must be a list, not {type(value).__name__}")
    return value


def as_text(value: Any, path: str, max_len: int = MAX_TEXT) -> str:
    if not isinstance(value, str):
        raise FieldError(path, f"must be text, not {shown(value)}")
    if len(value) > max_len:
        raise FieldError(path, f"text is {len(value):,} characters long, over {max_len:,}")
    return value


def as_number(value: Any, path: str, *, minimum: float = -math.inf, maximum: float = math.inf,
              positive: bool = False, unit: str = "") -> float:
    """A finite number (not a boolean, not text) in ``minimum .. maximum`` (``> 0`` when ``positive``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FieldError(path, f"must be a number, not {shown(value)}")
    try:
        v = float(value)
    except OverflowError:
        raise FieldError(path, f"must be at most {maximum:g}{unit}, not {shown(value)}") from None
    if not math.isfinite(v):
        raise FieldError(path, f"must be finite, not {v!r}")
    if positive and v <= 0:
        raise FieldError(path, f"must be > 0, not {v:g}")
    if v < minimum:
        raise FieldError(path, f"must be >= {minimum:g}{unit}, not {v:g}")
    if v > maximum:
        raise FieldError(path, f"must be <= {maximum:g}{unit}, not {v:g}")
    return v


def as_int(value: Any, path: str, lo: int, hi: int) -> int:
    """A whole number in ``lo .. hi``; ``2.0`` is 2 (JSON does not tell integers from floats)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise FieldError(path, f"must be a whole number from {lo:,} to {hi:,}, not {shown(value)}")
    if not lo <= value <= hi:
        raise FieldError(path, f"must be a whole number from {lo:,} to {hi:,}, not {shown(value)}")
    return value


def as_bool(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise FieldError(path, f"must be true or false, not {shown(value)}")
    return value


def as_choice(value: Any, path: str, choices: tuple[str, ...]) -> str:
    v = as_text(value, path)
    if v not in choices:
        raise FieldError(path, f"must be one of {', '.join(choices)}, not {shown(v)}")
    return v


# ---------------------------------------------------------------------------- parsing
def object_pairs(max_members: int | None = None, too_many: Callable[[int], str] | None = None):  # noqa: ANN201
    """The ``object_pairs_hook`` of :func:`parse_json`: duplicate keys (and objects over
    ``max_members`` members, described by ``too_many(n)``) raise ValueError."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        if max_members is not None and len(items) > max_members:
            raise ValueError(too_many(len(items)) if too_many else f"an object has {len(items):,} members")
        d = dict(items)
        if len(d) != len(items):
            seen: set[str] = set()
            for k, _ in items:
                if k in seen:
                    raise ValueError(f"duplicate key {shown(k)}")
                seen.add(k)
        return d

    return pairs


# A JSON escape of a UTF-16 surrogate (``\ud800``..``\udfff``): the only way a lone surrogate can
# reach a parsed document, since the text itself was decoded from UTF-8.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _not_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def lone_surrogate_path(data: Any) -> str | None:
    """The path of the first key or text in ``data`` holding a lone surrogate, or None."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if _not_unicode(value):
                return path or "the document"
        elif isinstance(value, dict):
            for k, v in reversed(value.items()):
                here = f"{path}.{k}" if path else k
                if _not_unicode(k):
                    return f"{path or 'the document'}: a key"
                stack.append((here, v))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(value))))
    return None


def _decode_error_text(e: json.JSONDecodeError, text: str) -> str:
    """``unterminated string starting at line 3, column 9`` (the decoder's message reads as a sentence)."""
    msg = e.msg[:1].lower() + e.msg[1:]
    where = f"line {e.lineno}, column {e.colno}"
    sentence = f"{msg} {where}" if msg.endswith(" at") else f"{msg} at {where}"
    if not text[e.pos:].strip() or msg.startswith("unterminated string"):
        sentence += "; the file ends before the JSON does (was it cut short?)"
    return sentence


def parse_json(text: str, source: str, what: str, error: Callable[[str], Exception], *,
               max_members: int | None = None, too_many: Callable[[int], str] | None = None) -> Any:
    """Parse a document's JSON ``text``; every refusal is ``error("source: reason")`` in one line.

    ``what`` names the kind of document ("a design file"). Refused: malformed JSON, ``NaN`` and
    ``Infinity``, duplicate keys, objects over ``max_members`` members, nesting too deep for the
    parser, and lone surrogates (text that cannot be written back as UTF-8).
    """
    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not allowed in {what}")

    try:
        data = json.loads(text, parse_constant=no_constant, object_pairs_hook=object_pairs(max_members, too_many))
    except RecursionError:
        raise error(f"{source}: nested too deeply to be {what}") from None
    except json.JSONDecodeError as e:
        raise error(f"{source}: not valid JSON: {_decode_error_text(e, text)}") from None
    except ValueError as e:
        raise error(f"{source}: not valid JSON: {e}") from None
    if _SURROGATE_ESCAPE.search(text):
        where = lone_surrogate_path(data)
        if where is not None:
            raise error(f"{source}: {where}: not Unicode text (a lone surrogate escape such as \\ud800)")
    return data
