"""A serving report as text: ``analyze --serve`` and the window's Serving panel (docs/serving.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from designer.model.units import count, duration, figures, percent, size

if TYPE_CHECKING:
    from designer.analysis.serving.model import PhaseReport, ServingReport

#: How each part of a phase's step reads, in the order a token's time is shown.
PARTS = ("compute", "memory", "communication")


def _layout(p: PhaseReport) -> str:
    par = p.parallelism
    return ", ".join(f"{k.upper()} {v}" for k, v in par.items() if v > 1 or k == "tp")


def phase_parts(p: PhaseReport) -> dict[str, float]:
    """Where a step's time goes (s): the GPU's busy time split into the part its compute and its memory
    traffic explain, and the exposed communication (the three add up to the step)."""
    gpu = max(p.compute_s, p.memory_s)
    return {"compute": gpu if p.compute_s >= p.memory_s else p.compute_s,
            "memory": gpu - p.compute_s if p.memory_s > p.compute_s else 0.0,
            "communication": p.exposed_comm_s}


def _phase_lines(p: PhaseReport, explain: bool) -> list[str]:
    head = (f"  {p.phase}: {count(p.instances, 'instance')} of {count(p.gpus_per_instance, 'GPU')} ({_layout(p)}), "
            f"{count(p.batch_sequences, 'sequence')} per step ({figures(p.tokens_per_step)} tokens): step "
            f"{duration(p.step_s)} = GPU {duration(max(p.compute_s, p.memory_s))} (compute {duration(p.compute_s)}, "
            f"memory {duration(p.memory_s)}) + exposed communication {duration(p.exposed_comm_s)}; "
            f"{p.bound}-bound")
    out = [head]
    for c in p.comm:
        where = "network" if c.network else "NVLink"
        out.append(f"    {c.name} ({where}): {count(c.calls, 'call')} of {size(c.message_bytes)}, "
                   f"{duration(c.per_call_s)} each; total {duration(c.total_s)}, exposed {duration(c.exposed_s)}")
        if explain and c.bottleneck_link:
            out.append(f"      bottleneck link {c.bottleneck_link}")
    return out


def serving_lines(rep: ServingReport, *, explain: bool = False) -> list[str]:
    """TTFT, TPOT, tokens/s, what bounds them, and each phase's step."""
    out = [f"Serving {rep.workload!r} ({rep.mode}) on {count(rep.gpus, 'GPU')} ({rep.gpu_model}); KV cache "
           f"{size(rep.kv_bytes_per_token)} per token ({rep.kv_bytes_per_token:,} bytes):"]
    out.append(f"  TTFT {duration(rep.ttft_s)} (network {percent(rep.network_share_ttft)}); TPOT "
               f"{duration(rep.tpot_s)} (network {percent(rep.network_share_tpot)}); decode is {rep.bound}-bound")
    out.append(f"  output {figures(rep.output_tokens_per_s_per_gpu)} tokens/s per GPU "
               f"({figures(rep.output_tokens_per_s_per_server)} per server of {rep.gpus_per_server}); input "
               f"{figures(rep.input_tokens_per_s_per_gpu)} tokens/s per GPU "
               f"({figures(rep.input_tokens_per_s_per_server)} per server)")
    if rep.target_tpot_s is not None:
        mb = rep.max_batch_for_target
        out.append(f"  largest decode batch within a {duration(rep.target_tpot_s)} TPOT: "
                   + (count(mb, 'sequence') if mb else "none") + f" (memory allows {rep.decode.max_batch_by_memory:,})")
    if rep.bottleneck_link:
        out.append(f"  bottleneck link: {rep.bottleneck_link}")
    out += _phase_lines(rep.prefill, explain)
    if rep.decode is not rep.prefill:
        out += _phase_lines(rep.decode, explain)
    if rep.kv_transfer is not None:
        k = rep.kv_transfer
        out.append(f"  KV-cache transfer to decode ({'network' if k.network else 'NVLink'}): {size(k.message_bytes)} "
                   f"per prefill step in {duration(k.total_s)}, exposed {duration(k.exposed_s)}"
                   + (f"; bottleneck link {k.bottleneck_link}" if explain and k.bottleneck_link else ""))
    out += [f"  note: {n}" for n in rep.notes]
    return out


__all__ = ["PARTS", "phase_parts", "serving_lines"]
