"""Files in the window: save and reopen, bad files, recent files, drops, close, autosave and recovery."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

from gui_helpers import send_drop
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QTimer, QUrl
from PySide6.QtWidgets import QApplication, QMessageBox, QProgressDialog

from designer.gui.document.recovery import Recovery
from designer.io import design_to_text, load_design

SAMPLES = Path(__file__).resolve().parents[2] / "sample_designs"


def build_small(window) -> None:
    ed = window.editor
    gpu = ed.place_component("h100-sxm", QPointF(0, 0))
    nic = ed.place_component("connectx-7-400g", QPointF(0, 100))
    sw = ed.place_component("qm9700", QPointF(0, -300))
    ed.connect_ports(gpu, None, nic, None)
    ed.connect_ports(nic, "p1", sw, None)
    window.scene.select_devices([gpu, nic])
    window.editor.group_selection("server")


def test_save_then_reopen_gives_the_same_design(window, make_window, tmp_path):
    build_small(window)
    path = tmp_path / "small.json"
    assert window._save_to(path)
    assert not window.document.is_modified() and not window.isWindowModified()
    assert window.windowTitle().startswith("small.json")
    other = make_window()
    assert other.open_path(str(path))
    assert gc.isenabled()  # read with the collector paused, and it runs again after
    # Same records (compared as JSON values: the catalog gives 400, a file read back gives 400.0)
    assert json.loads(design_to_text(other.document.design)) == json.loads(design_to_text(window.document.design))
    assert set(other.scene.device_items) == {"gpu-1", "nic-1", "switch-1"}
    assert str(path.resolve()) == other.recent_files()[0]
    # Save goes back to the same file, atomically, and the file loads
    other.editor.place_component("h100-sxm", QPointF(300, 0))
    assert other.save()
    assert load_design(path).device_count() == 4


def test_bad_file_shows_the_exact_problem_and_keeps_the_design(window, dialogs, tmp_path):
    build_small(window)
    before = design_to_text(window.document.design)
    stack_count = window.document.undo_stack.count()
    good = tmp_path / "good.json"
    window._save_to(good)
    data = json.loads(good.read_text())
    data["links"]["rows"][0][data["links"]["fields"].index("b")] = "nic-1:p65"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert not window.open_path(str(bad))
    kind, text = dialogs.shown[-1]
    assert kind == "critical"
    assert "links.rows[0].b" in text and "p65" in text
    truncated = tmp_path / "truncated.json"
    truncated.write_text(good.read_text()[:200])
    assert not window.open_path(str(truncated))
    assert "truncated.json" in dialogs.shown[-1][1]
    assert design_to_text(window.document.design) == before
    assert gc.isenabled()  # a refused file leaves the collector running too
    assert window.document.undo_stack.count() == stack_count
    assert window.document.path == good.resolve()


def test_a_large_file_is_read_in_a_worker_behind_a_progress_dialog(window, make_window, monkeypatch, tmp_path, qtbot):
    import threading
    import time

    from designer.gui.window import background

    build_small(window)
    path = tmp_path / "large.json"
    assert window._save_to(path)
    monkeypatch.setattr(background, "BACKGROUND_READ_BYTES", 1)  # every file counts as large here
    readers = []
    real = background.load_designs
    monkeypatch.setattr(background, "load_designs", lambda p: readers.append(threading.current_thread()) or real(p))
    other = make_window()
    assert other.open_path(str(path))
    assert readers and readers[0] is not threading.main_thread()
    assert design_to_text(other.document.design) == design_to_text(window.document.design)
    assert other.document.path == path.resolve()
    qtbot.waitUntil(lambda: not other.findChildren(QProgressDialog))  # closed and deleted
    # a read long enough to show the dialog: it then says the canvas is being drawn, under a busy
    # cursor, until the design is shown; then both go
    monkeypatch.setattr(background, "SHOW_AFTER_MS", 0)
    monkeypatch.setattr(background, "load_designs", lambda p: time.sleep(0.3) or real(p))  # the dialog shows
    seen = []
    other.document.design_replaced.connect(lambda _d: seen.append(
        ([d.labelText() for d in other.findChildren(QProgressDialog) if d.isVisible()],
         QApplication.overrideCursor() and QApplication.overrideCursor().shape())))
    assert other.open_path(str(path))
    assert seen == [(["Drawing large.json\u2026"], Qt.CursorShape.WaitCursor)]
    assert QApplication.overrideCursor() is None
    qtbot.waitUntil(lambda: not other.findChildren(QProgressDialog))


def test_cancelling_a_large_read_keeps_the_design(window, monkeypatch, tmp_path):
    import threading

    from designer.gui.window import background

    build_small(window)
    path = tmp_path / "large.json"
    assert window._save_to(path)
    window.editor.place_component("h100-sxm", QPointF(300, 0))  # an edit the cancelled open must keep
    before, steps = design_to_text(window.document.design), window.document.undo_stack.count()
    monkeypatch.setattr(background, "BACKGROUND_READ_BYTES", 1)
    release = threading.Event()
    real = background.load_designs
    monkeypatch.setattr(background, "load_designs", lambda p: release.wait(30) and real(p))
    QTimer.singleShot(100, lambda: window.findChildren(QProgressDialog)[0].cancel())
    try:
        assert not window.open_path(str(path), asked=True)
    finally:
        release.set()  # the read finishes in its thread and is dropped
    assert "cancelled" in window.statusBar().currentMessage()
    assert design_to_text(window.document.design) == before and window.document.undo_stack.count() == steps
    assert window.document.path == path.resolve() and window.document.is_modified() and gc.isenabled()


def test_close_asks_to_save_changes(window, dialogs):
    window.editor.place_component("h100-sxm", QPointF(0, 0))
    dialogs.answer = QMessageBox.StandardButton.Cancel
    assert not window.close()
    assert window.isVisible() and dialogs.kinds() == ["question"]
    dialogs.answer = QMessageBox.StandardButton.Discard
    assert window.close()


def test_new_design_asks_first_and_starts_clean(window, dialogs):
    window.editor.place_component("h100-sxm", QPointF(0, 0))
    dialogs.answer = QMessageBox.StandardButton.Cancel
    window.actions_by_name["new"].trigger()
    assert window.document.design.device_count() == 1
    dialogs.answer = QMessageBox.StandardButton.Discard
    window.actions_by_name["new"].trigger()
    assert window.document.design.device_count() == 0 and not window.document.is_modified()


def test_dropping_a_design_file_on_the_canvas_opens_it(window, qtbot):
    sample = SAMPLES / "hgx-h100-server.json"
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(sample))])
    assert send_drop(window.view.viewport(), mime, QPoint(50, 50))
    qtbot.waitUntil(lambda: window.document.path == sample.resolve())
    assert window.document.design.device_count() == load_design(sample).device_count()


def test_an_opened_design_builds_its_index_of_link_ends_while_the_window_is_idle(window, qtbot, monkeypatch):
    from designer.gui.document import document

    monkeypatch.setattr(document, "INDEX_ENDS_PER_STEP", 64)  # several steps for the 4-SU sample
    sample = SAMPLES / "superpod-h100-4su.json"
    assert window.open_path(str(sample))
    design = window.document.design
    assert design._held_ports is None  # read in bulk: left to be built
    qtbot.waitUntil(lambda: design._held_ports is not None, timeout=10_000)
    assert not window.document.is_modified() and window.document.undo_stack.count() == 0
    link = next(design.iter_links())
    assert design.link_at(link.a_device, link.a_port) is link and link in design.links_of(link.b_device)


def test_autosave_writes_recovery_and_a_new_window_offers_it(window, make_window, dialogs, tmp_path):
    window.editor.place_component("h100-sxm", QPointF(0, 0))
    rec = window.recovery
    assert rec.autosave()
    assert rec.design_path.is_file()
    assert load_design(rec.design_path).has_device("gpu-1")
    # Pretend the process died: its pid is one that has ended.
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    meta = json.loads(rec.meta_path.read_text())
    meta["pid"] = dead.pid
    rec.meta_path.write_text(json.dumps(meta))
    rec.timer.stop()
    assert [o.design_path for o in Recovery.orphans(rec.directory)] == [rec.design_path]
    other = make_window()
    dialogs.answer = QMessageBox.StandardButton.Yes
    assert other.offer_recovery()
    assert other.document.design.has_device("gpu-1")
    assert other.document.is_modified()  # restored work counts as unsaved
    assert not rec.design_path.exists() and Recovery.orphans(rec.directory) == []


def test_saving_removes_the_recovery_file(window, tmp_path):
    window.editor.place_component("h100-sxm", QPointF(0, 0))
    assert window.recovery.autosave()
    window._save_to(tmp_path / "x.json")
    assert not window.recovery.design_path.exists()
    assert not window.recovery.autosave()  # nothing unsaved


def test_run_gui_window_starts_with_a_sample(qtbot, monkeypatch, tmp_path):
    from designer.gui.window import app

    monkeypatch.setattr("designer.gui.document.recovery.default_recovery_dir", lambda: tmp_path / "rec")
    w = app.create_window(None)
    qtbot.addWidget(w)
    assert w.document.design.device_count() > 0
    assert w.document.path is None  # a sample is a starting point, Save asks for a name
    assert app.default_design_path().parent == app.sample_designs_dir()
    w.close()


def test_a_catalog_that_cannot_be_loaded_stops_the_window_with_a_dialog(qtbot, monkeypatch, tmp_path):
    # The command line refuses such a catalog; the window must not run on an empty one (every
    # analysis would be silently wrong).
    from PySide6.QtWidgets import QMessageBox

    from designer.gui.window import app

    user = tmp_path / "config" / "topo-designer" / "catalog.json"
    user.parent.mkdir(parents=True)
    user.write_text('{"format": "topo-designer-catalog", "version": 1, "components": [')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    shown = []
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text: shown.append((title, text)))
    monkeypatch.setattr("designer.gui.document.recovery.default_recovery_dir", lambda: tmp_path / "rec")
    assert app.run_gui(None) == 2
    assert shown and shown[0][0] == "Topology Designer cannot start"
    assert "catalog.json" in shown[0][1] and "JSON" in shown[0][1]


def test_the_window_works_with_the_catalog_files_it_was_started_with(qtbot, monkeypatch, tmp_path):
    # topo-designer --catalog FILE gui: the window's palette, analysis and imports see FILE's parts.
    import json

    from designer.gui.window import app

    extra = tmp_path / "extra.json"
    extra.write_text(json.dumps({"format": "topo-designer-catalog", "version": 1, "components": [
        {"id": "lab-switch", "kind": "switch", "name": "Lab switch", "vendor": "Lab",
         "ports": [{"prefix": "p", "count": 8, "speed_gbps": 400}], "price_usd": 1000}]}))
    monkeypatch.setattr("designer.gui.document.recovery.default_recovery_dir", lambda: tmp_path / "rec")
    w = app.create_window(None, [str(extra)])
    qtbot.addWidget(w)
    assert "lab-switch" in w.catalog.components and w.document.catalog is w.catalog
    w.close()
    plain = app.create_window(None)
    qtbot.addWidget(plain)
    assert "lab-switch" not in plain.catalog.components  # nothing stays behind in the process
    plain.close()
