"""On the canvas, generated group frames hold their members and nothing else, and every group's
title shows: at fit zoom for the outermost groups, and close up (pinned in the window) for all."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QApplication

from designer.generators import GENERATORS
from designer.generators.layout import frame_rects
from designer.gui import style
from designer.gui.canvas.items import DeviceItem
from designer.io import load_design
from designer.model.geometry import FRAME_HEADER, FRAME_PADDING, device_box

FOLDER = Path(__file__).resolve().parents[2] / "sample_designs"
SAMPLES = sorted(p for p in FOLDER.glob("*.json") if "16k" not in p.name)
CASES = [(kind, {}) for kind in GENERATORS] + [("fat-tree", {"k": 8}), ("rail-optimized", {"sus": 4})]


def test_the_canvas_draws_with_the_geometry_the_layouts_place_with(window):
    """Device boxes and frames on screen have the sizes generators and importers lay out with."""
    assert (style.GROUP_PADDING, style.GROUP_HEADER) == (FRAME_PADDING, FRAME_HEADER)
    design = GENERATORS["rail-optimized"].build(sus=1, nodes_per_su=2)
    scene = _open(window, design)
    boxes = [item for item in scene.items() if isinstance(item, DeviceItem)]
    assert {item.kind for item in boxes} >= {"gpu", "nic", "switch"}
    for item in boxes:
        dev = design.device(item.device_id)
        rect = item.boundingRect()
        assert rect.width() >= device_box(dev.kind, dev.port_count)[0]
        assert (item._rect.width(), item._rect.height()) == pytest.approx(device_box(dev.kind, dev.port_count))


def _open(window, design):
    window.resize(1280, 800)
    window.document.set_design(design, None)
    window.editor.expand_all()  # a large design opens collapsed
    QApplication.processEvents()
    return window.scene


def _fits(view, frame) -> bool:
    """Whether the frame is wide and tall enough on screen to hold its title."""
    fm = QFontMetricsF(style.label_font(8.5, bold=True))
    r = view.viewportTransform().mapRect(frame.rect())
    return r.width() >= fm.horizontalAdvance("\u25be " + frame.title()) + 28 and r.height() >= fm.height() + 10


def _check_frames(scene, design):
    expected = frame_rects(design)
    members = {g.id: {d.id for d in design.all_members(g.id)} for g in design.groups}
    for gid, frame in scene.frames.items():
        r = frame.rect()
        e = expected[gid]
        assert (r.left(), r.top(), r.right(), r.bottom()) == pytest.approx((e.left, e.top, e.right, e.bottom)), gid
        inner = r.adjusted(1, 1, -1, -1)
        for item in scene.items(inner):
            did = getattr(item, "device_id", None)
            if did is not None:
                assert did in members[gid], f"{did} is drawn inside the frame of {gid}"
            other = getattr(item, "group_id", None)
            if other is not None and other != gid and item.isVisible():
                ancestors = set(design.ancestors(other)) | set(design.ancestors(gid))
                assert gid in ancestors or other in ancestors or not item.rect().intersects(inner), (gid, other)


def _check_titles(window, scene, design):
    view = window.view
    view.zoom_to_fit()
    top = [g.id for g in design.groups if g.parent is None and g.id in scene.frames and _fits(view, scene.frames[g.id])]
    shown = scene.shown_titles(view)
    assert set(top) <= shown, f"at fit zoom no title for {sorted(set(top) - shown)}"
    for gid, frame in scene.frames.items():
        for zoom in (1.0, 2.0, 4.0):
            view.zoom_by(zoom / view.scale_factor())
            view.centerOn(frame.rect().center())
            if gid in scene.shown_titles(view):
                break
        else:
            raise AssertionError(f"the title of {gid} shows at no zoom")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0] + "".join(f"-{k}={v}" for k, v in c[1].items()))
def test_generated_frames_and_titles(window, case):
    kind, params = case
    design = GENERATORS[kind].build(**params)
    scene = _open(window, design)
    _check_frames(scene, design)
    _check_titles(window, scene, design)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_sample_frames_and_titles(window, path):
    design = load_design(path)
    scene = _open(window, design)
    _check_frames(scene, design)
    _check_titles(window, scene, design)


def test_start_up_sample_titles_cover_no_device(window):
    """No title pill (drawn at a constant screen size) lies over a device, at the zooms that show titles."""
    scene = _open(window, load_design(FOLDER / "superpod-h100-1su.json"))
    view = window.view
    for zoom in (0.3, 0.5, 0.7, 1.0):
        view.zoom_by(zoom / view.scale_factor())
        view.centerOn(scene.frames["su1-rack4"].rect().center())
        from designer.gui.canvas.scene_paint import title_pills

        world = view.viewportTransform()
        pills = title_pills(world, view.visible_scene_rect(), scene.frames.values())  # not pinned
        for pill, _text, frame in pills:
            area = world.inverted()[0].mapRect(pill)
            for item in scene.items(area):
                did = getattr(item, "device_id", None)
                assert did is None or not item.sceneBoundingRect().adjusted(3, 3, -3, -3).intersects(area), (
                    zoom, frame.group_id, did)


@pytest.mark.slow
def test_16k_sample_names_every_pod_at_fit_zoom(window):
    window.resize(1280, 800)
    window.document.set_design(load_design(FOLDER / "rail-optimized-16k-3tier.json"), None)
    QApplication.processEvents()
    window.view.zoom_to_fit()
    shown = window.scene.shown_titles(window.view)
    assert {f"pod{p}" for p in range(1, 17)} <= shown


@pytest.mark.parametrize("size", [(1440, 900), (1280, 800)])
def test_opened_sample_names_every_outer_group_at_fit_zoom_and_covers_no_device(make_window, size):
    """The start-up sample at the window's first-start sizes: the spine rack's frame sits just above
    the SU's, so the SU's title finds a free place along the SU frame's top edge."""
    from designer.gui.canvas.scene_paint import title_pills

    window = make_window()
    window.resize(*size)
    window.document.set_design(load_design(FOLDER / "superpod-h100-1su.json"), None)
    QApplication.processEvents()
    scene, view = window.scene, window.view
    for zoom in (None, 0.23, 0.3):
        if zoom is None:
            view.zoom_to_fit()
        else:
            view.zoom_by(zoom / view.scale_factor())
            view.centerOn(scene.frames["su1"].rect().center())
        shown = scene.shown_titles(view)
        assert "su1" in shown, (zoom, view.scale_factor())
        world = view.viewportTransform()
        px = QRectF(view.viewport().rect())
        rect = view.mapToScene(view.viewport().rect()).boundingRect()
        for pill, _text, frame in title_pills(world, rect, scene.frames.values(), px, scene.holds_nothing):
            if view.scale_factor() >= style.LOD_BOX_ONLY:
                assert scene.holds_nothing(world.inverted()[0].mapRect(pill)), (zoom, frame.group_id)


