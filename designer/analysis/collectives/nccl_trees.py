"""NCCL's double binary trees across servers: the parent and children of every server in both trees.

NCCL (NVIDIA/nccl ``src/graph/trees.cc``) builds its cross-node trees from the bit pattern of the
node index, not in heap order:

- **tree 0** (``ncclGetBtree``) is an in-order binary tree rooted at node 0, which has a single
  child: the largest power of two below ``n``. A node whose lowest set bit is ``b`` has the
  parent ``(r ^ b) | 2b`` (or ``r ^ b`` when that is out of range) and the children ``r - b/2``
  and ``r + b'``, ``b'`` the largest power of two ``<= b/2`` that stays in range. Odd nodes are
  the leaves.
- **tree 1** (``ncclGetDtree``) is tree 0 mirrored (node ``r`` plays ``n-1-r``) when ``n`` is
  even, and tree 0 shifted by one (node ``r`` plays ``r-1 mod n``) when ``n`` is odd. With an even
  ``n`` the leaves of one tree are the interior nodes of the other, so each node forwards (has
  children) in at most one tree; with an odd ``n`` that holds for all nodes but node 0, the root
  of tree 0 (one child) and a forwarding node of tree 1.

Each tree carries half of the data (NCCL runs channels ``c`` on tree 0 and ``c + nChannels`` on
tree 1, ``connect.cc`` ``connectTrees``). Both trees have ``ceil(log2 n)`` levels (the root's
single child adds one level to a balanced tree); NCCL's tuner approximates this with
``log2i(n) = floor(log2 n)`` (``connect.cc``: "not an exact value but a good approximation").

Arrays are indexed by node (server) number: ``parents(n)[t, r]`` is the parent of node ``r`` in
tree ``t`` (-1 at the root), ``children(n)[t, r]`` its two children (-1 where there is none).

>>> parents(4)
array([[-1,  2,  0,  2],
       [ 1,  3,  1, -1]])
>>> children(4)[0].tolist()
[[-1, 2], [-1, -1], [1, 3], [-1, -1]]
>>> depth(4), depth(5), depth(8)
(2, 3, 3)
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

__all__ = ["btree", "children", "depth", "dtree", "edges", "parents"]


def btree(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Tree 0 of ``n`` nodes (NCCL ``ncclGetBtree``): (parent per node, (n, 2) children per node).

    >>> p, c = btree(8)
    >>> p.tolist()
    [-1, 2, 4, 2, 0, 6, 4, 6]
    >>> c[0].tolist(), c[4].tolist(), c[6].tolist()
    ([-1, 4], [2, 6], [5, 7])
    >>> btree(5)[0].tolist()
    [-1, 2, 4, 2, 0]
    """
    par, kids = _btree(_count(n))
    return np.array(par, dtype=np.int64), np.array(kids, dtype=np.int64).reshape(-1, 2)


def dtree(n: int) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Both trees (NCCL ``ncclGetDtree``): ((parents, children) of tree 0, same of tree 1).

    >>> (_, _), (p1, _) = dtree(5)   # odd: tree 0 shifted by one, rooted at node 1
    >>> p1.tolist()
    [1, -1, 3, 0, 3]
    >>> (_, _), (p1, _) = dtree(8)   # even: tree 0 mirrored, rooted at node 7
    >>> p1.tolist()
    [1, 3, 1, 7, 5, 3, 5, -1]
    """
    p = parents(n)
    c = children(n)
    return (p[0], c[0]), (p[1], c[1])


def parents(n: int) -> np.ndarray:
    """(2, n) array: the parent of every node in tree 0 and tree 1, -1 at each root.

    >>> parents(2).tolist(), parents(3).tolist()
    ([[-1, 0], [1, -1]], [[-1, 2, 0], [1, -1, 0]])
    """
    out = np.array(_dtree(_count(n))[0], dtype=np.int64).reshape(2, -1)
    out.setflags(write=False)
    return out


def children(n: int) -> np.ndarray:
    """(2, n, 2) array: the two children of every node in tree 0 and tree 1, -1 where none.

    >>> children(3)[1].tolist()
    [[2, -1], [-1, 0], [-1, -1]]
    """
    out = np.array(_dtree(_count(n))[1], dtype=np.int64).reshape(2, -1, 2)
    out.setflags(write=False)
    return out


def edges(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(child, parent) of every edge of tree 0 then of tree 1: ``2 (n - 1)`` edges.

    >>> c, p = edges(4)
    >>> list(zip(c.tolist(), p.tolist()))
    [(1, 2), (2, 0), (3, 2), (0, 1), (1, 3), (2, 1)]
    """
    p = parents(n)
    tree, child = np.nonzero(p >= 0)
    return child.astype(np.int64), p[tree, child]


def depth(n: int) -> int:
    """Levels (edges on the longest root-to-leaf path) of NCCL's trees of ``n`` nodes: ceil(log2 n).

    >>> [depth(n) for n in (1, 2, 3, 4, 5, 8, 9, 16, 17)]
    [0, 1, 2, 2, 3, 3, 4, 4, 5]
    """
    return _depth(_count(n))


def _count(n) -> int:
    n = int(n)
    if n < 1:
        raise ValueError(f"a tree needs at least one node, not {n}")
    return n


def _btree_node(n: int, rank: int) -> tuple[int, int, int]:
    """(parent, child 0, child 1) of ``rank`` in NCCL's tree 0 of ``n`` nodes (-1: none)."""
    bit = 1
    while bit < n and not bit & rank:
        bit <<= 1
    if rank == 0:
        # The root: its only child is the largest power of two below n.
        return -1, -1, (bit >> 1) if n > 1 else -1
    up = (rank ^ bit) | (bit << 1)
    if up >= n:
        up = rank ^ bit
    low = bit >> 1
    if low == 0:
        return up, -1, -1
    down0 = rank - low
    # The second child: the largest step low, low/2, ... that stays in range.
    while low and rank + low >= n:
        low >>= 1
    return up, down0, rank + low if low else -1


@lru_cache(maxsize=64)
def _btree(n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    nodes = [_btree_node(n, r) for r in range(n)]
    return tuple(u for u, _, _ in nodes), tuple(x for _, d0, d1 in nodes for x in (d0, d1))


@lru_cache(maxsize=64)
def _dtree(n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    par0, kids0 = _btree(n)
    if n % 2:
        # Odd: node r plays node (r - 1) mod n of tree 0.
        def to1(x: int) -> int:
            return -1 if x < 0 else (x + 1) % n

        def role(r: int) -> int:
            return (r - 1) % n
    else:
        # Even: node r plays node n - 1 - r of tree 0 (the mirror).
        def to1(x: int) -> int:
            return -1 if x < 0 else n - 1 - x

        def role(r: int) -> int:
            return n - 1 - r
    par1 = tuple(to1(par0[role(r)]) for r in range(n))
    kids1 = tuple(to1(kids0[2 * role(r) + k]) for r in range(n) for k in range(2))
    return par0 + par1, kids0 + kids1


@lru_cache(maxsize=64)
def _depth(n: int) -> int:
    par = np.array(_dtree(n)[0], dtype=np.int64).reshape(2, -1)
    best = 0
    for p in par:
        level = np.zeros(n, dtype=np.int64)
        cur = np.arange(n)
        # Walk every node up to its root at once; a tree of n nodes has fewer than n levels.
        for _ in range(n):
            up = np.where(cur >= 0, p[np.maximum(cur, 0)], -1)
            moved = up >= 0
            if not moved.any():
                break
            level += moved
            cur = up
        best = max(best, int(level.max()))
    return best
