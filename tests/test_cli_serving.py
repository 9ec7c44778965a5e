"""The command line's serving option: ``analyze --serve``, its JSON, the presets listed, bad files."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from designer.cli import main
from designer.model.shipped import resources_dir

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = str(ROOT / "sample_designs" / "superpod-h100-1su.json")
REPORT_SCHEMA = json.loads((resources_dir() / "schema" / "report.schema.json").read_text())


def test_workloads_lists_the_serving_presets(capsys) -> None:
    assert main(["workloads"]) == 0
    out = capsys.readouterr().out
    for name in ("llama3-70b-serve", "llama3-405b-serve", "deepseek-v3-serve", "mixtral-8x22b-serve"):
        assert name in out
    assert main(["workloads", "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {w["name"] for w in data["serving"]} == {"llama3-70b-serve", "llama3-405b-serve", "deepseek-v3-serve",
                                                     "mixtral-8x22b-serve"}


def test_analyze_serve_prints_ttft_and_tpot(capsys) -> None:
    assert main(["analyze", SAMPLE, "--sizes", "1GiB", "--top", "0", "--serve", "llama3-70b-serve"]) == 0
    out = capsys.readouterr().out
    assert "Serving 'llama3-70b-serve' (disaggregated)" in out
    assert "(327,680 bytes)" in out and "TTFT" in out and "TPOT" in out and "tokens/s per GPU" in out


def test_analyze_serve_json_has_the_documented_keys(capsys) -> None:
    assert main(["analyze", SAMPLE, "--sizes", "1GiB", "--serve", "deepseek-v3-serve", "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    jsonschema.validate(data, REPORT_SCHEMA)
    s = data["serving"]
    assert s["kv_bytes_per_token"] == 70_272
    assert s["ttft_s"] > 0 and 0 < s["tpot_s"] < 1 and s["output_tokens_per_s_per_gpu"] > 0
    assert 0 <= s["network_share"]["ttft"] <= 1 and 0 <= s["network_share"]["tpot"] <= 1
    assert s["bound"] in ("network", "compute", "memory")


@pytest.mark.parametrize(("text", "message"), [
    ("", "file is empty"),
    ("{", "not valid JSON"),
    ('{"format": "topo-designer-workload", "version": 1}', "not a serving workload file"),
    ('{"format": "topo-designer-serving", "version": 9}', "serving workload version 9 is newer"),
    ('{"format": "topo-designer-serving", "version": 1, "model": {"layers": 1}, "deployment": {}, '
     '"requests": {}}', "model.parameters: missing"),
])
def test_bad_serving_files_are_one_line_and_exit_2(tmp_path, capsys, text, message) -> None:
    bad = tmp_path / "s.json"
    bad.write_text(text)
    assert main(["analyze", SAMPLE, "--serve", str(bad)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_an_unknown_serving_preset_names_the_presets(capsys) -> None:
    assert main(["analyze", SAMPLE, "--serve", "gpt5-serve"]) == 2
    err = capsys.readouterr().err
    assert "no serving workload preset or file 'gpt5-serve'" in err and "llama3-70b-serve" in err


def test_export_with_serve_adds_the_section_and_the_block(tmp_path, capsys) -> None:
    html, report = tmp_path / "r.html", tmp_path / "r.json"
    assert main(["export", SAMPLE, "--sizes", "1GiB", "--serve", "llama3-70b-serve", "--report", str(report),
                 "--html", str(html)]) == 0
    doc = json.loads(report.read_text())
    assert doc["serving"]["kv_bytes_per_token"] == 327_680
    assert any(r["name"].startswith("EP_EFFICIENCY") for r in doc["assumptions"]["constants"])
    text = html.read_text()
    assert "<h2>Serving: llama3-70b-serve</h2>" in text and "Where a step" in text
    assert 'data-key="serving.tpot_s"' in text
