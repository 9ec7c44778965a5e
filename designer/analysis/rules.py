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

from designer.model import Design, Link
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


def _check_models(design: Design, catalog: Catalog, out: list[Finding]) -> None:
    for dev in design.iter_devices():
        comp = catalog.components.get(dev.model) if dev.model else None
        if comp is None:
            continue
        for kind in ("network", "nvlink", "pcie"):
            have = sum(g.count for g in dev.ports if g.kind == kind)
            budget = sum(g.count for g in comp.ports if g.kind == kind)
            if have > budget:
                out.append(Finding(
                    ERROR, "model-ports",
                    f"{dev.id}: has {have} {kind} ports but model {comp.id} has {budget}; "
                    "use a larger model or move links to another device",
                    (dev.id,),
                ))
            fastest = max((g.speed_gbps for g in dev.ports if g.kind == kind), default=0.0)
            limit = max((g.speed_gbps for g in comp.ports if g.kind == kind), default=0.0)
            if have and budget and fastest > limit + 1e-9:
                out.append(Finding(
                    ERROR, "model-ports",
                    f"{dev.id}: a {kind} port runs at {fastest:g} Gb/s but model {comp.id} tops out at "
                    f"{limit:g} Gb/s; pick a faster model or slow the port down",
                    (dev.id,),
                ))


def _check_nic_host(design: Design, out: list[Finding]) -> None:
    for dev in design.iter_devices():
        if dev.kind != "nic":
            continue
        net = sum(g.count * g.speed_gbps for g in dev.ports if g.kind == "network")
        host = sum(g.count * g.speed_gbps for g in dev.ports if g.kind == "pcie")
        if host and net > host * 1.0001:
            out.append(Finding(
                WARNING, "nic-host-bottleneck",
                f"{dev.id}: network ports total {net:g} Gb/s but the PCIe host link carries {host:g} Gb/s; "
                "the NIC cannot run at line rate: use a faster PCIe generation or fewer/slower ports",
                (dev.id,),
            ))


