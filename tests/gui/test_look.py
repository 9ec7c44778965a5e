"""What the window looks like: no blank canvas without a word, no overlapping titles, no needless scroll bars."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF, QRect
from PySide6.QtWidgets import QApplication

from designer.gui.canvas.scene_paint import title_pills
from designer.io import load_design

SAMPLE = Path(__file__).resolve().parents[2] / "sample_designs" / "superpod-h100-1su.json"


def _dark_pixels(window, rect: QRect) -> int:
    QApplication.processEvents()
    image = window.view.viewport().grab(rect).toImage()
    return sum(
        1
        for y in range(0, image.height(), 2)
        for x in range(0, image.width(), 2)
        if image.pixelColor(x, y).lightness() < 120
    )


def _centre_band(window) -> QRect:
    vp = window.view.viewport().rect()
    return QRect(vp.left() + 40, vp.center().y() - 50, vp.width() - 80, 100)


def test_an_empty_canvas_says_how_to_start_and_the_hint_goes_with_the_first_device(window):
    window.resize(1440, 900)
    assert window.document.design.device_count() == 0
    assert _dark_pixels(window, _centre_band(window)) > 50  # text, not only the light grid
    far = window.view.mapToScene(window.view.viewport().rect().center()) + QPointF(5000, 5000)
    window.editor.place_component("qm9700", far)  # out of sight: the band shows only background
    window.view.centerOn(far - QPointF(5000, 5000))
    assert _dark_pixels(window, _centre_band(window)) == 0
    window.document.undo_stack.undo()
    assert _dark_pixels(window, _centre_band(window)) > 50


def test_group_titles_never_overlap_frames_or_each_other(window):
    window.resize(1440, 900)
    window.document.set_design(load_design(SAMPLE), None)
    QApplication.processEvents()
    frames = list(window.scene.frames.values())
    for zoom in (0.15, 0.24, 0.35, 0.6, 1.0):
        window.view.zoom_by(zoom / window.view.scale_factor())
        window.view.centerOn(window.scene.itemsBoundingRect().center())
        world = window.view.viewportTransform()
        rect = window.view.visible_scene_rect()
        pills = title_pills(world, rect, frames)
        outer = [(f, world.mapRect(f.rect())) for f in frames if f.isVisible() and f.zValue() <= -9.999]
        for i, (pill, _text, frame) in enumerate(pills):
            assert not any(pill.intersects(other) for other, _t, _f in pills[i + 1:]), zoom
            inside_own = world.mapRect(frame.rect()).contains(pill)
            if not inside_own:  # drawn above its frame: must not sit on another frame
                assert not any(f is not frame and pill.intersects(area) for f, area in outer), (zoom, frame.title())
        if zoom >= 0.6:
            assert len(pills) >= 4  # titles are shown where there is room (the racks in view at 60 %)


def test_the_short_design_page_has_no_scroll_bar(window, qtbot):
    window.resize(1440, 900)
    QApplication.processEvents()
    scroll = window.docks["inspector"].widget()
    window.scene.clearSelection()
    QApplication.processEvents()
    assert window.inspector.stack.currentWidget() is window.inspector.design_page
    bar = scroll.verticalScrollBar()
    assert bar.maximum() == 0, "the design page scrolls although it is short"
    # a tall page (a device with its link table) may scroll; back on the design page it does not
    a = window.editor.place_component("qm9700", QPointF(0, 0))
    window.scene.select_devices([a])
    qtbot.wait(20)
    window.scene.clearSelection()
    qtbot.wait(20)
    assert bar.maximum() == 0
