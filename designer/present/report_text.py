"""An analysis report as text: the summary ``analyze`` prints and the window shows, and the
``--explain`` lines saying where each number comes from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from designer.analysis.collectives.names import bus_factor
from designer.model.units import count, duration, percent, rate, size

if TYPE_CHECKING:
    from designer.analysis.collectives.times import CollectiveRow
    from designer.analysis.report import Report

#: The nccl-tests busbw factor of each collective, as text.
BUS_FACTOR_TEXT = {"allreduce": "2(p-1)/p", "reducescatter": "(p-1)/p", "allgather": "(p-1)/p",
                   "alltoall": "(p-1)/p", "broadcast": "1"}

#: Why an algorithm of ``collectives.NOT_DEFAULT`` is not selected unless asked for.
NOT_SELECTED_WHY = {"sharp": "NCCL needs the CollNet/SHARP plugin"}


def traffic_text(report: Report) -> str:
    """The traffic the per-link use and the bottlenecks describe: the selected algorithm at the
    largest message size (``allreduce nvls of 8 GiB``), or ``no traffic``."""
    if not report.collectives:
        return "no traffic"
    largest = max(r.message_bytes for r in report.collectives)
    sel = next(r for r in report.collectives if r.selected and r.message_bytes == largest)
    return f"{report.collective} {sel.algorithm} of {size(largest)}"


def cannot_run_text(report: Report) -> str:
    """``allreduce cannot run: <why>`` when no algorithm of the collective can run (nothing is
    selected), else ``""``. The reasons name the GPUs without a path and what would join them."""
    if report.collectives or not report.cannot_run:
        return ""
    reasons = list(dict.fromkeys(why for _, why in report.cannot_run))
    return f"{report.collective} cannot run: {'; '.join(reasons)}"


def summary_lines(report: Report, *, max_rows: int | None = None, top: int = 5) -> list[str]:
    """A readable summary (the CLI prints it; the window shows it).

    ``max_rows`` thins the collective table to about that many message sizes (the largest is
    kept); ``top`` is how many bottleneck links are listed.
    """
    d = report.design
    out = [f"Design {report.design_name!r}: {count(d.gpus, 'GPU')} in {count(d.servers, 'server')}, "
           f"{count(d.switches, 'switch')}, {count(d.nics, 'NIC')}, "
           f"{count(d.links, 'link')} ({d.links_excluded:,} left out)"]
    b = report.bisection
    if b.endpoints >= 2:
        state = "exact" if b.exact else "bounds"
        out.append(f"Bisection over {count(b.endpoints, 'GPU')} ({state}, per direction, line rate): "
                   f"{rate(b.lower_bytes_per_s)} .. {rate(b.upper_bytes_per_s)}")
        out.append(f"  lower: {b.lower_method}; upper: {b.upper_method}; cut: {count(len(b.cut_links), 'link')}"
                   + (f" e.g. {', '.join(b.cut_links[:3])}" if b.cut_links else ""))
    if report.collectives:
        algos = list(dict.fromkeys(r.algorithm for r in report.collectives))
        out.append(f"{report.collective} over {count(report.ranks, 'GPU')} on {count(report.servers, 'server')}: "
                   "time / busbw (* = selected, NCCL-style tuner)")
        head = f"  {'size':>9} " + "".join(f"| {a:^24} " for a in algos)
        out.append(head)
        by_size: dict[int, dict[str, CollectiveRow]] = {}
        for r in report.collectives:
            by_size.setdefault(r.message_bytes, {})[r.algorithm] = r
        sizes = sorted(by_size)
        if max_rows is not None and len(sizes) > max_rows:
            step = max(1, len(sizes) // max_rows)
            sizes = sorted(set(sizes[::step]) | {sizes[-1]})
        for sz in sizes:
            cells = []
            for a in algos:
                r = by_size[sz].get(a)
                if r is None:
                    cells.append(f"| {'-':^24} ")
                    continue
                mark = "*" if r.selected else " "
                cells.append(f"|{mark}{duration(r.time_s):>10} {rate(r.busbw_bytes_per_s):>12} ")
            out.append(f"  {size(sz):>9} " + "".join(cells))
        for a in report.not_selectable:
            out.append(f"{a}: shown, not auto-selected ({NOT_SELECTED_WHY.get(a, 'not a default of NCCL')}); "
                       f"pass --algorithm {a} to use it")
    if not report.collectives and report.ranks >= 2:
        out.append(f"{report.collective} over {count(report.ranks, 'GPU')} on {count(report.servers, 'server')}: "
                   "nothing selected: " + ("no algorithm can run (see the notes)" if report.cannot_run
                                           else "no algorithm applies (see the notes)"))
    out += routing_lines(report)
    if report.bottlenecks:
        out.append(f"Top bottlenecks ({traffic_text(report)}):")
        for bn in report.bottlenecks[:top]:
            eg = f" e.g. {', '.join(bn.example_flows[:2])}" if bn.example_flows else ""
            flows = f", {count(bn.flows, 'flow')}{eg}" if bn.flows else ""
            out.append(f"  {bn.link} [{bn.direction}, {bn.protocol}, {rate(bn.capacity_bytes_per_s)}]: "
                       f"{percent(bn.utilization)} busy ({bn.algorithm}{flows})")
    for note in report.notes:
        out.append(f"note: {note}")
    return out


def routing_lines(report: Report) -> list[str]:
    """The routing mode, and under hashed ECMP the selected algorithm's time and busiest link over the draws."""
    r = report.routing
    if r is None or (not report.collectives and r.mode != "hashed"):
        return []
    chosen = "by fabric" if r.by_default else "asked for"
    out = [f"Routing: {r.mode} ({chosen}: {r.reason})"]
    h = r.hashed
    if h is not None and h.modelled and h.flows:
        out.append(f"  hashed ECMP, {h.algorithm} at {size(h.message_bytes)} over {count(h.draws, 'draw')} "
                   f"(seed {h.seed}): time {duration(h.mean_time_s)} mean, {duration(h.p99_time_s)} p99, "
                   f"fluid {duration(h.fluid_time_s)}; busbw {rate(h.busbw_bytes_per_s(h.mean_time_s))} mean, "
                   f"{rate(h.busbw_bytes_per_s(h.p99_time_s))} p99")
        out.append(f"  busiest link at the fluid pace: {percent(h.mean_max_utilization)} mean, "
                   f"{percent(h.p99_max_utilization)} p99 (fluid {percent(h.fluid_max_utilization)})")
    return out


