"""GPU islands: how the GPUs split over working links, and what would join them.

:func:`gpu_islands` words the ``gpu-unreachable`` design rule
(:func:`designer.analysis.rules.fabric_shape.check_connectivity`) and the analyzer's refusal when
a collective's GPUs are cut off (:mod:`designer.analysis.collectives.embedding`), alike.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from designer.analysis.common.findings import ERROR, Finding, short_ids
from designer.model import Design
from designer.model.units import count, plural


def gpu_islands(design: Design, ids: list[str], kinds: list[str], labels: np.ndarray,
                 gpus: list[int]) -> Finding | None:
    """``gpu-unreachable``: how the GPUs split into islands over working links, and what would join them."""
    islands: dict[int, list[int]] = defaultdict(list)
    for g in gpus:
        islands[int(labels[g])].append(g)
    if len(islands) == 1:
        return None
    sizes = sorted((len(v) for v in islands.values()), reverse=True)
    largest = sizes[0]
    unique = sizes.count(largest) == 1 and largest > 1
    if unique:
        main = next(r for r, v in islands.items() if len(v) == largest)
        cut = [r for r in islands if r != main]
    else:
        main, cut = -1, list(islands)
    cut_gpus = sorted(ids[g] for r in cut for g in islands[r])
    total = len(gpus)
    if not unique and largest == 1:
        what = (f"{count(total, 'GPU')} are in {count(total, 'separate island')}; none can reach another over "
                "working links")
    elif not unique:
        shown_sizes = ", ".join(f"{s:,}" for s in sizes[:6]) + (", ..." if len(sizes) > 6 else "")
        what = (f"{count(total, 'GPU')} are split into {count(len(islands), 'island')} ({shown_sizes} GPUs) that "
                "cannot reach each other over working links")
    else:
        n_cut = len(cut_gpus)
        has = "has" if n_cut == 1 else "have"
        where = "" if len(cut) == 1 else f" in {count(len(cut), 'island')}"
        what = (f"{count(n_cut, 'GPU')}{where} {has} no path to the other {count(largest, 'GPU')} over working links"
                if len(islands) == 2 else
                f"{count(n_cut, 'GPU')}{where} {has} no path to the largest island of {count(largest, 'GPU')} over "
                "working links")
    advice = _join_advice(design, ids, kinds, labels, islands, main, cut)
    return Finding(ERROR, "gpu-unreachable", f"{what} ({short_ids(cut_gpus, 6)}); {advice}", tuple(cut_gpus))


_UPPER_TIERS = ("core", "spine", "aggregation")


def _join_advice(design: Design, ids: list[str], kinds: list[str], labels: np.ndarray,
                 islands: dict[int, list[int]], main: int, cut: list[int]) -> str:
    """What is missing between GPU islands: failed links, switches left unjoined, or NICs not cabled.

    ``main`` is the label of the largest island (-1 when no island is the largest); ``cut`` the
    labels of the islands cut off from it (every island when ``main`` is -1).
    """
    index = {did: i for i, did in enumerate(ids)}
    cut_set = set(cut)
    failed = []
    for lk in design.links:
        if lk.failed:
            la, lb = int(labels[index[lk.a_device]]), int(labels[index[lk.b_device]])
            if la != lb and (la in cut_set or lb in cut_set):
                failed.append(lk.id)
    if failed:
        return f"bring back failed {plural(len(failed), 'link')} {short_ids(failed)}, which would join them"
    switches: dict[int, list[int]] = defaultdict(list)
    nics: dict[int, list[str]] = defaultdict(list)
    for i, k in enumerate(kinds):
        if k == "switch":
            switches[int(labels[i])].append(i)
        elif k == "nic":
            nics[int(labels[i])].append(ids[i])

    def top_switch(label: int) -> str:
        tiers = design.devices
        sw = switches[label]
        return ids[next((i for i in sw if tiers[i].tier in _UPPER_TIERS), sw[0])]

    parts = []
    cut_sw = [top_switch(r) for r in cut if switches.get(r)]
    if cut_sw and main < 0:
        if len(cut_sw) > 1:
            parts.append(f"the islands' switches ({short_ids(cut_sw)}) are not joined: link them to each other or "
                         "to a common spine")
    elif cut_sw:
        if switches.get(main):
            parts.append(f"{plural(len(cut_sw), 'switch')} {short_ids(cut_sw)} "
                         f"{'are' if len(cut_sw) > 1 else 'is'} not joined to the other GPUs' switches "
                         f"(e.g. {top_switch(main)}): link {'them' if len(cut_sw) > 1 else 'it'} to that fabric")
        else:
            parts.append(f"{plural(len(cut_sw), 'switch')} {short_ids(cut_sw)} "
                         f"{'do' if len(cut_sw) > 1 else 'does'} not reach the other GPUs: link "
                         f"{'them' if len(cut_sw) > 1 else 'it'} to their fabric")
    bare = [r for r in cut if not switches.get(r)]
    if bare:
        gpu_ids = sorted(ids[g] for r in bare for g in islands[r])
        nic_ids = [x for r in bare for x in nics.get(r, ())]
        if nic_ids:
            parts.append(f"cable {plural(len(nic_ids), 'NIC')} {short_ids(nic_ids)} to a fabric switch")
        else:
            parts.append(f"give {short_ids(gpu_ids)} a network path (a NIC cabled to a switch, or direct links)")
    return "; ".join(parts) if parts else "link them to the rest of the fabric"
