"""One definition per quantity: a link's rate, the meaning of ``catalog=None``, the analysis inputs."""

from __future__ import annotations

import inspect
import random
from pathlib import Path

import pytest

from designer.analysis.bisection.bounds import bisection_bounds
from designer.analysis.bom.bill import bill_of_materials
from designer.analysis.collectives.times import FairRates, FairStatus, collective_times, fair_rates
from designer.analysis.common import constants as K
from designer.analysis.common.cages import mixed_cages
from designer.analysis.fabric.capacity import build_capacity_graph
from designer.analysis.fabric.context import Context, build_context
from designer.analysis.report import analyze
from designer.analysis.rules.check import check_design
from designer.generators import GENERATORS
from designer.model import Design, Device, Link, PortGroup
from designer.model.catalog import Catalog, builtin_catalog, line_rate_gbps, link_rate_gbps, link_rates_gbps

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "sample_designs").glob("*.json"))


def _expected_line_bytes(design: Design, link_id: str, catalog: Catalog) -> float:
    rate = link_rate_gbps(design, design.link(link_id), catalog)
    return min(rate, K.MAX_LINK_GBPS) * K.BYTES_PER_S_PER_GBPS


def assert_capacity_rates_are_link_rates(design: Design, catalog: Catalog) -> None:
    cap = build_capacity_graph(design, catalog)
    assert cap.link_ids, "the design has no usable link"
    for i, lid in enumerate(cap.link_ids):
        assert float(cap.line_bytes_per_s[i]) == _expected_line_bytes(design, lid, catalog), lid
    for lid, why in cap.excluded:
        if why == "zero capacity":
            assert link_rate_gbps(design, design.link(lid), catalog) < K.MIN_LINK_GBPS


@pytest.mark.parametrize(
    "path",
    [pytest.param(p, marks=pytest.mark.slow) if "16k" in p.name else p for p in SAMPLES],
    ids=lambda p: p.name,
)
def test_the_analyzer_rates_every_sample_link_as_the_model_does(path, loaded_samples):
    assert_capacity_rates_are_link_rates(loaded_samples[path.name], builtin_catalog())


@pytest.mark.parametrize("dense", [True, False], ids=["table", "sorted"])
def test_the_analyzer_rates_mixed_ports_and_cables_as_the_model_does(dense, monkeypatch):
    """Every mix of port speeds and cables (slower, faster, unknown, none, too slow) agrees."""
    import designer.analysis.fabric.capacity as capacity

    monkeypatch.setattr(capacity, "DENSE_SIGNATURES", capacity.DENSE_SIGNATURES if dense else 0)
    rng = random.Random(7)
    cat = builtin_catalog()
    cables = ["", "no-such-cable", *sorted(cat.cables)]
    speeds = [1e-4, 100.0, 200.0, 400.0, 800.0, 1600.0, 3600.0, 2e5]
    d = Design()
    for i in range(120):
        d.add_device(Device(f"a{i}", "switch", (PortGroup("p", 1, rng.choice(speeds)),)))
        d.add_device(Device(f"b{i}", "switch", (PortGroup("p", 1, rng.choice(speeds)),)))
        d.add_link(Link(f"l{i}", f"a{i}", "p1", f"b{i}", "p1", length_m=1.0, cable=rng.choice(cables)))
    assert_capacity_rates_are_link_rates(d, cat)


def test_rates_of_many_links_at_once_are_each_links_own_rate():
    """link_rates_gbps works each distinct (port groups, ports, cable) out once: devices sharing one
    port-group tuple, ports of different speeds in it, cables and negotiated rates still give each
    link the rate of its own ports, cable and negotiation."""
    rng = random.Random(11)
    cat = builtin_catalog()
    cables = ["", "no-such-cable", *sorted(cat.cables)[:6]]
    mixed = (PortGroup("fast", 4, 800.0), PortGroup("slow", 4, 100.0))  # one tuple, two speeds
    other = (PortGroup("p", 8, 400.0),)
    d = Design()
    for i in range(16):
        d.add_device(Device(f"m{i}", "switch", mixed))
        d.add_device(Device(f"o{i}", "switch", other))
    expected = []
    for i in range(16):
        for j in range(4):
            port = rng.choice(["fast", "slow"]) + str(j + 1)
            cable = rng.choice(cables)
            props = {"negotiated_gbps": 50.0} if rng.random() < 0.2 else {}
            d.add_link(Link(f"l{i}-{j}", f"m{i}", port, f"o{(i + j) % 16}", f"p{j + 1 + 4 * (i % 2)}",
                            length_m=1.0, cable=cable, properties=props))
            rate = line_rate_gbps(800.0 if port.startswith("fast") else 100.0, 400.0, cat.cables.get(cable))
            expected.append(min(rate, 50.0) if props else rate)
    links = list(d.iter_links())
    assert link_rates_gbps(d, links, cat) == expected
    assert [link_rate_gbps(d, lk, cat) for lk in links] == expected
    assert link_rates_gbps(d, [], cat) == []


