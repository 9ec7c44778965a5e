"""``server``: one HGX/DGX-style node, and the node builder every fabric generator uses.

A node of N GPUs: each GPU's scale-up port goes to the node's NVLink switch fabric (one
``nvswitch`` device, port ``nvlI`` for GPU I) with medium ``nvlink``; each GPU's ``pcie1``
goes to its own NIC's ``pcie1`` with medium ``pcie``. Ids: ``<prefix>-gpuI``, ``<prefix>-nicI``,
``<prefix>-nvsw``; the node is a ``server`` group named ``<prefix>``.
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


@dataclass(frozen=True)
class NodeKit:
    """The models of one kind of server: GPU, NIC (or None), NVLink fabric (or None), GPU count."""

    gpu: Component
    nic: Component | None
    fabric: Component | None
    gpus: int
    gpu_scaleup_port: str

    @property
    def width(self) -> float:
        """Canvas width of the node block (a column per GPU, one for the NVLink fabric)."""
        return (self.gpus + (1 if self.fabric else 0)) * DX


def node_kit(b: Builder, gpus: int, gpu: str, nic: str, nvswitch: str) -> NodeKit:
    """Resolve and check the models of a server of ``gpus`` GPUs."""
    gpu_c = b.model(gpu, "gpu", "GPU")
    nic_c = b.model(nic, "nic", "NIC") if nic else None
    scaleup = next((f"{g.prefix}1" for g in gpu_c.ports if g.kind == "nvlink"), "")
    fabric = None
    if gpus > 1:
        fab_id = nvswitch or DEFAULT_NVSWITCH.get(gpu, "")
        if not fab_id:
            raise b.error(f"no default NVLink fabric for GPU {gpu!r}: choose one with "
                          f"{setting('nvswitch', metavar='MODEL')} or use {setting('gpus_per_node', 1)}")
        fabric = b.model(fab_id, "nvswitch", "NVLink fabric")
        nvl_ports = sum(g.count for g in fabric.ports if g.kind == "nvlink")
        if gpus > nvl_ports:
            raise b.error(f"{gpus} GPUs per node but NVLink fabric {fab_id} has {nvl_ports} GPU ports")
        if not scaleup:
            raise b.error(f"GPU {gpu!r} has no NVLink port to join the NVLink fabric")
    if nic_c is not None and not any(g.kind == "network" for g in nic_c.ports):
        raise b.error(f"NIC {nic!r} has no network port")
    return NodeKit(gpu_c, nic_c, fabric, gpus, scaleup)


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
    return nics


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
    with_nics: bool,
) -> Design:
    """Build from parameters ``SPEC.check`` filled in and checked (the defaults live in ``SPEC``)."""
    b = Builder("server", catalog)
    kit = node_kit(b, gpus_per_node, gpu, nic if with_nics else "", nvswitch)
    add_node(b, kit, "node1", name=f"{kit.gpus}x {kit.gpu.name}", parent=None, x=0.0, y=0.0)
    return b.design(
        f"{kit.gpus}x {gpu} server",
        f"One server: {kit.gpus} {gpu} GPUs"
        + (f" on {kit.fabric.id}" if kit.fabric else "")
        + (f", one {nic} NIC per GPU" if kit.nic else ""),
    )


SPEC = GeneratorSpec(
    kind="server",
    description="one HGX/DGX-style node: N GPUs on an NVLink switch fabric, one NIC per GPU",
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
