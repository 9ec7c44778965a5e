"""Failures: what-if, the N-1 scan over classes of equivalent elements, single points of failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from designer.analysis.common.errors import AnalysisError
from designer.analysis.training.failures import device_classes, fail, n1_scan, single_points, whatif
from designer.generators import GENERATORS
from designer.io import load_design
from designer.io.workload_records import workload_from_data
from designer.model import Design, Device, Link, PortGroup

ROOT = Path(__file__).resolve().parents[2]


def leaf_spine():
    # 4 leaves of 32 GPUs, 2 spines (32 uplinks per leaf, 16 to each spine), 1:1.
    return GENERATORS["leaf-spine"].build(leaves=4, hosts_per_leaf=32)


def test_a_spine_failure_loses_its_share_of_the_bisection() -> None:
    d = leaf_spine()
    spines = [x.id for x in d.devices if x.tier == "spine"]
    w = whatif(d, [spines[0]])
    # 128 GPUs x 50 GB/s / 2 = 3.2 TB/s; one of two spines gone: half of the leaf uplinks.
    assert w.before.bisection_lower_bytes_per_s == pytest.approx(3.2e12)
    assert w.after.bisection_lower_bytes_per_s == pytest.approx(3.2e12 / len(spines))
    assert w.lost_bisection_bytes_per_s == pytest.approx(3.2e12 - 3.2e12 / len(spines))
    assert w.links_down == 64 and w.after.gpus_without_network == 0


def test_scan_ranks_leaves_over_spines_and_groups_equivalent_switches() -> None:
    d = leaf_spine()
    classes = device_classes(d)
    ids = [x.id for x in d.devices]
    leaves = {classes[ids.index(x.id)] for x in d.devices if x.tier == "leaf"}
    spines = {classes[ids.index(x.id)] for x in d.devices if x.tier == "spine"}
    assert len(leaves) == 1 and len(spines) == 1 and leaves != spines
    scan = n1_scan(d)
    assert scan.classes == 2 and scan.elements == 6
    first, second = scan.rows
    assert first.element.startswith("leaf") and first.gpus_cut_off == 32 and first.members == 4
    assert second.element.startswith("spine") and second.members == 2
    assert second.lost_bisection_lower_bytes_per_s == pytest.approx(1.6e12)


def test_scan_with_a_workload_adds_step_time() -> None:
    w = workload_from_data({"format": "topo-designer-workload", "version": 1, "name": "x",
                            "model": {"parameters": 1e9, "layers": 4, "hidden_size": 1024, "sequence_length": 1024},
                            "parallelism": {"tp": 8}, "batch": {"global_batch_sequences": 16},
                            "compute": {"step_compute_s": 0.1}})
    scan = n1_scan(leaf_spine(), links=True, workload=w)
    leaf = next(r for r in scan.rows if r.element.startswith("leaf"))
    assert leaf.added_step_s == float("inf")
    nvlink = next(r for r in scan.rows if r.element.endswith("nvsw"))
    assert nvlink.added_step_s > 0  # that GPU's tensor-parallel traffic falls back to the network


def one_nic_servers() -> Design:
    """Two servers of 8 GPUs on an NVSwitch, each with a single NIC: its link is the server's only path."""
    d = Design(name="one nic")
    gpu = (PortGroup("nvl", 1, 3600.0, "nvlink"), PortGroup("pcie", 1, 512.0, "pcie"))
    devs = [Device("sw", "switch", (PortGroup("p", 2, 400.0),))]
    links = []
    for s in (1, 2):
        devs.append(Device(f"s{s}-nvsw", "nvswitch", (PortGroup("nvl", 8, 3600.0, "nvlink"),)))
        devs.append(Device(f"s{s}-nic", "nic", (PortGroup("p", 1, 400.0), PortGroup("pcie", 1, 512.0, "pcie"))))
        for g in range(1, 9):
            devs.append(Device(f"s{s}-g{g}", "gpu", gpu))
            links.append(Link(f"s{s}-v{g}", f"s{s}-g{g}", "nvl1", f"s{s}-nvsw", f"nvl{g}", "nvlink"))
        links.append(Link(f"s{s}-c", f"s{s}-g1", "pcie1", f"s{s}-nic", "pcie1", "pcie"))
        links.append(Link(f"s{s}-up", f"s{s}-nic", "p1", "sw", f"p{s}"))
    d.extend(devices=devs, links=links)
    return d


