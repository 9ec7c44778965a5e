"""Real sweeps on Dask: results against single analyses, CSV and Parquet, resume, errors, report, points."""

import csv
import json
import math
from html.parser import HTMLParser

import pytest

from designer.analysis import analyze
from designer.analysis.bom.bill import bill_of_materials
from designer.analysis.training import step_analysis
from designer.cli import main
from designer.cli.analyze import parse_size
from designer.generators import GENERATORS
from designer.io import load_design
from designer.io.workload_file import load_workload
from designer.sweep import expand, parse_spec
from designer.sweep.results import Sink, columns, journal_path, read_results
from designer.sweep.runner import plan, run_sweep

#: Six tiny leaf-spine fabrics; hosts_per_leaf 40 with oversubscription 1 needs 80 ports of a 64-port leaf:
#: refused by the generator, recorded, and the others complete.
SPEC = {"generator": "leaf-spine",
        "parameters": {"leaves": [2, 3], "hosts_per_leaf": [8, 40], "oversubscription": [1, 2], "nodes_per_rack": 1},
        "zip": [], "sizes": ["1MiB", "64MiB"]}


def spec_of(data):
    return parse_spec(data, "s.json", parse_size)


@pytest.fixture(scope="module")
def cluster():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as lc, \
            Client(lc, set_as_default=False) as client:
        yield client


def _by_point(rows):
    return {r["point"]: r for r in rows}


def test_a_sweep_matches_single_analyses_and_records_a_refused_point(tmp_path, cluster):
    spec = spec_of(SPEC)
    out = tmp_path / "r.csv"
    seen = []
    outcome = run_sweep(spec, out, client=cluster, progress=lambda *a: seen.append(a))
    assert outcome.points == outcome.ran == outcome.rows == 8 and outcome.skipped == 0
    assert seen[-1][:3] == (8, 8, outcome.errors)
    cols, rows = read_results(out)
    assert [c.name for c in cols] == [c.name for c in columns(spec)]
    rows = _by_point(rows)
    assert sorted(rows) == list(range(8))
    refused = [r for r in rows.values() if r["status"] != "ok"]
    assert {r["status"] for r in refused} == {"refused"}
    assert {(r["hosts_per_leaf"], r["oversubscription"]) for r in refused} == {(40, 1.0)}
    assert all("40 host + 40 uplink ports" in r["error"] for r in refused)
    assert outcome.errors == len(refused) == 2
    for p in expand(spec):
        r = rows[p.index]
        assert r["key"] == p.key
        if r["status"] != "ok":
            assert r["pareto"] is None and r["cost_usd"] is None
            continue
        design = GENERATORS["leaf-spine"].build(**p.params)
        rep = analyze(design, sizes=[1 << 20, 64 << 20])
        bom = bill_of_materials(design)
        assert r["gpus"] == rep.design.gpus and r["links"] == rep.design.links
        assert r["bisection_lower_bytes_per_s"] == rep.bisection.lower_bytes_per_s
        assert r["bisection_upper_bytes_per_s"] == rep.bisection.upper_bytes_per_s
        sel = {x.message_bytes: x for x in rep.selected()}
        assert r["allreduce_1MiB_time_s"] == sel[1 << 20].time_s
        assert r["allreduce_64MiB_time_s"] == sel[64 << 20].time_s
        assert r["allreduce_64MiB_algorithm"] == sel[64 << 20].algorithm
        assert r["cost_usd"] == bom.total_price_usd and r["power_w"] == bom.total_power_w
        assert r["switches"] == bom.quantity("switch") and r["cables"] == bom.quantity("cable")
        assert r["seconds"] > 0
    ok = [r for r in rows.values() if r["status"] == "ok"]
    front = [r for r in ok if r["pareto"]]
    assert front
    for r in ok:  # the front is exactly the points no other point beats on cost and 64 MiB time
        beaten = any(o["cost_usd"] <= r["cost_usd"] and o["allreduce_64MiB_time_s"] <= r["allreduce_64MiB_time_s"]
                     and (o["cost_usd"], o["allreduce_64MiB_time_s"]) != (r["cost_usd"], r["allreduce_64MiB_time_s"])
                     for o in ok)
        assert r["pareto"] is (not beaten)


def test_csv_and_parquet_hold_the_same_rows(tmp_path, cluster):
    spec = spec_of({**SPEC, "parameters": {**SPEC["parameters"], "hosts_per_leaf": 8}})
    run_sweep(spec, tmp_path / "r.csv", client=cluster)
    run_sweep(spec, tmp_path / "r.parquet", client=cluster)
    assert not journal_path(tmp_path / "r.parquet").exists()
    import pyarrow.parquet as pq

    table = pq.read_table(tmp_path / "r.parquet")
    assert table.schema.field("cost_usd").type == "double" and table.schema.field("leaves").type == "int64"
    c_cols, c_rows = read_results(tmp_path / "r.csv")
    p_cols, p_rows = read_results(tmp_path / "r.parquet")
    assert [c.name for c in c_cols] == [c.name for c in p_cols]
    drop = ("seconds",)
    assert [{k: v for k, v in r.items() if k not in drop} for r in c_rows] == \
        [{k: v for k, v in r.items() if k not in drop} for r in p_rows]
    with open(tmp_path / "r.csv", newline="") as f:
        header = next(csv.reader(f))
    assert header[:5] == ["point", "key", "generator", "leaves", "hosts_per_leaf"]


