"""Data safety: save-changes questions, failing saves, drops of other files, recovery files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from gui_helpers import send_drop
from PySide6.QtCore import QMimeData, QPoint, QPointF, QUrl
from PySide6.QtWidgets import QFileDialog, QMessageBox

from designer.gui.document.recovery import Recovery
from designer.io import design_to_text, load_design

SB = QMessageBox.StandardButton
SAMPLE = Path(__file__).resolve().parents[2] / "sample_designs" / "hgx-h100-server.json"


SAMPLES = Path(__file__).resolve().parents[2] / "sample_designs"

def _edit(window) -> str:
    window.editor.place_component("qm9700", QPointF(0, 0))
    return design_to_text(window.document.design)


def _save_dialog(monkeypatch, answer: str) -> None:
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (answer, ""))


def _unwritable(tmp_path: Path) -> Path:
    """A path whose folder cannot be created (its parent is a file): works as root too."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    return blocker / "design.json"


def _orphan(window, dead_pid: int) -> Recovery:
    """Make the window's recovery file look like the trace of a crashed process."""
    rec = window.recovery
    assert rec.autosave()
    meta = json.loads(rec.meta_path.read_text())
    meta["pid"] = dead_pid
    rec.meta_path.write_text(json.dumps(meta))
    rec.timer.stop()
    return rec


@pytest.fixture(scope="module")
def dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


@pytest.mark.parametrize("action", ["close", "new", "open"])
def test_cancel_keeps_everything(window, dialogs, action):
    before = _edit(window)
    dialogs.answer = SB.Cancel
    if action == "close":
        assert not window.close()
    elif action == "new":
        window.new_design()
    else:
        assert not window.open_path(str(SAMPLE))
    assert dialogs.kinds() == ["question"]
    assert window.isVisible() and window.isWindowModified()
    assert design_to_text(window.document.design) == before and window.document.undo_stack.count() == 1


def test_save_answer_saves_then_opens(window, dialogs, monkeypatch, tmp_path):
    before = _edit(window)
    target = tmp_path / "mine.json"
    _save_dialog(monkeypatch, str(target))
    dialogs.answer = SB.Save
    assert window.open_path(str(SAMPLE))
    # saved as it was, named after its file (an untitled design takes the name it is saved under)
    assert design_to_text(load_design(target)) == before.replace('"name": "Untitled"', '"name": "mine"')
    assert window.document.path == SAMPLE.resolve() and not window.isWindowModified()


def test_a_failing_save_keeps_the_window_open_and_modified(window, dialogs, monkeypatch, tmp_path):
    before = _edit(window)
    _save_dialog(monkeypatch, str(_unwritable(tmp_path)))
    dialogs.answer = SB.Save
    assert not window.close()
    assert window.isVisible() and window.isWindowModified()
    assert dialogs.kinds() == ["question", "critical"] and "a-file" in dialogs.shown[-1][1]
    assert design_to_text(window.document.design) == before and window.document.path is None
    _save_dialog(monkeypatch, "")  # Save As cancelled: still open
    assert not window.close() and window.isVisible()


def test_save_as_to_an_unwritable_folder_keeps_file_and_marker(window, dialogs, monkeypatch, tmp_path):
    _edit(window)
    good = tmp_path / "good.json"
    assert window._save_to(good)
    window.editor.place_component("qm9700", QPointF(200, 0))
    _save_dialog(monkeypatch, str(_unwritable(tmp_path)))
    assert not window.save_as()
    assert dialogs.kinds() == ["critical"]
    assert window.isWindowModified() and window.document.path == good.resolve()
    assert load_design(good).device_count() == 1


def test_save_as_without_a_suffix_writes_a_json_file(window, monkeypatch, tmp_path):
    _edit(window)
    _save_dialog(monkeypatch, str(tmp_path / "fabric"))
    assert window.save_as()
    assert window.document.path == (tmp_path / "fabric.json").resolve()
    assert load_design(tmp_path / "fabric.json").device_count() == 1


