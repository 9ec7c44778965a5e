"""NCCL topology XML (``NCCL_TOPO_DUMP_FILE`` / ``NCCL_TOPO_FILE``): the inside of one server.

``<system>`` holds ``<cpu numaid=..>`` sockets, PCIe trees of ``<pci busid=.. class=..
link_speed="16 GT/s" link_width="16">`` (``0x0604`` bridges are PCIe switches), GPUs
(``<gpu dev sm>`` with ``<nvlink target count>``, or a ``0x0302`` PCI class alone) and NICs
(``<nic><net name speed port/>``, or a ``0x0200`` Ethernet / ``0x0207`` InfiniBand PCI class alone).

The design is one ``server`` group in the conventions of the generators: each GPU with an
aggregated ``nvl1`` port to one ``nvswitch`` device when its NVLinks go to NVSwitches (or ports
``nvl1..`` to each GPU it links to directly), a ``pcie1`` port to the NIC nearest it in the PCIe
tree (the NIC takes one ``pcie`` port per GPU it serves), and the NICs' network ports left free
for a leaf switch. PCIe switches and CPU sockets are not devices of the model: each GPU and NIC
keeps its ``numa`` node and PCIe path in its properties. Duplicate the server group (Edit ▸
Duplicate) to stamp out more of the same server.
"""

from __future__ import annotations

import re
import xml.parsers.expat as expat
from dataclasses import dataclass, field
from typing import Any

from designer.io.importers.base import ImportFileError, ImportOptions, ImportReport
from designer.model import Design, Device, Group, Link, PortGroup
from designer.model.units import line_rate

NAME = "nccl"
TITLE = "NCCL topology XML (one server)"

#: Per-direction rate of one NVLink by GPU generation (SM version): 25 GB/s up to NVLink 4
#: (V100, A100, H100), 50 GB/s from NVLink 5 (B200).
NVLINK_GBPS = {70: 200.0, 80: 200.0, 90: 200.0, 100: 400.0}
#: Catalog models by PCI device id (NVIDIA vendor 0x10de).
GPU_MODELS = {"0x20b0": "a100-sxm", "0x20b2": "a100-sxm", "0x20b5": "a100-sxm", "0x2330": "h100-sxm",
              "0x2335": "h200-sxm", "0x2324": "h800-sxm", "0x2901": "b200"}
DEFAULT_NIC_GBPS = 400.0
#: Port rates of the NICs a server carries, slowest first (Gb/s).
STANDARD_NIC_GBPS = (25.0, 50.0, 100.0, 200.0, 400.0, 800.0)
DEFAULT_PCIE_GBPS = 256.0  # PCIe 4.0 x16, when a device gives no link speed
MAX_ELEMENTS = 100_000


@dataclass
class _El:
    tag: str
    attrs: dict[str, str]
    line: int
    children: list[_El] = field(default_factory=list)
    parent: _El | None = None


def sniff(text: str) -> int:
    head = text[:20_000]
    if re.search(r"<system\b[^>]*>", head) and re.search(r"<(cpu|pci|gpu|nic)\b", head):
        return 90
    return 0


def _parse(text: str, source: str) -> _El:
    root = _El("#document", {}, 0)
    stack = [root]
    count = 0
    parser = expat.ParserCreate()

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal count
        count += 1
        if count > MAX_ELEMENTS:
            raise ImportFileError(f"{source}: line {parser.CurrentLineNumber}: more than {MAX_ELEMENTS:,} elements")
        el = _El(tag, dict(attrs), parser.CurrentLineNumber, parent=stack[-1])
        stack[-1].children.append(el)
        stack.append(el)

    def end(_tag: str) -> None:
        stack.pop()

    def refuse(*_args: Any) -> None:
        raise ImportFileError(f"{source}: line {parser.CurrentLineNumber}: XML with a DOCTYPE or entities is not "
                              "accepted (entity expansion)")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    try:
        parser.Parse(text, True)
    except expat.ExpatError as e:
        raise ImportFileError(f"{source}: line {e.lineno}: not well-formed XML ({expat.ErrorString(e.code)})") from None
    return root