def test_resume_skips_finished_points_and_runs_failed_ones_again(tmp_path, cluster):
    spec = spec_of(SPEC)
    out = tmp_path / "r.csv"
    run_sweep(spec, out, client=cluster)
    lines = out.read_text().splitlines(keepends=True)
    # interrupted: the header, three finished points, one failed point and half a line
    failed = lines[4].replace(",ok,", ",failed,", 1)
    out.write_text("".join(lines[:4]) + failed + lines[5][:30])
    first = {json.loads(r["parameters"])["leaves"] for r in read_results(out)[1]}
    assert first
    _, todo, _, kept = plan(spec, out, resume=True)
    assert len(kept) == 3 and len(todo) == 5
    calls = []
    outcome = run_sweep(spec, out, client=cluster, resume=True, progress=lambda *a: calls.append(a))
    assert outcome.skipped == 3 and outcome.ran == 5 and outcome.rows == 8
    assert calls[-1][:2] == (5, 5)
    _, rows = read_results(out)
    assert sorted(r["point"] for r in rows) == list(range(8))
    assert all(r["status"] in ("ok", "refused") for r in rows)
    # nothing left: a second resume runs nothing and keeps the file
    again = run_sweep(spec, out, client=cluster, resume=True)
    assert again.ran == 0 and again.skipped == 8


def test_resume_of_a_parquet_file_killed_before_its_footer(tmp_path, cluster):
    spec = spec_of(SPEC)
    out = tmp_path / "r.parquet"
    run_sweep(spec, out, client=cluster)
    _, rows = read_results(out)
    cols = columns(spec)
    sink = Sink(out, cols, [])
    for r in rows[:2]:
        sink.write(r)
    # the process dies here: the journal has two rows, the Parquet file its first bytes and no footer
    sink._csv.close()
    sink._writer = None
    out.write_bytes(b"PAR1" + bytes(100))
    assert len(read_results(out)[1]) == 2
    outcome = run_sweep(spec, out, client=cluster, resume=True)
    assert outcome.skipped == 2 and outcome.ran == 6
    assert sorted(r["point"] for r in read_results(out)[1]) == list(range(8))
    assert not journal_path(out).exists()


def test_resume_refuses_results_of_another_spec(tmp_path, cluster):
    out = tmp_path / "r.csv"
    run_sweep(spec_of({**SPEC, "parameters": {"leaves": 2}}), out, client=cluster)
    with pytest.raises(Exception, match="its columns are not this spec's"):
        run_sweep(spec_of({**SPEC, "parameters": {"leaves": 2}, "sizes": ["2MiB"]}), out, client=cluster,
                  resume=True)


def test_a_workload_and_a_failure_scan_give_time_to_train_and_the_worst_failure(tmp_path, cluster):
    data = {"generator": "leaf-spine", "parameters": {"leaves": 2, "hosts_per_leaf": 8, "oversubscription": [1, 2],
                                                      "nodes_per_rack": 1},
            "workloads": ["gpt3-1.3b-ddp"], "sizes": ["1GiB"], "failures": "switches"}
    spec = spec_of(data)
    run_sweep(spec, tmp_path / "r.parquet", client=cluster)
    _, rows = read_results(tmp_path / "r.parquet")
    assert [r["status"] for r in rows] == ["ok", "ok"]
    w = load_workload("gpt3-1.3b-ddp")
    for r in rows:
        design = GENERATORS["leaf-spine"].build(**json.loads(r["parameters"]))
        step = step_analysis(design, w)
        assert r["workload"] == "gpt3-1.3b-ddp"
        assert r["step_time_s"] == pytest.approx(step.step_time_s, rel=1e-12)
        assert r["gpu_idle_fraction"] == pytest.approx(step.gpu_idle_fraction, rel=1e-12)
        assert r["time_to_train_s"] == pytest.approx(step.time_to_train_s, rel=1e-12)
        assert r["n1_classes"] >= 1 and r["n1_worst"]
        assert r["n1_lost_bisection_bytes_per_s"] > 0
    assert any(r["pareto"] for r in rows)


