"""Exported pictures explain themselves: the canvas takes the colouring on screen (or --colour), each
panel picture carries its title, the design's name and the panel's headline figure."""

from __future__ import annotations

import os

import pytest
from export_helpers import SAMPLE

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from designer.io import load_design  # noqa: E402
from designer.model import units  # noqa: E402


def _image(png: bytes):
    from PySide6.QtGui import QImage

    img = QImage()
    assert img.loadFromData(png, "PNG")
    return img


def _colours(img, step: int = 3) -> set[int]:
    return {img.pixel(x, y) & 0xFFFFFF for x in range(0, img.width(), step) for y in range(0, img.height(), step)}


def test_the_canvas_picture_takes_the_heat_map(tmp_path):
    from designer.analysis import analyze
    from designer.gui import style
    from designer.gui.window.pictures import canvas_png

    design = load_design(SAMPLE)
    rep = analyze(design)
    media = canvas_png(design, width=1200, legend=False)
    heat = canvas_png(design, width=1200, legend=False, utilisation=(list(rep.links.ids), rep.links.utilization),
                      halo=[b.link for b in rep.bottlenecks[:5]])
    assert media.png != heat.png
    # the colour of the busiest links on the heat-map's scale appears only on the heat-map
    busiest = style.utilisation_colours()[style.utilisation_step(float(rep.links.utilization.max()))].rgb() & 0xFFFFFF
    assert busiest in _colours(_image(heat.png), 1) and busiest not in _colours(_image(media.png), 1)


def test_export_colour_utilisation_on_the_command_line(tmp_path):
    from designer.cli import main

    a, b = tmp_path / "media.png", tmp_path / "heat.png"
    assert main(["export", str(SAMPLE), "--png", str(a), "--png-width", "900", "--quiet"]) == 0
    assert main(["export", str(SAMPLE), "--png", str(b), "--png-width", "900", "--colour", "utilisation",
                 "--sizes", "1GiB", "--quiet"]) == 0
    assert a.read_bytes() != b.read_bytes()


def test_each_panel_picture_has_a_title_the_design_and_its_headline():
    from designer.analysis.training.workload import Workload  # noqa: F401  (the type the export keeps)
    from designer.gui.window.pictures import PANEL_SIZE_PX, panel_pngs
    from designer.io.workload_file import load_workload
    from designer.present.export import prepare

    design = load_design(SAMPLE)
    data = prepare(design, sizes=[1 << 20, 1 << 30], workload=load_workload("llama3-70b"))
    pictures = {p.name: p for p in panel_pngs(data)}
    assert {"utilisation", "curves", "bottlenecks", "bisection", "step"} <= set(pictures)
    for pic in pictures.values():
        img = _image(pic.png)
        assert (img.width(), img.height()) == (pic.width, pic.height)
        assert img.width() == PANEL_SIZE_PX[0] and img.height() >= 150
        header = _colours(img.copy(0, 0, img.width(), 40), 1)
        assert len(header) > 5  # text, not a blank band


@pytest.mark.parametrize("key", ["step", "bisection", "curves"])
def test_panel_headlines_are_plain_text_with_the_main_figure(qtbot, key):
    from designer.gui.panels.plots import PANELS
    from designer.gui.window.pictures import _live_result
    from designer.io.workload_file import load_workload
    from designer.present.export import prepare

    data = prepare(load_design(SAMPLE), sizes=[1 << 30], workload=load_workload("llama3-70b"))
    panel = PANELS[key][1]()
    qtbot.addWidget(panel)
    panel.show_result(_live_result(data))
    text = panel.headline()
    assert "<" not in text and text
    expected = {"step": units.duration(data.step.step_time_s),
                "bisection": units.rate(data.report.bisection.lower_bytes_per_s),
                "curves": "busbw"}[key]
    assert expected in text
