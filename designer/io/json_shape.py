"""The shape of a large JSON text, measured before it is parsed.

``json.loads`` builds every object completely before anyone can look at it, so a file of a few
hundred MiB holding one object with millions of keys costs several GiB before a member limit
could refuse it. :func:`largest_object` finds, with vectorised numpy passes over the bytes, how
many members the largest object has and how deep the nesting goes, holding a few bytes per
structural character instead of a Python object per key. Strings (with their escapes) are
masked first, so braces and colons inside names do not count.
"""

from __future__ import annotations

import numpy as np

_QUOTE, _BACKSLASH = 0x22, 0x5C
# Structural characters: openers +1, closers -1, the name separator ':' 0.
_DELTA = np.zeros(256, dtype=np.int8)
_DELTA[[ord("{"), ord("[")]] = 1
_DELTA[[ord("}"), ord("]")]] = -1
_STRUCTURAL = np.zeros(256, dtype=bool)
_STRUCTURAL[[ord(c) for c in "{}[]:"]] = True


def _real_quotes(buf: np.ndarray) -> np.ndarray:
    """Positions of the quotes that open or close a string (not those escaped by a backslash)."""
    quotes = np.flatnonzero(buf == _QUOTE)
    backslashes = np.flatnonzero(buf == _BACKSLASH)
    if not len(backslashes) or not len(quotes):
        return quotes
    # A quote is escaped when the run of backslashes just before it has odd length.
    run_start = np.ones(len(backslashes), dtype=bool)
    run_start[1:] = np.diff(backslashes) != 1
    first_of_run = np.maximum.accumulate(np.where(run_start, np.arange(len(backslashes)), 0))
    j = np.searchsorted(backslashes, quotes) - 1
    ok = j >= 0
    jj = np.where(ok, j, 0)
    touching = ok & (backslashes[jj] == quotes - 1)
    run_len = jj - first_of_run[jj] + 1
    escaped = touching & (run_len % 2 == 1)
    return quotes[~escaped]


def largest_object(raw: bytes) -> tuple[int, int]:
    """``(members, depth)``: the most members of any one JSON object and the deepest nesting.

    Meant for text that will be parsed next: on malformed JSON the figures are only estimates,
    and the parser names the real problem.

    >>> largest_object(b'{"a": {"b:": 1, "c": [1, 2]}, "d\\\\"": "{"}')
    (2, 3)
    """
    buf = np.frombuffer(raw, dtype=np.uint8)
    quotes = _real_quotes(buf)
    pos = np.flatnonzero(_STRUCTURAL[buf])
    # Outside a string, an even number of real quotes comes before the character.
    pos = pos[np.searchsorted(quotes, pos) % 2 == 0]
    del quotes
    if not len(pos):
        return 0, 0
    chars = buf[pos]
    delta = _DELTA[chars]
    depth = np.cumsum(delta, dtype=np.int64)
    max_depth = int(depth.max(initial=0))
    # Each colon belongs to the latest opener at its own depth: sort openers and colons by depth
    # (stably, so each depth keeps text order) and carry the latest opener forward.
    keep = delta >= 0
    is_opener = delta[keep] == 1
    depth_kept = depth[keep]
    del depth, delta, chars, pos
    order = np.argsort(depth_kept, kind="stable")
    opener_sorted = is_opener[order]
    idx = np.arange(len(order))
    latest_opener = np.maximum.accumulate(np.where(opener_sorted, idx, -1))
    owners = latest_opener[~opener_sorted]
    owners = owners[owners >= 0]
    members = int(np.bincount(owners).max()) if len(owners) else 0
    return members, max_depth