def _find(el: _El, tag: str) -> list[_El]:
    out: list[_El] = []
    todo = [el]
    while todo:
        cur = todo.pop()
        for ch in cur.children:
            if ch.tag == tag:
                out.append(ch)
            todo.append(ch)
    return sorted(out, key=lambda e: e.line)


def _pcie_gbps(el: _El, report: ImportReport, what: str) -> float:
    speed, width = el.attrs.get("link_speed", ""), el.attrs.get("link_width", "")
    m = re.match(r"\s*(\d+(?:\.\d+)?)\s*GT/s", speed)
    if m and width.strip().isdigit() and int(width) > 0:
        return float(m.group(1)) * int(width)
    if speed or width:
        report.guess(what, f"PCIe link_speed {speed!r} / link_width {width!r} do not read: "
                     f"{line_rate(DEFAULT_PCIE_GBPS)} (PCIe 4.0 x16)", el.line, "pcie")
    else:
        report.guess(what, f"no PCIe link speed: {line_rate(DEFAULT_PCIE_GBPS)} (PCIe 4.0 x16)", el.line, "pcie")
    return DEFAULT_PCIE_GBPS


def _class(el: _El) -> str:
    return el.attrs.get("class", "").lower()


def _path(el: _El) -> list[_El]:
    out = []
    cur: _El | None = el
    while cur is not None:
        out.append(cur)
        cur = cur.parent
    return out[::-1]


def _numa(el: _El) -> int | None:
    for anc in reversed(_path(el)):
        if anc.tag == "cpu" and anc.attrs.get("numaid", "").strip().isdigit():
            return int(anc.attrs["numaid"])
    return None


@dataclass
class _NVLinks:
    """Each GPU's NVLinks: lanes to the NVSwitches, lanes to each peer GPU, and the rate of one lane."""

    to_switch: dict[str, int]
    to_peer: dict[str, dict[str, int]]
    per_link: dict[str, float]


def _system(text: str, src: str) -> _El:
    """The file's first ``<system>`` element, or ImportFileError when it has none."""
    doc = _parse(text, src)
    systems = [c for c in doc.children if c.tag == "system"]
    if not systems:
        raise ImportFileError(f"{src}: no <system> element: not an NCCL topology XML")
    return systems[0]


def _find_devices(system: _El, report: ImportReport) -> tuple[list[tuple[_El, _El | None]],
                                                               list[tuple[_El, list[_El]]], set[str]]:
    """GPUs as (pci, ``<gpu>``), NICs as (pci, ``<net>`` elements) and NVSwitch bus ids, in file order.

    PCI devices of other classes are skipped (bridges silently: they are the PCIe tree).
    """
    gpus: list[tuple[_El, _El | None]] = []
    nics: list[tuple[_El, list[_El]]] = []
    nvswitch_bus: set[str] = set()
    for pci in _find(system, "pci"):
        cls = _class(pci)
        gpu_el = next((c for c in pci.children if c.tag == "gpu"), None)
        nic_el = next((c for c in pci.children if c.tag == "nic"), None)
        if gpu_el is not None or cls.startswith("0x0302") or cls.startswith("0x0300"):
            gpus.append((pci, gpu_el))
        elif nic_el is not None or cls.startswith("0x0200") or cls.startswith("0x0207"):
            nics.append((pci, [n for n in (nic_el.children if nic_el else []) if n.tag == "net"]))
        elif cls.startswith("0x0680"):
            nvswitch_bus.add(pci.attrs.get("busid", "").lower())
        elif cls.startswith("0x0604"):
            continue
        elif not pci.children:
            report.skip(f"pci {pci.attrs.get('busid', '?')}", f"PCI class {cls or 'not given'}: not a GPU or a NIC",
                        pci.line, "unknown device")
    # NICs placed directly under a <cpu> (a <nic> without <pci>).
    for nic_el in _find(system, "nic"):
        if nic_el.parent is not None and nic_el.parent.tag != "pci":
            nics.append((nic_el, [n for n in nic_el.children if n.tag == "net"]))
    return gpus, nics, nvswitch_bus


