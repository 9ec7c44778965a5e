"""Inspector editing driven by the keyboard and mouse: refusals, selection changes, multi-selection."""

from __future__ import annotations

from gui_helpers import scene_point
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from designer.gui.canvas.shown import ShownKey
from designer.io import design_to_text

LEFT, NONE = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier


def _two_switches(window):
    ed = window.editor
    a = ed.place_component("qm9700", QPointF(0, 0))
    b = ed.place_component("qm9700", QPointF(300, 0))
    window.view.zoom_reset()
    window.view.centerOn(150, 0)
    window.activateWindow()
    return a, b


def _type(widget, text: str, select_all: bool = True) -> None:
    widget.setFocus()
    QApplication.processEvents()
    if select_all:
        widget.selectAll()
    QTest.keyClicks(widget, text)


def test_typed_edit_then_click_another_device_edits_the_first(window):
    d = window.document.design
    insp = window.inspector
    a, b = _two_switches(window)
    window.scene.select_devices([a])
    _type(insp.v_name, "spine A")
    QTest.mouseClick(window.view.viewport(), LEFT, NONE, scene_point(window, 300, 0))
    assert window.scene.selected_device_ids() == [b]
    assert (d.device(a).name, d.device(b).name) == ("spine A", "")
    assert insp.v_name.text() == ""  # now showing b
    _type(insp.v_x.lineEdit(), "500")
    QTest.mouseClick(window.view.viewport(), LEFT, NONE, scene_point(window, 0, 0))
    assert (d.device(a).x, d.device(b).x) == (0, 500)


def test_typed_edit_is_kept_when_a_toolbar_action_changes_the_selection(window):
    d = window.document.design
    insp = window.inspector
    a, b = _two_switches(window)
    window.scene.select_devices([a])
    _type(insp.v_name, "spine A")
    _type(insp.v_y.lineEdit(), "-120")
    window.actions_by_name["select_all"].trigger()  # an action does not take the focus
    assert window.scene.selected_device_ids() == [a, b]
    assert (d.device(a).name, d.device(a).y) == ("spine A", -120)
    assert (d.device(b).name, d.device(b).y) == ("", 0)
    assert insp.stack.currentWidget() is insp.multi_page and insp.m_counts.text() == "2 switches"
    window.scene.select_devices([b])
    assert insp.v_name.text() == "" and insp.v_y.value() == 0


def test_a_design_needs_a_name(window):
    insp = window.inspector
    window.scene.clearSelection()
    name = window.document.design.name
    count = window.document.undo_stack.count()
    for blank in ("", "   "):
        insp.d_name.setText(blank)
        insp.d_name.editingFinished.emit()
        assert window.document.design.name == name and insp.d_name.text() == name
        assert insp.notice.isVisibleTo(insp) and "needs a name" in insp.notice.text()
        assert "needs a name" in window.statusBar().currentMessage()
    assert window.document.undo_stack.count() == count
    insp.d_name.setText("  Pod A  ")
    insp.d_name.editingFinished.emit()
    assert window.document.design.name == "Pod A" and not insp.notice.isVisibleTo(insp)


def test_blank_device_and_group_names_fall_back_to_the_id(window):
    d = window.document.design
    insp = window.inspector
    a, b = _two_switches(window)
    window.scene.select_devices([a])
    insp.v_name.setText("   ")
    insp.v_name.editingFinished.emit()
    assert d.device(a).name == "" and d.device(a).label == a
    insp.v_name.setText("  leaf A ")
    insp.v_name.editingFinished.emit()
    assert d.device(a).name == "leaf A"
    window.scene.select_devices([a, b])
    gid = window.editor.group_selection()
    window.scene.clearSelection()
    window.scene.frames[gid].setSelected(True)
    insp.g_name.setText("  ")
    insp.g_name.editingFinished.emit()
    assert d.group(gid).name == "" and window.scene.frames[gid].title() == gid


