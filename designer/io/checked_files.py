"""Large design files this program has checked before, known by a digest of their bytes.

Reading a large design file is mostly checking it: at 131,072 GPUs, measuring its shape, counting
its members and checking every field of every device and link take about 1.4 s of the 3.8-4.2 s the
reading takes on a quiet moment. A text whose every device and link table passed every check of the
whole-table path (:mod:`designer.io.design_bulk`) passes them again, byte for byte, with the same
code: such a file, opened again (the window reopening it, each command of a session run on it), is
parsed and its tables are built without the checks (``build_design(..., check=False)``), which
builds exactly what the checked reading built from the same parsed values.

What is kept: one line per file in ``$XDG_CACHE_HOME/topo-designer/checked-files`` (by default
``~/.cache/topo-designer/checked-files``), the SHA-256 of the program's reading code, of the
versions of Python and msgspec, and of the file's bytes; the newest last, at most
:data:`MAX_ENTRIES`. Any change to the reading code (every module of ``designer.io`` and
``designer.model``), an edit of one byte of the file, or another machine means no match, and the
file is checked as always. Nothing is kept for a file a check refused, or one any of whose tables was
read record by record. A record that cannot be read or written is no error: files are then checked
every time, as they were before.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import threading
from pathlib import Path

from designer.io.atomic import FileWriteError, atomic_write_text

#: Files kept in the record (the oldest dropped first): a session's large designs and their variants.
MAX_ENTRIES = 256
#: The record is read up to this size; a longer one is not this program's and is left unread.
_MAX_RECORD_BYTES = 64 * 1024
_HEX = frozenset("0123456789abcdef")
_LOCK = threading.Lock()


def record_path() -> Path:
    """Where the digests of checked files are kept (``$XDG_CACHE_HOME/topo-designer/checked-files``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "topo-designer" / "checked-files"


@functools.cache
def _fingerprint() -> bytes | None:
    """A digest of the code that reads and checks design files (every module of ``designer.io`` and
    ``designer.model``) and of the Python and msgspec that run it; None if a module cannot be read."""
    import msgspec

    package = Path(__file__).resolve().parents[1]
    h = hashlib.sha256(f"{sys.version_info[:2]} msgspec {msgspec.__version__}".encode())
    try:
        for folder in ("io", "model"):
            for module in sorted((package / folder).glob("*.py")):
                h.update(module.name.encode() + b"\0" + module.read_bytes() + b"\0")
    except OSError:
        return None
    return h.digest()


def key_of(raw: bytes) -> str | None:
    """The key of a file's bytes ``raw`` under this program's reading code (None: no key can be made)."""
    code = _fingerprint()
    if code is None:
        return None
    return hashlib.sha256(code + hashlib.sha256(raw).digest()).hexdigest()


def _read() -> list[str]:
    try:
        with open(record_path(), "rb") as f:
            text = f.read(_MAX_RECORD_BYTES + 1)
    except OSError:
        return []
    if len(text) > _MAX_RECORD_BYTES:
        return []
    lines = text.decode("ascii", "replace").split("\n")
    return [line for line in lines if len(line) == 64 and _HEX.issuperset(line)]


def checked_before(key: str) -> bool:
    """Whether the file of ``key`` (:func:`key_of`) passed every whole-table check before."""
    with _LOCK:
        return key in _read()


def remember(key: str) -> None:
    """Keep ``key``: its file's every table passed every whole-table check. Failing silently where
    the record cannot be written (a read-only home, a full disk): the file is then checked again."""
    with _LOCK:
        keys = [k for k in _read() if k != key]
        keys.append(key)
        try:
            path = record_path()
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, "".join(k + "\n" for k in keys[-MAX_ENTRIES:]))
        except (OSError, FileWriteError):
            pass
