"""NVLink links run at the efficiency of their GPU's NVLink generation (NCCL topo.h per-link figures)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from designer.analysis import analyze
from designer.analysis.fabric.capacity import P_NVLINK, build_capacity_graph, nvlink_efficiency
from designer.generators import build_server


def _nvlink_efficiencies(design) -> set[float]:
    g = build_capacity_graph(design)
    nvl = g.protocol == P_NVLINK
    assert nvl.any()
    return set(np.round(g.effective_bytes_per_s[nvl] / g.line_bytes_per_s[nvl], 6).tolist())


@pytest.mark.parametrize(
    ("params", "efficiency"),
    [
        ({}, 20.6 / 25),                                                   # H100 SXM, NVLink 4 (SM90_NVLINK_BW)
        ({"gpu": "a100-sxm"}, 20.0 / 25),                                  # NVLink 3 (SM80_NVLINK_BW)
        ({"gpu": "b200", "nic": "connectx-8-800g"}, 40.1 / 50),            # NVLink 5 (SM100_NVLINK_BW)
        ({"gpu": "a100-pcie", "nvlink": "bridge-pairs", "gpus_per_node": 2}, 20.0 / 25),
        ({"gpu": "mi300x", "nvlink": "mesh"}, 0.75),                       # the part's own scale-up figure
    ],
)
def test_each_nvlink_link_takes_the_efficiency_of_its_gpus_generation(params, efficiency):
    assert _nvlink_efficiencies(build_server(**params)) == {round(efficiency, 6)}


def test_other_links_keep_their_protocol_efficiency():
    g = build_capacity_graph(build_server(gpu="a100-sxm"))
    pcie = g.protocol != P_NVLINK
    assert np.allclose(g.effective_bytes_per_s[pcie] / g.line_bytes_per_s[pcie], 0.85)


def test_a_device_property_or_the_model_it_is_based_on_sets_the_generation():
    d = build_server(gpu="a100-sxm")
    for i in range(1, 9):
        d.device(f"node1-gpu{i}").properties["nvlink_gen"] = 4
    assert _nvlink_efficiencies(d) == {round(20.6 / 25, 6)}
    # No catalog model: the model named by based_on, else the port's form factor, else the default.
    d = build_server(gpu="a100-sxm")
    for i in range(1, 9):
        dev = d.device(f"node1-gpu{i}")
        dev.model = ""
        dev.properties["based_on"] = "b200"
    assert _nvlink_efficiencies(d) == {round(40.1 / 50, 6)}
    for i in range(1, 9):
        del d.device(f"node1-gpu{i}").properties["based_on"]
    assert _nvlink_efficiencies(d) == {round(20.0 / 25, 6)}  # the GPU's port says NVLink3
    for i in range(1, 9):
        dev = d.device(f"node1-gpu{i}")
        dev.ports = tuple(dataclasses.replace(p, form_factor="") for p in dev.ports)
    # Both ends unnamed now except the NVSwitch board, whose ports say NVLink3: the GPU end decides, default.
    assert _nvlink_efficiencies(d) == {round(20.6 / 25, 6)}


def test_the_rule_reads_specs_before_port_names():
    assert nvlink_efficiency({"scale_up_efficiency": 0.7, "nvlink_gen": 3}) == 0.7
    assert nvlink_efficiency({"nvlink_gen": 2}) == pytest.approx(0.8)
    assert nvlink_efficiency({"nvlink_gen": 9}) == pytest.approx(20.6 / 25)  # unknown generation: the default
    assert nvlink_efficiency({"scale_up_efficiency": 1.5}) == pytest.approx(20.6 / 25)  # not a fraction: ignored


def _ring_busbw(design) -> float:
    report = analyze(design, sizes=[8 * 2**30], algorithms=["ring"])
    (row,) = [r for r in report.collectives if r.algorithm == "ring"]
    return row.busbw_bytes_per_s


def test_one_server_rings_run_at_nccls_per_link_figures():
    # HGX H100: 18 links x 20.6 GB/s = 370.8 GB/s (nccl-tests #212: ~370); DGX A100: 12 x 20.0 = 240.
    assert _ring_busbw(build_server()) == pytest.approx(370.8e9, rel=0.01)
    assert _ring_busbw(build_server(gpu="a100-sxm")) == pytest.approx(240e9, rel=0.01)


def test_mi300x_mesh_ring_against_the_published_rccl_all_reduce():
    # 7 Infinity Fabric links x 64 GB/s x 0.75 = 336 GB/s; Azure ND MI300X v5 measured 316.8 GB/s at 8 GB.
    busbw = _ring_busbw(build_server(gpu="mi300x", nvlink="mesh"))
    assert busbw == pytest.approx(336e9, rel=0.01)
    assert busbw == pytest.approx(316.82e9, rel=0.10)
