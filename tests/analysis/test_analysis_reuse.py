"""What the live window relies on: re-use of routes, a chosen size and algorithm, link tiers."""

from __future__ import annotations

import numpy as np
import pytest

from designer.analysis import analyze, build_context
from designer.analysis.collectives import algorithms
from designer.analysis.fabric.tiers import TIERS
from designer.generators import GENERATORS


@pytest.fixture(scope="module")
def su():
    return GENERATORS["rail-optimized"].build(sus=1)


def test_a_new_size_or_algorithm_reuses_the_routes(su, monkeypatch):
    ctx = build_context(su)
    first = analyze(su, context=ctx)
    calls = []
    for name in ("ring_model", "tree_model", "hier_model"):
        real = getattr(algorithms, name)
        monkeypatch.setattr("designer.analysis.collectives.times." + name,
                            lambda *a, _real=real, **k: calls.append(1) or _real(*a, **k))
    again = analyze(su, context=ctx, at_bytes=1 << 20, prefer="ring")
    assert calls == []  # no algorithm was embedded and routed again
    assert again.bisection is first.bisection
    assert again.link_use_bytes == 1 << 20 and first.link_use_bytes == 8 << 30
    assert {r.algorithm for r in again.selected()} == {"ring"}
    # the same figures as a fresh analysis with the same arguments
    fresh = analyze(su, at_bytes=1 << 20, prefer="ring")
    assert np.array_equal(fresh.links.utilization, again.links.utilization)
    assert [r.time_s for r in fresh.collectives] == [r.time_s for r in again.collectives]


def test_context_of_another_design_is_refused(su):
    with pytest.raises(ValueError, match="another design"):
        analyze(su.copy(), context=build_context(su))


def test_prefer_an_algorithm_that_cannot_run_says_so():
    d = GENERATORS["torus"].build()  # no NVSwitch: no NVLS
    rep = analyze(d, prefer="nvls")
    assert any("nvls: cannot run" in n for n in rep.notes)
    assert rep.selected()


def test_progress_is_reported_and_can_cancel(su):
    class Stop(Exception):
        pass

    stages = []

    def progress(stage, done, total):
        stages.append((stage, done, total))
        if stage == "collectives":
            raise Stop

    with pytest.raises(Stop):
        analyze(su, progress=progress)
    assert [s for s, _, _ in stages] == ["routes", "bisection", "collectives"]


def test_links_are_split_by_tier():
    d = GENERATORS["clos3"].build()
    rep = analyze(d)
    names = {TIERS[t] for t in rep.links.tier}
    assert {"nvlink", "access", "leaf-spine", "spine-core"} <= names
    for i in range(len(rep.links)):
        tier = TIERS[rep.links.tier[i]]
        a, b = rep.links.src[i], rep.links.dst[i]
        ta, tb = d.device(a).tier, d.device(b).tier
        if tier == "leaf-spine":
            assert {ta, tb} == {"leaf", "spine"}
        if tier == "spine-core":
            assert {ta, tb} == {"spine", "core"}


def test_ceiling_is_the_bottleneck_at_line_rate():
    rep = analyze(GENERATORS["rail-optimized"].build(sus=1), sizes=[8 << 30])
    sel = rep.selected()[0]
    # the selected algorithm reaches at most the ceiling, and within the protocol efficiency of it
    assert sel.busbw_bytes_per_s < rep.ceiling_busbw_bytes_per_s < 1.3 * sel.busbw_bytes_per_s
    assert rep.ceiling_link
