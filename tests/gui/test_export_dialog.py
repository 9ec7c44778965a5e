"""File ▸ Export… in the window: the same files as ``topo-designer export``, errors in a dialog."""

from __future__ import annotations

import json

import networkx as nx
from PySide6.QtGui import QImage

from designer.io import load_design
from designer.model.shipped import sample_designs_dir

SAMPLE = sample_designs_dir() / "superpod-h100-1su.json"


def _dialog(window, tmp_path, outputs):
    from designer.gui.window.export_dialog import ExportDialog

    d = ExportDialog(window)
    d.folder.setText(str(tmp_path))
    d.base.setText("fabric")
    for key, check in d.checks.items():
        check.setChecked(key in outputs)
    return d


def test_file_menu_offers_export(window):
    file_menu = window.menuBar().actions()[0].menu()
    texts = [a.text() for a in file_menu.actions()]
    assert "&Export\u2026" in texts
    assert window.actions_by_name["export"].shortcut().toString() == "Ctrl+Shift+E"


def test_export_every_output_from_the_window(window, tmp_path):
    window.document.set_design(load_design(SAMPLE), None)
    d = _dialog(window, tmp_path, {"png", "panels", "report", "html", "cabling", "graphml"})
    d.width.setValue(1000)
    written = d.run_export()
    assert (tmp_path / "fabric.png").exists() and str(tmp_path / "fabric.html") in written
    img = QImage(str(tmp_path / "fabric.png"))
    assert img.width() == 1000 and not img.isNull()
    assert len(list((tmp_path / "fabric-panels").glob("*.png"))) >= 4
    report = json.loads((tmp_path / "fabric.json").read_text())
    assert report["design"]["gpus"] == 248 and "bom" in report
    g = nx.read_graphml(tmp_path / "fabric.graphml", force_multigraph=True)
    assert g.number_of_edges() == window.document.design.link_count()
    assert (tmp_path / "fabric-cabling.csv").read_text().count("\n") > 100
    assert "data:image/png;base64," in (tmp_path / "fabric.html").read_text()
    # the window's design is not changed by the export (no collapse, no edit)
    assert window.document.undo_stack.count() == 0


def test_visible_area_picture(window, tmp_path):
    window.document.set_design(load_design(SAMPLE), None)
    window.view.zoom_to_fit()
    d = _dialog(window, tmp_path, {"png"})
    d.visible.setChecked(True)
    d.width.setValue(800)
    d.run_export()
    img = QImage(str(tmp_path / "fabric.png"))
    rect = window.view.visible_scene_rect()
    assert img.width() == 800
    # the canvas keeps the view's proportions (the picture is at least as tall as the legend)
    assert img.height() >= round(rect.height() * (800 - 240) / rect.width()) - 1


def test_errors_are_shown_in_a_dialog(window, tmp_path, dialogs):
    d = _dialog(window, tmp_path / "missing-folder", {"report"})
    d._on_export()
    assert dialogs.kinds() == ["critical"]
    assert "does not exist" in dialogs.shown[0][1]
    assert not d.written
    d2 = _dialog(window, tmp_path, set())
    d2._on_export()
    assert "nothing to export" in dialogs.shown[1][1]


def test_a_long_export_shows_its_progress(window, tmp_path, monkeypatch):
    import time

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QProgressDialog

    import designer.present.export as export

    real = export.prepare

    def slow_prepare(*args, **kwargs):
        time.sleep(0.8)  # as the analysis of a large design
        return real(*args, **kwargs)

    monkeypatch.setattr(export, "prepare", slow_prepare)
    window.document.set_design(load_design(SAMPLE), None)
    seen: list[str] = []

    def look() -> None:
        for w in QApplication.topLevelWidgets():
            if isinstance(w, QProgressDialog) and w.isVisible():
                seen.append(w.labelText())

    timer = QTimer()
    timer.timeout.connect(look)
    timer.start(50)
    d = _dialog(window, tmp_path, {"report"})
    d.run_export()
    timer.stop()
    assert any("Analysing the design" in text for text in seen)
    assert (tmp_path / "fabric.json").exists()


def test_message_sizes_of_the_export(window, tmp_path, dialogs):
    window.document.set_design(load_design(SAMPLE), None)
    d = _dialog(window, tmp_path, {"report"})
    d.sizes.setText("1MiB,256MiB")
    d.run_export()
    report = json.loads((tmp_path / "fabric.json").read_text())
    sizes = {row["message_bytes"] for row in report["collectives"]}
    assert sizes == {1 << 20, 256 << 20}
    d2 = _dialog(window, tmp_path, {"report"})
    d2.sizes.setText("1MB")  # decimal units are ambiguous: refused in a dialog, nothing written
    d2._on_export()
    assert dialogs.kinds() == ["critical"] and "message sizes" in dialogs.shown[0][1]
