"""Accelerators linked directly to each other (torus, mesh, hypercube), no switches.

Each accelerator is a ``gpu``-kind device with one network port group ``<prefix>1..N`` for its
direct links (TPU ICI-style). The catalog GPU models have a single aggregated NVLink port, so
these devices carry no catalog model: ``properties.based_on`` names the GPU model whose
``power_w`` and ``price_usd`` they copy for the bill of materials.
"""

from __future__ import annotations

from designer.generators.base import Builder
from designer.generators.params import Param
from designer.model import Device, PortGroup

#: Accelerators per tray and height of the lowest tray / tray pitch in a rack, metres.
PER_TRAY = 4
TRAY_BASE_M = 0.2
TRAY_STEP_M = 0.1


def direct_params(link_speed_gbps: float = 400.0) -> tuple[Param, ...]:
    return (
        Param("gpu", "model", "h100-sxm", "GPU model the accelerators take power and price from", model_kind="gpu"),
        Param("link_speed_gbps", "float", link_speed_gbps, "per-direction rate of each direct link, Gb/s",
              minimum=1.0, maximum=100000.0),
    )


def accelerator(b: Builder, gpu: str, device_id: str, ports: int, prefix: str, speed_gbps: float, *,
                x: float, y: float, group: str, rack: int, slot: int, props: dict) -> Device:
    """An accelerator with ``ports`` direct network ports, placed in tray ``slot // PER_TRAY`` of ``rack``."""
    comp = b.model(gpu, "gpu", "GPU")
    dev = b.add(Device(
        device_id, "gpu", (PortGroup(prefix, ports, float(speed_gbps), "network", "OSFP"),),
        name="", x=x, y=y, group=group,
        properties={**props, "based_on": comp.id, "power_w": comp.power_w, "price_usd": comp.price_usd},
    ))
    b.place(device_id, rack, TRAY_BASE_M + (slot // PER_TRAY) * TRAY_STEP_M)
    return dev
