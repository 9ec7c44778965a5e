"""The registry: every kind, declarative parameters, defaults that build sound designs."""

from __future__ import annotations

import pytest
from generator_checks import assert_sound

from designer.generators import GENERATORS, GeneratorError, generate
from designer.generators.params import PARAM_TYPES
from designer.io import design_from_text, design_to_text
from designer.model import DesignError

KINDS = ["server", "nvl72", "leaf-spine", "clos3", "fat-tree", "rail-optimized", "torus", "hypercube", "dragonfly"]


def test_registry_lists_every_kind_in_order():
    assert list(GENERATORS) == KINDS


@pytest.mark.parametrize("kind", KINDS)
def test_spec_is_declarative_with_help_defaults_and_limits(kind):
    spec = GENERATORS[kind]
    assert spec.kind == kind
    assert spec.description and "\n" not in spec.description
    names = [p.name for p in spec.params]
    assert len(names) == len(set(names))
    for p in spec.params:
        assert p.type in PARAM_TYPES
        assert p.help
        assert p.coerce(kind, p.default) is not None
        if p.type in ("int", "float"):
            assert p.minimum is not None and p.maximum is not None


@pytest.mark.parametrize("kind", KINDS)
def test_defaults_build_a_sound_design(kind):
    design = GENERATORS[kind].build()
    assert design.device_count() > 0 and design.link_count() > 0
    assert design.properties["generator"] == kind
    assert_sound(design)


@pytest.mark.parametrize("kind", ["server", "fat-tree", "torus", "dragonfly", "rail-optimized"])
def test_generation_is_deterministic(kind):
    assert design_to_text(GENERATORS[kind].build()) == design_to_text(GENERATORS[kind].build())


@pytest.mark.parametrize("kind", KINDS)
def test_layout_puts_no_two_devices_on_the_same_spot_and_switch_tiers_above_endpoints(kind):
    design = GENERATORS[kind].build()
    positions = [(d.x, d.y) for d in design.iter_devices()]
    assert len(positions) == len(set(positions))
    switch_ys = [d.y for d in design.iter_devices() if d.kind == "switch"]
    endpoint_ys = [d.y for d in design.iter_devices() if d.kind in ("gpu", "nic")]
    if switch_ys:
        assert max(switch_ys) < min(endpoint_ys)


@pytest.mark.parametrize("kind", KINDS)
def test_generated_design_saves_and_reloads_byte_identically(kind):
    text = design_to_text(GENERATORS[kind].build())
    assert design_to_text(design_from_text(text)) == text


def test_generator_error_is_a_design_error():
    assert issubclass(GeneratorError, DesignError)


def test_unknown_kind_and_unknown_parameter_are_refused():
    with pytest.raises(GeneratorError, match="unknown generator 'ring'"):
        generate("ring")
    with pytest.raises(GeneratorError, match="fat-tree: unknown parameter 'radix'"):
        generate("fat-tree", radix=8)


@pytest.mark.parametrize(
    ("kind", "params", "message"),
    [
        ("fat-tree", {"k": "eight"}, "fat-tree: k must be a whole number"),
        ("fat-tree", {"k": 200}, "fat-tree: k must be <= 128, got 200"),
        ("leaf-spine", {"leaves": 0}, "leaf-spine: leaves must be >= 1, got 0"),
        ("rail-optimized", {"sus": 0}, "rail-optimized: sus must be >= 1, got 0"),
        ("rail-optimized", {"ufm": "maybe"}, "rail-optimized: ufm must be true or false"),
        ("torus", {"dims": "4xax4"}, "torus: dims must look like 4x4x8"),
        ("torus", {"dims": "0x4"}, r"torus: dims \(each size\) must be >= 1, got 0"),
        ("rail-optimized", {"long_medium": "laser"}, "long_medium must be one of auto, aoc, optical"),
        ("leaf-spine", {"switch": "qm9999"}, "leaf-spine: leaf switch model 'qm9999' is not in the catalog"),
        ("leaf-spine", {"switch": "h100-sxm"}, "leaf-spine: leaf switch model 'h100-sxm' is a gpu, not a switch"),
        ("leaf-spine", {"cable": "nvlink-board"}, "is a nvlink board connection"),
    ],
)
def test_bad_parameter_values_are_refused_naming_the_limit(kind, params, message):
    with pytest.raises(GeneratorError, match=message):
        generate(kind, **params)


def test_cli_style_strings_are_converted():
    design = generate("fat-tree", k="4", gpus_per_node="1")
    assert sum(d.kind == "gpu" for d in design.iter_devices()) == 16