def test_a_server_behind_one_nic_link_is_a_single_point_of_failure() -> None:
    # GPUs 2-8 of each server have no NIC of their own: cut off already (NVLink is not transit to
    # another server's network), as what-if counts them; the NIC link cuts off the one GPU left.
    d = one_nic_servers()
    assert whatif(d, ["s1-up"]).before.gpus_without_network == 14
    sp = single_points(d)
    assert set(sp.links) == {("s1-up", 1), ("s2-up", 1), ("s1-c", 1), ("s2-c", 1)}
    assert set(sp.devices) == {("sw", 1), ("s1-nic", 1), ("s2-nic", 1)}
    # A leaf-spine: each leaf cuts off its 32 GPUs, each NIC and NIC link its own GPU; spines none.
    d = leaf_spine()
    sp2 = single_points(d)
    leaves = {x.id for x in d.devices if x.tier == "leaf"}
    assert {x for x, n in sp2.devices if n == 32} == leaves
    assert {x for x, n in sp2.devices if n == 1} == {x.id for x in d.devices if x.kind == "nic"}
    assert {n for _, n in sp2.links} == {1} and len(sp2.links) == 2 * 128  # GPU-NIC and NIC-leaf links
    assert not any(x.startswith("spine") for x, _ in sp2.devices)


def test_one_definition_of_cut_off_everywhere() -> None:
    """What the scan counts for a failure, what-if counts, and a single point of failure is exactly
    an element whose failure the scan says cuts GPUs off (the step never completes)."""
    d = GENERATORS["rail-optimized"].build(sus=1, nodes_per_su=8, ufm=True)
    sp = single_points(d)
    listed = dict(sp.devices) | dict(sp.links)
    scan = n1_scan(d, links=True)
    for row in scan.rows:
        assert whatif(d, [row.element]).after.gpus_without_network == row.gpus_cut_off
        assert listed.get(row.element, 0) == row.gpus_cut_off, row.element
    leaf = next(r for r in scan.rows if r.element.endswith("leaf1"))
    assert leaf.gpus_cut_off > 0 and "su1-leaf1" in listed


def test_one_server_alone_has_no_network_single_points() -> None:
    """All GPUs in one NVLink domain: a NIC or its link cuts nothing off."""
    sp = single_points(GENERATORS["server"].build())
    assert not [x for x, _ in sp.devices if "nic" in x] and not [x for x, _ in sp.links if "nic" in x]


def test_fail_marks_links_and_refuses_unknown_ids() -> None:
    d = leaf_spine()
    broken = fail(d, ["spine1", "leaf1--spine2-1" if d.has_link("leaf1--spine2-1") else d.links[-1].id])
    assert sum(lk.failed for lk in broken.links) >= 64
    assert not any(lk.failed for lk in d.links)  # the original is untouched
    with pytest.raises(AnalysisError, match="no link or device 'ghost'"):
        fail(d, ["ghost"])


def test_n1_switch_scan_of_the_4su_superpod_groups_its_switches() -> None:
    """(benchmarks/bench_training.py times the scan.)"""
    d = load_design(ROOT / "sample_designs" / "superpod-h100-4su.json")
    scan = n1_scan(d)
    assert scan.elements == sum(1 for x in d.devices if x.kind == "switch")
    assert scan.classes < 10
    spine = next(r for r in scan.rows if "spine" in r.element)
    assert spine.gpus_cut_off == 0
    assert scan.rows[0].gpus_cut_off > 0  # a leaf failure cuts its rail's GPUs off first
