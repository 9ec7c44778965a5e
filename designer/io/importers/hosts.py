"""Hosts of an imported fabric as the servers they are: adapters grouped by host, GPUs and NVLink behind them.

A fabric dump lists host *adapters*: a DGX appears as eight (``dgx001 HCA-1`` .. ``HCA-8``, or
``dgx001 mlx5_0`` ..). :func:`host_of` names each adapter's host (a ``--hosts`` regular expression,
a ``--host-map``, the node description's ``<host> HCA-<n>`` / ``<host> mlx5_<n>`` form, or a bare
host name shared by several adapters). :func:`plan_hosts` then decides what stands behind the
hosts:

- the **GPU hosts** are the hosts with the fabric's most common adapter count (the compute nodes;
  management, UFM, storage and login hosts have other counts and keep their adapters alone);
- their **server**: ``--server-xml`` (an NCCL topology dump, the inside of one real server),
  ``--server MODEL`` (a GPU or NVLink-switch model of the catalog: an NVSwitch board of its GPUs),
  or, by default, the platform the adapters imply: 4 to 10 HDR adapters a host are a DGX A100-class
  board, NDR a DGX H100-class board (:data:`PLATFORM_BY_SPEED`), a guess the report names;
- without a server (other fabrics, one adapter a host and no ``--server``), each adapter gets
  ``--gpus-per-adapter`` GPUs over PCIe, as before.

No Qt, no generators (the files layer may not import them): the board is built here from the
catalog, in the generators' conventions (one ``nvswitch`` device per NVLink domain, each GPU's
``nvl1`` to it, each GPU's ``pcie1`` to the NIC nearest it).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from designer.io.importers.base import ImportFileError, ImportOptions, ImportReport, guid_key
from designer.model import Design, Device, Link
from designer.model.catalog import Catalog, Component, builtin_catalog
from designer.model.units import count

#: The GPU of the DGX that shipped with eight compute adapters of each InfiniBand generation.
#: HDR: DGX A100, "8x single-port NVIDIA ConnectX-6 VPI 200Gb/s HDR InfiniBand" with 8 A100 SXM4 on
#: six NVSwitches (NVIDIA DGX A100 datasheet, and the DGX A100 User Guide's network ports table);
#: NDR: DGX H100, "8x NVIDIA ConnectX-7 ... 400Gb/s InfiniBand" with 8 H100 SXM5 on four NVSwitches
#: (NVIDIA DGX H100 datasheet). Azure's NDv4 (A100 + 8 HDR) and NDv5 (H100 + 8 NDR) topology files
#: in tests/data/importers have the same pairing. Later NDR boards (H200, B200) have the same
#: adapters: ``--server`` names them.
PLATFORM_BY_SPEED = {"HDR": "a100-sxm", "NDR": "h100-sxm"}
#: Adapters a host that make it a GPU host of an 8-GPU board: one per GPU (4 on boards where two
#: GPUs share one, as ABCI's A100 nodes; up to 10 on DGX A100s whose two storage adapters are on
#: the same fabric). The adapters beyond the eighth serve no GPU.
BOARD_ADAPTERS = range(4, 11)

_HOST_SUFFIX = re.compile(r"^(\S+)\s+(?:HCA-\d+|mlx\d+_\d+|hfi\d+_\d+|qib\d+|ibp\S+|ib\d+)\s*$")
_BARE_HOST = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-]{0,62}$")
#: Descriptions that name a part, not a host (an adapter that was never given a node description).
_NOT_A_HOST = re.compile(r"(?i)mellanox|connectx|nvidia|aggregation|^mt\d|^h-[0-9a-f]+$")


def host_of(key: str, name: str, desc: str, options: ImportOptions) -> str:
    """The host an adapter belongs to, or ``""`` when nothing names one.

    ``key`` is its GUID name, ``name`` what a node-name map calls it, ``desc`` its node description.

    >>> o = ImportOptions()
    >>> host_of("H-1", "", "dgx001 HCA-3", o), host_of("H-2", "", "dgx001 mlx5_7", o), host_of("H-3", "", "dgx001", o)
    ('dgx001', 'dgx001', 'dgx001')
    >>> host_of("H-4", "", "MT25408 ConnectX Mellanox Technologies", o)
    ''
    """
    if options.host_map:
        hit = options.host_map.get(key) or options.host_map.get(guid_key(key)) or options.host_map.get(desc)
        if hit:
            return hit
    if options.hosts_regex:
        for text in (name, desc):
            m = re.search(options.hosts_regex, text) if text else None
            if m:
                return (m.groupdict().get("host") or (m.group(1) if m.groups() else m.group(0))).strip()
    for text in (name, desc):
        m = _HOST_SUFFIX.match(text or "")
        if m:
            return m.group(1)
    for text in (name, desc):
        if text and _BARE_HOST.match(text) and not _NOT_A_HOST.search(text):
            return text
    return ""


@dataclass
class ServerTemplate:
    """The inside of one server: GPUs and NVLink switches (ids relative: ``gpu1``, ``nvsw``), their
    NVLink links, and which of the server's NICs serves each GPU (0-based, in GPU order)."""

    title: str
    devices: list[Device]
    links: list[Link]
    nic_of_gpu: list[int]
    nics: int
    gpu_pcie_gbps: float
    guessed: bool = False

    @property
    def gpus(self) -> int:
        return len(self.nic_of_gpu)

    def stamp(self, host: str, group: str, adapters: int) -> tuple[list[Device], list[Link], list[list[str]]]:
        """Copies of the template's devices and links for ``host`` (ids ``<host>-gpu1``...), and per
        host adapter the GPU ids it serves (a template NIC beyond the host's adapters wraps round)."""
        devices = [Device(f"{host}-{d.id}", d.kind, d.ports, model=d.model, name=d.name, group=group,
                          properties=dict(d.properties)) for d in self.devices]
        links = [Link(f"{host}-{lk.id}", f"{host}-{lk.a_device}", lk.a_port, f"{host}-{lk.b_device}", lk.b_port,
                      medium=lk.medium, length_m=lk.length_m, cable=lk.cable, properties=dict(lk.properties))
                 for lk in self.links]
        gpu_ids = [d.id for d in devices if d.kind == "gpu"]
        served: list[list[str]] = [[] for _ in range(max(1, adapters))]
        if adapters:
            for gid, nic in zip(gpu_ids, self.nic_of_gpu, strict=True):
                served[nic % adapters].append(gid)
        return devices, links, served


