"""``torus``: a k-ary n-cube torus (or mesh) of directly linked accelerators, TPU-pod style.

``dims`` like ``4x4x8`` gives one accelerator per coordinate, ``chip-X-Y-Z`` (0-based). Port
``t(2d+1)`` links to the +1 neighbour along dimension d and ``t(2d+2)`` to the -1 neighbour;
the torus wraps around (a ring of size 2 has a single link, so no duplicate link), a mesh
does not. Racks hold ``rack_dims`` blocks (default 4x4x4 = 64 chips, as a TPU v4 rack):
copper inside a rack, optics between racks.
"""

from __future__ import annotations

import itertools
from typing import Any

from designer.generators.base import DX, NODE_DY, RACK_GAP, Builder
from designer.generators.direct import accelerator, chip_links, direct_params
from designer.generators.params import GeneratorSpec, Param, cabling_params, dims_text
from designer.model import Design
from designer.model.catalog import Catalog
from designer.model.units import line_rate

KIND = "torus"
MAX_NODES = 262144


def _build_torus(
    catalog: Catalog | None,
    *,
    dims: tuple[int, ...],
    wrap: bool,
    rack_dims: tuple[int, ...],
    gpu: str,
    link_speed_gbps: float,
    cable: str,
    copper_max_m: float,
    long_medium: str,
    racks_per_row: int,
) -> Design:
    """Build from parameters ``SPEC.check`` filled in and checked (the defaults live in ``SPEC``)."""
    b = Builder(KIND, catalog, cable=cable, copper_max_m=copper_max_m, long_medium=long_medium,
                racks_per_row=racks_per_row)
    dims = tuple(dims)
    if not dims or any(k < 1 for k in dims):
        raise b.error(f"every size in dims must be at least 1, got {dims_text(dims)}")
    n_nodes = 1
    for k in dims:
        n_nodes *= k
    if n_nodes < 2:
        raise b.error(f"dims {dims_text(dims)} give {n_nodes} accelerator; need at least 2")
    if n_nodes > MAX_NODES:
        raise b.error(f"dims {dims_text(dims)} give {n_nodes} accelerators; the limit is {MAX_NODES}")
    n = len(dims)
    link_speed_gbps = chip_links(b, gpu, 2 * n, link_speed_gbps, f"a {n}-D {'torus' if wrap else 'mesh'}")
    block = tuple(min(k, rack_dims[i]) if i < len(rack_dims) else 1 for i, k in enumerate(dims))
    rack_grid = tuple(-(-k // bl) for k, bl in zip(dims, block, strict=True))

    def node_id(c: tuple[int, ...]) -> str:
        return "chip-" + "-".join(str(v) for v in c)

    # Canvas: dimension 0 across, 1 down, 2 tiles across, 3 tiles down, higher dimensions across
    # again, first inside a rack, then the racks by the same rule, so a rack's chips stay together.
    def grid(c: tuple[int, ...], sizes: tuple[int, ...], cell_w: float, cell_h: float, gap_w: float,
             gap_h: float) -> tuple[float, float, float, float]:
        """Position of ``c`` in a grid of ``sizes`` cells, and the width and height of the grid."""
        x = c[0] * cell_w
        y = (c[1] if n > 1 else 0) * cell_h
        span_x, span_y = sizes[0] * cell_w + gap_w, (sizes[1] if n > 1 else 1) * cell_h + gap_h
        for d in range(2, n):
            if d % 2 == 0:
                x += c[d] * span_x
                span_x *= sizes[d]
            else:
                y += c[d] * span_y
                span_y *= sizes[d]
        return x, y, span_x, span_y

    zero = (0,) * n
    rack_w, rack_h = grid(zero, block, DX, NODE_DY / 2, 2 * DX, NODE_DY)[2:]

    def pos(c: tuple[int, ...]) -> tuple[float, float]:
        within = tuple(v % bl for v, bl in zip(c, block, strict=True))
        rack = tuple(v // bl for v, bl in zip(c, block, strict=True))
        x, y = grid(within, block, DX, NODE_DY / 2, 2 * DX, NODE_DY)[:2]
        rx, ry = grid(rack, rack_grid, rack_w, rack_h, RACK_GAP, RACK_GAP)[:2]
        return rx + x, ry + y

    racks: dict[tuple[int, ...], tuple[str, int]] = {}
    for rc in itertools.product(*(range(g) for g in rack_grid)):
        gid = "rack-" + "-".join(str(v) for v in rc)
        racks[rc] = (gid, b.rack(gid))
    devs = {}
    for c in itertools.product(*(range(k) for k in dims)):
        rc = tuple(v // bl for v, bl in zip(c, block, strict=True))
        within = tuple(v % bl for v, bl in zip(c, block, strict=True))
        slot = 0
        for v, bl in zip(within, block, strict=True):
            slot = slot * bl + v
        gid, rack = racks[rc]
        x, y = pos(c)
        devs[c] = accelerator(b, gpu, node_id(c), 2 * n, "t", link_speed_gbps, x=x, y=y, group=gid, rack=rack,
                              slot=slot, props={"coords": list(c)})
    for c, dev in devs.items():
        for d, k in enumerate(dims):
            if k == 1:
                continue
            nxt = c[d] + 1
            if nxt == k:
                if not wrap or k == 2:
                    continue
                nxt = 0
            other = devs[c[:d] + (nxt,) + c[d + 1:]]
            b.port_link(f"{dev.id}--{other.id}", dev, f"t{2 * d + 1}", other, f"t{2 * d + 2}")
    shape = dims_text(dims)
    return b.design(
        f"{'torus' if wrap else 'mesh'} {shape}",
        f"{n}-D {'torus' if wrap else 'mesh'} {shape}: {n_nodes} accelerators ({gpu}-class), "
        f"{line_rate(link_speed_gbps)} direct links, racks of {dims_text(block)}",
        dims=list(dims), wrap=wrap,
    )


SPEC = GeneratorSpec(
    kind=KIND,
    description="k-ary n-cube torus or mesh of directly linked accelerators (TPU-style), any dims like 4x4x8",
    params=(
        Param("dims", "dims", (4, 4, 4), "size of each dimension, e.g. 4x4x8 or 16x16x16", minimum=1,
              maximum=4096),
        Param("wrap", "bool", True, "wrap-around links (torus); --no-wrap gives a mesh"),
        Param("rack_dims", "dims", (4, 4, 4), "block of accelerators per rack (4x4x4 = TPU v4 rack)", minimum=1,
              maximum=4096),
    )
    + direct_params()
    + cabling_params(),
    func=_build_torus,
)


def build_torus(catalog: Catalog | None = None, **params: Any) -> Design:
    """A torus (``wrap``) or mesh of ``prod(dims)`` accelerators.

    Parameters, defaults and limits are ``SPEC.params`` (an unknown or out-of-range value raises
    GeneratorError); ``catalog`` None is the built-in catalog.

    >>> d = build_torus(dims=(4, 4))
    >>> d.device_count(), d.link_count()
    (16, 32)
    """
    return SPEC.build(catalog, **params)
