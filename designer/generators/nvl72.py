"""``nvl72``: GB200/GB300 NVL72-style rack-scale NVLink domains, with an optional rail scale-out.

Each domain (rack) ``nvlD`` has ``trays`` compute trays of ``gpus_per_tray`` GPUs; every GPU's
scale-up port joins the rack's NVLink switch fabric (one ``nvswitch`` device, ports ``nvl1..72``)
and its ``pcie1`` its own NIC. With ``scaleout``, NIC R of every tray of a rack goes to that
rack's rail leaf ``nvlD-leafR`` (in a network rack beside it), and the leaves join a spine
layer with equal links to every spine.
Ids: ``nvlD-trayT-gpuI``, ``nvlD-trayT-nicI``, ``nvlD-nvsw``, ``nvlD-leafR``, ``spineS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from designer.generators.base import DX, FRAME_GAP, NODE_DY, TIER_DY, Builder, switch_ports, upper_tier_size, whole
from designer.generators.clos import SWITCH_BASE_M, SWITCH_STEP_M, connect_all, switch_row
from designer.generators.params import GeneratorSpec, Param, breakout_params, cabling_params, setting
from designer.model import Design, Device, PortGroup
from designer.model.catalog import Catalog, Component
from designer.model.geometry import FRAME_PADDING
from designer.model.units import count

KIND = "nvl72"
TRAY_BASE_M = 0.2
TRAY_STEP_M = 0.05


@dataclass(frozen=True)
class _Racks:
    """What building each rack shares: the builder, the models, the rack shape and the canvas offsets."""

    b: Builder
    gpu_c: Component
    nic_c: Component
    fab_c: Component
    leaf_c: Component | None
    scaleup: str
    trays: int
    gpus_per_tray: int
    racks_per_domain: int
    fabric_dx: float
    rack_w: float
    top: float


def _check_counts(b: Builder, racks: int, racks_per_domain: int, trays: int, gpus_per_tray: int,
                  scaleout: bool) -> None:
    """Refuse empty counts, domains that do not divide the racks, and domains with no network between them."""
    for name, value in (("racks", racks), ("trays", trays), ("gpus_per_tray", gpus_per_tray)):
        if value < 1:
            raise b.error(f"{name} must be at least 1, got {value}")
    if racks_per_domain < 1 or racks % racks_per_domain:
        raise b.error(f"racks_per_domain ({racks_per_domain}) must divide racks ({racks})")
    if racks > racks_per_domain and not scaleout:
        raise b.error(f"{racks} racks need a scale-out network to reach each other: "
                      f"turn {setting('scaleout', True)} or use {setting('racks', 1)}")


def _rack_models(b: Builder, gpu: str, nic: str, nvswitch: str, trays: int,
                 gpus_per_tray: int) -> tuple[Component, Component, Component, str]:
    """GPU, NIC and NVLink fabric models and the GPU's scale-up port, checked to fit one rack."""
    gpu_c = b.model(gpu, "gpu", "GPU")
    nic_c = b.model(nic, "nic", "NIC")
    fab_c = b.model(nvswitch, "nvswitch", "NVLink fabric")
    scaleup = next((f"{g.prefix}1" for g in gpu_c.ports if g.kind == "nvlink"), "")
    if not scaleup:
        raise b.error(f"GPU {gpu!r} has no NVLink port")
    gpus = trays * gpus_per_tray
    fab_ports = sum(g.count for g in fab_c.ports if g.kind == "nvlink")
    if gpus > fab_ports:
        raise b.error(f"{trays} trays x {gpus_per_tray} GPUs = {gpus} GPUs but {fab_c.id} has {fab_ports} GPU ports")
    return gpu_c, nic_c, fab_c, scaleup


def _plan_scaleout(b: Builder, racks: int, trays: int, rails: int, oversubscription: float, switch: str,
                   spine_switch: str) -> tuple[Component, Component, int, int]:
    """Leaf and spine models, spine count and links per leaf-spine pair of the rail scale-out."""
    leaf_c = b.model(switch, "switch", "leaf switch")
    spine_c = b.model(spine_switch or switch, "switch", "spine switch")
    uplinks = whole(KIND, f"uplinks per leaf (trays / oversubscription = {trays}/{oversubscription:g})",
                    trays / oversubscription)
    leaf_ports = switch_ports(leaf_c)
    if trays + uplinks > leaf_ports:
        raise b.error(
            f"each rail leaf needs {trays} host + {uplinks} uplink ports but {leaf_c.id} has {leaf_ports}")
    spines, per_pair = upper_tier_size(KIND, racks * rails, uplinks, switch_ports(spine_c), "leaves", "spines",
                                       spine_c.id)
    return leaf_c, spine_c, spines, per_pair


