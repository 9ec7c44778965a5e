"""Design rules: problems a network architect would catch in review, found automatically.

Each finding names the devices and links involved and says what to do. ``validate`` is the
gate: whatever ``analyze`` would leave out or ``bom`` would count at $0 or guess is reported here
first, in the same words (the shared checks are in :mod:`designer.analysis.common.findings`:
:func:`catalog_gaps`, :func:`not_in_catalog`, :func:`is_zero_capacity` with :data:`ZERO_CAPACITY`, and
:data:`ZERO_LENGTH`). The rules (docs/design-rules.md explains each; the whole-fabric ones are in
:mod:`designer.analysis.rules.fabric_shape`, those on what an imported fabric's discovery recorded in
:mod:`designer.analysis.rules.discovered`):

- ``unknown-model`` (error): a device's ``model`` is not in the catalog.
- ``unknown-cable`` (error): a link's ``cable`` is not in the catalog.
- ``out-of-range`` (error): a port speed or link length outside the ranges a design file holds to.
- ``zero-capacity`` (error): a link's rate (its slower port, or its cable) is under 1 Mb/s.
- ``zero-length`` (warning): a network cable (not an NVLink/PCIe board connection) is 0 m long.
- ``no-transceiver`` (warning): an optical link's cable names no transceiver in the catalog.
- ``model-ports`` (error): a device has more ports (or faster ports) than its catalog model offers, as listed or
  broken out a way the catalog allows (``specs.breakout``), or, for NVLink, split into one port per direct link.
- ``nic-host-bottleneck`` (warning): a NIC's network rate exceeds what its PCIe host link carries.
- ``medium-port-kind`` (error): a link's medium does not fit its ports (NVLink medium on a network port...).
- ``speed-mismatch`` (warning): the two ends of a link run at different speeds.
- ``cable-rate`` (warning): the cable is slower than the ports it joins.
- ``cable-medium`` (warning): the link's medium and its cable's medium differ.
- ``reach`` (error): a copper (or optical) link is longer than its cable can reach.
- ``gpu-unreachable`` (error): the GPUs split into islands that cannot reach each other over working links.
- ``duplicate-link`` (warning): two links join the same pair of devices where one is a GPU, NIC or storage node
  (not NVLink links between two GPUs, which may run in parallel).
- ``nic-without-gpu`` (warning): a NIC has no PCIe link to a GPU (or storage node).
- ``unconnected`` (warning): a device has no link at all.
- ``mixed-cage`` (error): a twin-port cage holds two media or two optical modules (one cage takes one module).
- ``unpriced`` (warning): a custom device with no catalog model and no power/price of its own.
- ``no-cable`` (warning): a network link with no cable chosen.
- ``tier-skip`` (warning): a NIC or GPU cabled straight to a spine or core switch, skipping the leaf
  tier, or a switch cabled to a switch two tiers up, skipping the tier between (when the design has it).
- ``rail-misaligned`` (warning): in a rail-optimized fabric, GPU i's NIC is cabled to a leaf of
  another rail (or of another scalable unit) than its own.
"""

from __future__ import annotations

from collections import defaultdict

from designer.analysis.common import constants as K
from designer.analysis.common.cages import mixed_cages
from designer.analysis.common.findings import (
    ERROR,
    UNKNOWN_MODEL_PRICE,
    UNPRICED,
    WARNING,
    ZERO_CAPACITY,
    Finding,
    is_uncabled,
    is_unpriced_device,
    is_zero_capacity,
    unknown_id,
    zero_length_message,
)
from designer.analysis.rules.discovered import check_measured
from designer.analysis.rules.fabric_shape import check_connectivity, check_fabric_shape
from designer.model import BOARD_MEDIA, Design, Link, PortSpec
from designer.model.catalog import Catalog, Component, builtin_catalog, line_rate_gbps
from designer.model.entities import MAX_LINK_LENGTH_M, MAX_PORT_GBPS, MIN_PORT_GBPS
from designer.model.units import duration, line_rate


def _out_of_range_port(ports: tuple) -> list[str]:
    out = []
    for g in ports:
        if not MIN_PORT_GBPS <= g.speed_gbps <= MAX_PORT_GBPS:
            out.append(f"port group {g.prefix} runs at {line_rate(g.speed_gbps)}, outside "
                       f"{line_rate(MIN_PORT_GBPS)} .. {line_rate(MAX_PORT_GBPS)}: a design file with it cannot be "
                       "read back; set a real port speed")
    return out


def _max_reach(catalog: Catalog, medium: str, rate_gbps: float) -> float | None:
    reaches = [c.reach_m for c in catalog.cables.values() if c.medium == medium and c.rate_gbps >= rate_gbps - 1e-9]
    return max(reaches) if reaches else None


