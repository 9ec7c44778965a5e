"""``validate`` is the gate: a value another command reads is checked when the file is read, with
one rule, so what ``validate`` accepts every command survives, and what it refuses every command
refuses in the same line. Catalogs are read like design files (bounded, regular files, one-line
errors) and only by commands that need them. The typed fields of designs, workloads and catalogs
follow one set of rules (designer.model.fields)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from file_tables import as_records

from designer.analysis.training.workload import WorkloadError
from designer.cli import main
from designer.io import DesignFileError, load_design, reading
from designer.io.catalog_files import load_catalog
from designer.io.workload_records import workload_from_data
from designer.model.catalog import CatalogError
from designer.model.entities import MAX_COORD
from designer.model.fields import MAX_TEXT

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "sample_designs" / "hgx-h100-server.json"
SU = ROOT / "sample_designs" / "superpod-h100-1su.json"


def design_with(tmp_path: Path, change, sample: Path = SERVER) -> Path:
    data = as_records(json.loads(sample.read_text()))  # a file of records: edited one record at a time
    change(data)
    path = tmp_path / "d.json"
    path.write_text(json.dumps(data))  # ensure_ascii: a lone surrogate is written as its escape
    return path


def custom_switch(value):
    def change(data):
        dev = next(d for d in data["devices"] if d["kind"] == "nic")
        dev["ports"] = next(m for m in data["models"] if m["id"] == dev["model"])["ports"]
        dev["model"] = ""
        dev.setdefault("properties", {}).update(power_w=value, price_usd=value)
    return change


def first_gpu(key, value):
    def change(data):
        dev = next(d for d in data["devices"] if d["kind"] == "gpu")
        dev.setdefault("properties", {})[key] = value
    return change


def first_device_name(value):
    def change(data):
        data["devices"][0]["name"] = value
    return change


def design_property(key, value):
    def change(data):
        data["design"].setdefault("properties", {})[key] = value
    return change


CASES = [
    (first_device_name("bad\ud800x"), "devices[0].name: not Unicode text (a lone surrogate"),
    (first_gpu("rail", 10**30), "properties.rail: must be a whole number from -1 to 1,000,000"),
    (first_gpu("su", "two"), "properties.su: must be a whole number"),
    (first_gpu("coords", [1, 10**20]), "properties.coords[1]: must be a whole number from 0 to 1,000,000"),
    (custom_switch("abc"), "properties.power_w: must be a number, not 'abc'"),
    (custom_switch([1]), "properties.power_w: must be a number, not [1]"),
    (custom_switch("NaN"), "properties.power_w: must be a number, not 'NaN'"),
    (custom_switch("1e400"), "properties.power_w: must be a number, not '1e400'"),
    (custom_switch(-1), "properties.power_w: must be >= 0, not -1"),
    (custom_switch(1e308), "properties.power_w: must be <= 1e+06, not 1e+308"),
    (design_property("sus", "abc"), "design.properties.sus: must be a whole number from 1 to 10,000,000"),
    (lambda d: d["devices"][0].update(x=1e308), f"devices[0].x: must be <= {MAX_COORD:g}"),
    (lambda d: d["devices"][0].update(y=-1e10), f"devices[0].y: must be >= {-MAX_COORD:g}"),
]


@pytest.mark.parametrize(("change", "expect"), CASES)
def test_validate_refuses_what_another_command_could_not_use(tmp_path, capsys, change, expect):
    path = design_with(tmp_path, change, SU if "sus" in expect else SERVER)
    before = path.read_bytes()
    out_json = tmp_path / "out.json"
    commands = [["validate", str(path)], ["bom", str(path), "--json", str(out_json)],
                ["analyze", str(path), "--sizes", "1MiB", "--json", str(out_json)]]
    if "sus" in expect:
        commands.append(["scale", str(path), "--workload", "llama3-70b"])
    for argv in commands:
        assert main(argv) == 2, argv
        out, err = capsys.readouterr()
        assert err.count("\n") == 1 and expect in err, (argv, err)
    assert path.read_bytes() == before and not out_json.exists()


def test_every_command_survives_what_validate_accepts(tmp_path, capsys):
    """Custom figures within their rules, a whole number written 2.0, a far position: all work."""
    def change(data):
        custom_switch(1500.5)(data)
        first_gpu("rail", 2.0)(data)
        data["devices"][1].update(x=MAX_COORD, y=-MAX_COORD)
    path = design_with(tmp_path, change)
    assert main(["validate", str(path)]) in (0, 1)
    for argv in (["bom", str(path), "--json", "-"], ["analyze", str(path), "--sizes", "1MiB", "--json", "-"],
                 ["scan", str(path), "--json", "-"], ["export", str(path), "--report", str(tmp_path / "r.json"),
                                                      "--graphml", str(tmp_path / "g.graphml"), "-q"]):
        capsys.readouterr()
        assert main(argv) == 0, (argv, capsys.readouterr().err)
    assert load_design(path).device(load_design(path).devices[0].id) is not None
    rails = [d.properties.get("rail") for d in load_design(path).devices if d.kind == "gpu"]
    assert rails[0] == 2 and isinstance(rails[0], int)


# ------------------------------------------------------------------ one rule per field kind
def test_a_whole_number_written_2_0_and_the_text_limit_mean_the_same_in_every_document(tmp_path):
    data = json.loads(SERVER.read_text())
    data["models"][0]["ports"][0]["count"] = float(data["models"][0]["ports"][0]["count"])
    (tmp_path / "d.json").write_text(json.dumps(data))
    assert load_design(tmp_path / "d.json").device_count() == 17
    doc = {"format": "topo-designer-workload", "version": 1, "name": "t",
           "model": {"parameters": 1e9, "layers": 4.0, "hidden_size": 1024, "sequence_length": 1024},
           "batch": {"global_batch_sequences": 8}}
    assert workload_from_data(doc, "w.json").model.layers == 4
    long = "x" * (MAX_TEXT + 1)
    data["design"]["name"] = long
    (tmp_path / "d.json").write_text(json.dumps(data))
    too_long = f"text is {MAX_TEXT + 1:,} characters long, over {MAX_TEXT:,}"
    with pytest.raises(DesignFileError, match=f"design.name: {too_long}"):
        load_design(tmp_path / "d.json")
    with pytest.raises(WorkloadError, match=f"w.json: name: {too_long}"):
        workload_from_data({**doc, "name": long}, "w.json")
    cat = tmp_path / "c.json"
    cat.write_text(json.dumps({"format": "topo-designer-catalog", "version": 1, "components": [
        {"id": "s", "kind": "switch", "name": long, "ports": [{"prefix": "p", "count": 8, "speed_gbps": 400}]}]}))
    with pytest.raises(CatalogError, match=f"component 's': name: {too_long}"):
        load_catalog([cat], include_user=False)


# ------------------------------------------------------------------ catalogs
def user_catalog(tmp_path: Path, text: str | None) -> dict:
    folder = tmp_path / "config" / "topo-designer"
    folder.mkdir(parents=True)
    if text is None:
        os.mkfifo(folder / "catalog.json")
    else:
        (folder / "catalog.json").write_text(text)
    return {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}


def run_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "designer", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, env=env)


@pytest.mark.parametrize("text", ["{", None])
def test_a_broken_or_fifo_user_catalog_does_not_touch_commands_that_do_not_read_it(tmp_path, text):
    env = user_catalog(tmp_path, text)
    for args in (["--version"], ["--help"], ["generate", "--help"], ["workloads"]):
        r = run_cli(*args, env=env)
        assert r.returncode == 0 and r.stderr == "", (args, r.stderr)


def test_a_fifo_user_catalog_is_refused_by_a_command_that_reads_it(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    env = user_catalog(tmp_path, None)
    r = run_cli("bom", str(SERVER), env=env)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == (f"topo-designer: {tmp_path}/config/topo-designer/catalog.json: a named pipe with no writer "
                        "(waited 2 s); give a file, or '-' for standard input\n")


@pytest.mark.parametrize(("content", "expect"), [
    (None, "/dev/zero: a device, not a catalog file; give a file, or '-' for standard input"),
    (b"\xff\xfe{}", "not UTF-8 text (byte 0)"),
    (b"[" * 100_000, "nested too deeply to be a catalog file"),
    (b'{"format": "topo-designer-catalog", "version": 1, "components": 3}', "components: must be a list, not int"),
    (b'{"a": 1, "a": 2}', "not valid JSON: duplicate key 'a'"),
    (b"", "file is empty"),
])
def test_catalog_files_are_read_like_design_files(tmp_path, capsys, content, expect):
    path = "/dev/zero" if content is None else str(tmp_path / "mine.json")
    if content is not None:
        Path(path).write_bytes(content)
    assert main(["--catalog", path, "bom", str(SERVER)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and expect in err, err


def test_a_missing_catalog_and_a_named_pipe_are_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(reading, "PIPE_WAIT_S", 0.2)
    assert main(["--catalog", str(tmp_path / "none.json"), "bom", str(SERVER)]) == 2
    assert capsys.readouterr().err == f"topo-designer: {tmp_path}/none.json: no such file\n"
    os.mkfifo(tmp_path / "pipe.json")
    assert main(["--catalog", str(tmp_path / "pipe.json"), "bom", str(SERVER)]) == 2
    assert "pipe.json: a named pipe with no writer (waited 200 ms)" in capsys.readouterr().err