def _check_links(design: Design, catalog: Catalog, out: list[Finding]) -> None:
    reach_cache: dict[tuple[str, float], float | None] = {}
    pairs: dict[tuple[str, str], list[str]] = defaultdict(list)
    devices = {d.id: d for d in design.iter_devices()}
    for link in design.iter_links():
        da, db = devices[link.a_device], devices[link.b_device]
        pa, pb = da.port(link.a_port), db.port(link.b_port)
        assert pa is not None and pb is not None  # guaranteed by the model
        ends = (link.a_device, link.b_device)
        # Medium against port kinds.
        board = _BOARD_MEDIA.get(link.medium)
        kinds = {pa.kind, pb.kind}
        if board is not None and kinds != {board}:
            out.append(Finding(
                ERROR, "medium-port-kind",
                f"{link.id}: medium {link.medium} joins a {pa.kind} port ({link.a}) to a {pb.kind} port ({link.b}); "
                f"connect {board} ports to {board} ports",
                ends, (link.id,),
            ))
        elif board is None and kinds != {"network"}:
            out.append(Finding(
                ERROR, "medium-port-kind",
                f"{link.id}: a {link.medium} cable joins a {pa.kind} port ({link.a}) to a {pb.kind} port ({link.b}); "
                "cables join network ports: use medium nvlink or pcie for board connections",
                ends, (link.id,),
            ))
        if abs(pa.speed_gbps - pb.speed_gbps) > 1e-9:
            out.append(Finding(
                WARNING, "speed-mismatch",
                f"{link.id}: {link.a} runs at {pa.speed_gbps:g} Gb/s but {link.b} at {pb.speed_gbps:g} Gb/s; "
                f"the link will run at {min(pa.speed_gbps, pb.speed_gbps):g} Gb/s: match the port speeds",
                ends, (link.id,),
            ))
        port_rate = min(pa.speed_gbps, pb.speed_gbps)
        cable = catalog.cables.get(link.cable) if link.cable else None
        if cable is not None and board is None:
            if cable.rate_gbps < port_rate - 1e-9:
                out.append(Finding(
                    WARNING, "cable-rate",
                    f"{link.id}: cable {cable.id} carries {cable.rate_gbps:g} Gb/s, slower than its "
                    f"{port_rate:g} Gb/s ports; choose a {port_rate:g}G cable",
                    ends, (link.id,),
                ))
            if cable.medium != link.medium:
                out.append(Finding(
                    WARNING, "cable-medium",
                    f"{link.id}: medium is {link.medium} but cable {cable.id} is {cable.medium}; "
                    "make them agree (the medium sets latency and reach)",
                    ends, (link.id,),
                ))
        if board is None:
            if cable is not None and cable.medium == link.medium:
                reach = cable.reach_m
                what = f"cable {cable.id}"
            else:
                key = (link.medium, port_rate)
                if key not in reach_cache:
                    reach_cache[key] = _max_reach(catalog, link.medium, port_rate)
                reach = reach_cache[key]
                what = f"any {port_rate:g}G {link.medium.replace('_', ' ')} cable in the catalog"
            if reach is not None and link.length_m > reach + 1e-9:
                fix = "use active copper, AOC or optics" if link.medium == "passive_copper" else (
                    "use AOC or optics" if link.medium == "active_copper" else "use a longer-reach optic")
                out.append(Finding(
                    ERROR, "reach",
                    f"{link.id}: {link.length_m:g} m is beyond the {reach:g} m reach of {what}; {fix}",
                    ends, (link.id,),
                ))
        kinds_ab = (da.kind, db.kind)
        if not all(k in ("switch", "nvswitch") for k in kinds_ab):
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
    parent: dict[str, str] = {d.id: d.id for d in design.iter_devices()}

    def find(x: str) -> str:
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    degree: dict[str, int] = defaultdict(int)
    pcie_peers: dict[str, set[str]] = defaultdict(set)
    kinds = {d.id: d.kind for d in design.iter_devices()}
    for link in design.iter_links():
        degree[link.a_device] += 1
        degree[link.b_device] += 1
        if link.medium == "pcie":
            pcie_peers[link.a_device].add(kinds[link.b_device])
            pcie_peers[link.b_device].add(kinds[link.a_device])
        if link.failed:
            continue
        ra, rb = find(link.a_device), find(link.b_device)
        if ra != rb:
            parent[ra] = rb
    gpus = [d.id for d in design.iter_devices() if d.kind == "gpu"]
    if len(gpus) > 1:
        comps: dict[str, list[str]] = defaultdict(list)
        for g in gpus:
            comps[find(g)].append(g)
        if len(comps) > 1:
            main_root = max(comps, key=lambda r: len(comps[r]))
            cut_off = sorted((g for r, gs in comps.items() if r != main_root for g in gs))
            shown = ", ".join(cut_off[:6]) + ("..." if len(cut_off) > 6 else "")
            out.append(Finding(
                ERROR, "gpu-unreachable",
                f"{len(cut_off)} GPU(s) have no path to the other {len(comps[main_root])} over working links "
                f"({shown}); connect their NICs to the fabric",
                tuple(cut_off),
            ))
    for dev in design.iter_devices():
        if degree[dev.id] == 0:
            out.append(Finding(
                WARNING, "unconnected",
                f"{dev.id}: has no links; connect it or delete it", (dev.id,),
            ))
        elif dev.kind == "nic" and not (pcie_peers[dev.id] & {"gpu", "storage"}):
            out.append(Finding(
                WARNING, "nic-without-gpu",
                f"{dev.id}: NIC has no PCIe link to a GPU; link its pcie port to the GPU it serves",
                (dev.id,),
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
    _check_models(design, catalog, out)
    _check_nic_host(design, out)
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