def _read_nvlinks(gpus: list[tuple[_El, _El | None]], group: str, bus_to_gpu: dict[str, str],
                  nvswitch_bus: set[str], report: ImportReport) -> _NVLinks:
    """Each GPU's ``<nvlink>`` elements, to a peer GPU or to an NVSwitch, and the lane rate by GPU generation."""
    nv = _NVLinks({}, {}, {})
    sm_of: dict[str, int] = {}
    for i, (_pci, gpu_el) in enumerate(gpus, 1):
        gid = f"{group}-gpu{i}"
        if gpu_el is None:
            continue
        sm = gpu_el.attrs.get("sm", "")
        if sm.isdigit():
            sm_of[gid] = int(sm)
        for link in (c for c in gpu_el.children if c.tag == "nvlink"):
            target = link.attrs.get("target", "").lower()
            count = int(link.attrs["count"]) if link.attrs.get("count", "").isdigit() else 1
            tclass = link.attrs.get("tclass", "").lower()
            if target in bus_to_gpu:
                nv.to_peer.setdefault(gid, {})[bus_to_gpu[target]] = count
            elif tclass.startswith("0x06") or target in nvswitch_bus:  # an NVSwitch (0x0680) or a bridge
                nv.to_switch[gid] = nv.to_switch.get(gid, 0) + count
            else:
                report.skip(f"nvlink of GPU {i} to {target}", f"target class {tclass or 'not given'}: not a GPU or "
                            "an NVSwitch", link.line, "nvlink")
    for gid in bus_to_gpu.values():
        sm = sm_of.get(gid, 0)
        gen = max((k for k in NVLINK_GBPS if k <= sm), default=80)
        nv.per_link[gid] = NVLINK_GBPS[gen]
    if gpus and not nv.to_switch and not nv.to_peer:
        report.skip("NVLink", "the file gives no NVLink (GPUs known only by their PCI class, or none): the GPUs "
                    "reach each other over PCIe and the NICs only", 0, "nvlink")
    return nv


def _depth_shared(a: _El, b: _El) -> int:
    """How many ancestors (from the document down) two elements share."""
    n = 0
    for x, y in zip(_path(a), _path(b), strict=False):
        if x is not y:
            break
        n += 1
    return n


def _pair_nics(gpus: list[tuple[_El, _El | None]], nics: list[tuple[_El, list[_El]]], group: str,
               report: ImportReport) -> dict[int, list[str]]:
    """The GPUs each NIC serves: per GPU the nearest NIC in the PCIe tree (deepest common ancestor,
    then the least loaded, then file order)."""
    served: dict[int, list[str]] = {k: [] for k in range(len(nics))}
    for i, (pci, _) in enumerate(gpus, 1):
        if not nics:
            break
        best = max(range(len(nics)), key=lambda k: (_depth_shared(pci, nics[k][0]), -len(served[k]), -k))
        served[best].append(f"{group}-gpu{i}")
        if _depth_shared(pci, nics[best][0]) <= 2:
            report.guess(f"GPU {i}", f"no NIC under its PCIe switch: joined to NIC {best + 1}, across the CPU",
                         pci.line, "nic pairing")
    return served


def _nic_rates(k: int, nets: list[_El], options: ImportOptions, report: ImportReport) -> list[float]:
    """Port rates of NIC ``k`` (Gb/s): from its ``<net speed>`` (Mb/s), else guessed (and reported)."""
    default_nic = options.default_rate_gbps or DEFAULT_NIC_GBPS
    rates = []
    for net in nets:
        sp = net.attrs.get("speed", "")
        if sp.isdigit() and int(sp) > 0:
            rates.append(int(sp) / 1000.0)  # NCCL gives Mb/s
        else:
            report.guess(f"NIC {k} port {net.attrs.get('name', '?')}", f"speed {sp!r} is not a rate in Mb/s: "
                         f"{line_rate(default_nic)}", net.line, "rate")
            rates.append(default_nic)
    return rates


