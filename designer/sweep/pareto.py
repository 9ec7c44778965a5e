"""The Pareto front of a sweep: the points no other point beats on both cost and time."""

from __future__ import annotations

import math
from collections.abc import Sequence


def pareto_front(points: Sequence[tuple[float, float]]) -> list[bool]:
    """For each (x, y) to minimise, whether no other point is at most as large in both and smaller in one.

    Points with a coordinate that is not a finite number are never on the front. Equal points are
    on the front together.

    >>> pareto_front([(1, 5), (2, 3), (3, 4), (4, 1), (2, 3), (float("nan"), 0)])
    [True, True, False, True, True, False]
    """
    ok = [i for i, (x, y) in enumerate(points) if math.isfinite(x) and math.isfinite(y)]
    ok.sort(key=lambda i: (points[i][0], points[i][1]))
    front = [False] * len(points)
    best_y = math.inf
    j = 0
    while j < len(ok):
        # every point with the same x: only those with the least y there can be on the front
        k = j
        x = points[ok[j]][0]
        while k < len(ok) and points[ok[k]][0] == x:
            k += 1
        y_min = points[ok[j]][1]
        if y_min < best_y:
            for i in ok[j:k]:
                if points[i][1] == y_min:
                    front[i] = True
            best_y = y_min
        j = k
    return front
