"""``hypercube``: a binary n-cube of 2^n directly linked accelerators.

Accelerator ``nodeB`` (B = its n-bit binary label) links through port ``h(d+1)`` to the
accelerator whose label differs in bit d. Racks hold ``nodes_per_rack`` accelerators in label
order; copper inside a rack, optics between racks. Canvas: low bits across, high bits down.
"""

from __future__ import annotations

import math
from typing import Any

from designer.generators.base import DX, NODE_DY, RACK_GAP, Builder
from designer.generators.direct import accelerator, chip_links, direct_params
from designer.generators.params import GeneratorSpec, Param, cabling_params
from designer.model import Design, units
from designer.model.catalog import Catalog

KIND = "hypercube"


def _place(i: int, low: int, per_rack: int) -> tuple[float, float]:
    """Canvas position of accelerator ``i``: low bits across, high bits down, with a gap where a row
    or column passes into the next rack (racks hold ``per_rack`` labels in order)."""
    cols = 1 << low
    col, row = i & (cols - 1), i >> low
    if per_rack % cols == 0:  # racks of whole rows
        return col * DX, row * NODE_DY / 2 + row // (per_rack // cols) * RACK_GAP
    if cols % per_rack == 0:  # rows of whole racks
        return col * DX + col // per_rack * RACK_GAP, row * (NODE_DY / 2 + RACK_GAP)
    # racks straddle rows: each rack is a block of its own, racks in rows as wide as a label row
    rack, slot = divmod(i, per_rack)
    width = math.ceil(math.sqrt(per_rack))
    racks_across = max(1, cols // width)
    r_row, r_col = divmod(rack, racks_across)
    s_row, s_col = divmod(slot, width)
    block_h = math.ceil(per_rack / width) * NODE_DY / 2
    return r_col * (width * DX + RACK_GAP) + s_col * DX, r_row * (block_h + RACK_GAP) + s_row * NODE_DY / 2


def _build_hypercube(
    catalog: Catalog | None,
    *,
    n: int,
    nodes_per_rack: int,
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
    if not 1 <= n <= 16:
        raise b.error(f"n must be 1..16 (2 to 65,536 accelerators), got {n}")
    count = 1 << n
    link_speed_gbps = chip_links(b, gpu, n, link_speed_gbps, f"a {n}-D hypercube")
    low = (n + 1) // 2
    devs = []
    rack, gid = -1, ""
    for i in range(count):
        if i % nodes_per_rack == 0:
            gid = f"rack{i // nodes_per_rack + 1}"
            rack = b.rack(gid)
        x, y = _place(i, low, nodes_per_rack)
        devs.append(accelerator(b, gpu, f"node{i:0{n}b}", n, "h", link_speed_gbps, x=x, y=y, group=gid, rack=rack,
                                slot=i % nodes_per_rack, props={"label": i}))
    for i, dev in enumerate(devs):
        for d in range(n):
            j = i ^ (1 << d)
            if j > i:
                b.port_link(f"{dev.id}--{devs[j].id}", dev, f"h{d + 1}", devs[j], f"h{d + 1}")
    return b.design(
        f"hypercube n={n}",
        f"binary {n}-cube: {count} accelerators ({gpu}-class), {units.count(n, 'link')} of "
        f"{units.line_rate(link_speed_gbps)} each",
        n=n,
    )


SPEC = GeneratorSpec(
    kind=KIND,
    description="binary hypercube of 2^n directly linked accelerators",
    params=(
        Param("n", "int", 4, "dimensions (2^n accelerators, n links each)", minimum=1, maximum=16),
        Param("nodes_per_rack", "int", 16, "accelerators per rack (sets cable lengths)", minimum=1, maximum=256),
    )
    + direct_params()
    + cabling_params(),
    func=_build_hypercube,
)


def build_hypercube(catalog: Catalog | None = None, **params: Any) -> Design:
    """A hypercube of 2^n accelerators with n links each.

    Parameters, defaults and limits are ``SPEC.params`` (an unknown or out-of-range value raises
    GeneratorError); ``catalog`` None is the built-in catalog.

    >>> d = build_hypercube(n=3)
    >>> d.device_count(), d.link_count()
    (8, 12)
    """
    return SPEC.build(catalog, **params)
