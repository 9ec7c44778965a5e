"""Links along a row of devices that skip over the devices between them are drawn as arcs."""

from __future__ import annotations

from designer.generators import GENERATORS
from designer.io import save_design


def _bundle(window, a: str, b: str):
    for key, item in window.scene.bundle_items.items():
        ids = set(window.scene.bundle_link_ids(key))
        if any(lid in ids for lid in (f"{a}--{b}", f"{b}--{a}")):
            return item
    raise AssertionError(f"no bundle between {a} and {b}")


def test_a_full_mesh_server_draws_far_links_as_arcs_below_the_row(window, tmp_path):
    path = tmp_path / "mesh.json"
    save_design(GENERATORS["server"].build(gpu="mi300x", nvlink="mesh"), path)
    assert window.open_path(str(path))
    near = _bundle(window, "node1-gpu1", "node1-gpu2")
    far = _bundle(window, "node1-gpu1", "node1-gpu8")
    g1 = window.scene.device_items["node1-gpu1"]
    g3 = window.scene.device_items["node1-gpu3"]
    # Neighbours: a straight line. Far apart: an arc whose lowest point clears the GPUs between.
    assert near.boundingRect().height() < 12
    lowest = far.mapRectToScene(far.boundingRect()).bottom()
    assert lowest > g3.mapRectToScene(g3.rect()).bottom() + 4
    assert abs(g1.pos().y() - g3.pos().y()) < 0.5
    # The arc is what a click hits: a point on the straight line between the ends is not the link.
    mid_line = (g1.pos() + window.scene.device_items["node1-gpu8"].pos()) / 2
    assert not far.contains(far.mapFromScene(mid_line))
    assert far.contains(far._curve.pointAtPercent(0.5))  # the arc's own middle is


def test_switched_fabrics_keep_straight_links(window, tmp_path):
    path = tmp_path / "server.json"
    save_design(GENERATORS["server"].build(), path)  # GPUs on an NVLink switch in their row
    assert window.open_path(str(path))
    for item in window.scene.bundle_items.values():
        assert item._curve is None
