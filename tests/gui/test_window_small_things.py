"""The smaller things of a window one can trust: a failed switch seen at fit zoom, palette search by
kind, media offered by port kind, Open asking first, dialogs in the last folder, a name after Save As,
the canvas refitted on resize."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF, QSize
from PySide6.QtWidgets import QFileDialog, QMessageBox

from designer.generators import GENERATORS
from designer.gui.canvas.sketch import Sketch

SAMPLE = Path(__file__).resolve().parents[2] / "sample_designs" / "hgx-h100-server.json"


def test_a_failed_switch_stands_out_at_fit_zoom(window):
    window.document.set_design(GENERATORS["leaf-spine"].build(leaves=4, hosts_per_leaf=8, spines=2), None)
    window.view.zoom_to_fit()
    window.view.zoom_by(0.05 / window.view.scale_factor())
    assert window.scene.sketched
    assert Sketch(window.scene).failed_rects == []
    links = window.editor.failure_links(device_ids=["spine1"])
    assert window.editor.set_failed(links, True, "spine1")
    rects = window.scene.sketch().failed_rects
    assert len(rects) == 1 and window.scene.device_items["spine1"].sceneBoundingRect().contains(rects[0])
    # inside a collapsed group it is still its own place that is marked, not the whole box
    spine = window.document.design.device("spine1")
    assert rects[0].center() == QPointF(spine.x, spine.y)


def test_palette_search_for_switch_finds_quantum_and_spectrum_parts(window):
    window.palette.filter("switch")
    shown = [text for _group, text, _payload in window.palette.entries()
             if not window.palette.item_for(_payload).isHidden()]
    assert any("Quantum" in t for t in shown) and any("Spectrum" in t for t in shown)


def test_a_network_link_is_not_offered_board_media(window):
    ed = window.editor
    gpu = ed.place_component("h100-sxm", QPointF(0, 0))
    nic = ed.place_component("connectx-7-400g", QPointF(0, 150))
    sw = ed.place_component("qm9700", QPointF(0, -300))
    board = ed.connect_ports(gpu, "pcie1", nic, None)
    net = ed.connect_ports(nic, "p1", sw, None)
    combo = window.inspector.l_medium

    def enabled() -> set[str]:
        return {combo.itemData(i) for i in range(combo.count()) if combo.model().item(i).isEnabled()}

    window.scene.select_links([net])
    assert enabled() == {"passive_copper", "active_copper", "aoc", "optical"}
    window.scene.select_links([board])
    assert enabled() == {"pcie"}


def test_open_asks_about_unsaved_changes_before_the_file_is_picked(window, dialogs, monkeypatch):
    window.editor.place_component("qm9700", QPointF(0, 0))
    order: list[str] = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: order.append("question")
                        or QMessageBox.StandardButton.Cancel)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: order.append("dialog") or ("", ""))
    window.open_dialog()
    assert order == ["question"]  # cancelled: no file dialog at all
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: order.append("question")
                        or QMessageBox.StandardButton.Discard)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: order.append("dialog") or (str(SAMPLE), ""))
    window.open_dialog()
    assert order == ["question", "question", "dialog"] and window.document.path == SAMPLE.resolve()


def test_file_dialogs_start_in_the_last_folder_used(window, monkeypatch, tmp_path):
    folder = tmp_path / "designs"
    folder.mkdir()
    (folder / "a.json").write_bytes(SAMPLE.read_bytes())
    assert window.open_path(str(folder / "a.json"))
    starts: list[str] = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda _w, _t, start, *a, **k: starts.append(start)
                        or ("", ""))
    window.open_dialog()
    from designer.gui.window.import_dialog import import_fabric

    import_fabric(window)
    assert starts == [str(folder), str(folder)]


def test_save_as_names_an_untitled_design_after_its_file(window, monkeypatch, tmp_path):
    window.editor.place_component("qm9700", QPointF(0, 0))
    assert window.document.design.name == "Untitled"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "pod-a.json"), ""))
    assert window.save_as()
    window.scene.clearSelection()
    assert window.document.design.name == "pod-a" and window.inspector.d_name.text() == "pod-a"
    assert not window.document.is_modified()


def test_the_canvas_refits_when_resized_until_the_user_zooms(window, qtbot):
    window.document.set_design(GENERATORS["leaf-spine"].build(leaves=4, hosts_per_leaf=8, spines=2), None)
    view = window.view
    assert view.fitted
    before = view.scale_factor()
    window.resize(QSize(1400, 900))
    qtbot.waitUntil(lambda: view.scale_factor() != before, timeout=2000)
    full = view.scene().itemsBoundingRect()
    assert view.mapToScene(view.viewport().rect()).boundingRect().contains(full)
    view.zoom_in()
    zoomed = view.scale_factor()
    window.resize(QSize(1000, 700))
    qtbot.wait(50)
    assert view.scale_factor() == zoomed
