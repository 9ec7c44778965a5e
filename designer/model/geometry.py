"""The canvas geometry of a design, in scene units, shared by everything that places devices.

The canvas draws each device as a box of its kind's width, tall enough for up to four rows of port
squares, and an expanded group as a frame ``FRAME_PADDING`` outside its members with a
``FRAME_HEADER`` title band on top. Generators and importers place devices with these same sizes,
so what they lay out is what the canvas draws: one definition here, used by ``designer.gui.style``,
``designer.generators.layout`` and ``designer.io.importers.layout``.
"""

from __future__ import annotations

import math

#: Margin of a group frame around its members, and the height of its title band.
FRAME_PADDING = 16.0
FRAME_HEADER = 22.0
#: Width of a device box by kind, its least height, and the largest pitch of its port squares.
KIND_WIDTH = {"gpu": 68.0, "nic": 68.0, "nvswitch": 72.0, "switch": 72.0, "storage": 72.0}
DEVICE_HEIGHT = 46.0
PORT_PITCH = 10.0
#: Rows of port squares at most, and the ports a box draws at most (more are drawn as this many).
_MAX_PORT_ROWS = 4
_MAX_DRAWN_PORTS = 256


def port_grid(port_count: int, width: float) -> tuple[int, int, float]:
    """Rows, columns and pitch of a device's port strip.

    Ports fill up to four rows under the label; the pitch shrinks (down to about 3 units for a
    64-port switch) so that every device keeps its kind's width. Zoom in to hit a single port.

    >>> port_grid(8, 68.0), port_grid(64, 72.0)
    ((1, 8, 7.25), (4, 16, 3.875))
    """
    n = max(1, min(port_count, _MAX_DRAWN_PORTS))
    avail = width - 10
    rows = 1
    while rows < _MAX_PORT_ROWS and avail / math.ceil(n / rows) < 5:
        rows += 1
    cols = math.ceil(n / rows)
    return rows, cols, min(PORT_PITCH, avail / cols)


def device_box(kind: str, port_count: int) -> tuple[float, float]:
    """Width and height of a device box: its kind's width, tall enough for its port strip.

    >>> device_box("gpu", 8), device_box("switch", 64)
    ((68.0, 46.0), (72.0, 50.5))
    """
    width = KIND_WIDTH.get(kind, KIND_WIDTH["storage"])
    rows, _, pitch = port_grid(port_count, width)
    return width, max(DEVICE_HEIGHT, 31 + rows * pitch + 4)
