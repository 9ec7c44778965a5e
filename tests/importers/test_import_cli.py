"""``topo-designer import``: files written, the JSON report, exit codes and one-line errors; detection."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from import_helpers import DATA, X5_DUMP, X5_MAP

from designer.cli.entry import main
from designer.io import load_design
from designer.io.importers import ImportFileError, detect_format

ROOT = Path(__file__).resolve().parents[2]


def test_import_writes_the_design_and_the_report(tmp_path, capsys):
    out, rep = tmp_path / "x5.json", tmp_path / "x5-import.json"
    code = main(["import", str(X5_DUMP), "--map", str(X5_MAP), "-o", str(out), "--report", str(rep)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "read as ibnetdiscover" in printed and "guessed" in printed
    design = load_design(out)
    assert design.device_count() == 189
    doc = json.loads(rep.read_text())
    assert doc["format"] == "topo-designer-import-report" and doc["source_format"] == "ibnetdiscover"
    assert doc["read"]["switches"] == 11
    assert {"what", "reason"} <= set(doc["guessed"][0])
    # The imported design is an ordinary design: validate reads it and reports the degraded links.
    assert main(["validate", str(out)]) == 1
    assert "[degraded-link]" in capsys.readouterr().out


def test_options_default_rate_gpus_and_format(tmp_path, capsys):
    out = tmp_path / "s.json"
    code = main(["import", str(DATA / "psmn-X5.topology.conf"), "--format", "slurm", "--default-rate", "200G",
                 "--gpus-per-adapter", "0", "-o", str(out), "--quiet"])
    assert code == 0 and capsys.readouterr().out == ""
    design = load_design(out)
    assert not [d for d in design.iter_devices() if d.kind == "gpu"]
    assert {p.speed_gbps for d in design.iter_devices() for p in d.ports} == {200.0}


def _one_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("topo-designer: "), result.stderr
    return lines[0]


@pytest.mark.parametrize(("args", "words"), [
    (["import", "no-such-file.txt", "-o", "{tmp}/o.json"], "no such file"),
    (["import", "{tmp}", "-o", "{tmp}/o.json"], "is a folder"),
    (["import", str(X5_DUMP), "-o", "{tmp}/o.json", "--default-rate", "fast"], "is not a rate"),
    (["import", str(X5_DUMP), "-o", "{tmp}/o.json", "--default-rate", "900T"], "outside"),
    (["import", str(X5_DUMP), "-o", "{tmp}/o.json", "--map", str(DATA / "Abilene.gml")], "not 'GUID name'"),
    (["import", str(DATA / "psmn-X5.spine"), "-o", "{tmp}/o.json"], "a list of GUIDs"),
    (["import", str(DATA / "Abilene.gml"), "-o", "{tmp}/o.json", "--format", "slurm"], "no SwitchName line"),
    (["import", str(X5_DUMP), "-o", "{tmp}/o.json", "--attribute", "colour=red"], "attribute mapping"),
    (["import", str(X5_DUMP), "-o", "{tmp}/missing/o.json"], "o.json"),
])
def test_errors_are_one_line_and_exit_2(tmp_path, capsys, args, words):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and words in err[0], err


def test_standard_input_and_a_real_process(tmp_path):
    out = tmp_path / "g.json"
    with open(DATA / "Abilene.gml", "rb") as fh:
        result = subprocess.run([sys.executable, "-m", "designer", "import", "-", "-o", str(out), "--report", "-"],
                                stdin=fh, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["source"] == "<stdin>"
    bad = subprocess.run([sys.executable, "-m", "designer", "import", "/dev/null", "-o", str(out)],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert "/dev/null: a device, not a file to import" in _one_line(bad)
    empty = tmp_path / "empty.gml"
    empty.write_bytes(b"")
    bad = subprocess.run([sys.executable, "-m", "designer", "import", str(empty), "-o", str(out)],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert "file is empty" in _one_line(bad)


@pytest.mark.parametrize(("name", "fmt"), [
    ("psmn-X5.ibnetdiscover.topofile", "ibnetdiscover"), ("psmn-X5.topology.conf", "slurm"),
    ("Abilene.gml", "gml"), ("Padi.gml", "gml"),
])
def test_detection_from_content(name, fmt):
    assert detect_format((DATA / name).read_text()) == fmt


def test_detection_of_graphml_and_of_formats_not_imported():
    assert detect_format('<?xml version="1.0"?>\n<graphml xmlns="x"><graph/></graphml>') == "graphml"
    assert detect_format('<system version="1">\n<cpu numaid="0">') == "nccl"
    assert detect_format("name: clos\ntopology:\n  nodes:\n    leaf1: {}\n") == "containerlab"
    assert detect_format("topology: [ Ring, Switch ]\nnpus_count: [ 8, 4 ]\n") == "astrasim"
    with pytest.raises(ImportFileError, match="format not recognised"):
        detect_format("key: value\nother: [1, 2]\n")


def test_every_real_input_imports_or_is_refused_with_a_reason(tmp_path):
    """Every real file in tests/data/importers (sources in its NOTICE.md) imports, or is refused
    with a one-line reason naming it."""
    from designer.io.importers import import_file

    paths = [p for p in sorted(DATA.iterdir()) if p.is_file() and p.name != "NOTICE.md"]
    assert len(paths) >= 24
    for path in paths:
        try:
            design, report = import_file(path)
        except ImportFileError as e:
            assert str(e).startswith(str(path)) and "\n" not in str(e)
            continue
        assert design.device_count() > 0, path
    shutil.rmtree(tmp_path, ignore_errors=True)