def nvswitch_for(gpu: Component, catalog: Catalog) -> Component | None:
    """The catalog's NVLink switch fabric for ``gpu``: the one whose GPU ports run at the GPU's NVLink
    rate (an HGX board of the same generation), the 8-GPU board first."""
    rate = gpu.port_speed_gbps("nvlink")
    if not rate:
        return None
    cands = [c for c in catalog.by_kind("nvswitch") if abs(c.port_speed_gbps("nvlink") - rate) < 1e-6]
    return min(cands, key=lambda c: (c.specs.get("domain_gpus", 0) != 8, c.id)) if cands else None


def template_from_model(model: str, nics: int, catalog: Catalog | None = None, *, guessed: bool = False
                        ) -> ServerTemplate:
    """An NVSwitch board of a catalog model's GPUs (``model``: a GPU, or an NVLink switch fabric whose
    GPUs are found by their NVLink rate), with ``nics`` NICs sharing the GPUs evenly."""
    catalog = catalog or builtin_catalog()
    comp = catalog.components.get(model)
    if comp is None or comp.kind not in ("gpu", "nvswitch"):
        gpus = sorted(c.id for c in catalog.by_kind("gpu") if nvswitch_for(c, catalog))
        raise ImportFileError(f"server model {model!r}: not a GPU or NVLink switch model of the catalog (GPUs on an "
                              f"NVLink switch: {', '.join(gpus)})")
    if comp.kind == "gpu":
        gpu, fabric = comp, nvswitch_for(comp, catalog)
        if fabric is None:
            raise ImportFileError(f"server model {model!r}: the catalog has no NVLink switch for this GPU; "
                                  "give the server as an NCCL topology with --server-xml")
    else:
        fabric = comp
        rate = comp.port_speed_gbps("nvlink")
        matches = sorted((c for c in catalog.by_kind("gpu") if abs(c.port_speed_gbps("nvlink") - rate) < 1e-6),
                         key=lambda c: c.id)
        if not matches:
            raise ImportFileError(f"server model {model!r}: no GPU of the catalog runs NVLink at its port rate")
        gpu = matches[0]
    n = int(fabric.specs.get("domain_gpus") or sum(g.count for g in fabric.ports if g.kind == "nvlink"))
    scaleup = next(f"{g.prefix}1" for g in gpu.ports if g.kind == "nvlink")
    pcie = next((f"{g.prefix}1" for g in gpu.ports if g.kind == "pcie"), "")
    if not pcie:
        raise ImportFileError(f"server model {model!r}: GPU {gpu.id} has no PCIe port to reach its NIC")
    nvl = next(g.prefix for g in fabric.ports if g.kind == "nvlink")
    devices = [gpu.make_device(f"gpu{i}") for i in range(1, n + 1)] + [fabric.make_device("nvsw")]
    links = [Link(f"gpu{i}--nvsw", f"gpu{i}", scaleup, "nvsw", f"{nvl}{i}", medium="nvlink", length_m=0.0,
                  cable="nvlink-board") for i in range(1, n + 1)]
    k = max(1, nics)
    nic_of_gpu = [min(i * k // n, k - 1) for i in range(n)]
    title = f"{n} x {gpu.id} on {fabric.id}"
    return ServerTemplate(title, devices, links, nic_of_gpu, k, gpu.port_speed_gbps("pcie"), guessed)


def template_from_design(design: Design, title: str) -> ServerTemplate:
    """The server a design holds (an NCCL topology import): its GPUs, NVLink switches and NVLink
    links, and the NIC each GPU's PCIe link goes to (NICs in id order)."""
    devs = {d.id: d for d in design.iter_devices()}
    nics = sorted((d.id for d in devs.values() if d.kind == "nic"), key=_natural)
    gpus = sorted((d.id for d in devs.values() if d.kind == "gpu"), key=_natural)
    if not gpus:
        raise ImportFileError(f"{title}: holds no GPU: a server template is one server's GPUs, NICs and NVLink")
    rename = {g: f"gpu{i}" for i, g in enumerate(gpus, 1)}
    switches = sorted((d.id for d in devs.values() if d.kind == "nvswitch"), key=_natural)
    rename.update({s: ("nvsw" if len(switches) == 1 else f"nvsw{i}") for i, s in enumerate(switches, 1)})
    nic_of: dict[str, int] = {}
    links: list[Link] = []
    for lk in design.iter_links():
        a, b = lk.a_device, lk.b_device
        if a in rename and b in rename and lk.medium == "nvlink":
            links.append(Link(f"{rename[a]}--{rename[b]}" + (f".{len(links)}" if any(
                x.id == f"{rename[a]}--{rename[b]}" for x in links) else ""), rename[a], lk.a_port, rename[b],
                lk.b_port, medium="nvlink", length_m=0.0, cable=lk.cable))
        for g, other in ((a, b), (b, a)):
            if g in gpus and other in nics and lk.medium == "pcie":
                nic_of.setdefault(g, nics.index(other))
    out = []
    for old in gpus + switches:
        d = devs[old]
        out.append(Device(rename[old], d.kind, d.ports, model=d.model, name=d.name,
                          properties={k: v for k, v in d.properties.items() if k not in ("pci_busid", "numa")}))
    pcie = max((p.speed_gbps for g in gpus for p in devs[g].ports if p.kind == "pcie"), default=0.0)
    k = max(1, len(nics))
    return ServerTemplate(title, out, links, [nic_of.get(g, i * k // len(gpus)) for i, g in enumerate(gpus)], k,
                          pcie)


def _natural(text: str) -> tuple:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))


@dataclass
class HostPlan:
    """What stands behind each host: ``templates[host]`` (a GPU host's server) or absent (adapters
    alone when any host has a server, else ``gpus_per_adapter`` GPUs per adapter)."""

    templates: dict[str, ServerTemplate] = field(default_factory=dict)
    gpu_hosts: set[str] = field(default_factory=set)

    @property
    def any_server(self) -> bool:
        return bool(self.templates)


def plan_hosts(hosts: dict[str, list[str]], speed_of: dict[str, str], options: ImportOptions,
               report: ImportReport) -> HostPlan:
    """Decide the server of every host (see the module docstring).

    ``hosts``: host id -> the keys of its adapters; ``speed_of``: adapter key -> the InfiniBand
    generation of its cables (``HDR``...; ``""`` when the source does not say).
    """
    catalog = options.catalog if options.catalog is not None else builtin_catalog()
    plan = HostPlan()
    if not hosts:
        return plan
    sizes = Counter(len(a) for a in hosts.values())
    modal = max(sizes, key=lambda n: (sizes[n], n))
    gpu_hosts = {h for h, a in hosts.items() if len(a) == modal}
    plan.gpu_hosts = gpu_hosts
    server = (options.server or "auto").strip()
    template: ServerTemplate | None = None
    if options.server_template is not None:
        template = options.server_template
    elif server.lower() == "none":
        return plan
    elif server.lower() != "auto":
        template = template_from_model(server, modal, catalog)
    else:
        if modal not in BOARD_ADAPTERS:
            return plan
        speeds = Counter(speed_of.get(k, "") for h in gpu_hosts for k in hosts[h])
        speed = speeds.most_common(1)[0][0]
        model = PLATFORM_BY_SPEED.get(speed)
        if not model:
            return plan
        template = template_from_model(model, min(modal, 8), catalog, guessed=True)
        report.guess(count(len(gpu_hosts), "host"), f"{modal} {speed} adapters a host: read as {template.title} "
                     f"(the DGX of {speed} adapters), one NVLink domain a host; --server MODEL or --server-xml "
                     "FILE sets the server, --server none leaves the adapters alone", 0, "server")
    if template.guessed is False:
        report.guess(count(len(gpu_hosts), "host"), f"{count(modal, 'adapter')} a host: each is "
                     f"{template.title} (the server given)", 0, "server")
    if not any(d.kind == "nvswitch" for d in template.devices) and not template.links:
        report.guess(template.title, "the server gives no NVLink: the GPUs of a host meet only through their NICs",
                     0, "server")
    for h in gpu_hosts:
        plan.templates[h] = template
    others = sorted(set(hosts) - gpu_hosts, key=_natural)
    if others:
        shown = ", ".join(others[:8]) + (f" and {len(others) - 8:,} more" if len(others) > 8 else "")
        report.guess(count(len(others), "other host"), f"not {modal} adapters a host (management, UFM, storage or "
                     f"login hosts): no GPUs, their adapters alone: {shown}", 0, "server")
    if modal > 8 and template.gpus <= 8:
        report.guess(count(len(gpu_hosts), "GPU host"), f"{modal} adapters but {template.gpus} GPUs: adapters "
                     f"{template.nics + 1}.. serve no GPU (storage adapters on the same fabric)", 0, "server")
    return plan
