"""View state is not an edit: expanding, collapsing, zooming and selecting neither add an undo step
nor mark the design modified, and a save does not write the collapsing that only fitted it on screen."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from file_tables import as_records

from designer.io import load_design

SAMPLES = Path(__file__).resolve().parents[2] / "sample_designs"
BIG = SAMPLES / "superpod-h100-1su.json"  # 256 GPUs: opens with its servers collapsed


def test_expanding_a_group_of_an_opened_design_is_not_an_edit(window, tmp_path):
    path = tmp_path / "su.json"
    shutil.copy(BIG, path)
    assert window.open_path(str(path))
    doc = window.document
    collapsed = [g.id for g in doc.design.groups if g.collapsed]
    assert collapsed, "the sample opens collapsed"
    assert window.editor.set_collapsed(collapsed[:1], False)
    window.actions_by_name["expand_all"].trigger()
    window.actions_by_name["collapse_servers"].trigger()
    window.view.zoom_in()
    window.scene.select_devices([next(iter(doc.design.iter_devices())).id])
    assert doc.undo_stack.count() == 0 and not doc.is_modified() and not window.isWindowModified()
    assert not window.actions_by_name["undo"].isEnabled()


def test_saving_an_opened_sample_keeps_its_groups_as_the_file_had_them(window, tmp_path):
    path = tmp_path / "su.json"
    shutil.copy(BIG, path)
    assert not any(g.get("collapsed") for g in as_records(json.loads(BIG.read_text()))["groups"])
    assert window.open_path(str(path))
    doc = window.document
    auto = [g.id for g in doc.design.groups if g.collapsed]
    assert auto
    doc.save(path)
    assert not any(g.collapsed for g in load_design(path).groups)  # the fit-to-screen collapse stays out
    # what the user collapses is theirs, and a save keeps it
    mine = next(g.id for g in doc.design.groups if not g.collapsed)
    window.editor.set_collapsed([auto[0]], False)
    window.editor.set_collapsed([auto[0], mine], True)
    doc.save(path)
    assert {g.id for g in load_design(path).groups if g.collapsed} == {auto[0], mine}


def test_expanding_many_devices_is_drawn_under_a_busy_cursor_and_says_how_long(window, tmp_path, monkeypatch):
    """Groups holding more than BUSY_REGROUP_DEVICES devices redraw for seconds at 16,384 GPUs: a busy
    cursor while they do, and the status bar names what was expanded; a small expansion shows neither."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    import designer.gui.canvas.editor as editor_module

    path = tmp_path / "su.json"
    shutil.copy(BIG, path)
    assert window.open_path(str(path))
    doc = window.document
    cursors, said = [], []
    real = doc.set_collapsed

    def watched(ids, collapsed):
        cursor = QApplication.overrideCursor()
        cursors.append(cursor.shape() if cursor is not None else None)
        return real(ids, collapsed)

    monkeypatch.setattr(doc, "set_collapsed", watched)
    window.editor.message.connect(said.append)
    collapsed = [g.id for g in doc.design.groups if g.collapsed]
    holding = len({dev.id for g in collapsed for dev in doc.design.all_members(g)})
    monkeypatch.setattr(editor_module, "BUSY_REGROUP_DEVICES", holding - 1)
    one = min(collapsed, key=lambda g: len(doc.design.all_members(g)))
    assert window.editor.set_collapsed([one], False)
    assert cursors == [None] and said == []  # a few devices: at once, no words
    rest = [g for g in collapsed if g != one]
    monkeypatch.setattr(editor_module, "BUSY_REGROUP_DEVICES", 1)
    window.actions_by_name["expand_all"].trigger()
    assert cursors[1:] == [Qt.CursorShape.WaitCursor] and QApplication.overrideCursor() is None
    count = len({dev.id for g in rest for dev in doc.design.all_members(g)})
    assert said[0] == f"Expanding {len(rest)} groups holding {count:,} devices\u2026"
    assert said[1].startswith(f"Expanded {len(rest)} groups holding {count:,} devices in ")
    assert not [g for g in doc.design.groups if g.collapsed] and doc.undo_stack.count() == 0