def _800g_pair_with_a_400g_cable() -> tuple[Design, Catalog]:
    cat = builtin_catalog()
    cable = next(c for c in sorted(cat.cables.values(), key=lambda c: c.id)
                 if c.rate_gbps == 400.0 and c.medium == "passive_copper")
    d = Design()
    net = (PortGroup("p", 1, 800.0),)
    d.add_device(Device("a", "switch", net))
    d.add_device(Device("b", "switch", net))
    d.add_link(Link("l1", "a", "p1", "b", "p1", medium="passive_copper", length_m=1.0, cable=cable.id))
    return d, cat


def test_a_400g_cable_on_800g_ports_is_a_400g_link_for_rules_and_analysis():
    d, cat = _800g_pair_with_a_400g_cable()
    assert link_rate_gbps(d, d.link("l1"), cat) == 400.0
    assert line_rate_gbps(800.0, 800.0, cat.cable(d.link("l1").cable)) == 400.0
    assert build_capacity_graph(d, cat).line_bytes_per_s[0] == 400.0 * K.BYTES_PER_S_PER_GBPS
    assert "cable-rate" in {f.code for f in check_design(d, cat)}


def test_the_rules_have_no_rate_function_of_their_own():
    import designer.analysis.rules.check as rules

    assert not hasattr(rules, "link_rate_gbps") and not hasattr(rules, "_line_rate")


# --------------------------------------------------------------------------- catalog=None
CATALOG_TAKERS = [build_capacity_graph, build_context, analyze, check_design, bill_of_materials, mixed_cages]


@pytest.mark.parametrize("func", CATALOG_TAKERS, ids=lambda f: f.__name__)
def test_catalog_none_is_the_built_in_catalog_everywhere(func):
    par = inspect.signature(func).parameters["catalog"]
    assert par.default is None
    assert "str" not in str(par.annotation), f"{func.__name__} still takes a catalog name"


def test_no_catalog_argument_analyzes_with_the_built_in_catalog():
    d = GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8)  # QM9700: InfiniBand
    implicit, explicit, empty = (build_capacity_graph(d, c) for c in (None, builtin_catalog(), Catalog()))
    assert set(implicit.protocol.tolist()) == set(explicit.protocol.tolist())
    assert "infiniband" in {implicit.protocol_name(i) for i in range(implicit.n_links)}
    assert "infiniband" not in {empty.protocol_name(i) for i in range(empty.n_links)}
    assert build_context(d).cap.protocol.tolist() == explicit.protocol.tolist()


# --------------------------------------------------------------------------- typed analysis inputs
@pytest.mark.parametrize("func", [bisection_bounds, collective_times], ids=lambda f: f.__name__)
def test_analyses_take_a_context_not_a_design(func):
    d = GENERATORS["server"].build()
    with pytest.raises(TypeError, match="build_context"):
        func(d)
    assert func(build_context(d)) is not None


def test_context_module_has_no_design_or_context_coercion():
    import designer.analysis.fabric.context as context

    assert not hasattr(context, "as_context")
    assert isinstance(build_context(GENERATORS["server"].build()), Context)


def test_fair_rates_says_why_it_has_no_rates_in_a_typed_field():
    ctx = build_context(GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8))
    ring = next(m for m in collective_times(ctx, algorithms=["ring"], sizes=[1 << 20]).models)
    done = fair_rates(ctx, ring)
    assert isinstance(done, FairRates) and done.status is FairStatus.COMPUTED and done.computed
    assert done.share is not None and len(done.share.rate_bytes_per_s) == len(done.src) == len(done.dst)
    skipped = fair_rates(ctx, ring, budget=0)
    assert skipped.status is FairStatus.TOO_LARGE and not skipped.computed and skipped.share is None
    server = build_context(GENERATORS["server"].build())
    nvls = collective_times(server, algorithms=["nvls"], sizes=[1 << 20]).models[0]
    assert fair_rates(server, nvls).status is FairStatus.NO_FLOWS
