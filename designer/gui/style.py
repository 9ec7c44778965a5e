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
    "gpu": KindStyle("GPU", QColor("#E6F2DA"), QColor("#5E9E2F"), QColor("#1F3A0E"), 68, 46),
    "nic": KindStyle("NIC", QColor("#DCEAF6"), QColor("#2F7FB8"), QColor("#0E2E47"), 68, 46),
    "nvswitch": KindStyle("NVLink switch", QColor("#ECE2F5"), QColor("#8350B0"), QColor("#331A4A"), 72, 46),
    "switch": KindStyle("Switch", QColor("#FBE8D4"), QColor("#D47A1F"), QColor("#4A2605"), 72, 46),
    "storage": KindStyle("Storage", QColor("#E4E7EB"), QColor("#5C6B7A"), QColor("#1F2933"), 72, 46),
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
GROUP_PADDING = 16.0
GROUP_HEADER = 22.0
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

PORT_PITCH = 10.0
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


def port_grid(port_count: int, width: float) -> tuple[int, int, float]:
    """Rows, columns and pitch (scene units) of a device's port strip.

    Ports fill up to four rows under the label; the pitch shrinks (down to about 3 units for a
    64-port switch) so that every device keeps the width the generators lay out for (80-unit
    columns). Zoom in to hit a single port.
    """
    n = max(1, min(port_count, 256))
    avail = width - 10
    rows = 1
    while rows < 4 and avail / math.ceil(n / rows) < 5:
        rows += 1
    cols = math.ceil(n / rows)
    return rows, cols, min(PORT_PITCH, avail / cols)


def device_size(kind: str, port_count: int) -> tuple[float, float]:
    """Width and height of a device box: the kind's width, tall enough for its port strip."""
    ks = KIND_STYLES.get(kind, KIND_STYLES["storage"])
    rows, _, pitch = port_grid(port_count, ks.width)
    return ks.width, max(ks.height, 31 + rows * pitch + 4)


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