def _class_only_rate(k: int, pci: _El, pcie: float, options: ImportOptions, report: ImportReport) -> float:
    """The one port of a NIC known only by its PCI class: the default rate given, else what its PCIe carries."""
    what = "InfiniBand" if _class(pci).startswith("0x0207") else "Ethernet"
    if options.default_rate_gbps:
        rate, why = options.default_rate_gbps, "the default rate given"
    else:
        rate = max((r for r in STANDARD_NIC_GBPS if r <= pcie), default=STANDARD_NIC_GBPS[0])
        why = f"the fastest standard rate its {line_rate(pcie)} PCIe link carries; --default-rate sets it"
    report.guess(f"NIC {k}", f"known only by its PCI class ({what}): one port at {line_rate(rate)} ({why})",
                 pci.line, "rate")
    return rate


def _place_props(pci: _El) -> dict[str, Any]:
    """Where a device sits: its PCI bus id and, when under a CPU socket, its NUMA node."""
    props: dict[str, Any] = {"pci_busid": pci.attrs.get("busid", "")}
    if _numa(pci) is not None:
        props["numa"] = _numa(pci)
    return props


def _nic_device(k: int, pci: _El, nets: list[_El], served: list[str], group: str, options: ImportOptions,
                report: ImportReport) -> Device:
    """NIC ``k``: its network ports and one ``pcie`` port per GPU it serves."""
    rates = _nic_rates(k, nets, options, report)
    pcie = _pcie_gbps(pci, report, f"NIC {k}") if pci.tag == "pci" else DEFAULT_PCIE_GBPS
    if not nets:
        rates.append(_class_only_rate(k, pci, pcie, options, report))
    ports = [PortGroup("p", len(rates), max(rates))]
    if served:
        ports.append(PortGroup("pcie", len(served), pcie, kind="pcie"))
    props = _place_props(pci)
    if nets and nets[0].attrs.get("name"):
        props["nccl_name"] = nets[0].attrs["name"]
    return Device(f"{group}-nic{k}", "nic", tuple(ports), group=group, properties=props)


def _gpu_device(gid: str, pci: _El, nv: _NVLinks, pcie: float, group: str) -> Device:
    """A GPU: one ``nvl`` port to the NVSwitches, ``nvp`` ports to its peers, a ``pcie`` port to its NIC."""
    ports: list[PortGroup] = []
    if gid in nv.to_switch:
        ports.append(PortGroup("nvl", 1, nv.to_switch[gid] * nv.per_link[gid], kind="nvlink",
                               lanes=nv.to_switch[gid]))
    peers = nv.to_peer.get(gid, {})
    if peers:
        top = max(peers.values())
        ports.append(PortGroup("nvp", len(peers), top * nv.per_link[gid], kind="nvlink", lanes=top))
    ports.append(PortGroup("pcie", 1, pcie, kind="pcie"))
    model = GPU_MODELS.get(pci.attrs.get("device", "").lower(), "")
    return Device(gid, "gpu", tuple(ports), model=model, group=group, properties=_place_props(pci))


def _nvswitch_device(group: str, nv: _NVLinks) -> Device:
    """The NVSwitch chips as one device: a port per GPU, as wide as the widest GPU's lanes."""
    total = sum(nv.to_switch.values())
    fabric_speed = max(nv.per_link.values())
    widest = max(nv.to_switch.values())
    return Device(f"{group}-nvsw", "nvswitch",
                  (PortGroup("nvl", len(nv.to_switch), widest * fabric_speed, kind="nvlink", lanes=widest),),
                  group=group, properties={"nvlink_lanes": total})


def _nvlink_links(group: str, nv: _NVLinks, report: ImportReport) -> list[Link]:
    """GPU-to-NVSwitch links, then GPU-to-GPU links listed by both ends (one end only: reported, left out)."""
    links = []
    for s, gid in enumerate(sorted(nv.to_switch, key=lambda g: int(g.rsplit("gpu", 1)[1])), 1):
        links.append(Link(f"{gid}--{group}-nvsw", gid, "nvl1", f"{group}-nvsw", f"nvl{s}", medium="nvlink",
                          length_m=0.0, cable="nvlink-board"))
    seen: set[frozenset] = set()
    for gid, peers in nv.to_peer.items():
        for peer in peers:
            pair = frozenset((gid, peer))
            if pair in seen:
                continue
            seen.add(pair)
            a_port = f"nvp{list(nv.to_peer[gid]).index(peer) + 1}"
            if gid not in nv.to_peer.get(peer, {}):
                report.guess(f"NVLink {gid} - {peer}", "listed by one GPU only: read as one link", 0, "nvlink")
                continue
            b_port = f"nvp{list(nv.to_peer[peer]).index(gid) + 1}"
            links.append(Link(f"{gid}--{peer}", gid, a_port, peer, b_port, medium="nvlink", length_m=0.0,
                              cable="nvlink-board"))
    return links


