"""``server``: one HGX/DGX-style node, and the node builder every fabric generator uses.

A node of N GPUs: each GPU's scale-up port goes to the node's NVLink switch fabric (one
``nvswitch`` device, port ``nvlI`` for GPU I) with medium ``nvlink``; each GPU's ``pcie1``
goes to its own NIC's ``pcie1`` with medium ``pcie``. Ids: ``<prefix>-gpuI``, ``<prefix>-nicI``,
``<prefix>-nvsw``; the node is a ``server`` group named ``<prefix>``.

Without an NVLink switch (``nvlink`` other than ``switch``, :data:`NVLINK_TOPOLOGIES`) the GPUs are
linked to one another directly, each GPU's NVLink links split into one port per peer link
(:meth:`designer.model.catalog.Component.split_scale_up`): ``mesh`` (every pair once), ``bridge-pairs``
(NVLink bridges between the PCIe cards of GPUs 1-2, 3-4, ...) or ``cube-mesh`` (the DGX-1 hybrid
cube-mesh of 8 GPUs). Link ids ``<prefix>-gpuI--<prefix>-gpuJ`` (``.2`` for a second parallel link).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from designer.generators.base import DEFAULT_NVSWITCH, DX, Builder
from designer.generators.params import GeneratorSpec, Param, node_params, setting
from designer.model import Design
from designer.model.catalog import Catalog, Component

#: Rack units of a server, metres (DGX H100: 8U x 44.45 mm).
NODE_HEIGHT_M = 0.36
#: Height of the lowest server in a rack, metres.
FIRST_NODE_M = 0.3


#: The DGX-1 hybrid cube-mesh (GPUs 0-7, 0-based): (GPU a, GPU b, NVLink links between them). Two
#: fully linked quads (0-3, 4-7) and a link from GPU i to GPU i+4, some pairs doubled: 6 links per GPU,
#: 24 in all. NVIDIA, "NVIDIA DGX-1 With Tesla V100 System Architecture" whitepaper (WP-08437-002), its
#: hybrid cube-mesh figure; the same link counts in the NCCL topology of a DGX-1 V100 in NVIDIA/nccl issue
#: #671 (GPU0: nvlink count 1 to GPU1 and GPU2, count 2 to GPU3 and GPU4) and in the ``nvidia-smi topo -m``
#: of 8 x V100-SXM2 servers in the Oneflow-Inc/DLPerf reports (GPU0: NV1 NV1 NV2 NV2 to GPUs 1, 2, 3, 4).
DGX1_CUBE_MESH = (
    (0, 1, 1), (0, 2, 1), (0, 3, 2), (1, 2, 2), (1, 3, 1), (2, 3, 2),
    (4, 5, 1), (4, 6, 1), (4, 7, 2), (5, 6, 2), (5, 7, 1), (6, 7, 2),
    (0, 4, 2), (1, 5, 2), (2, 6, 1), (3, 7, 1),
)


@dataclass(frozen=True)
class NodeKit:
    """The models of one kind of server: GPU, NIC (or None), NVLink fabric (or None), GPU count.

    ``nvlink`` is the NVLink topology (:data:`designer.generators.params.NVLINK_TOPOLOGIES`);
    ``links`` the direct GPU-to-GPU NVLink links of one server as (GPU a, GPU b) pairs of 0-based
    indices, a pair once per link (empty with an NVLink switch), and ``gpu`` then has one NVLink
    port per link end.
    """

    gpu: Component
    nic: Component | None
    fabric: Component | None
    gpus: int
    gpu_scaleup_port: str
    nvlink: str = "switch"
    links: tuple[tuple[int, int], ...] = ()

    @property
    def width(self) -> float:
        """Canvas width of the node block (a column per GPU, one for the NVLink fabric)."""
        return (self.gpus + (1 if self.fabric else 0)) * DX


def direct_links(nvlink: str, gpus: int) -> tuple[tuple[int, int], ...]:
    """The direct NVLink links of a server of ``gpus`` GPUs in topology ``nvlink``, as (a, b) pairs.

    >>> direct_links("bridge-pairs", 4), len(direct_links("mesh", 8)), len(direct_links("cube-mesh", 8))
    (((0, 1), (2, 3)), 28, 24)
    """
    if nvlink == "mesh":
        return tuple((a, b) for a in range(gpus) for b in range(a + 1, gpus))
    if nvlink == "bridge-pairs":
        return tuple((a, a + 1) for a in range(0, gpus - 1, 2))
    if nvlink == "cube-mesh":
        return tuple((a, b) for a, b, n in DGX1_CUBE_MESH for _ in range(n))
    return ()


def node_kit(b: Builder, gpus: int, gpu: str, nic: str, nvswitch: str, nvlink: str = "switch") -> NodeKit:
    """Resolve and check the models of a server of ``gpus`` GPUs joined by NVLink topology ``nvlink``."""
    gpu_c = b.model(gpu, "gpu", "GPU")
    nic_c = b.model(nic, "nic", "NIC") if nic else None
    scaleup = next((f"{g.prefix}1" for g in gpu_c.ports if g.kind == "nvlink"), "")
    fabric = None
    links: tuple[tuple[int, int], ...] = ()
    if nvlink != "switch":
        if nvswitch:
            raise b.error(f"{setting('nvswitch', metavar='MODEL')} needs {setting('nvlink', 'switch')}; "
                          f"NVLink topology {nvlink} has no NVLink switch")
        gpu_c, links = _direct_kit(b, gpus, gpu_c, nvlink)
    elif gpus > 1:
        fab_id = nvswitch or DEFAULT_NVSWITCH.get(gpu, "")
        if not scaleup and not nvswitch:
            raise b.error(f"GPU {gpu!r} has no NVLink port, so its GPUs meet only at the network: use "
                          f"{setting('gpus_per_node', 1)}")
        if not fab_id:
            raise b.error(f"no default NVLink fabric for GPU {gpu!r}: choose one with "
                          f"{setting('nvswitch', metavar='MODEL')}, link the GPUs directly with "
                          f"{setting('nvlink', 'mesh')} or use {setting('gpus_per_node', 1)}")
        fabric = b.model(fab_id, "nvswitch", "NVLink fabric")
        nvl_ports = sum(g.count for g in fabric.ports if g.kind == "nvlink")
        if gpus > nvl_ports:
            raise b.error(f"{gpus} GPUs per node but NVLink fabric {fab_id} has {nvl_ports} GPU ports")
        if not scaleup:
            raise b.error(f"GPU {gpu!r} has no NVLink port to join the NVLink fabric")
    if nic_c is not None and not any(g.kind == "network" for g in nic_c.ports):
        raise b.error(f"NIC {nic!r} has no network port")
    return NodeKit(gpu_c, nic_c, fabric, gpus, scaleup, nvlink, links)


def _direct_kit(b: Builder, gpus: int, gpu_c: Component, nvlink: str) -> tuple[Component, tuple[tuple[int, int], ...]]:
    """The GPU model with one NVLink port per direct link, and the links, for topology ``nvlink``."""
    has_nvlink = any(g.kind == "nvlink" for g in gpu_c.ports)
    if not has_nvlink:
        raise b.error(f"GPU {gpu_c.id!r} has no NVLink port: NVLink topology {nvlink} needs one "
                      f"(use {setting('nvlink', 'switch')} with {setting('gpus_per_node', 1)})")
    bridge = bool(gpu_c.specs.get("nvlink_bridge"))
    if nvlink == "bridge-pairs":
        if not bridge:
            raise b.error(f"GPU {gpu_c.id!r} takes no NVLink bridge (bridges join PCIe cards such as h100-nvl, "
                          f"h100-pcie or a100-pcie): use {setting('nvlink', 'mesh')} or {setting('nvlink', 'switch')}")
        if gpus % 2:
            raise b.error(f"NVLink bridges join GPUs in pairs but {setting('gpus_per_node', gpus)} is odd")
    elif bridge and gpus > 2:
        raise b.error(f"GPU {gpu_c.id!r} links to one other GPU, over an NVLink bridge: use "
                      f"{setting('nvlink', 'bridge-pairs')}")
    if nvlink == "cube-mesh" and gpus != 8:
        raise b.error(f"the hybrid cube-mesh joins exactly 8 GPUs, not {gpus}: use {setting('gpus_per_node', 8)} "
                      f"or {setting('nvlink', 'mesh')}")
    links = direct_links(nvlink, gpus)
    ends = [0] * gpus
    for a, c in links:
        ends[a] += 1
        ends[c] += 1
    per_gpu = max(ends, default=0)
    if per_gpu > gpu_c.scale_up_links:
        raise b.error(f"NVLink topology {nvlink} of {gpus} GPUs needs {per_gpu} NVLink links per GPU but "
                      f"{gpu_c.id} has {gpu_c.scale_up_links}")
    return (gpu_c.split_scale_up(per_gpu) if per_gpu else gpu_c), links


def add_node(
    b: Builder,
    kit: NodeKit,
    prefix: str,
    *,
    name: str,
    parent: str | None,
    x: float,
    y: float,
    rack: int | None = None,
    height_m: float = 0.0,
    props: dict[str, Any] | None = None,
) -> list[Any]:
    """Add a server group ``prefix`` with its GPUs, NICs and NVLink fabric; return its NICs in GPU order.

    Layout: NICs in a row at ``y`` (GPU I's NIC above GPU I), GPUs in a row below, the NVLink
    fabric to the right. ``props`` (e.g. ``su``) go on every device; GPU and NIC I also get
    ``rail`` = I.
    """
    props = props or {}
    b.group(prefix, "server", name, parent)
    nics = []
    fab_id = f"{prefix}-nvsw"
    if kit.fabric is not None:
        fab = b.device(kit.fabric, fab_id, tier="", x=x + kit.gpus * DX, y=y + 30, group=prefix,
                       properties=dict(props))
        if rack is not None:
            b.place(fab.id, rack, height_m)
    for i in range(1, kit.gpus + 1):
        gx = x + (i - 1) * DX
        rail_props = {**props, "rail": i}
        gpu = b.device(kit.gpu, f"{prefix}-gpu{i}", x=gx, y=y + 60, group=prefix, properties=rail_props)
        if kit.fabric is not None:
            b.board_link(f"{gpu.id}--{fab_id}", gpu.id, kit.gpu_scaleup_port, fab_id, f"nvl{i}", "nvlink")
        if kit.nic is not None:
            nic = b.device(kit.nic, f"{prefix}-nic{i}", x=gx, y=y, group=prefix, properties=dict(rail_props))
            b.board_link(f"{gpu.id}--{nic.id}", gpu.id, "pcie1", nic.id, "pcie1", "pcie")
            if rack is not None:
                b.place(nic.id, rack, height_m)
            nics.append(nic)
        if rack is not None:
            b.place(gpu.id, rack, height_m)
    if kit.links:
        _direct_nvlink(b, kit, prefix)
    return nics


def _direct_nvlink(b: Builder, kit: NodeKit, prefix: str) -> None:
    """The direct GPU-to-GPU NVLink links of server ``prefix``: each link end takes its GPU's next NVLink port."""
    nvl_prefix = next(g.prefix for g in kit.gpu.ports if g.kind == "nvlink")
    used = [0] * kit.gpus
    seen: dict[tuple[int, int], int] = {}
    for a, c in kit.links:
        used[a] += 1
        used[c] += 1
        n = seen[a, c] = seen.get((a, c), 0) + 1
        ga, gc = f"{prefix}-gpu{a + 1}", f"{prefix}-gpu{c + 1}"
        b.board_link(f"{ga}--{gc}" + (f".{n}" if n > 1 else ""), ga, f"{nvl_prefix}{used[a]}", gc,
                     f"{nvl_prefix}{used[c]}", "nvlink")


def node_height_m(slot: int) -> float:
    """Height above the floor of the ``slot``-th server (0 = lowest) in a rack, metres."""
    return FIRST_NODE_M + slot * NODE_HEIGHT_M


def _build_server(
    catalog: Catalog | None,
    *,
    gpus_per_node: int,
    gpu: str,
    nic: str,
    nvswitch: str,
    nvlink: str,
    with_nics: bool,
) -> Design:
    """Build from parameters ``SPEC.check`` filled in and checked (the defaults live in ``SPEC``)."""
    b = Builder("server", catalog)
    kit = node_kit(b, gpus_per_node, gpu, nic if with_nics else "", nvswitch, nvlink)
    if nvlink == "bridge-pairs" and gpus_per_node > 2:
        # One server and no network: its bridged pairs could not reach one another.
        raise b.error(f"NVLink bridges join GPUs in pairs, so {gpus_per_node} GPUs make {gpus_per_node // 2} pairs "
                      f"that only a network joins: use {setting('gpus_per_node', 2)}, or a fabric generator "
                      "(leaf-spine, rail-optimized...) with --nvlink bridge-pairs")
    add_node(b, kit, "node1", name=f"{kit.gpus}x {kit.gpu.name}", parent=None, x=0.0, y=0.0)
    direct = {"mesh": "an NVLink mesh", "bridge-pairs": "NVLink bridges in pairs",
              "cube-mesh": "an NVLink hybrid cube-mesh"}
    return b.design(
        f"{kit.gpus}x {gpu} server",
        f"One server: {kit.gpus} {gpu} GPUs"
        + (f" on {kit.fabric.id}" if kit.fabric else "")
        + (f" on {direct[nvlink]}" if kit.links else "")
        + (f", one {nic} NIC per GPU" if kit.nic else ""),
    )


SPEC = GeneratorSpec(
    kind="server",
    description="one HGX/DGX-style node: N GPUs on an NVLink switch fabric (or linked directly), one NIC per GPU",
    params=tuple(p for p in node_params() if p.name != "nodes_per_rack")
    + (Param("with_nics", "bool", True, "give each GPU its scale-out NIC"),),
    func=_build_server,
)


def build_server(catalog: Catalog | None = None, **params: Any) -> Design:
    """One HGX-style server: ``gpus_per_node`` GPUs on an NVLink fabric, one NIC per GPU.

    Parameters, defaults and limits are ``SPEC.params`` (an unknown or out-of-range value raises
    GeneratorError); ``catalog`` None is the built-in catalog.

    >>> d = build_server()
    >>> sorted({dev.kind for dev in d.devices}), d.link_count()
    (['gpu', 'nic', 'nvswitch'], 16)
    """
    return SPEC.build(catalog, **params)
