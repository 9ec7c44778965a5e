"""analyze(): the report, its JSON against the schema, the CLI, edge cases."""

from __future__ import annotations

import json
import math

import jsonschema
import pytest
from analysis_helpers import rail_cluster, single_server, two_node_design

from designer.analysis import AnalysisError, Report, analyze
from designer.analysis.fabric.capacity import build_capacity_graph
from designer.cli import main
from designer.generators import GENERATORS
from designer.io import save_design
from designer.model import Design, Device, Link, PortGroup
from designer.model.catalog import resources_dir
from designer.present.report_json import report_to_dict, report_to_json
from designer.present.report_text import summary_lines

SCHEMA = json.loads((resources_dir() / "schema" / "report.schema.json").read_text())


def assert_valid(report: Report) -> dict:
    data = json.loads(report_to_json(report))
    jsonschema.validate(data, SCHEMA)
    return data


def finite_numbers(obj) -> bool:
    if isinstance(obj, float):
        return math.isfinite(obj)
    if isinstance(obj, dict):
        return all(finite_numbers(v) for v in obj.values())
    if isinstance(obj, list):
        return all(finite_numbers(v) for v in obj)
    return True


def test_real_report_validates_against_schema():
    rep = analyze(GENERATORS["rail-optimized"].build(sus=1), sizes=[8, 1 << 20, 1 << 30])
    data = assert_valid(rep)
    assert data["design"] == {**data["design"], "gpus": 256, "switches": 12}
    assert data["bisection"]["exact"] is True
    columns = data["links"]
    assert {len(col) for col in columns.values()} == {data["design"]["links_used"]}
    # the columns are the report's link table, row by row
    first = rep.links[0]
    assert [columns[f][0] for f in ("id", "direction", "protocol")] == [first.id, first.direction, first.protocol]
    assert columns["utilization"][0] == first.utilization
    assert columns["capacity_bytes_per_s"][-1] == rep.links[len(rep.links) - 1].capacity_bytes_per_s
    assert {c["algorithm"] for c in data["collectives"]} >= {"ring", "tree", "nvls"}
    assert sum(c["selected"] for c in data["collectives"]) == 3
    # every bottleneck is a real link, named with the algorithm behind it
    ids = set(columns["id"])
    assert data["bottlenecks"] and all(b["link"] in ids and b["algorithm"] for b in data["bottlenecks"])
    assert data["bottlenecks"] == sorted(data["bottlenecks"], key=lambda b: -b["utilization"])
    assert set(data["bisection"]["cut_links"]) <= ids


def test_bottleneck_names_the_flows_and_fair_rate():
    ls = GENERATORS["leaf-spine"].build(leaves=4, hosts_per_leaf=8, oversubscription=2.0)
    rep = analyze(ls, algorithms=["ring"], sizes=[1 << 30])
    top = rep.bottlenecks[0]
    assert top.link.startswith("leaf") and "spine" in top.link
    assert top.flows >= 1 and top.example_flows
    assert top.fair_rate_bytes_per_s is not None and top.fair_rate_bytes_per_s > 0
    assert any("spine" in line for line in summary_lines(rep))


def test_summary_lines_have_units_and_bounds():
    rep = analyze(single_server(8), sizes=[1 << 20, 1 << 30])
    text = "\n".join(summary_lines(rep))
    assert "Bisection" in text and "TB/s" in text and "GB/s" in text and "MiB" in text
    assert "nvls" in text and "*" in text


def test_no_gpu_one_gpu_failed_and_zero_capacity_links():
    d = Design("switches only")
    d.extend(devices=[Device("s1", "switch", (PortGroup("p", 2, 400.0),)),
                      Device("s2", "switch", (PortGroup("p", 2, 400.0),))],
             links=[Link("l", "s1", "p1", "s2", "p1")])
    rep = analyze(d)
    assert rep.design.gpus == 0 and any("no GPU" in n for n in rep.notes)
    assert finite_numbers(assert_valid(rep))

    rep1 = analyze(single_server(1))
    assert rep1.collectives == () and rep1.notes
    assert finite_numbers(assert_valid(rep1))

    d2 = two_node_design()
    d2.set_link_field("n2-nic1--sw", "failed", True)
    d2.set_link_field("n2-nic2--sw", "failed", True)
    rep2 = analyze(d2)
    assert rep2.bisection.upper_bytes_per_s == 0.0 and rep2.bisection.exact
    assert any("failed" in n for n in rep2.notes)
    assert finite_numbers(assert_valid(rep2))


