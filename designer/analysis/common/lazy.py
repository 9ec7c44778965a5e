"""Packages whose public names are imported from their modules on first use (PEP 562).

A package that re-exports names of heavy modules (scipy behind them) imports those modules only
when a name is asked for, so importing one light module of the package, or the package for a type
or a constant, costs nothing more: the window starts without scipy, ``topo-designer bom`` runs
without it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_names(package: str, where: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose public names ``where`` maps to the
    modules that define them; a name is imported when first asked for, then kept in the package."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *where})

    return __getattr__, __dir__
