"""ASTRA-sim network configurations: stacked dimensions, 'tbd' values, comments that disagree."""

from __future__ import annotations

import pytest
from import_helpers import DATA, imp

from designer.io.importers import ImportFileError, detect_format, import_file


def _kinds(design) -> dict[str, int]:
    out: dict[str, int] = {}
    for d in design.iter_devices():
        out[d.kind] = out.get(d.kind, 0) + 1
    return out


def test_hgx_h100_32_gpus_switch_then_ring():
    path = DATA / "inputs-hgx_h100_32gpu.yml"
    assert detect_format(path.read_text()) == "astrasim"
    design, report = import_file(path)
    assert _kinds(design) == {"gpu": 32, "nvswitch": 4}
    assert len([g for g in design.iter_groups() if g.kind == "server"]) == 4
    gpu = design.device("npu0")
    assert gpu.port("nvl1").speed_gbps == 3200.0 and gpu.port("p1").speed_gbps == 400.0
    # A ring of 4 servers: each GPU has two ring links in dimension 2.
    assert gpu.port("p2") is not None and gpu.port("p3") is None
    # The comment says 8 NPUs; the counts say 32.
    assert any(e.line == 6 and "says 8 NPUs" in e.reason for e in report.skipped)
    assert design.properties["astra_sim"]["latency_ns"] == [936.25, 1000.0]


def test_single_switch_dimension_faster_than_any_network_port_is_scale_up():
    design, report = import_file(DATA / "examples-HGX-H100-validated.yml")
    assert _kinds(design) == {"gpu": 8, "nvswitch": 1}
    assert any("faster than any network port" in e.reason for e in report.guessed)


def test_tpu_torus_is_all_network():
    design, _ = import_file(DATA / "inputs-tpu_v3_32_2dtorus.yml")
    assert _kinds(design) == {"gpu": 32}
    assert {lk.medium for lk in design.iter_links()} == {"optical"}
    assert all(d.port_count == 4 for d in design.iter_devices())  # 2 ring neighbours in each of 2 dimensions


def test_tbd_is_refused_unless_a_default_rate_is_given():
    path = DATA / "inputs-dgx_v100_8gpu.yml"
    with pytest.raises(ImportFileError, match="line 11: bandwidth of dimension 1 is 'tbd'"):
        import_file(path)
    from designer.io.importers import ImportOptions

    design, report = import_file(path, ImportOptions(default_rate_gbps=200.0))
    assert _kinds(design) == {"gpu": 8}
    assert any("not a number" in e.reason for e in report.guessed)
    assert any(e.what.startswith("latency") for e in report.skipped)


@pytest.mark.parametrize(("text", "words"), [
    ("topology: [ Ring, Mesh ]\nnpus_count: [2, 2]\nbandwidth: [1, 1]\n", "line 1: dimension 2 is 'Mesh'"),
    ("topology: [ Ring ]\nnpus_count: [2, 2]\nbandwidth: [1]\n", "npus_count needs one count"),
    ("topology: [ Ring ]\nnpus_count: [ 0 ]\nbandwidth: [1]\n", "not a positive whole number"),
    ("topology: [ Ring, Ring ]\nnpus_count: [1000, 1000]\nbandwidth: [1, 1]\n", "1,000,000 NPUs"),
    ("topology: [ " + ", ".join(["Ring"] * 9) + " ]\nnpus_count: [" + ", ".join(["2"] * 9) + "]\nbandwidth: ["
     + ", ".join(["50"] * 9) + "]\n", "line 1: 9 network dimensions (at most 8"),
])
def test_broken_configurations(text, words):
    with pytest.raises(ImportFileError) as err:
        imp(text, "net.yml")
    assert words in str(err.value)