def test_zero_rate_cable_is_left_out_with_a_note():
    from designer.model.catalog import Cable, Catalog

    cat = Catalog()
    cat.cables["dead"] = Cable("dead", "dead", "optical", 0.0, 10.0)
    d = two_node_design()
    d.set_link_field("n1-nic1--sw", "cable", "dead")
    cap = build_capacity_graph(d, cat)
    assert ("n1-nic1--sw", "zero capacity") in cap.excluded
    rep = analyze(d, cat)
    assert any("zero-capacity" in n for n in rep.notes)
    assert finite_numbers(report_to_dict(rep))


def test_gpu_selection():
    d = rail_cluster(2, spines=1, uplinks_per_leaf=2)
    rep = analyze(d, gpus="node1", sizes=[1 << 20])
    assert rep.ranks == 8 and rep.servers == 1
    rep = analyze(d, gpus="node1-gpu1,node2-gpu1", sizes=[1 << 20])
    assert rep.ranks == 2 and rep.bisection.endpoints == 2
    with pytest.raises(AnalysisError, match="no GPU or group"):
        analyze(d, gpus="nope")
    with pytest.raises(AnalysisError, match="not a GPU"):
        analyze(d, gpus="leaf1")


def test_unknown_models_still_analyze_from_port_speeds():
    d = GENERATORS["server"].build()
    for dev in d.devices:
        d.set_device_field(dev.id, "model", "my-" + dev.kind)
    rep = analyze(d, sizes=[1 << 30])
    assert any("not in the catalog" in n for n in rep.notes)
    ring = next(r for r in rep.collectives if r.algorithm == "ring")
    assert ring.busbw_bytes_per_s > 300e9


