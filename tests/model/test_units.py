"""One rule for every quantity: at most three significant figures, the unit chosen after rounding."""

from __future__ import annotations

import math

import pytest

from designer.model import units


@pytest.mark.parametrize(
    ("value", "text"),
    [(1.8e12, "1.8 TB/s"), (1.80e12, "1.8 TB/s"), (25e9, "25 GB/s"), (46.08e9, "46.1 GB/s"), (450e9, "450 GB/s"),
     (999.7e9, "1 TB/s"), (999.4e9, "999 GB/s"), (12.5e6, "12.5 MB/s"), (7.5, "7.5 B/s"), (1.5e15, "1,500 TB/s"),
     (0.0, "0 B/s")],
)
def test_rates(value, text):
    assert units.rate(value) == text


@pytest.mark.parametrize(
    ("gbps", "text"),
    [(400, "400 Gb/s"), (800.0, "800 Gb/s"), (3600, "3.6 Tb/s"), (7200, "7.2 Tb/s"), (25, "25 Gb/s"),
     (0.001, "1 Mb/s"), (999.9, "1 Tb/s"), (100000, "100 Tb/s")],
)
def test_line_rates(gbps, text):
    assert units.line_rate(gbps) == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(1.0, "1 s"), (0.0123456, "12.3 ms"), (2.5e-5, "25 us"), (7e-7, "700 ns"), (0.9996, "1 s"), (3600, "3,600 s")],
)
def test_durations(seconds, text):
    assert units.duration(seconds) == text


@pytest.mark.parametrize(
    ("n", "text"),
    [(8, "8 B"), (1 << 10, "1 KiB"), (64 << 20, "64 MiB"), (8 << 30, "8 GiB"), (1 << 40, "1 TiB"),
     (3 << 29, "1.5 GiB"), (10**6, "977 KiB"), (1023, "1,023 B")],
)
def test_sizes(n, text):
    assert units.size(n) == text


def test_counts_are_singular_or_plural():
    assert [units.count(n, "GPU") for n in (0, 1, 2, 2048)] == ["0 GPUs", "1 GPU", "2 GPUs", "2,048 GPUs"]
    assert units.count(1, "switch") == "1 switch" and units.count(2, "switch") == "2 switches"
    assert units.count(2, "person", "people") == "2 people"


@pytest.mark.parametrize("value", [math.pi * 10**k for k in range(-10, 16)])
def test_never_more_than_three_significant_figures_nor_e_notation(value):
    for text in (units.rate(value), units.duration(value), units.line_rate(value)):
        number = text.split()[0].replace(",", "")
        assert "e" not in number
        digits = number.replace(".", "").lstrip("0")
        assert len(digits) <= 3 or "." not in number  # whole numbers of 1,000 or more keep their digits


@pytest.mark.parametrize(
    ("fraction", "text", "signed"),
    [(0.874, "87%", "+87%"), (-0.004, "0%", "0%"), (-0.0, "0%", "0%"), (-1e-12, "0%", "0%"), (0.004, "0%", "0%"),
     (-0.25, "-25%", "-25%"), (1.0, "100%", "+100%")],
)
def test_percentages_never_read_minus_zero(fraction, text, signed):
    assert units.percent(fraction) == text
    assert units.change(fraction) == signed
