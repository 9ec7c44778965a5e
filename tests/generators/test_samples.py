"""The shipped sample designs: up to date with the generators, clean, with the published counts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from generator_checks import assert_sound

from designer.analysis.bom.bill import bill_of_materials
from designer.generators.samples import SAMPLES
from designer.io import load_design

FOLDER = Path(__file__).resolve().parents[2] / "sample_designs"


def make_samples():
    """The script that writes the samples (kept next to them, not in the package)."""
    spec = importlib.util.spec_from_file_location("make_samples", FOLDER / "make_samples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_lists_every_sample_with_one_line():
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    for s in SAMPLES:
        assert sum(line.startswith(f"- `{s.file}`") for line in readme.splitlines()) == 1


@pytest.mark.slow
def test_sample_files_match_the_generators(built_samples):
    assert make_samples().write_samples(FOLDER, check=True, build=lambda s: built_samples[s.file]) == []


@pytest.mark.parametrize("sample", [s for s in SAMPLES if "16k" not in s.file], ids=lambda s: s.file)
def test_sample_validates_clean(sample, loaded_samples):
    assert_sound(loaded_samples[sample.file])


@pytest.mark.slow
def test_16k_sample_validates_clean(built_samples):
    (sample,) = [s for s in SAMPLES if "16k" in s.file]
    design = built_samples[sample.file]
    assert sum(d.kind == "gpu" for d in design.iter_devices()) == 16384
    assert_sound(design)


def test_superpod_4su_sample_has_the_published_counts():
    bom = bill_of_materials(load_design(FOLDER / "superpod-h100-4su.json"))
    assert bom.quantity("gpu") == 1016
    assert bom.quantity("nvswitch") == 127
    assert bom.quantity("switch", item="qm9700", tier="leaf") == 32
    assert bom.quantity("switch", item="qm9700", tier="spine") == 16
    assert bom.quantity("cable", between="node-leaf") == 1020
    assert bom.quantity("cable", between="leaf-spine") == 1024
