"""validate --json and bom --json write documents with a format, a version and units, and match
their published schemas."""

import json
from pathlib import Path

import jsonschema
import pytest

from designer.cli import main

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "resources" / "schema"


def schema(name: str) -> dict:
    return json.loads((SCHEMAS / name).read_text())


@pytest.mark.parametrize("sample", ["hgx-h100-server.json", "superpod-h100-1su.json", "tpu-torus-4x4x8.json"])
def test_bom_json_matches_its_schema_and_names_units(sample, capsys):
    assert main(["bom", str(ROOT / "sample_designs" / sample), "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, schema("bom.schema.json"))
    assert doc["format"] == "topo-designer-bom" and doc["version"] == 1
    assert doc["units"]["power_w"].startswith("W") and doc["units"]["price_usd"].startswith("USD")


def test_findings_json_matches_its_schema_with_and_without_findings(tmp_path, capsys):
    clean = ROOT / "sample_designs" / "hgx-h100-server.json"
    assert main(["validate", str(clean), "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, schema("findings.schema.json"))
    assert doc["format"] == "topo-designer-findings" and doc["errors"] == doc["warnings"] == 0
    data = json.loads(clean.read_text())
    rows = data["links"]["rows"]
    data["links"]["rows"] = [row for row in rows if "nic1" not in row[0]]  # a NIC with no GPU
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data))
    assert main(["validate", str(broken), "--json", "-"]) == 1
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, schema("findings.schema.json"))
    assert doc["findings"] and doc["errors"] + doc["warnings"] == len(doc["findings"])