@pytest.mark.parametrize("name", ["picture.png", "notes.txt"])
def test_dropping_a_file_that_is_no_design_says_so(window, dialogs, qtbot, tmp_path, name):
    before = _edit(window)
    path = tmp_path / name
    path.write_bytes(b"\x89PNG not a design")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    assert send_drop(window.view.viewport(), mime, QPoint(50, 50))
    qtbot.waitUntil(lambda: bool(dialogs.shown))
    kind, text = dialogs.shown[-1]
    assert kind == "critical" and name in text and "not a design file" in text  # warning boxes are logged as critical
    assert design_to_text(window.document.design) == before and window.isWindowModified()


def test_dropping_a_broken_design_file_shows_the_problem_and_keeps_the_design(window, dialogs, qtbot, tmp_path):
    before = _edit(window)
    bad = tmp_path / "broken.json"
    bad.write_text('{"format": "topo-designer-design", "version": 1, "devices": [')
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(bad))])
    dialogs.answer = SB.Discard
    assert send_drop(window.view.viewport(), mime, QPoint(50, 50))
    qtbot.waitUntil(lambda: "critical" in dialogs.kinds())
    assert "broken.json" in dialogs.shown[-1][1]
    assert design_to_text(window.document.design) == before and window.document.undo_stack.count() == 1


def test_autosave_never_touches_the_users_file(window, tmp_path):
    _edit(window)
    mine = tmp_path / "mine.json"
    assert window._save_to(mine)
    saved = mine.read_bytes()
    window.editor.place_component("qm9700", QPointF(300, 0))
    assert window.recovery.autosave()
    assert mine.read_bytes() == saved
    assert window.recovery.design_path.parent == tmp_path / "recovery"
    window.document.undo_stack.undo()  # back to the saved state: nothing to recover
    assert not window.recovery.design_path.exists()


def test_closing_without_saving_removes_the_recovery_file(window, dialogs):
    _edit(window)
    assert window.recovery.autosave()
    path = window.recovery.design_path
    dialogs.answer = SB.Discard
    assert window.close()
    assert not path.exists() and not window.recovery.meta_path.exists()


def test_a_restored_design_is_on_disk_again_at_once(window, make_window, dialogs, dead_pid):
    before = _edit(window)
    _orphan(window, dead_pid)
    other = make_window()
    dialogs.answer = SB.Yes
    assert other.offer_recovery()
    # A second crash right now must not lose the restored work.
    assert other.recovery.design_path.is_file()
    assert design_to_text(load_design(other.recovery.design_path)) == before


def test_a_restored_design_is_one_undo_step_over_its_file_as_on_disk(window, make_window, dialogs, dead_pid,
                                                                      tmp_path):
    """Undo of a restore shows the file as saved and clears the mark truthfully; redo brings the work back."""
    mine = tmp_path / "mine.json"
    window.document.save(mine)
    on_disk = design_to_text(window.document.design)
    edited = _edit(window)
    _orphan(window, dead_pid)
    other = make_window()
    dialogs.answer = SB.Yes
    assert other.offer_recovery()
    doc = other.document
    assert design_to_text(doc.design) == edited and doc.path == mine.resolve() and doc.is_modified()
    assert other.actions_by_name["undo"].text() == "&Undo Restore unsaved changes"
    other.actions_by_name["undo"].trigger()
    assert design_to_text(doc.design) == on_disk and not doc.is_modified() and not other.isWindowModified()
    other.actions_by_name["redo"].trigger()
    assert design_to_text(doc.design) == edited and doc.is_modified()


def test_every_crashed_design_is_offered(make_window, dialogs, dead_pid):
    first, second = make_window(), make_window()
    first.editor.place_component("qm9700", QPointF(0, 0))
    second.editor.place_component("h100-sxm", QPointF(0, 0))
    _orphan(first, dead_pid)
    _orphan(second, dead_pid)
    host = make_window()
    before = set(_open_windows())
    dialogs.answer = SB.Yes
    assert host.offer_recovery()
    assert dialogs.kinds() == ["question", "question"]
    extra = [w for w in _open_windows() if w not in before]
    assert len(extra) == 1
    models = {dev.model for w in (host, extra[0]) for dev in w.document.design.devices}
    assert models == {"qm9700", "h100-sxm"}
    assert Recovery.orphans(host.recovery.directory) == []
    for w in extra:
        w.document.undo_stack.setClean()
        w.close()


def _open_windows() -> list:
    from designer.gui.window.main_window import _WINDOWS

    return list(_WINDOWS)


