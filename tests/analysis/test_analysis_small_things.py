"""Report details: size parsing, --top 0, distinct example flows, notes on bottlenecks without flow
detail, and no bisection (null) with fewer than 2 GPUs in every output."""

from __future__ import annotations

import json

import jsonschema
import pytest
from analysis_helpers import single_server

from designer.analysis import analyze
from designer.analysis import report as report_module
from designer.analysis.collectives.times import fair_rates
from designer.analysis.common.errors import AnalysisError
from designer.analysis.training.failures import whatif
from designer.cli import main
from designer.cli.analyze import parse_size, parse_sizes
from designer.generators import GENERATORS
from designer.io import save_design
from designer.model.shipped import resources_dir
from designer.present.failures_text import whatif_lines, whatif_to_dict
from designer.present.html_report import html_report
from designer.present.report_json import report_to_dict
from designer.present.report_text import summary_lines

SCHEMA = json.loads((resources_dir() / "schema" / "report.schema.json").read_text())


# ---------------------------------------------------------------- sizes
@pytest.mark.parametrize(("text", "expected"), [
    ("8", 8), ("8B", 8), ("1k", 1024), ("1K", 1024), ("1KiB", 1024), ("1kib", 1024), ("1.5M", 1536 << 10),
    ("2G", 2 << 30), ("2GiB", 2 << 30), ("1T", 1 << 40), ("1P", 1 << 50), ("1PiB", 1 << 50),
])
def test_size_units_are_powers_of_1024_whichever_way_written(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["1kB", "1MB", "8GB", "1TB", "1PB"])
def test_decimal_unit_names_are_refused_with_the_binary_one_offered(text):
    with pytest.raises(AnalysisError, match="ambiguous") as e:
        parse_size(text)
    assert f"{text[:-2]}{text[-2].upper()}iB" in str(e.value)


@pytest.mark.parametrize("text", ["0", "2PiB", "1.5B", "huge", "1XiB"])
def test_sizes_out_of_range_or_unknown_are_refused(text):
    with pytest.raises(AnalysisError, match="invalid size"):
        parse_size(text)


def test_the_range_reaches_the_largest_size_the_message_offers():
    assert parse_sizes("512TiB:1PiB") == [1 << 49, 1 << 50]


# ---------------------------------------------------------------- --top, example flows, flow notes
@pytest.fixture(scope="module")
def su_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("su") / "su.json"
    save_design(GENERATORS["rail-optimized"].build(sus=1, nodes_per_su=4), path)
    return path


def test_top_zero_prints_no_bottleneck_and_negative_is_refused(su_file, capsys):
    assert main(["analyze", str(su_file), "--sizes", "1MiB", "--top", "0"]) == 0
    out = capsys.readouterr().out
    assert "Top bottlenecks" not in out and "allreduce over 32 GPUs" in out
    assert main(["analyze", str(su_file), "--sizes", "1MiB", "--top", "2"]) == 0
    assert sum(1 for line in capsys.readouterr().out.splitlines() if "% busy" in line) == 2
    assert main(["analyze", str(su_file), "--sizes", "1MiB", "--top", "-1"]) == 2
    err = capsys.readouterr().err
    assert "--top" in err and "'-1': give 0 or more" in err and len(err.strip().splitlines()) == 1


def test_example_flows_are_distinct_pairs():
    rep = analyze(GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8), sizes=[1 << 30], prefer="ring", top=40)
    for bn in rep.bottlenecks:
        assert len(set(bn.example_flows)) == len(bn.example_flows)
    # a ring's channels repeat GPU pairs: some bottleneck carries more flows than distinct examples
    assert any(bn.flows > len(bn.example_flows) for bn in rep.bottlenecks)
    assert any(len(bn.example_flows) > 1 for bn in rep.bottlenecks)


def test_nvls_bottlenecks_without_flows_say_why():
    rep = analyze(GENERATORS["server"].build(), sizes=[1 << 30])
    assert rep.selected()[0].algorithm == "nvls"
    assert all(bn.flows == 0 and bn.fair_rate_bytes_per_s is None for bn in rep.bottlenecks)
    assert any("no flows and no fair rates: NVLS reduces in the NVSwitch" in n for n in rep.notes)
    ring = analyze(GENERATORS["server"].build(), sizes=[1 << 30], prefer="ring")
    assert ring.bottlenecks[0].flows > 0 and not any("no flows" in n for n in ring.notes)


def test_skipped_flow_detail_says_what_the_user_can_do(monkeypatch):
    monkeypatch.setattr(report_module, "fair_rates", lambda ctx, mdl: fair_rates(ctx, mdl, budget=1))
    rep = analyze(GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8), sizes=[1 << 30], prefer="ring")
    assert all(bn.flows == 0 for bn in rep.bottlenecks)
    note = next(n for n in rep.notes if "too many flows" in n)
    assert "--gpus" in note and "FAIR_WORK_BUDGET" not in note and "constants" not in note


# ---------------------------------------------------------------- no bisection below 2 GPUs
@pytest.mark.parametrize("gpus", [0, 1])
def test_fewer_than_two_gpus_have_no_bisection_in_any_output(gpus):
    d = single_server(1) if gpus else GENERATORS["leaf-spine"].build(leaves=1, hosts_per_leaf=8)
    if not gpus:
        for dev in [x for x in d.iter_devices() if x.kind != "switch"]:
            for lk in list(d.links_of(dev.id)):
                d.remove_link(lk.id)
            d.remove_device(dev.id)
    rep = analyze(d)
    b = rep.bisection
    assert (b.lower_bytes_per_s, b.upper_bytes_per_s, b.exact, b.endpoints) == (None, None, False, gpus)
    data = report_to_dict(rep)
    jsonschema.validate(data, SCHEMA)
    assert data["bisection"]["lower_bytes_per_s"] is None and data["bisection"]["exact"] is False
    assert not any(line.startswith("Bisection") for line in summary_lines(rep))
    assert "needs at least two GPUs" in html_report(data)


def test_whatif_on_one_gpu_has_no_bisection_loss():
    d = single_server(1)
    w = whatif(d, [d.links[0].id])
    assert w.lost_bisection_bytes_per_s is None and w.lost_bisection_lower_bytes_per_s is None
    assert whatif_to_dict(w)["delta"]["lost_bisection_bytes_per_s"] is None
    assert "bisection n/a .. n/a" in "\n".join(whatif_lines(w))


def test_devices_alike_share_their_node_values_and_an_odd_property_gets_its_own():
    from designer.analysis.fabric.capacity import build_capacity_graph

    d = GENERATORS["leaf-spine"].build(leaves=3, hosts_per_leaf=8)
    d.set_device_property("leaf1", "latency_ns", 900.0)
    d.set_device_property("leaf2", "based_on", ["not", "hashable"])
    cap = build_capacity_graph(d)
    lat = dict(zip(cap.node_ids, cap.node_latency_s, strict=True))
    assert lat["leaf1"] == pytest.approx(900e-9)
    # the unhashable property is its device's own signature: its values are worked out as any other's
    assert lat["leaf2"] == lat["leaf3"] == lat["spine1"] > 0 and lat["leaf2"] != lat["leaf1"]
