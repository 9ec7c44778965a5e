"""The command line's training-workload options and commands: output, JSON and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from designer.cli import main
from designer.model.shipped import resources_dir

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = str(ROOT / "sample_designs" / "superpod-h100-1su.json")
REPORT_SCHEMA = json.loads((resources_dir() / "schema" / "report.schema.json").read_text())


def test_workloads_lists_the_presets(capsys) -> None:
    assert main(["workloads"]) == 0
    out = capsys.readouterr().out
    for name in ("llama3-70b", "gpt3-175b", "mixtral-8x22b", "gpt3-1.3b-ddp"):
        assert name in out
    assert main(["workloads", "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == "topo-designer-workloads"
    assert {w["name"] for w in data["workloads"]} >= {"llama3-70b", "mixtral-8x22b"}


def test_analyze_with_a_workload_prints_the_step_block(capsys) -> None:
    assert main(["analyze", SAMPLE, "--sizes", "1GiB", "--workload", "llama3-70b"]) == 0
    out = capsys.readouterr().out
    assert "Workload 'llama3-70b' on 224 GPUs" in out
    assert "GPU idle" in out and "predicted MFU" in out and "tokens/s" in out


def test_analyze_with_a_workload_writes_the_workload_json(capsys) -> None:
    assert main(["analyze", SAMPLE, "--sizes", "1GiB", "--workload", "gpt3-175b", "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    jsonschema.validate(data, REPORT_SCHEMA)
    w = data["workload"]
    for key in ("step_time_s", "compute_s", "exposed_comm_s", "gpu_idle_fraction", "mfu", "tokens_per_s",
                "idle_cost_per_day", "time_to_train_s"):
        assert isinstance(w[key], float), key
    assert 0 < w["gpu_idle_fraction"] < 1 and 0 < w["mfu"] < 1
    assert w["step_time_s"] >= w["compute_s"]
    assert {c["name"] for c in w["communication"]} >= {"tp", "pp", "dp"}


def test_placement_option(capsys) -> None:
    assert main(["analyze", SAMPLE, "--sizes", "1GiB", "--workload", "gpt3-175b", "--placement", "dp,tp,cp,pp",
                 "--json", "-"]) == 0
    moved = json.loads(capsys.readouterr().out)["workload"]
    tp = next(c for c in moved["communication"] if c["name"] == "tp")
    assert tp["network"]  # tensor parallel no longer inside the server


@pytest.mark.parametrize(("args", "message"), [
    (["--workload", "no-such"], "no workload preset or file 'no-such'"),
    (["--workload", "gpt3-175b", "--placement", "tp,dp"], "--placement"),
    (["--workload", "llama3-405b"], None),  # fits (PP 16 x TP 8 = 128 GPUs)
])
def test_workload_errors_are_one_line_and_exit_2(args, message) -> None:
    r = subprocess.run([sys.executable, "-m", "designer", "analyze", SAMPLE, "--sizes", "1GiB", *args],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    if message is None:
        assert r.returncode == 0, r.stderr
        return
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and message in r.stderr
    assert "Traceback" not in r.stderr


def test_a_workload_that_does_not_fit_exits_2(tmp_path) -> None:
    w = tmp_path / "big.json"
    w.write_text(json.dumps({"format": "topo-designer-workload", "version": 1,
                             "model": {"parameters": 1e9, "layers": 64, "hidden_size": 8, "sequence_length": 8},
                             "parallelism": {"tp": 8, "pp": 64}, "batch": {"global_batch_sequences": 64}}))
    r = subprocess.run([sys.executable, "-m", "designer", "analyze", SAMPLE, "--sizes", "1GiB", "--workload",
                        str(w)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 2 and "tp x cp x pp = 512" in r.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    r = subprocess.run([sys.executable, "-m", "designer", "analyze", SAMPLE, "--workload", str(bad)],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 2 and "not valid JSON" in r.stderr and r.stderr.count("\n") == 1
