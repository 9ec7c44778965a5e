"""The user's catalog files: ``~/.config/topo-designer/catalog.json`` and the ``--catalog`` files.

:func:`load_catalog` reads them (bounded, as every input is: :func:`designer.io.reading.read_input`)
and merges them, in order, over a copy of the built-in catalog
(:func:`designer.model.catalog.builtin_catalog`). The front ends call it once, when a command or
the window first needs a catalog, and pass the result to everything that reads one. No Qt.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from designer.io.reading import read_input
from designer.model.catalog import MAX_CATALOG_BYTES, Catalog, CatalogError, builtin_catalog, parse_catalog


def user_catalog_path() -> Path:
    """The user catalog, merged into every catalog when it exists: ``$XDG_CONFIG_HOME/topo-designer/catalog.json``
    (``~/.config`` when the variable is unset)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "topo-designer" / "catalog.json"


def read_catalog_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The parsed document of one catalog file, its envelope checked (entries are checked when merged)."""
    raw, source = read_input(Path(path), MAX_CATALOG_BYTES, "a catalog file", CatalogError)
    return parse_catalog(raw, source)


def load_catalog(extra: Iterable[str | os.PathLike[str]] = (), *, include_user: bool = True) -> Catalog:
    """The built-in catalog, then the user catalog (if present), then the ``extra`` files, merged.

    A file that cannot be read or holds an invalid entry raises :class:`CatalogError` naming it.
    """
    paths = [Path(p) for p in extra]
    if include_user and user_catalog_path().exists():
        paths.insert(0, user_catalog_path())
    cat = builtin_catalog()
    if not paths:
        return cat
    cat = cat.copy()
    for p in paths:
        cat.merge(read_catalog_file(p), str(p))
    return cat
