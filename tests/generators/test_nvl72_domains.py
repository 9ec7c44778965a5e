"""Scale-up domains beyond one rack: NVL72 racks joined into multi-rack NVLink domains."""

from __future__ import annotations

import pytest

from designer.analysis.collectives.times import collective_times
from designer.analysis.fabric.context import build_context
from designer.analysis.rules.check import check_design
from designer.generators import GENERATORS, GeneratorError


def test_two_racks_form_one_nvlink_domain_of_144_gpus():
    d = GENERATORS["nvl72"].build(racks=2, racks_per_domain=2, scaleout=False)
    fabrics = [x for x in d.devices if x.kind == "nvswitch"]
    assert len(fabrics) == 1 and sum(g.count for g in fabrics[0].ports) == 144
    assert not [f for f in check_design(d) if f.severity == "error"]
    ctx = build_context(d)
    assert ctx.fabric.n_domains == 1
    res = collective_times(ctx, sizes=[8 << 30])
    sel = next(r for r in res.rows if r.selected)
    assert res.servers == 1 and sel.algorithm == "nvls"  # NVLS across the two racks, no network


def test_domains_of_two_racks_meet_over_the_scale_out_network():
    d = GENERATORS["nvl72"].build(racks=4, racks_per_domain=2)
    ctx = build_context(d)
    assert ctx.fabric.n_domains == 2
    res = collective_times(ctx, sizes=[8 << 30])
    assert res.servers == 2 and any(r.selected for r in res.rows)
    with pytest.raises(GeneratorError, match="must divide racks"):
        GENERATORS["nvl72"].build(racks=3, racks_per_domain=2)
    with pytest.raises(GeneratorError, match="scale-out"):
        GENERATORS["nvl72"].build(racks=4, racks_per_domain=2, scaleout=False)
