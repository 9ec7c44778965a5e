"""Editing on the canvas through the real widgets: place, connect, move, delete, inspect, undo."""

from __future__ import annotations

from gui_helpers import drag, drop_from_palette, port_point, scene_point
from PySide6.QtCore import QMimeData, QPointF, Qt

from designer.gui.canvas.editor import MIME_CABLE, MIME_COMPONENT
from designer.gui.document.commands import SetLinkFieldCommand


def test_drop_from_palette_places_device_and_undo_redo(window):
    drop_from_palette(window, "h100-sxm", 95, 42)
    d = window.document.design
    assert [dev.id for dev in d.devices] == ["gpu-1"]
    dev = d.device("gpu-1")
    assert (dev.kind, dev.model) == ("gpu", "h100-sxm")
    assert (dev.x, dev.y) == (100.0, 40.0)  # snapped to the 20-unit grid
    assert "gpu-1" in window.scene.device_items
    assert window.document.is_modified() and window.isWindowModified()
    window.document.undo_stack.undo()
    assert d.device_count() == 0 and not window.scene.device_items
    assert not window.document.is_modified()
    window.document.undo_stack.redo()
    assert d.has_device("gpu-1") and "gpu-1" in window.scene.device_items


def test_palette_search_filters_groups(window):
    window.palette.search.setText("quantum")
    shown = [e for e in window.palette.entries() if not window.palette.item_for(e[2]).isHidden()]
    assert shown and all(group == "Switches" for group, _, _ in shown)
    titles = [group for group, _, _ in window.palette.entries()]
    for group in ("GPUs", "Servers", "NICs", "NVLink switches", "Switches", "Storage", "Cables"):
        assert group in titles


def test_connect_two_ports_by_dragging(window):
    window.view.zoom_by(3.0 / window.view.scale_factor())
    window.view.centerOn(0, 50)
    drop_from_palette(window, "h100-sxm", 0, 0)
    drop_from_palette(window, "connectx-7-400g", 0, 100)
    drag(window, port_point(window, "gpu-1", "pcie1"), port_point(window, "nic-1", "pcie1"))
    d = window.document.design
    assert d.link_count() == 1
    link = d.links[0]
    assert {link.a, link.b} == {"gpu-1:pcie1", "nic-1:pcie1"}
    assert link.medium == "pcie" and link.cable == "pcie-board"
    assert len(window.scene.bundle_items) == 1
    stack = window.document.undo_stack
    stack.undo()
    assert d.link_count() == 0 and not window.scene.bundle_items
    stack.redo()
    assert d.link_count() == 1


def test_incompatible_ports_are_refused_with_a_message(window):
    window.view.zoom_by(3.0 / window.view.scale_factor())
    window.view.centerOn(0, 50)
    drop_from_palette(window, "h100-sxm", 0, 0)
    drop_from_palette(window, "connectx-7-400g", 0, 100)
    drag(window, port_point(window, "gpu-1", "nvl1"), port_point(window, "nic-1", "p1"))
    assert window.document.design.link_count() == 0
    assert "cannot join a nvlink port" in window.statusBar().currentMessage()


def test_device_to_device_takes_next_free_port_and_medium_by_reach(window):
    window.view.zoom_by(0.5 / window.view.scale_factor())
    window.view.centerOn(0, 0)
    for x, y in ((0, 300), (300, 300), (0, 0)):
        drop_from_palette(window, "connectx-7-400g", x, y)
    drop_from_palette(window, "qm9700", 0, -300)
    d = window.document.design
    sw = window.scene.device_items["switch-1"]
    # nic-1 is 6 m from the switch: copper does not reach, an AOC does
    drag(window, scene_point(window, 0, 300), window.view.mapFromScene(sw.pos()), Qt.KeyboardModifier.AltModifier)
    # nic-3 is 3 m away, on port p2, the twin of p1 in one OSFP cage: the cage's AOC reaches, so it
    # takes that (passive copper beside an AOC in one cage breaks the design rules)
    drag(window, scene_point(window, 0, 0), window.view.mapFromScene(sw.pos()), Qt.KeyboardModifier.AltModifier)
    assert d.link_count() == 2
    far, near = d.links
    assert (far.a_port, far.b_port) == ("p1", "p1") and far.length_m == 6.0 and far.medium == "aoc"
    assert (near.a_port, near.b_port) == ("p1", "p2") and near.length_m == 3.0 and near.cable == far.cable


