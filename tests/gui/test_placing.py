"""Placing from the palette: what is dropped lands in the nearest free space, never on top of
devices already drawn, and stays one undo step."""

from __future__ import annotations

import math

from gui_helpers import drop_from_palette
from PySide6.QtCore import QPointF, QRectF

GAP = 20  # the clear space kept around what is placed (a grid step)


def _server_payload(window) -> str:
    return next(p for group, _, p in window.palette.entries() if group == "Servers" and '"h100-sxm"' in p)


def _device_rect(window, dev_id: str) -> QRectF:
    item = window.scene.device_items[dev_id]
    return item.rect().translated(item.pos())


def _centre_of(window, ids: list[str]) -> QPointF:
    d = window.document.design
    xs = [d.device(i).x for i in ids]
    ys = [d.device(i).y for i in ids]
    return QPointF((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2)


def test_a_server_dropped_on_devices_lands_beside_them(window):
    ed = window.editor
    gpu = ed.place_component("h100-sxm", QPointF(0, 0))
    nic = ed.place_component("connectx-7-400g", QPointF(0, 100))
    stack = window.document.undo_stack
    steps = stack.count()
    drop_from_palette(window, _server_payload(window), 0, 40)
    d = window.document.design
    (server,) = d.groups
    frame = window.scene.frames[server.id].rect()
    new = [dev.id for dev in d.all_members(server.id)]
    assert len(new) == 17
    for old in (gpu, nic):
        assert d.device(old).x == 0  # the devices already there did not move
        rect = _device_rect(window, old)
        assert not frame.intersects(rect), f"{old} is inside the new server's frame"
        assert not any(_device_rect(window, n).intersects(rect) for n in new)
    # near the drop point: not further than the server's own size plus what it had to avoid
    centre = _centre_of(window, new)
    assert math.hypot(centre.x(), centre.y() - 40) <= max(frame.width(), frame.height()) + 200
    assert stack.count() == steps + 1  # still one undo step
    stack.undo()
    assert d.device_count() == 2 and not d.groups
    stack.redo()
    assert d.device_count() == 19


def test_a_component_dropped_on_a_device_lands_next_to_it(window):
    ed = window.editor
    first = ed.place_component("qm9700", QPointF(200, 200))
    drop_from_palette(window, "qm9700", 205, 195)
    d = window.document.design
    second = next(dev.id for dev in d.devices if dev.id != first)
    a, b = _device_rect(window, first), _device_rect(window, second)
    assert not a.adjusted(-GAP + 1, -GAP + 1, GAP - 1, GAP - 1).intersects(b)
    dev = d.device(second)
    assert (dev.x % 20, dev.y % 20) == (0, 0)  # still on the grid
    assert math.hypot(dev.x - 200, dev.y - 200) <= 150  # right next to the first, not far away


def test_a_drop_in_free_space_lands_exactly_there(window):
    ed = window.editor
    ed.place_component("qm9700", QPointF(0, 0))
    new = ed.place_component("qm9700", QPointF(1000, 600))
    dev = window.document.design.device(new)
    assert (dev.x, dev.y) == (1000, 600)


def test_a_server_dropped_inside_another_servers_frame_keeps_out_of_it(window):
    payload = _server_payload(window)
    drop_from_palette(window, payload, 0, 0)
    d = window.document.design
    (first,) = d.groups
    old_frame = window.scene.frames[first.id].rect()
    drop_from_palette(window, payload, old_frame.center().x(), old_frame.center().y())
    (second,) = [g for g in d.groups if g.id != first.id]
    new_frame = window.scene.frames[second.id].rect()
    assert not new_frame.intersects(old_frame)
    assert window.scene.frames[first.id].rect() == old_frame  # nothing already there moved


def test_a_component_dropped_on_a_collapsed_group_lands_outside_its_box(window):
    drop_from_palette(window, _server_payload(window), 0, 0)
    d = window.document.design
    (server,) = d.groups
    window.editor.set_collapsed([server.id], True)
    box = window.scene.boxes[server.id]
    area = box.rect().translated(box.pos())
    new = window.editor.place_component("h100-sxm", area.center())
    assert not _device_rect(window, new).intersects(area)


def test_what_is_placed_out_of_sight_is_brought_into_view(window):
    ed = window.editor
    window.view.zoom_by(1.0 / window.view.scale_factor())
    window.view.centerOn(0, 0)
    visible = window.view.visible_scene_rect()
    # a wall of switches filling the view: the next one dropped in the middle must go outside it
    x0, y0 = visible.left() - 200, visible.top() - 200
    xs = range(int(x0), int(visible.right()) + 200, 100)
    ys = range(int(y0), int(visible.bottom()) + 200, 80)
    for x in xs:
        for y in ys:
            ed.place_component("qm9700", QPointF(x, y))
    window.view.centerOn(0, 0)
    new = ed.place_component("qm9700", QPointF(0, 0))
    rect = _device_rect(window, new)
    assert not visible.adjusted(20, 20, -20, -20).contains(rect)  # it had to go beyond the wall
    assert window.view.visible_scene_rect().contains(rect)  # and the view followed it
