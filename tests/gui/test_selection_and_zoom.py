"""A selection survives zooming; collapsed boxes keep their colour; Actual Size keeps context."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QImage, QPainter

from designer.generators import GENERATORS
from designer.gui.canvas.view import DesignView
from designer.gui.style import LOD_SKETCH


def _one_link(window):
    window.insert_generated(GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8, spines=1))
    scene = window.scene
    link = next(lk for lk in window.document.design.iter_links() if lk.b_device.startswith("spine"))
    scene.select_links([link.id])
    assert link.id in scene.selected_link_ids()
    return link, scene.selected_link_ids()


def test_a_selected_link_survives_the_zoomed_out_sketch(window):
    _link, selected = _one_link(window)
    view, scene = window.view, window.scene
    view.zoom_by(0.1 / view.scale_factor())
    assert scene.sketched and view.scale_factor() < LOD_SKETCH
    assert scene.selected_link_ids() == selected
    assert window.inspector.stack.currentWidget() is window.inspector.link_page
    view.zoom_by(1.0 / view.scale_factor())
    assert not scene.sketched
    assert scene.selected_link_ids() == selected


def test_delete_removes_a_link_selected_before_zooming_out(window):
    link, _selected = _one_link(window)
    window.view.zoom_by(0.1 / window.view.scale_factor())
    window.actions_by_name["delete"].trigger()
    assert not window.document.design.has_link(link.id)


def test_links_selected_while_sketched_are_selected(window):
    window.insert_generated(GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8, spines=1))
    window.view.zoom_by(0.1 / window.view.scale_factor())
    assert window.scene.sketched
    link = next(lk for lk in window.document.design.iter_links() if lk.b_device.startswith("spine"))
    window.scene.select_links([link.id])
    assert link.id in window.scene.selected_link_ids()
    window.scene.rebuild()  # a rebuild while sketched keeps it too
    assert link.id in window.scene.selected_link_ids()


def _render(scene, rect: QRectF, scale: float) -> QImage:
    img = QImage(int(rect.width() * scale), int(rect.height() * scale), QImage.Format.Format_ARGB32)
    img.fill(QColor("white"))
    p = QPainter(img)
    scene.render(p, QRectF(0, 0, img.width(), img.height()), rect)
    p.end()
    return img


def test_collapsed_boxes_keep_their_colour_at_every_zoom(window):
    window.insert_generated(GENERATORS["rail-optimized"].build(sus=1, nodes_per_su=4))
    editor = window.editor
    d = window.document.design
    editor.set_collapsed(["su1"], True)
    window.scene.clearSelection()
    box = window.scene.boxes["su1"]
    r = box.rect().translated(box.pos())
    centre = QPointF(r.center().x(), r.center().y() + r.height() / 4)  # below the title text
    colours = []
    for scale in (1.0, 0.5, 0.21, 0.1, 0.03):
        window.view.zoom_by(scale / window.view.scale_factor())
        area = QRectF(centre.x() - 4 / scale, centre.y() - 4 / scale, 8 / scale, 8 / scale)
        img = _render(window.scene, area, scale)
        colours.append(img.pixelColor(img.width() // 2, img.height() // 2).name())
    assert len(set(colours)) == 1, colours
    assert d.group("su1").collapsed


def test_actual_size_centres_on_the_selection(window):
    ids = window.insert_generated(GENERATORS["rail-optimized"].build(sus=2, nodes_per_su=8))
    view = window.view
    view.zoom_to_fit()
    target = window.document.design.device(ids[-1])
    window.scene.select_devices([target.id])
    window.actions_by_name["zoom_100"].trigger()
    assert abs(view.scale_factor() - 1.0) < 1e-9
    centre = view.mapToScene(view.viewport().rect().center())
    assert abs(centre.x() - target.x) < 5 and abs(centre.y() - target.y) < 5


def test_actual_size_keeps_the_centre_without_a_selection(window):
    window.insert_generated(GENERATORS["rail-optimized"].build(sus=2, nodes_per_su=8))
    view: DesignView = window.view
    view.zoom_to_fit()
    window.scene.clearSelection()
    before = view.mapToScene(view.viewport().rect().center())
    window.actions_by_name["zoom_100"].trigger()
    after = view.mapToScene(view.viewport().rect().center())
    assert abs(view.scale_factor() - 1.0) < 1e-9
    assert abs(before.x() - after.x()) < 5 and abs(before.y() - after.y()) < 5


def test_actual_size_on_a_large_collapsed_design_names_what_it_shows(window):
    """At 100 % inside a collapsed box far larger than the window, its label stays in sight."""
    window.insert_generated(GENERATORS["rail-optimized"].build(sus=4, nodes_per_su=32))
    window.editor.set_collapsed(["su1", "su2", "su3", "su4"], True)
    window.scene.clearSelection()
    view = window.view
    box = window.scene.boxes["su2"]
    view.zoom_to_fit(box.rect().translated(box.pos()))
    window.actions_by_name["zoom_100"].trigger()
    visible = view.visible_scene_rect()
    assert box.rect().translated(box.pos()).contains(visible)  # the box fills the window
    labels = window.scene.shown_titles(view)
    assert "su2" in labels


def test_selecting_many_items_tells_the_window_once(window):
    # Each selectionChanged makes the inspector and the status read the whole selection: one per item
    # of a large selection made that many passes (1.3 s to select all of the 16k sample's boxes).
    window.insert_generated(GENERATORS["leaf-spine"].build(leaves=4, hosts_per_leaf=8, spines=2))
    scene = window.scene
    scene.clearSelection()
    heard = []

    def hear():
        heard.append(len(scene.selectedItems()))

    scene.selectionChanged.connect(hear)
    try:
        window.editor.select_all()
        design = window.document.design
        assert len(heard) == 1 and heard[0] == len(scene.selectedItems()) > 40
        assert scene.selected_device_ids() == [d.id for d in design.iter_devices()]
        assert window.inspector.stack.currentWidget() is window.inspector.multi_page  # it heard the end
        heard.clear()
        scene.select_devices([d.id for d in design.iter_devices()][:20])
        assert heard == [len(scene.selectedItems())] and len(scene.selected_device_ids()) == 20
        heard.clear()
        links = [lk.id for lk in design.iter_links()][:10]
        scene.select_links(links)
        assert len(heard) == 1 and set(links) <= set(scene.selected_link_ids())
    finally:
        scene.selectionChanged.disconnect(hear)  # the scene emits it again while it is destroyed
