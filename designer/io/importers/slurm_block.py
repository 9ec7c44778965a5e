"""Slurm ``topology.conf`` for the topology/block plugin: blocks of nodes that share one NVLink domain.

``BlockName=b1 Nodes=node[01-18]`` per block and ``BlockSizes=18,36`` (the block counts Slurm may
join for one job: scheduling, kept as the design's ``slurm_block_sizes``). Sites with NVLink
domains spanning several nodes (GB200 NVL72 racks) write this instead of a switch tree, so a block
is read as one NVLink domain: every GPU of its nodes on one ``nvswitch`` device.

The file says nothing about what a node holds or about the scale-out network, so both are guessed
and reported: each node is a GB200 NVL72 compute tray of 4 GPUs (NVIDIA GB200 NVL72: 72 Blackwell
GPUs in 18 compute trays), as ``b200`` (the catalog's GPU at NVLink5's 7,200 Gb/s per direction)
unless ``--server MODEL`` names a GPU or ``--server-xml`` gives the server (its GPU count); the
block's NVLink switch is the catalog's switch at the GPUs' NVLink rate with the largest domain
(``nvl72-nvswitch``); each GPU has a NIC at ``--default-rate`` (else 400 Gb/s, the catalog's
ConnectX-7), all on one non-blocking switch standing for the scale-out fabric the file omits.
"""

from __future__ import annotations

import re

from designer.io.importers.base import ImportFileError, ImportOptions, ImportReport, safe_id
from designer.io.importers.hosts import template_from_model
from designer.model import Design, Device, Group, Link, PortGroup
from designer.model.catalog import Catalog, Component, builtin_catalog
from designer.model.units import count, line_rate

#: GPUs of a GB200 NVL72 compute tray: 72 GPUs in 18 trays (NVIDIA GB200 NVL72 product page).
TRAY_GPUS = 4
#: The catalog GPU standing for a GB200's Blackwell GPU (same NVLink5 rate; the catalog has no GB200).
DEFAULT_GPU = "b200"
#: The scale-out NIC rate when the user gives none: 400 Gb/s, the catalog's ``connectx-7-400g``.
DEFAULT_NIC_GBPS = 400.0
DEFAULT_NIC = "connectx-7-400g"


def _nvlink_ports(c: Component) -> int:
    return sum(g.count for g in c.ports if g.kind == "nvlink")


def _domain_switch(gpu: Component, gpus: int, catalog: Catalog) -> Component | None:
    """The catalog's NVLink switch at ``gpu``'s NVLink rate: the smallest that joins ``gpus`` GPUs, else the largest."""
    rate = gpu.port_speed_gbps("nvlink")
    cands = [c for c in catalog.by_kind("nvswitch") if rate and abs(c.port_speed_gbps("nvlink") - rate) < 1e-6]
    fits = [c for c in cands if _nvlink_ports(c) >= gpus]
    if fits:
        return min(fits, key=lambda c: (_nvlink_ports(c), c.id))
    return max(cands, key=lambda c: (_nvlink_ports(c), c.id)) if cands else None