def test_cli_analyze_summary_and_json(tmp_path, capsys):
    path = tmp_path / "d.json"
    save_design(GENERATORS["rail-optimized"].build(sus=1), path)
    assert main(["analyze", str(path), "--sizes", "1MiB,1GiB", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert "Bisection over 256 GPUs (exact" in out and "1 GiB" in out and "Top bottlenecks" in out
    assert main(["analyze", str(path), "--json", "-", "--sizes", "8B:64B", "--collective", "allgather"]) == 0
    data = json.loads(capsys.readouterr().out)
    jsonschema.validate(data, SCHEMA)
    assert [c["message_bytes"] for c in data["collectives"]] == [8, 16, 32, 64]
    out_file = tmp_path / "r.json"
    assert main(["analyze", str(path), "--json", str(out_file), "--algorithm", "ring,tree", "--gpus", "su1-node1",
                 "--sizes", "1GiB"]) == 0
    data = json.loads(out_file.read_text())
    assert {c["algorithm"] for c in data["collectives"]} == {"ring", "tree"} and data["ranks"] == 8


def test_cli_errors_exit_2(tmp_path, capsys):
    path = tmp_path / "d.json"
    save_design(single_server(2), path)
    assert main(["analyze", str(path), "--sizes", "9ZB"]) == 2
    assert main(["analyze", str(path), "--sizes", "1GiB:1MiB"]) == 2
    assert main(["analyze", str(path), "--algorithm", "magic"]) == 2
    assert main(["analyze", str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("topo-designer:") == 4 and "Traceback" not in err


def test_summary_rows_can_be_thinned_and_links_table_reads_back():
    rep = analyze(GENERATORS["server"].build())
    lines = summary_lines(rep, max_rows=4)
    table = [ln for ln in lines if ln.strip().endswith("GB/s") or ln.strip().endswith("TB/s")]
    assert 4 <= len(table) <= 7 and any("8 GiB" in ln for ln in lines)
    assert len(rep.links) == rep.design.links_used
    first = rep.links[0]
    assert first.id == rep.links.ids[0] and 0 <= first.utilization <= 1 and " -> " in first.direction
    assert sum(1 for _ in rep.links) == len(rep.links)


def test_benchmark_script_measures_a_small_fabric():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_analyze.py"
    spec = importlib.util.spec_from_file_location("bench_analyze", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fig = mod.one(256)
    assert fig["gpus"] == 256 and fig["bisection_exact"] and fig["analyze_s"] > 0


def non_finite_fields(obj, path: str = "report") -> list[str]:
    """Paths of the NaN / inf numbers in a Report (dataclasses, tuples, dicts, numpy arrays)."""
    import dataclasses

    import numpy as np

    if isinstance(obj, float | np.floating):
        return [] if math.isfinite(obj) else [path]
    if isinstance(obj, np.ndarray):
        return [path] if obj.dtype.kind == "f" and not np.isfinite(obj).all() else []
    if dataclasses.is_dataclass(obj):
        return [p for f in dataclasses.fields(obj) for p in non_finite_fields(getattr(obj, f.name), f"{path}.{f.name}")]
    if isinstance(obj, dict):
        return [p for k, v in obj.items() for p in non_finite_fields(v, f"{path}[{k!r}]")]
    if isinstance(obj, list | tuple):
        return [p for i, v in enumerate(obj) for p in non_finite_fields(v, f"{path}[{i}]")]
    return []


def test_a_zero_speed_port_is_refused_by_the_model():
    from designer.model.errors import InvalidValueError

    with pytest.raises(InvalidValueError, match="speed_gbps"):
        PortGroup("p", 1, 0.0)


@pytest.mark.parametrize("failed", [False, True])
@pytest.mark.parametrize("gbps", [5e-324, 1e-300, 1e305])
def test_extreme_port_speeds_and_a_failed_link_never_give_nan_or_inf(gbps, failed):
    # The slowest and fastest speeds the model accepts, on NIC n1-nic1 and the switch; a failed link.
    d = two_node_design()
    for dev in ("n1-nic1", "sw"):
        ports = d.device(dev).ports
        d.set_device_field(dev, "ports", (PortGroup("p", ports[0].count, gbps), *ports[1:]))
    d.set_link_field("n2-nic2--sw", "failed", failed)
    for collective in ("allreduce", "alltoall", "broadcast"):
        rep = analyze(d, collective=collective, sizes=[8, 1 << 30])
        assert non_finite_fields(rep) == []
        text = "\n".join(summary_lines(rep)).lower()
        assert "nan" not in text and "inf " not in text and "inf/" not in text
        assert rep.bisection.lower_bytes_per_s <= rep.bisection.upper_bytes_per_s
        assert finite_numbers(assert_valid(rep))
    if gbps < 1:  # a link slower than the analyzer can time is left out like a zero-rate one
        assert ("n1-nic1--sw", "zero capacity") in build_capacity_graph(d).excluded


def test_summary_says_when_sharp_is_shown_but_not_selected(tmp_path, capsys):
    d = rail_cluster(4, spines=2, uplinks_per_leaf=4)  # InfiniBand switches with SHARP
    path = tmp_path / "d.json"
    save_design(d, path)
    assert main(["analyze", str(path), "--sizes", "1MiB,1GiB"]) == 0
    lines = capsys.readouterr().out.splitlines()
    hint = [i for i, line in enumerate(lines) if line.startswith("sharp: shown, not auto-selected")]
    assert len(hint) == 1 and "--algorithm sharp" in lines[hint[0]]
    assert lines[hint[0] - 1].strip().startswith("1 GiB")  # right under the table
    assert not any(r.selected for r in analyze(d, sizes=[1 << 30]).collectives if r.algorithm == "sharp")
    # asked for, SHARP competes and the line goes away
    assert main(["analyze", str(path), "--sizes", "1MiB,1GiB", "--algorithm", "ring,sharp"]) == 0
    assert "not auto-selected" not in capsys.readouterr().out