def test_delete_device_removes_its_links_and_undo_restores_order(window):
    ed = window.editor
    gpu = ed.place_component("h100-sxm", QPointF(0, 0))
    nic = ed.place_component("connectx-7-400g", QPointF(0, 100))
    sw = ed.place_component("qm9700", QPointF(0, -300))
    nic2 = ed.place_component("connectx-7-400g", QPointF(200, 100))
    ed.connect_ports(gpu, None, nic, None)
    ed.connect_ports(nic, "p1", sw, None)
    ed.connect_ports(nic2, "p1", sw, None)
    d = window.document.design
    before_devices = [x.id for x in d.devices]
    before_links = [x.id for x in d.links]
    window.scene.select_devices([nic])
    window.actions_by_name["delete"].trigger()
    assert not d.has_device(nic) and d.link_count() == 1
    assert window.document.undo_stack.undoText().startswith("Delete 1 device, 2 links")
    window.document.undo_stack.undo()
    assert [x.id for x in d.devices] == before_devices
    assert [x.id for x in d.links] == before_links
    assert len(window.scene.bundle_items) == 3
    window.document.undo_stack.redo()
    assert d.link_count() == 1


def test_move_selection_is_one_snapped_undo_step(window):
    ed = window.editor
    a = ed.place_component("h100-sxm", QPointF(0, 0))
    b = ed.place_component("h100-sxm", QPointF(200, 0))
    window.scene.clearSelection()
    window.scene.device_items[a].setSelected(True)
    window.scene.device_items[b].setSelected(True)
    window.view.zoom_by(1.0 / window.view.scale_factor())
    window.view.centerOn(100, 0)
    count = window.document.undo_stack.count()
    start = scene_point(window, 0, -10)
    drag(window, start, scene_point(window, 133, 47))
    d = window.document.design
    assert (d.device(a).x, d.device(a).y) == (140.0, 60.0)
    assert (d.device(b).x, d.device(b).y) == (340.0, 60.0)
    assert window.document.undo_stack.count() == count + 1
    window.document.undo_stack.undo()
    assert (d.device(a).x, d.device(b).x) == (0.0, 200.0)
    assert window.scene.device_items[a].pos() == QPointF(0, 0)


def test_rubber_band_selects_devices(window):
    ed = window.editor
    ids = [ed.place_component("connectx-7-400g", QPointF(x, 0)) for x in (0, 100, 600)]
    window.view.zoom_by(1.0 / window.view.scale_factor())
    window.view.centerOn(300, 0)
    window.scene.clearSelection()
    drag(window, scene_point(window, -60, -60), scene_point(window, 160, 60))
    assert window.scene.selected_device_ids() == ids[:2]


def test_inspector_edits_are_undoable_and_follow_the_model(window):
    ed = window.editor
    gpu = ed.place_component("h100-sxm", QPointF(0, 0))
    window.scene.select_devices([gpu])
    insp = window.inspector
    assert insp.stack.currentWidget() is insp.device_page
    insp.v_name.setText("rack1 gpu A")
    insp.v_name.editingFinished.emit()
    d = window.document.design
    assert d.device(gpu).name == "rack1 gpu A"
    window.document.undo_stack.undo()
    assert d.device(gpu).name == ""
    assert insp.v_name.text() == ""  # model event -> widget
    insp.v_x.setValue(260)
    assert d.device(gpu).x == 260
    window.document.undo_stack.undo()
    assert insp.v_x.value() == 0


