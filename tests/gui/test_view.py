"""Navigation, shortcuts, overview, level of detail and the smaller inspector pages."""

from __future__ import annotations

from gui_helpers import drag, scene_point
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest

from designer.generators import GENERATORS
from designer.gui.style import LOD_SKETCH

STANDARD = {
    "new": "Ctrl+N", "open": "Ctrl+O", "save": "Ctrl+S", "save_as": "Ctrl+Shift+S", "undo": "Ctrl+Z",
    "redo": "Ctrl+Shift+Z", "cut": "Ctrl+X", "copy": "Ctrl+C", "paste": "Ctrl+V", "duplicate": "Ctrl+D",
    "delete": "Del", "select_all": "Ctrl+A", "zoom_in": "Ctrl++", "zoom_out": "Ctrl+-", "zoom_fit": "Ctrl+0",
    "find": "Ctrl+F",
}


def test_standard_shortcuts(window):
    for name, keys in STANDARD.items():
        action = window.actions_by_name[name]
        shortcuts = [s.toString(QKeySequence.SequenceFormat.PortableText) for s in action.shortcuts()]
        assert keys in shortcuts, (name, shortcuts)
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus == ["&File", "&Edit", "&View", "&Design", "&Analysis", "&Help"]


def test_zoom_actions_and_sketch_threshold(window):
    window.insert_generated(GENERATORS["fat-tree"].build(k=4))
    view = window.view
    view.zoom_reset()
    assert view.scale_factor() == 1.0 and not window.scene.sketched
    window.actions_by_name["zoom_in"].trigger()
    assert view.scale_factor() > 1.0
    window.actions_by_name["zoom_out"].trigger()
    window.actions_by_name["zoom_out"].trigger()
    assert view.scale_factor() < 1.0
    view.zoom_by(0.1 / view.scale_factor())
    assert window.scene.sketched and view.scale_factor() < LOD_SKETCH
    assert not any(b.scene() for b in window.scene.bundle_items.values())
    view.zoom_by(1.0 / view.scale_factor())
    assert not window.scene.sketched and all(b.scene() is window.scene for b in window.scene.bundle_items.values())
    window.actions_by_name["zoom_fit"].trigger()
    visible = view.visible_scene_rect()
    assert visible.contains(window.scene.itemsBoundingRect().center())


def test_arrow_keys_pan(window):
    window.insert_generated(GENERATORS["fat-tree"].build(k=4))
    view = window.view
    view.zoom_by(2.0 / view.scale_factor())
    before = view.horizontalScrollBar().value()
    QTest.keyClick(view, Qt.Key.Key_Right)
    assert view.horizontalScrollBar().value() > before


def test_rubber_band_works_in_the_zoomed_out_sketch(window):
    ids = window.insert_generated(GENERATORS["fat-tree"].build(k=4))
    window.view.zoom_to_fit()
    window.view.zoom_by(0.15 / window.view.scale_factor())
    assert window.scene.sketched
    window.scene.clearSelection()
    r = window.scene.itemsBoundingRect()
    vp = window.view.viewport().rect()
    drag(window, QPoint(vp.left() + 2, vp.top() + 2), QPoint(vp.right() - 2, vp.bottom() - 2))
    assert set(window.scene.selected_device_ids()) == set(ids)
    assert r.width() > 0


def test_overview_click_moves_the_main_view(window):
    window.insert_generated(GENERATORS["leaf-spine"].build(leaves=4, hosts_per_leaf=8, spines=2))
    window.view.zoom_by(1.0 / window.view.scale_factor())
    ov = window.overview
    bounds = window.scene.sketch().bounds
    target = QPointF(bounds.right() - 50, bounds.center().y())
    t = ov.transform()
    QTest.mouseClick(ov, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, t.map(target).toPoint())
    centre = window.view.mapToScene(window.view.viewport().rect().center())
    assert abs(centre.x() - target.x()) < 40


def test_double_click_expands_a_collapsed_box(window):
    window.insert_generated(GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8, spines=1))
    d = window.document.design
    server = next(g for g in d.groups if g.kind == "server")
    window.editor.set_collapsed([server.id], True)
    box = window.scene.boxes[server.id]
    window.view.zoom_by(1.0 / window.view.scale_factor())
    window.view.centerOn(box)
    QTest.mouseDClick(window.view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                      window.view.mapFromScene(box.pos()))
    assert not d.group(server.id).collapsed and server.id in window.scene.frames