def test_closing_right_after_an_edit_raises_nothing_later(window, dialogs, qtbot):
    from designer.gui.document.commands import SetLinkFieldCommand
    from designer.gui.document.feed import DEBOUNCE_MS

    a = window.editor.place_component("qm9700", QPointF(0, 0))
    b = window.editor.place_component("qm9700", QPointF(0, -200))
    lid = window.editor.connect_ports(a, None, b, None)
    # a 10 m passive copper cable breaks a rule: the check that follows marks its bundle
    window.document.push(SetLinkFieldCommand(window.document.design, [lid], "length_m", 10.0))
    assert window.feed.timer.isActive()
    dialogs.answer = SB.Discard
    assert window.close()
    qtbot.wait(DEBOUNCE_MS + 200)  # the check used to fire on the detached scene: AssertionError
    assert window.scene.design is None and not window.feed.timer.isActive()


def test_autosave_writes_only_when_something_changed(window):
    _edit(window)
    rec = window.recovery
    assert rec.autosave()
    stamp = rec.design_path.stat().st_mtime_ns
    assert not rec.autosave()  # idle with unsaved changes: the file is already up to date
    assert rec.design_path.stat().st_mtime_ns == stamp
    window.document.undo_stack.undo()
    window.document.undo_stack.redo()  # back at a state written before, but the stack moved
    assert rec.autosave()
    window.editor.place_component("qm9700", QPointF(300, 0))
    assert rec.autosave()
    assert load_design(rec.design_path).device_count() == 2


def test_a_recent_file_that_is_gone_is_reported_and_dropped_from_the_menu(window, dialogs, tmp_path):
    _edit(window)
    kept, gone = tmp_path / "kept.json", tmp_path / "gone.json"
    assert window._save_to(kept) and window._save_to(gone)
    window.editor.place_component("qm9700", QPointF(300, 0))
    before = design_to_text(window.document.design)
    gone.unlink()
    entry = next(a for a in window.recent_menu.actions() if a.text().endswith("gone.json"))
    dialogs.answer = SB.Discard
    entry.trigger()
    assert dialogs.kinds() == ["question", "critical"] and "no such file" in dialogs.shown[-1][1]
    assert design_to_text(window.document.design) == before  # the open design stays
    assert [Path(f).name for f in window.recent_files()][:1] == ["kept.json"]
    assert str(gone.resolve()) not in window.recent_files()
    assert not any(a.text().endswith("gone.json") for a in window.recent_menu.actions())


def _large(window, monkeypatch):
    """A design the window autosaves from a worker thread (the threshold lowered to the sample's size),
    edited, with the feed reading 50 records an event-loop turn."""
    import designer.gui.document.document as document
    import designer.gui.document.feed as feed

    monkeypatch.setattr(document, "WRITE_IN_WORKER_ABOVE", 10)
    monkeypatch.setattr(feed, "CAPTURE_ROWS_PER_STEP", 50)
    window.document.set_design(load_design(SAMPLES / "superpod-h100-1su.json"), None)
    window.runner.set_live(False)
    window.editor.place_component("qm9700", QPointF(300, 0))
    return window.recovery


def test_a_large_design_is_autosaved_by_a_worker_without_stopping_the_window(window, qtbot, monkeypatch):
    rec = _large(window, monkeypatch)
    monkeypatch.setattr(rec, "autosave", lambda: pytest.fail("written on the UI thread"))
    rec._on_timer_timeout()
    assert rec.writing() and not rec.design_path.exists()  # read between turns, then written by a worker
    qtbot.waitUntil(lambda: not rec.writing(), timeout=30_000)
    doc = window.document
    # what Save writes: the groups collapsed only to fit the screen are left as they were
    assert rec.design_path.read_text() == design_to_text(doc.design, (), [doc.view_only_collapsed(doc.design)])
    assert json.loads(rec.meta_path.read_text())["pid"] == os.getpid() and not rec.part_path.exists()
    stamp = rec.design_path.stat().st_mtime_ns
    rec._on_timer_timeout()
    assert not rec.writing() and rec.design_path.stat().st_mtime_ns == stamp  # nothing new to write