def test_group_titles_and_box_labels_never_print_over_each_other(window):
    """Zoomed out on pods of collapsed SUs, a pod's title sits in its corner over the first SU's
    box: that box's label moves down below the title (or hides), it is not printed over it."""
    from designer.gui.canvas.scene_paint import box_labels, title_pills

    d = GENERATORS["rail-optimized"].build(sus=32, tiers=3, sus_per_pod=4, nodes_per_su=8)
    for g in d.groups:
        if g.kind == "su":
            d.set_group_field(g.id, "collapsed", True)
    window.resize(1280, 800)
    window.document.set_design(d, None, collapse=False)
    QApplication.processEvents()
    scene, view = window.scene, window.view
    view.zoom_to_fit()
    world = view.viewportTransform()
    px = QRectF(view.viewport().rect())
    rect = view.mapToScene(view.viewport().rect()).boundingRect()
    pills = [p for p, _, _ in title_pills(world, rect, scene.frames.values(), px, scene.holds_nothing)]
    assert len(pills) == 8  # every pod is named
    height = QFontMetricsF(style.label_font(8.5, bold=True)).height()
    labels = box_labels(world, rect, scene.boxes.values(), px, pills)
    assert labels
    covered = [box.group_id for area, box in labels
               if any(p.intersects(QRectF(area.left(), area.top(), area.width(), height)) for p in pills)]
    assert covered == []
    assert {box.group_id for _, box in labels} | {p for p in scene.shown_titles(view)} >= {"su1", "su2"}
