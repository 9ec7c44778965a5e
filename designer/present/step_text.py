"""A training-step report as text: the block ``analyze --workload`` prints (and the window may show)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from designer.model.units import count, duration, figures, percent, rate, size, usd

if TYPE_CHECKING:
    from designer.analysis.training.step import StepReport

#: What each communicator of a step is, in words.
PHASE_NAMES = {"tp": "tensor parallel", "cp": "context parallel", "ep": "expert all-to-all",
               "pp": "pipeline sends", "dp": "data parallel", "edp": "expert data parallel"}


def _fill_drain(p) -> str:
    """Why a communicator can add more to the step than it runs: what is not overlapped stretches
    every pipeline slot, the fill and drain included (docs/analysis.md section 8)."""
    return " (more than it runs: it stretches the pipeline's fill and drain too)" if p.exposed_s > p.total_s else ""


def days(seconds: float) -> str:
    """A long time in days (``12.5 days``), or ``never`` when infinite.

    >>> days(86400 * 12.5), days(float("inf"))
    ('12.5 days', 'never')
    """
    if not math.isfinite(seconds):
        return "never"
    d = seconds / 86400.0
    return f"{figures(d)} {'day' if figures(d) == '1' else 'days'}"


def tokens(n: float) -> str:
    """A token count with a decimal suffix: ``15T``, ``16.8M``, ``300B``.

    >>> tokens(15e12), tokens(16.78e6), tokens(3e11), tokens(512)
    ('15T', '16.8M', '300B', '512')
    """
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if n >= scale * 0.9995:
            return f"{figures(n / scale)}{suffix}"
    return figures(n)


def parallelism_text(rep: StepReport, order: tuple[str, ...] = ("tp", "cp", "pp", "dp")) -> str:
    """The job's layout in words: ``TP 8 \u00d7 PP 4 \u00d7 DP 31 = 992 GPUs, TP innermost``.

    ``order`` is the placement order, innermost first: consecutive GPUs of a server take the first
    dimension of more than 1, so TP inside a server rides NVLink.
    """
    par = rep.parallelism
    dims = [f"{k.upper()} {par[k]:,}" for k in ("tp", "cp", "pp", "dp", "ep") if par.get(k, 1) > 1 or k == "dp"]
    inner = next((k.upper() for k in order if par.get(k, 1) > 1), "DP")
    times = " \u00d7 "
    text = f"{times.join(dims)} = {count(rep.gpus, 'GPU')}, {inner} innermost"
    if par.get("virtual_stages", 1) > 1:
        text += f", interleaved x{par['virtual_stages']}"
    return text


def left_out_text(rep: StepReport, dp_fixed: bool = False) -> str:
    """Why GPUs of the design are left out of the job (``""`` when none are).

    >>> from types import SimpleNamespace as N
    >>> left_out_text(N(gpus=992, idle_gpus=24, parallelism={"tp": 8, "cp": 1, "pp": 4, "dp": 31, "ep": 1}))[:56]
    '24 of 1,016 GPUs left out: a data-parallel replica takes'
    """
    if rep.idle_gpus <= 0:
        return ""
    par = rep.parallelism
    total = rep.gpus + rep.idle_gpus
    inner = par["tp"] * par.get("cp", 1) * par["pp"]
    head = f"{rep.idle_gpus:,} of {count(total, 'GPU')} left out"
    if dp_fixed:
        return f"{head}: the workload fixes DP at {par['dp']:,} ({inner:,} GPUs per replica)"
    why = (f"a data-parallel replica takes TP x CP x PP = {inner:,} GPUs, and {count(total, 'GPU')} hold "
           f"{total // inner:,} whole {'replica' if total // inner == 1 else 'replicas'}")
    if par.get("ep", 1) > 1 and par["dp"] != total // inner:
        why += f", rounded down to a multiple of EP {par['ep']}"
    return f"{head}: {why}"


def step_lines(rep: StepReport, *, explain: bool = False) -> list[str]:
    """The step model's summary: step time and what fills it, idle fraction, MFU, throughput, cost."""
    par = rep.parallelism
    layout = ", ".join(f"{k.upper()} {v}" for k, v in par.items() if k != "virtual_stages")
    if par.get("virtual_stages", 1) > 1:
        layout += f" (interleaved x{par['virtual_stages']})"
    out = [f"Workload {rep.workload!r} on {count(rep.gpus, 'GPU')} ({rep.gpu_model}; {layout}; "
           f"{count(rep.micro_batches, 'micro-batch')} per step):"]
    step = rep.step_time_s
    out.append(f"  step {duration(step)} = compute {duration(rep.compute_s)} + pipeline bubble "
               f"{duration(rep.bubble_s)} + exposed communication {duration(rep.exposed_comm_s)}")
    if rep.step_time_p99_s is not None:
        out.append(f"  routing: hashed ECMP, every communicator's groups pinned to paths together (mean of the draws); "
                   f"step {duration(rep.step_time_p99_s)} at p99")
    out.append(f"  GPU idle {percent(rep.gpu_idle_fraction)} of the step ({percent(rep.comm_idle_fraction)} waiting "
               f"for communication); predicted MFU {percent(rep.mfu)} (peak {figures(rep.peak_flops_per_gpu / 1e12)} "
               f"TFLOP/s per GPU, kernel efficiency {percent(rep.efficiency)})")
    out.append(f"  {tokens(rep.tokens_per_s)} tokens/s; {tokens(rep.train_tokens)} tokens in "
               f"{days(rep.time_to_train_s)}")
    if rep.gpu_hour_usd > 0:
        out.append(f"  idle GPU-hours cost {usd(rep.idle_cost_per_day_usd)} per day, {usd(rep.idle_cost_to_train_usd)} "
                   f"over the run (at {usd(rep.gpu_hour_usd)} per GPU-hour, {rep.price_source})")
    if rep.phases:
        out.append("  communication per step (all groups at once; total = time it runs per rank, adds = time it adds "
                   "to the step):")
        for p in rep.phases:
            shared = f", x{figures(p.slowdown)} from shared links" if p.slowdown > 1.0005 else ""
            if p.slowdown_p99 > p.slowdown * 1.0005:
                shared += f" (x{figures(p.slowdown_p99)} at p99)"
            where = "network" if p.network else "NVLink"
            out.append(f"    {PHASE_NAMES.get(p.name, p.name)} {p.collective} ({p.algorithm}, {where}): "
                       f"{count(p.groups, 'group')} of {p.group_size}, {count(p.calls_per_step, 'call')} of "
                       f"{size(p.message_bytes)}, {duration(p.time_per_call_s)} each{shared}; total "
                       f"{duration(p.total_s)}, adds {duration(p.exposed_s)}{_fill_drain(p)}")
            if explain and p.bottleneck_link:
                out.append(f"      bottleneck link {p.bottleneck_link}; alone {duration(p.alone_per_call_s)} per call")
    st = rep.storage
    if st is not None:
        out.append(f"  storage ({count(st.storage_devices, 'device')}): writes {rate(st.write_bytes_per_s)} "
                   f"({st.write_binds} bind), reads {rate(st.read_bytes_per_s)} ({st.read_binds} bind)")
        if st.checkpoint_bytes > 0:
            out.append(f"    checkpoint of {size(st.checkpoint_bytes)} takes {duration(st.checkpoint_s)}"
                       + (f", {percent(st.checkpoint_share)} of training time at one per "
                          f"{duration(st.checkpoint_interval_s)}" if st.checkpoint_interval_s > 0 else ""))
        out.append(f"    input {rate(st.input_bytes_per_s)}: {percent(st.input_utilization)} of the read rate")
    for note in rep.notes:
        out.append(f"  note: {note}")
    if explain:
        out.append("  how: compute = 6 x active parameters x tokens / (GPUs x peak x efficiency); "
                   "step = (micro-batches + (pp - 1) / v) x (compute + exposed per-micro-batch communication) "
                   "+ exposed data-parallel time (docs/analysis.md section 8)")
    return out


__all__ = ["PHASE_NAMES", "days", "left_out_text", "parallelism_text", "step_lines", "tokens", "usd"]
