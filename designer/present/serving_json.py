"""A serving report as JSON: the ``"serving"`` block of ``analyze --serve --json`` (docs/serving.md,
docs/report-format.md).

Units: seconds (``_s``), bytes, tokens/s, fractions 0..1. A value that does not exist or is infinite
(a phase that never completes) is ``null``. ``network_share`` holds the exposed communication's share
of the time to first token (``ttft``) and of the time per output token (``tpot``); ``bound`` is what
bounds the decode step (``network``, ``compute`` or ``memory``).
"""

from __future__ import annotations

from typing import Any

from designer.analysis.serving.model import CommTerm, PhaseReport, ServingReport
from designer.present.numbers import finite_or_none as _num


def _comm(c: CommTerm) -> dict[str, Any]:
    return {"name": c.name, "collective": c.collective, "calls": c.calls, "message_bytes": _num(c.message_bytes),
            "per_call_s": _num(c.per_call_s), "total_s": _num(c.total_s), "exposed_s": _num(c.exposed_s),
            "bottleneck_link": c.bottleneck_link, "network": c.network}


def _phase(p: PhaseReport) -> dict[str, Any]:
    return {"instances": p.instances, "gpus_per_instance": p.gpus_per_instance, "parallelism": dict(p.parallelism),
            "batch_sequences": p.batch_sequences, "tokens_per_step": p.tokens_per_step, "step_s": _num(p.step_s),
            "compute_s": _num(p.compute_s), "memory_s": _num(p.memory_s), "exposed_comm_s": _num(p.exposed_comm_s),
            "network_share": _num(p.network_share), "bound": p.bound,
            "memory_bytes_per_gpu": _num(p.memory_bytes_per_gpu), "max_batch_by_memory": p.max_batch_by_memory,
            "communication": [_comm(c) for c in p.comm]}


def serving_to_dict(rep: ServingReport) -> dict[str, Any]:
    """The serving report as JSON-ready data."""
    return {
        "workload": rep.workload,
        "units": {"time": "s", "size": "bytes", "throughput": "tokens/s", "fractions": "0..1"},
        "mode": rep.mode,
        "gpus": rep.gpus,
        "idle_gpus": rep.idle_gpus,
        "gpus_per_server": rep.gpus_per_server,
        "gpu_model": rep.gpu_model,
        "peak_flops_per_gpu": _num(rep.peak_flops_per_gpu),
        "memory_bytes_per_s_per_gpu": _num(rep.memory_bytes_per_s_per_gpu),
        "ttft_s": _num(rep.ttft_s),
        "tpot_s": _num(rep.tpot_s),
        "input_tokens_per_s_per_gpu": _num(rep.input_tokens_per_s_per_gpu),
        "output_tokens_per_s_per_gpu": _num(rep.output_tokens_per_s_per_gpu),
        "input_tokens_per_s_per_server": _num(rep.input_tokens_per_s_per_server),
        "output_tokens_per_s_per_server": _num(rep.output_tokens_per_s_per_server),
        "kv_bytes_per_token": rep.kv_bytes_per_token,
        "network_share": {"ttft": _num(rep.network_share_ttft), "tpot": _num(rep.network_share_tpot)},
        "bound": rep.bound,
        "bottleneck_link": rep.bottleneck_link,
        "target_tpot_s": _num(rep.target_tpot_s),
        "max_batch_for_target": rep.max_batch_for_target,
        "prefill": _phase(rep.prefill),
        "decode": _phase(rep.decode),
        "kv_transfer": _comm(rep.kv_transfer) if rep.kv_transfer is not None else None,
        "notes": list(rep.notes),
    }


__all__ = ["serving_to_dict"]
