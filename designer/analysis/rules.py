"""Design rules: problems a network architect would catch in review, found automatically.

Each finding names the devices and links involved and says what to do. Rules:

- ``model-ports``: a device has more ports (or faster ports) than its catalog model offers.
- ``nic-host-bottleneck``: a NIC's network rate exceeds what its PCIe host link carries.
- ``medium-port-kind``: a link's medium does not fit its ports (NVLink medium on a network port...).
- ``speed-mismatch``: the two ends of a link run at different speeds.
- ``cable-rate``: the cable is slower than the ports it joins.
- ``reach``: a copper (or optical) link is longer than its cable can reach.
- ``gpu-unreachable``: a GPU has no path to the other GPUs over working links.
- ``duplicate-link``: two links join the same pair of devices where one is a GPU, NIC or storage node.
- ``nic-without-gpu``: a NIC has no PCIe link to a GPU (or storage node).
- ``unconnected``: a device has no link at all.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from designer.model import Design, Link, PortSpec
from designer.model.catalog import Catalog, default_catalog

ERROR = "error"
WARNING = "warning"

_BOARD_MEDIA = {"nvlink": "nvlink", "pcie": "pcie"}


@dataclass(frozen=True)
class Finding:
    """One design-rule finding. ``message`` says what is wrong and what to do."""

    severity: str
    code: str
    message: str
    devices: tuple[str, ...] = ()
    links: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "devices": list(self.devices),
            "links": list(self.links),
        }


def link_rate_gbps(design: Design, link: Link, catalog: Catalog | None = None) -> float:
    """The per-direction line rate of a link in Gb/s: the slowest of its two ports and its cable."""
    a = design.device(link.a_device).port(link.a_port)
    b = design.device(link.b_device).port(link.b_port)
    rate = min(a.speed_gbps if a else 0.0, b.speed_gbps if b else 0.0)
    if catalog is not None and link.cable and link.cable in catalog.cables:
        cable = catalog.cables[link.cable]
        if cable.medium not in _BOARD_MEDIA:
            rate = min(rate, cable.rate_gbps)
    return rate


def _max_reach(catalog: Catalog, medium: str, rate_gbps: float) -> float | None:
    reaches = [c.reach_m for c in catalog.cables.values() if c.medium == medium and c.rate_gbps >= rate_gbps - 1e-9]
    return max(reaches) if reaches else None


def _model_problems(ports: tuple, comp: object) -> list[str]:
    """What is wrong with a device's ports against its catalog model (messages without the id)."""
    out = []
    for kind in ("network", "nvlink", "pcie"):
        have = sum(g.count for g in ports if g.kind == kind)
        budget = sum(g.count for g in comp.ports if g.kind == kind)  # type: ignore[attr-defined]
        if have > budget:
            out.append(f"has {have} {kind} ports but model {comp.id} has {budget}; "  # type: ignore[attr-defined]
                       "use a larger model or move links to another device")
        fastest = max((g.speed_gbps for g in ports if g.kind == kind), default=0.0)
        limit = max((g.speed_gbps for g in comp.ports if g.kind == kind), default=0.0)  # type: ignore[attr-defined]
        if have and budget and fastest > limit + 1e-9:
            out.append(f"a {kind} port runs at {fastest:g} Gb/s but model {comp.id} tops out at "  # type: ignore
                       f"{limit:g} Gb/s; pick a faster model or slow the port down")
    return out


def _check_devices(design: Design, catalog: Catalog, out: list[Finding]) -> None:
    """Port budget against the catalog model, and NIC host-link bottlenecks (memoised per port set)."""
    memo: dict[tuple[int, str, str], list[tuple[str, str, str]]] = {}
    keep: list[tuple] = []  # keeps memoised port tuples alive so their ids stay unique
    for dev in design.iter_devices():
        key = (id(dev.ports), dev.model, dev.kind)
        problems = memo.get(key)
        if problems is None:
            keep.append(dev.ports)
            problems = []
            comp = catalog.components.get(dev.model) if dev.model else None
            if comp is not None:
                problems += [(ERROR, "model-ports", m) for m in _model_problems(dev.ports, comp)]
            if dev.kind == "nic":
                net = sum(g.count * g.speed_gbps for g in dev.ports if g.kind == "network")
                host = sum(g.count * g.speed_gbps for g in dev.ports if g.kind == "pcie")
                if host and net > host * 1.0001:
                    problems.append((
                        WARNING, "nic-host-bottleneck",
                        f"network ports total {net:g} Gb/s but the PCIe host link carries {host:g} Gb/s; "
                        "the NIC cannot run at line rate: use a faster PCIe generation or fewer/slower ports",
                    ))
            memo[key] = problems
        for severity, code, message in problems:
            out.append(Finding(severity, code, f"{dev.id}: {message}", (dev.id,)))


