"""Autosave and crash recovery.

While a design has unsaved changes, it is written every minute (atomically, with
``designer.io.save_design``) to ``<AppDataLocation>/recovery/recovery-<pid>.json`` next to a small
``.meta.json`` naming the file it came from. Saving, or closing without saving, deletes both.
A large design is written by a worker thread from a copy read between event-loop turns (the
feed's snapshot): writing the 131,072-GPU fabric takes 4.5 s, which the window would otherwise
stop for every minute.
At start-up, a recovery file whose process is gone is the trace of a crash: the window offers
to restore it.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QRunnable, QStandardPaths, QTimer, Signal

from designer.gui.document.document import Document
from designer.io import SaveStopped, save_design
from designer.model import DesignError
from designer.model.bulk import built_to_keep, release_gradually
from designer.model.snapshot import DesignSnapshot

if TYPE_CHECKING:
    from designer.gui.document.feed import DesignFeed

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

    def __init__(self, document: Document, directory: Path | None = None, interval_ms: int = AUTOSAVE_MS,
                 feed: DesignFeed | None = None) -> None:
        super().__init__(document)
        self.document = document
        self.feed = feed
        self.directory = directory or default_recovery_dir()
        self.token = f"{os.getpid()}-{id(self):x}"
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._on_timer_timeout)
        self.timer.start()
        self.last_error = ""
        self._changed_since_autosave = True
        self._edits = 0  # changes heard so far: a background write is current if none came since
        self._writing: threading.Event | None = None  # the background write under way (set: dropped)
        self._started = False  # that write has its snapshot (else it waits for the feed's reading)
        self._asked_rev = -1  # the feed's revision it asked to read
        self._signals = _Signals()
        self._signals.finished.connect(self._on_write_finished)
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
        """Write the recovery file now, on this thread, if there are unsaved changes not yet in it;
        return whether it wrote (the timer writes a large design with :meth:`autosave_in_background`).

        An idle window with unsaved changes does not rewrite the same design every minute.
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

    @property
    def part_path(self) -> Path:
        """Where a worker writes the design before it replaces the recovery file (on the UI thread)."""
        return self.directory / f"recovery-{self.token}.json.part"

    def writing(self) -> bool:
        """A background write is under way (:meth:`autosave_in_background`)."""
        return self._writing is not None

    def autosave_in_background(self) -> bool:
        """Like :meth:`autosave`, but the design is read in slices between event-loop turns (the
        feed's snapshot) and written by a worker thread; return whether a write was started.

        The worker writes a part file; back on the UI thread it becomes the recovery file, with its
        meta file, unless :meth:`discard` came meanwhile. An edit meanwhile leaves the next timeout
        to write again.
        """
        if self.feed is None or self._writing is not None:
            return False
        if not self.document.is_modified() or not self._changed_since_autosave:
            return False
        stop = self._writing = threading.Event()
        self._started = False
        self._asked_rev = self.feed.revision
        edits = self._edits
        shown = self.document.design

        def write(_revision: int, snapshot: DesignSnapshot) -> None:
            doc = self.document
            if stop is not self._writing:
                return
            if stop.is_set() or doc.design is not shown:
                self._writing = None
                return
            self._started = True
            # The variants not shown are not being edited: each is read at once.
            parts = [snapshot if d is shown else DesignSnapshot.capture(d) for d in doc.variants]
            views = [frozenset(doc.view_only_collapsed(d)) for d in doc.variants]
            job = _Write(parts, views, self.part_path, stop, edits, str(doc.path or ""), self._signals)
            self.feed.pool.start(job)  # type: ignore[union-attr]

        self.feed.snapshot_later(write)
        return True

    def _on_timer_timeout(self) -> None:
        if self._writing is not None:
            assert self.feed is not None
            if self._started or (self.feed.revision == self._asked_rev and self.feed.capturing()):
                return  # the last write is still under way
            self._writing = None  # an edit dropped the reading it waited for: ask again
        if self.feed is not None and self.document.large_to_write():
            self.autosave_in_background()
        else:
            self.autosave()

    def _on_write_finished(self, stop: threading.Event, edits: int, original: str, error: str) -> None:
        if self._writing is stop:
            self._writing = None
        if stop.is_set() or error:
            self.last_error = error or self.last_error
            with contextlib.suppress(OSError):
                self.part_path.unlink()
            return
        try:
            os.replace(self.part_path, self.design_path)
            meta = {"original": original, "saved_at": time.time(), "pid": os.getpid()}
            self.meta_path.write_text(json.dumps(meta), encoding="utf-8")
        except OSError as e:
            self.last_error = str(e)
            return
        if edits == self._edits:
            self._changed_since_autosave = False

    def discard(self) -> None:
        """Delete this document's recovery files (after a save, or a close without saving); a
        background write under way is dropped."""
        if self._writing is not None:
            self._writing.set()
        self._changed_since_autosave = True
        for p in (self.design_path, self.meta_path, self.part_path):
            with contextlib.suppress(OSError):
                p.unlink()

    def _on_document_modified_changed(self, modified: bool) -> None:
        if not modified:
            self.discard()

    def _on_undo_stack_index_changed(self, *_args: object) -> None:
        self._changed_since_autosave = True
        self._edits += 1

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


class _Signals(QObject):
    finished = Signal(object, int, str, str)  # the write's stop event, the edits it saw, the original, an error


class _Write(QRunnable):
    """Builds the design and its variants from snapshots and writes them to the part file (a worker)."""

    def __init__(self, parts: list[DesignSnapshot], views: list[frozenset[str]], part_path: Path,
                 stop: threading.Event, edits: int, original: str, signals: _Signals) -> None:
        super().__init__()
        self.parts, self.views, self.part_path = parts, views, part_path
        self.stop, self.edits, self.original, self.signals = stop, edits, original, signals

    def run(self) -> None:
        error = ""
        try:
            # Without the collector, which would otherwise scan the copy's millions of new objects
            # once it restarts, holding the interpreter lock (and the window) for most of a second.
            with built_to_keep():
                if not self.stop.is_set():
                    designs = [part.build() for part in self.parts]
                    if not self.stop.is_set():
                        self.part_path.parent.mkdir(parents=True, exist_ok=True)
                        # A save or a close drops the write (discard): it stops within a few
                        # thousand records instead of making the whole text (5 s at 131,072 GPUs).
                        with contextlib.suppress(SaveStopped):
                            save_design(designs[0], self.part_path, designs[1:], self.views, stop=self.stop.is_set)
                    for design in designs:  # emptied a slice at a time: one cascade would hold the window
                        release_gradually(design)
                    del designs
        except (OSError, DesignError) as e:
            error = str(e) or type(e).__name__
        finally:
            self.signals.finished.emit(self.stop, self.edits, self.original, error)
