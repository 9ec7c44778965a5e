"""Small files that would cost big work are refused from the counts they state, before anything is
expanded or parsed; a named pipe with no writer and a device are refused instead of hanging or
reading for ever. Each refusal: one line, exit 2, no file written. (Their time and peak memory are
printed by benchmarks/bench_hostile.py; tests do not time.)"""

import json
import os
import threading
from pathlib import Path

import pytest

from designer.cli import main
from designer.io import reading
from designer.io.importers import graphs, slurm
from designer.io.importers.base import MAX_IMPORT_NODES
from designer.sweep import expand, parse_spec
from designer.sweep.spec import MAX_POINTS, params_at

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "sample_designs" / "hgx-h100-server.json"


def refused(tmp_path: Path, capsys, argv: list[str], expect: str) -> None:
    before = sorted(os.listdir(tmp_path))
    assert main(argv) == 2, argv
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and expect in err, err
    assert sorted(os.listdir(tmp_path)) == before


def test_a_35_byte_slurm_line_naming_a_million_nodes_is_refused_before_expanding(tmp_path, capsys):
    conf = tmp_path / "topology.conf"
    conf.write_text("SwitchName=s1 Nodes=node[0-999999]\n")
    refused(tmp_path, capsys, ["import", str(conf), "-o", str(tmp_path / "d.json")],
            "line 1: 'node[0-999999]' expands to 1,000,000 names, which takes the file's hostlists past "
            f"{MAX_IMPORT_NODES:,} names, the most an import holds")


def test_the_slurm_budget_is_the_whole_files(tmp_path, capsys):
    lines = [f"SwitchName=s{i} Nodes=n{i}x[0-99999]" for i in range(3)]
    conf = tmp_path / "topology.conf"
    conf.write_text("\n".join(lines) + "\n")
    # the switches' names count too: line 2 takes the file past the limit
    refused(tmp_path, capsys, ["import", str(conf), "-o", str(tmp_path / "d.json")],
            "line 2: 'n1x[0-99999]' expands to 100,000 names")
    assert slurm.hostlist_size("a[0-9]b[00-99],c,d[1-2,5]") == 1000 + 1 + 3


def test_hostlist_sizes_are_counted_exactly_without_expanding():
    assert slurm.hostlist_size("node[0-999999999999]") == 10**12
    for text in ("node[1-3,7],gpu[01-02]x[1-2],login", "r[1-4]n[01-16]", "x"):
        assert slurm.hostlist_size(text) == len(slurm.expand_hostlist(text))


@pytest.mark.parametrize(("name", "body"), [
    ("g.gml", "graph [\n" + "".join(f"  node [ id {i} ]\n" for i in range(12)) + "]\n"),
    ("g.graphml", '<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph '
     'edgedefault="undirected">' + "".join(f'<node id="n{i}"/>' for i in range(12)) + "</graph></graphml>\n"),
])
def test_a_graph_declaring_more_nodes_than_an_import_holds_is_refused_before_parsing(tmp_path, capsys,
                                                                                     monkeypatch, name, body):
    monkeypatch.setattr(graphs, "MAX_GRAPH_NODES", 10)

    def never(*_args, **_kwargs):
        raise AssertionError("parsed")

    monkeypatch.setattr(graphs, "_parse_gml", never)
    monkeypatch.setattr(graphs, "_parse_graphml", never)
    path = tmp_path / name
    path.write_text(body)
    refused(tmp_path, capsys, ["import", str(path), "-o", str(tmp_path / "d.json")],
            f"{name}: declares 12 nodes; an import holds at most 10")


def test_a_simai_header_declaring_a_million_nodes_is_refused(tmp_path, capsys):
    path = tmp_path / "topo.txt"
    path.write_text("999999 8 1 1 0 H100\n999998\n")
    refused(tmp_path, capsys, ["import", str(path), "--format", "simai", "-o", str(tmp_path / "d.json")],
            f"line 1: declares 999,999 nodes; an import holds at most {MAX_IMPORT_NODES:,}")


def test_sweep_check_at_the_largest_grid_samples_without_expanding(tmp_path, capsys, monkeypatch):
    side = int(MAX_POINTS ** 0.5)
    data = {"generator": "leaf-spine", "parameters": {"leaves": list(range(1, side + 1)),
                                                      "hosts_per_leaf": list(range(1, side + 1))}}
    (tmp_path / "s.json").write_text(json.dumps(data))
    monkeypatch.setattr("designer.sweep.runner.expand", lambda spec: pytest.fail("expanded"))
    assert main(["sweep", str(tmp_path / "s.json"), "-o", str(tmp_path / "r.csv"), "--check"]) == 0
    assert f"= {MAX_POINTS:,} points; about " in capsys.readouterr().out
    assert not (tmp_path / "r.csv").exists()


def test_params_at_is_the_expanded_grid_point_for_point():
    from designer.cli.analyze import parse_size

    data = {"generator": "rail-optimized", "parameters": {"sus": [1, 2, 3], "oversubscription": [1, 2],
                                                          "gpus_per_node": [4, 8]},
            "workloads": ["llama3-70b", "gpt3-1.3b-ddp"]}
    spec = parse_spec(data, "s.json", parse_size)
    points = expand(spec)
    assert [params_at(spec, p.index) for p in points] == [dict(p.params) for p in points]


# ------------------------------------------------------------------ pipes and devices
@pytest.fixture
def fifo(tmp_path, monkeypatch):
    monkeypatch.setattr(reading, "PIPE_WAIT_S", 0.2)
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    return path


def spec_file(tmp_path: Path, workload: str) -> Path:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"generator": "server", "workloads": [workload]}))
    return path


@pytest.mark.parametrize("argv", [
    ["validate", "{pipe}"],
    ["import", "{pipe}", "-o", "{dir}/d.json"],
    ["analyze", str(SERVER), "--workload", "{pipe}"],
    ["sweep", "{pipe}", "-o", "{dir}/r.csv", "--check"],
    ["--catalog", "{pipe}", "bom", str(SERVER)],
    ["import", str(ROOT / "tests" / "data" / "importers" / "Abilene.gml"), "--map", "{pipe}", "-o", "{dir}/d.json"],
])
def test_a_named_pipe_with_no_writer_is_refused_by_every_reader(tmp_path, capsys, fifo, argv):
    argv = [a.format(pipe=fifo, dir=tmp_path) for a in argv]
    refused(tmp_path, capsys, argv, "pipe.json: a named pipe with no writer (waited 200 ms); give a file, or '-' for "
            "standard input")


def test_a_workload_named_in_a_spec_is_a_pipe_refused_alike(tmp_path, capsys, fifo):
    refused(tmp_path, capsys, ["sweep", str(spec_file(tmp_path, str(fifo))), "-o", str(tmp_path / "r.csv"),
                               "--check"], "a named pipe with no writer")


def test_a_named_pipe_with_a_writer_is_read(tmp_path, fifo):
    text = SERVER.read_bytes()

    def writer():
        with open(fifo, "wb") as fh:
            fh.write(text)

    t = threading.Thread(target=writer)
    t.start()
    try:
        assert main(["validate", str(fifo)]) == 0
    finally:
        t.join(timeout=10)


@pytest.mark.parametrize("argv", [["validate", "/dev/zero"], ["import", "/dev/urandom", "-o", "{dir}/d.json"],
                                  ["analyze", str(SERVER), "--workload", "/dev/zero"]])
def test_a_device_is_refused_at_once(tmp_path, capsys, argv):
    argv = [a.format(dir=tmp_path) for a in argv]
    refused(tmp_path, capsys, argv, "a device, not a")
