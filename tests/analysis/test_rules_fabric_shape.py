"""``tier-skip`` and ``rail-misaligned``: cabling a network architect would send back in review.

No generator and no shipped sample triggers them; each deliberately mis-cabled design does, and
``topo-designer validate`` reports them as warnings.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from designer.analysis.rules.check import check_design
from designer.cli import main
from designer.generators.registry import GENERATORS
from designer.io import save_design
from designer.model import Design, Link
from designer.model.catalog import builtin_catalog

SAMPLES = Path(__file__).resolve().parents[2] / "sample_designs"
SHAPE = ("tier-skip", "rail-misaligned")

VARIANTS = [(kind, {}) for kind in GENERATORS] + [
    ("nvl72", {"racks": 2, "scaleout": True}),
    ("rail-optimized", {"sus": 4}),
    ("rail-optimized", {"sus": 2, "tiers": 3, "nodes_per_su": 8}),
    ("rail-optimized", {"sus": 2, "ufm": True, "nodes_per_su": 8}),
    ("clos3", {"pods": 2}),
    ("fat-tree", {"k": 6}),
]


def shape_findings(design: Design):
    return [f for f in check_design(design, builtin_catalog()) if f.code in SHAPE]


@pytest.mark.parametrize(("kind", "params"), VARIANTS, ids=[f"{k}{p or ''}" for k, p in VARIANTS])
def test_generated_fabrics_are_free_of_shape_findings(kind, params):
    assert shape_findings(GENERATORS[kind].build(**params)) == []


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.json")), ids=lambda p: p.name)
def test_shipped_samples_are_free_of_shape_findings(path, loaded_samples):
    assert shape_findings(loaded_samples[path.name]) == []


def recable(d: Design, link_id: str, end: str, device: str, port: str | None = None) -> str:
    """Move one end (``"a"`` or ``"b"``) of a link to ``device`` (its first free network port)."""
    old, _ = d.remove_link(link_id)
    port = port or d.free_ports(device, "network")[0]
    a = (device, port) if end == "a" else (old.a_device, old.a_port)
    b = (device, port) if end == "b" else (old.b_device, old.b_port)
    d.add_link(Link(link_id, a[0], a[1], b[0], b[1], medium=old.medium, length_m=old.length_m, cable=old.cable))
    return link_id


def net_link(d: Design, device: str) -> Link:
    return next(lk for lk in d.links_of(device) if lk.medium not in ("nvlink", "pcie"))


def rail_su(**params) -> Design:
    return GENERATORS["rail-optimized"].build(nodes_per_su=4, **params)


def test_a_nic_on_a_spine_skips_the_leaf_tier():
    d = rail_su()
    lk = net_link(d, "su1-node1-nic1")
    end = "a" if lk.a_device != "su1-node1-nic1" else "b"
    recable(d, lk.id, end, "spine1")
    (f,) = shape_findings(d)
    assert f.code == "tier-skip" and f.severity == "warning" and f.links == (lk.id,)
    assert set(f.devices) == {"su1-node1-nic1", "spine1"}
    assert f.message.startswith(f"{lk.id}: su1-node1-nic1") and "skipping the leaf tier" in f.message


def test_a_leaf_on_a_core_skips_the_spine_tier():
    d = rail_su(sus=2, tiers=3)
    lk = next(lk for lk in d.links_of("su1-leaf1") if "spine" in lk.a_device + lk.b_device)
    end = "a" if lk.a_device != "su1-leaf1" else "b"
    recable(d, lk.id, end, "core1")
    codes = [(f.code, f.links) for f in shape_findings(d)]
    assert codes == [("tier-skip", (lk.id,))]
    assert "skipping the spine tier" in shape_findings(d)[0].message


def test_a_fat_tree_edge_on_a_core_skips_aggregation():
    d = GENERATORS["fat-tree"].build()
    edge = next(x.id for x in d.devices if x.tier == "edge")
    core = next(x.id for x in d.devices if x.tier == "core")
    lk = next(lk for lk in d.links_of(edge) if d.device(lk.b_device if lk.a_device == edge else lk.a_device).tier
              == "aggregation")
    recable(d, lk.id, "a" if lk.a_device != edge else "b", core)
    (f,) = shape_findings(d)
    assert f.code == "tier-skip" and "skipping the aggregation tier" in f.message


def test_without_a_leaf_tier_a_nic_on_a_spine_is_not_skipping():
    d = rail_su()
    for dev in list(d.devices):
        if dev.tier == "leaf":
            d.set_device_field(dev.id, "tier", "")
    assert [f for f in shape_findings(d) if f.code == "tier-skip"] == []


def test_swapped_rail_cables_are_misaligned_and_say_which_leaf():
    d = rail_su()
    l1, l2 = net_link(d, "su1-node2-nic1"), net_link(d, "su1-node2-nic2")
    for lk in (l1, l2):
        d.remove_link(lk.id)
    d.add_link(Link(l1.id, "su1-node2-nic1", "p1", "su1-leaf2", l2.b_port if l2.b_device == "su1-leaf2" else l2.a_port,
                    medium=l1.medium, length_m=l1.length_m, cable=l1.cable))
    d.add_link(Link(l2.id, "su1-node2-nic2", "p1", "su1-leaf1", l1.b_port if l1.b_device == "su1-leaf1" else l1.a_port,
                    medium=l2.medium, length_m=l2.length_m, cable=l2.cable))
    found = {f.links[0]: f for f in shape_findings(d)}
    assert set(found) == {l1.id, l2.id} and {f.code for f in found.values()} == {"rail-misaligned"}
    msg = found[l1.id].message
    assert "rail 1" in msg and "su1-leaf2 on rail 2" in msg and msg.endswith("cable it to su1-leaf1")


def test_a_nic_serving_another_rails_gpu_is_misaligned():
    """GPU 3's PCIe goes to NIC 5, whose cable goes to leaf 5: GPU 3's traffic leaves on rail 5."""
    d = rail_su()
    p3 = next(lk for lk in d.links_of("su1-node1-gpu3") if lk.medium == "pcie")
    p5 = next(lk for lk in d.links_of("su1-node1-gpu5") if lk.medium == "pcie")
    for lk in (p3, p5):
        d.remove_link(lk.id)
    d.add_link(Link(p3.id, "su1-node1-gpu3", "pcie1", "su1-node1-nic5", "pcie1", medium="pcie", length_m=0.5,
                    cable=p3.cable))
    d.add_link(Link(p5.id, "su1-node1-gpu5", "pcie1", "su1-node1-nic3", "pcie1", medium="pcie", length_m=0.5,
                    cable=p5.cable))
    found = shape_findings(d)
    assert {f.code for f in found} == {"rail-misaligned"} and len(found) == 2
    assert any("su1-node1-nic5, the NIC of su1-node1-gpu3," in f.message for f in found)


def test_a_nic_on_another_su_s_leaf_is_misaligned():
    d = rail_su(sus=2)
    lk = net_link(d, "su1-node1-nic1")
    recable(d, lk.id, "a" if lk.a_device != "su1-node1-nic1" else "b", "su2-leaf1")
    (f,) = shape_findings(d)
    assert f.code == "rail-misaligned" and "SU 2" in f.message and "cable it to su1-leaf1" in f.message


def test_validate_reports_them_as_warnings(tmp_path, capsys):
    d = rail_su()
    lk = net_link(d, "su1-node1-nic1")
    recable(d, lk.id, "a" if lk.a_device != "su1-node1-nic1" else "b", "spine1")
    path = tmp_path / "miscabled.json"
    save_design(d, path)
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert "[tier-skip]" in out and "warning" in out
