"""Where the files shipped with the program live: ``resources/``, ``sample_designs/`` and ``docs/``.

In the source tree (and an editable install) they are the repository's top-level folders. A wheel
carries them as package data, ``designer/resources``, ``designer/sample_designs`` and
``designer/docs`` (mapped in pyproject.toml), found here with importlib.resources. No Qt.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

#: The repository root when running from the source tree (or an editable install).
_SOURCE_ROOT = Path(__file__).resolve().parents[2]


def _shipped(name: str) -> Path:
    """``designer/<name>`` in an installed package, else ``<name>/`` at the repository root."""
    packaged = resources.files("designer") / name
    # Installed wheels are unpacked on disk, so the package data is a real folder.
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged
    return _SOURCE_ROOT / name


def resources_dir() -> Path:
    """The folder holding ``catalog/*.json``, ``schema/*.json`` and ``icons/*.svg``.

    The environment variable ``TOPO_DESIGNER_RESOURCES`` replaces it.
    """
    env = os.environ.get("TOPO_DESIGNER_RESOURCES")
    if env:
        return Path(env)
    return _shipped("resources")


def sample_designs_dir() -> Path:
    """The folder holding the reference sample designs (``*.json``)."""
    return _shipped("sample_designs")


def docs_dir() -> Path:
    """The folder holding the documentation (``*.md`` and the pictures they show), which the
    window's Help menu displays."""
    return _shipped("docs")