def _model_problems(ports: tuple, comp: Component) -> list[str]:
    """What is wrong with a device's ports against its catalog model (messages without the id).

    A device whose network ports are the model's broken out a way the catalog lists
    (``specs.breakout``: an 800G port as 2 x 400G...) fits the model, and so does a GPU whose
    NVLink links are split into one port per peer (a mesh, a bridge, a cube-mesh: at most the
    model's ``scale_up_links`` ports, each a share of its NVLink rate, ``Component.split_scale_up``).
    """
    out = _port_budget_problems(ports, comp)
    if out:
        for n in comp.breakouts:
            if not _port_budget_problems(ports, comp.broken_out(n)):
                return []
        nvl = sum(g.count for g in ports if g.kind == "nvlink")
        per_port = sum(g.count for g in comp.ports if g.kind == "nvlink")
        if per_port and nvl % per_port == 0 and 1 < nvl // per_port <= comp.scale_up_links \
                and not _port_budget_problems(ports, comp.split_scale_up(nvl // per_port)):
            return []
    return out


def _port_budget_problems(ports: tuple, comp: Component) -> list[str]:
    out = []
    for kind in ("network", "nvlink", "pcie"):
        have = sum(g.count for g in ports if g.kind == kind)
        budget = sum(g.count for g in comp.ports if g.kind == kind)
        if have > budget:
            out.append(f"has {have} {kind} ports but model {comp.id} has {budget}; "
                       "use a larger model or move links to another device")
        fastest = max((g.speed_gbps for g in ports if g.kind == kind), default=0.0)
        limit = max((g.speed_gbps for g in comp.ports if g.kind == kind), default=0.0)
        if have and budget and fastest > limit + 1e-9:
            out.append(f"a {kind} port runs at {line_rate(fastest)} but model {comp.id} tops out at "
                       f"{line_rate(limit)}; pick a faster model or slow the port down")
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
            elif dev.model:
                problems.append((ERROR, "unknown-model",
                                 f"{unknown_id('model', dev.model)}: "
                                 "analysis falls back to its port speeds and default latencies and the bill of "
                                 f"materials {UNKNOWN_MODEL_PRICE}; fix the model id or add the model to the user "
                                 "catalog"))
            problems += [(ERROR, "out-of-range", m) for m in _out_of_range_port(dev.ports)]
            if dev.kind == "nic":
                net = sum(g.count * g.speed_gbps for g in dev.ports if g.kind == "network")
                host = sum(g.count * g.speed_gbps for g in dev.ports if g.kind == "pcie")
                if host and net > host * 1.0001:
                    problems.append((
                        WARNING, "nic-host-bottleneck",
                        f"network ports total {line_rate(net)} but the PCIe host link carries {line_rate(host)}; "
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
    board = link.medium if link.medium in BOARD_MEDIA else None
    kinds = {pa.kind, pb.kind}
    if board is not None and kinds != {board}:
        problems.append((ERROR, "medium-port-kind",
                         f"medium {link.medium} joins a {pa.kind} port ({link.a}) to a {pb.kind} port ({link.b}); "
                         f"connect {board} ports to {board} ports"))
    elif board is None and kinds != {"network"}:
        problems.append((ERROR, "medium-port-kind",
                         f"a {link.medium} cable joins a {pa.kind} port ({link.a}) to a {pb.kind} port ({link.b}); "
                         "cables join network ports: use medium nvlink or pcie for board connections"))
    cable = catalog.cables.get(link.cable) if link.cable else None
    if link.cable and cable is None:
        problems.append((ERROR, "unknown-cable",
                         f"{unknown_id('cable', link.cable)}: analysis falls back to the port speeds and "
                         f"{duration(K.CABLE_LATENCY_S_PER_M)}/m and the bill of materials counts it at 0 W, $0; "
                         "fix the cable id or add the cable to the user catalog"))
    rate = line_rate_gbps(pa.speed_gbps, pb.speed_gbps, cable)
    zero = is_zero_capacity(rate)
    if zero:
        slow = [f"{end} runs at {line_rate(p.speed_gbps)}" for end, p in ((link.a, pa), (link.b, pb))
                if is_zero_capacity(p.speed_gbps)]
        if cable is not None and is_zero_capacity(cable.rate_gbps):
            slow.append(f"cable {cable.id} carries {line_rate(cable.rate_gbps)}")
        problems.append((ERROR, "zero-capacity",
                         f"{ZERO_CAPACITY}: {' and '.join(slow)}, under the {line_rate(K.MIN_LINK_GBPS)} the "
                         "analysis needs, so it leaves the link out; give its ports and cable a real rate"))
    if abs(pa.speed_gbps - pb.speed_gbps) > 1e-9:
        problems.append((WARNING, "speed-mismatch",
                         f"{link.a} runs at {line_rate(pa.speed_gbps)} but {link.b} at {line_rate(pb.speed_gbps)}; "
                         f"the link will run at {line_rate(min(pa.speed_gbps, pb.speed_gbps))}: match the port speeds"))
    port_rate = min(pa.speed_gbps, pb.speed_gbps)
    if cable is not None and board is None:
        if cable.rate_gbps < port_rate - 1e-9 and not zero:
            problems.append((WARNING, "cable-rate",
                             f"cable {cable.id} carries {line_rate(cable.rate_gbps)}, slower than its "
                             f"{line_rate(port_rate)} ports; choose a {port_rate:g}G cable"))
        if cable.medium != link.medium:
            problems.append((WARNING, "cable-medium",
                             f"medium is {link.medium} but cable {cable.id} is {cable.medium}; "
                             "make them agree (the medium sets latency and reach)"))
        elif link.medium == "optical" and (cable.transceiver is None or cable.transceiver not in catalog.transceivers):
            module = f"names transceiver {cable.transceiver!r}, which is not in the catalog" if cable.transceiver \
                else "names no transceiver"
            problems.append((WARNING, "no-transceiver",
                             f"cable {cable.id} {module}: 2 optical link ends have no catalog transceiver, "
                             "and the bill of materials does not count them; give the cable a catalog transceiver"))
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
        if link.length_m > MAX_LINK_LENGTH_M:
            out.append(Finding(
                ERROR, "out-of-range",
                f"{link.id}: length {link.length_m:g} m is outside 0 .. {MAX_LINK_LENGTH_M:g} m: a design file "
                "with it cannot be read back; set the real length", ends, (link.id,),
            ))
        elif link.length_m == 0 and link.medium not in BOARD_MEDIA:
            out.append(Finding(WARNING, "zero-length", f"{link.id}: {zero_length_message(link, catalog)}",
                               ends, (link.id,)))
        if reach is not None and link.length_m > reach + 1e-9:
            fix = "use active copper, AOC or optics" if link.medium == "passive_copper" else (
                "use AOC or optics" if link.medium == "active_copper" else "use a longer-reach optic")
            out.append(Finding(
                ERROR, "reach", f"{link.id}: {link.length_m:g} m is beyond the {reach:g} m reach of {what}; {fix}",
                ends, (link.id,),
            ))
        # Parallel NVLink links between two GPUs are real (nvidia-smi's NV2, NV4...: the DGX-1 cube-mesh).
        if not (da.kind in switching and db.kind in switching) and not (
                link.medium == "nvlink" and da.kind == "gpu" and db.kind == "gpu"):
            pairs[(min(ends), max(ends))].append(link.id)
    for (a, b), ids in pairs.items():
        if len(ids) > 1:
            out.append(Finding(
                WARNING, "duplicate-link",
                f"{a} and {b} are joined by {len(ids)} links ({', '.join(ids[:4])}{'...' if len(ids) > 4 else ''}); "
                "an endpoint normally takes one link per peer: remove the extra links",
                (a, b), tuple(ids),
            ))


def _check_unpriced(design: Design, out: list[Finding]) -> None:
    for dev in design.iter_devices():
        if is_unpriced_device(dev):
            out.append(Finding(WARNING, "unpriced", (
                f"{dev.id}: custom {dev.kind} with no catalog model and no power_w/price_usd: the bill of "
                f"materials {UNPRICED}; choose a catalog model, or give it power_w and price_usd properties"),
                (dev.id,)))
    for link in design.iter_links():
        if is_uncabled(link):
            out.append(Finding(WARNING, "no-cable", (
                f"{link.id}: no cable chosen: the bill of materials {UNPRICED}; choose a cable (the inspector "
                "lists those that fit)"), (link.a_device, link.b_device), (link.id,)))


def _check_cages(design: Design, catalog: Catalog, out: list[Finding]) -> None:
    for m in mixed_cages(design, catalog):
        out.append(Finding(ERROR, "mixed-cage", m.message, (m.device,), m.links))


def check_design(design: Design, catalog: Catalog | None = None) -> list[Finding]:
    """All design-rule findings, errors first, then warnings, each group in design order.

    Examples
    --------
    >>> from designer.model import Design, Device, Link, PortGroup
    >>> d = Design()
    >>> _ = d.add_device(Device("a", "switch", (PortGroup("p", 2, 400.0),), model="qm9700"))
    >>> _ = d.add_device(Device("b", "switch", (PortGroup("p", 2, 200.0),), model="qm8700"))
    >>> _ = d.add_link(Link("l1", "a", "p1", "b", "p1", medium="passive_copper", length_m=1, cable="hdr-dac-200g"))
    >>> [f.code for f in check_design(d)]
    ['speed-mismatch']
    """
    if catalog is None:
        catalog = builtin_catalog()
    out: list[Finding] = []
    _check_devices(design, catalog, out)
    _check_links(design, catalog, out)
    check_fabric_shape(design, out)
    _check_cages(design, catalog, out)
    _check_unpriced(design, out)
    check_connectivity(design, out)

    check_measured(design, out)
    rank = {ERROR: 0, WARNING: 1}
    return sorted(out, key=lambda f: rank.get(f.severity, 2))


