"""Port counters on the design: bytes/s per port and direction, mapped to links; links whose error
counters grew or that run below their rate.

Two samples of a port give rates: (after - before) / seconds between them (the samples' own time stamps,
else the interval the user gives). One sample is read as the counts since the counters were last reset,
over the interval given. A counter narrower than 64 bits that reads its maximum has saturated (InfiniBand
PortCounters stop there instead of wrapping): its rate is a lower bound and a note says so; a 64-bit counter
that went down was reset between the samples and is left out. Ports map to links by GUID and port number
(an imported design keeps each node's GUID in ``properties.guid``) or by device name or id and port number
(``p<N>``); GPU samples of dcgm-exporter map by host (a server group named after it) and GPU index to the
GPU's NVLink and PCIe links; node_exporter's RDMA devices by host and device order to the server's NICs.
What maps to nothing is listed, never dropped silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from designer.analysis.common.errors import AnalysisError
from designer.analysis.common.findings import WARNING, Finding
from designer.analysis.measured.runs import PortCounters
from designer.model import Design
from designer.model.catalog import Catalog, link_rate_gbps
from designer.model.units import count, duration, line_rate, rate

#: Counters that say a link is unhealthy when they grow (names of :mod:`designer.io.measured.counters`).
ERROR_WORDS = {"symbol_errors": "symbol error", "link_error_recovery": "link error recovery",
               "link_downed": "link down", "rcv_errors": "receive error",
               "rcv_remote_physical_errors": "remote physical error", "xmit_discards": "discarded packet",
               "local_link_integrity_errors": "link integrity error",
               "excessive_buffer_overrun_errors": "buffer overrun", "local_physical_errors": "physical error",
               "malformed_packet_errors": "malformed packet", "nvlink_crc_errors": "NVLink CRC error",
               "nvlink_replays": "NVLink replay", "nvlink_recoveries": "NVLink recovery"}
_RATES = (("xmit_data", "rcv_data", ""), ("nvlink_xmit_rate", "nvlink_rcv_rate", "nvlink"),
          ("pcie_xmit_rate", "pcie_rcv_rate", "pcie"))


@dataclass(frozen=True)
class PortUse:
    """One port (or one GPU's NVLink or PCIe side): bytes/s sent and received, error growth, the link."""

    node: str
    port: int | None
    node_name: str
    medium: str
    xmit_bytes_per_s: float | None
    rcv_bytes_per_s: float | None
    errors: dict[str, float] = field(default_factory=dict)
    saturated: tuple[str, ...] = ()
    reported_rate_bytes_per_s: float | None = None
    device: str | None = None
    link: str | None = None
    #: PortXmitWait growth per second, in the port's own ticks (the device sets a tick's length):
    #: time the port had data to send and could not, a sign of congestion downstream.
    xmit_wait_per_s: float | None = None


@dataclass(frozen=True)
class LinkUse:
    """A design link as measured: bytes/s each way (a -> b, b -> a), utilisation of its line rate."""

    link: str
    a_to_b: float | None
    b_to_a: float | None
    line_bytes_per_s: float
    errors: dict[str, float]

    @property
    def utilisation(self) -> float:
        vals = [v for v in (self.a_to_b, self.b_to_a) if v is not None]
        return max(vals) / self.line_bytes_per_s if vals and self.line_bytes_per_s > 0 else 0.0


@dataclass(frozen=True)
class MeasuredFabric:
    """Port counters held against a design: each port, each mapped link, what did not map, findings."""

    ports: tuple[PortUse, ...]
    links: dict[str, LinkUse]
    unmapped: tuple[str, ...]
    seconds: float | None
    findings: tuple[Finding, ...]
    notes: tuple[str, ...]


def _delta(name: str, b: PortCounters | None, a: PortCounters, notes: list[str]) -> float | None:
    """The growth of counter ``name`` (its value when there is no earlier sample); None when unknown."""
    if name not in a.values:
        return None
    after = a.values[name]
    bits = a.widths.get(name, 64)
    # Data counters are kept in bytes; the device counts 4-byte words (counters.DATA_WORD_BYTES).
    raw = after / 4 if name in ("xmit_data", "rcv_data") else after
    if bits < 64 and raw >= (1 << bits) - 1:
        notes.append(f"{a.node} port {a.port}: {name} reads its {bits}-bit maximum (saturated): its growth is a "
                     "lower bound (read the extended counters, perfquery -x)")
    if b is None:
        return after
    before = b.values.get(name)
    if before is None:
        return None
    if after < before:
        notes.append(f"{a.node} port {a.port}: {name} went down between the samples (reset): left out")
        return None
    return after - before


def port_uses(after: list[PortCounters], before: list[PortCounters] | None = None,
              seconds: float | None = None) -> tuple[list[PortUse], float | None, list[str]]:
    """Rates and error growth per port (see the module docstring); (ports, seconds used, notes)."""
    notes: list[str] = []
    prev = {(c.node, c.port): c for c in before} if before is not None else None
    if prev is not None and seconds is None:
        stamps = [(prev[(c.node, c.port)].time_s, c.time_s) for c in after if (c.node, c.port) in prev]
        spans = {round(t1 - t0, 3) for t0, t1 in stamps if t0 is not None and t1 is not None}
        if spans:
            seconds = max(spans)
    needs_time = any(k in c.values for c in after for k in ("xmit_data", "rcv_data"))
    if needs_time and (seconds is None or seconds <= 0):
        raise AnalysisError("the counter samples carry no time: give --interval, the seconds between the two "
                            "samples (or, for one sample, since the counters were reset)")
    out = []
    for c in after:
        b = prev.get((c.node, c.port)) if prev is not None else None
        if prev is not None and b is None:
            notes.append(f"{c.node} port {c.port}: in the second sample only: left out")
            continue
        errs = {k: d for k in ERROR_WORDS if (d := _delta(k, b, c, notes)) is not None and d > 0}
        sat = tuple(n[len(c.node):] for n in notes if n.startswith(c.node) and "saturated" in n)
        for tx, rx, medium in _RATES:
            if tx not in c.values and rx not in c.values:
                continue
            if medium:  # dcgm-exporter: already rates
                xs, rs = c.values.get(tx), c.values.get(rx)
            else:
                dt, dr = _delta(tx, b, c, notes), _delta(rx, b, c, notes)
                xs = dt / seconds if dt is not None and seconds else None
                rs = dr / seconds if dr is not None and seconds else None
            wait = _delta("xmit_wait", b, c, notes) if not medium else None
            # NVLink error counters belong to the GPU's NVLink side only.
            own = {k: v for k, v in errs.items() if k.startswith("nvlink_") == (medium == "nvlink")}
            out.append(PortUse(c.node, c.port, c.node_name, medium, xs, rs, own, sat,
                               c.values.get("rate_bytes_per_s"),
                               xmit_wait_per_s=wait / seconds if wait is not None and seconds else None))
        if not any(tx in c.values or rx in c.values for tx, rx, _ in _RATES) and errs:
            out.append(PortUse(c.node, c.port, c.node_name, "", None, None, errs, sat))
    return out, seconds, notes


def _guid_key(text: str) -> str:
    hexes = re.sub(r"[^0-9a-f]", "", text.lower().removeprefix("0x"))
    return hexes[-16:].zfill(16) if hexes else ""


def _device_index(design: Design) -> tuple[dict[str, str], dict[str, str]]:
    guids: dict[str, str] = {}
    names: dict[str, str] = {}
    for d in design.iter_devices():
        g = d.properties.get("guid")
        if isinstance(g, str) and re.search(r"[0-9a-fA-F]{16}", g):
            guids[_guid_key(re.search(r"[0-9a-fA-F]{16}", g).group(0))] = d.id
        names.setdefault(d.id.lower(), d.id)
        desc = d.properties.get("description")
        for key in (d.name, desc if isinstance(desc, str) else ""):
            if key:
                names.setdefault(key.lower(), d.id)
    return guids, names


def _server_devices(design: Design, host: str, kind: str) -> list[str]:
    """The ``kind`` devices of the server named after ``host`` (a server group, or ids ``host-...``)."""
    key = host.lower()
    found = [d.id for g in design.groups if g.kind == "server" and key in (g.id.lower(), g.name.lower())
             for d in design.all_members(g.id) if d.kind == kind]
    return found or [d.id for d in design.iter_devices() if d.kind == kind and d.id.lower().startswith(key + "-")]


def _natural(name: str) -> tuple:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name))


