"""A training-step report as JSON: the ``"workload"`` block of ``analyze --workload --json``
(docs/report-format.md; schema in resources/schema/report.schema.json, property ``workload``).

Units: seconds (``_s``), bytes, FLOP, bytes/s per direction, fractions 0..1, USD. A value that
does not exist or is infinite (a step that never completes) is ``null``.
"""

from __future__ import annotations

from typing import Any

from designer.analysis.training.step import StepReport
from designer.present.numbers import finite_or_none as _num


def step_to_dict(rep: StepReport) -> dict[str, Any]:
    """The step report as JSON-ready data."""
    st = rep.storage
    return {
        "workload": rep.workload,
        "units": {"time": "s", "size": "bytes", "bandwidth": "bytes/s per direction", "cost": "USD",
                  "fractions": "0..1"},
        "gpus": rep.gpus,
        "idle_gpus": rep.idle_gpus,
        "gpu_model": rep.gpu_model,
        "peak_flops_per_gpu": _num(rep.peak_flops_per_gpu),
        "efficiency": _num(rep.efficiency),
        "parallelism": dict(rep.parallelism),
        "micro_batches": rep.micro_batches,
        "tokens_per_step": rep.tokens_per_step,
        "flops_per_step": _num(rep.flops_per_step),
        "step_time_s": _num(rep.step_time_s),
        "routing": rep.routing,
        "step_time_p99_s": None if rep.step_time_p99_s is None else _num(rep.step_time_p99_s),
        "compute_s": _num(rep.compute_s),
        "bubble_s": _num(rep.bubble_s),
        "exposed_comm_s": _num(rep.exposed_comm_s),
        "gpu_idle_fraction": _num(rep.gpu_idle_fraction),
        "comm_idle_fraction": _num(rep.comm_idle_fraction),
        "mfu": _num(rep.mfu),
        "tokens_per_s": _num(rep.tokens_per_s),
        "train_tokens": _num(rep.train_tokens),
        "time_to_train_s": _num(rep.time_to_train_s),
        "gpu_hour_usd": _num(rep.gpu_hour_usd),
        "price_source": rep.price_source,
        "idle_cost_per_day": _num(rep.idle_cost_per_day_usd),
        "idle_cost_to_train": _num(rep.idle_cost_to_train_usd),
        "communication": [
            {"name": p.name, "collective": p.collective, "algorithm": p.algorithm, "groups": p.groups,
             "group_size": p.group_size, "calls_per_step": p.calls_per_step, "message_bytes": _num(p.message_bytes),
             "time_per_call_s": _num(p.time_per_call_s), "alone_per_call_s": _num(p.alone_per_call_s),
             "slowdown": _num(p.slowdown), "slowdown_p99": _num(p.slowdown_p99), "total_s": _num(p.total_s),
             "exposed_s": _num(p.exposed_s),
             "bottleneck_link": p.bottleneck_link, "network": p.network}
            for p in rep.phases
        ],
        "storage": None if st is None else {
            "storage_devices": st.storage_devices,
            "write_bytes_per_s": _num(st.write_bytes_per_s), "read_bytes_per_s": _num(st.read_bytes_per_s),
            "write_binds": st.write_binds, "read_binds": st.read_binds,
            "storage_link_bytes_per_s": _num(st.storage_link_bytes_per_s),
            "checkpoint_bytes": _num(st.checkpoint_bytes), "checkpoint_s": _num(st.checkpoint_s),
            "checkpoint_interval_s": _num(st.checkpoint_interval_s), "checkpoint_share": _num(st.checkpoint_share),
            "input_bytes_per_s": _num(st.input_bytes_per_s), "input_utilization": _num(st.input_utilization),
        },
        "notes": list(rep.notes),
    }


__all__ = ["step_to_dict"]
