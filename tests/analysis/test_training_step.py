"""The training-step model against figures derived by hand on small designs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from designer.analysis.common import constants as K
from designer.analysis.fabric.context import build_context
from designer.analysis.training import constants as T
from designer.analysis.training import step_analysis
from designer.analysis.training.placement import place, rank_grid, server_order
from designer.analysis.training.step import exposed_after
from designer.analysis.training.traffic import communicator
from designer.analysis.training.workload import WorkloadError
from designer.generators import GENERATORS
from designer.io.workload_records import workload_from_data
from designer.model import Design, Device, Link, PortGroup
from designer.model.catalog import Catalog


def two_nodes(nic_gbps: float = 100.0) -> Design:
    """Two servers of one GPU each, a NIC each, on one Ethernet switch (no catalog switch model)."""
    d = Design(name="two nodes")
    gpu = (PortGroup("pcie", 1, 512.0, "pcie"),)
    nic = (PortGroup("p", 1, nic_gbps), PortGroup("pcie", 1, 512.0, "pcie"))
    d.extend(devices=[Device("sw", "switch", (PortGroup("p", 2, 400.0),)),
                      Device("g1", "gpu", gpu, model="h100-sxm"), Device("g2", "gpu", gpu, model="h100-sxm"),
                      Device("n1", "nic", nic), Device("n2", "nic", nic)],
             links=[Link("c1", "g1", "pcie1", "n1", "pcie1", "pcie"), Link("c2", "g2", "pcie1", "n2", "pcie1", "pcie"),
                    Link("e1", "n1", "p1", "sw", "p1"), Link("e2", "n2", "p1", "sw", "p2")])
    return d


def dp_job(params: float, compute_s: float, **extra) -> dict:
    doc = {"format": "topo-designer-workload", "version": 1, "name": "dp",
           "model": {"parameters": params, "layers": 2, "hidden_size": 1024, "sequence_length": 1024},
           "parallelism": {"tp": 1, "pp": 1, "dp": "auto"},
           "batch": {"global_batch_sequences": 2},
           "data_parallel": {"sharding": "none", "bucket_bytes": 1 << 40, "overlap": False},
           "compute": {"step_compute_s": compute_s}}
    for k, v in extra.items():
        doc.setdefault(k, {}).update(v)
    return doc


def test_two_nodes_communication_bound_idle_fraction_by_hand() -> None:
    # 5e9 parameters x 2 bytes = 10 GB of gradients, one bucket; ring all-reduce of 2 ranks: each
    # sends S x 2(p-1)/p = S through its 100 Gb/s RoCE NIC at 12.5 GB/s x 0.93.
    w = workload_from_data(dp_job(5e9, 0.5))
    rep = step_analysis(two_nodes(), w)
    S = 5e9 * 2
    comm = S / (100e9 / 8 * K.ETHERNET_EFFICIENCY)
    assert rep.phase("dp").algorithm == "ring"
    assert rep.step_time_s == pytest.approx(0.5 + comm, rel=1e-3)
    assert comm > 0.5  # communication exceeds compute
    assert rep.gpu_idle_fraction == pytest.approx(comm / (0.5 + comm), rel=1e-3)
    assert rep.exposed_comm_s == pytest.approx(comm, rel=1e-3)
    assert rep.comm_idle_fraction == pytest.approx(rep.gpu_idle_fraction)
    # MFU from the catalog's peak (H100: 989 TFLOP/s dense BF16) and 6 N tokens.
    flops = 6 * 5e9 * 2 * 1024
    assert rep.mfu == pytest.approx(flops / (rep.step_time_s * 2 * 989e12), rel=1e-9)
    assert rep.tokens_per_s == pytest.approx(2 * 1024 / rep.step_time_s)


def test_halving_nic_bandwidth_adds_the_bandwidth_term_again() -> None:
    w = workload_from_data(dp_job(5e9, 0.5))
    fast = step_analysis(two_nodes(100.0), w)
    slow = step_analysis(two_nodes(50.0), w)
    bw_term = 5e9 * 2 / (100e9 / 8 * K.ETHERNET_EFFICIENCY)
    assert slow.step_time_s - fast.step_time_s == pytest.approx(bw_term, rel=1e-3)
    assert slow.gpu_idle_fraction > fast.gpu_idle_fraction


def test_overlap_hides_the_buckets_behind_the_backward_pass() -> None:
    # 25 MiB buckets; compute long enough that the backward window covers all but the last bucket.
    doc = dp_job(100 * T.DDP_BUCKET_BYTES / 2, 4.0, data_parallel={"bucket_bytes": T.DDP_BUCKET_BYTES, "overlap": True,
                                          "overlap_fraction": 1.0})
    on = step_analysis(two_nodes(), workload_from_data(doc))
    doc["data_parallel"]["overlap"] = False
    off = step_analysis(two_nodes(), workload_from_data(doc))
    assert off.gpu_idle_fraction > on.gpu_idle_fraction
    ph_on, ph_off = on.phase("dp"), off.phase("dp")
    assert ph_on.total_s == pytest.approx(ph_off.total_s)
    assert ph_off.exposed_s == pytest.approx(ph_off.total_s)
    # 100 whole buckets; the backward window (4 s x 2/3) outlasts them: only the last bucket, ready at the
    # window's end, shows.
    assert ph_on.exposed_s == pytest.approx(ph_on.time_per_call_s, rel=0.05)


def test_exposed_after_is_the_serial_bucket_schedule() -> None:
    assert exposed_after(np.array([1.0, 1.0, 1.0]), 3.0) == pytest.approx(1.0)
    assert exposed_after(np.array([2.0, 2.0]), 2.0) == pytest.approx(3.0)  # ready at 1, 2: done at 5
    assert exposed_after(np.array([]), 1.0) == 0.0


def leaf_spine(oversub: float):
    return GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=32, oversubscription=oversub)


def cross_leaf_job(**extra) -> dict:
    # tp = 32 fills a leaf (4 servers x 8 GPUs): the data-parallel pairs join GPU i of leaf 1 to GPU i
    # of leaf 2, so all 32 pairs cross the spine at once.
    doc = dp_job(1e9, 0.05, parallelism={"tp": 32, "dp": 2}, batch={"global_batch_sequences": 2})
    for k, v in extra.items():
        doc.setdefault(k, {}).update(v)
    return doc


@pytest.mark.parametrize("oversub", [1.0, 2.0, 4.0])
def test_concurrent_dp_groups_on_an_oversubscribed_leaf_spine_share_the_uplinks(oversub: float) -> None:
    ctx = build_context(leaf_spine(oversub))
    rep = step_analysis(ctx, workload_from_data(cross_leaf_job()))
    dp = rep.phase("dp")
    assert (dp.groups, dp.group_size) == (32, 2)
    # 32 flows each way over 32 / oversub uplinks of the same rate as a NIC: oversub flows per uplink.
    assert dp.slowdown == pytest.approx(oversub, rel=1e-6)
    pl = place(ctx, workload_from_data(cross_leaf_job()))
    alone = communicator(ctx, "dp", pl.dp[:1], "allreduce", [1 << 30])
    together = communicator(ctx, "dp", pl.dp, "allreduce", [1 << 30])
    lat = together.times_s[1 << 30] - (together.times_s[1 << 30] - alone.times_s[1 << 30]) / (1 - 1 / oversub) \
        if oversub > 1 else None
    assert together.times_s[1 << 30] >= alone.times_s[1 << 30]
    if lat is not None:
        assert 0 <= lat < 1e-3  # what the slowdown does not scale is the (small) latency


def test_idle_fraction_grows_with_oversubscription() -> None:
    w = workload_from_data(cross_leaf_job())
    idle = [step_analysis(leaf_spine(o), w).gpu_idle_fraction for o in (1.0, 4.0)]
    assert idle[1] > idle[0]


def test_placement_puts_tensor_parallel_in_the_server_and_data_parallel_outermost() -> None:
    ctx = build_context(GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=16))
    doc = dp_job(1e9, 0.1, parallelism={"tp": 8, "pp": 2, "dp": 2}, model={"layers": 4})
    pl = place(ctx, workload_from_data(doc))
    dom = ctx.fabric.domain
    assert all(len(set(dom[g])) == 1 for g in pl.tp)  # each TP group in one NVLink domain
    assert pl.pp.shape == (16, 2) and pl.dp.shape == (16, 2)
    assert dom[pl.pp[0, 0]] != dom[pl.pp[0, 1]]
    order = server_order(ctx)
    assert pl.dp[0].tolist() == [order[0], order[16]]
    # Overridden: data parallel innermost puts the DP pairs in one server.
    doc["parallelism"]["order"] = ["dp", "tp", "cp", "pp"]
    pl2 = place(ctx, workload_from_data(doc))
    assert dom[pl2.dp[0, 0]] == dom[pl2.dp[0, 1]]


def test_rank_grid_nests_innermost_first() -> None:
    g = rank_grid(8, {"tp": 2, "cp": 1, "pp": 2, "dp": 2}, ("tp", "cp", "pp", "dp"))
    assert g[:, 0, 0, 0].tolist() == [0, 1]
    assert g[0, 0, :, 0].tolist() == [0, 2]
    assert g[0, 0, 0, :].tolist() == [0, 4]


def test_pipeline_bubble_is_one_f_one_b() -> None:
    ctx = build_context(GENERATORS["server"].build())
    doc = dp_job(1e9, 1.0, parallelism={"tp": 1, "pp": 4, "dp": 2}, model={"layers": 8},
                 batch={"global_batch_sequences": 16})
    rep = step_analysis(ctx, workload_from_data(doc))
    m = 8
    c = 1.0 / m
    assert rep.micro_batches == m
    assert rep.bubble_s == pytest.approx(3 * c)
    # NVLink sends are tiny next to compute: the step is (m + pp - 1) micro-batch slots.
    assert rep.step_time_s == pytest.approx((m + 3) * c, rel=0.02)
    doc["parallelism"]["virtual_stages"] = 2
    rep2 = step_analysis(ctx, workload_from_data(doc))
    assert rep2.bubble_s == pytest.approx(1.5 * c)


def test_tensor_parallel_allreduces_per_layer() -> None:
    ctx = build_context(GENERATORS["server"].build())
    doc = dp_job(1e9, 1.0, parallelism={"tp": 8, "pp": 1, "dp": 1}, model={"layers": 6, "hidden_size": 4096,
                                                                           "sequence_length": 2048},
                 batch={"global_batch_sequences": 3})
    rep = step_analysis(ctx, workload_from_data(doc))
    tp = rep.phase("tp")
    assert tp.calls_per_step == 4 * 6 * 3
    assert tp.message_bytes == 2048 * 4096 * 2
    assert tp.algorithm == "nvls"
    assert rep.step_time_s == pytest.approx(1.0 + tp.calls_per_step * tp.time_per_call_s, rel=1e-9)
    doc["compute"]["tp_overlap"] = 0.5
    half = step_analysis(ctx, workload_from_data(doc))
    assert half.step_time_s == pytest.approx(1.0 + 0.5 * tp.calls_per_step * tp.time_per_call_s, rel=1e-9)


def test_compute_from_flops_uses_the_catalog_peak() -> None:
    ctx = build_context(GENERATORS["server"].build())
    doc = dp_job(1e9, 1.0)
    del doc["compute"]["step_compute_s"]
    doc["parallelism"] = {"tp": 8}
    rep = step_analysis(ctx, workload_from_data(doc))
    flops = 6 * 1e9 * 2 * 1024
    assert rep.compute_s == pytest.approx(flops / (8 * 989e12 * T.COMPUTE_EFFICIENCY))
    assert rep.peak_flops_per_gpu == 989e12
    assert rep.mfu < T.COMPUTE_EFFICIENCY
    # No peak in the catalog: a clear error.
    with pytest.raises(WorkloadError, match="bf16_dense_tflops"):
        step_analysis(GENERATORS["server"].build(), workload_from_data(doc), Catalog())


def test_moe_all_to_all_and_expert_gradients() -> None:
    ctx = build_context(GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=16))
    doc = dp_job(8e9, 1.0, model={"active_parameters": 2e9, "experts": 8, "experts_per_token": 1},
                 parallelism={"tp": 1, "ep": 8, "dp": "auto"}, batch={"global_batch_sequences": 32})
    rep = step_analysis(ctx, workload_from_data(doc))
    ep, dp, edp = rep.phase("ep"), rep.phase("dp"), rep.phase("edp")
    assert (ep.groups, ep.group_size) == (4, 8)
    assert ep.calls_per_step == 4 * 2 * 1
    # N = dense + 8 e, N_active = dense + e: e = 6e9 / 7; experts split over 8 ranks.
    e = 6e9 / 7
    assert edp.group_size == 4
    assert dp.total_s > 0 and edp.total_s > 0
    assert rep.flops_per_step == pytest.approx(6 * 2e9 * 32 * 1024)
    assert workload_from_data(doc).model.expert_parameters == pytest.approx(8 * e)


def test_too_few_gpus_is_a_clear_error() -> None:
    doc = dp_job(1e9, 1.0, parallelism={"tp": 8, "pp": 2})
    with pytest.raises(WorkloadError, match="tp x cp x pp = 16"):
        step_analysis(GENERATORS["server"].build(), workload_from_data(doc))


def test_idle_cost_and_time_to_train() -> None:
    w = workload_from_data(dp_job(5e9, 0.5, training={"tokens": 1e9, "gpu_hour_usd": 2.0}))
    rep = step_analysis(two_nodes(), w)
    assert rep.time_to_train_s == pytest.approx(1e9 / rep.tokens_per_s)
    assert rep.idle_cost_per_day_usd == pytest.approx(2.0 * 24 * 2 * rep.gpu_idle_fraction)
    assert rep.idle_cost_to_train_usd == pytest.approx(2.0 * 2 * rep.gpu_idle_fraction * rep.time_to_train_s / 3600)
    # Without a price the catalog GPU price is amortised over the documented years.
    rep2 = step_analysis(two_nodes(), workload_from_data(dp_job(5e9, 0.5)))
    assert rep2.gpu_hour_usd == pytest.approx(30000 / (T.AMORTISATION_YEARS * T.HOURS_PER_YEAR))
    assert math.isfinite(rep2.idle_cost_per_day_usd)


def test_activation_recompute_adds_a_forward_pass() -> None:
    ctx = build_context(GENERATORS["server"].build())
    doc = dp_job(1e9, 1.0, parallelism={"tp": 8})
    del doc["compute"]["step_compute_s"]
    plain = step_analysis(ctx, workload_from_data(doc))
    doc["compute"]["activation_recompute"] = True
    again = step_analysis(ctx, workload_from_data(doc))
    assert again.compute_s == pytest.approx(plain.compute_s * 8 / 6)
    assert again.flops_per_step == plain.flops_per_step and again.mfu < plain.mfu


@pytest.mark.slow
def test_calibration_against_the_published_llama3_405b_runs(loaded_samples) -> None:
    """Llama 3 paper, Table 4: BF16 MFU 43% on 8,192 H100 (DP 64), 41% on 16,384 (DP 128), 38% with CP 16."""

    from designer.io.workload_file import load_workload

    w = load_workload("llama3-405b")
    d8 = GENERATORS["rail-optimized"].build(sus=32)
    r8 = step_analysis(d8, w.with_options(parallelism={"dp": 64}))
    assert r8.gpus == 8192 and r8.micro_batches == 32
    assert r8.mfu == pytest.approx(0.43, abs=0.015)
    d16 = loaded_samples["rail-optimized-16k-3tier.json"]
    ctx = build_context(d16)
    r16 = step_analysis(ctx, w.with_options(parallelism={"dp": 128}))
    assert r16.mfu == pytest.approx(0.41, abs=0.04)
    assert r16.mfu < r8.mfu  # half the micro-batches per step: a larger bubble
    cp = step_analysis(ctx, w.with_options(parallelism={"dp": 8, "cp": 16}, model={"sequence_length": 131072},
                                           batch={"global_batch_sequences": 128}))
    assert cp.mfu == pytest.approx(0.38, abs=0.04)
    assert cp.mfu < r16.mfu
