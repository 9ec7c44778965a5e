"""The training-step model: how long one step takes on a fabric, and how much of it the GPUs wait.

Per GPU, with ``m`` micro-batches per step on each pipeline stage (global batch / (dp x micro-batch)):

- **compute** C = 6 x active parameters x tokens per step / (GPUs x peak dense BF16 FLOP/s x kernel
  efficiency), x 8/6 with full activation recomputation (or ``compute.step_compute_s``); one
  micro-batch on one stage takes c = C / m, one third forward and two thirds backward (2 N and
  4 N FLOPs per token).
- per micro-batch, on the critical path: **tensor-parallel** all-reduces, 4 per layer of the stage
  (2 forward, 2 backward) of micro-batch x sequence / cp x hidden x activation bytes each, less the
  ``tp_overlap`` share; **context-parallel** all-gather (forward) and reduce-scatter (backward) of
  the keys and values per layer; **expert all-to-all**, 4 per MoE layer (dispatch and combine, forward
  and backward) of tokens x top-k x hidden x activation bytes; **pipeline sends**, one activation
  forward and one gradient backward.
- **1F1B pipeline**: the step runs (m + (pp - 1) / v) micro-batch slots (v virtual stages); the
  (pp - 1) / v extra slots are the bubble.
- **data parallel**, after the last micro-batch's backward pass: gradients in buckets (DDP), an
  all-reduce each (or reduce-scatter, then an all-gather of the parameters for a sharded optimiser;
  with full sharding, all-gathers and reduce-scatters in every micro-batch). Bucket k is ready at
  (k + 1) / n of the backward window and the buckets go out one after another; what finishes after
  the window is exposed. With overlap on, ``overlap_fraction`` of the part the window could hide is
  hidden (:mod:`designer.analysis.training.constants`).

Step time = (m + (pp - 1) / v) x slot + exposed data-parallel time. Idle fraction = 1 - C / step
(bubbles and exposed communication); MFU = model FLOPs / (step x GPUs x peak). Every communicator's
time is that of all its groups at once on the shared links (:mod:`designer.analysis.training.traffic`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from designer.analysis.collectives.hashed import DEFAULT_HASH_DRAWS, DEFAULT_HASH_SEED, Routing, routing_mode
from designer.analysis.fabric.context import Context, build_context
from designer.analysis.training import constants as T
from designer.analysis.training.placement import Placement, place
from designer.analysis.training.storage import StorageReport, storage_analysis
from designer.analysis.training.traffic import Communicator, communicator
from designer.analysis.training.workload import DataParallel, Workload, WorkloadError
from designer.model import Design
from designer.model.catalog import Catalog
from designer.model.units import count


@dataclass(frozen=True)
class CommPhase:
    """One communicator's share of a step (units: s, bytes; times per step unless "per call")."""

    name: str
    collective: str
    algorithm: str
    groups: int
    group_size: int
    calls_per_step: int
    message_bytes: float
    time_per_call_s: float
    alone_per_call_s: float
    slowdown: float
    total_s: float
    exposed_s: float
    bottleneck_link: str
    network: bool
    #: Under hashed ECMP, the slowdown at the 99th percentile of the draws (``slowdown``: their mean).
    slowdown_p99: float = 1.0


@dataclass(frozen=True)
class StepReport:
    """The training step of a workload on a design (units: s, bytes, FLOP, USD).

    ``gpu_idle_fraction`` = 1 - compute / step (pipeline bubbles and exposed communication);
    ``comm_idle_fraction`` = exposed communication / step (the network's share of it).
    """

    workload: str
    design_name: str
    gpus: int
    idle_gpus: int
    gpu_model: str
    peak_flops_per_gpu: float
    efficiency: float
    parallelism: dict
    micro_batches: int
    tokens_per_step: int
    flops_per_step: float
    step_time_s: float
    compute_s: float
    bubble_s: float
    exposed_comm_s: float
    gpu_idle_fraction: float
    comm_idle_fraction: float
    mfu: float
    tokens_per_s: float
    train_tokens: float
    time_to_train_s: float
    gpu_hour_usd: float
    price_source: str
    idle_cost_per_day_usd: float
    idle_cost_to_train_usd: float
    phases: tuple[CommPhase, ...]
    notes: tuple[str, ...]
    #: Checkpoint and input traffic to the design's storage devices (None: the design has none).
    storage: StorageReport | None = None
    #: How the communicators' flows were routed (``fluid``, ``hashed``, ``adaptive``) and, hashed,
    #: the step with every communicator at the 99th percentile of its hash draws.
    routing: str = "fluid"
    step_time_p99_s: float | None = None

    def phase(self, name: str) -> CommPhase | None:
        return next((p for p in self.phases if p.name == name), None)


