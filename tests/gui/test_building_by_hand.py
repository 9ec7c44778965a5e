"""Building by hand follows the rules: cables per twin-port cage, Connect Selected, rail-wise
cabling, placed servers named after the next free one, Find inside collapsed groups, the canvas menu."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF

from designer.analysis.common.cages import mixed_cages
from designer.gui.panels.generate_dialog import server_presets
from designer.gui.window.canvas_menu import cable_selected_rail_wise, connect_selected

SCENE_M = 50.0  # scene units per metre (designer.gui.style.SCENE_UNITS_PER_M)


def _server_params(window) -> dict:
    return next(params for _title, params, _tip in server_presets(window.catalog) if params["gpu"] == "h100-sxm")


def _two_servers_one_leaf(window) -> tuple[list[str], str]:
    ed = window.editor
    params = _server_params(window)
    ed.place_server(params, QPointF(0, 0))
    ed.place_server(params, QPointF(0, 600))
    leaf = ed.place_component("qm9700", QPointF(0, -400))
    servers = [g.id for g in window.document.design.groups if g.kind == "server"]
    return servers, leaf


def test_links_dragged_one_by_one_into_twin_port_cages_never_mix_media(window):
    """Eight NICs at 1 m to 9 m from a QM9700, connected one at a time: every cage holds one medium."""
    ed = window.editor
    sw = ed.place_component("qm9700", QPointF(0, 0))
    nics = [ed.place_component("connectx-7-400g", QPointF(0, (i + 1) * SCENE_M * (1 if i % 2 else 8)))
            for i in range(8)]
    for nic in nics:
        assert ed.connect_ports(nic, None, sw, None)
    d = window.document.design
    assert d.link_count() == 8 and mixed_cages(d, window.catalog) == []
    for lk in d.iter_links():
        assert window.catalog.cables[lk.cable].reach_m >= lk.length_m
    # one drag was one undo step, the cage's other link retuned with it
    window.document.undo_stack.undo()
    assert d.link_count() == 7 and mixed_cages(d, window.catalog) == []


def test_connect_selected_puts_two_servers_on_one_leaf_in_rail_order_in_one_step(window):
    servers, leaf = _two_servers_one_leaf(window)
    assert servers == ["node1", "node2"]
    d = window.document.design
    stack = window.document.undo_stack
    count = stack.count()
    window.scene.clearSelection()
    for gid in servers:
        window.scene.frames[gid].setSelected(True)
    window.scene.device_items[leaf].setSelected(True)
    ids = connect_selected(window)
    assert len(ids) == 16 and stack.count() == count + 1
    ends = [(d.link(i).a_device, d.link(i).b_port) for i in ids]
    assert ends == [(f"node{s}-nic{r}", f"p{(s - 1) * 8 + r}") for s in (1, 2) for r in range(1, 9)]
    assert mixed_cages(d, window.catalog) == []
    assert stack.undoText() == f"Connect 16 NICs to {leaf}"
    stack.undo()
    assert not d.links_of(leaf)


def test_rail_wise_cabling_puts_rail_r_on_leaf_r(window):
    ed = window.editor
    params = _server_params(window)
    ed.place_server(params, QPointF(0, 0))
    ed.place_server(params, QPointF(0, 600))
    leaves = [ed.place_component("qm9700", QPointF(x, -400)) for x in (-600, -200, 200, 600)]
    window.scene.clearSelection()
    for gid in ("node1", "node2"):
        window.scene.frames[gid].setSelected(True)
    for leaf in leaves:
        window.scene.device_items[leaf].setSelected(True)
    ids = cable_selected_rail_wise(window)
    d = window.document.design
    assert len(ids) == 16
    for lid in ids:
        lk = d.link(lid)
        rail = int(lk.a_device.rsplit("nic", 1)[1]) - 1
        assert lk.b_device == leaves[rail % 4]
    assert mixed_cages(d, window.catalog) == []


def test_a_second_placed_server_is_node2_with_its_own_title_and_the_view_keeps_still(window):
    ed = window.editor
    params = _server_params(window)
    ed.place_server(params, QPointF(0, 0))
    window.view.centerOn(0, 0)
    before = window.view.mapToScene(window.view.viewport().rect().center())
    ed.place_server(params, QPointF(100, 100))
    after = window.view.mapToScene(window.view.viewport().rect().center())
    d = window.document.design
    assert d.has_group("node2") and d.has_device("node2-gpu1") and not d.has_device("node1-gpu1-2")
    assert d.group("node1").label != d.group("node2").label and d.group("node2").label.startswith("node2")
    assert (after - before).manhattanLength() < 1.0


def test_find_inside_a_collapsed_group_selects_the_device_not_the_group(window):
    servers, _leaf = _two_servers_one_leaf(window)
    window.editor.collapse_all("server")
    assert window.scene.shown_key_of("node2-gpu3").is_group
    steps = window.document.undo_stack.count()
    assert window.find_device("node2-gpu3") == "node2-gpu3"
    assert window.scene.selected_device_ids() == ["node2-gpu3"] and window.scene.selected_group_ids() == []
    assert not window.document.design.group("node2").collapsed and window.document.design.group("node1").collapsed
    assert window.document.undo_stack.count() == steps  # opening the group is view state
    window.editor.delete_selection()
    assert not window.document.design.has_device("node2-gpu3") and window.document.design.has_device("node2-gpu4")


def _menu_at(window, item) -> list[str]:
    window.view.centerOn(item)
    pos = window.view.mapFromScene(item.sceneBoundingRect().center())
    menu = window.live.context_menu(QPoint(pos.x(), pos.y()))
    return menu, [a.text() for a in menu.actions() if a.text()]


def test_canvas_menu_offers_more_than_fail_and_restore(window):
    servers, leaf = _two_servers_one_leaf(window)
    d = window.document.design
    menu, texts = _menu_at(window, window.scene.device_items["node1-gpu1"])
    assert {"Properties", "Select Neighbours", "Select Same Model (h100-sxm)", "Fail node1-gpu1"} <= set(texts)
    assert any(t.replace("&", "").startswith("Delete") for t in texts)
    next(a for a in menu.actions() if a.text() == "Select Same Model (h100-sxm)").trigger()
    assert sorted(window.scene.selected_device_ids()) == sorted(dv.id for dv in d.iter_devices()
                                                                  if dv.model == "h100-sxm")
    window.scene.select_devices(["node1-gpu1"])
    menu, _ = _menu_at(window, window.scene.device_items["node1-gpu1"])
    next(a for a in menu.actions() if a.text() == "Select Neighbours").trigger()
    assert set(window.scene.selected_device_ids()) == {"node1-gpu1", "node1-nvsw", "node1-nic1"}
    # a switch under the mouse with NICs selected: Connect Selected ▸ to it
    window.scene.select_devices([dv.id for dv in d.all_members("node1") if dv.kind == "nic"])
    window.scene.device_items[leaf].setSelected(True)
    menu, texts = _menu_at(window, window.scene.device_items[leaf])
    connect = next(a for a in menu.actions() if a.text() == f"Connect Selected \u25b8 to {leaf}")
    connect.trigger()
    assert len(d.links_of(leaf)) == 8
    # a collapsed group: Expand; the empty canvas: Paste, Select All, Zoom to Fit
    window.editor.set_collapsed(["node2"], True)
    menu, texts = _menu_at(window, window.scene.boxes["node2"])
    assert "Expand node2" in texts and "Select Neighbours" in texts
    window.view.centerOn(QPointF(5000, 5000))
    empty = window.view.mapFromScene(QPointF(5000, 5000))
    texts = [a.text().replace("&", "") for a in window.live.context_menu(empty).actions()]
    assert texts == ["Paste", "Select All", "Zoom to Fit"]