def test_sweep_report_and_sweep_point(tmp_path, capsys, cluster):
    spec = spec_of(SPEC)
    out = tmp_path / "r.parquet"
    run_sweep(spec, out, client=cluster)
    html = tmp_path / "r.html"
    assert main(["sweep-report", str(out), "--html", str(html)]) == 0
    text = html.read_text()

    class Page(HTMLParser):
        def __init__(self):
            super().__init__()
            self.points, self.images, self.tags = [], 0, []

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            self.tags.append(tag)
            if "data-point" in a:
                self.points.append(int(a["data-point"]))
            if tag == "img" and a.get("src", "").startswith("data:image/png;base64,"):
                self.images += 1

    page = Page()
    page.feed(text)
    _, rows = read_results(out)
    front = [r["point"] for r in rows if r["pareto"]]
    assert sorted(set(page.points)) == list(range(8))  # every point, the front's twice
    assert sorted(page.points) == sorted(list(range(8)) + front)
    assert page.images == 1 and "Pareto front" in text and "40 host + 40 uplink ports" in text
    capsys.readouterr()

    design_file = tmp_path / "p.json"
    ok = next(r for r in rows if r["status"] == "ok")
    assert main(["sweep-point", str(out), str(ok["point"]), "-o", str(design_file)]) == 0
    rebuilt = load_design(design_file)
    direct = GENERATORS["leaf-spine"].build(**json.loads(ok["parameters"]))
    assert rebuilt.device_count() == direct.device_count() and rebuilt.link_count() == direct.link_count()
    assert main(["sweep-point", str(out), ok["key"], "-o", str(design_file)]) == 0
    bad = next(r for r in rows if r["status"] == "refused")
    assert main(["sweep-point", str(out), str(bad["point"]), "-o", str(design_file)]) == 2
    assert main(["sweep-point", str(out), "99", "-o", str(design_file)]) == 2
    err = capsys.readouterr().err
    assert "was refused" in err and "no point '99' (it holds points 0 to 7)" in err


def test_the_command_on_local_worker_processes_and_on_a_scheduler_started_here(tmp_path, capsys):
    from distributed import LocalCluster

    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({**SPEC, "parameters": {**SPEC["parameters"], "hosts_per_leaf": 8}}))
    # the embedded default: a local cluster of worker processes
    local = tmp_path / "local.csv"
    assert main(["sweep", str(spec), "-o", str(local), "--workers", "2"]) == 0
    cap = capsys.readouterr()
    assert "wrote " + str(local) + ": 4 points (0 refused, 0 failed)" in cap.out and "on 2 workers" in cap.out
    assert "4/4 points" in cap.err and "= 4 points; about" in cap.err
    # an existing cluster: a scheduler and a worker on 127.0.0.1, reached by address
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1",
                      scheduler_port=0,
                      dashboard_address=None) as lc:
        assert lc.scheduler_address.startswith("tcp://127.0.0.1:")
        remote = tmp_path / "remote.parquet"
        assert main(["sweep", str(spec), "-o", str(remote), "--scheduler", lc.scheduler_address, "-q"]) == 0
    assert capsys.readouterr().out == ""
    a, b = read_results(local)[1], read_results(remote)[1]
    assert [(r["key"], r["cost_usd"], r["allreduce_64MiB_time_s"], r["pareto"]) for r in a] == \
        [(r["key"], r["cost_usd"], r["allreduce_64MiB_time_s"], r["pareto"]) for r in b]
    assert all(math.isfinite(r["bisection_lower_bytes_per_s"]) for r in a)


def test_an_unreachable_scheduler_is_one_line(tmp_path, capsys, monkeypatch):
    import designer.sweep.runner

    monkeypatch.setattr(designer.sweep.runner, "CONNECT_TIMEOUT_S", 1)
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({"generator": "server"}))
    code = main(["sweep", str(spec), "-o", str(tmp_path / "r.csv"), "--scheduler", "tcp://127.0.0.1:9", "-q"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err and err.count("\n") == 1


def test_workers_of_another_version_are_refused_before_any_point(tmp_path, cluster, monkeypatch):
    import designer.sweep.runner as runner

    monkeypatch.setattr(runner, "_worker_version", lambda: "0.0.0-other")
    with pytest.raises(Exception, match=r"workers run topo-designer 0.0.0-other, this is .*: install the same"):
        run_sweep(spec_of({"generator": "server"}), tmp_path / "r.csv", client=cluster)

    def broken():
        raise ModuleNotFoundError("No module named 'designer'")

    monkeypatch.setattr(runner, "_worker_version", broken)
    with pytest.raises(Exception, match="cannot run the designer .*ModuleNotFoundError: No module named 'designer'"):
        run_sweep(spec_of({"generator": "server"}), tmp_path / "r.csv", client=cluster)


def test_a_cluster_that_cannot_be_reached_leaves_the_results_file_alone(tmp_path, monkeypatch):
    import designer.sweep.runner as runner

    monkeypatch.setattr(runner, "CONNECT_TIMEOUT_S", 1)
    out = tmp_path / "r.csv"
    out.write_text("earlier results\n")
    with pytest.raises(Exception, match="cannot reach the Dask scheduler"):
        run_sweep(spec_of({"generator": "server"}), out, scheduler="tcp://127.0.0.1:9")
    assert out.read_text() == "earlier results\n"
