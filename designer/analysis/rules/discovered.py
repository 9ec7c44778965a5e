"""Design rules on what a fabric's own discovery recorded (an imported ibnetdiscover dump).

- ``degraded-link`` (warning): a link's recorded negotiated rate (``properties.negotiated_gbps``,
  with ``ib_rate`` such as ``4xDDR``) is below the faster of its two ports: an older adapter on a
  faster fabric, or a cable or port that trained down. It replaces ``speed-mismatch`` on that link.
- ``loopback-cable`` (warning): a switch's ``loopback_cables`` property lists cables whose two ends
  are on the switch itself (the model has no self-links, so the import keeps them there).
"""

from __future__ import annotations

from designer.analysis.common.findings import WARNING, Finding
from designer.model import Design
from designer.model.units import line_rate


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def check_measured(design: Design, out: list[Finding]) -> None:
    """Append the findings above to ``out`` (and drop the ``speed-mismatch`` a degraded link repeats)."""
    degraded: set[str] = set()
    found: list[Finding] = []
    for link in design.iter_links():
        negotiated = _number(link.properties.get("negotiated_gbps"))
        if negotiated is None:
            continue
        pa = design.device(link.a_device).port(link.a_port)
        pb = design.device(link.b_device).port(link.b_port)
        if pa is None or pb is None:
            continue
        fast = max(pa.speed_gbps, pb.speed_gbps)
        if negotiated >= fast - 1e-9:
            continue
        degraded.add(link.id)
        label = link.properties.get("ib_rate")
        what = f"{line_rate(negotiated)} ({label})" if isinstance(label, str) and label else line_rate(negotiated)
        counts = "the analysis counts the rate it runs at"
        found.append(Finding(WARNING, "degraded-link", (
            f"{link.id}: runs at {what} where its ports run at up to {line_rate(fast)}: a degraded link (an older "
            f"adapter on a faster fabric, or a cable or port that trained down); {counts}; reseat or replace the "
            "cable, or plan for the slower rate"), (link.a_device, link.b_device), (link.id,)))
    for dev in design.iter_devices():
        loops = dev.properties.get("loopback_cables")
        if not isinstance(loops, list):
            continue
        for pair in loops:
            ports = " and ".join(f"p{p}" for p in pair) if isinstance(pair, list) and pair else "two ports"
            found.append(Finding(WARNING, "loopback-cable", (
                f"{dev.id}: a cable joins its own {ports} (a loopback cable): it carries no traffic and takes two "
                "ports; remove it or cable it to another switch"), (dev.id,)))
    if degraded:
        out[:] = [f for f in out if not (f.code == "speed-mismatch" and f.links and set(f.links) <= degraded)]
    out.extend(found)
