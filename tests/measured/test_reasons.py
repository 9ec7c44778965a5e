"""The likely reasons for a gap, each checked against the design and the numbers, on real logs."""

from __future__ import annotations

from measured_helpers import ABCI_A100, H100_2N_HALF, H100_10N, h100_two_nodes

from designer.analysis.fabric.context import build_context
from designer.analysis.measured.compare import compare_run
from designer.analysis.measured.reasons import likely_reasons
from designer.generators import GENERATORS
from designer.io.measured.nccl_tests import read_nccl_tests


def _reasons(design, log, index=0):
    ctx = build_context(design)
    comp = compare_run(ctx, read_nccl_tests(log)[index])
    return comp, {r.code: r for r in likely_reasons(ctx, comp)}


def test_an_a100_cluster_against_an_h100_design():
    """ABCI's 16 x 8 A100 (NVLink 3, 4 HDR NICs a node) on a design of 16 DGX H100 (NVLink 4, 8 x 400G)."""
    comp, got = _reasons(GENERATORS["rail-optimized"].build(nodes_per_su=16, ufm=False), ABCI_A100)
    assert comp.ranges[-1].verdict == "slower than predicted"
    assert "NVLink 3" in got["nvlink-generation"].text and "NVLink 4" in got["nvlink-generation"].text
    assert "nic-rate" in got and "latency" in got
    assert "algorithm" not in got  # latency-bound matches are no evidence of another algorithm


def test_a_real_cluster_beats_an_oversubscribed_design():
    """The 10-node H100 cluster's all-reduce on a 4:1 leaf-spine design: the uplinks set the prediction."""
    comp, got = _reasons(GENERATORS["leaf-spine"].build(leaves=5, hosts_per_leaf=16, oversubscription=4), H100_10N)
    assert comp.ranges[-1].verdict == "faster than predicted"
    reason = got["less-oversubscribed"]
    assert "(4:1)" in reason.text and reason.links and "spine" in reason.links[0]


def test_a_degraded_link_on_the_path_and_ethernet_hashing():
    design = h100_two_nodes()
    # Rank 7 -> 8 of sendrecv leaves server 1 through its rail-8 NIC: that link trained down to 200G.
    slow = next(lk.id for lk in design.links if "su1-node1-nic8" in (lk.a_device, lk.b_device)
                and "leaf" in lk.a_device + lk.b_device)
    design.set_link_property(slow, "negotiated_gbps", 200.0)
    design.set_link_property(slow, "ib_rate", "4xHDR")
    comp, got = _reasons(design, H100_2N_HALF, index=1)
    assert comp.ranges[-1].verdict == "slower than predicted"
    assert got["degraded-link"].links == (slow,) and "4xHDR" in got["degraded-link"].text
    # All-to-all of the same cluster: the design's own degraded-rate model now explains the measurement.
    a2a, _ = _reasons(design, H100_2N_HALF, index=0)
    assert a2a.ranges[-1].verdict == "as predicted"
    roce = GENERATORS["rail-optimized"].build(nodes_per_su=2, ufm=False, switch="sn5600")
    _, on_ethernet = _reasons(roce, H100_2N_HALF)
    assert "hashing" in on_ethernet and "hashing" not in got
