"""The design-file properties other commands read, each with the rule it must meet.

Free-form ``properties`` hold any JSON, except these keys: the analysis, ``bom``, ``scale`` and
``advise`` read them, so a file is checked against them when it is read (both the table-at-a-time
path, :mod:`designer.io.design_bulk`, and the record-by-record one,
:mod:`designer.io.design_records`), and ``validate`` refuses, in the same line as every other
command, what a later command could not use. A whole number written ``2.0`` is stored as 2.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from designer.model.entities import MAX_POWER_W, MAX_PRICE_USD
from designer.model.fields import FieldError, as_int, as_list, as_number

Rule = Callable[[Any, str], Any]


def _whole(lo: int, hi: int) -> Rule:
    return lambda v, path: as_int(v, path, lo, hi)


def _amount(maximum: float) -> Rule:
    return lambda v, path: as_number(v, path, minimum=0.0, maximum=maximum)


#: A GPU's position in a grid (``coords``, read by the bisection bounds): at most this many
#: dimensions, each index below MAX_COORD_INDEX.
MAX_GRID_DIMS = 16
MAX_COORD_INDEX = 1_000_000


def _grid_coords(v: Any, path: str) -> list[int]:
    items = as_list(v, path)
    if len(items) > MAX_GRID_DIMS:
        raise FieldError(path, f"at most {MAX_GRID_DIMS} dimensions, not {len(items):,}")
    return [as_int(x, f"{path}[{i}]", 0, MAX_COORD_INDEX) for i, x in enumerate(items)]


#: Properties other commands read, each with the rule it must meet. A file is checked against them
#: when it is read, so ``validate`` refuses what ``analyze``, ``bom``, ``scale``... could not use
#: (whole numbers written ``2.0`` are stored as 2). Other properties are free-form.
DEVICE_PROPERTY_RULES: dict[str, Rule] = {
    "rail": _whole(-1, 1_000_000), "su": _whole(-1, 1_000_000),
    "power_w": _amount(MAX_POWER_W), "price_usd": _amount(MAX_PRICE_USD),
    "coords": _grid_coords,
}
#: The size parameters a generated design records (``scale`` and ``advise`` rebuild it from them).
DESIGN_PROPERTY_RULES: dict[str, Rule] = {
    key: _whole(1, 10_000_000) for key in ("sus", "nodes", "nodes_per_su", "leaves", "hosts_per_leaf", "pods",
                                           "leaves_per_pod", "racks", "gpus_per_node", "gpus")
}


def check_properties(props: dict[str, Any], rules: dict[str, Rule], path: str) -> None:
    """Check (and normalise in place) the properties ``rules`` name; FieldError names the first bad one."""
    if props.keys().isdisjoint(rules):
        return
    for key, rule in rules.items():
        if key in props:
            props[key] = rule(props[key], f"{path}.{key}")
