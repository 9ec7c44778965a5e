"""Every accelerator computes: TPUs, AMD Instinct and Blackwell parts with their own cited specs,
selectable on every generator (torus, mesh and hypercube included) and usable by the workload model."""

from __future__ import annotations

import pytest

from designer.analysis.bisection.bounds import bisection_bounds
from designer.analysis.collectives.times import collective_times
from designer.analysis.fabric.context import build_context
from designer.analysis.rules.check import check_design
from designer.analysis.training import step_analysis
from designer.generators import GENERATORS, GeneratorError
from designer.io.workload_file import load_workload
from designer.model.catalog import builtin_catalog

NEW = ("tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "mi325x", "mi355x", "b300", "gb200", "gb300")
TPU_ICI = {"tpu-v4": (6, 400), "tpu-v5e": (4, 400), "tpu-v5p": (6, 800), "tpu-v6e": (4, 800)}


@pytest.mark.parametrize("model", NEW)
def test_every_new_accelerator_has_cited_figures(model):
    comp = builtin_catalog().components[model]
    assert comp.kind == "gpu"
    assert comp.specs["bf16_dense_tflops"] > 0 and comp.specs["memory_gb"] > 0
    for key in ("ports", "power_w", "price_usd", *(f"specs.{k}" for k in comp.specs if comp.specs[k] is not None)):
        assert comp.sources.get(key), f"{model}: {key} has no source"


@pytest.mark.parametrize("model", sorted(TPU_ICI))
def test_a_tpu_torus_is_made_of_that_tpu_at_its_ici_rate(model):
    links, gbps = TPU_ICI[model]
    dims = "4x4x4" if links == 6 else "4x4"
    d = GENERATORS["torus"].build(dims=dims, gpu=model)
    chips = [x for x in d.devices if x.kind == "gpu"]
    assert {x.model for x in chips} == {model}
    assert {g.speed_gbps for x in chips for g in x.ports} == {float(gbps)}
    assert not [f for f in check_design(d) if f.severity == "error"]
    w = load_workload("gpt3-1.3b-ddp")
    step = step_analysis(d, w)
    assert step.step_time_s > 0
    peak = builtin_catalog().components[model].specs["bf16_dense_tflops"] * 1e12
    assert step.peak_flops_per_gpu == pytest.approx(peak)


def test_a_tpu_refuses_a_torus_with_more_links_than_it_has():
    with pytest.raises(GeneratorError, match="tpu-v5e has 4 ICI ports"):
        GENERATORS["torus"].build(dims="4x4x4", gpu="tpu-v5e")
    with pytest.raises(GeneratorError, match="tpu-v6e has 4 ICI ports"):
        GENERATORS["hypercube"].build(n=5, gpu="tpu-v6e")
    d = GENERATORS["hypercube"].build(n=4, gpu="tpu-v5p")
    assert {x.model for x in d.devices} == {"tpu-v5p"}


def test_a_gpu_torus_runs_a_workload_on_the_gpu_it_is_based_on():
    """A torus of H100-class chips used to fail: 'GPU model '(none)' has no specs.bf16_dense_tflops'."""
    d = GENERATORS["torus"].build(dims="4x4x4")
    assert {x.properties.get("based_on") for x in d.devices} == {"h100-sxm"}
    step = step_analysis(d, load_workload("gpt3-1.3b-ddp"))
    assert step.peak_flops_per_gpu == pytest.approx(989e12)
    assert {g.speed_gbps for x in d.devices for g in x.ports} == {400.0}  # a GPU's direct links: TPU v4's ICI rate


@pytest.mark.parametrize("kind,params", [
    ("server", {"gpu": "mi325x", "nvlink": "mesh"}),
    ("server", {"gpu": "mi355x", "nvlink": "mesh"}),
    ("server", {"gpu": "b300"}),
    ("nvl72", {"gpu": "gb200"}),
    ("nvl72", {"gpu": "gb300"}),
    ("rail-optimized", {"gpu": "b300", "nodes_per_su": 2}),
])
def test_gpus_on_switched_generators(kind, params):
    d = GENERATORS[kind].build(**params)
    gpus = [x for x in d.devices if x.kind == "gpu"]
    assert {x.model for x in gpus} == {params["gpu"]}
    res = collective_times(build_context(d), sizes=[1 << 30])
    assert any(r.selected and r.busbw_bytes_per_s > 0 for r in res.rows)


def _pod_busbw(model: str) -> tuple[float, float]:
    """(all-reduce busbw summed over the pod at 8 GiB, bisection) of a 16x16 pod of ``model``."""
    ctx = build_context(GENERATORS["torus"].build(dims="16x16", gpu=model))
    rows = collective_times(ctx, sizes=[8 << 30]).rows
    sel = next(r for r in rows if r.selected)
    return sel.busbw_bytes_per_s * 256, bisection_bounds(ctx).upper_bytes_per_s


@pytest.mark.parametrize("model,allreduce,bisection", [("tpu-v5e", 51.2e12, 1.6e12), ("tpu-v6e", 102.4e12, 3.2e12)])
def test_tpu_pods_against_their_published_figures(model, allreduce, bisection):
    """Cloud TPU v6e documentation (v5e and v6e columns): 'All-reduce bandwidth per Pod' and
    'Bisection bandwidth per Pod' of 256 chips (docs/analysis.md's validation table)."""
    ar, bis = _pod_busbw(model)
    assert ar == pytest.approx(allreduce, rel=0.10)
    assert bis == pytest.approx(bisection, rel=0.01)
