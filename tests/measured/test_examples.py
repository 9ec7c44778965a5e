"""The tour's example measurements: compare finds their story (a NIC at 200G whose cable takes errors).

The files are written once by sample_designs/make_measured_examples.py from the model of the day; they
are examples, so a later change of the model is not a reason to rewrite them, and no test compares them
with the script's output."""

from __future__ import annotations

import json
from pathlib import Path

from designer.cli.entry import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_designs"


def test_compare_on_the_examples_finds_the_slow_nic(tmp_path, capsys):
    out = tmp_path / "tour.json"
    m = SAMPLES / "measured"
    assert main(["compare", str(SAMPLES / "superpod-h100-1su.json"), str(m / "example-all_reduce-2nodes.log"),
                 "--counters-before", str(m / "example-counters-t0.prom"),
                 "--counters", str(m / "example-counters-t60.prom"), "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    (run,) = doc["runs"]
    assert run["gpus_from"] == "the log's host names" and run["gpus"][8] == "su1-node2-gpu1"
    assert [r["verdict"] for r in run["ranges"]] == ["slower than predicted", "slower than predicted"]
    # The counters' findings on a link the run loads are its first reasons.
    assert [r["code"] for r in run["reasons"][:2]] == ["counters-link-errors", "counters-below-rate"]
    counters = doc["counters"]
    assert counters["seconds"] == 60 and len(counters["links"]) == 16 and counters["unmapped"] == []
    codes = {(f["code"], f["links"][0]) for f in counters["findings"]}
    assert codes == {("measured-link-errors", "su1-node2-nic3--su1-leaf3"),
                     ("measured-below-rate", "su1-node2-nic3--su1-leaf3")}
    capsys.readouterr()


def test_the_json_matches_its_schema(tmp_path, capsys):
    import jsonschema

    m = SAMPLES / "measured"
    out = tmp_path / "c.json"
    assert main(["compare", str(SAMPLES / "superpod-h100-1su.json"), str(m / "example-all_reduce-2nodes.log"),
                 str(ROOT / "tests" / "data" / "measured" / "xxrjun-h100-N2_G8_cnode3-002_cnode3-003.log"),
                 "--gpus", "su1-node1,su1-node2", "--counters-before", str(m / "example-counters-t0.prom"),
                 "--counters", str(m / "example-counters-t60.prom"), "--fit", str(tmp_path / "fit.json"),
                 "--json", str(out)]) == 0
    capsys.readouterr()
    doc = json.loads(out.read_text())
    schema = json.loads((ROOT / "resources" / "schema" / "compare.schema.json").read_text())
    jsonschema.validate(doc, schema)
    assert {r["collective"] for r in doc["runs"]} == {"allreduce", "alltoall", "sendrecv"} and doc["fit"]
