"""Servers whose GPUs are linked by NVLink directly: full meshes, bridged pairs, the DGX-1 cube-mesh."""

from __future__ import annotations

from collections import Counter

import pytest
from generator_checks import assert_sound, kinds

from designer.analysis.bom.bill import bill_of_materials
from designer.cli import main
from designer.generators import GeneratorError, build_leaf_spine, build_rail_optimized, build_server
from designer.model.catalog import builtin_catalog


def _nvlink_links(d):
    return [lk for lk in d.iter_links() if lk.medium == "nvlink"]


def _pair_counts(d):
    """Direct NVLink links per unordered GPU pair, by GPU number (1-based)."""
    out: Counter[tuple[int, int]] = Counter()
    for lk in _nvlink_links(d):
        a, b = (int(x.rsplit("gpu", 1)[1]) for x in (lk.a_device, lk.b_device))
        out[min(a, b), max(a, b)] += 1
    return out


def _nvlink_ports(d, gpu_id):
    return [(g.count, g.speed_gbps) for g in d.device(gpu_id).ports if g.kind == "nvlink"]


def test_mesh_links_every_pair_once_and_shares_each_gpus_nvlink_rate():
    d = build_server(nvlink="mesh")
    assert kinds(d) == {"gpu": 8, "nic": 8}
    assert _pair_counts(d) == {(a, b): 1 for a in range(1, 9) for b in range(a + 1, 9)}
    h100 = builtin_catalog().component("h100-sxm")
    for i in range(1, 9):
        ((count, speed),) = _nvlink_ports(d, f"node1-gpu{i}")
        assert count == 7
        assert count * speed == pytest.approx(h100.port_speed_gbps("nvlink"))  # 3600 Gb/s = 450 GB/s
        assert len(d.links_of(f"node1-gpu{i}")) == 7 + 1  # seven peers and its NIC
    lk = d.link_at("node1-gpu3", "nvl1")  # GPU 3's first peer is GPU 1, on GPU 1's second port
    assert {lk.a, lk.b} == {"node1-gpu1:nvl2", "node1-gpu3:nvl1"}
    assert_sound(d)


def test_a_two_gpu_mesh_is_one_link_at_the_full_nvlink_rate():
    d = build_server(nvlink="mesh", gpus_per_node=2)
    (link,) = _nvlink_links(d)
    assert (link.a, link.b) == ("node1-gpu1:nvl1", "node1-gpu2:nvl1")
    assert _nvlink_ports(d, "node1-gpu1") == [(1, 3600.0)]
    assert_sound(d)


def test_mi300x_mesh_is_seven_64_gb_per_s_links_per_gpu():
    d = build_server(nvlink="mesh", gpu="mi300x")
    assert len(_nvlink_links(d)) == 28
    # 896 GB/s bidirectional over 7 peers = 64 GB/s per direction per link = 512 Gb/s.
    assert _nvlink_ports(d, "node1-gpu5") == [(7, 512.0)]
    assert_sound(d)


def test_cube_mesh_is_the_dgx1_hybrid_cube_mesh():
    d = build_server(nvlink="cube-mesh")
    pairs = _pair_counts(d)
    assert sum(pairs.values()) == 24
    # nvidia-smi topo -m of a DGX-1 V100: GPU0 NV1 NV1 NV2 NV2 to GPUs 1, 2, 3, 4 (here 1-based).
    assert (pairs[1, 2], pairs[1, 3], pairs[1, 4], pairs[1, 5]) == (1, 1, 2, 2)
    assert (pairs[2, 3], pairs[2, 4], pairs[2, 6]) == (2, 1, 2)
    assert (pairs[3, 7], pairs[4, 8]) == (1, 1)
    assert pairs[1, 6] == pairs[1, 8] == 0  # not every pair is linked
    ends = Counter()
    for (a, b), n in pairs.items():
        ends[a] += n
        ends[b] += n
    assert set(ends.values()) == {6}
    assert _nvlink_ports(d, "node1-gpu1") == [(6, 600.0)]  # 3600 Gb/s over 6 links
    assert d.has_link("node1-gpu1--node1-gpu4.2")
    assert_sound(d)


def test_bridge_pairs_join_pcie_cards_at_the_bridge_rate():
    d = build_server(nvlink="bridge-pairs", gpu="h100-nvl", gpus_per_node=2)
    (link,) = _nvlink_links(d)
    assert link.id == "node1-gpu1--node1-gpu2"
    # H100 NVL bridge: 600 GB/s bidirectional = 300 GB/s per direction = 2400 Gb/s.
    assert _nvlink_ports(d, "node1-gpu1") == [(1, 2400.0)]
    assert_sound(d)


def test_fabrics_of_bridged_and_meshed_servers_validate_clean():
    ls = build_leaf_spine(nvlink="bridge-pairs", gpu="h100-nvl")
    assert _pair_counts(ls) == {(1, 2): 16, (3, 4): 16, (5, 6): 16, (7, 8): 16}  # 16 servers of 4 pairs
    assert ls.link_at("node16-gpu3", "nvl1").b == "node16-gpu4:nvl1"
    assert_sound(ls)
    ro = build_rail_optimized(nvlink="mesh", gpu="mi300x")
    assert len(_nvlink_links(ro)) == 32 * 28
    assert_sound(ro)


