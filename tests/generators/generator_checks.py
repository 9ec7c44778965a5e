"""Helpers for generator tests: invariant checks every generated design must pass."""

from __future__ import annotations

from collections import Counter

from designer.analysis.rules.check import check_design
from designer.model import Design, check_id
from designer.model.catalog import builtin_catalog


def assert_sound(design: Design) -> None:
    """Model invariants, port budgets and the design rules: no findings at all."""
    catalog = builtin_catalog()
    ports_used: Counter[tuple[str, str]] = Counter()
    per_device: Counter[str] = Counter()
    for link in design.iter_links():
        check_id(link.id)
        assert link.a_device != link.b_device
        ports_used[(link.a_device, link.a_port)] += 1
        ports_used[(link.b_device, link.b_port)] += 1
        per_device[link.a_device] += 1
        per_device[link.b_device] += 1
    assert max(ports_used.values(), default=1) == 1, "a port holds more than one link"
    for dev in design.iter_devices():
        assert per_device[dev.id] <= dev.port_count
        if dev.model:
            comp = catalog.component(dev.model)
            # switch ports broken out, or a GPU's NVLink links split into one port per direct link
            assert dev.port_count <= sum(g.count for g in comp.ports) * max((1, *comp.breakouts)) + comp.scale_up_links
        if dev.group is not None:
            assert design.has_group(dev.group)
    findings = check_design(design, catalog)
    assert findings == [], [f.message for f in findings[:5]]


def kinds(design: Design) -> Counter[str]:
    """Devices counted by tier (switches) or kind (everything else)."""
    return Counter(d.tier or d.kind for d in design.iter_devices())


def network_links_between(design: Design, tier_a: str, tier_b: str) -> int:
    """Cabled links joining a device of ``tier_a`` to one of ``tier_b`` (``node`` = no tier)."""
    want = sorted((tier_a, tier_b))
    n = 0
    for link in design.iter_links():
        if link.medium in ("nvlink", "pcie"):
            continue
        ta = design.device(link.a_device).tier or "node"
        tb = design.device(link.b_device).tier or "node"
        n += sorted((ta, tb)) == want
    return n