_LinkVerdict = tuple[list[tuple[str, str, str]], float | None, str]


def _link_problems(link: Link, pa: PortSpec, pb: PortSpec, catalog: Catalog,
                   reach_cache: dict[tuple[str, float], float | None]) -> _LinkVerdict:
    """Length-independent problems of a link (messages without the link id), its reach and what sets it."""
    problems: list[tuple[str, str, str]] = []
    board = _BOARD_MEDIA.get(link.medium)
    kinds = {pa.kind, pb.kind}
    if board is not None and kinds != {board}:
        problems.append((ERROR, "medium-port-kind",
                         f"medium {link.medium} joins a {pa.kind} port ({link.a}) to a {pb.kind} port ({link.b}); "
                         f"connect {board} ports to {board} ports"))
    elif board is None and kinds != {"network"}:
        problems.append((ERROR, "medium-port-kind",
                         f"a {link.medium} cable joins a {pa.kind} port ({link.a}) to a {pb.kind} port ({link.b}); "
                         "cables join network ports: use medium nvlink or pcie for board connections"))
    if abs(pa.speed_gbps - pb.speed_gbps) > 1e-9:
        problems.append((WARNING, "speed-mismatch",
                         f"{link.a} runs at {pa.speed_gbps:g} Gb/s but {link.b} at {pb.speed_gbps:g} Gb/s; "
                         f"the link will run at {min(pa.speed_gbps, pb.speed_gbps):g} Gb/s: match the port speeds"))
    port_rate = min(pa.speed_gbps, pb.speed_gbps)
    cable = catalog.cables.get(link.cable) if link.cable else None
    if cable is not None and board is None:
        if cable.rate_gbps < port_rate - 1e-9:
            problems.append((WARNING, "cable-rate",
                             f"cable {cable.id} carries {cable.rate_gbps:g} Gb/s, slower than its "
                             f"{port_rate:g} Gb/s ports; choose a {port_rate:g}G cable"))
        if cable.medium != link.medium:
            problems.append((WARNING, "cable-medium",
                             f"medium is {link.medium} but cable {cable.id} is {cable.medium}; "
                             "make them agree (the medium sets latency and reach)"))
    reach: float | None = None
    what = ""
    if board is None:
        if cable is not None and cable.medium == link.medium:
            reach, what = cable.reach_m, f"cable {cable.id}"
        else:
            key = (link.medium, port_rate)
            if key not in reach_cache:
                reach_cache[key] = _max_reach(catalog, link.medium, port_rate)
            reach = reach_cache[key]
            what = f"any {port_rate:g}G {link.medium.replace('_', ' ')} cable in the catalog"
    return problems, reach, what


def _check_links(design: Design, catalog: Catalog, out: list[Finding]) -> None:
    reach_cache: dict[tuple[str, float], float | None] = {}
    memo: dict[tuple, _LinkVerdict] = {}
    pairs: dict[tuple[str, str], list[str]] = defaultdict(list)
    devices = {d.id: d for d in design.iter_devices()}
    switching = ("switch", "nvswitch")
    for link in design.iter_links():
        da, db = devices[link.a_device], devices[link.b_device]
        ends = (link.a_device, link.b_device)
        key = (id(da.ports), link.a_port, id(db.ports), link.b_port, link.medium, link.cable)
        cached = memo.get(key)
        if cached is None or cached[0]:
            # Findings name the link's own ports, so only problem-free signatures are shared.
            pa, pb = da.port(link.a_port), db.port(link.b_port)
            assert pa is not None and pb is not None  # guaranteed by the model
            cached = _link_problems(link, pa, pb, catalog, reach_cache)
            memo[key] = cached
        problems, reach, what = cached
        for severity, code, message in problems:
            out.append(Finding(severity, code, f"{link.id}: {message}", ends, (link.id,)))
        if reach is not None and link.length_m > reach + 1e-9:
            fix = "use active copper, AOC or optics" if link.medium == "passive_copper" else (
                "use AOC or optics" if link.medium == "active_copper" else "use a longer-reach optic")
            out.append(Finding(
                ERROR, "reach", f"{link.id}: {link.length_m:g} m is beyond the {reach:g} m reach of {what}; {fix}",
                ends, (link.id,),
            ))
        if not (da.kind in switching and db.kind in switching):
            pairs[(min(ends), max(ends))].append(link.id)
    for (a, b), ids in pairs.items():
        if len(ids) > 1:
            out.append(Finding(
                WARNING, "duplicate-link",
                f"{a} and {b} are joined by {len(ids)} links ({', '.join(ids[:4])}{'...' if len(ids) > 4 else ''}); "
                "an endpoint normally takes one link per peer: remove the extra links",
                (a, b), tuple(ids),
            ))