def read_blocks(entries: list[tuple[int, str, list[str]]], sizes: list[int], options: ImportOptions,
                report: ImportReport) -> Design:
    """A design of the blocks ``entries`` ((line, block name, its nodes)); ``sizes``: BlockSizes."""
    catalog = options.catalog if options.catalog is not None else builtin_catalog()
    src = report.source
    server = (options.server or "auto").strip()
    if options.server_template is not None:
        per_node, gpu_model = options.server_template.gpus, next(
            (d.model for d in options.server_template.devices if d.kind == "gpu" and d.model), DEFAULT_GPU)
    elif server.lower() not in ("auto", "none"):
        gpu_model = next(d.model for d in template_from_model(server, 1, catalog).devices if d.kind == "gpu")
        per_node = TRAY_GPUS
    else:
        gpu_model, per_node = DEFAULT_GPU, TRAY_GPUS
    gpu = catalog.components.get(gpu_model) or catalog.component(DEFAULT_GPU)
    nic_rate = options.default_rate_gbps or DEFAULT_NIC_GBPS
    nic = catalog.components.get(DEFAULT_NIC) if nic_rate == DEFAULT_NIC_GBPS else None
    pcie = gpu.port_speed_gbps("pcie") or 512.0
    scaleup = next(f"{g.prefix}1" for g in gpu.ports if g.kind == "nvlink")
    devices: list[Device] = []
    groups: list[Group] = []
    links: list[Link] = []
    seen: dict[str, tuple[str, int]] = {}
    all_nics: list[str] = []
    x0 = 0.0
    for n, block, nodes in entries:
        bid = safe_id(f"block-{block}")
        groups.append(Group(bid, "rack", name=f"block {block}", properties={"slurm_block": block}))
        kept = []
        for node in nodes:
            if node in seen:
                first, line0 = seen[node]
                report.skip(f"node {node} in block {block}", f"already in block {first} (line {line0}): a node is in "
                            "one block", n, "contradiction")
                continue
            seen[node] = (block, n)
            kept.append(node)
        gpus = per_node * len(kept)
        fabric = _domain_switch(gpu, gpus, catalog)
        ports = _nvlink_ports(fabric) if fabric else 0
        sw_id = f"{bid}-nvsw"
        if fabric is not None and ports >= gpus:
            devices.append(fabric.make_device(sw_id, group=bid, x=x0 + 200.0, y=160.0))
            prefix = next(g.prefix for g in fabric.ports if g.kind == "nvlink")
        else:
            devices.append(Device(sw_id, "nvswitch", (PortGroup("nvl", max(1, gpus), gpu.port_speed_gbps("nvlink"),
                                                                kind="nvlink"),), group=bid, x=x0 + 200.0, y=160.0))
            prefix = "nvl"
            report.guess(sw_id, f"{count(gpus, 'GPU')}: more than any NVLink switch of the catalog joins at "
                         f"{line_rate(gpu.port_speed_gbps('nvlink'))}: a custom NVLink switch", n, "server")
        g_no = 0
        for k, node in enumerate(kept):
            nid = safe_id(node, "node")
            groups.append(Group(nid, "server", name=node, parent=bid))
            x, y = x0 + (k % 6) * 380.0, 320.0 + (k // 6) * 260.0
            for j in range(1, per_node + 1):
                g_no += 1
                gid, cid = f"{nid}-gpu{j}", f"{nid}-nic{j}"
                devices.append(gpu.make_device(gid, group=nid, x=x + (j - 1) * 84.0, y=y))
                nic_ports = nic.ports if nic else (PortGroup("p", 1, nic_rate), PortGroup("pcie", 1, pcie, kind="pcie"))
                devices.append(Device(cid, "nic", nic_ports, model=nic.id if nic else "", group=nid,
                                      x=x + (j - 1) * 84.0, y=y + 90.0))
                links.append(Link(f"{gid}--{sw_id}", gid, scaleup, sw_id, f"{prefix}{g_no}", medium="nvlink",
                                  length_m=0.0, cable="nvlink-board"))
                links.append(Link(f"{gid}--{cid}", gid, "pcie1", cid, "pcie1", medium="pcie", length_m=0.0,
                                  cable="pcie-board"))
                all_nics.append(cid)
        x0 += 6 * 380.0 + 120.0
    if not all_nics:
        raise ImportFileError(f"{src}: no node in any block: nothing to import")
    if len(all_nics) > 4096:
        raise ImportFileError(f"{src}: {len(all_nics):,} GPUs: more than one scale-out switch of 4,096 ports holds")
    devices.append(Device("scale-out", "switch", (PortGroup("p", len(all_nics), nic_rate),), tier="leaf",
                          name="scale-out network (not in the file)", x=x0 / 2, y=0.0))
    for i, cid in enumerate(all_nics, 1):
        links.append(Link(f"{cid}--scale-out", cid, "p1", "scale-out", f"p{i}", medium="optical", length_m=3.0))
    design = Design(f"Slurm topology/block ({re.split(r'[/]', src)[-1]})")
    design.extend(groups, devices, links)
    if sizes:
        design.properties["slurm_block_sizes"] = list(sizes)
    design.description = f"Imported from {src} (Slurm topology.conf, topology/block)"
    _report(report, entries, sizes, len(seen), per_node, gpu.id, len(all_nics), nic_rate)
    return design


def _report(report: ImportReport, entries: list, sizes: list[int], nodes: int, per_node: int, gpu: str, gpus: int,
            nic_rate: float) -> None:
    report.format = "slurm-block"
    report.read.update({"blocks": len(entries), "nodes": nodes, "gpus stamped behind adapters": gpus})
    report.guess(count(nodes, "node"), f"{per_node} x {gpu} a node (a GB200 NVL72 compute tray unless --server "
                 "or --server-xml says), each block one NVLink domain on one NVLink switch", 0, "server")
    report.guess("scale-out network", f"not in the file: every GPU's NIC at {line_rate(nic_rate)} on one non-blocking "
                 "switch (--default-rate sets the rate)", 0, "endpoints")
    if sizes:
        report.note(f"BlockSizes {', '.join(str(s) for s in sizes)}: the block counts Slurm joins for one job "
                    "(scheduling), kept as the design's slurm_block_sizes")