def _pcie_links(group: str, served: dict[int, list[str]]) -> list[Link]:
    """Each GPU's ``pcie1`` to the NIC that serves it."""
    return [Link(f"{gid}--{group}-nic{k + 1}", gid, "pcie1", f"{group}-nic{k + 1}", f"pcie{j}",
                 medium="pcie", length_m=0.0, cable="pcie-board")
            for k in range(len(served)) for j, gid in enumerate(served[k], 1)]


def _lay_out_server(devices: list[Device], n_gpus: int, served: dict[int, list[str]], group: str) -> None:
    """The NVLink switch on top, GPUs in a row, each NIC under the first GPU it serves."""
    gpu_x = {f"{group}-gpu{i}": 40.0 + (i - 1) * 90.0 for i in range(1, n_gpus + 1)}
    for d in devices:
        if d.kind == "gpu":
            d.x, d.y = gpu_x[d.id], 140.0
        elif d.kind == "nvswitch":
            d.x, d.y = (max(gpu_x.values()) + min(gpu_x.values())) / 2, 40.0
    for k, d in enumerate(x for x in devices if x.kind == "nic"):
        first = served[k][0] if served[k] else None
        d.x = gpu_x[first] if first else 40.0 + k * 90.0
        d.y = 240.0 + (30.0 if any(served[j] and served[j][0] == first for j in range(k)) else 0.0)


def read(text: str, options: ImportOptions, report: ImportReport) -> Design:
    src = report.source
    system = _system(text, src)
    gpus, nics, nvswitch_bus = _find_devices(system, report)
    if not gpus and not nics:
        raise ImportFileError(f"{src}: no GPU or NIC: the file lists {len(_find(system, 'pci'))} PCI devices with "
                              "no GPU, NIC or known PCI class (nothing to import)")
    if not gpus:
        report.note("no GPU in the file: the server's NICs alone")
    group = "node1"
    bus_to_gpu: dict[str, str] = {}
    gpu_pcie: dict[str, float] = {}
    for i, (pci, _gpu_el) in enumerate(gpus, 1):
        bus_to_gpu[pci.attrs.get("busid", "").lower()] = f"{group}-gpu{i}"
        gpu_pcie[f"{group}-gpu{i}"] = _pcie_gbps(pci, report, f"GPU {i}")
    nv = _read_nvlinks(gpus, group, bus_to_gpu, nvswitch_bus, report)
    served = _pair_nics(gpus, nics, group, report)
    devices = [_nic_device(k, pci, nets, served[k - 1], group, options, report)
               for k, (pci, nets) in enumerate(nics, 1)]
    devices += [_gpu_device(f"{group}-gpu{i}", pci, nv, gpu_pcie[f"{group}-gpu{i}"], group)
                for i, (pci, _gpu_el) in enumerate(gpus, 1)]
    has_switch = bool(nv.to_switch)
    if has_switch:
        devices.append(_nvswitch_device(group, nv))
        report.note(f"{len(nvswitch_bus) or 'the'} NVSwitch chips as one nvswitch device (the NVLink domain)")
    links = _nvlink_links(group, nv, report) + _pcie_links(group, served)
    _lay_out_server(devices, len(gpus), served, group)
    design = Design(f"NCCL topology ({re.split(r'[/]', src)[-1]})")
    design.extend([Group(group, "server", name="server")], devices, links)
    design.description = f"Imported from {src} (NCCL topology XML): one server"
    report.read.update({"gpus": len(gpus), "nics": len(nics), "nvlink switches": 1 if has_switch else 0,
                        "links": len(links)})
    if has_switch:
        report.note(f"NVLink: {line_rate(max(nv.per_link.values()))} per link per direction, by GPU generation")
    report.note("one server group: duplicate it in the window to stamp out more of the same server")
    return design
