"""Numbers as the JSON documents hold them: finite, or ``null`` where there is none."""

from __future__ import annotations

import math


def finite_or_none(x: float | None) -> float | None:
    """``x`` as a float, or ``None`` when it is absent, infinite or NaN (JSON has neither).

    >>> finite_or_none(2), finite_or_none(float("inf")), finite_or_none(float("nan")), finite_or_none(None)
    (2.0, None, None, None)
    """
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


__all__ = ["finite_or_none"]