def test_group_inspector_renames_and_collapses(window):
    window.insert_generated(GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8, spines=1))
    d = window.document.design
    server = next(g for g in d.groups if g.kind == "server")
    window.scene.clearSelection()
    window.scene.frames[server.id].setSelected(True)
    insp = window.inspector
    assert insp.stack.currentWidget() is insp.group_page
    insp.g_name.setText("Node A")
    insp.g_name.editingFinished.emit()
    assert d.group(server.id).name == "Node A"
    insp.g_collapsed.setChecked(True)
    assert d.group(server.id).collapsed and server.id in window.scene.boxes
    assert insp.g_collapsed.isChecked()  # still showing the (now collapsed) group
    insp.g_collapsed.setChecked(False)  # view state: not an undo step
    assert not d.group(server.id).collapsed and server.id in window.scene.frames
    window.document.undo_stack.undo()
    assert d.group(server.id).name == ""


def test_design_inspector_renames_the_design(window):
    window.scene.clearSelection()
    insp = window.inspector
    assert insp.stack.currentWidget() is insp.design_page
    insp.d_name.setText("My fabric")
    insp.d_name.editingFinished.emit()
    assert window.document.design.name == "My fabric"
    window.document.undo_stack.undo()
    assert window.document.design.name == "Untitled" and insp.d_name.text() == "Untitled"


def test_connect_mode_joins_devices_without_alt(window):
    ed = window.editor
    a = ed.place_component("qm9700", QPointF(0, 0))
    b = ed.place_component("qm9700", QPointF(0, -200))
    window.view.zoom_by(1.0 / window.view.scale_factor())
    window.view.centerOn(0, -100)
    window.actions_by_name["connect_mode"].setChecked(True)
    drag(window, scene_point(window, 0, 0), scene_point(window, 0, -200))
    d = window.document.design
    assert d.link_count() == 1 and {d.links[0].a_device, d.links[0].b_device} == {a, b}
    window.actions_by_name["connect_mode"].setChecked(False)
    drag(window, scene_point(window, 0, 0), scene_point(window, 100, 0))
    assert d.link_count() == 1 and d.device(a).x == 100  # a plain drag moves again


def test_paste_and_select_all_actions(window):
    ed = window.editor
    ed.place_component("h100-sxm", QPointF(0, 0))
    window.actions_by_name["select_all"].trigger()
    window.actions_by_name["copy"].trigger()
    window.actions_by_name["paste"].trigger()
    window.actions_by_name["duplicate"].trigger()
    assert window.document.design.device_count() == 3


def test_recent_files_menu(window, tmp_path):
    window.editor.place_component("h100-sxm", QPointF(0, 0))
    window._save_to(tmp_path / "one.json")
    actions = window.recent_menu.actions()
    assert actions and actions[0].text().endswith("one.json") and window.recent_menu.isEnabled()


def test_wheel_zooms_around_the_cursor(window):
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    window.insert_generated(GENERATORS["fat-tree"].build(k=4))
    view = window.view
    view.zoom_reset()
    pos = QPointF(view.viewport().rect().center())
    event = QWheelEvent(pos, QPointF(view.viewport().mapToGlobal(pos.toPoint())), QPoint(0, 0), QPoint(0, 120),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(view.viewport(), event)
    assert abs(view.scale_factor() - 1.2) < 1e-6


def test_find_box_completes_from_the_current_design(window):
    window.actions_by_name["find"].trigger()
    assert window.find_box.completer().model().rowCount() == 0
    window.editor.place_component("qm9700", QPointF(0, 0))
    window.actions_by_name["find"].trigger()
    assert window.find_box.completer().model().rowCount() == 1
    window.find_box.setText("switch-1")
    window.find_box.returnPressed.emit()
    assert window.scene.selected_device_ids() == ["switch-1"]


def test_scroll_range_grows_with_the_design(window):
    window.view.zoom_to_fit()
    window.editor.place_component("qm9700", QPointF(50_000, 0))
    assert window.view.sceneRect().contains(QPointF(51_000, 0))
