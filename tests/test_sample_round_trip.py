"""Every shipped sample design loads, validates clean and round-trips byte-identically."""

from pathlib import Path

import pytest

from designer.analysis.rules.check import check_design
from designer.io import design_to_text

SAMPLES = sorted((Path(__file__).resolve().parents[1] / "sample_designs").glob("*.json"))


def test_the_reference_samples_are_shipped():
    names = {p.stem for p in SAMPLES}
    assert len(names) >= 7, names


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_sample_loads_validates_clean_and_round_trips(path, loaded_samples):
    design = loaded_samples[path.name]
    assert check_design(design) == []
    assert design_to_text(design).encode("utf-8") == path.read_bytes()
