"""Copy / paste within a window and between windows: unique ids, links among the copies, none outside."""

from __future__ import annotations

from PySide6.QtCore import QPointF

from designer.io import design_to_text


def _chain(window) -> tuple[str, str, str]:
    """switch a -- b -- c, with a and b in a group."""
    ed = window.editor
    a = ed.place_component("qm9700", QPointF(0, 0))
    b = ed.place_component("qm9700", QPointF(300, 0))
    c = ed.place_component("qm9700", QPointF(600, 0))
    ed.connect_ports(a, None, b, None)
    ed.connect_ports(b, None, c, None)
    window.scene.select_devices([a, b])
    ed.group_selection()
    return a, b, c


def _ends_named_by_id(design) -> None:
    for link in design.links:
        assert link.id.startswith(f"{link.a_device}.{link.a_port}--{link.b_device}.{link.b_port}"), link


def test_paste_into_the_same_window_renames_and_keeps_inner_links_only(window):
    d = window.document.design
    a, b, c = _chain(window)
    window.scene.select_devices([a, b])
    assert window.editor.copy_selection()
    before = design_to_text(d)
    new = window.editor.paste()
    assert len(new) == 2 and not set(new) & {a, b, c}
    pasted = [lk for lk in d.links if lk.a_device in new or lk.b_device in new]
    assert len(pasted) == 1 and {pasted[0].a_device, pasted[0].b_device} == set(new)  # b--c stayed behind
    _ends_named_by_id(d)  # was: the copy kept 'switch-1.p1--switch-2.p1-2' while joining switch-4 and 5
    new_group = d.device(new[0]).group
    assert new_group not in (None, d.device(a).group) and d.device(new[1]).group == new_group
    assert window.scene.selected_device_ids() == new
    window.document.undo_stack.undo()
    assert design_to_text(d) == before


def test_paste_into_another_window_names_links_after_their_new_ends(window, make_window):
    a, b, _c = _chain(window)
    window.scene.select_devices([a, b])
    assert window.editor.copy_selection()
    other = make_window()
    mine = other.editor.place_component("qm9700", QPointF(0, 0))  # takes the id a had
    assert mine == a
    new = other.editor.paste(QPointF(0, 300))
    od = other.document.design
    assert len(new) == 2 and mine not in new and od.device_count() == 3
    assert od.link_count() == 1
    _ends_named_by_id(od)  # was: 'switch-1.p1--switch-2.p1', though switch-1 is not one of its ends
    assert not od.links_of(mine)
    assert len(od.groups) == 1 and {od.device(i).group for i in new} == {od.groups[0].id}


def test_paste_without_clashes_keeps_the_ids(window, make_window):
    a, b, _c = _chain(window)
    window.scene.select_devices([a, b])
    link_id = window.document.design.links_of(a)[0].id
    assert window.editor.copy_selection()
    other = make_window()
    assert other.editor.paste() == [a, b]
    assert [lk.id for lk in other.document.design.links] == [link_id]


def test_pasted_devices_out_of_sight_are_brought_into_view(window, make_window):
    ed = window.editor
    far = [ed.place_component("qm9700", QPointF(8000 + 300 * i, 6000)) for i in range(2)]
    window.scene.select_devices(far)
    assert ed.copy_selection()
    other = make_window()
    for x, y in ((0, 0), (12000, 9000)):  # the scroll range already covers where the paste lands
        other.editor.place_component("qm9700", QPointF(x, y))
    other.view.zoom_reset()
    other.view.centerOn(0, 0)
    other.actions_by_name["paste"].trigger()
    od = other.document.design
    assert od.device_count() == 4
    pasted = other.scene.selected_device_ids()
    assert len(pasted) == 2
    visible = other.view.visible_scene_rect()
    assert all(visible.contains(QPointF(od.device(i).x, od.device(i).y)) for i in pasted)
