"""The likeliest reasons for a gap between a measured run and its prediction, from what the design knows.

Each reason is checked against the design and the numbers, never listed blindly: a degraded link on the
run's path (a recorded negotiated rate below its ports'), a measured bandwidth that sits at a simple
fraction of the NIC rate the prediction assumes (a NIC at a lower rate than the design says, two GPUs on
one NIC), an oversubscribed switch tier carrying the bottleneck, ECMP hashing on Ethernet without adaptive
routing, another algorithm whose prediction matches the measurement (NCCL ran it here), GPUs of another
generation than the design's (a slower NVLink), and for small messages per-call overhead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.analysis.common.findings import WARNING
from designer.analysis.fabric.capacity import K_NIC, K_SWITCH, P_ETH, P_IB, P_NVLINK
from designer.analysis.fabric.context import Context
from designer.analysis.measured.compare import AGREEMENT, RunComparison
from designer.analysis.rules.discovered import check_measured
from designer.model.units import BYTES_PER_S_PER_GBPS, count, line_rate, percent, rate


@dataclass(frozen=True)
class Reason:
    """One likely reason: a short code, the sentence in the user's words, the links it names."""

    code: str
    text: str
    links: tuple[str, ...] = ()


def _used_links(ctx: Context, model) -> np.ndarray:
    """Link indices (capacity graph) that ``model`` loads."""
    if model is None:
        return np.zeros(0, dtype=np.int64)
    busy = np.asarray(model.arc_seconds_per_byte())
    return np.unique(ctx.cap.arc_link(np.flatnonzero(busy > 0))) if len(busy) else np.zeros(0, dtype=np.int64)


def _bottleneck_index(ctx: Context, link_id: str) -> int:
    return ctx.cap.link_ids.index(link_id) if link_id in ctx.cap.link_ids else -1


def likely_reasons(ctx: Context, comp: RunComparison) -> list[Reason]:
    """The reasons that fit ``comp`` (see the module docstring), most specific first."""
    out: list[Reason] = []
    bw = [s for s in comp.sizes if s.regime == "bandwidth-bound"]
    lat = [s for s in comp.sizes if s.regime == "latency-bound"]
    bw_ratio = float(np.median([s.ratio for s in bw])) if bw else None
    lat_ratio = float(np.median([s.ratio for s in lat])) if lat else None
    used = _used_links(ctx, comp.model)
    cap = ctx.cap
    if bw_ratio is not None and bw_ratio < 1 - AGREEMENT:
        out += _degraded(ctx, used)
        out += _nic_fraction(ctx, comp, bw, used)
        out += _oversubscribed(ctx, bw[-1].bottleneck_link)
        if len(used) and (cap.protocol[used] == P_ETH).any() and not (cap.protocol[used] == P_IB).any():
            out.append(Reason("hashing", "the network is Ethernet: unless its switches route adaptively, ECMP "
                              "hashing can put two flows on one uplink and halve them; 'analyze --routing hashed' "
                              "shows the expected and p99 time"))
        out += _nvlink_generation(ctx, comp, used)
    if bw_ratio is not None and bw_ratio > 1 + AGREEMENT:
        over = _oversubscribed(ctx, bw[-1].bottleneck_link)
        if comp.collective == "alltoall" and comp.servers > 1:
            out.append(Reason("alltoall-nics", "all-to-all ran faster than one NIC per GPU, which the model "
                              "allows it: NCCL spread it over several NICs of the server (PXN)"))
        elif over:
            out.append(Reason("less-oversubscribed", f"{over[0].text}; the cluster ran faster than that tier allows: "
                              "its fabric is less oversubscribed than the design (more uplinks, or the run's GPUs "
                              "under fewer switches than the design places them)", over[0].links))
        else:
            out.append(Reason("model-conservative", f"the cluster beats the model by {percent(bw_ratio - 1)} on "
                              "large messages: the efficiency the model gives this medium is low for it; fit it "
                              "with --fit"))
    out += _other_algorithm(comp)
    if lat_ratio is not None and lat_ratio < 1 - AGREEMENT:
        out.append(Reason("latency", f"small messages take {1 / lat_ratio:.1f}x the predicted time: per-call overhead "
                          "(kernel launch, the network proxy thread, more switch hops than the design has) above "
                          "NCCL's own latency figures, which the model uses"))
    return out


def _degraded(ctx: Context, used: np.ndarray) -> list[Reason]:
    found: list = []
    check_measured(ctx.design, found)
    on_path = {ctx.cap.link_ids[i] for i in used}
    hits = [f for f in found if f.code == "degraded-link" and f.severity == WARNING and set(f.links) & on_path]
    return [Reason("degraded-link", f"{f.message}", f.links) for f in hits[:3]]


