"""The JSON of ``topo-designer compare`` (docs/measured.md): one entry per measured run, its sizes with
measured and predicted figures and their ratio, the verdict per range of sizes, the likely reasons;
the fit and the port counters when asked. Units: s, bytes, bytes/s per direction."""

from __future__ import annotations

from typing import Any

from designer.analysis.measured.compare import RunComparison
from designer.analysis.measured.reasons import Reason
from designer.io.measured import COMPARE_FORMAT, COMPARE_VERSION


def run_to_dict(comp: RunComparison, reasons: list[Reason]) -> dict[str, Any]:
    run = comp.run
    return {
        "source": run.source,
        "line": run.line,
        "collective": comp.collective,
        "collective_from": run.collective_from,
        "ranks": run.n_ranks,
        "hosts": list(run.hosts),
        "servers": comp.servers,
        "gpus": list(comp.ranks.gpus),
        "gpus_from": comp.ranks.how,
        "measured_avg_busbw": run.avg_busbw_bytes_per_s,
        "sizes": [{
            "size": s.size_bytes,
            "measured_time_s": s.measured_time_s,
            "measured_algbw": s.measured_algbw,
            "measured_busbw": s.measured_busbw,
            "predicted_time_s": s.predicted_time_s,
            "predicted_algbw": s.predicted_algbw,
            "predicted_busbw": s.predicted_busbw,
            "ratio": s.ratio,
            "algorithm": s.algorithm,
            "protocol": s.protocol,
            "regime": s.regime,
            "bottleneck_link": s.bottleneck_link,
            "nearest_algorithm": s.nearest_algorithm,
            "nearest_ratio": s.nearest_ratio,
        } for s in comp.sizes],
        "ranges": [{"regime": r.regime, "first_size": r.first_bytes, "last_size": r.last_bytes, "sizes": r.sizes,
                    "median_ratio": r.median_ratio, "verdict": r.verdict} for r in comp.ranges],
        "reasons": [{"code": r.code, "text": r.text, "links": list(r.links)} for r in reasons],
        "notes": list(comp.notes),
    }


def compare_to_dict(design_source: str, runs: list[tuple[RunComparison, list[Reason]]],
                    extra: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"format": COMPARE_FORMAT, "version": COMPARE_VERSION, "design": design_source,
                           "runs": [run_to_dict(c, r) for c, r in runs]}
    if extra:
        out.update(extra)
    return out


def counters_to_dict(fabric) -> dict[str, Any]:  # noqa: ANN001 - MeasuredFabric
    """Port counters on the design: ports (bytes/s sent and received), links (each way, utilisation of
    the line rate), what did not map, findings, notes."""
    return {
        "seconds": fabric.seconds,
        "ports": [{"node": p.node, "port": p.port, "name": p.node_name, "medium": p.medium or "network",
                   "xmit_bytes_per_s": p.xmit_bytes_per_s, "rcv_bytes_per_s": p.rcv_bytes_per_s,
                   "xmit_wait_ticks_per_s": p.xmit_wait_per_s, "errors": p.errors, "device": p.device,
                   "link": p.link} for p in fabric.ports],
        "links": [{"link": k, "a_to_b_bytes_per_s": u.a_to_b, "b_to_a_bytes_per_s": u.b_to_a,
                   "line_bytes_per_s": u.line_bytes_per_s, "utilisation": u.utilisation, "errors": u.errors}
                  for k, u in fabric.links.items()],
        "unmapped": list(fabric.unmapped),
        "findings": [f.to_dict() for f in fabric.findings],
        "notes": list(fabric.notes),
    }
