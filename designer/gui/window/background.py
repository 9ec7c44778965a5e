"""Long work of the window in a worker thread, while the window keeps painting a progress dialog.

The work needs no Qt (reading a file, an analysis, writing reports); the window waits for it in a
loop that lets Qt paint and take input every :data:`POLL_S` seconds, so the dialog shows progress and
its Cancel button answers, and the caller gets the result (or the work's exception) as if it had
called the work itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import QEventLoop, Qt
from PySide6.QtWidgets import QApplication, QProgressDialog, QWidget

from designer.gui.document.document import Document
from designer.io import load_designs
from designer.model import Design, units

T = TypeVar("T")

#: How often the waiting window paints and reads input (seconds).
POLL_S = 0.02
_ALL = QEventLoop.ProcessEventsFlag.AllEvents
_NO_INPUT = QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents


class Cancelled(Exception):
    """The user cancelled the progress dialog before the work finished."""


def run_in_worker(progress: QProgressDialog, work: Callable[[], T], poll: Callable[[], None] | None = None, *,
                  cancellable: bool = False) -> T:
    """Run ``work`` in a worker thread and return its result (or raise its exception) here.

    ``poll`` updates the dialog from what the work reports, every :data:`POLL_S`. Until the
    (window-modal) dialog shows, which it does after its minimum duration, the window paints but
    takes no clicks or keys, so nothing can edit, open or close behind the work. ``cancellable``:
    the dialog has a Cancel button, and pressing it raises :class:`Cancelled` at once; the work,
    which cannot be stopped midway, finishes in its thread and its result is dropped.
    """
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="window-work")
    try:
        future = pool.submit(work)
        while not future.done():
            if poll is not None:
                poll()
            QApplication.processEvents(_ALL if progress.isVisible() else _NO_INPUT)
            if cancellable and progress.wasCanceled():
                raise Cancelled
            time.sleep(POLL_S)
        return future.result()
    finally:
        pool.shutdown(wait=False)


#: Design files from this size are read in a worker thread behind a progress dialog (the 16k-GPU
#: sample, 13.2 MB, reads in about half a second; 131,072 GPUs, 109 MB, take about six).
BACKGROUND_READ_BYTES = 16 << 20
#: The dialog shows only when the reading is still going after this long (milliseconds): a
#: quicker read does not flash a dialog.
SHOW_AFTER_MS = 1000


def open_design(parent: QWidget, document: Document, path: str | Path) -> None:
    """:meth:`Document.open <designer.gui.document.document.Document.open>` of ``path``, a large file
    read in a worker thread while ``parent`` shows a progress dialog with its size and a Cancel button
    (:class:`Cancelled`, nothing changed); a small one read at once.

    Once read, the dialog says the canvas is being drawn (that part runs on the window's thread, a
    second or two at 131,072 GPUs) and stays up, with a busy cursor, until the design is shown.
    """
    dialogs: list[QProgressDialog] = []
    busy: list[bool] = []  # the drawing started under a busy cursor

    def read(p: Path) -> list[Design]:
        try:
            n_bytes = p.stat().st_size
        except OSError:
            n_bytes = 0  # the reader names the problem
        if n_bytes < BACKGROUND_READ_BYTES:
            return load_designs(p)
        dialog = QProgressDialog(f"Reading {p.name} ({units.size(n_bytes)})\u2026", "Cancel", 0, 0, parent)
        dialogs.append(dialog)
        dialog.setWindowTitle("Open design")
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(SHOW_AFTER_MS)
        dialog.setValue(0)
        designs = run_in_worker(dialog, lambda: load_designs(p), cancellable=True)
        if dialog.isVisible():  # a quick read showed no dialog, and shows none now
            dialog.setCancelButton(None)  # the canvas cannot be stopped halfway
            dialog.setLabelText(f"Drawing {p.name}\u2026")
            QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
            busy.append(True)
            QApplication.processEvents(_NO_INPUT)  # the new words painted before the window is busy
        return designs

    try:
        document.open(path, read)
    finally:
        if busy:
            QApplication.restoreOverrideCursor()
        for dialog in dialogs:
            _drop(dialog)


def save_document(parent: QWidget, document: Document, path: str | Path | None = None) -> Path:
    """:meth:`Document.save <designer.gui.document.document.Document.save>`, a large design
    (:meth:`~designer.gui.document.document.Document.large_to_write`) written in a worker thread
    while ``parent`` shows a progress dialog (window-modal, with no Cancel: the file is written whole
    or not at all) and paints; a small one written at once."""
    def write(p: Path) -> None:
        d = document.design
        if not document.large_to_write():
            document.save_copy(p)
            return
        dialog = QProgressDialog(f"Saving {p.name}: {units.count(d.device_count(), 'device')}\u2026", "", 0, 0,
                                 parent)
        dialog.setCancelButton(None)
        dialog.setWindowTitle("Save design")
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(SHOW_AFTER_MS)
        dialog.setValue(0)
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            run_in_worker(dialog, lambda: document.save_copy(p))
        finally:
            QApplication.restoreOverrideCursor()
            _drop(dialog)

    return document.save(path, write)


def _drop(dialog: QProgressDialog) -> None:
    dialog.close()
    dialog.deleteLater()
