"""HGX-style server and NVL72 rack-scale NVLink domains."""

from __future__ import annotations

import pytest
from generator_checks import assert_sound, kinds, network_links_between

from designer.generators import GeneratorError, build_nvl72, build_server


def test_hgx_h100_server_has_8_gpus_on_one_nvswitch_and_a_nic_each():
    d = build_server()
    assert kinds(d) == {"gpu": 8, "nic": 8, "nvswitch": 1}
    for i in range(1, 9):
        assert d.link_at(f"node1-gpu{i}", "nvl1").b == f"node1-nvsw:nvl{i}"
        assert d.link_at(f"node1-gpu{i}", "nvl1").medium == "nvlink"
        assert d.link_at(f"node1-gpu{i}", "pcie1").b == f"node1-nic{i}:pcie1"
        assert d.link_at(f"node1-gpu{i}", "pcie1").medium == "pcie"
        assert d.device(f"node1-gpu{i}").properties["rail"] == i
    assert d.group("node1").kind == "server"
    assert_sound(d)


@pytest.mark.parametrize(("gpu", "fabric"), [("a100-sxm", "hgx-a100-nvswitch"), ("b200", "hgx-b200-nvswitch")])
def test_server_picks_the_nvlink_board_of_the_gpu(gpu, fabric):
    d = build_server(gpu=gpu, nic="connectx-8-800g" if gpu == "b200" else "connectx-7-400g")
    assert d.device("node1-nvsw").model == fabric


def test_server_refuses_more_gpus_than_nvlink_ports_and_unknown_fabrics():
    with pytest.raises(GeneratorError, match="server: 9 GPUs per node but NVLink fabric hgx-h100-nvswitch has 8"):
        build_server(gpus_per_node=9)
    with pytest.raises(GeneratorError, match="no default NVLink fabric for GPU 'mi300x'"):
        build_server(gpu="mi300x")


def test_single_gpu_node_has_no_nvswitch():
    assert kinds(build_server(gpus_per_node=1)) == {"gpu": 1, "nic": 1}


def test_nvl72_rack_has_72_gpus_on_one_nvlink_domain():
    d = build_nvl72(scaleout=False)
    assert kinds(d) == {"gpu": 72, "nic": 72, "nvswitch": 1}
    assert len(d.links_of("nvl1-nvsw")) == 72
    assert d.link_at("nvl1-tray18-gpu4", "nvl1").b == "nvl1-nvsw:nvl72"
    assert d.group("nvl1-tray3").kind == "server"
    assert_sound(d)


def test_nvl72_racks_join_through_rail_leaves_and_spines():
    d = build_nvl72(racks=4)
    c = kinds(d)
    assert (c["gpu"], c["leaf"], c["nvswitch"]) == (288, 16, 4)
    assert network_links_between(d, "node", "leaf") == 288
    assert network_links_between(d, "leaf", "spine") == 16 * 18
    assert_sound(d)


def test_nvl72_refuses_isolated_racks_and_oversized_domains():
    with pytest.raises(GeneratorError, match="2 racks need a scale-out network"):
        build_nvl72(racks=2, scaleout=False)
    with pytest.raises(GeneratorError, match="19 trays x 4 GPUs = 76 GPUs but nvl72-nvswitch has 72 GPU ports"):
        build_nvl72(trays=19)