def test_an_edit_while_the_design_is_read_for_autosave_is_written_next_time(window, qtbot, monkeypatch):
    rec = _large(window, monkeypatch)
    rec._on_timer_timeout()
    window.editor.place_component("qm9700", QPointF(600, 0))  # drops the reading under way
    qtbot.waitUntil(lambda: window.feed.idle(), timeout=30_000)
    rec._on_timer_timeout()  # asks again
    qtbot.waitUntil(lambda: not rec.writing() and rec.design_path.exists(), timeout=30_000)
    assert load_design(rec.design_path).device_count() == window.document.design.device_count()


def test_saving_while_a_worker_writes_the_recovery_file_leaves_none(window, qtbot, monkeypatch, tmp_path):
    import threading

    import designer.gui.document.recovery as recovery

    rec = _large(window, monkeypatch)
    release = threading.Event()
    run = recovery._Write.run
    monkeypatch.setattr(recovery._Write, "run", lambda self: release.wait(10) and run(self))
    rec._on_timer_timeout()
    qtbot.waitUntil(lambda: rec._started, timeout=30_000)
    assert window._save_to(tmp_path / "saved.json")  # discards the recovery files
    release.set()
    qtbot.waitUntil(lambda: not rec.writing(), timeout=30_000)
    assert not rec.design_path.exists() and not rec.meta_path.exists() and not rec.part_path.exists()


def test_a_save_stops_the_recovery_write_under_way_instead_of_waiting_for_it(window, qtbot, monkeypatch, tmp_path):
    """The worker's write looks at its stop event while it makes the text: a save (or a close) does
    not wait for the whole design to be written only to delete it (5 s at 131,072 GPUs)."""
    import threading

    import designer.gui.document.recovery as recovery
    from designer.io import SaveStopped

    rec = _large(window, monkeypatch)
    release, outcome = threading.Event(), []
    real = recovery.save_design

    def watched(*args, stop, **kwargs):
        release.wait(10)  # the save starts once the window has discarded the recovery files
        try:
            real(*args, stop=stop, **kwargs)
        except SaveStopped:
            outcome.append("stopped")
            raise
        outcome.append("written")

    monkeypatch.setattr(recovery, "save_design", watched)
    rec._on_timer_timeout()
    qtbot.waitUntil(lambda: rec._started, timeout=30_000)
    assert window._save_to(tmp_path / "saved.json")
    release.set()
    qtbot.waitUntil(lambda: not rec.writing(), timeout=30_000)
    assert outcome == ["stopped"]
    assert not rec.design_path.exists() and not rec.meta_path.exists() and not rec.part_path.exists()


def test_a_worker_autosave_keeps_every_variant(window, qtbot, monkeypatch):
    from designer.io import load_designs

    rec = _large(window, monkeypatch)
    window.live.new_variant("second")
    window.editor.place_component("qm9700", QPointF(900, 0))  # the shown variant is edited
    rec._on_timer_timeout()
    qtbot.waitUntil(lambda: not rec.writing() and rec.design_path.exists(), timeout=30_000)
    doc = window.document
    assert [d.device_count() for d in load_designs(rec.design_path)] == [d.device_count() for d in doc.variants]
    assert doc.variants[1].device_count() == doc.variants[0].device_count() + 1


def test_a_large_design_is_saved_by_a_worker_behind_a_dialog(window, monkeypatch, tmp_path, dialogs):
    import threading

    import designer.gui.document.document as document

    monkeypatch.setattr(document, "WRITE_IN_WORKER_ABOVE", 10)
    window.document.set_design(load_design(SAMPLES / "superpod-h100-1su.json"), None)
    window.editor.place_component("qm9700", QPointF(300, 0))
    threads = []
    save_copy = window.document.save_copy
    monkeypatch.setattr(window.document, "save_copy",
                        lambda p: threads.append(threading.current_thread()) or save_copy(p))
    target = tmp_path / "big.json"
    assert window._save_to(target)
    assert threads and threads[0] is not threading.main_thread()
    doc = window.document
    assert target.read_text() == design_to_text(doc.design, (), [doc.view_only_collapsed(doc.design)])
    assert not doc.is_modified() and doc.path == target.resolve()
    window.editor.place_component("qm9700", QPointF(600, 0))
    assert not window._save_to(tmp_path / "no such folder" / "big.json")  # the worker's error, in a dialog
    assert "does not exist" in dialogs.shown[-1][1] and doc.is_modified() and doc.path == target.resolve()
