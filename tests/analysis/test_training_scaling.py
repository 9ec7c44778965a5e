"""Scaling projection, growth headroom and upgrade advice."""

from __future__ import annotations

import pytest

from designer.analysis.training.scaling import advise, growth_headroom, scale_projection
from designer.generators import GENERATORS
from designer.io.workload_records import workload_from_data

# Tensor parallel over a whole leaf (32 GPUs): the data-parallel groups join GPU i of each leaf, so all of
# them cross the spine at once.
JOB = {"format": "topo-designer-workload", "version": 1, "name": "dp",
       "model": {"parameters": 2e9, "layers": 2, "hidden_size": 1024, "sequence_length": 1024},
       "parallelism": {"tp": 32}, "batch": {"global_batch_sequences": 64},
       "data_parallel": {"overlap": False}}


def test_growth_headroom_counts_free_ports_per_tier() -> None:
    # 2 leaves x 16 host ports, 1:1: each leaf has 16 uplinks, 32 of 64 ports free; one 64-port spine
    # has 32 free. Per GPU: 1 leaf port and 1 spine port; the leaves admit 64 GPUs, the spine 32.
    h = growth_headroom(GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=16))
    rooms = {t.tier: t for t in h.tiers}
    assert (rooms["leaf"].free_ports, rooms["leaf"].more_gpus) == (64, 64)
    assert (rooms["spine"].free_ports, rooms["spine"].more_gpus) == (32, 32)
    assert (h.binding_tier, h.more_gpus, h.more_servers) == ("spine", 32, 4)


def test_oversubscription_halves_the_spine_ports_each_gpu_needs() -> None:
    h = growth_headroom(GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=32, oversubscription=2.0))
    rooms = {t.tier: t for t in h.tiers}
    assert rooms["spine"].ports_per_gpu == pytest.approx(0.5)


def test_scale_projection_rows_and_bend() -> None:
    w = workload_from_data(JOB)
    designs = [(f, GENERATORS["leaf-spine"].build(leaves=max(int(2 * f), 1), hosts_per_leaf=32,
                                                  oversubscription=4.0)) for f in (0.5, 1, 2)]
    sc = scale_projection(designs, w)
    assert [p.gpus for p in sc.points] == [32, 64, 128]
    idle = [p.step.gpu_idle_fraction for p in sc.points]
    # One leaf: no data parallel at all; two and four leaves: data parallel crosses the 4:1 uplinks.
    assert idle[2] > idle[1] > idle[0]
    assert sc.bend in (1, 2)
    too_small = scale_projection([(0.1, GENERATORS["server"].build())], w)
    assert too_small.points[0].step is None and "GPUs" in too_small.points[0].error


def test_advise_picks_the_option_with_most_days_per_usd() -> None:
    w = workload_from_data(JOB)
    base = GENERATORS["leaf-spine"].build(leaves=4, hosts_per_leaf=32, oversubscription=4.0)
    flat = GENERATORS["leaf-spine"].build(leaves=4, hosts_per_leaf=32, oversubscription=1.0)
    a = advise(("base", base), [("no oversubscription", flat)], w)
    o = a.options[0]
    assert o.days < a.base.days and a.extra_usd(o) > 0
    assert a.best == "no oversubscription"
    same = advise(("base", flat), [("again", flat)], w)
    assert same.best is None