def test_link_inspector_sets_medium_length_and_cable_on_a_bundle(window):
    ed = window.editor
    a = ed.place_component("qm9700", QPointF(0, 0))
    b = ed.place_component("qm9700", QPointF(0, -200))
    for _ in range(3):
        ed.connect_ports(a, None, b, None)
    assert len(window.scene.bundle_items) == 1  # parallel links are bundled
    window.scene.clearSelection()
    next(iter(window.scene.bundle_items.values())).setSelected(True)
    insp = window.inspector
    assert insp.stack.currentWidget() is insp.link_page and insp.title.text() == "3 links"
    insp.l_length.setValue(40.0)
    d = window.document.design
    assert [lk.length_m for lk in d.links] == [40.0, 40.0, 40.0]
    i = insp.l_cable.findData("sr4-400g-mm")
    insp.l_cable.setCurrentIndex(i)
    insp.l_cable.activated.emit(i)
    assert {(lk.cable, lk.medium) for lk in d.links} == {("sr4-400g-mm", "optical")}
    window.document.undo_stack.undo()
    assert {lk.medium for lk in d.links} == {"passive_copper"}
    window.document.undo_stack.undo()
    assert {lk.length_m for lk in d.links} == {2.0}


def test_cable_dropped_on_a_link_changes_it(window):
    ed = window.editor
    a = ed.place_component("qm9700", QPointF(0, 0))
    b = ed.place_component("qm9700", QPointF(0, -200))
    ed.connect_ports(a, None, b, None)
    mime = QMimeData()
    mime.setData(MIME_CABLE, b"dr4-400g-sm")
    assert window.view.handle_drop(mime, QPointF(0, -100))
    link = window.document.design.links[0]
    assert (link.cable, link.medium) == ("dr4-400g-sm", "optical")
    mime2 = QMimeData()
    mime2.setData(MIME_COMPONENT, b"no-such-model")
    assert not window.view.handle_drop(mime2, QPointF(0, 0))


def test_rule_breaking_link_is_marked_and_hover_says_why(window):
    from designer.gui.canvas.describe import describe_item

    ed = window.editor
    a = ed.place_component("qm9700", QPointF(0, 0))
    b = ed.place_component("qm9700", QPointF(0, -200))
    lid = ed.connect_ports(a, None, b, None)
    window.checker.run()
    bundle = next(iter(window.scene.bundle_items.values()))
    assert bundle.draw_pen().color().name() != "#d62828"
    window.scene.select_devices([])
    window.document.push(SetLinkFieldCommand(window.document.design, [lid], "length_m", 10.0))
    window.checker.run()
    assert bundle.draw_pen().color().name() == "#d62828"
    text = describe_item(window.scene, bundle)
    assert "Design rule" in text and "reach" in text.lower()


def test_server_from_the_palette_is_one_undoable_group(window):
    payload = next(p for group, _, p in window.palette.entries() if group == "Servers" and '"h100-sxm"' in p)
    drop_from_palette(window, payload, 400, 400)
    d = window.document.design
    assert [g.kind for g in d.groups] == ["server"]
    kinds = sorted(dev.kind for dev in d.devices)
    assert kinds.count("gpu") == 8 and kinds.count("nic") == 8 and kinds.count("nvswitch") == 1
    assert d.link_count() == 16
    window.document.undo_stack.undo()
    assert d.device_count() == 0 and not d.groups and not window.scene.frames


def test_hover_text_names_the_device_and_its_ports(window):
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QGraphicsSceneHelpEvent, QToolTip

    gpu = window.editor.place_component("h100-sxm", QPointF(0, 0))
    event = QGraphicsSceneHelpEvent(QEvent.Type.GraphicsSceneHelp)
    event.setScenePos(QPointF(0, 0))
    event.setScreenPos(window.view.mapToGlobal(scene_point(window, 0, 0)))
    window.scene.helpEvent(event)
    assert event.isAccepted()
    assert gpu in QToolTip.text() and "nvlink" in QToolTip.text()


def test_click_without_drag_selects_only_the_clicked_device(window):
    ed = window.editor
    a = ed.place_component("h100-sxm", QPointF(0, 0))
    b = ed.place_component("h100-sxm", QPointF(200, 0))
    window.scene.select_devices([a, b])
    window.view.zoom_by(1.0 / window.view.scale_factor())
    window.view.centerOn(100, 0)
    from PySide6.QtTest import QTest

    QTest.mouseClick(window.view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     scene_point(window, 200, -10))
    assert window.scene.selected_device_ids() == [b]
    assert window.document.undo_stack.count() == 2  # no move was recorded


