"""Analysis report as JSON: format ``topo-designer-report``, version 2 (docs/report-format.md).

Units: seconds, bytes, bytes per second per direction. Numbers are finite (JSON has no NaN);
an absent value is ``null``. The schema is ``resources/schema/report.schema.json``. The table of
links is stored as columns (one list per field, one entry per link, taken from the report's
arrays in bulk) and written by the C encoder (:mod:`designer.present.json_text`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from designer.analysis.report import Report
from designer.io.atomic import atomic_write_text
from designer.present.json_text import json_text
from designer.present.numbers import finite_or_none as _num
from designer.present.report_text import traffic_text

REPORT_FORMAT = "topo-designer-report"
REPORT_VERSION = 2
#: The columns of ``links``, in order (docs/report-format.md).
LINK_COLUMNS = ("id", "utilization", "load_bytes_per_s", "capacity_bytes_per_s", "direction", "protocol")




def report_to_dict(report: Report, *, all_links: bool = True) -> dict[str, Any]:
    """The report as plain JSON-ready data (see docs/report-format.md).

    ``all_links=False`` keeps only links with a non-zero utilisation (smaller files).
    """
    b = report.bisection
    d = report.design
    return {
        "format": REPORT_FORMAT,
        "version": REPORT_VERSION,
        "units": {"time": "s", "size": "bytes", "bandwidth": "bytes/s per direction"},
        "name": report.design_name,
        "design": {
            "gpus": d.gpus, "switches": d.switches, "links": d.links, "nics": d.nics,
            "nvswitches": d.nvswitches, "servers": d.servers, "links_used": d.links_used,
            "links_excluded": d.links_excluded,
        },
        "bisection": {
            "lower_bytes_per_s": _num(b.lower_bytes_per_s),
            "upper_bytes_per_s": _num(b.upper_bytes_per_s),
            "exact": b.exact,
            "endpoints": b.endpoints,
            "lower_method": b.lower_method,
            "upper_method": b.upper_method,
            "uniform_lower_bytes_per_s": _num(b.uniform_lower_bytes_per_s),
            "hose_lower_bytes_per_s": _num(b.hose_lower_bytes_per_s),
            "cut_links": list(b.cut_links),
        },
        "collective": report.collective,
        "ranks": report.ranks,
        "servers": report.servers,
        "algorithms": [
            {"algorithm": a.algorithm, "seconds_per_byte": _num(a.seconds_per_byte),
             "bottleneck_link": a.bottleneck_link,
             "latency_s": {k: _num(v) for k, v in a.latency_s.items()},
             "bandwidth_factor": {k: _num(v) for k, v in a.bw_factor.items()}, "formula": a.formula}
            for a in report.algorithms
        ],
        "collectives": [
            {"collective": r.collective, "algorithm": r.algorithm, "protocol": r.protocol,
             "message_bytes": r.message_bytes, "time_s": _num(r.time_s),
             "algbw_bytes_per_s": _num(r.algbw_bytes_per_s), "busbw_bytes_per_s": _num(r.busbw_bytes_per_s),
             "selected": r.selected, "bottleneck_link": r.bottleneck_link}
            for r in report.collectives
        ],
        "cannot_run": [{"algorithm": a, "reason": why} for a, why in report.cannot_run],
        "links_traffic": traffic_text(report),
        "links": links_columns(report, all_links=all_links),
        "bottlenecks": [
            {"link": x.link, "utilization": _num(x.utilization), "direction": x.direction, "protocol": x.protocol,
             "capacity_bytes_per_s": _num(x.capacity_bytes_per_s), "algorithm": x.algorithm,
             "collective": x.collective, "message_bytes": x.message_bytes, "flows": x.flows,
             "example_flows": list(x.example_flows), "fair_rate_bytes_per_s": _num(x.fair_rate_bytes_per_s)}
            for x in report.bottlenecks
        ],
        "routing": routing_to_dict(report),
        "notes": list(report.notes),
    }


def links_columns(report: Report, *, all_links: bool = True) -> dict[str, list[Any]]:
    """The ``links`` table as columns (:data:`LINK_COLUMNS`): row ``i`` of every list is one link.

    Utilisation, load and capacity come from the report's arrays in one conversion each (NaN reads
    0, as in version 1); ``all_links=False`` keeps the links with a non-zero utilisation.
    """
    lt = report.links
    rows = np.arange(len(lt)) if all_links else np.flatnonzero(lt.utilization > 0)

    def numbers(values: Any) -> list[float]:
        return np.nan_to_num(np.asarray(values, dtype=float)[rows]).tolist()

    ids, src, dst, protocol = (np.asarray(col, dtype=object)[rows].tolist()
                               for col in (lt.ids, lt.src, lt.dst, lt.protocol))
    return {
        "id": ids,
        "utilization": numbers(lt.utilization),
        "load_bytes_per_s": numbers(lt.load_bytes_per_s),
        "capacity_bytes_per_s": numbers(lt.capacity_bytes_per_s),
        "direction": [f"{a} -> {z}" for a, z in zip(src, dst, strict=True)],
        "protocol": protocol,
    }


def routing_to_dict(report: Report) -> dict[str, Any] | None:
    """The ``routing`` object: mode, whether the fabric chose it, why; the hashed ECMP figures."""
    r = report.routing
    if r is None:
        return None
    h = r.hashed
    hashed = None
    if h is not None:
        hashed = {
            "collective": h.collective, "algorithm": h.algorithm, "message_bytes": h.message_bytes,
            "draws": h.draws, "seed": h.seed, "flows": h.flows, "modelled": h.modelled,
            "time_s": {"fluid": _num(h.fluid_time_s), "mean": _num(h.mean_time_s), "p99": _num(h.p99_time_s)},
            "busbw_bytes_per_s": {"fluid": _num(h.busbw_bytes_per_s(h.fluid_time_s)),
                                  "mean": _num(h.busbw_bytes_per_s(h.mean_time_s)),
                                  "p99": _num(h.busbw_bytes_per_s(h.p99_time_s))},
            "max_link_utilization": {"fluid": _num(h.fluid_max_utilization), "mean": _num(h.mean_max_utilization),
                                     "p99": _num(h.p99_max_utilization)},
            "slowdown": {"mean": _num(h.mean_slowdown), "p99": _num(h.p99_slowdown)},
        }
    return {"mode": r.mode, "by_default": r.by_default, "reason": r.reason, "draws": r.draws, "seed": r.seed,
            "hashed": hashed}


def report_to_json(report: Report, *, all_links: bool = True) -> str:
    """Pretty JSON text of the report, with a trailing newline.

    Examples
    --------
    >>> from designer.generators import GENERATORS
    >>> from designer.analysis import analyze
    >>> import json
    >>> data = json.loads(report_to_json(analyze(GENERATORS["server"].build(), sizes=[1 << 20])))
    >>> data["format"], data["version"], data["design"]["gpus"], len(data["collectives"])
    ('topo-designer-report', 2, 8, 3)
    """
    return json_text(report_to_dict(report, all_links=all_links))


def save_report(report: Report, path: str) -> None:
    """Write the report's JSON atomically to ``path``."""
    atomic_write_text(path, report_to_json(report))