def explain_lines(report: Report) -> list[str]:
    """Where each number of :func:`summary_lines` comes from: methods, formulas, links, units."""
    out = ["How these numbers were computed (units: bytes, seconds, bytes/s per direction; link rates are "
           "line rates after the cable limit):"]
    b = report.bisection
    if b.endpoints >= 2:
        cut = len(b.cut_links)
        out.append(f"  bisection: lower bound by {b.lower_method}; upper bound by {b.upper_method}; "
                   f"{count(cut, 'link')} {'crosses' if cut == 1 else 'cross'} the best cut found")
        for link in b.cut_links[:10]:
            out.append(f"    cut link {link}")
        if cut > 10:
            out.append(f"    ... and {cut - 10:,} more (analyze --json lists them all)")
    if report.collectives:
        factor = bus_factor(report.collective, report.ranks)
        out.append(f"  {report.collective} over p = {count(report.ranks, 'GPU')}: for each algorithm and protocol, "
                   "time t(S) = latency(protocol) + S x seconds per byte / bandwidth factor(protocol); "
                   f"algbw = S / t; busbw = algbw x {factor:.4g} (nccl-tests: "
                   f"{BUS_FACTOR_TEXT.get(report.collective, '1')}); the selected cell is the fastest "
                   "algorithm and protocol an NCCL-style tuner would pick")
        for a in report.algorithms:
            lat = ", ".join(f"{proto} {duration(t)} x{a.bw_factor.get(proto, 1.0):.3g}"
                            for proto, t in a.latency_s.items())
            out.append(f"  {a.algorithm}: {a.formula}")
            out.append(f"    bandwidth term {duration(a.seconds_per_byte * 1e9)} per GB "
                       f"(1 / {rate(1 / a.seconds_per_byte)}) set by link {a.bottleneck_link}; latency and "
                       f"bandwidth factor {lat}"
                       if a.seconds_per_byte > 0 else f"    latency and bandwidth factor {lat}")
    if report.bottlenecks:
        out.append(f"  bottlenecks: utilisation = load / capacity in the busier direction of each link, under "
                   f"{traffic_text(report)}; shared links are divided max-min fair between flows")
    h = report.routing.hashed if report.routing is not None else None
    if h is not None and h.modelled and h.flows:
        out.append(f"  hashed ECMP: each of {count(h.flows, 'network flow')} of {h.algorithm} takes one shortest path, "
                   "each hop drawn uniformly among the equal-cost next links (parallel links one each); per draw "
                   "each phase's time per byte is set by its busiest link; mean and p99 (a value one draw reached) "
                   f"over {count(h.draws, 'draw')} seeded with {h.seed}; slowdown = hashed time / fluid time")
    return out


__all__ = ["BUS_FACTOR_TEXT", "NOT_SELECTED_WHY", "cannot_run_text", "explain_lines", "routing_lines", "summary_lines",
           "traffic_text"]