def test_device_inspector_lists_its_links_and_picks_one(window):
    ed = window.editor
    a = ed.place_component("qm9700", QPointF(0, 0))
    b = ed.place_component("qm9700", QPointF(0, -200))
    c = ed.place_component("connectx-7-400g", QPointF(200, 200))
    l1 = ed.connect_ports(a, None, b, None)
    ed.connect_ports(c, "p1", a, None)
    window.scene.select_devices([a])
    table = window.inspector.v_links
    assert table.rowCount() == 2
    assert [table.item(r, 0).text() for r in range(2)] == ["p1", "p2"]
    assert table.item(0, 1).text() == f"{b}:p1" and table.item(1, 1).text() == f"{c}:p1"
    table.cellDoubleClicked.emit(0, 0)
    assert window.scene.selected_link_ids() == [l1]


def test_escape_cancels_a_link_being_drawn(window):
    from PySide6.QtTest import QTest

    ed = window.editor
    a = ed.place_component("qm9700", QPointF(0, 0))
    ed.place_component("qm9700", QPointF(0, -200))
    window.view.zoom_by(1.0 / window.view.scale_factor())
    window.view.centerOn(0, -100)
    vp = window.view.viewport()
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.AltModifier, scene_point(window, 0, 0))
    QTest.mouseMove(vp, scene_point(window, 0, -100))
    assert window.view.interaction is not None
    QTest.keyClick(window.view, Qt.Key.Key_Escape)
    assert window.view.interaction is None
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.AltModifier, scene_point(window, 0, -200))
    assert window.document.design.link_count() == 0
    assert a in window.scene.device_items and len(window.scene.items()) == 2


def two_linked_switches(window) -> str:
    """Two switches and the link between them (its id), nothing selected."""
    ed = window.editor
    a = ed.place_component("qm9700", QPointF(0, 0))
    b = ed.place_component("qm9700", QPointF(0, -200))
    lid = ed.connect_ports(a, None, b, None)
    window.scene.select_devices([])
    return lid


def test_rule_marks_are_red_for_errors_and_amber_for_warnings(window):
    from designer.gui import style

    lid = two_linked_switches(window)
    bundle = next(iter(window.scene.bundle_items.values()))
    window.document.push(SetLinkFieldCommand(window.document.design, [lid], "length_m", 0.0))
    window.checker.run()
    assert {f.severity for f in window.checker.findings if lid in f.links} == {"warning"}
    assert window.scene.link_flagged(lid) == "warning"
    assert bundle.draw_pen().color() == style.CAUTION
    window.document.push(SetLinkFieldCommand(window.document.design, [lid], "length_m", 10.0))
    window.checker.run()
    assert window.scene.link_flagged(lid) == "error"
    assert bundle.draw_pen().color() == style.WARNING
    window.document.undo_stack.undo()
    window.document.undo_stack.undo()
    window.checker.run()
    assert window.scene.link_flagged(lid) == "" and bundle.draw_pen().color() not in (style.WARNING, style.CAUTION)


def test_rule_marks_can_be_hidden_as_view_state(window):
    from designer.gui.canvas.describe import describe_item

    lid = two_linked_switches(window)
    window.document.push(SetLinkFieldCommand(window.document.design, [lid], "length_m", 10.0))
    window.checker.run()
    window.document.undo_stack.setClean()
    bundle = next(iter(window.scene.bundle_items.values()))
    marked = bundle.draw_pen().color()
    window.actions_by_name["rule_marks"].setChecked(False)
    assert window.scene.link_flagged(lid) == "" and bundle.draw_pen().color() != marked
    assert "Design rule" in describe_item(window.scene, bundle)  # the hover still says why
    assert window.document.undo_stack.isClean() and not window.isWindowModified()
    window.actions_by_name["rule_marks"].setChecked(True)
    assert window.scene.link_flagged(lid) == "error" and bundle.draw_pen().color() == marked
