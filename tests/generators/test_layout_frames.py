"""Generated layouts read cleanly: every group frame holds its members and nothing else.

The frames are computed as the canvas draws them (``designer.generators.layout``; a GUI test
checks the same on the scene), for every generator's defaults, parameter variants and the
shipped samples.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from designer.generators import GENERATORS
from designer.generators.layout import Rect, frame_rects, layout_problems
from designer.generators.samples import SAMPLES
from designer.model.geometry import FRAME_HEADER

FOLDER = Path(__file__).resolve().parents[2] / "sample_designs"

#: Parameter variants that change the shape of the layout (racks broken across columns, pods,
#: several racks per leaf, bigger nodes, direct networks whose racks split their rows).
VARIANTS: list[tuple[str, dict]] = [(kind, {}) for kind in GENERATORS] + [
    ("fat-tree", {"k": 8}),
    ("fat-tree", {"k": 8, "gpus_per_node": 8}),
    ("fat-tree", {"k": 6, "nodes_per_rack": 2}),
    ("fat-tree", {"k": 12, "gpus_per_node": 4}),
    ("rail-optimized", {"sus": 4}),
    ("rail-optimized", {"sus": 4, "ufm": True}),
    ("rail-optimized", {"sus": 3, "nodes_per_su": 20, "nodes_per_rack": 3}),
    ("rail-optimized", {"sus": 6, "tiers": 3, "sus_per_pod": 2, "ufm": True}),
    ("rail-optimized", {"sus": 12}),
    ("leaf-spine", {"leaves": 6, "hosts_per_leaf": 48, "nodes_per_rack": 2, "oversubscription": 3.0}),
    ("leaf-spine", {"leaves": 40, "hosts_per_leaf": 8, "oversubscription": 2.0}),
    ("clos3", {"pods": 3, "leaves_per_pod": 3, "hosts_per_leaf": 16, "gpus_per_node": 4}),
    ("nvl72", {"racks": 3}),
    ("nvl72", {"racks": 2, "trays": 9, "gpus_per_tray": 8}),
    ("nvl72", {"scaleout": False}),
    ("dragonfly", {"p": 2, "a": 4, "h": 2, "gpus_per_node": 1, "nodes_per_rack": 3}),
    ("torus", {"dims": (8, 8)}),
    ("torus", {"dims": (4, 4, 8)}),
    ("torus", {"dims": (6, 5, 3), "rack_dims": (4, 4, 2)}),
    ("hypercube", {"n": 6}),
    ("hypercube", {"n": 7, "nodes_per_rack": 8}),
    ("hypercube", {"n": 5, "nodes_per_rack": 12}),
    ("server", {"gpus_per_node": 4}),
]


def _name(case: tuple[str, dict]) -> str:
    kind, params = case
    return kind + "".join(f"-{k}={v}" for k, v in params.items())


@pytest.mark.parametrize("case", VARIANTS, ids=_name)
def test_frames_hold_their_members_and_nothing_else(case):
    kind, params = case
    design = GENERATORS[kind].build(**params)
    assert layout_problems(design, gap=8.0) == []


@pytest.mark.parametrize("sample", [s for s in SAMPLES if "16k" not in s.file], ids=lambda s: s.file)
def test_sample_frames_hold_their_members_and_nothing_else(sample, loaded_samples):
    assert layout_problems(loaded_samples[sample.file], gap=8.0) == []


@pytest.mark.slow
def test_16k_sample_frames_hold_their_members_and_nothing_else(loaded_samples):
    (sample,) = [s for s in SAMPLES if "16k" in s.file]
    assert layout_problems(loaded_samples[sample.file], gap=8.0) == []


@pytest.mark.parametrize("case", VARIANTS, ids=_name)
def test_every_title_band_is_clear(case):
    """A group's title band is covered by no device and by no frame but those around it."""
    kind, params = case
    design = GENERATORS[kind].build(**params)
    frames = frame_rects(design)
    assert set(frames) == {g.id for g in design.groups if design.all_members(g.id)}
    from designer.generators.layout import device_rect

    # Rect.overlaps of the band against every frame and every device at once (one row of numbers each).
    frame_ids = list(frames)
    frame_at = {gid: i for i, gid in enumerate(frame_ids)}
    frame_box = np.array([(r.left, r.top, r.right, r.bottom) for r in frames.values()])
    devices = list(design.iter_devices())
    device_box = np.array([(r.left, r.top, r.right, r.bottom) for r in map(device_rect, devices)]).reshape(-1, 4)

    def overlapping(boxes: np.ndarray, band) -> np.ndarray:
        return ((boxes[:, 0] < band.right) & (band.left < boxes[:, 2])
                & (boxes[:, 1] < band.bottom) & (band.top < boxes[:, 3]))

    for gid, frame in frames.items():
        band = frame.header()
        hit = overlapping(frame_box, band)
        hit[[frame_at[a] for a in design.ancestors(gid) if a in frame_at]] = False
        assert not hit.any(), (gid, [frame_ids[i] for i in np.flatnonzero(hit)][:3])
        hit = overlapping(device_box, band)
        assert not hit.any(), (gid, [devices[i].id for i in np.flatnonzero(hit)][:3])


def test_the_checker_sees_overlaps():
    from designer.model import Design, Device, Group, PortGroup

    d = Design("t")
    ports = (PortGroup("p", 1, 400.0, "network"),)
    d.extend([Group("a", "rack"), Group("b", "rack")],
             [Device("x", "switch", ports, x=0, y=0, group="a"), Device("y", "switch", ports, x=0, y=80, group="b")],
             [])
    problems = layout_problems(d)
    assert problems == ["group a and group b overlap"]
    assert frame_rects(d)["b"].top == 80 - 23 - 16 - FRAME_HEADER
    assert Rect(0, 0, 10, 10).overlaps(Rect(12, 0, 20, 10), gap=4)
