"""Shared by the measured-against-predicted tests: the real logs and a 2-node H100 design."""

from __future__ import annotations

from pathlib import Path

from designer.generators import GENERATORS

DATA = Path(__file__).resolve().parents[1] / "data" / "measured"
#: 2 x 8 H100, 400G NICs (xxrjun/nccl-tests-cluster, example-cluster00 and 01; NOTICE.md).
H100_2N_HALF = DATA / "xxrjun-h100-N2_G8_cnode2-001_cnode2-002.log"
H100_2N = DATA / "xxrjun-h100-N2_G8_cnode3-002_cnode3-003.log"
H100_10N = DATA / "xxrjun-h100-N10_G8.log"
H100_1N = DATA / "xxrjun-h100-N1_G8_cnode3-002.log"
ABCI_A100 = DATA / "abci2.0-inter_anode-job16.sh.7194312.nccl"
ABCI_V100 = DATA / "abci2.0-inter_vnode-job32.sh.7194536.nccl"
PERFQUERY = DATA / "perfquery"


def h100_two_nodes(hosts: tuple[str, str] | None = None):
    """Two DGX H100-style servers on a rail-optimized fabric (8 rail leaves, 400G NICs); the server
    groups renamed after ``hosts`` when given."""
    d = GENERATORS["rail-optimized"].build(nodes_per_su=2, ufm=False)
    if hosts:
        servers = [g for g in d.groups if g.kind == "server"]
        for g, h in zip(servers, hosts, strict=True):
            d.set_group_field(g.id, "name", h)
    return d
