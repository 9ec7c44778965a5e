"""Which of the design's GPUs a measured run ran on.

In order: ``--gpus`` when the user gives it (a group id, a comma list of GPU ids, ``all``); else the log's
host names, each matched to a server of the design (a ``server`` group whose id or name is the host, or
GPUs whose id starts with the host followed by ``-``, as imported fabrics name them), a rank taking its
host's GPU of the same local device number; else, when no host matches, the first servers of the design
in order, as many GPUs of each as the log has ranks per host, which a note says. A rank count that does
not fit the selection is an :class:`AnalysisError` naming both counts.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.analysis.common.errors import AnalysisError
from designer.analysis.fabric.context import Context
from designer.analysis.measured.runs import NcclRun
from designer.model import Design
from designer.model.units import count


@dataclass(frozen=True)
class RankMap:
    """The GPU id of each rank (in rank order) and how they were found."""

    gpus: tuple[str, ...]
    how: str


def _server_gpus(design: Design, gpu_ids: tuple[str, ...]) -> list[tuple[str, str, list[str]]]:
    """(group id, name, GPU ids in design order) of each server group holding GPUs, in design order."""
    is_gpu = set(gpu_ids)
    out: list[tuple[str, str, list[str]]] = []
    for g in design.groups:
        if g.kind != "server":
            continue
        gpus = [d.id for d in design.all_members(g.id) if d.id in is_gpu]
        if gpus:
            out.append((g.id, g.name, gpus))
    return out


def _host_gpus(host: str, servers: list[tuple[str, str, list[str]]], gpu_ids: tuple[str, ...]) -> list[str]:
    key = host.lower()
    for gid, name, gpus in servers:
        if key in (gid.lower(), name.lower()):
            return gpus
    prefix = key + "-"
    return [g for g in gpu_ids if g.lower().startswith(prefix)]


def map_ranks(ctx: Context, run: NcclRun, gpus: str | None = None) -> RankMap:
    """The design's GPU for each rank of ``run`` (see the module docstring)."""
    p = run.n_ranks
    hosts = run.hosts
    what = f"the log has {count(p, 'rank')} on {count(len(hosts), 'host')}"
    if gpus is not None:
        pos = ctx.gpu_positions(gpus)
        if len(pos) != p:
            raise AnalysisError(f"{run.label}: {what}; --gpus {gpus} selects {count(len(pos), 'GPU')} of the design")
        return RankMap(tuple(ctx.gpu_ids[i] for i in pos), f"--gpus {gpus}")
    servers = _server_gpus(ctx.design, ctx.gpu_ids)
    found = {h: _host_gpus(h, servers, ctx.gpu_ids) for h in hosts}
    matched = [h for h in hosts if found[h]]
    if matched:
        missing = [h for h in hosts if not found[h]]
        if missing:
            raise AnalysisError(f"{run.label}: {count(len(missing), 'host')} of the log "
                                f"({', '.join(missing[:4])}{'...' if len(missing) > 4 else ''}) "
                                f"{'is' if len(missing) == 1 else 'are'} not a server of the design, while "
                                f"{', '.join(matched[:2])} {'is' if len(matched) == 1 else 'are'}: give --gpus")
        out = []
        for r in run.ranks:
            gs = found[r.host]
            if r.device >= len(gs):
                raise AnalysisError(f"{run.label}: rank {r.rank} runs on device {r.device} of {r.host}, which has "
                                    f"{count(len(gs), 'GPU')} in the design")
            out.append(gs[r.device])
        if len(set(out)) != len(out):
            raise AnalysisError(f"{run.label}: two ranks run on the same GPU of the design: give --gpus")
        return RankMap(tuple(out), "the log's host names")
    per_host = {h: sum(1 for r in run.ranks if r.host == h) for h in hosts}
    k = max(per_host.values())
    if ctx.n_gpus == p:
        return RankMap(ctx.gpu_ids, "design order (no host of the log names one of its servers)")
    usable = [gpus_ for _, _, gpus_ in servers if len(gpus_) >= k]
    if len(set(per_host.values())) == 1 and len(usable) >= len(hosts):
        chosen = tuple(g for gs in usable[: len(hosts)] for g in gs[:k])
        return RankMap(chosen, f"the first {k} GPUs of the design's first {count(len(hosts), 'server')} (no host "
                               "of the log names one of its servers)")
    raise AnalysisError(f"{run.label}: {what}; the design has {count(ctx.n_gpus, 'GPU')} and no server named after "
                        "a host of the log: give --gpus")
