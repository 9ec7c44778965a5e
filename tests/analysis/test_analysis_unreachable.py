"""Failures that disconnect GPUs: every collective says which GPUs cannot be reached and why, nothing
is selected, SHARP is offered only on InfiniBand SHARP switches every participant reaches; the text,
JSON and HTML reports show "cannot run"."""

from __future__ import annotations

import json

import jsonschema
import pytest

from designer.analysis import analyze, build_context
from designer.analysis.collectives.times import collective_times
from designer.generators import GENERATORS
from designer.model.shipped import resources_dir
from designer.present.html_report import html_report
from designer.present.report_json import report_to_dict
from designer.present.report_text import cannot_run_text, summary_lines

SCHEMA = json.loads((resources_dir() / "schema" / "report.schema.json").read_text())
SIZES = [1 << 20, 1 << 30]


def two_su(**kw):
    return GENERATORS["rail-optimized"].build(sus=2, nodes_per_su=4, **kw)


def fail_spine_links(d) -> list[str]:
    tier = {dev.id: dev.tier for dev in d.iter_devices()}
    ids = [lk.id for lk in d.iter_links() if "spine" in (tier[lk.a_device], tier[lk.b_device])]
    for i in ids:
        d.set_link_field(i, "failed", True)
    return ids


def test_sharp_is_offered_on_a_healthy_infiniband_fabric():
    rep = analyze(two_su(), sizes=SIZES)
    assert "sharp" in {r.algorithm for r in rep.collectives}
    assert rep.cannot_run == ()
    assert len(rep.selected()) == len(SIZES)


def test_every_spine_link_failed_nothing_runs_and_nothing_is_selected():
    d = two_su()
    failed = fail_spine_links(d)
    rep = analyze(d, sizes=SIZES)
    assert rep.collectives == () and rep.selected() == []
    assert {a for a, _ in rep.cannot_run} == {"ring", "tree", "hierarchical", "nvls", "sharp"}
    why = rep.cannot_run[0][1]
    # which GPUs, and why: the two SUs are islands; the failed spine links would join them
    assert "2 islands (32, 32 GPUs)" in why and "su1-node1-gpu1" in why
    assert "bring back failed links" in why and failed[0] in why
    assert any(n.startswith("ring, tree, hierarchical, nvls, sharp: cannot run: ") for n in rep.notes)
    text = "\n".join(summary_lines(rep))
    assert "nothing selected: no algorithm can run" in text
    assert cannot_run_text(rep).startswith("allreduce cannot run: 64 GPUs are split into 2 islands")
    data = report_to_dict(rep)
    jsonschema.validate(data, SCHEMA)
    assert data["collectives"] == [] and data["links_traffic"] == "no traffic"
    assert {r["algorithm"] for r in data["cannot_run"]} == {"ring", "tree", "hierarchical", "nvls", "sharp"}
    page = html_report(data)
    assert "Nothing selected" in page and "sharp: cannot run" in page


def test_one_su_cut_off_names_the_cut_off_gpus():
    d = GENERATORS["rail-optimized"].build(sus=3, nodes_per_su=2)
    tier = {dev.id: dev.tier for dev in d.iter_devices()}
    for lk in list(d.iter_links()):
        ends = (lk.a_device, lk.b_device)
        if any(e.startswith("su3-leaf") for e in ends) and "spine" in (tier[ends[0]], tier[ends[1]]):
            d.set_link_field(lk.id, "failed", True)
    rep = analyze(d, sizes=SIZES)
    assert rep.selected() == []
    why = dict(rep.cannot_run)["sharp"]
    assert why.startswith("16 GPUs have no path to the other 32 GPUs over working links (su3-node1-gpu1")


def test_a_gpu_whose_nic_link_failed_cannot_reach_the_aggregation_tree():
    d = two_su()
    net = [lk.id for lk in d.iter_links() if "su1-node1-nic1" in (lk.a_device, lk.b_device) and lk.medium != "pcie"]
    assert net
    for i in net:
        d.set_link_field(i, "failed", True)
    res = collective_times(build_context(d), sizes=SIZES, algorithms=["sharp", "nvls", "hierarchical"])
    cannot = dict(res.cannot_run)
    # The GPU still reaches its server over NVLink, so its GPUs are one island; but its own NIC sends
    # into the aggregation tree, and the rail rings leave through it.
    assert "sharp" in cannot and "su1-node1-gpu1" in cannot["sharp"] and "aggregation tree" in cannot["sharp"]
    assert "no network link" in cannot["hierarchical"]
    assert not any(r.selected and r.algorithm == "sharp" for r in res.rows)


@pytest.mark.parametrize("claimed", [True, False])
def test_no_sharp_on_ethernet_even_when_a_switch_claims_it(claimed):
    d = two_su(switch="sn5600")
    for dev in list(d.iter_devices()):
        if dev.kind == "switch":
            d.set_device_property(dev.id, "sharp", claimed)
    res = collective_times(build_context(d), sizes=SIZES, algorithms=["ring", "sharp"])
    assert {r.algorithm for r in res.rows} == {"ring"}
    assert any(n.startswith("sharp: not available: sharp needs InfiniBand switches") for n in res.notes)


def test_sharp_needs_every_switch_to_support_it():
    d = two_su()
    d.set_device_property("spine1", "sharp", False)
    res = collective_times(build_context(d), sizes=SIZES, algorithms=["ring", "sharp"])
    assert {r.algorithm for r in res.rows} == {"ring"}
