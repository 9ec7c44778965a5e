"""Every kind of edit undoes and redoes exactly: the design text matches after each step both ways."""

from __future__ import annotations

from gui_helpers import drop_from_palette
from PySide6.QtCore import QPointF

from designer.generators import GENERATORS
from designer.io import design_to_text


def test_each_edit_undoes_and_redoes_exactly(window):
    d = window.document.design
    ed = window.editor
    stack = window.document.undo_stack
    states = [design_to_text(d)]

    def step(action) -> None:
        count = stack.count()
        action()
        assert stack.count() == count + 1, f"{action.__name__} should be one undo step"
        states.append(design_to_text(d))

    def place() -> None:
        drop_from_palette(window, "qm9700", 0, -400)

    def generate() -> None:
        window.insert_generated(GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8, spines=1,
                                                                gpus_per_node=4, nodes_per_rack=2))

    def connect() -> None:
        leaf = next(dev.id for dev in d.devices if dev.tier == "leaf" and dev.id != "switch-1")
        assert ed.connect_ports("switch-1", None, leaf, None)

    def move() -> None:
        window.scene.select_devices(["switch-1"])
        ed.commit_move([window.scene.device_items["switch-1"]], QPointF(40, 20))

    def edit_property() -> None:
        window.scene.select_devices(["switch-1"])
        window.inspector.v_name.setText("core A")
        window.inspector.v_name.editingFinished.emit()

    def group() -> None:
        spines = [dev.id for dev in d.devices if dev.tier == "spine"] + ["switch-1"]
        window.scene.select_devices(spines)
        assert ed.group_selection()

    def paste() -> None:
        server = next(g.id for g in d.groups if g.kind == "server")
        window.scene.select_devices([m.id for m in d.all_members(server)])
        assert ed.copy_selection()
        assert ed.paste()

    def delete_with_links() -> None:
        leaf = next(dev.id for dev in d.devices if dev.tier == "leaf" and dev.id != "switch-1")
        assert d.links_of(leaf)
        window.scene.clearSelection()
        window.scene.device_items[leaf].setSelected(True)
        assert ed.delete_selection()

    for action in (place, generate, connect, move, edit_property, group, paste, delete_with_links):
        step(action)
    for i in range(len(states) - 1, 0, -1):
        stack.undo()
        assert design_to_text(d) == states[i - 1], f"undo of step {i}"
    for i in range(1, len(states)):
        stack.redo()
        assert design_to_text(d) == states[i], f"redo of step {i}"
    # the scene follows: one item per shown device, none for members of collapsed groups
    shown = {i for i, item in window.scene.device_items.items() if item.scene() is window.scene}
    assert shown == set(window.scene.device_items)
    assert all(window.scene.shown_key_of(dev.id) for dev in d.devices)
