"""The files of ``topo-designer export``: each decodes, validates and carries the design's figures."""

from __future__ import annotations

import base64
import csv
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import networkx as nx
import pytest
from export_helpers import PNG_WIDTH, SAMPLE, report_validator

from designer.io import load_design
from designer.model.catalog import link_rate_gbps


@pytest.fixture(scope="session")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every output of ``topo-designer export`` of the 256-GPU SuperPOD sample with a workload."""
    out = tmp_path_factory.mktemp("export")
    files = {"png": out / "canvas.png", "panels": out / "panels", "report": out / "report.json",
             "html": out / "report.html", "cabling": out / "cabling.csv", "graphml": out / "fabric.graphml"}
    args = ["export", str(SAMPLE), "--png-width", str(PNG_WIDTH), "--workload", "llama3-70b", "--quiet",
            "--sizes", "1KiB:1GiB"]
    for key, path in files.items():
        args += [f"--{key}", str(path)]
    from designer.cli import main

    assert main(args) == 0
    return files


@pytest.fixture(scope="session")
def report(exported: dict[str, Path]) -> dict:
    return json.loads(exported["report"].read_text())


def _image(path_or_bytes):
    from PySide6.QtGui import QImage

    img = QImage()
    if isinstance(path_or_bytes, bytes):
        assert img.loadFromData(path_or_bytes, "PNG")
    else:
        assert img.load(str(path_or_bytes), "PNG"), path_or_bytes
    return img


def _colours(img, step: int = 7) -> set[int]:
    return {img.pixel(x, y) for x in range(0, img.width(), step) for y in range(0, img.height(), step)}


# ----------------------------------------------------------------------------- PNG
def test_canvas_png_decodes_has_the_requested_width_and_is_not_blank(exported):
    img = _image(exported["png"])
    assert img.width() == PNG_WIDTH
    assert 100 < img.height() < 4 * PNG_WIDTH
    colours = _colours(img)
    assert len(colours) > 20  # devices, links, legend text: not one flat colour
    white = 0xFFFFFFFF
    assert white in colours  # white ground by default


def test_canvas_png_scale_and_transparent_ground():
    from designer.gui.window.pictures import canvas_png

    design = load_design(SAMPLE)
    pic = canvas_png(design, scale=0.25, transparent=True, legend=False)
    img = _image(pic.png)
    assert (img.width(), img.height()) == (pic.width, pic.height)
    assert img.hasAlphaChannel()
    alphas = {img.pixelColor(x, y).alpha() for x in range(0, img.width(), 9) for y in range(0, img.height(), 9)}
    assert 0 in alphas and 255 in alphas
    wide = canvas_png(design, scale=0.5, legend=False)
    assert abs(wide.width - 2 * pic.width) <= 2


def test_canvas_png_of_an_area():
    from PySide6.QtCore import QRectF

    from designer.gui.window.pictures import canvas_png

    pic = canvas_png(load_design(SAMPLE), area=QRectF(0, 0, 800, 400), scale=1.0, legend=False)
    assert (pic.width, pic.height) == (800, 400)
    assert len(_colours(_image(pic.png), 5)) > 5


def test_too_large_a_picture_is_refused_in_one_line():
    from designer.gui.window.pictures import PictureError, canvas_png

    with pytest.raises(PictureError, match="too large"):
        canvas_png(load_design(SAMPLE), scale=40.0)


def test_one_png_per_panel_with_data(exported):
    from designer.gui.panels.plots import PANELS

    files = sorted(exported["panels"].glob("*.png"))
    names = {f.stem for f in files}
    assert names <= set(PANELS)
    assert {"utilisation", "curves", "bottlenecks", "bisection"} <= names
    for f in files:
        img = _image(f)
        assert img.width() >= 400 and img.height() >= 100
        assert len(_colours(img, 4)) > 3, f


def test_panels_without_a_workload_leave_out_an_empty_panel(tmp_path):
    from designer.cli import main
    from designer.gui.panels.plots import PANELS

    assert main(["export", str(SAMPLE), "--panels", str(tmp_path / "p"), "--quiet", "--sizes", "1MiB"]) == 0
    names = {f.stem for f in (tmp_path / "p").glob("*.png")}
    assert {"utilisation", "curves", "bottlenecks", "bisection"} <= names <= set(PANELS)


# ----------------------------------------------------------------------------- JSON
def test_report_validates_against_its_schema(report):
    errors = sorted(report_validator().iter_errors(report), key=str)
    assert not errors, errors[:3]
    assert report["format"] == "topo-designer-report" and report["version"] == 2
    for block in ("bom", "findings", "assumptions", "workload", "exported"):
        assert block in report
    assert report["bom"]["format"] == "topo-designer-bom"
    assert report["findings"]["format"] == "topo-designer-findings"


def test_schema_refuses_a_broken_block(report):
    broken = json.loads(json.dumps(report))
    del broken["bom"]["totals"]
    assert list(report_validator().iter_errors(broken))


def test_assumptions_name_value_unit_and_source_of_every_constant(report):
    from designer.analysis.common import constants as K
    from designer.analysis.training import constants as T

    rows = {r["name"]: r for r in report["assumptions"]["constants"]}
    assert rows["INFINIBAND_EFFICIENCY"]["value"] == K.INFINIBAND_EFFICIENCY
    assert rows["COMPUTE_EFFICIENCY"]["value"] == T.COMPUTE_EFFICIENCY  # a workload was given
    assert rows["BASE_LATENCY_S[ring,Simple]"]["unit"].startswith("s")
    for r in rows.values():
        assert r["source"] and not r["source"].startswith("see "), r["name"]
    cat = report["assumptions"]["catalog"]
    gpu = [r for r in cat if r["item"] == "h100-sxm" and r["field"] == "specs.bf16_dense_tflops"]
    assert gpu and gpu[0]["value"] == 989.0 and gpu[0]["source"]


def test_report_matches_analyze_json(tmp_path, report):
    from designer.cli import main

    out = tmp_path / "analyze.json"
    assert main(["analyze", str(SAMPLE), "--json", str(out), "--top", "5", "--sizes", "1KiB:1GiB", "--workload",
                 "llama3-70b"]) == 0
    plain = json.loads(out.read_text())
    for key in ("bisection", "collectives", "design", "workload", "links"):
        assert report[key] == plain[key], key
    # the report ranks the 10 busiest links, analyze prints 5 by default
    assert report["bottlenecks"][: len(plain["bottlenecks"])] == plain["bottlenecks"]


# ----------------------------------------------------------------------------- HTML
class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, str] = {}
        self.images: list[str] = []
        self.links: list[str] = []
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if "data-key" in a:
            self.values[a["data-key"]] = a["data-value"]
        if tag == "img":
            self.images.append(a["src"])
        for key in ("href", "src"):
            if key in a and tag != "img":
                self.links.append(a[key])

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture(scope="module")
def page(exported) -> _Page:
    p = _Page()
    p.feed(exported["html"].read_text(encoding="utf-8"))
    p.close()
    return p


def test_html_holds_the_json_figures(page, report):
    def at(path: str):
        obj = report
        for part in path.split("."):
            obj = obj[int(part)] if isinstance(obj, list) else obj[part]
        return obj

    required = ["design.gpus", "bisection.lower_bytes_per_s", "bom.totals.price_usd", "bom.totals.power_w",
                "workload.gpu_idle_fraction", "workload.step_time_s", "findings.errors"]
    for key in required:
        assert key in page.values, key
    times = [k for k in page.values if re.fullmatch(r"collectives\.\d+\.time_s", k)]
    assert len(times) == len(report["collectives"])  # the whole table
    assert any(k.startswith("bottlenecks.") for k in page.values)
    for key, value in page.values.items():
        expected = at(key)
        if isinstance(expected, float):
            assert float(value) == pytest.approx(expected, rel=1e-12), key
        else:
            assert value == ("" if expected is None else str(expected)), key


def test_html_is_self_contained(page, exported):
    text = exported["html"].read_text(encoding="utf-8")
    assert not page.links  # no style sheet, script or link to fetch
    assert "<script" not in text and "url(" not in text and "@import" not in text
    assert "<link" not in text and "<iframe" not in text  # (sources cite web pages as plain text only)
    assert len(page.images) >= 5  # the canvas and the panels
    for src in page.images:
        assert src.startswith("data:image/png;base64,")
        _image(base64.b64decode(src.split(",", 1)[1]))
    assert "@media print" in text
    words = " ".join(page.text)
    for heading in ("Key figures", "Bisection bandwidth", "All-reduce", "Bottlenecks", "Training step",
                    "Bill of materials", "Analysis panels", "Design rules", "Assumptions"):
        assert heading in words, heading


def test_html_escapes_names(tmp_path):
    from designer.cli import main

    design = load_design(SAMPLE)
    design.set_design_field("name", "<script>alert(1)</script> & co")
    path = tmp_path / "d.json"
    from designer.io import save_design

    save_design(design, path)
    out = tmp_path / "r.html"
    assert main(["export", str(path), "--html", str(out), "--quiet", "--sizes", "1MiB"]) == 0
    text = out.read_text()
    assert "<script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in text


# ----------------------------------------------------------------------------- CSV
def test_cabling_plan_has_one_row_per_cable_with_the_design_lengths(exported):
    design = load_design(SAMPLE)
    with exported["cabling"].open(newline="") as f:
        rows = list(csv.DictReader(f))
    cables = [lk for lk in design.iter_links() if lk.medium not in ("nvlink", "pcie")]
    assert len(rows) == len(cables) > 0
    by_id = {lk.id: lk for lk in cables}
    assert {r["link"] for r in rows} == set(by_id)
    for n, r in enumerate(rows, 1):
        link = by_id[r["link"]]
        assert int(r["cable"]) == n
        assert float(r["length_m"]) == pytest.approx(link.length_m)
        assert {(r["a_device"], r["a_port"]), (r["b_device"], r["b_port"])} == {
            (link.a_device, link.a_port), (link.b_device, link.b_port)}
        assert r["medium"] == link.medium and r["cable_part"] == link.cable
        assert float(r["rate_gbps"]) == link_rate_gbps(design, link)
        if link.medium == "optical":
            assert r["a_transceiver"] and r["b_transceiver"]


def test_cabling_plan_is_sorted_by_rack_then_port(exported):
    from designer.present.cabling import natural_key

    with exported["cabling"].open(newline="") as f:
        rows = list(csv.DictReader(f))
    keys = [(int(r["a_row"] or 1e9), int(r["a_position"] or 1e9), r["a_rack"], natural_key(r["a_device"]),
             natural_key(r["a_port"])) for r in rows]
    assert keys == sorted(keys)
    assert rows[0]["a_rack"]  # generated designs place servers and switches in racks


# ----------------------------------------------------------------------------- GraphML
def test_graphml_reads_back_with_the_design_counts_and_attributes(exported):
    design = load_design(SAMPLE)
    g = nx.read_graphml(exported["graphml"], force_multigraph=True)
    assert g.number_of_nodes() == design.device_count()
    assert g.number_of_edges() == design.link_count()
    link = next(lk for lk in design.iter_links() if lk.medium == "optical")
    data = g.edges[link.a_device, link.b_device, link.id]
    assert data["medium"] == "optical" and data["length_m"] == link.length_m and data["cable"] == link.cable
    assert data["line_rate_gbps"] == link_rate_gbps(design, link)
    assert data["line_bytes_per_s"] == pytest.approx(link_rate_gbps(design, link) * 1e9 / 8)
    assert data["tier"] == "access" and data["protocol"] == "infiniband" and data["used"] is True
    dev = design.device(link.b_device) if design.device(link.b_device).kind == "switch" else design.device(
        link.a_device)
    node = g.nodes[dev.id]
    assert node["kind"] == "switch" and node["model"] == dev.model and node["tier"] == dev.tier
    assert node["rack"]
    kinds = {k for _, k in g.nodes(data="kind")}
    assert kinds == {d.kind for d in design.iter_devices()}


def test_every_export_is_atomic_and_leaves_no_temporary_files(exported):
    folder: Path = exported["report"].parent
    assert not [p for p in folder.iterdir() if p.name.startswith(".") or p.suffix == ".tmp"]