def _nic_order(uses: list[PortUse]) -> dict[str, int]:
    """node_exporter's RDMA devices of each host, numbered in name order (mlx5_0, mlx5_1, ... mlx5_10)."""
    by_host: dict[str, set[str]] = {}
    for u in uses:
        if u.node.startswith("nic:"):
            _, host, dev = u.node.split(":", 2)
            by_host.setdefault(host, set()).add(dev)
    return {f"nic:{h}:{d}": i for h, devs in by_host.items() for i, d in enumerate(sorted(devs, key=_natural))}


def _map_nic(design: Design, u: PortUse, k: int, unmapped: list[str]) -> PortUse:
    """A node_exporter port: the ``k``-th NIC of the host's server, its link at that port."""
    _, host, rdma = u.node.split(":", 2)
    where = f"{host} {rdma} port {u.port}"
    nics = _server_devices(design, host, "nic")
    dev = nics[k] if k < len(nics) else None
    link = None
    if dev is not None:
        link = design.link_at(dev, f"p{u.port}") or next(
            (x for x in design.links_of(dev) if x.medium not in ("pcie", "nvlink")), None)
    if not nics:
        unmapped.append(f"{where}: no server of the design is named after this host")
    elif dev is None:
        unmapped.append(f"{where}: its server has {len(nics)} NICs, fewer than this host's RDMA devices")
    elif link is None:
        unmapped.append(f"{where}: {dev} has no network link")
    return PortUse(**{**u.__dict__, "device": dev, "link": link.id if link is not None else None})


