"""Accelerators linked directly to each other (torus, mesh, hypercube), no switches.

Each accelerator is a ``gpu``-kind device with one network port group ``<prefix>1..N`` for its
direct links (TPU ICI-style). An accelerator whose catalog model has chip-to-chip network ports of
its own (the TPUs: ``ici`` ports) is that model, its links at the model's rate unless a rate is
given. A catalog GPU has one aggregated NVLink port instead, so its chips carry no catalog model:
``properties.based_on`` names the GPU model whose ``power_w`` and ``price_usd`` they copy for the
bill of materials and whose peak FLOP/s the training step reads.
"""

from __future__ import annotations

from designer.generators.base import Builder
from designer.generators.params import Param
from designer.model import Device, PortGroup

#: Accelerators per tray and height of the lowest tray / tray pitch in a rack, metres.
PER_TRAY = 4
#: Direct link rate of a chip whose model lists no chip-to-chip ports (a GPU), Gb/s per direction:
#: TPU v4's ICI link (catalog ``tpu-v4``).
GPU_DIRECT_LINK_GBPS = 400.0
TRAY_BASE_M = 0.2
TRAY_STEP_M = 0.1


def direct_params() -> tuple[Param, ...]:
    return (
        Param("gpu", "model", "h100-sxm", "accelerator model: a TPU (tpu-v4, tpu-v5e, tpu-v5p, tpu-v6e) is itself, "
              "with its ICI ports; a GPU lends its power, price and peak FLOP/s", model_kind="gpu"),
        Param("link_speed_gbps", "float", 0.0, "per-direction rate of each direct link, Gb/s (0 = the accelerator's "
              f"own ICI link rate, {GPU_DIRECT_LINK_GBPS:g} for a GPU)", minimum=0.0, maximum=100000.0),
    )


def chip_links(b: Builder, gpu: str, ports: int, link_speed_gbps: float, shape: str) -> float:
    """The rate of a chip's direct links, Gb/s: the one given, else its model's ICI rate (a GPU's:
    :data:`GPU_DIRECT_LINK_GBPS`). Refuses a shape that needs more links than the model has."""
    comp = b.model(gpu, "gpu", "GPU")
    own = [g for g in comp.ports if g.kind == "network"]
    have = sum(g.count for g in own)
    if own and ports > have:
        raise b.error(f"{shape} needs {ports} links per chip; {gpu} has {have} ICI ports")
    if link_speed_gbps > 0:
        return float(link_speed_gbps)
    return max(g.speed_gbps for g in own) if own else GPU_DIRECT_LINK_GBPS


def accelerator(b: Builder, gpu: str, device_id: str, ports: int, prefix: str, speed_gbps: float, *,
                x: float, y: float, group: str, rack: int, slot: int, props: dict) -> Device:
    """An accelerator with ``ports`` direct network ports, placed in tray ``slot // PER_TRAY`` of ``rack``."""
    comp = b.model(gpu, "gpu", "GPU")
    if any(g.kind == "network" for g in comp.ports):  # a chip with its own ICI ports: the model itself
        dev = b.add(Device(device_id, "gpu", (PortGroup(prefix, ports, float(speed_gbps), "network", "ICI"),),
                           model=comp.id, name="", x=x, y=y, group=group, properties=dict(props)))
    else:
        dev = b.add(Device(
            device_id, "gpu", (PortGroup(prefix, ports, float(speed_gbps), "network", "OSFP"),),
            name="", x=x, y=y, group=group,
            properties={**props, "based_on": comp.id, "power_w": comp.power_w, "price_usd": comp.price_usd},
        ))
    b.place(device_id, rack, TRAY_BASE_M + (slot // PER_TRAY) * TRAY_STEP_M)
    return dev