def test_direct_nvlink_gpus_are_priced_as_their_catalog_model():
    bom = bill_of_materials(build_server(nvlink="mesh", gpu="mi300x"))
    (line,) = [ln for ln in bom.lines if ln.category == "gpu"]
    assert (line.item, line.quantity, line.unit_price_usd, line.unit_power_w) == ("mi300x", 8, 15000, 750)
    assert all(ln.unit_price_usd > 0 for ln in bom.lines)
    assert dict(bom.board_links)["nvlink"] == 28


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"nvlink": "mesh", "gpu": "l40s"}, "server: GPU 'l40s' has no NVLink port: NVLink topology mesh needs one"),
        ({"nvlink": "bridge-pairs", "gpu": "l40s", "gpus_per_node": 2}, "GPU 'l40s' has no NVLink port"),
        ({"nvlink": "bridge-pairs", "gpu": "h100-nvl", "gpus_per_node": 3},
         r"NVLink bridges join GPUs in pairs but GPUs per server = 3 \(--gpus-per-node 3\) is odd"),
        ({"nvlink": "bridge-pairs", "gpus_per_node": 2}, "GPU 'h100-sxm' takes no NVLink bridge"),
        ({"nvlink": "bridge-pairs", "gpu": "h100-nvl", "gpus_per_node": 8},
         "8 GPUs make 4 pairs that only a network joins"),
        ({"nvlink": "mesh", "gpu": "h100-nvl", "gpus_per_node": 4},
         "GPU 'h100-nvl' links to one other GPU, over an NVLink bridge"),
        ({"nvlink": "cube-mesh", "gpus_per_node": 4}, "the hybrid cube-mesh joins exactly 8 GPUs, not 4"),
        ({"nvlink": "mesh", "gpus_per_node": 20}, "mesh of 20 GPUs needs 19 NVLink links per GPU but h100-sxm has 18"),
        ({"nvlink": "mesh", "gpu": "mi300x", "gpus_per_node": 9}, "needs 8 NVLink links per GPU but mi300x has 7"),
        ({"nvlink": "mesh", "nvswitch": "hgx-h100-nvswitch"},
         r"NVLink switch fabric \(--nvswitch MODEL\) needs NVLink topology = switch"),
        ({"nvlink": "torus"}, "nvlink must be one of switch, mesh, bridge-pairs, cube-mesh"),
        ({"gpu": "l40s"}, r"GPU 'l40s' has no NVLink port, so its GPUs meet only at the network: use GPUs per server "
                          r"= 1 \(--gpus-per-node 1\)$"),
    ],
)
def test_impossible_nvlink_topologies_are_refused(params, message):
    with pytest.raises(GeneratorError, match=message):
        build_server(**params)


def test_the_command_line_refuses_a_mesh_of_gpus_without_nvlink_in_one_line(tmp_path, capsys):
    out = tmp_path / "x.json"
    assert main(["generate", "server", "--nvlink", "mesh", "--gpu", "l40s", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("topo-designer: server: GPU 'l40s' has no NVLink port") and "\n" not in err
    assert not out.exists()
    assert main(["generate", "server", "--nvlink", "mesh", "--gpus-per-node", "8", "-o", str(out)]) == 0
    assert out.exists()


def test_the_port_rule_accepts_a_split_only_within_the_gpus_nvlink_links_and_rate():
    from designer.analysis.rules.check import check_design
    from designer.model import PortGroup

    d = build_server(nvlink="mesh", gpu="mi300x")
    assert check_design(d) == []
    g = d.device("node1-gpu1")
    pcie = [p for p in g.ports if p.kind == "pcie"]
    # 8 ports of 1/8 the rate: more ports than the MI300X's 7 Infinity Fabric links.
    g.ports = (PortGroup("xgmi", 8, 448.0, "nvlink", lanes=1), *pcie)
    codes = {(f.code, f.devices) for f in check_design(d)}
    assert ("model-ports", ("node1-gpu1",)) in codes
    # 7 ports each faster than 1/7 of the rate.
    g.ports = (PortGroup("xgmi", 7, 600.0, "nvlink", lanes=1), *pcie)
    assert ("model-ports", ("node1-gpu1",)) in {(f.code, f.devices) for f in check_design(d)}


def test_parallel_nvlink_links_between_two_gpus_are_not_duplicates_but_parallel_pcie_links_are():
    from designer.analysis.rules.check import check_design
    from designer.model import Link

    d = build_server(nvlink="cube-mesh")
    assert not [f for f in check_design(d) if f.code == "duplicate-link"]
    g, nic = d.device("node1-gpu1"), d.device("node1-nic1")
    g.ports = (*g.ports[:-1], type(g.ports[-1])("pcie", 2, 512.0, "pcie", "PCIe Gen5 x16", 16))
    nic.ports = (*nic.ports[:-1], type(nic.ports[-1])("pcie", 2, 512.0, "pcie", "PCIe Gen5 x16", 16))
    d.add_link(Link("extra", "node1-gpu1", "pcie2", "node1-nic1", "pcie2", medium="pcie", length_m=0.5,
                    cable="pcie-board"))
    dup = [f for f in check_design(d) if f.code == "duplicate-link"]
    assert [f.devices for f in dup] == [("node1-gpu1", "node1-nic1")]
