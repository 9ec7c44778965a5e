"""Checkpoint and input traffic to storage devices, against hand-derived times."""

from __future__ import annotations

import pytest

from designer.analysis.common import constants as K
from designer.analysis.fabric.context import build_context
from designer.analysis.training import step_analysis
from designer.analysis.training.storage import max_flow_rate, storage_analysis
from designer.generators import GENERATORS
from designer.io.workload_records import workload_from_data
from designer.model import Device, Link, PortGroup

CKPT = 1e12  # bytes


def with_storage(links: int, model: str = ""):
    """Two leaves of 2 servers (16 GPUs each), a storage device on leaf 1's free ports by ``links`` 400G links."""
    d = GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=16)
    leaf = next(x for x in d.devices if x.tier == "leaf")
    used = {lk.a_port for lk in d.links if lk.a_device == leaf.id} | {lk.b_port for lk in d.links
                                                                       if lk.b_device == leaf.id}
    free = [f"p{i}" for i in range(1, 65) if f"p{i}" not in used][:links]
    d.add_device(Device("store", "storage", (PortGroup("p", links, 400.0),), model=model))
    for i, port in enumerate(free):
        d.add_link(Link(f"st{i}", "store", f"p{i + 1}", leaf.id, port))
    return d


def job() -> dict:
    return {"format": "topo-designer-workload", "version": 1, "name": "ckpt",
            "model": {"parameters": 1e9, "layers": 2, "hidden_size": 1024, "sequence_length": 1024},
            "parallelism": {"tp": 8}, "batch": {"global_batch_sequences": 4},
            "compute": {"step_compute_s": 1.0},
            "storage": {"checkpoint_bytes": CKPT, "checkpoint_interval_s": 3600, "bytes_per_token": 4}}


def test_checkpoint_over_one_400g_link_by_hand() -> None:
    rep = step_analysis(with_storage(1), workload_from_data(job()))
    st = rep.storage
    rate = 400e9 / 8 * K.INFINIBAND_EFFICIENCY  # the QM9700 leaf makes the link InfiniBand
    assert st.write_bytes_per_s == pytest.approx(rate, rel=1e-6)
    assert st.checkpoint_s == pytest.approx(CKPT / rate, rel=1e-6)
    assert st.write_binds == "storage links"
    assert st.checkpoint_share == pytest.approx(st.checkpoint_s / (3600 + st.checkpoint_s))
    assert st.input_bytes_per_s == pytest.approx(rep.tokens_per_s * 4)


def test_four_links_divide_the_time_by_four_unless_the_storage_binds() -> None:
    one = step_analysis(with_storage(1), workload_from_data(job())).storage
    four = step_analysis(with_storage(4), workload_from_data(job())).storage
    assert four.checkpoint_s == pytest.approx(one.checkpoint_s / 4, rel=1e-6)
    # The catalog's generic storage node writes 25 GB/s: less than four links carry, so it binds.
    bound = step_analysis(with_storage(4, "generic-storage-node"), workload_from_data(job())).storage
    assert bound.write_binds == "storage devices"
    assert bound.checkpoint_s == pytest.approx(CKPT / 25e9, rel=1e-6)
    assert bound.read_bytes_per_s == pytest.approx(min(50e9, 4 * 400e9 / 8 * K.INFINIBAND_EFFICIENCY), rel=1e-6)


def test_no_storage_device_is_a_note() -> None:
    rep = step_analysis(GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=16), workload_from_data(job()))
    assert rep.storage is None
    assert any("no storage device" in n for n in rep.notes)


def test_the_fabric_binds_when_the_storage_sits_behind_a_thin_link() -> None:
    d = with_storage(4)
    ctx = build_context(d)
    gpus = ctx.gpu_positions("all")
    full = storage_analysis(ctx, gpus, CKPT, 0.0, 0.0)
    assert full.write_binds == "storage links"
    # Only the GPUs of one server: their 8 NICs carry more than 4 storage links, so links still bind;
    # one GPU alone is limited by its own NIC (the fabric between).
    one = storage_analysis(ctx, gpus[:1], CKPT, 0.0, 0.0)
    assert one.write_binds == "fabric"
    assert one.write_bytes_per_s == pytest.approx(400e9 / 8 * K.INFINIBAND_EFFICIENCY, rel=1e-6)
    assert max_flow_rate(ctx, ctx.fabric.gpus[gpus[:0]], ctx.fabric.gpus[:1], ctx.fabric.gpus[:1] * 0.0) == 0.0
