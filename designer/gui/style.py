"""Colours, pens, sizes and scale conventions of the canvas, in one place.

Scale: positions are scene units; 1 unit is 1 pixel at zoom 100 %. When the designer has to
guess a cable length from a drawing, :data:`SCENE_UNITS_PER_M` scene units count as one metre
(see :func:`designer.gui.canvas.linking.estimate_length_m`). Devices snap to a :data:`GRID` unit grid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QPen

from designer.model import geometry, units

#: Scene units per metre when a link length is estimated from device positions.
SCENE_UNITS_PER_M = 100.0
#: Snap grid of device centres, in scene units.
GRID = 20.0

#: Level of detail (scale factor from ``levelOfDetailFromTransform``) below which devices are
#: drawn as plain boxes, below which labels are dropped, and above which port labels appear.
LOD_BOX_ONLY = 0.22
#: Below this zoom the scene draws a batched sketch instead of asking every item to paint.
LOD_SKETCH = 0.2
LOD_LABELS = 0.45
LOD_PORTS = 0.6
LOD_PORT_LABELS = 1.6


@dataclass(frozen=True)
class KindStyle:
    """How one device kind looks: fill, header stripe, text colour, default size."""

    title: str
    fill: QColor
    accent: QColor
    text: QColor
    width: float
    height: float


KIND_STYLES: dict[str, KindStyle] = {
    kind: KindStyle(
        units.KIND_NAMES[kind][:1].upper() + units.KIND_NAMES[kind][1:], QColor(fill), QColor(accent), QColor(text),
        geometry.KIND_WIDTH[kind], geometry.DEVICE_HEIGHT)
    for kind, fill, accent, text in (
        ("gpu", "#E6F2DA", "#5E9E2F", "#1F3A0E"),
        ("nic", "#DCEAF6", "#2F7FB8", "#0E2E47"),
        ("nvswitch", "#ECE2F5", "#8350B0", "#331A4A"),
        ("switch", "#FBE8D4", "#D47A1F", "#4A2605"),
        ("storage", "#E4E7EB", "#5C6B7A", "#1F2933"),
    )
}

GROUP_FILLS: dict[str, QColor] = {
    "server": QColor(94, 158, 47, 18),
    "rack": QColor(47, 127, 184, 14),
    "su": QColor(131, 80, 176, 12),
    "pod": QColor(212, 122, 31, 12),
    "custom": QColor(92, 107, 122, 14),
}
GROUP_BORDER = QColor("#9AA5B1")
GROUP_TITLE = QColor("#3E4C59")
GROUP_PADDING = geometry.FRAME_PADDING
GROUP_HEADER = geometry.FRAME_HEADER
#: Size of a collapsed group box by group kind.
COLLAPSED_SIZES: dict[str, tuple[float, float]] = {
    "server": (150, 64),
    "rack": (190, 76),
    "su": (240, 92),
    "pod": (280, 100),
    "custom": (170, 70),
}

SELECTION = QColor("#1E6FD9")
WARNING = QColor("#D62828")
#: Marks of design-rule findings: an error (the design is wrong) and a warning (worth a look).
CAUTION = QColor("#E09400")
ERROR, WARN = "error", "warning"


def flag_colour(flag: str) -> QColor:
    """The colour that marks a device, box or link with a design-rule finding of level ``flag``."""
    return WARNING if flag == ERROR else CAUTION


def worst_flag(a: str, b: str) -> str:
    """The more severe of two finding levels ("" for none)."""
    return ERROR if ERROR in (a, b) else (a or b)
BACKGROUND = QColor("#F5F6F8")
GRID_COLOUR = QColor("#E3E6EA")
PORT_FREE = QColor("#FFFFFF")
PORT_BORDER = QColor("#5A6570")

#: Port colour by port kind, when the port holds a link.
PORT_USED: dict[str, QColor] = {
    "nvlink": QColor("#5E9E2F"),
    "pcie": QColor("#7B8794"),
    "network": QColor("#2F6FB0"),
}


@dataclass(frozen=True)
class MediumStyle:
    title: str
    colour: QColor
    dash: Qt.PenStyle


MEDIUM_STYLES: dict[str, MediumStyle] = {
    "nvlink": MediumStyle("NVLink (board)", QColor("#4E9A22"), Qt.PenStyle.SolidLine),
    "pcie": MediumStyle("PCIe (board)", QColor("#8A939E"), Qt.PenStyle.DotLine),
    "passive_copper": MediumStyle("Passive copper (DAC)", QColor("#B5651D"), Qt.PenStyle.SolidLine),
    "active_copper": MediumStyle("Active copper (ACC)", QColor("#B5651D"), Qt.PenStyle.DashLine),
    "aoc": MediumStyle("Active optical cable", QColor("#168A80"), Qt.PenStyle.DashDotLine),
    "optical": MediumStyle("Optics + fibre", QColor("#2D5FA8"), Qt.PenStyle.SolidLine),
}
MIXED_MEDIUM = MediumStyle("Mixed media", QColor("#5C6B7A"), Qt.PenStyle.SolidLine)
FAILED_COLOUR = QColor("#B0B7C0")
#: The edge of a failed device (every link down) in the zoomed-out sketch, at a fixed screen width,
#: so that a failed switch stands out at fit zoom among thousands of lines.
FAILED_EDGE = QColor("#1F2933")
FAILED_EDGE_PX = 4.0


def link_width_px(total_gbps: float) -> float:
    """Pen width in pixels for a link or bundle carrying ``total_gbps`` per direction.

    Logarithmic: 100 Gb/s draws 1 px, 400 Gb/s about 2.6 px, 3.2 Tb/s about 5.5 px, capped at 8.
    """
    if total_gbps <= 100:
        return 1.0
    return min(8.0, 1.0 + 0.8 * math.log2(total_gbps / 100.0))


_PENS: dict[tuple[str, float, bool, str], QPen] = {}


def link_pen(medium: str, total_gbps: float, *, failed: bool = False, flagged: str = "") -> QPen:
    """The pen of a link or bundle (shared: pens are cached by their inputs); ``flagged`` is the
    level of its worst design-rule finding ("" for none)."""
    key = (medium, total_gbps, failed, flagged)
    pen = _PENS.get(key)
    if pen is None:
        pen = _PENS[key] = _make_link_pen(medium, total_gbps, failed, flagged)
    return pen


def _make_link_pen(medium: str, total_gbps: float, failed: bool, flagged: str) -> QPen:
    style = MEDIUM_STYLES.get(medium, MIXED_MEDIUM)
    colour = flag_colour(flagged) if flagged else (FAILED_COLOUR if failed else style.colour)
    pen = QPen(colour, link_width_px(total_gbps))
    pen.setCosmetic(True)
    pen.setStyle(Qt.PenStyle.DashLine if failed else style.dash)
    pen.setCapStyle(Qt.PenCapStyle.FlatCap)
    return pen


def label_font(point_size: float = 9.0, bold: bool = False) -> QFont:
    f = QFont()
    f.setPointSizeF(point_size)
    f.setBold(bold)
    return f


# ---------------------------------------------------------------------------- utilisation overlay
#: The perceptual colour map of link utilisation (pyqtgraph's "plasma", from 0 % to 100 %; its
#: last, pale-yellow fifth is left out so that the busiest links stay visible on the white canvas).
UTIL_COLORMAP_NAME = "plasma"
UTIL_COLORMAP_RANGE = (0.0, 0.8)
UTIL_STEPS = 64
BOTTLENECK_HALO = QColor(214, 40, 40, 120)
CUT_HALO = QColor(200, 0, 160, 120)
#: Links whose measured counters say something is wrong (errors grew, a port below its rate).
MEASURED_HALO = QColor(235, 140, 0, 150)
_UTIL_LUT: list[QColor] = []
_UTIL_PENS: dict[tuple[int, float, bool, bool], QPen] = {}


def utilisation_colours() -> list[QColor]:
    """:data:`UTIL_STEPS` colours from idle (index 0) to fully busy (last)."""
    if not _UTIL_LUT:
        import numpy as np
        import pyqtgraph as pg

        lo, hi = UTIL_COLORMAP_RANGE
        rgba = pg.colormap.get(UTIL_COLORMAP_NAME).map(np.linspace(lo, hi, UTIL_STEPS), mode="byte")
        _UTIL_LUT.extend(QColor(int(r), int(g), int(b)) for r, g, b, _a in rgba)
    return _UTIL_LUT


def utilisation_step(utilisation: float) -> int:
    """The colour step of a utilisation (a fraction; clipped to 0..1)."""
    u = 0.0 if utilisation != utilisation else min(1.0, max(0.0, utilisation))  # NaN reads as idle
    return min(UTIL_STEPS - 1, int(u * UTIL_STEPS))


def utilisation_pen(utilisation: float, total_gbps: float, *, failed: bool = False, flagged: str = "") -> QPen:
    """The pen of a link or bundle coloured by utilisation (width by bandwidth, as media pens)."""
    step = utilisation_step(utilisation)
    key = (step, total_gbps, failed, flagged)
    pen = _UTIL_PENS.get(key)
    if pen is None:
        colour = flag_colour(flagged) if flagged else (FAILED_COLOUR if failed else utilisation_colours()[step])
        pen = QPen(colour, max(1.5, link_width_px(total_gbps)))
        pen.setCosmetic(True)
        pen.setStyle(Qt.PenStyle.DashLine if failed else Qt.PenStyle.SolidLine)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        _UTIL_PENS[key] = pen
    return pen