def gpu_models(ctx: Context, gpus: np.ndarray) -> set[str]:
    """The catalog models of ``gpus``: a device's model, else the GPU its figures are based on
    (``properties.based_on``: the chips of a torus, mesh or hypercube built from a GPU)."""
    key = ("gpu-models", gpus.tobytes())
    hit = ctx.memo.get(key)
    if hit is None:
        hit = set()
        for i in gpus:
            dev = ctx.design.device(ctx.gpu_ids[i])
            hit.add(dev.model or str(dev.properties.get("based_on") or ""))
        ctx.memo[key] = hit
    return set(hit)


def gpu_figure(ctx: Context, gpus: np.ndarray, key: str, catalog: Catalog, hint: str = "",
               what: str = "peak") -> tuple[float, str, list[str]]:
    """The smallest catalog ``specs[key]`` of the models of ``gpus``, the models, and a note when they
    differ; :class:`WorkloadError` (ending with ``hint``) when a model lacks the figure."""
    notes: list[str] = []
    models = sorted(gpu_models(ctx, gpus))
    values = {}
    for m in models:
        comp = catalog.components.get(m) if m else None
        v = comp.specs.get(key) if comp is not None else None
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
            raise WorkloadError(f"GPU model {m or '(none)'!r} has no specs.{key} in the catalog{hint}")
        values[m] = float(v)
    if len(values) > 1:
        notes.append(f"GPU models differ ({', '.join(values)}): the slowest {what} sets the pace")
    return min(values.values()), ", ".join(models), notes


def _peak(ctx: Context, gpus: np.ndarray, workload: Workload, catalog: Catalog) -> tuple[float, str, list[str]]:
    if workload.compute.peak_tflops is not None:
        models = sorted(gpu_models(ctx, gpus))
        return workload.compute.peak_tflops * 1e12, ", ".join(m or "?" for m in models), []
    tflops, models, notes = gpu_figure(ctx, gpus, "bf16_dense_tflops", catalog,
                                       ": give compute.peak_tflops in the workload")
    return tflops * 1e12, models, notes


def _price(ctx: Context, gpus: np.ndarray, workload: Workload, catalog: Catalog) -> tuple[float, str]:
    if workload.training.gpu_hour_usd is not None:
        return workload.training.gpu_hour_usd, "workload"
    prices = []
    for m in gpu_models(ctx, gpus):
        comp = catalog.components.get(m) if m else None
        if comp is not None and comp.price_usd > 0:
            prices.append(comp.price_usd)
    if not prices:
        return 0.0, "none"
    return max(prices) / (T.AMORTISATION_YEARS * T.HOURS_PER_YEAR), "catalog price over 6 years"


def exposed_after(times: np.ndarray, window: float) -> float:
    """Time past ``window`` of buckets sent one after another, bucket k ready at (k + 1) / n of it.

    >>> exposed_after(np.array([1.0, 1.0]), 4.0)   # ready at 2 and 4: done at 5
    1.0
    >>> exposed_after(np.array([3.0]), 0.0)
    3.0
    """
    n = len(times)
    if not n:
        return 0.0
    ready = window * np.arange(1, n + 1) / n
    tail = np.cumsum(times[::-1])[::-1]  # sum of t_k for k >= j
    return float(max(np.max(ready + tail) - window, 0.0))


