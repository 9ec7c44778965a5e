"""More edit kinds undo and redo exactly: inspector fields, ungroup, duplicate, cut, cable drop."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QPointF

from designer.generators import GENERATORS
from designer.gui.canvas.editor import MIME_CABLE
from designer.gui.canvas.shown import ShownKey
from designer.io import design_to_text


def test_inspector_and_menu_edits_undo_and_redo_exactly(window):
    d = window.document.design
    ed, insp, scene = window.editor, window.inspector, window.scene
    stack = window.document.undo_stack
    window.insert_generated(GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8, spines=1, gpus_per_node=4,
                                                            nodes_per_rack=2))
    a = ed.place_component("qm9700", QPointF(0, -600))
    b = ed.place_component("qm9700", QPointF(400, -600))
    ed.connect_ports(a, None, b, None)
    ed.connect_ports(a, None, b, None)
    stack.setClean()
    states, names = [design_to_text(d)], []

    def pair_bundle():
        scene.clearSelection()
        key = next(k for k in scene.bundle_items if set(k) == {ShownKey.device(a), ShownKey.device(b)})
        scene.bundle_items[key].setSelected(True)
        assert insp.stack.currentWidget() is insp.link_page

    def frame(kind):
        g = next(g for g in d.groups if g.kind == kind and g.id in scene.frames)
        scene.clearSelection()
        scene.frames[g.id].setSelected(True)
        return g.id

    def combo(box, data=None, text=None):
        i = box.findData(data) if data is not None else box.findText(text)
        box.setCurrentIndex(i)
        box.activated.emit(i)

    def cable_drop():
        window.view.zoom_reset()
        item = next(iter(scene.bundle_items.values()))
        mime = QMimeData()
        mime.setData(MIME_CABLE, b"dr4-400g-sm")
        assert window.view.handle_drop(mime, item.mapToScene(item.line().center()))

    def group_name():
        frame("server")
        insp.g_name.setText("N1")
        insp.g_name.editingFinished.emit()

    edits = {
        "medium": lambda: (pair_bundle(), combo(insp.l_medium, data="aoc")),
        "length": lambda: (pair_bundle(), insp.l_length.setValue(12.5)),
        "cable": lambda: (pair_bundle(), combo(insp.l_cable, data="sr4-400g-mm")),
        "failed": lambda: (pair_bundle(), insp.l_failed.setChecked(True)),
        "tier": lambda: (scene.select_devices([a]), insp.v_tier.setCurrentText("spine"),
                         insp.v_tier.lineEdit().editingFinished.emit()),
        "x": lambda: (scene.select_devices([a]), insp.v_x.setValue(120)),
        "y": lambda: (scene.select_devices([a]), insp.v_y.setValue(-640)),
        "group name": group_name,
        "group kind": lambda: (frame("server"), combo(insp.g_kind, text="custom")),
        "design name": lambda: (scene.clearSelection(), insp.d_name.setText("X"), insp.d_name.editingFinished.emit()),
        "description": lambda: (scene.clearSelection(), insp.d_desc.setText("d"), insp.d_desc.editingFinished.emit()),
        "ungroup": lambda: (frame("server"), ed.ungroup_selection()),
        "duplicate": lambda: (scene.select_devices([a, b]), ed.duplicate_selection()),
        "cable drop": cable_drop,
        "cut": lambda: (scene.select_devices([a]), ed.cut_selection()),
    }
    for name, edit in edits.items():
        count = stack.count()
        edit()
        assert stack.count() == count + 1, f"{name} should be one undo step"
        assert window.isWindowModified()
        states.append(design_to_text(d))
        names.append(name)
    for i in range(len(states) - 1, 0, -1):
        stack.undo()
        assert design_to_text(d) == states[i - 1], f"undo of {names[i - 1]}"
        assert window.isWindowModified() == (i - 1 != 0)  # the marker follows the clean state
    for i in range(1, len(states)):
        stack.redo()
        assert design_to_text(d) == states[i], f"redo of {names[i - 1]}"
