"""The user's catalog files (``--catalog``, the user catalog) reach every command, and leave nothing behind.

The model holds no process-wide catalog: each command reads its catalog once and passes it on. A
command that forgot would analyse a design of the user's own parts with the built-in catalog, where
they are unknown: the analysis says "not in the catalog", validate reports ``unknown-model`` and the
bill of materials prices them at $0. Each command below runs on such a design.
"""

from __future__ import annotations

import csv
import json

import pytest

from designer.cli.entry import main
from designer.io.catalog_files import load_catalog, user_catalog_path
from designer.model.catalog import builtin_catalog

LAB_LEAF = {
    "id": "lab-leaf", "kind": "switch", "name": "Lab leaf (32x 400G InfiniBand)", "vendor": "Lab",
    "ports": [{"prefix": "p", "count": 32, "speed_gbps": 400, "lanes": 4}], "power_w": 500, "price_usd": 12345,
    "latency_ns": 200, "specs": {"protocol": "infiniband", "sharp": True},
    "sources": {"price_usd": "a figure of this test"},
}
UNKNOWN = "'lab-leaf' is not in the catalog"


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """(catalog file, a leaf-spine design of lab-leaf switches written with it)."""
    folder = tmp_path_factory.mktemp("lab")
    catalog = folder / "lab-catalog.json"
    catalog.write_text(json.dumps({"format": "topo-designer-catalog", "version": 1, "components": [LAB_LEAF]}))
    design = folder / "lab.json"
    assert main(["--catalog", str(catalog), "generate", "leaf-spine", "-o", str(design), "--leaves", "2",
                 "--hosts-per-leaf", "16", "--switch", "lab-leaf"]) == 0
    return catalog, design


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


def test_generate_knows_the_parts_of_the_catalog_files_only_when_given(lab, capsys, tmp_path):
    catalog, _ = lab
    code, text = run(capsys, "generate", "leaf-spine", "-o", str(tmp_path / "x.json"), "--switch", "lab-leaf")
    assert code == 2 and "lab-leaf" in text and UNKNOWN in text
    # after the option, too
    code, _ = run(capsys, "generate", "leaf-spine", "-o", str(tmp_path / "x.json"), "--leaves", "2",
                  "--hosts-per-leaf", "16", "--switch", "lab-leaf", "--catalog", str(catalog))
    assert code == 0


def test_validate_and_bom_see_the_users_part(lab, capsys):
    catalog, design = lab
    code, text = run(capsys, "validate", str(design))
    assert code == 1 and "unknown-model" in text  # the test can fail: without the file the part is unknown
    code, text = run(capsys, "--catalog", str(catalog), "validate", str(design))
    assert code == 0 and "clean" in text
    code, text = run(capsys, "--catalog", str(catalog), "bom", str(design), "--json", "-")
    lab_lines = [line for line in json.loads(text)["lines"] if line["item"] == "lab-leaf"]
    assert code == 0 and sum(line["quantity"] for line in lab_lines) == 3  # two leaves, one spine
    assert {line["unit_price_usd"] for line in lab_lines} == {12345}
    code, text = run(capsys, "validate", str(design))  # nothing stays behind in the process
    assert code == 1 and "unknown-model" in text


@pytest.mark.parametrize("argv", [
    ["analyze", "{design}", "--sizes", "1GiB"],
    ["analyze", "{design}", "--sizes", "1GiB", "--workload", "llama3-70b"],
    ["analyze", "{design}", "--sizes", "1GiB", "--concurrent", "--layout", "tp8,dp"],
    ["whatif", "{design}", "--fail", "spine1", "--workload", "llama3-70b"],
    ["scan", "{design}", "--workload", "llama3-70b", "--json", "-"],
    ["scale", "{design}", "--factors", "1,2", "--workload", "llama3-70b"],
    ["advise", "{design}", "--workload", "llama3-70b"],
], ids=lambda a: " ".join(a[:1] + [x for x in a[2:] if x.startswith("--")]))
def test_every_analysis_command_uses_the_catalog_files(lab, capsys, argv):
    catalog, design = lab
    args = [a.format(design=design) for a in argv]
    plain_code, plain = run(capsys, *args)
    code, text = run(capsys, "--catalog", str(catalog), *args)
    assert code == 0, text
    assert UNKNOWN not in text
    # Without the file the command refuses or answers otherwise (the switches are not InfiniBand there).
    assert plain_code == 2 or plain != text


def test_analyze_reads_the_switch_protocol_from_the_users_part(lab, capsys):
    catalog, design = lab
    _, plain = run(capsys, "analyze", str(design), "--sizes", "1GiB")
    _, text = run(capsys, "--catalog", str(catalog), "analyze", str(design), "--sizes", "1GiB")
    assert "infiniband" not in plain and UNKNOWN in plain
    assert "infiniband" in text and "sharp" in text  # the part's protocol and SHARP, from the file


def test_export_files_use_the_catalog_files(lab, capsys, tmp_path):
    catalog, design = lab
    report, html, cabling = tmp_path / "r.json", tmp_path / "r.html", tmp_path / "c.csv"
    code, text = run(capsys, "--catalog", str(catalog), "export", str(design), "--report", str(report),
                     "--html", str(html), "--cabling", str(cabling), "--sizes", "1GiB", "--quiet")
    assert code == 0, text
    assert UNKNOWN not in report.read_text() and "lab-leaf" in report.read_text()
    assert "12,345" in html.read_text() or "12345" in html.read_text()
    assert "lab-leaf" in cabling.read_text() or "leaf1" in cabling.read_text()


def test_sweeps_build_their_points_from_the_catalog_files(lab, capsys, tmp_path):
    catalog, _ = lab
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"generator": "leaf-spine",
                                "parameters": {"switch": "lab-leaf", "leaves": 2, "hosts_per_leaf": [8, 16]}}))
    code, text = run(capsys, "sweep", str(spec), "-o", str(tmp_path / "r.csv"), "--check")
    assert code == 0 and "sampled points were refused" in text  # the estimate could not build a point
    code, text = run(capsys, "--catalog", str(catalog), "sweep", str(spec), "-o", str(tmp_path / "r.csv"), "--check")
    assert code == 0 and "from 2 sampled points" in text, text
    results = tmp_path / "r.csv"
    code, text = run(capsys, "--catalog", str(catalog), "sweep", str(spec), "-o", str(results), "--workers", "1",
                     "--quiet")
    assert code == 0, text
    with results.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["status"] for r in rows] == ["ok", "ok"] and all(float(r["cost_usd"]) > 0 for r in rows)
    code, text = run(capsys, "sweep-point", str(results), "1", "-o", str(tmp_path / "p.json"),
                     "--catalog", str(catalog))
    assert code == 0, text
    code, text = run(capsys, "--catalog", str(catalog), "validate", str(tmp_path / "p.json"))
    assert code == 0, text


def test_the_user_catalog_is_merged_and_the_built_in_one_never_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    user_catalog_path().parent.mkdir(parents=True)
    user_catalog_path().write_text(json.dumps({"format": "topo-designer-catalog", "version": 1,
                                               "components": [LAB_LEAF]}))
    merged = load_catalog()
    assert "lab-leaf" in merged.components and "qm9700" in merged.components
    assert "lab-leaf" not in builtin_catalog().components
    assert load_catalog(include_user=False) is builtin_catalog()
    with pytest.raises(TypeError, match="never changed"):
        builtin_catalog().merge({"components": [LAB_LEAF]}, "x")