def _check_connectivity(design: Design, out: list[Finding]) -> None:
    ids = [d.id for d in design.iter_devices()]
    index = {did: i for i, did in enumerate(ids)}
    kinds = [d.kind for d in design.iter_devices()]
    n = len(ids)
    if n == 0:
        return
    links = design.links
    src = np.fromiter((index[lk.a_device] for lk in links), dtype=np.int64, count=len(links))
    dst = np.fromiter((index[lk.b_device] for lk in links), dtype=np.int64, count=len(links))
    up = np.fromiter((not lk.failed for lk in links), dtype=bool, count=len(links))
    degree = np.bincount(np.concatenate([src, dst]), minlength=n)
    pcie_peers: dict[int, set[str]] = defaultdict(set)
    for lk in links:
        if lk.medium == "pcie":
            a, b = index[lk.a_device], index[lk.b_device]
            pcie_peers[a].add(kinds[b])
            pcie_peers[b].add(kinds[a])
    graph = coo_matrix((np.ones(int(up.sum()), dtype=np.int8), (src[up], dst[up])), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    gpus = [i for i in range(n) if kinds[i] == "gpu"]
    if len(gpus) > 1:
        comps: dict[int, list[str]] = defaultdict(list)
        for g in gpus:
            comps[int(labels[g])].append(ids[g])
        if len(comps) > 1:
            main_label = max(comps, key=lambda r: len(comps[r]))
            cut_off = sorted(g for r, gs in comps.items() if r != main_label for g in gs)
            shown = ", ".join(cut_off[:6]) + ("..." if len(cut_off) > 6 else "")
            out.append(Finding(
                ERROR, "gpu-unreachable",
                f"{len(cut_off)} GPU(s) have no path to the other {len(comps[main_label])} over working links "
                f"({shown}); connect their NICs to the fabric",
                tuple(cut_off),
            ))
    for i in np.flatnonzero(degree == 0):
        out.append(Finding(WARNING, "unconnected", f"{ids[i]}: has no links; connect it or delete it", (ids[i],)))
    for i in range(n):
        if kinds[i] == "nic" and degree[i] and not (pcie_peers.get(i, set()) & {"gpu", "storage"}):
            out.append(Finding(
                WARNING, "nic-without-gpu",
                f"{ids[i]}: NIC has no PCIe link to a GPU; link its pcie port to the GPU it serves",
                (ids[i],),
            ))


def check_design(design: Design, catalog: Catalog | None = None) -> list[Finding]:
    """All design-rule findings, errors first, then warnings, each group in design order.

    Examples
    --------
    >>> from designer.model import Design, Device, Link, PortGroup
    >>> d = Design()
    >>> _ = d.add_device(Device("a", "switch", (PortGroup("p", 2, 400.0),)))
    >>> _ = d.add_device(Device("b", "switch", (PortGroup("p", 2, 200.0),)))
    >>> _ = d.add_link(Link("l1", "a", "p1", "b", "p1", medium="passive_copper", length_m=1))
    >>> [f.code for f in check_design(d)]
    ['speed-mismatch']
    """
    if catalog is None:
        catalog = default_catalog()
    out: list[Finding] = []
    _check_devices(design, catalog, out)
    _check_links(design, catalog, out)
    _check_connectivity(design, out)
    rank = {ERROR: 0, WARNING: 1}
    return sorted(out, key=lambda f: rank.get(f.severity, 2))


def findings_by_item(findings: list[Finding]) -> tuple[dict[str, list[Finding]], dict[str, list[Finding]]]:
    """Index findings by device id and by link id (for marking items on the canvas)."""
    by_dev: dict[str, list[Finding]] = defaultdict(list)
    by_link: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        for d in f.devices:
            by_dev[d].append(f)
        for lk in f.links:
            by_link[lk].append(f)
    return dict(by_dev), dict(by_link)


__all__ = ["ERROR", "WARNING", "Finding", "check_design", "findings_by_item", "link_rate_gbps"]