def _nic_fraction(ctx: Context, comp: RunComparison, bw: list, used: np.ndarray) -> list[Reason]:
    """The measured busbw at about 1/2 or 1/4 of the NIC-bound prediction: a NIC slower than designed."""
    cap = ctx.cap
    nic_links = [i for i in used if cap.node_kind[cap.a[i]] == K_NIC or cap.node_kind[cap.b[i]] == K_NIC]
    nic_links = [i for i in nic_links if cap.protocol[i] in (P_IB, P_ETH)]
    if not nic_links:
        return []
    last = bw[-1]
    if last.bottleneck_link not in {cap.link_ids[i] for i in nic_links}:
        return []
    line = float(cap.line_bytes_per_s[nic_links].max()) / BYTES_PER_S_PER_GBPS
    for frac, words in ((0.5, "half"), (0.25, "a quarter")):
        if abs(last.ratio - frac) < 0.1 * frac:
            return [Reason("nic-rate", f"the cluster reaches {words} of the NIC-bound prediction: its NICs (or the "
                           f"links to them) run at {words} of the {line_rate(line)} the design gives them (a 200G "
                           "port, a cable that trained down), or two GPUs share each NIC", (last.bottleneck_link,))]
    return [Reason("nic-rate", f"the prediction is bound by the NIC link {last.bottleneck_link} "
                   f"({line_rate(line)}); the cluster reaches {percent(last.ratio)} of it: NICs running below the "
                   "design's rate, GPUDirect RDMA off (data through host memory), or several GPUs sharing a NIC",
                   (last.bottleneck_link,))]


def _oversubscribed(ctx: Context, link_id: str) -> list[Reason]:
    """The bottleneck is a switch-to-switch link: the down / up capacity of its lower switch."""
    cap = ctx.cap
    i = _bottleneck_index(ctx, link_id)
    if i < 0 or cap.node_kind[cap.a[i]] != K_SWITCH or cap.node_kind[cap.b[i]] != K_SWITCH:
        return []
    tiers = {"leaf": 0, "edge": 0, "spine": 1, "aggregation": 1, "core": 2}
    devs = ctx.design
    a, b = cap.node_ids[cap.a[i]], cap.node_ids[cap.b[i]]
    low = a if tiers.get(devs.device(a).tier, 9) <= tiers.get(devs.device(b).tier, 9) else b
    node = cap.index[low] if low in cap.index else cap.node_ids.index(low)
    touch = np.flatnonzero((cap.a == node) | (cap.b == node))
    other = np.where(cap.a[touch] == node, cap.b[touch], cap.a[touch])
    up = cap.line_bytes_per_s[touch[cap.node_kind[other] == K_SWITCH]].sum()
    down = cap.line_bytes_per_s[touch[cap.node_kind[other] != K_SWITCH]].sum()
    ratio = f"{down / up:.2g}:1" if up > 0 else "all down"
    return [Reason("oversubscription", f"the busiest link is {link_id}, between two switches: {low} has {rate(down)} "
                   f"down and {rate(up)} up ({ratio}), so traffic leaving it shares its uplinks", (link_id,))]


def _other_algorithm(comp: RunComparison) -> list[Reason]:
    """Another algorithm's prediction fits where the selected one does not: NCCL ran that one."""
    # Bandwidth-bound sizes only: where the algorithms differ by their bandwidth, not by a latency that
    # another algorithm may match by chance.
    off = [s for s in comp.sizes if s.regime == "bandwidth-bound" and abs(s.ratio - 1) > AGREEMENT
           and s.nearest_algorithm != s.algorithm and abs(s.nearest_ratio - 1) <= AGREEMENT]
    if len(off) < 2:
        return []
    algo = max({s.nearest_algorithm for s in off}, key=lambda a: sum(1 for s in off if s.nearest_algorithm == a))
    picked = off[0].algorithm
    how = "the CollNet plugin, NCCL_COLLNET_ENABLE=1" if algo == "sharp" else "its tuner, or NCCL_ALGO"
    return [Reason("algorithm", f"at {count(len(off), 'size')} the measurement matches the {algo} prediction, not "
                   f"{picked}: NCCL ran {algo} there ({how}), which the model would not pick")]


_GENERATIONS = (("B200", 5), ("B100", 5), ("GB200", 5), ("H100", 4), ("H200", 4), ("H800", 4), ("A100", 3),
                ("A800", 3), ("V100", 2), ("P100", 1))


def _generation(name: str) -> int | None:
    up = name.upper()
    for key, gen in _GENERATIONS:
        if key in up:
            return gen
    return None


def _nvlink_generation(ctx: Context, comp: RunComparison, used: np.ndarray) -> list[Reason]:
    """The log's GPUs are of an older NVLink generation than the design's, and the run loads NVLink."""
    cap = ctx.cap
    if not len(used) or not (cap.protocol[used] == P_NVLINK).any():
        return []
    names = {r.gpu_name for r in comp.run.ranks if r.gpu_name}
    logged = [g for g in (_generation(n) for n in names) if g is not None]
    designed = [_generation(ctx.design.device(g).model) for g in comp.ranks.gpus]
    designed_gen = [g for g in designed if g is not None]
    if not logged or not designed_gen or min(logged) >= min(designed_gen):
        return []
    return [Reason("nvlink-generation", f"the log ran on {', '.join(sorted(names))} (NVLink {min(logged)}); the "
                   f"design's GPUs have NVLink {min(designed_gen)}: the servers' NVLink is slower than designed")]


def counter_reasons(ctx: Context, comp: RunComparison, fabric) -> list[Reason]:  # noqa: ANN001 - MeasuredFabric
    """Port-counter findings (errors that grew, a port below its rate) on links the run loads: the most
    direct reason there is, so they come first."""
    if fabric is None:
        return []
    used = {ctx.cap.link_ids[i] for i in _used_links(ctx, comp.model)}
    out = []
    for f in fabric.findings:
        hit = tuple(lid for lid in f.links if lid in used)
        if hit:
            out.append(Reason(f.code.replace("measured-", "counters-"),
                              f"the port counters show it on a link this run loads: {f.message}", hit))
    return out