def test_negative_and_impossible_lengths_cannot_be_entered(window):
    a, b = _two_switches(window)
    window.editor.connect_ports(a, None, b, None)
    window.scene.clearSelection()
    next(iter(window.scene.bundle_items.values())).setSelected(True)
    insp = window.inspector
    before = design_to_text(window.document.design)
    for text in ("-5", "nan", "abc"):
        _type(insp.l_length.lineEdit(), text)
        QTest.keyClick(insp.l_length, Qt.Key.Key_Return)
        window.scene.clearSelection()  # the pending text is not applied either
        next(iter(window.scene.bundle_items.values())).setSelected(True)
    assert design_to_text(window.document.design) == before
    _type(insp.l_length.lineEdit(), "7.5")
    QTest.keyClick(insp.l_length, Qt.Key.Key_Return)
    assert window.document.design.links[0].length_m == 7.5


def test_a_refused_edit_says_why_in_the_inspector(window, monkeypatch):
    from designer.model import InvalidValueError

    a, _b = _two_switches(window)
    window.scene.select_devices([a])
    insp = window.inspector

    def refuse(*args, **kwargs):
        raise InvalidValueError("tier is not allowed here")

    monkeypatch.setattr(window.document.design, "set_device_field", refuse)
    insp.v_tier.setCurrentText("spine")
    insp.v_tier.lineEdit().editingFinished.emit()
    assert insp.notice.isVisibleTo(insp) and insp.notice.text() == "tier is not allowed here"
    assert insp.v_tier.currentText() == "leaf"  # the field shows the model again
    window.scene.clearSelection()
    assert not insp.notice.isVisibleTo(insp)


def test_counts_read_as_english_and_mixed_links_name_no_single_pair(window):
    from designer.generators import GENERATORS

    insp = window.inspector
    window.insert_generated(GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=2, spines=1, gpus_per_node=2,
                                                            nodes_per_rack=2))
    d = window.document.design
    window.scene.clearSelection()
    text = insp.d_counts.text()
    assert "GPUs" in text and "NICs" in text and "switches" in text and "gpu" not in text, text
    leaves = [dev.id for dev in d.devices if dev.tier == "leaf"]
    window.scene.select_devices(leaves)
    assert insp.m_counts.text() == "2 switches"
    window.scene.clearSelection()
    bundles = [it for key, it in window.scene.bundle_items.items() if ShownKey.device(leaves[0]) in key]
    others = [it for key, it in window.scene.bundle_items.items() if ShownKey.device(leaves[1]) in key]
    bundles[0].setSelected(True)
    others[0].setSelected(True)
    assert insp.stack.currentWidget() is insp.link_page
    assert insp.l_ends.text() == "2 pairs of devices"


def test_closing_with_a_name_still_typed_asks_to_save_it(window, dialogs):
    from PySide6.QtWidgets import QMessageBox

    a, _b = _two_switches(window)
    window.document.undo_stack.setClean()
    window.scene.select_devices([a])
    _type(window.inspector.v_name, "late")
    dialogs.answer = QMessageBox.StandardButton.Cancel
    window.actions_by_name["close"].trigger()  # an action: the name field keeps the focus
    assert dialogs.kinds() == ["question"] and window.isVisible()
    assert window.document.design.device(a).name == "late"
    dialogs.answer = QMessageBox.StandardButton.Discard
    count = window.document.undo_stack.count()
    assert window.close()
    window.scene.clearSelection()  # what tearing the scene down does
    assert window.document.undo_stack.count() == count  # a closed window takes no more edits


def test_save_by_shortcut_saves_the_name_being_typed(window, tmp_path):
    from designer.io import load_design

    a, _b = _two_switches(window)
    path = tmp_path / "typed.json"
    assert window._save_to(path)
    window.scene.select_devices([a])
    _type(window.inspector.v_name, "core 1")
    window.actions_by_name["save"].trigger()
    assert load_design(path).device(a).name == "core 1"
    assert not window.isWindowModified()
