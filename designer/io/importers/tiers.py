"""The tiers of an imported fabric, from its structure: hop distance from the compute hosts' leaves.

A switch cabled to a compute host (a GPU host when the import recognised its servers, see
:mod:`designer.io.importers.hosts`; else any host) is a ``leaf``, unless it carries only a few hosts
and most of its switch cables go to other such switches: that is a spine that also carries a
management or UFM host, not a leaf. From the leaves, a switch one hop up is a ``spine``; further up
it is ``core`` when every spine has an uplink to that level (a real third tier), else a ``spine``
(a switch hung off some spines is not a tier). A switch further up that carries hosts of its own
(storage, management) is a leaf of those hosts. The blades of a director (one system image GUID)
vote by role: its line blades (``/L01/`` in their description) take the tier most of them have, and
its fabric blades (``/S01/``) theirs, so a spare blade with no cable down still lands beside its
peers. A switch with no host anywhere below it keeps no tier. The report names every tier guessed
and every close call.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from designer.io.importers.fabric import Fabric

_BLADE = re.compile(r"/([LS])\d+(?:/|$)")
_ORDER = ("leaf", "spine", "core")


def _key(text: str) -> tuple:
    return tuple(int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", text))


def infer_tiers(fabric: Fabric, compute: set[str] | None = None) -> None:
    """Name the switches' tiers where the source gave none (the module docstring says how).

    ``compute``: the keys of the compute hosts' adapters (None: every host adapter counts).
    """
    rep = fabric.report
    switches = {k for k, n in fabric.nodes.items() if n.kind == "switch"}
    if not switches or all(fabric.nodes[k].tier for k in switches):
        return
    links: dict[str, Counter] = defaultdict(Counter)
    hosts: Counter = Counter()
    compute_hosts: Counter = Counter()
    for e in fabric.edges:
        a, b = fabric.nodes[e.a], fabric.nodes[e.b]
        if a.kind == "switch" and b.kind == "switch":
            links[e.a][e.b] += 1
            links[e.b][e.a] += 1
            continue
        for s, h in ((a, b), (b, a)):
            if s.kind == "switch" and h.kind not in ("switch", "nvswitch"):
                hosts[s.key] += 1
                if compute is None or h.key in compute:
                    compute_hosts[s.key] += 1
    seeds = {k for k in switches if compute_hosts[k]}
    if compute is None:
        seeds = _without_spines_with_hosts(fabric, seeds, links, hosts)
    dist = _distances(seeds, links)
    spines = {k for k, d in dist.items() if d == 1}
    upper = {k for k, d in dist.items() if d >= 2}
    third_tier = bool(upper) and bool(spines) and all(set(links[s]) & upper for s in spines)
    counts: Counter = Counter()
    for k in sorted(switches, key=_key):
        node = fabric.nodes[k]
        if node.tier:
            continue
        d = dist.get(k)
        if d is None:
            rep.guess(k, "no host below it: no tier", node.line, "tier")
            continue
        if d == 0:
            node.tier = "leaf"
        elif d == 1:
            node.tier = "spine"
        elif hosts[k]:
            node.tier = "leaf"
            rep.guess(k, f"{d} hops above the compute hosts' leaves but carries {hosts[k]} host adapters of its own "
                      "(storage, management): a leaf of those", node.line, "tier")
        elif third_tier:
            node.tier = "core"
        else:
            node.tier = "spine"
            rep.guess(k, f"{d} hops above the hosts but only some spines link to it: counted as a spine", node.line,
                      "tier")
        counts[node.tier] += 1
    _chassis_vote(fabric, switches, counts)
    if counts:
        text = ", ".join(f"{counts[t]} {t}" for t in _ORDER if counts[t])
        whose = "the GPU hosts" if compute is not None else "hosts"
        rep.guess("tiers", f"{text}: leaves carry {whose}, spines are one hop above, core only when every spine "
                  "links up to it", 0, "tiers")


def _without_spines_with_hosts(fabric: Fabric, seeds: set[str], links: dict[str, Counter],
                               hosts: Counter) -> set[str]:
    """The seeds less the switches that are spines carrying a few hosts (a UFM host on two spines): fewer
    hosts than switch cables, and most of those cables to other seeds. A near tie is reported."""
    rep = fabric.report
    out = set(seeds)
    for k in sorted(seeds, key=_key):
        up = sum(links[k].values())
        if not up or hosts[k] >= up:
            continue
        to_seeds = sum(n for m, n in links[k].items() if m in seeds)
        share = to_seeds / up
        node = fabric.nodes[k]
        if share > 0.5:
            out.discard(k)
            rep.guess(k, f"carries {hosts[k]} host adapters but {to_seeds} of its {up} switch cables go to switches "
                      "with hosts: a spine that also carries hosts, not a leaf"
                      + (" (a close call)" if share < 0.65 else ""), node.line, "tier")
        elif share >= 0.35:
            rep.guess(k, f"carries {hosts[k]} host adapters and {to_seeds} of its {up} switch cables go to switches "
                      "with hosts: kept a leaf (a close call)", node.line, "tier")
    return out or set(seeds)


def _distances(seeds: set[str], links: dict[str, Counter]) -> dict[str, int]:
    dist = {k: 0 for k in seeds}
    frontier = sorted(seeds)
    while frontier:
        nxt = []
        for k in frontier:
            for m in links[k]:
                if m not in dist:
                    dist[m] = dist[k] + 1
                    nxt.append(m)
        frontier = nxt
    return dist


def _chassis_vote(fabric: Fabric, switches: set[str], counts: Counter) -> None:
    """The blades of a director take the tier most blades of their role (line, fabric) have."""
    roles: dict[tuple[str, str], list[str]] = defaultdict(list)
    for k in switches:
        node = fabric.nodes[k]
        m = _BLADE.search(str(node.properties.get("description", "")))
        if node.chassis and m:
            roles[(node.chassis, m.group(1))].append(k)
    for (chassis, role), members in sorted(roles.items()):
        votes = Counter(fabric.nodes[k].tier for k in members if fabric.nodes[k].tier)
        if not votes:
            continue
        tier, n = votes.most_common(1)[0]
        what = "line" if role == "L" else "fabric"
        for k in sorted(members, key=_key):
            node = fabric.nodes[k]
            if node.tier == tier:
                continue
            if node.tier:
                counts[node.tier] -= 1
            counts[tier] += 1
            fabric.report.guess(k, f"a {what} blade of director {chassis}: {n} of its {len(members)} {what} blades are "
                                f"{tier}, so it is too (by hops it was {node.tier or 'no tier'}; a close call)",
                                node.line, "tier")
            node.tier = tier
