"""Groups, collapse, generate, copy/paste, find and large designs."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QApplication

from designer.generators import GENERATORS
from designer.gui.canvas.items import CollapsedGroupItem
from designer.gui.canvas.shown import ShownKey
from designer.gui.document.document import auto_collapse, shown_count
from designer.gui.panels.generate_dialog import GenerateDialog
from designer.io import design_to_text, load_design

SAMPLES = Path(__file__).resolve().parents[2] / "sample_designs"


def server_window(window, nodes: int = 2):
    d = GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=nodes * 4, spines=1, gpus_per_node=4,
                                        nodes_per_rack=nodes)
    window.insert_generated(d)
    return window.document.design


def test_generate_dialog_builds_from_the_registry_and_inserts_one_step(window):
    dialog = GenerateDialog(window.catalog, window)
    assert [dialog.kinds.item(i).data(Qt.ItemDataRole.UserRole) for i in range(dialog.kinds.count())] \
        == list(GENERATORS)
    form = dialog.select_kind("fat-tree")
    form.set_value("k", 4)
    design = dialog.build()
    assert sum(1 for d in design.devices if d.kind == "switch") == 20
    stack = window.document.undo_stack
    ids = window.insert_generated(design)
    assert len(ids) == design.device_count() == window.document.design.device_count()
    assert stack.count() == 1 and stack.undoText().startswith("Generate")
    stack.undo()
    assert window.document.design.device_count() == 0 and not window.scene.device_items
    stack.redo()
    assert window.document.design.device_count() == len(ids)
    # impossible parameters are refused in the dialog, with the generator's message
    form.set_value("k", 5)
    dialog.try_accept()
    assert "k" in dialog.error.text() and dialog.result_design is None
    dialog.close()


def test_second_generate_goes_beside_the_first_with_fresh_ids(window):
    d1 = GENERATORS["fat-tree"].build(k=4)
    window.insert_generated(d1)
    first_right = max(dev.x for dev in window.document.design.devices)
    ids = window.insert_generated(GENERATORS["fat-tree"].build(k=4))
    d = window.document.design
    assert d.device_count() == 2 * d1.device_count()
    assert min(d.device(i).x for i in ids) > first_right
    assert len(set(ids) & {dev.id for dev in d1.devices}) == 0


def test_group_collapse_and_expand(window):
    d = server_window(window)
    server = next(g for g in d.groups if g.kind == "server")
    members = {m.id for m in d.all_members(server.id)}
    assert members <= set(window.scene.device_items)
    assert server.id in window.scene.frames
    links_before = len(window.scene.bundle_items)
    assert window.editor.set_collapsed([server.id], True)
    assert server.id in window.scene.boxes and not members & set(window.scene.device_items)
    box = window.scene.boxes[server.id]
    # external links of the collapsed server are bundled onto its box, internal ones vanish
    keys = [k for k in window.scene.bundle_items if ShownKey.group(server.id) in k]
    assert keys and len(window.scene.bundle_items) < links_before
    assert "GPU" in box._summary
    assert window.editor.set_collapsed([server.id], False)
    assert server.id in window.scene.frames and members <= set(window.scene.device_items)
    assert len(window.scene.bundle_items) == links_before


def test_moving_a_collapsed_group_moves_its_members(window):
    d = server_window(window)
    server = next(g for g in d.groups if g.kind == "server")
    window.editor.set_collapsed([server.id], True)
    before = {m.id: (m.x, m.y) for m in d.all_members(server.id)}
    box = window.scene.boxes[server.id]
    window.editor.commit_move([box], QPointF(100, -40))
    after = {m.id: (m.x, m.y) for m in d.all_members(server.id)}
    assert all(after[i] == (x + 100, y - 40) for i, (x, y) in before.items())
    window.document.undo_stack.undo()
    assert {m.id: (m.x, m.y) for m in d.all_members(server.id)} == before


def test_group_and_ungroup_selection(window):
    ed = window.editor
    ids = [ed.place_component("h100-sxm", QPointF(x, 0)) for x in (0, 100, 200)]
    window.scene.select_devices(ids[:2])
    gid = ed.group_selection()
    d = window.document.design
    assert gid and [m.id for m in d.members(gid)] == ids[:2] and gid in window.scene.frames
    assert window.scene.selected_group_ids() == [gid]
    ed.ungroup_selection()
    assert not d.has_group(gid) and all(d.device(i).group is None for i in ids)
    window.document.undo_stack.undo()
    assert {m.id for m in d.members(gid)} == set(ids[:2])
    window.document.undo_stack.undo()
    assert not d.has_group(gid)


def test_delete_a_group_removes_its_contents_and_undo_restores(window):
    d = server_window(window)
    before = design_to_text(d)
    server = next(g for g in d.groups if g.kind == "server")
    window.scene.clearSelection()
    window.scene.frames[server.id].setSelected(True)
    assert window.editor.delete_selection()
    assert not d.has_group(server.id)
    window.document.undo_stack.undo()
    assert design_to_text(d) == before


def test_copy_paste_within_and_between_windows(window, make_window):
    d = server_window(window)
    server = next(g for g in d.groups if g.kind == "server")
    members = d.all_members(server.id)
    internal = {lk.id for m in members for lk in d.links_of(m.id)
                if d.device(lk.other(m.id)).group == server.id}
    window.scene.clearSelection()
    window.scene.frames[server.id].setSelected(True)
    assert window.editor.copy_selection() is not None
    n_dev, n_link = d.device_count(), d.link_count()
    pasted = window.editor.paste()
    assert len(pasted) == len(members)
    assert d.device_count() == n_dev + len(members)
    assert d.link_count() == n_link + len(internal)  # links within the selection, none to outside
    assert not set(pasted) & {m.id for m in members}
    assert window.document.undo_stack.undoText().startswith("Paste")
    other = make_window()
    pasted2 = other.editor.paste(QPointF(0, 0))
    assert len(pasted2) == len(members) and other.document.design.link_count() == len(internal)
    assert len(other.document.design.groups) == 1  # the server group came along
    window.document.undo_stack.undo()
    assert d.device_count() == n_dev
    # duplicate = copy + paste in one step
    window.scene.select_devices([members[0].id])
    dup = window.editor.duplicate_selection()
    assert len(dup) == 1 and d.device(dup[0]).model == members[0].model


def test_find_device_selects_and_centres(window):
    d = server_window(window)
    target = [dev for dev in d.devices if dev.kind == "gpu"][-1]
    window.view.zoom_by(0.2 / window.view.scale_factor())
    assert window.find_device(target.id.upper()) == target.id
    assert window.scene.selected_device_ids() == [target.id]
    centre = window.view.mapToScene(window.view.viewport().rect().center())
    assert abs(centre.x() - target.x) < 60 and abs(centre.y() - target.y) < 60
    assert window.find_device("no-such-thing") is None


def test_large_design_opens_collapsed_and_stays_light(window):
    design = load_design(SAMPLES / "superpod-h100-4su.json")
    assert shown_count(design) > 100
    auto_collapse(design, limit=100)
    assert shown_count(design) <= 100
    window.document.set_design(design, None, collapse=False)
    assert len(window.scene.device_items) + len(window.scene.boxes) == shown_count(design)
    assert not window.document.is_modified()
    assert all(isinstance(b, CollapsedGroupItem) for b in window.scene.boxes.values())


def test_level_of_detail_draws_zoomed_out_and_in(window):
    server_window(window)
    image = QImage(800, 600, QImage.Format.Format_ARGB32)
    for scale in (0.05, 0.4, 4.0):
        window.view.zoom_by(scale / window.view.scale_factor())
        image.fill(0)
        p = QPainter(image)
        window.view.render(p)
        p.end()
        assert window.view.scale_factor() == scale
    QApplication.processEvents()


def test_title_shows_modified_marker(window):
    assert not window.isWindowModified()
    window.editor.place_component("h100-sxm", QPointF(0, 0))
    assert window.isWindowModified() and "[*]" in window.windowTitle()
    window.document.undo_stack.undo()
    assert not window.isWindowModified()


def test_pasting_a_collapsed_group_shows_one_box_with_its_counts(window):
    d = server_window(window)
    server = next(g for g in d.groups if g.kind == "server")
    window.editor.set_collapsed([server.id], True)
    window.scene.clearSelection()
    window.scene.boxes[server.id].setSelected(True)
    window.editor.copy_selection()
    before = set(window.scene.boxes)
    window.editor.paste()
    new_boxes = set(window.scene.boxes) - before
    assert len(new_boxes) == 1
    box = window.scene.boxes[new_boxes.pop()]
    assert box.isVisible() and "4 GPUs" in box.texts()[1]


def _scene_state(scene):
    return (
        set(scene.device_items),
        set(scene.boxes),
        set(scene.frames),
        {key: sorted(scene.bundle_link_ids(key)) for key in scene.bundle_items},
        {did: item.pos() for did, item in scene.device_items.items()},
        # where each link line is drawn, and how (its ends, its arc, its pen's colour and width)
        {key: (item.ends(), item._control, item.draw_pen().color().name(), item.draw_pen().widthF())
         for key, item in scene.bundle_items.items()},
        {gid: (box.pos(), box.rect()) for gid, box in scene.boxes.items()},
    )


def test_collapse_and_expand_update_the_scene_like_a_rebuild(window):
    design = load_design(SAMPLES / "superpod-h100-1su.json")
    window.document.set_design(design, None, collapse=False)
    d = window.document.design
    sequence = [("su1-node1", True), ("su1-rack1", True), ("su1-node2", True), ("su1-rack1", False),
                ("su1", True), ("su1-node1", False), ("su1", False), ("su1-node2", False)]
    for gid, collapsed in sequence:
        assert window.editor.set_collapsed([gid], collapsed)
        incremental = _scene_state(window.scene)
        window.scene.rebuild()
        assert _scene_state(window.scene) == incremental, (gid, collapsed)
    assert not any(g.collapsed for g in d.groups if g.id in ("su1", "su1-rack1", "su1-node1", "su1-node2"))


def test_a_large_deletion_and_its_undo_update_the_scene_like_a_rebuild(window):
    """More events than REBUILD_THRESHOLD, but few for the design, are applied one by one (a pod of
    a large design is deleted so, not by rebuilding the scene) and leave the items a rebuild would
    make, with servers or racks collapsed."""
    from designer.gui.canvas.scene_events import REBUILD_THRESHOLD

    scene = window.scene
    rebuilds: list[int] = []
    real_rebuild = scene.rebuild
    scene.rebuild = lambda: (rebuilds.append(1), real_rebuild())
    try:
        for collapse in ("server", "rack"):
            design = GENERATORS["rail-optimized"].build(sus=24, nodes_per_su=16)  # 22,240 records
            for g in design.groups:
                if g.kind == collapse:
                    design.set_group_field(g.id, "collapsed", True)
            window.document.set_design(design, None, collapse=False)
            d = window.document.design
            su = next(g for g in d.groups if g.kind == "su")
            child_order = [c.id for c in d.child_groups(su.id)]
            records = d.device_count() + d.link_count()
            scene.clearSelection()
            (scene.boxes.get(su.id) or scene.frames[su.id]).setSelected(True)
            rebuilds.clear()
            text = design_to_text(d)
            window.editor.delete_selection()
            gone = records - d.device_count() - d.link_count()
            assert not d.has_group(su.id) and REBUILD_THRESHOLD < gone <= records // 20
            stack = window.document.undo_stack
            for step in (None, stack.undo, stack.redo, stack.undo):
                if step is not None:
                    step()
                assert not rebuilds, (collapse, step)  # events are fewer than a twentieth of the records
                incremental = _scene_state(scene)
                real_rebuild()
                assert _scene_state(scene) == incremental, (collapse, step)
            assert d.has_group(su.id) and d.device_count() + d.link_count() == records
            assert design_to_text(d) == text and [c.id for c in d.child_groups(su.id)] == child_order
    finally:
        del scene.rebuild


def test_collapse_all_servers_and_expand_all_are_view_state(window):
    d = server_window(window)
    stack = window.document.undo_stack
    count, modified = stack.count(), window.document.is_modified()
    window.actions_by_name["collapse_servers"].trigger()
    servers = [g.id for g in d.groups if g.kind == "server"]
    assert all(d.group(s).collapsed for s in servers) and set(servers) <= set(window.scene.boxes)
    window.actions_by_name["expand_all"].trigger()
    assert not any(g.collapsed for g in d.groups) and not window.scene.boxes
    assert stack.count() == count and window.document.is_modified() == modified