def _rail_leaves(r: _Racks, d: int, left: float) -> list[Device]:
    """Rack ``d``'s network rack beside it, with a leaf per rail."""
    dom = f"nvl{d}"
    net_gid = f"{dom}-net"
    net_rack = r.b.rack(net_gid, f"network rack {d}")
    rack_leaves = []
    for rail in range(1, r.gpus_per_tray + 1):
        leaf = r.b.device(r.leaf_c, f"{dom}-leaf{rail}", tier="leaf", x=left + (rail - 1) * DX, y=TIER_DY,
                          group=net_gid, properties={"domain": d, "rail": rail})
        r.b.place(leaf.id, net_rack, SWITCH_BASE_M + (rail - 1) * SWITCH_STEP_M)
        rack_leaves.append(leaf)
    return rack_leaves


def _add_tray(r: _Racks, d: int, t: int, left: float, rack: int, fab: Device, base: int,
              rack_leaves: list[Device]) -> None:
    """Tray ``t``: its GPUs on the domain's NVLink fabric (from port ``base`` on), each with its own NIC,
    cabled to its rail leaf."""
    b, dom = r.b, f"nvl{d}"
    tray = b.group(f"{dom}-tray{t}", "server", f"compute tray {t}", dom)
    height = TRAY_BASE_M + (t - 1) * TRAY_STEP_M
    y = r.top + (t - 1) * NODE_DY
    for i in range(1, r.gpus_per_tray + 1):
        props = {"domain": (d - 1) // r.racks_per_domain + 1, "rail": i}
        g_dev = b.device(r.gpu_c, f"{tray}-gpu{i}", x=left + (i - 1) * DX, y=y + 60, group=tray, properties=props)
        n_dev = b.device(r.nic_c, f"{tray}-nic{i}", x=left + (i - 1) * DX, y=y, group=tray, properties=dict(props))
        b.place(g_dev.id, rack, height)
        b.place(n_dev.id, rack, height)
        b.board_link(f"{g_dev.id}--{fab.id}", g_dev.id, r.scaleup, fab.id,
                     f"nvl{base + (t - 1) * r.gpus_per_tray + i}", "nvlink")
        b.board_link(f"{g_dev.id}--{n_dev.id}", g_dev.id, "pcie1", n_dev.id, "pcie1", "pcie")
        if rack_leaves:
            b.cable_link(f"{n_dev.id}--{rack_leaves[i - 1].id}", n_dev, rack_leaves[i - 1])


def _build_rack(r: _Racks, d: int, fab: Device | None) -> tuple[Device, list[Device]]:
    """Rack ``d``: its domain's NVLink fabric when it is the domain's first rack (else ``fab``), its rail
    leaves (with scale-out) and trays. Returns the domain's fabric and the rack's leaves."""
    dom = f"nvl{d}"
    left = (d - 1) * r.rack_w
    gpus = r.trays * r.gpus_per_tray
    rack = r.b.rack(dom, f"NVL{gpus} rack {d}")
    base = ((d - 1) % r.racks_per_domain) * gpus  # the domain's fabric ports before this rack's
    if base == 0:
        fab = _fabric(r.b, r.fab_c, f"{dom}-nvsw", r.racks_per_domain, x=left + r.fabric_dx,
                      y=r.top + (r.trays - 1) * NODE_DY / 2 + 30, group=dom, domain=(d - 1) // r.racks_per_domain + 1)
        r.b.place(fab.id, rack, TRAY_BASE_M + r.trays / 2 * TRAY_STEP_M)
    rack_leaves = _rail_leaves(r, d, left) if r.leaf_c is not None else []
    for t in range(1, r.trays + 1):
        _add_tray(r, d, t, left, rack, fab, base, rack_leaves)
    return fab, rack_leaves


def _build_nvl72(
    catalog: Catalog | None,
    *,
    racks: int,
    racks_per_domain: int,
    trays: int,
    gpus_per_tray: int,
    gpu: str,
    nic: str,
    nvswitch: str,
    scaleout: bool,
    oversubscription: float,
    switch: str,
    spine_switch: str,
    cable: str,
    copper_max_m: float,
    long_medium: str,
    racks_per_row: int,
    breakout: int,
) -> Design:
    """Build from parameters ``SPEC.check`` filled in and checked (the defaults live in ``SPEC``)."""
    b = Builder(KIND, catalog, cable=cable, copper_max_m=copper_max_m, long_medium=long_medium,
                racks_per_row=racks_per_row, breakout=breakout)
    _check_counts(b, racks, racks_per_domain, trays, gpus_per_tray, scaleout)
    gpu_c, nic_c, fab_c, scaleup = _rack_models(b, gpu, nic, nvswitch, trays, gpus_per_tray)
    gpus = trays * gpus_per_tray
    leaf_c = None
    if scaleout:
        leaf_c, spine_c, spines, per_pair = _plan_scaleout(b, racks, trays, gpus_per_tray, oversubscription, switch,
                                                           spine_switch)
    # Canvas: the trays of a rack stacked, its NVLink fabric to their right (clear of the tray
    # frames), the rack's network rack with its rail leaves above.
    fabric_dx = (gpus_per_tray - 1) * DX + 34 + 2 * FRAME_PADDING + FRAME_GAP + 36
    rack_w = fabric_dx + 36 + 34 + 4 * FRAME_PADDING + 2 * FRAME_GAP + DX
    top = 2 * TIER_DY if scaleout else 0.0
    r = _Racks(b, gpu_c, nic_c, fab_c, leaf_c, scaleup, trays, gpus_per_tray, racks_per_domain, fabric_dx, rack_w, top)
    fab, leaves = None, []
    for d in range(1, racks + 1):
        fab, rack_leaves = _build_rack(r, d, fab)
        leaves.extend(rack_leaves)
    if scaleout:
        spine_devs = switch_row(b, spine_c, [f"spine{s}" for s in range(1, spines + 1)], tier="spine", y=0.0,
                                left=leaves[0].x, right=leaves[-1].x, group_prefix="spine", new_row=True)
        connect_all(b, leaves, spine_devs, per_pair)
    scaleout_text = f", rail scale-out on {switch} leaves and spines" if scaleout else ", no scale-out network"
    if racks_per_domain > 1:
        return b.design(
            f"NVL{gpus * racks_per_domain} x {racks // racks_per_domain}",
            f"{count(racks // racks_per_domain, 'NVLink domain')} of {racks_per_domain} racks of {trays} trays x "
            f"{gpus_per_tray} {gpu} GPUs, their switch trays one NVLink fabric" + scaleout_text,
            racks=racks, gpus=gpus * racks,
        )
    return b.design(
        f"NVL{gpus} x {racks}",
        f"{count(racks, 'rack-scale NVLink domain')} of {trays} trays x {gpus_per_tray} {gpu} GPUs on {fab_c.id}"
        + scaleout_text,
        racks=racks, gpus=gpus * racks,
    )


def _fabric(b: Builder, fab_c, device_id: str, racks: int, *, x: float, y: float, group: str, domain: int):  # noqa: ANN001, ANN202
    """A domain's NVLink switch fabric: the catalog model for one rack; for a multi-rack domain one
    fabric of ``racks`` times its ports (the racks' switch trays joined; no model: its power and
    price are the racks' catalog fabrics', its NVLS and latency theirs)."""
    if racks == 1:
        return b.device(fab_c, device_id, x=x, y=y, group=group, properties={"domain": domain})
    ports = tuple(PortGroup(g.prefix, g.count * racks, float(g.speed_gbps), g.kind, g.form_factor, g.lanes)
                  for g in fab_c.ports)
    props = {"domain": domain, "based_on": fab_c.id, "nvls": bool(fab_c.specs.get("nvls", False)),
             "latency_ns": fab_c.latency_ns, "power_w": fab_c.power_w * racks, "price_usd": fab_c.price_usd * racks}
    return b.add(Device(device_id, "nvswitch", ports, name=f"{fab_c.name} x {racks} racks", x=x, y=y, group=group,
                        properties=props))


SPEC = GeneratorSpec(
    kind=KIND,
    description="GB200 NVL72-style rack-scale NVLink domains (72 GPUs on one NVLink switch fabric)",
    params=(
        Param("racks", "int", 1, "racks", minimum=1, maximum=1024),
        Param("racks_per_domain", "int", 1, "racks whose NVLink switch trays form one NVLink domain (2: NVL144 "
              "partitions of two racks); modelled as one fabric of their ports together", minimum=1, maximum=16),
        Param("trays", "int", 18, "compute trays per rack", minimum=1, maximum=72),
        Param("gpus_per_tray", "int", 4, "GPUs (and NICs) per compute tray", minimum=1, maximum=8),
        Param("gpu", "model", "b200", "GPU model", model_kind="gpu"),
        Param("nic", "model", "connectx-8-800g", "NIC model (one per GPU)", model_kind="nic"),
        Param("nvswitch", "model", "nvl72-nvswitch", "rack NVLink switch fabric model", model_kind="nvswitch"),
        Param("scaleout", "bool", True, "rail leaves per rack and a spine layer joining the racks"),
        Param("oversubscription", "float", 1.0, "leaf host ports per uplink", minimum=1.0, maximum=64.0),
        Param("switch", "model", "sn5600", "leaf switch model", model_kind="switch"),
        Param("spine_switch", "model", "", "spine switch model ('' = same as leaf)", model_kind="switch"),
    )
    + cabling_params()
    + breakout_params(),
    func=_build_nvl72,
)


def build_nvl72(catalog: Catalog | None = None, **params: Any) -> Design:
    """``racks`` NVL72-style domains of ``trays x gpus_per_tray`` GPUs.

    Parameters, defaults and limits are ``SPEC.params`` (an unknown or out-of-range value raises
    GeneratorError); ``catalog`` None is the built-in catalog.

    >>> d = build_nvl72(scaleout=False)
    >>> sum(x.kind == "gpu" for x in d.devices), d.link_count()
    (72, 144)
    """
    return SPEC.build(catalog, **params)
