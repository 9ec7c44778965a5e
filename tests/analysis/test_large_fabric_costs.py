"""Work that must not grow with switches x devices on a large fabric (131,072 GPUs: 7,168 switches)."""

from __future__ import annotations

from designer.analysis.collectives.hashed import routing_mode
from designer.analysis.fabric.context import build_context
from designer.generators import build_rail_optimized
from designer.model import Design


def test_the_default_routing_mode_reads_the_device_list_once(monkeypatch):
    ctx = build_context(build_rail_optimized(sus=2, nodes_per_su=4, switch="sn5600", breakout=2))
    reads = []
    original = Design.devices.fget

    def counted(self):
        reads.append(1)
        return original(self)

    monkeypatch.setattr(Design, "devices", property(counted))
    mode = routing_mode(ctx)
    assert mode.mode in ("hashed", "adaptive")  # Ethernet switches: each one's model was examined
    assert len(reads) <= 1
