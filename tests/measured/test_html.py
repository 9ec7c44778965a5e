"""The measured section of the HTML report: compare --html, and export --html --compare."""

from __future__ import annotations

import re

from measured_helpers import H100_2N_HALF, PERFQUERY, h100_two_nodes

from designer.cli.entry import main
from designer.io import save_design


def test_compare_html_and_the_report_section(tmp_path, capsys):
    design = tmp_path / "h100.json"
    save_design(h100_two_nodes(), design)
    page, doc = tmp_path / "cmp.html", tmp_path / "cmp.json"
    assert main(["compare", str(design), str(H100_2N_HALF), "--html", str(page), "--json", str(doc)]) == 0
    html = page.read_text()
    assert "<h2>Measured against predicted</h2>" in html and html.count("<svg") == 2  # a chart per run
    assert "<script" not in html and "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    ratios = re.findall(r'data-key="runs\[0\]\.sizes\.ratio" data-value="([0-9.e-]+)"', html)
    assert len(ratios) == 10 and 0.45 < float(ratios[-1]) < 0.55
    assert "slower than predicted" in html and "half of the NIC-bound prediction" in html
    report = tmp_path / "full.html"
    assert main(["export", str(design), "--html", str(report), "--compare", str(doc), "-q"]) == 0
    full = report.read_text()
    assert full.index("<h2>Measured against predicted</h2>") < full.index("<h2>Design rules</h2>")
    assert main(["export", str(design), "--report", str(tmp_path / "r.json"), "--compare", str(doc)]) == 2
    assert "give --html too" in capsys.readouterr().err
    assert main(["export", str(design), "--html", str(report), "--compare", str(design)]) == 2
    assert "not the JSON of topo-designer compare" in capsys.readouterr().err


def test_counters_in_the_page(tmp_path):
    from designer.io.importers import ImportOptions, import_file

    fabric, _ = import_file(PERFQUERY / "ibnetdiscover-test.out", ImportOptions())
    design = tmp_path / "ib.json"
    save_design(fabric, design)
    page = tmp_path / "c.html"
    assert main(["compare", str(design), "--counters", str(PERFQUERY / "0x7cfe9003009ce5b0.out"),
                 "--interval", "60", "--html", str(page)]) == 0
    html = page.read_text()
    assert "<h3>Port counters</h3>" in html and "Not mapped to the design (1)" in html
