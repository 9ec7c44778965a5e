"""Generated twin-port cages hold one medium and one module each (one module or cable end per cage)."""

from __future__ import annotations

from pathlib import Path

import pytest
from generator_checks import assert_sound

from designer.analysis.common.cages import mixed_cages
from designer.generators import GENERATORS, build_rail_optimized
from designer.generators.samples import SAMPLES
from designer.io import load_design

FOLDER = Path(__file__).resolve().parents[2] / "sample_designs"


def _messages(design) -> list[str]:
    return [m.message for m in mixed_cages(design)[:3]]


@pytest.mark.parametrize("kind", list(GENERATORS))
def test_default_design_has_no_mixed_cage(kind):
    design = GENERATORS[kind].build()
    assert mixed_cages(design) == [], _messages(design)


@pytest.mark.parametrize("sample", [s for s in SAMPLES if "16k" not in s.file], ids=lambda s: s.file)
def test_sample_file_has_no_mixed_cage(sample, loaded_samples):
    design = loaded_samples[sample.file]
    assert mixed_cages(design) == [], _messages(design)


def test_superpod_4su_sample_has_no_mixed_cage():
    design = load_design(FOLDER / "superpod-h100-4su.json")
    assert design.device("su4-leaf5").ports[0].per_cage == 2
    assert mixed_cages(design) == [], _messages(design)


@pytest.mark.slow
def test_16k_sample_has_no_mixed_cage(built_samples):
    (sample,) = [s for s in SAMPLES if "16k" in s.file]
    design = built_samples[sample.file]
    assert mixed_cages(design) == [], _messages(design)


@pytest.mark.parametrize("sus", [1, 2, 3, 4])
def test_superpod_with_ufm_uses_whole_cages_per_medium(sus):
    # The UFM slot leaves 31 host links on half the leaves: their uplinks must not share a cage with them.
    design = build_rail_optimized(sus=sus, ufm=True)
    assert mixed_cages(design) == [], _messages(design)


def test_full_leaves_fit_by_moving_a_lone_link_to_the_medium_of_the_last_uplinks():
    # 32 hosts + 32 uplinks fill every leaf port; with 3 servers a rack some host links are alone in
    # their medium, and the last uplinks only fit once such a link is re-cabled to match them.
    design = build_rail_optimized(sus=3, ufm=True, nodes_per_rack=3, racks_per_row=2, long_medium="auto")
    assert mixed_cages(design) == [], _messages(design)
    assert_sound(design)


def test_a_forced_cable_fills_cages_in_port_order():
    design = build_rail_optimized(sus=1, nodes_per_su=4, cable="sr4-400g-mm")
    leaf = [lk for lk in design.iter_links() if lk.b_device == "su1-leaf1"]
    assert sorted(lk.b_port for lk in leaf) == ["p1", "p2", "p3", "p4"]
