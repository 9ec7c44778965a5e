"""NCCL's double binary trees (designer/analysis/collectives/nccl_trees.py) and the tree embedding built on them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from analysis_helpers import rail_cluster

from designer.analysis import build_context
from designer.analysis.collectives import nccl_trees
from designer.analysis.collectives.embedding import Embedder
from designer.analysis.fabric.capacity import K_NIC, K_SWITCH

# Parents written out by hand from trees.cc. Tree 0 (ncclGetBtree): a node whose lowest set bit
# is b has parent (r ^ b) | 2b, or r ^ b when that is >= n; the root 0 has the single child
# "largest power of two below n". Tree 1 (ncclGetDtree): mirror r -> n-1-r (n even) or shift
# r -> r+1 mod n (n odd) of tree 0.
#   n=4: tree 0   0 -> 2 -> {1, 3}          tree 1 (mirror)  3 -> 1 -> {2, 0}
#   n=5: tree 0   0 -> 4 -> 2 -> {1, 3}     tree 1 (shift)   1 -> 0 -> 3 -> {2, 4}
#   n=8: tree 0   0 -> 4 -> {2, 6}, 2 -> {1, 3}, 6 -> {5, 7}
#        tree 1   7 -> 3 -> {5, 1}, 5 -> {6, 4}, 1 -> {2, 0}
HAND = {
    1: ([-1], [-1]),
    2: ([-1, 0], [1, -1]),
    3: ([-1, 2, 0], [1, -1, 0]),
    4: ([-1, 2, 0, 2], [1, 3, 1, -1]),
    5: ([-1, 2, 4, 2, 0], [1, -1, 3, 0, 3]),
    8: ([-1, 2, 4, 2, 0, 6, 4, 6], [1, 3, 1, 7, 5, 3, 5, -1]),
}


@pytest.mark.parametrize("n", sorted(HAND))
def test_parents_match_hand_written_nccl_trees(n):
    tree0, tree1 = HAND[n]
    assert nccl_trees.parents(n).tolist() == [tree0, tree1]


def test_thirteen_nodes_match_the_trees_cc_illustrations():
    # trees.cc draws tree 0 of 13 nodes (0 -> 8, 8 -> {4, 12}, 12 -> 10, 10 -> 11) and its shifted
    # tree 1 rooted at 1 (1 -> 9, 9 -> {5, 0}, 0 -> 11).
    p0, p1 = nccl_trees.parents(13)
    assert p0[8] == 0 and p0[4] == 8 and p0[12] == 8 and p0[10] == 12 and p0[11] == 10
    assert p1[1] == -1 and p1[9] == 1 and p1[5] == 9 and p1[0] == 9 and p1[11] == 0


@pytest.mark.parametrize("n", range(1, 18))
def test_tree_properties(n):
    par = nccl_trees.parents(n)
    kids = nccl_trees.children(n)
    for t in range(2):
        p, c = par[t], kids[t]
        roots = np.flatnonzero(p < 0)
        assert len(roots) == 1
        root = int(roots[0])
        assert root == (0 if t == 0 else (1 if n % 2 and n > 1 else n - 1))
        # spans: every node reaches the root, in at most depth steps
        for r in range(n):
            x, steps = r, 0
            while x != root:
                x = int(p[x])
                steps += 1
                assert steps <= nccl_trees.depth(n)
        # children and parents agree; the root has one child (none when alone)
        for r in range(n):
            for ch in c[r][c[r] >= 0]:
                assert p[ch] == r
        assert sorted(int(ch) for r in range(n) for ch in c[r] if ch >= 0) == sorted(set(range(n)) - {root})
        assert (c[root] >= 0).sum() == (1 if n > 1 else 0)
    interior = (kids >= 0).any(axis=2)
    both = np.flatnonzero(interior[0] & interior[1]).tolist()
    # even: each node forwards in at most one tree; odd: only node 0 (tree 0's root) forwards in both
    assert both == ([] if n % 2 == 0 or n == 1 else [0])
    assert nccl_trees.depth(n) == (math.ceil(math.log2(n)) if n > 1 else 0)
    child, parent = nccl_trees.edges(n)
    assert len(child) == 2 * (n - 1)


def test_bad_node_count_is_refused():
    with pytest.raises(ValueError):
        nccl_trees.parents(0)


# Busiest NIC per message byte, counted by hand: C = 8 rail channels, each tree carries half the data,
# so a tree edge puts 1/(2C) = 1/16 of S on the NIC at each end, per direction. The most edges at one
# node over both trees: 2 servers: 2 (one in each tree); 3: 3 (node 0: root of tree 0 + forwarding
# node of tree 1); 4, 8, 16: 4 (a forwarding node of one tree: parent + 2 children, a leaf of the
# other). A heap-ordered tree and its mirror would give 3/16 at 4 servers.
@pytest.mark.parametrize(("servers", "edges"), [(2, 2), (3, 3), (4, 4), (8, 4), (16, 4)])
def test_busiest_nic_load_per_byte_is_the_hand_count(servers, edges):
    ctx = build_context(rail_cluster(servers))
    E = Embedder(ctx, np.arange(len(ctx.fabric.gpus)))
    ph = E.phase(*E.tree_flows(1.0))
    cap = ctx.cap
    src, dst = cap.arc_src, cap.arc_dst
    nic_up = (cap.node_kind[src] == K_NIC) & (cap.node_kind[dst] == K_SWITCH)
    assert nic_up.sum() == 8 * servers
    assert float(ph.arc_load_per_byte[nic_up].max()) == pytest.approx(edges / 16)
    # NVLSTree's network part: the same trees per rail on S/g
    ph_rail = E.phase(*E.rail_trees(1.0 / 8))
    assert float(ph_rail.arc_load_per_byte[nic_up].max()) == pytest.approx(edges / 16)
