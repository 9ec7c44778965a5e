"""The automatic floor plan lets cables reach at the largest sizes; help text is true for each kind."""

from __future__ import annotations

import argparse

import pytest

from designer.cli import generate as cli_generate
from designer.generators import GeneratorError, build_fat_tree
from designer.generators.physical import FloorPlan

OLD_SENTENCE = "Network links run at the speed of the port models (400 Gb/s for the defaults)"


@pytest.mark.slow
def test_largest_fat_tree_builds_on_the_default_floor():
    design = build_fat_tree(k=64)
    assert sum(d.kind == "gpu" for d in design.iter_devices()) == 65536
    rows = {g.properties["row"] for g in design.iter_groups() if g.kind == "rack"}
    positions = {g.properties["position"] for g in design.iter_groups() if g.kind == "rack"}
    assert len(positions) > 18 and len(rows) < 100  # a square-ish floor, not 900 rows of 18


def test_rows_of_18_are_kept_while_cables_reach():
    design = build_fat_tree(k=8)
    assert max(g.properties["position"] for g in design.iter_groups() if g.kind == "rack") == 18


def test_square_floor_widths():
    assert FloorPlan().square_racks_per_row([False] * 10) == 18
    assert FloorPlan().square_racks_per_row([False] * 16384) == 256


def test_a_fixed_row_length_that_does_not_reach_names_the_flag_that_fixes_it():
    with pytest.raises(GeneratorError, match=r"--racks-per-row 0"):
        build_fat_tree(k=32, racks_per_row=1)


def _help(kind: str) -> str:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    cli_generate.add_parser(sub)
    generate = sub.choices["generate"]
    kinds = next(a for a in generate._actions if isinstance(a, argparse._SubParsersAction))
    return " ".join(kinds.choices[kind].description.split())


def test_nvl72_help_gives_its_800g_default_speed():
    text = _help("nvl72")
    assert "800 Gb/s" in text and "400 Gb/s" not in text


@pytest.mark.parametrize("kind", ["server", "torus", "hypercube"])
def test_kinds_without_switches_do_not_repeat_the_switch_fabric_sentence(kind):
    text = _help(kind)
    assert OLD_SENTENCE not in text
    assert ("no network cables" in text) == (kind == "server")
    assert ("link directly" in text) == (kind != "server")
