"""Autosave and crash recovery.

While a design has unsaved changes, it is written every minute (atomically, with
``designer.io.save_design``) to ``<AppDataLocation>/recovery/recovery-<pid>.json`` next to a small
``.meta.json`` naming the file it came from. Saving, or closing without saving, deletes both.
At start-up, a recovery file whose process is gone is the trace of a crash: the window offers
to restore it.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, QTimer

from designer.gui.document.document import Document
from designer.model import DesignError

AUTOSAVE_MS = 60_000


def default_recovery_dir() -> Path:
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base or Path.home() / ".topo-designer") / "recovery"


@dataclass(frozen=True)
class Orphan:
    """A recovery file left by a process that ended without cleaning up."""

    design_path: Path
    meta_path: Path
    original: str
    saved_at: float


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


class Recovery(QObject):
    """Autosaves one document to its recovery file while it has unsaved changes."""

    def __init__(self, document: Document, directory: Path | None = None, interval_ms: int = AUTOSAVE_MS) -> None:
        super().__init__(document)
        self.document = document
        self.directory = directory or default_recovery_dir()
        self.token = f"{os.getpid()}-{id(self):x}"
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.autosave)
        self.timer.start()
        self.last_error = ""
        self._changed_since_autosave = True
        document.modified_changed.connect(self._on_document_modified_changed)
        document.undo_group.indexChanged.connect(self._on_undo_stack_index_changed)
        document.variants_changed.connect(self._on_undo_stack_index_changed)
        document.design_replaced.connect(self._on_undo_stack_index_changed)

    @property
    def design_path(self) -> Path:
        return self.directory / f"recovery-{self.token}.json"

    @property
    def meta_path(self) -> Path:
        return self.directory / f"recovery-{self.token}.meta.json"

    def autosave(self) -> bool:
        """Write the recovery file if there are unsaved changes not yet in it; return whether it wrote.

        An idle window with unsaved changes does not rewrite the same design every minute (a
        16k-GPU design takes seconds to write, on the UI thread).
        """
        if not self.document.is_modified() or not self._changed_since_autosave:
            return False
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            self.document.save_copy(self.design_path)
            meta = {"original": str(self.document.path or ""), "saved_at": time.time(), "pid": os.getpid()}
            self.meta_path.write_text(json.dumps(meta), encoding="utf-8")
        except (OSError, DesignError) as e:
            self.last_error = str(e)
            return False
        self._changed_since_autosave = False
        return True

    def discard(self) -> None:
        """Delete this document's recovery files (after a save, or a close without saving)."""
        self._changed_since_autosave = True
        for p in (self.design_path, self.meta_path):
            with contextlib.suppress(OSError):
                p.unlink()

    def _on_document_modified_changed(self, modified: bool) -> None:
        if not modified:
            self.discard()

    def _on_undo_stack_index_changed(self, *_args: object) -> None:
        self._changed_since_autosave = True

    @staticmethod
    def orphans(directory: Path | None = None) -> list[Orphan]:
        """Recovery files of processes that are no longer running, newest first."""
        directory = directory or default_recovery_dir()
        out = []
        if not directory.is_dir():
            return out
        for meta_path in directory.glob("recovery-*.meta.json"):
            try:
                meta = json.loads(meta_path.read_text(encoding="utf-8"))
                pid = int(meta.get("pid", 0))
            except (OSError, ValueError, TypeError, AttributeError):
                continue
            design_path = meta_path.with_name(meta_path.name.replace(".meta.json", ".json"))
            if _alive(pid) or not design_path.is_file():
                continue
            out.append(Orphan(design_path, meta_path, str(meta.get("original", "")), float(meta.get("saved_at", 0))))
        return sorted(out, key=lambda o: -o.saved_at)

    @staticmethod
    def remove(orphan: Orphan) -> None:
        for p in (orphan.design_path, orphan.meta_path):
            with contextlib.suppress(OSError):
                p.unlink()