def _gpu_of(design: Design, node: str) -> str | None:
    _, host, idx = node.split(":", 2)
    gpus = _server_devices(design, host, "gpu")
    try:
        i = int(idx)
    except ValueError:
        return None
    return gpus[i] if 0 <= i < len(gpus) else None


def map_ports(design: Design, uses: list[PortUse], catalog: Catalog | None = None, seconds: float | None = None,
              notes: list[str] | None = None) -> MeasuredFabric:
    """Each port's link in ``design`` (by GUID, name, or host and GPU index), the measured use of each link,
    what maps to nothing, and the findings: error counters that grew, ports reported below their link's rate."""
    guids, names = _device_index(design)
    mapped: list[PortUse] = []
    unmapped: list[str] = []
    nic_index = _nic_order(uses)
    notes = list(notes or ())
    if nic_index:
        notes.append("node_exporter names RDMA devices, not NICs: a host's k-th device in name order (mlx5_0, "
                     "mlx5_1, ...) is taken as its server's k-th NIC in design order")
    for u in uses:
        where = f"{u.node_name or u.node}" + (f" port {u.port}" if u.port is not None else "")
        if u.node.startswith("nic:"):
            mapped.append(_map_nic(design, u, nic_index[u.node], unmapped))
            continue
        if u.node.startswith("gpu:"):
            dev = _gpu_of(design, u.node)
            port_kind = "nvlink" if u.medium == "nvlink" else "pcie"
            link = None
            if dev is not None:
                link = next((x for x in design.links_of(dev) if x.medium == port_kind), None)
        else:
            dev = guids.get(_guid_key(u.node)) if u.node.startswith("0x") else None
            dev = dev or names.get(u.node_name.lower()) or names.get(u.node.lower())
            link = design.link_at(dev, f"p{u.port}") if dev is not None and u.port is not None else None
        if dev is None:
            unmapped.append(f"{where}: no device of the design has this GUID or name")
        elif link is None:
            unmapped.append(f"{where}: {dev} has no link at {'its ' + u.medium if u.medium else f'p{u.port}'}")
        mapped.append(PortUse(**{**u.__dict__, "device": dev, "link": link.id if link is not None else None}))
    links: dict[str, LinkUse] = {}
    for u in mapped:
        if u.link is None:
            continue
        lk = design.link(u.link)
        forward = u.device == lk.a_device
        have = links.get(u.link)
        a_to_b = u.xmit_bytes_per_s if forward else u.rcv_bytes_per_s
        b_to_a = u.rcv_bytes_per_s if forward else u.xmit_bytes_per_s
        errors = dict(have.errors) if have else {}
        for k, v in u.errors.items():
            errors[k] = errors.get(k, 0.0) + v
        if have is not None:
            a_to_b = max((v for v in (a_to_b, have.a_to_b) if v is not None), default=None)
            b_to_a = max((v for v in (b_to_a, have.b_to_a) if v is not None), default=None)
        line = link_rate_gbps(design, lk, catalog) * 1e9 / 8
        links[u.link] = LinkUse(u.link, a_to_b, b_to_a, line, errors)
    findings = _findings(design, mapped, links, seconds)
    return MeasuredFabric(tuple(mapped), links, tuple(unmapped), seconds, tuple(findings), tuple(notes))


def _findings(design: Design, ports: list[PortUse], links: dict[str, LinkUse], seconds: float | None) -> list[Finding]:
    out: list[Finding] = []
    span = f" in {duration(seconds)}" if seconds else " since the counters were reset"
    for lid, use in links.items():
        if not use.errors:
            continue
        lk = design.link(lid)
        what = ", ".join(count(int(v), ERROR_WORDS[k]) for k, v in sorted(use.errors.items()))
        out.append(Finding(WARNING, "measured-link-errors", (
            f"{lid}: {what}{span}: a failing cable, transceiver or port; reseat or replace it, and fail it "
            "(whatif --fail) to see what losing it costs"), (lk.a_device, lk.b_device), (lid,)))
    for u in ports:
        if u.link is None or u.reported_rate_bytes_per_s is None:
            continue
        use = links[u.link]
        if u.reported_rate_bytes_per_s < use.line_bytes_per_s * (1 - 1e-6):
            lk = design.link(u.link)
            out.append(Finding(WARNING, "measured-below-rate", (
                f"{u.link}: {u.node_name or u.node} reports {rate(u.reported_rate_bytes_per_s)} "
                f"({line_rate(u.reported_rate_bytes_per_s * 8 / 1e9)}) where the design gives "
                f"{line_rate(use.line_bytes_per_s * 8 / 1e9)}: the port trained down or is cabled for less; fail it "
                "(whatif --fail) to see the design without it"), (lk.a_device, lk.b_device), (u.link,)))
    return out