def _buckets(total: float, bucket: int) -> list[float]:
    if total <= 0:
        return []
    full = int(total // bucket)
    rest = total - full * bucket
    return [float(bucket)] * full + ([rest] if rest >= 1 else [])


def _overlapped(times: np.ndarray, window: float, overlap: bool, fraction: float) -> float:
    total = float(times.sum())
    if not overlap:
        return total
    exposed = exposed_after(times, window)
    return total - fraction * (total - exposed)


def step_analysis(design: Design | Context, workload: Workload, catalog: Catalog | None = None,
                  routing: str | None = None, *, hash_draws: int = DEFAULT_HASH_DRAWS,
                  hash_seed: int = DEFAULT_HASH_SEED) -> StepReport:
    """Predict the training step of ``workload`` on ``design`` (or a built :class:`Context`).

    ``routing``: ``fluid``, ``hashed`` or ``adaptive`` (default: by fabric type,
    :func:`designer.analysis.collectives.hashed.routing_mode`). Under hashed ECMP every
    communicator's groups are routed together in seeded draws (:mod:`designer.analysis.training.traffic`):
    the step uses the mean of the draws, ``step_time_p99_s`` their 99th percentile.

    Raises :class:`WorkloadError` when the job does not fit the design (too few GPUs, a GPU model
    without a peak FLOP/s figure). Examples: ``tests/analysis/test_training_step.py``.
    """
    ctx = design if isinstance(design, Context) else build_context(design, catalog)
    catalog = catalog if catalog is not None else ctx.catalog
    rt = routing_mode(ctx, routing, catalog, draws=hash_draws, seed=hash_seed)
    rep = _step(ctx, workload, catalog, rt, tail=False)
    if rt.mode != "hashed":
        return replace(rep, routing=rt.mode)
    p99 = _step(ctx, workload, catalog, rt, tail=True).step_time_s  # the communicators are memoised
    return replace(rep, routing=rt.mode, step_time_p99_s=p99)


def _step(ctx: Context, workload: Workload, catalog: Catalog, rt: Routing, *, tail: bool) -> StepReport:
    """One step of ``workload``: placement, compute, the communication of the slots and of data
    parallelism, and the report; ``tail``: each communicator at the 99th percentile of its draws."""
    pl = place(ctx, workload)
    notes = list(pl.notes)
    par = workload.parallelism
    m = _micro_batches(workload, pl.sizes["dp"], par.pp, notes)
    work = _compute(ctx, pl, workload, m, catalog, notes)
    tl = _Timeline(m, m + (par.pp - 1) / par.virtual_stages, tail)
    _slot_communication(ctx, pl, workload, rt, tl)
    _data_parallel_communication(ctx, pl, workload, rt, tl, work.compute_s / m)
    return _report(ctx, pl, workload, catalog, work, tl, notes)


def _micro_batches(w: Workload, dp: int, pp: int, notes: list[str]) -> int:
    """Micro-batches per step on each pipeline stage: global batch / (dp x micro-batch), at least 1;
    notes when the batch does not divide or the pipeline has too few to fill it."""
    mbs = w.batch.micro_batch_sequences
    m = w.batch.global_batch_sequences // (dp * mbs)
    if m < 1 or m * dp * mbs != w.batch.global_batch_sequences:
        m = max(m, 1)
        notes.append(f"global batch of {w.batch.global_batch_sequences:,} sequences is not a multiple of dp x "
                     f"micro-batch = {dp * mbs:,}: modelled as {m * dp * mbs:,} ({count(m, 'micro-batch')} per rank)")
    if pp > 1 and m < pp:
        notes.append(f"only {count(m, 'micro-batch')} for {pp} pipeline stages: the bubble dominates")
    return m


@dataclass(frozen=True)
class _Work:
    """The step's work: tokens and model FLOPs, the GPUs' peak (FLOP/s) and models, compute time (s)."""

    tokens: int
    flops: float
    peak: float
    gpu_model: str
    compute_s: float


def _compute(ctx: Context, pl: Placement, w: Workload, m: int, catalog: Catalog, notes: list[str]) -> _Work:
    """Tokens, FLOPs and compute time of a step of ``m`` micro-batches per rank (module docstring)."""
    tokens = m * pl.sizes["dp"] * w.batch.micro_batch_sequences * w.model.sequence_length
    flops = T.FLOPS_PER_PARAM_PER_TOKEN * w.model.active_parameters * tokens
    peak, gpu_model, peak_notes = _peak(ctx, pl.gpus, w, catalog)
    notes += peak_notes
    if w.compute.step_compute_s is not None:
        compute = w.compute.step_compute_s
    else:
        recompute = T.RECOMPUTE_FACTOR if w.compute.activation_recompute else 1.0
        compute = flops * recompute / (pl.n_ranks * peak * w.compute.efficiency)
    return _Work(tokens, flops, peak, gpu_model, compute)


@dataclass
class _Timeline:
    """The communication of a step as it is summed: its phases, the exposed time per slot
    (``slot_comm``, s) and the data-parallel time exposed after the last slot (s)."""

    micro_batches: int
    slots: float
    tail: bool
    phases: list[CommPhase] = field(default_factory=list)
    slot_comm: float = 0.0
    dp_exposed_end: float = 0.0

    def per_micro_batch(self, comm: Communicator, size: float, calls_per_mb: float, exposed_share: float) -> None:
        """A communicator called ``calls_per_mb`` times per micro-batch, ``exposed_share`` of it exposed."""
        m = self.micro_batches
        per_call = comm.time(size, self.tail)
        per_mb = calls_per_mb * per_call
        self.slot_comm += per_mb * exposed_share
        self.phases.append(CommPhase(comm.name, comm.collective, comm.algorithm, comm.groups, comm.group_size,
                                     int(round(calls_per_mb * m)), size, per_call,
                                     comm.alone_s.get(int(round(size)), per_call), comm.slowdown, per_mb * m,
                                     per_mb * exposed_share * self.slots, comm.bottleneck_link, comm.network,
                                     comm.slowdown_p99))


def _slot_communication(ctx: Context, pl: Placement, w: Workload, rt: Routing, tl: _Timeline) -> None:
    """The communication of every micro-batch: tensor-parallel all-reduces, context-parallel gathers and
    reduce-scatters, expert all-to-all, pipeline sends (module docstring)."""
    par, mdl = w.parallelism, w.model
    tp, cp, pp, ep, v = par.tp, par.cp, par.pp, par.ep, par.virtual_stages
    mbs, seq, h = w.batch.micro_batch_sequences, mdl.sequence_length, mdl.hidden_size
    layers_stage = mdl.layers / pp
    act = w.precision.activation_bytes
    mb_tokens = mbs * seq / cp
    if tp > 1:
        size = mb_tokens * h * act
        tl.per_micro_batch(communicator(ctx, "tp", pl.tp, "allreduce", [size], rt), size, 4 * layers_stage,
                           1.0 - w.compute.tp_overlap)
    if cp > 1:
        size = 2 * mbs * seq * h * mdl.kv_fraction * act / tp
        comm_ag = communicator(ctx, "cp", pl.cp, "allgather", [size], rt)
        tl.per_micro_batch(comm_ag, size, layers_stage, 1.0)
        comm_rs = communicator(ctx, "cp", pl.cp, "reducescatter", [size], rt)
        tl.per_micro_batch(comm_rs, size, layers_stage, 1.0)
    if ep > 1 and mdl.is_moe:
        size = mb_tokens / (tp if par.sequence_parallel else 1) * mdl.experts_per_token * h * act
        tl.per_micro_batch(communicator(ctx, "ep", pl.ep, "alltoall", [size], rt), size, 4 * mdl.moe_layers / pp, 1.0)
    if pp > 1:
        size = mb_tokens * h * act / (tp if par.sequence_parallel else 1)
        # One activation forward and one gradient backward per micro-batch and virtual stage.
        tl.per_micro_batch(communicator(ctx, "pp", pl.pp, "sendrecv", [size], rt), size, 2.0 * v, 1.0)


def _data_parallel_communication(ctx: Context, pl: Placement, w: Workload, rt: Routing, tl: _Timeline,
                                 c: float) -> None:
    """Gradient (and parameter) traffic in buckets: dense gradients over dp x cp, expert gradients over the
    expert-data-parallel groups; ``c``: the compute time of one micro-batch (s)."""
    par, mdl = w.parallelism, w.model
    tp, pp, ep = par.tp, par.pp, par.ep
    grad = w.precision.gradient_bytes
    expert = mdl.expert_parameters if (mdl.is_moe and ep > 1) else 0.0
    sets = [("dp", pl.dp, (mdl.parameters - expert) / (tp * pp) * grad)]
    if expert > 0:
        sets.append(("edp", pl.edp, expert / (tp * pp * ep) * grad))
    dpc = w.data_parallel
    for name, groups, nbytes in sets:
        if groups.shape[1] < 2 or nbytes <= 0:
            continue
        bucket = dpc.bucket_for(groups.shape[1], w.precision.gradient_bytes, nbytes)
        sizes = _buckets(nbytes, bucket)
        kinds = {"none": ("allreduce",), "optimizer": ("reducescatter", "allgather"),
                 "full": ("reducescatter", "allgather")}[dpc.sharding]
        comms = {k: communicator(ctx, name, groups, k, sizes, rt) for k in kinds}
        for k, comm in comms.items():
            _bucketed_collective(tl, dpc, name, k, comm, sizes, float(bucket), c)


def _bucketed_collective(tl: _Timeline, dpc: DataParallel, name: str, k: str, comm: Communicator,
                         sizes: list[float], bucket: float, c: float) -> None:
    """One data-parallel collective ``k`` over gradient buckets: with full sharding in every micro-batch
    (its exposed part adds to each slot), else once after the last backward pass."""
    times = np.array([comm.time(s, tl.tail) for s in sizes])
    total = float(times.sum())
    bwd_window = T.BACKWARD_SHARE * c
    fwd_window = T.FORWARD_SHARE * c
    m = tl.micro_batches
    if dpc.sharding == "full":
        # Every micro-batch: parameters gathered for the forward and the backward pass, gradients
        # reduce-scattered in the backward pass.
        if k == "allgather":
            exp = (_overlapped(times[::-1], fwd_window, dpc.overlap, dpc.overlap_fraction)
                   + _overlapped(times, bwd_window, dpc.overlap, dpc.overlap_fraction))
            per_mb, calls = 2 * total, 2 * len(sizes)
        else:
            exp = _overlapped(times, bwd_window, dpc.overlap, dpc.overlap_fraction)
            per_mb, calls = total, len(sizes)
        tl.slot_comm += exp
        calls, total_s, exposed_s = calls * m, per_mb * m, exp * tl.slots
    else:
        if k == "allgather":  # sharded optimiser: parameters gathered while the next forward pass starts
            exp = _overlapped(times[::-1], fwd_window, dpc.overlap, dpc.overlap_fraction)
        else:
            exp = _overlapped(times, bwd_window, dpc.overlap, dpc.overlap_fraction)
        tl.dp_exposed_end += exp
        calls, total_s, exposed_s = len(sizes), total, exp
    tl.phases.append(CommPhase(name, k, comm.algorithm, comm.groups, comm.group_size, calls, bucket,
                               float(times[0]), comm.alone_s.get(sizes[0], 0.0), comm.slowdown, total_s, exposed_s,
                               comm.bottleneck_link, comm.network, comm.slowdown_p99))


def _report(ctx: Context, pl: Placement, w: Workload, catalog: Catalog, work: _Work, tl: _Timeline,
            notes: list[str]) -> StepReport:
    """Step time, idle fractions, MFU, throughput, time and idle cost to train, storage traffic."""
    par = w.parallelism
    pp, v, g = par.pp, par.virtual_stages, pl.n_ranks
    compute, peak = work.compute_s, work.peak
    c = compute / tl.micro_batches
    # The phases counted the slot communication per slot; the step runs ``slots`` slots.
    slot = c + tl.slot_comm
    step = tl.slots * slot + tl.dp_exposed_end
    bubble = (pp - 1) / v * c
    exposed = step - compute - bubble
    if not math.isfinite(step):
        notes.append("some communicator has no path between its GPUs: the step never completes")
    idle = 1.0 - compute / step if step > 0 and math.isfinite(step) else 1.0
    comm_idle = exposed / step if step > 0 and math.isfinite(step) else 1.0
    mfu = work.flops / (step * g * peak) if step > 0 and math.isfinite(step) else 0.0
    tps = work.tokens / step if step > 0 and math.isfinite(step) else 0.0
    ttt = w.training.tokens / tps if tps > 0 else float("inf")
    price, price_source = _price(ctx, pl.gpus, w, catalog)
    idle_gpu_hours_per_day = 24.0 * (g * idle + pl.idle_gpus)
    idle_cost_day = price * idle_gpu_hours_per_day
    idle_cost_total = price * (g * idle + pl.idle_gpus) * ttt / 3600.0 if math.isfinite(ttt) else float("inf")
    sto = storage_analysis(ctx, pl.gpus, w.storage.checkpoint_bytes, w.storage.checkpoint_interval_s,
                           tps * w.storage.bytes_per_token, catalog)
    if sto is None and w.storage.checkpoint_bytes > 0:
        notes.append("the design has no storage device: checkpoint and input traffic not modelled")
    return StepReport(
        workload=w.name, design_name=ctx.design.name, gpus=g, idle_gpus=pl.idle_gpus, gpu_model=work.gpu_model,
        peak_flops_per_gpu=peak, efficiency=w.compute.efficiency,
        parallelism={"tp": par.tp, "cp": par.cp, "pp": pp, "dp": pl.sizes["dp"], "ep": par.ep, "virtual_stages": v},
        micro_batches=tl.micro_batches, tokens_per_step=work.tokens, flops_per_step=work.flops, step_time_s=step,
        compute_s=compute, bubble_s=bubble, exposed_comm_s=exposed, gpu_idle_fraction=idle,
        comm_idle_fraction=comm_idle, mfu=mfu, tokens_per_s=tps, train_tokens=w.training.tokens,
        time_to_train_s=ttt, gpu_hour_usd=price, price_source=price_source, idle_cost_per_day_usd=idle_cost_day,
        idle_cost_to_train_usd=idle_cost_total, phases=tuple(tl.phases), notes=tuple(dict.fromkeys(notes)),
        storage=sto,
    )


__all__ = ["CommPhase", "Placement", "StepReport", "exposed_after", "gpu_figure", "step_analysis"]
