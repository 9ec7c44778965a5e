"""The shape of a large JSON text, measured before it is parsed.

``json.loads`` builds every object completely before anyone can look at it, so a file of a few
hundred MiB holding one object with millions of keys, or millions of empty arrays, costs several
GiB before any limit could refuse it. :func:`measure` counts, with vectorised numpy passes over
the bytes in fixed-size chunks, the members of the largest object, the nesting depth, the objects
and arrays and the values, holding a few bytes per structural character of one chunk at a time.
Strings (with their escapes) are masked first, so braces, colons and commas inside names do not
count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy as np

from designer.model.fields import parse_json

_QUOTE, _BACKSLASH, _COLON, _COMMA = 0x22, 0x5C, 0x3A, 0x2C
# Structural characters: openers +1, closers -1, ':' and ',' 0.
_DELTA = np.zeros(256, dtype=np.int8)
_DELTA[[ord("{"), ord("[")]] = 1
_DELTA[[ord("}"), ord("]")]] = -1
_STRUCTURAL = np.zeros(256, dtype=bool)
_STRUCTURAL[[ord(c) for c in "{}[]:,"]] = True
_BACKSLASH_BYTE = b"\\"
#: Every byte but quotes and structural characters (what the fast way of _outside_strings drops).
_NOT_KEPT = bytes(c for c in range(256) if chr(c) not in '"{}[]:,')
#: Bytes measured at once: the working memory is a few dozen bytes per byte of one chunk, and a chunk
#: of 1 MiB keeps it in the processor's caches.
CHUNK_BYTES = 1024 * 1024


class JsonShape(NamedTuple):
    """What a JSON text will expand into, counted outside strings."""

    #: The most members of any one object.
    largest_object: int
    #: The deepest nesting of objects and arrays.
    depth: int
    #: Objects and arrays.
    containers: int
    #: Values of every kind, an upper bound: commas + containers + 1 (exact when no container is empty).
    values: int
    #: Members of all objects together (the colons outside strings).
    members: int


def rough_shape(raw: bytes) -> JsonShape:
    """An upper bound of :func:`measure`'s containers and values from byte counts alone (fast); the
    other figures are not counted (0).

    Braces and commas inside strings count too, so the figures can only be too high.
    """
    containers = raw.count(b"{") + raw.count(b"[")
    return JsonShape(0, 0, containers, raw.count(b",") + containers + 1, 0)


def _real_quotes(part: np.ndarray, carried_backslashes: int) -> tuple[np.ndarray, int]:
    """Quotes that open or close a string in ``part``, and the backslash run at its end.

    A quote is escaped when the run of backslashes just before it has odd length; a run that
    starts the chunk continues the ``carried_backslashes`` of the chunk before.
    """
    quotes = np.flatnonzero(part == _QUOTE)
    backslashes = np.flatnonzero(part == _BACKSLASH)
    n = len(part)
    if not len(backslashes):
        if carried_backslashes % 2 == 1 and len(quotes) and quotes[0] == 0:
            quotes = quotes[1:]
        return quotes, 0
    run_start = np.ones(len(backslashes), dtype=bool)
    run_start[1:] = np.diff(backslashes) != 1
    first_of_run = np.maximum.accumulate(np.where(run_start, np.arange(len(backslashes)), 0))
    run_len = np.arange(len(backslashes)) - first_of_run + 1
    run_len = run_len + np.where(backslashes[first_of_run] == 0, carried_backslashes, 0)
    trailing = int(run_len[-1]) if backslashes[-1] == n - 1 else 0
    if not len(quotes):
        return quotes, trailing
    j = np.searchsorted(backslashes, quotes) - 1
    jj = np.maximum(j, 0)
    touching = (j >= 0) & (backslashes[jj] == quotes - 1)
    escaped = touching & (run_len[jj] % 2 == 1)
    if carried_backslashes % 2 == 1 and quotes[0] == 0:
        escaped[0] = True
    return quotes[~escaped], trailing


def _outside_strings(raw: bytes, chunk_bytes: int) -> Iterator[np.ndarray]:
    """The structural characters of ``raw`` that lie outside strings, one array per chunk, in order.

    A chunk with no backslash (nor one carried in) takes the fast way: ``bytes.translate`` keeps
    only quotes and structural characters, adjacent quote pairs are dropped (two quotes less before
    every later character leave each one's side of the strings as it was), and the few strings
    left, whose quotes now alternate open and close, are cut out as ranges. A chunk with escapes
    finds its real quotes first (:func:`_real_quotes`).
    """
    buf = np.frombuffer(raw, dtype=np.uint8)
    in_string = False
    backslashes = 0
    for start in range(0, len(buf), chunk_bytes):
        chunk = raw[start:start + chunk_bytes]
        if backslashes == 0 and _BACKSLASH_BYTE not in chunk:
            kept = chunk.translate(None, _NOT_KEPT)
            if in_string:  # the string still open from the chunk before pairs with this chunk's first quote
                kept = b'"' + kept
            part = np.frombuffer(kept.replace(b'""', b""), dtype=np.uint8)
            quotes = np.flatnonzero(part == _QUOTE)
            in_string = len(quotes) % 2 == 1
            if in_string:
                part, quotes = part[:quotes[-1]], quotes[:-1]
            if len(quotes):
                opens, closes = quotes[0::2], quotes[1::2]
                lengths = closes - opens + 1
                firsts = np.cumsum(lengths) - lengths
                inside = np.arange(int(lengths.sum())) + np.repeat(opens - firsts, lengths)
                keep = np.ones(len(part), dtype=bool)
                keep[inside] = False
                part = part[keep]
            yield part
            continue
        part = buf[start:start + chunk_bytes]
        quotes, backslashes = _real_quotes(part, backslashes)
        pos = np.flatnonzero(_STRUCTURAL[part])
        outside = (np.searchsorted(quotes, pos) + in_string) % 2 == 0
        in_string = bool((len(quotes) + in_string) % 2)
        yield part[pos[outside]]


def measure(raw: bytes, chunk_bytes: int = CHUNK_BYTES) -> JsonShape:
    """The shape of the JSON text ``raw``: largest object, depth, containers, values and members.

    Meant for text that will be parsed next: on malformed JSON the figures are only estimates,
    and the parser names the real problem.

    >>> measure(b'{"a": {"b:": 1, "c": [1, 2]}, "d\\\\"": "{,"}')
    JsonShape(largest_object=2, depth=3, containers=3, values=7, members=4)
    """
    depth = 0
    #: Members counted so far of each open container, outermost first (objects count colons).
    open_counts: list[int] = []
    largest = max_depth = containers = commas = colons = 0
    for chars in _outside_strings(raw, chunk_bytes):
        is_comma = chars == _COMMA
        commas += int(np.count_nonzero(is_comma))
        chars = chars[~is_comma]
        colons += int(np.count_nonzero(chars == _COLON))
        delta = _DELTA[chars]
        levels = depth + np.cumsum(delta, dtype=np.int64)
        if len(levels):
            max_depth = max(max_depth, int(levels.max()))
            if int(levels.min()) < 0:  # more closers than openers: not JSON; the parser will say so
                return JsonShape(largest, max_depth, containers, commas + containers + 1, colons)
        keep = delta >= 0
        opener = delta[keep] == 1
        lv = levels[keep]
        containers += int(np.count_nonzero(opener))
        # Each colon belongs to the latest opener at its own depth: sort openers and colons by depth
        # (stably, so each depth keeps text order) and carry the latest opener forward; a colon
        # with no opener of its depth earlier in this chunk belongs to a container opened before.
        order = np.argsort(lv, kind="stable")
        sorted_lv = lv[order]
        sorted_opener = opener[order]
        idx = np.arange(len(order))
        group_start = np.searchsorted(sorted_lv, sorted_lv, side="left")
        latest = np.maximum.accumulate(np.where(sorted_opener, idx, -1))
        colon = ~sorted_opener
        owner = latest[colon]
        colon_lv = sorted_lv[colon]
        mine = owner >= group_start[colon]
        local = np.bincount(owner[mine], minlength=len(order)) if len(order) else np.zeros(0, dtype=np.int64)
        if len(local):
            largest = max(largest, int(local.max()))
        carried = np.bincount(colon_lv[~mine], minlength=depth + 1) if np.any(~mine) else None
        if carried is not None:
            for d in np.flatnonzero(carried):
                if 1 <= d <= len(open_counts):
                    open_counts[d - 1] += int(carried[d])
                    largest = max(largest, open_counts[d - 1])
        # The open path at the chunk's end: per depth, the latest opener of that depth in the
        # chunk if there is one (it is necessarily still open), else the container carried in.
        end = int(levels[-1]) if len(levels) else depth
        del open_counts[end:]
        open_counts.extend([0] * (end - len(open_counts)))
        if np.any(sorted_opener):
            op_idx = idx[sorted_opener]
            op_lv = sorted_lv[sorted_opener]
            last_of_level = np.flatnonzero(np.append(op_lv[1:] != op_lv[:-1], True))
            for k in last_of_level:
                d = int(op_lv[k])
                if d <= end:
                    open_counts[d - 1] = int(local[op_idx[k]])
        depth = end
    return JsonShape(largest, max_depth, containers, commas + containers + 1, colons)


def parse_small_document(raw: bytes, source: str, what: str, error: Callable[[str], Exception], *,
                         max_members: int, max_depth: int) -> Any:
    """Parse a small JSON document (a workload, a sweep spec) that was read with a bound.

    Its shape is measured first (no object over ``max_members`` members, nothing deeper than
    ``max_depth``); UTF-8 with or without a byte-order mark; duplicate keys, ``NaN`` and
    ``Infinity`` refused. Every refusal is ``error(one line naming source)``; ``what`` names the
    kind of file ("a workload file").
    """
    if not raw or raw.isspace():
        raise error(f"{source}: file is empty")
    shape = measure(raw)
    if shape.largest_object > max_members:
        raise error(f"{source}: an object has {shape.largest_object:,} members; {what} allows at most {max_members}")
    if shape.depth > max_depth:
        raise error(f"{source}: nested {shape.depth} deep; {what} allows at most {max_depth}")

    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise error(f"{source}: not UTF-8 text (byte {e.start:,})") from None
    return parse_json(text, source, what, error)
