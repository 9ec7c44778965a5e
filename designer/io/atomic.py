"""Atomic file writes: a crash or a full disk never leaves half a file behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from designer.model.errors import DesignError


class FileWriteError(DesignError):
    """A file could not be written; the previous file, if any, is untouched."""


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, fsync it, then rename it over ``path``.

    When ``path`` is a symbolic link the file it points to is replaced (atomically, beside it) and
    the link stays a link, as editors do.
    """
    atomic_write_chunks(path, (data,))


def atomic_write_chunks(path: str | os.PathLike[str], chunks: Iterable[bytes]) -> None:
    """:func:`atomic_write_bytes` of the bytes ``chunks`` yields, written as they come: a large file is
    never held whole, and a writer thread never holds the interpreter lock for one long copy. When
    ``chunks`` raises, the temporary file is removed, ``path`` is untouched and the error propagates."""
    target = Path(path)
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise FileWriteError(f"{target}: folder {directory} does not exist")
    if target.is_dir():
        raise FileWriteError(f"{target}: is a folder")
    mode = None
    if target.exists():
        with contextlib.suppress(OSError):
            mode = target.stat().st_mode & 0o777
    fd, tmp = None, None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "wb") as fh:
            fd = None
            for chunk in chunks:
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
        tmp = None
    except OSError as e:
        raise FileWriteError(f"{target}: cannot write: {e.strerror or e}") from None
    finally:
        if fd is not None:
            os.close(fd)
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    with contextlib.suppress(OSError):
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def atomic_write_text(path: str | os.PathLike[str], text: str | Iterable[str]) -> None:
    """Write UTF-8 ``text``, or the texts it yields one after another, atomically (see
    :func:`atomic_write_chunks`)."""
    if isinstance(text, str):
        atomic_write_bytes(path, text.encode("utf-8"))
    else:
        atomic_write_chunks(path, (part.encode("utf-8") for part in text))
