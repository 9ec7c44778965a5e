"""Collective times: calibration against tests/data/calibration.json and model properties."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from analysis_helpers import rail_cluster, single_server, two_node_design

from designer.analysis import AnalysisError, build_context, collective_times
from designer.analysis.collectives.times import bus_factor
from designer.analysis.common import constants as K
from designer.generators import GENERATORS

CAL_PATH = Path(__file__).resolve().parents[1] / "data" / "calibration.json"
GiB8 = 8 << 30


def calibration() -> dict:
    return {r["id"]: r for r in json.loads(CAL_PATH.read_text())["records"]}


def busbw(res, algorithm, size=GiB8):
    row = next(r for r in res.rows if r.algorithm == algorithm and r.message_bytes == size)
    return row.busbw_bytes_per_s / 1e9


def within(value, target, tol=0.10):
    return abs(value - target) <= tol * target


def test_hgx_h100_single_node_ring_and_nvls():
    cal = calibration()
    res = collective_times(build_context(GENERATORS["server"].build()), sizes=[GiB8])
    assert within(busbw(res, "ring"), cal["h100-1node-ring-busbw"]["value"])
    assert within(busbw(res, "nvls"), cal["h100-1node-nvls-busbw-peak"]["value"])
    sel = [r for r in res.rows if r.selected]
    assert [r.algorithm for r in sel] == ["nvls"]


@pytest.mark.parametrize("design", ["su", "4 nodes"])
def test_multinode_ndr_ring_is_eight_nics(design):
    lo, hi = calibration()["ndr400-per-nic-nccl"]["value"]
    d = GENERATORS["rail-optimized"].build(sus=1) if design == "su" else rail_cluster(4, spines=2, uplinks_per_leaf=4)
    res = collective_times(build_context(d), sizes=[GiB8], algorithms=["ring"])
    target = 8 * (lo + hi) / 2
    assert within(busbw(res, "ring"), target)


def test_dgx_a100_hdr_ring_and_selected():
    target = calibration()["dgx-a100-multinode-allreduce"]["value"]
    # DGX A100: A100 NVLink3 (300 GB/s), PCIe Gen4, 8 x 200G HDR on QM8700-class switches, no SHARP plugin.
    for nodes in (4, 16):
        d = rail_cluster(nodes, nic_gbps=200.0, nvl_gbps=2400.0, pcie_gbps=256.0, nvls=False, spines=4,
                         uplinks_per_leaf=nodes, sharp=False)
        res = collective_times(build_context(d), sizes=[GiB8])
        assert within(busbw(res, "ring"), target)
    sel = next(r for r in res.rows if r.selected)  # 16 nodes
    assert within(sel.busbw_bytes_per_s / 1e9, target)


def test_alltoall_is_bounded_by_one_nic():
    lo, hi = calibration()["alltoall-single-nic-bound"]["value"]
    ctx = build_context(rail_cluster(6, protocol="ethernet", spines=2, uplinks_per_leaf=6))
    res = collective_times(ctx, "alltoall", sizes=[GiB8])
    bw = busbw(res, "pairwise")
    assert bw <= hi * 1.0001
    assert within(bw, (lo + hi) / 2, 0.10)


def test_busbw_conventions_and_selection():
    res = collective_times(build_context(rail_cluster(4)), sizes=[8, 1 << 20, GiB8])
    p = res.ranks
    for r in res.rows:
        assert r.algbw_bytes_per_s == pytest.approx(r.message_bytes / r.time_s)
        assert r.busbw_bytes_per_s == pytest.approx(r.algbw_bytes_per_s * 2 * (p - 1) / p)
    for size in (8, 1 << 20, GiB8):
        rows = [r for r in res.rows if r.message_bytes == size]
        best = min((r for r in rows if r.algorithm != "sharp"), key=lambda r: r.time_s)
        assert [r.algorithm for r in rows if r.selected] == [best.algorithm]
    # small messages are latency bound: the tree beats the 2(p-1)-step ring
    t8 = {r.algorithm: r.time_s for r in res.rows if r.message_bytes == 8}
    assert t8["tree"] < t8["ring"]
    assert bus_factor("reducescatter", p) == pytest.approx((p - 1) / p)


def test_time_grows_with_size_and_is_finite():
    res = collective_times(build_context(rail_cluster(2, spines=1, uplinks_per_leaf=2)))
    for algo in {r.algorithm for r in res.rows}:
        t = np.array([r.time_s for r in res.rows if r.algorithm == algo])
        assert np.all(np.isfinite(t)) and np.all(np.diff(t) > 0)


def test_oversubscribed_uplinks_become_the_bottleneck():
    fast = collective_times(build_context(rail_cluster(8, spines=2, uplinks_per_leaf=8)), sizes=[GiB8],
                            algorithms=["ring"])
    # rails stay on their leaf: a ring never needs the spine, so oversubscription does not matter...
    slow = collective_times(build_context(rail_cluster(8, spines=2, uplinks_per_leaf=1)), sizes=[GiB8],
                            algorithms=["ring"])
    assert busbw(fast, "ring") == pytest.approx(busbw(slow, "ring"), rel=1e-3)
    # ...but on a leaf-spine where every server sits on its own leaf, the 2:1 uplinks cut busbw.
    ls = GENERATORS["leaf-spine"].build(leaves=4, hosts_per_leaf=8, oversubscription=2.0)
    nb = GENERATORS["leaf-spine"].build(leaves=4, hosts_per_leaf=8, oversubscription=1.0)
    r2 = collective_times(build_context(ls), sizes=[GiB8], algorithms=["ring"])
    r1 = collective_times(build_context(nb), sizes=[GiB8], algorithms=["ring"])
    assert busbw(r2, "ring") < 0.6 * busbw(r1, "ring")
    assert r2.rows[0].bottleneck_link.startswith("leaf")


def test_other_collectives_run():
    d = rail_cluster(2, spines=1, uplinks_per_leaf=2)
    for coll in ("reducescatter", "allgather", "broadcast", "alltoall"):
        res = collective_times(build_context(d), coll, sizes=[1 << 20])
        assert res.rows and all(r.time_s > 0 for r in res.rows)
    with pytest.raises(AnalysisError):
        collective_times(build_context(d), "gather")
    with pytest.raises(AnalysisError):
        collective_times(build_context(d), "allreduce", algorithms=["bogus"])


def test_unavailable_algorithm_is_a_note_not_a_crash():
    res = collective_times(build_context(single_server(8, nvls=False)), sizes=[1 << 20], algorithms=["nvls", "ring"])
    assert [r.algorithm for r in res.rows] == ["ring"]
    assert any("nvls" in n for n in res.notes)


def test_edge_cases_one_gpu_and_disconnected():
    one = collective_times(build_context(single_server(1)), sizes=[1 << 20])
    assert one.rows == () and one.notes
    d = two_node_design()
    d.set_link_field("n2-nic1--sw", "failed", True)
    d.set_link_field("n2-nic2--sw", "failed", True)
    res = collective_times(build_context(d), sizes=[1 << 20])
    assert res.rows == ()
    assert any("cannot run" in n and "cannot reach each other" in n for n in res.notes)
    assert {a for a, _ in res.cannot_run} == {"ring", "tree", "hierarchical", "nvls"}


def test_bad_sizes_are_errors():
    d = single_server(2)
    for bad in ([], [0], [-8], ["big"]):
        with pytest.raises(AnalysisError):
            collective_times(build_context(d), sizes=bad)
    res = collective_times(build_context(d), sizes=[1024, 8, 1024])
    assert sorted({r.message_bytes for r in res.rows}) == [8, 1024]


def test_dgx_a100_from_the_catalog():
    # A100 SXM, HGX A100 NVSwitch (no NVLS), 200G HDR QM8700 leaves and spines: 16 nodes.
    target = calibration()["dgx-a100-multinode-allreduce"]["value"]
    d = GENERATORS["rail-optimized"].build(sus=1, nodes_per_su=16, gpu="a100-sxm", switch="qm8700")
    res = collective_times(build_context(d), sizes=[GiB8])
    sel = next(r for r in res.rows if r.selected)
    assert sel.algorithm == "ring" and within(sel.busbw_bytes_per_s / 1e9, target)
    assert "nvls" not in {r.algorithm for r in res.rows}


def _tree_latency(m, algo):
    ctx = build_context(rail_cluster(m, spines=2, uplinks_per_leaf=4))
    return collective_times(ctx, algorithms=[algo], sizes=[8]).models[0].latency_s


@pytest.mark.parametrize(("fewer", "more"), [(3, 4), (5, 8), (9, 16)])
def test_tree_latency_counts_the_levels_of_nccl_trees(fewer, more):
    # NCCL's trees of m servers have ceil(log2 m) levels (the root has one child): 3 and 4 servers
    # both have two, 5 to 8 three, 9 to 16 four. Same rails and switches: the per-step latency only
    # moves by the mean cable delay (ns); one tree level more would add 2 network steps (>= 10 us).
    for algo in ("tree", "nvls"):
        assert _tree_latency(fewer, algo) == pytest.approx(_tree_latency(more, algo), abs=1e-6)


@pytest.mark.parametrize(("fewer", "more"), [(2, 3), (4, 5)])
def test_one_more_tree_level_adds_two_network_steps(fewer, more):
    # (a network step: NCCL's per-step latency plus this fabric's NIC, wire and switch latency, a few us)
    for algo in ("tree", "nvls"):
        lo, hi = _tree_latency(fewer, algo), _tree_latency(more, algo)
        for proto in lo:
            step = K.STEP_LATENCY_S[("net", "nvls_tree" if algo == "nvls" else "tree", proto)]
            assert 2 * step < hi[proto] - lo[proto] < 2 * (step + 3e-6)


def test_nvls_latency_ignores_gpus_without_an_nvlink_switch():
    # Two GPUs joined by an NVLink bridge (no NVLink switch) and an unlinked Ethernet switch (700 ns)
    # last in the design do not change the NVLS latency of the HGX server's GPUs.
    from designer.model import Device, Link, PortGroup

    plain = single_server(8)
    d = single_server(8)
    nvl = (PortGroup("nvl", 1, 800.0, "nvlink"),)
    d.extend(devices=[Device("b1", "gpu", nvl), Device("b2", "gpu", nvl),
                      Device("eth", "switch", (PortGroup("p", 4, 100.0),))],
             links=[Link("bridge", "b1", "nvl1", "b2", "nvl1", "nvlink")])

    def nvls_latency(design):
        res = collective_times(build_context(design), algorithms=["nvls"], sizes=[8], members="node1")
        return res.models[0].latency_s

    assert nvls_latency(d) == pytest.approx(nvls_latency(plain), rel=1e-12)


def test_alltoall_cap_is_the_whole_nic_of_a_dual_port_nic():
    # A NIC with two 200G ports (dual-ToR style, here both to one switch) is one 400G NIC: the
    # all-to-all cap is the same as with one 400G port, not one 200G port.
    from designer.model import Design, Link, PortGroup

    def design(ports: int) -> Design:
        d = two_node_design()
        speed = 400.0 / ports
        for dev in [x.id for x in d.devices if x.kind == "nic"]:
            pcie = d.device(dev).ports[1]
            d.set_device_field(dev, "ports", (PortGroup("p", ports, speed), pcie))
        d.set_device_field("sw", "ports", (PortGroup("p", 4 * ports, speed),))
        if ports == 2:
            extra = [Link(f"{x.id}-b", x.id, "p2", "sw", f"p{5 + i}")
                     for i, x in enumerate(x for x in d.devices if x.kind == "nic")]
            d.extend(devices=[], links=extra)
        return d

    one, two = (collective_times(build_context(design(k)), "alltoall", sizes=[1 << 30]).rows[0] for k in (1, 2))
    assert two.busbw_bytes_per_s == pytest.approx(one.busbw_bytes_per_s, rel=1e-6)


def test_nvls_in_one_server_by_gpu_count():
    # nccl#1455: NVLS busbw on n of an HGX H100's 8 GPUs; at 2-3 GPUs NCCL's figure is the ring's.
    target = calibration()["h100-1node-nvls-busbw-by-gpus"]["value"]
    ctx = build_context(GENERATORS["server"].build())
    algbw = {}
    for n in range(2, 9):
        res = collective_times(ctx, sizes=[GiB8], members=list(range(n)))
        nvls = next(r for r in res.rows if r.algorithm == "nvls")
        sel = next(r for r in res.rows if r.selected)
        algbw[n] = nvls.algbw_bytes_per_s / 1e9
        if n >= 4:
            assert sel.algorithm == "nvls" and within(busbw(res, "nvls"), target[str(n)])
        else:
            assert sel.algorithm == "ring" and within(busbw(res, "ring"), target[str(n)])
    # (1 + 1/n) S per GPU: algbw grows as n / (n + 1) from 2 GPUs to 8 (less the fixed latency)
    assert algbw[8] / algbw[2] == pytest.approx((8 / 9) / (2 / 3), rel=2e-3)


@pytest.mark.parametrize("servers", [2, 3, 4, 8])
def test_nvlstree_is_capped_per_channel_as_nccl_does(servers):
    # NCCL's NVLSTree busbw cap per channel (tuning.cc perChMaxNVLSTreeBws): 57.7 GB/s on 2 servers,
    # 45.5 on more; 8 rail channels. On 3 servers and more it is within 10% of the published
    # 370-380 GB/s (nccl#1649); on 2 servers the trees alone would allow more (NVLink-bound 525).
    res = collective_times(build_context(rail_cluster(servers)), sizes=[GiB8], algorithms=["nvls"])
    cap = 8 * K.NVLS_TREE_MAX_BUSBW_PER_CHANNEL[min(servers, 3)] / 1e9
    assert busbw(res, "nvls") == pytest.approx(cap, rel=0.01)
    mdl = res.models[0]
    assert mdl.floor_seconds_per_byte >= mdl._arc_sum().max()
    if servers > 2:
        lo, hi = calibration()["h100-nvlstree-multinode-busbw"]["value"]
        assert within(busbw(res, "nvls"), (lo + hi) / 2)


def test_h800_tree_and_nvls_from_the_catalog():
    # nccl#1290: tree algbw / busbw 72 / 125 GB/s on one 8 x H800 node, 83 / 160 on two (the chain
    # through the GPUs sets it: each GPU moves 2 S on one node, 1.75 S on two); nccl#1374: NVLS 215.
    cal = calibration()
    tree = cal["h800-tree-busbw-1-2-nodes"]["value"]
    one = collective_times(build_context(GENERATORS["server"].build(gpu="h800-sxm")), sizes=[GiB8])
    two = collective_times(build_context(GENERATORS["rail-optimized"].build(sus=1, nodes_per_su=2, gpu="h800-sxm")),
                           sizes=[GiB8])
    for res, key in ((one, "1"), (two, "2")):
        algbw, bus = tree[key]
        row = next(r for r in res.rows if r.algorithm == "tree" and r.message_bytes == GiB8)
        assert within(row.algbw_bytes_per_s / 1e9, algbw) and within(row.busbw_bytes_per_s / 1e9, bus)
    assert within(busbw(one, "nvls"), cal["h800-1node-nvls-busbw"]["value"])


def test_nvls_latency_is_nccls_current_constants():
    """NCCL master (tuning.cc, ncclTunerConstantsDefaults): NVLS and NVLSTree have no base latency;
    25 us NVLS step, 20.9 us per NVLSTree network level. One HGX server: the step and the NVSwitch."""
    d = single_server(8)
    res = collective_times(build_context(d), algorithms=["nvls"], sizes=[8])
    hub = 250e-9  # the test server's NVSwitch latency_ns
    assert res.rows[0].time_s == pytest.approx(25e-6 + hub, rel=1e-3)
    assert K.BASE_LATENCY_S[("nvls", "Simple")] == 0.0
    assert K.STEP_LATENCY_S[("net", "nvls_tree", "Simple")] == pytest.approx(20.9e-6)


def test_blackwell_nvls_takes_nccls_blackwell_constants():
    """The switch serves the GPUs' NVLink generation: NVLS at 0.74 of the effective NVLink rate on
    Blackwell (tuning.cc nvlsEfficiency), 0.85 on Hopper; NVLSTree caps by generation too."""
    for gpu, gen in (("b200", 5), ("h100-sxm", 4)):
        ctx = build_context(GENERATORS["server"].build(gpu=gpu))
        row = next(r for r in collective_times(ctx, algorithms=["nvls"], sizes=[8 << 30]).rows)
        link = 900e9 if gen == 5 else 450e9
        algbw = K.NVLS_EFFICIENCY_BY_GEN[gen] * link * K.NVLINK_EFFICIENCY_BY_GEN[gen] * 8 / 9
        assert row.busbw_bytes_per_s == pytest.approx(algbw * 2 * 7 / 8, rel=0.01)
    assert K.NVLS_EFFICIENCY_BY_GEN == {4: 0.85, 5: 0.74}
    two = build_context(GENERATORS["rail-optimized"].build(nodes_per_su=2, gpu="b200", switch="q3400",
                                                           nic="connectx-8-800g"))
    res = collective_times(two, algorithms=["nvls"], sizes=[8 << 30])
    assert any("96" in m.formula for m in res.models)  # Blackwell's NVLSTree cap on 2 servers, GB/s per channel
