"""The serving model: time to first token, time per output token, tokens/s, and what bounds them.

One *step* of a phase is one forward pass of an instance over its batch (prefill: ``batch_sequences``
prompts; decode: one new token for each of ``batch_sequences`` sequences). Per GPU of a pipeline stage:

- **compute** = tokens x (2 N_active + attention FLOPs) / instance GPUs / (peak x efficiency); the peak
  is the catalog's dense BF16 figure (x 2 with FP8 compute);
- **memory** = (weights read + KV cache read or written) / (HBM bytes/s x efficiency); a decode step
  reads only the experts its tokens use (:mod:`designer.analysis.serving.formulas`);
- the GPU time of a step is pp x max(compute, memory) (the batch crosses every stage in turn).

Communication per step, every instance of the pool at once on the shared links (the training room's
concurrent communicators, :mod:`designer.analysis.training.traffic`): tensor-parallel **all-reduces**
(one after attention and one after each dense MLP per layer, NCCL's algorithms and NVLS on NVLink),
expert **dispatch and combine** all-to-alls per MoE layer (the fabric's seconds per byte at the busiest
link, divided by DeepEP's measured efficiency for the kernel mode and transport), **pipeline sends**
between stages. All-reduces and sends are on the critical path; with ``overlap: two-batch`` the
all-to-all time beyond the GPU time is exposed. Step = GPU time + exposed communication.

**KV-cache transfer** (disaggregated): every prefill GPU sends its share of the batch's cache to the
decode instance it feeds, all prefill instances at once; layer by layer (Mooncake) only what outlasts
the prefill is exposed, at least one layer's share.

TTFT = prefill step + exposed KV transfer. TPOT = decode step; colocated, plus the prefill work the
instance does per decode step (chunked prefill, Sarathi: batch x prompt / output tokens of prompt).
The bound of a phase is the largest of its compute, memory and exposed communication time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from designer.analysis.fabric.context import Context, build_context
from designer.analysis.serving import constants as S
from designer.analysis.serving import formulas as F
from designer.analysis.serving.pools import Pool, pools, server_size
from designer.analysis.serving.workload import Phase, ServingError, ServingWorkload
from designer.analysis.training.step import gpu_figure
from designer.analysis.training.traffic import communicator, flows_of, shared_seconds_per_byte
from designer.model import Design
from designer.model.catalog import Catalog
from designer.model.units import count, duration

BOUNDS = ("compute", "memory", "network")


@dataclass(frozen=True)
class CommTerm:
    """One communication of a step (units: s, bytes; per step unless "per call")."""

    name: str
    collective: str
    calls: int
    message_bytes: float
    per_call_s: float
    total_s: float
    exposed_s: float
    bottleneck_link: str
    network: bool


@dataclass(frozen=True)
class PhaseReport:
    """One phase's step on one instance (units: s, bytes, tokens)."""

    phase: str
    instances: int
    gpus_per_instance: int
    parallelism: dict
    batch_sequences: int
    tokens_per_step: int
    step_s: float
    compute_s: float
    memory_s: float
    exposed_comm_s: float
    bound: str
    comm: tuple[CommTerm, ...]
    memory_bytes_per_gpu: float
    max_batch_by_memory: int

    @property
    def network_share(self) -> float:
        return self.exposed_comm_s / self.step_s if self.step_s > 0 and math.isfinite(self.step_s) else 1.0


@dataclass(frozen=True)
class ServingReport:
    """A serving workload on a design (units: s, bytes, tokens/s)."""

    workload: str
    design_name: str
    mode: str
    gpu_model: str
    gpus: int
    idle_gpus: int
    gpus_per_server: int
    peak_flops_per_gpu: float
    memory_bytes_per_s_per_gpu: float
    kv_bytes_per_token: int
    prefill: PhaseReport
    decode: PhaseReport
    kv_transfer: CommTerm | None
    ttft_s: float
    tpot_s: float
    input_tokens_per_s_per_gpu: float
    output_tokens_per_s_per_gpu: float
    network_share_ttft: float
    network_share_tpot: float
    bound: str
    bottleneck_link: str
    target_tpot_s: float | None
    max_batch_for_target: int | None
    notes: tuple[str, ...]

    @property
    def input_tokens_per_s_per_server(self) -> float:
        return self.input_tokens_per_s_per_gpu * self.gpus_per_server

    @property
    def output_tokens_per_s_per_server(self) -> float:
        return self.output_tokens_per_s_per_gpu * self.gpus_per_server


class _Comm:
    """A communicator of every instance of a pool, its time per call as a function of tokens per step."""

    def __init__(self, ctx: Context, name: str, groups: np.ndarray, collective: str, bytes_per_token: float,
                 tokens: list[float]) -> None:
        self.bytes_per_token = bytes_per_token
        self.comm = communicator(ctx, name, groups, collective, [bytes_per_token * t for t in tokens])
        self.link = self.comm.bottleneck_link
        if not self.link:  # one group alone shares no link: name the busiest link of its own flows
            src, dst, w = flows_of(ctx, groups[:1], collective)
            _, arc, _ = shared_seconds_per_byte(ctx, src, dst, w, np.zeros(len(src), dtype=np.int64))
            self.link = ctx.cap.link_ids[ctx.cap.arc_link(arc)] if arc >= 0 and ctx.cap.link_ids else ""

    def per_call(self, tokens: float) -> float:
        return self.comm.time(self.bytes_per_token * tokens)


class AllToAll:
    """Expert dispatch or combine over every expert group of a pool at once: DeepEP's efficiency for the
    kernel mode over the transport the groups use, on the fabric's seconds per byte."""

    def __init__(self, ctx: Context, groups: np.ndarray, mode: str) -> None:
        src, dst, w = flows_of(ctx, groups, "alltoall")
        p = groups.shape[1]
        group_of = np.repeat(np.arange(len(groups)), p * (p - 1))
        self.spb, arc, _ = shared_seconds_per_byte(ctx, src, dst, w, group_of)
        dom = ctx.fabric.domain[groups]
        self.network = bool(((dom < 0) | (dom != dom[:, :1])).any())
        self.efficiency = S.EP_EFFICIENCY[(mode, "rdma" if self.network else "nvlink")]
        self.link = ctx.cap.link_ids[ctx.cap.arc_link(arc)] if arc >= 0 and ctx.cap.link_ids else ""

    def per_call(self, message_bytes: float) -> float:
        return S.EP_CALL_LATENCY_S + message_bytes * self.spb / self.efficiency


class _PhaseModel:
    """Step time of one phase as a function of its batch (communicators built once)."""

    def __init__(self, ctx: Context, w: ServingWorkload, pool: Pool, name: str, peak: float, hbm: float,
                 largest_batch: int) -> None:
        self.w, self.pool, self.name, self.peak, self.hbm = w, pool, name, peak, hbm
        ph, m, pr = pool.phase, w.model, w.precision
        self.prefill = name == "prefill"
        per_seq = w.requests.prompt_tokens if self.prefill else 1
        grid = sorted({float(2 ** i) for i in range(int(math.log2(max(largest_batch * per_seq, 1))) + 2)}
                      | {float(per_seq * ph.batch_sequences)})
        act, h = pr.bytes_of("activations"), m.hidden_size
        self.tp = _Comm(ctx, "tp", pool.tp, "allreduce", h * act / ph.dp, grid) if ph.tp > 1 else None
        self.pp = _Comm(ctx, "pp", pool.pp, "sendrecv", h * act / ph.dp, grid) if ph.pp > 1 else None
        self.ep = AllToAll(ctx, pool.ep, ph.ep_mode) if ph.ep > 1 and m.is_moe else None

    def _context(self) -> tuple[float, float]:
        """(attention context per token, KV tokens held per sequence)."""
        r = self.w.requests
        if self.prefill:
            return r.prompt_tokens / 2.0, float(r.prompt_tokens)
        return r.prompt_tokens + r.output_tokens / 2.0, r.prompt_tokens + r.output_tokens / 2.0

    def _comm_terms(self, tokens: float) -> list[tuple[CommTerm, bool]]:
        """Each communication of a step of ``tokens`` tokens, and whether two-batch overlap can hide it."""
        ph, m, pr = self.pool.phase, self.w.model, self.w.precision
        out: list[tuple[CommTerm, bool]] = []
        if self.tp is not None:
            calls = 2 * m.layers - (m.moe_layers if self.ep is not None else 0)
            t = self.tp.per_call(tokens)
            out.append((CommTerm("tensor-parallel all-reduce", "allreduce", calls, self.tp.bytes_per_token * tokens,
                                 t, calls * t, calls * t, self.tp.link, self.tp.comm.network), False))
        if self.ep is not None:
            per_gpu_tokens = tokens / (ph.dp * ph.tp)
            elems = per_gpu_tokens * m.experts_per_token * m.hidden_size
            for label, size in (("expert dispatch", elems * F.dispatch_bytes_per_element(pr)),
                                ("expert combine", elems * pr.bytes_of("activations"))):
                t = self.ep.per_call(size)
                out.append((CommTerm(label, "alltoall", m.moe_layers, size, t, m.moe_layers * t, m.moe_layers * t,
                                     self.ep.link, self.ep.network), True))
        if self.pp is not None:
            t = self.pp.per_call(tokens)
            out.append((CommTerm("pipeline send", "sendrecv", ph.pp - 1, self.pp.bytes_per_token * tokens, t,
                                 (ph.pp - 1) * t, (ph.pp - 1) * t, self.pp.link, self.pp.comm.network), False))
        return out

    def step(self, batch: int, max_batch_by_memory: int = 0) -> PhaseReport:
        ph, m, pr, eff = self.pool.phase, self.w.model, self.w.precision, self.w.efficiency
        tokens = batch * (self.w.requests.prompt_tokens if self.prefill else 1)
        attn_ctx, kv_ctx = self._context()
        flops = tokens * F.flops_per_token(m, attn_ctx) / ph.gpus
        compute = ph.pp * flops / (self.peak * eff.compute)
        held = F.weight_bytes_per_gpu(m, ph, pr, tokens) + F.kv_bytes_per_gpu(m, ph, pr, batch, kv_ctx)
        memory = ph.pp * held / (self.hbm * eff.memory)
        gpu = max(compute, memory)
        terms = self._comm_terms(tokens)
        hideable = sum(t.total_s for t, can in terms if can)
        hidden = min(hideable, gpu) if ph.overlap == "two-batch" else 0.0
        comm = []
        for t, can in terms:
            share = (t.total_s * (1 - hidden / hideable) if can and hideable > 0 else t.total_s)
            comm.append(CommTerm(t.name, t.collective, t.calls, t.message_bytes, t.per_call_s, t.total_s, share,
                                 t.bottleneck_link, t.network))
        exposed = sum(t.exposed_s for t in comm)
        step = gpu + exposed
        parts = {"compute": compute, "memory": memory, "network": exposed}
        bound = max(BOUNDS, key=lambda k: parts[k])
        return PhaseReport(self.name, self.pool.instances, ph.gpus,
                           {"tp": ph.tp, "dp": ph.dp, "pp": ph.pp, "ep": ph.ep}, batch, int(tokens), step, compute,
                           memory, exposed, bound, tuple(comm), held, max_batch_by_memory)


def _memory_limit(w: ServingWorkload, phase: Phase, capacity: float) -> int:
    """The largest batch whose weights and KV cache fit one GPU's usable memory (0: the weights alone do not)."""
    m, pr, r = w.model, w.precision, w.requests
    free = capacity * S.MEMORY_USABLE_FRACTION - F.weight_bytes_per_gpu(m, phase, pr, 0, all_experts=True)
    per_seq = F.kv_bytes_per_gpu(m, phase, pr, 1, r.prompt_tokens + r.output_tokens)
    return max(int(free // per_seq), 0) if per_seq > 0 else 10**9


def kv_transfer_time(ctx: Context, prefill: Pool, decode: Pool, message: float) -> tuple[float, str, bool]:
    """Seconds to send ``message`` bytes of KV cache from every prefill instance to its decode instance at
    once, the bottleneck link, and whether it crosses the network."""
    kp, sp = prefill.gpus.shape
    kd, sd = decode.gpus.shape
    src = prefill.gpus.ravel()
    dst = decode.gpus[np.repeat(np.arange(kp) % kd, sp), np.tile(np.arange(sp) % sd, kp)]
    spb, arc, _ = shared_seconds_per_byte(ctx, src, dst, np.full(len(src), 1.0 / sp), np.repeat(np.arange(kp), sp))
    dom = ctx.fabric.domain
    network = bool(((dom[src] < 0) | (dom[src] != dom[dst])).any())
    link = ctx.cap.link_ids[ctx.cap.arc_link(arc)] if arc >= 0 and ctx.cap.link_ids else ""
    return message * spb, link, network


def _largest_batch_within(model: _PhaseModel, target: float, limit: int, extra) -> int:  # noqa: ANN001
    """The largest decode batch from 1 to ``limit`` whose TPOT (step + ``extra(batch)``) is at most ``target``."""
    def ok(b: int) -> bool:
        return model.step(b).step_s + extra(b) <= target

    if limit < 1 or not ok(1):
        return 0
    lo, hi = 1, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid - 1)
    return lo


def _figures(ctx: Context, gpus: np.ndarray, w: ServingWorkload, catalog: Catalog) -> tuple[float, float, float, str,
                                                                                            list[str]]:
    """Peak FLOP/s, HBM bytes/s and bytes of the pool's GPUs, their models, notes."""
    notes: list[str] = []
    if w.efficiency.peak_tflops is not None:
        peak, models = w.efficiency.peak_tflops * 1e12, ""
    else:
        tflops, models, notes = gpu_figure(ctx, gpus, "bf16_dense_tflops", catalog,
                                           ": give efficiency.peak_tflops in the serving workload")
        peak = tflops * 1e12 * (S.FP8_OVER_BF16_PEAK if w.precision.compute == "fp8" else 1.0)
    hbm, models2, n2 = gpu_figure(ctx, gpus, "memory_bandwidth_tb_s", catalog, what="memory bandwidth")
    mem, _, _ = gpu_figure(ctx, gpus, "memory_gb", catalog, what="memory")
    return peak, hbm * 1e12, mem * 1e9, models or models2, notes + n2


def serving_analysis(design: Design | Context, w: ServingWorkload, catalog: Catalog | None = None) -> ServingReport:
    """Predict TTFT, TPOT and tokens/s of ``w`` on ``design`` (or a built :class:`Context`).

    Raises :class:`ServingError` when the instances do not fit the design or the weights do not fit a
    GPU. Examples: ``tests/analysis/test_serving_model.py``.
    """
    ctx = design if isinstance(design, Context) else build_context(design, catalog)
    catalog = catalog if catalog is not None else ctx.catalog
    pf_pool, dc_pool, idle, notes = pools(ctx, w)
    used = np.unique(np.concatenate([pf_pool.gpus.ravel(), dc_pool.gpus.ravel()]))
    peak, hbm, capacity, gpu_model, fig_notes = _figures(ctx, used, w, catalog)
    notes += fig_notes
    r = w.requests
    mem_d = _memory_limit(w, w.decode, capacity)
    mem_p = _memory_limit(w, w.prefill, capacity) if w.disaggregated else mem_d
    if min(mem_d, mem_p) < 1:
        raise ServingError(f"the weights and one sequence's KV cache do not fit a GPU's usable memory "
                           f"({S.MEMORY_USABLE_FRACTION:.0%} of {capacity / 1e9:g} GB): use more tensor, pipeline or "
                           "expert parallelism")
    pm = _PhaseModel(ctx, w, pf_pool, "prefill", peak, hbm, w.prefill.batch_sequences)
    dm = _PhaseModel(ctx, w, dc_pool, "decode", peak, hbm, max(mem_d, w.decode.batch_sequences))
    pre = pm.step(w.prefill.batch_sequences, mem_p)
    prefill_per_token = pre.step_s / pre.tokens_per_step if pre.tokens_per_step else 0.0

    def interference(b: int) -> float:
        """Colocated: the prompt tokens an instance must prefill per decode step of ``b`` sequences."""
        return 0.0 if w.disaggregated else prefill_per_token * b * r.prompt_tokens / r.output_tokens

    target_batch = None
    if r.target_tpot_s is not None:
        target_batch = _largest_batch_within(dm, r.target_tpot_s, mem_d, interference)
    batch = w.decode.batch_sequences if w.decode.batch_sequences else max(target_batch or 1, 1)
    if batch > mem_d:
        notes.append(f"a decode batch of {batch:,} sequences needs more KV cache than a GPU holds (at most "
                     f"{mem_d:,} of {r.prompt_tokens + r.output_tokens:,} tokens)")
    dec = dm.step(batch, mem_d)
    if target_batch == 0:
        notes.append(f"no decode batch meets the {duration(r.target_tpot_s)} TPOT target: one sequence takes "
                     f"{duration(dm.step(1).step_s + interference(1))}")
    kv_pt = F.kv_bytes_per_token(w.model, w.precision)
    kv_term = None
    kv_exposed = 0.0
    if w.disaggregated:
        message = w.prefill.batch_sequences * r.prompt_tokens * kv_pt
        t, link, net = kv_transfer_time(ctx, pf_pool, dc_pool, message)
        if w.efficiency.kv_transfer == "layer":
            kv_exposed = max(t - pre.step_s * (1 - 1 / w.model.layers), t / w.model.layers)
        else:
            kv_exposed = t
        kv_term = CommTerm("KV-cache transfer", "transfer", 1, message, t, t, kv_exposed, link, net)
    ttft = pre.step_s + kv_exposed
    extra = interference(batch)
    tpot = dec.step_s + extra
    out_gpu = batch / tpot / dec.gpus_per_instance if tpot > 0 and math.isfinite(tpot) else 0.0
    if w.disaggregated:
        in_gpu = pre.tokens_per_step / pre.step_s / pre.gpus_per_instance if pre.step_s > 0 else 0.0
    else:
        in_gpu = out_gpu * r.prompt_tokens / r.output_tokens
    net_tpot = dec.exposed_comm_s + (extra * pre.network_share if extra else 0.0)
    terms = [*pre.comm, *dec.comm, *([kv_term] if kv_term else [])]
    worst = max(terms, key=lambda c: c.exposed_s, default=None)
    if not math.isfinite(ttft) or not math.isfinite(tpot):
        notes.append("some communicator has no path between its GPUs: the phase never completes")
    return ServingReport(
        workload=w.name, design_name=ctx.design.name, mode=w.mode, gpu_model=gpu_model,
        gpus=int(len(used)), idle_gpus=idle, gpus_per_server=server_size(ctx), peak_flops_per_gpu=peak,
        memory_bytes_per_s_per_gpu=hbm, kv_bytes_per_token=kv_pt, prefill=pre, decode=dec, kv_transfer=kv_term,
        ttft_s=ttft, tpot_s=tpot, input_tokens_per_s_per_gpu=in_gpu, output_tokens_per_s_per_gpu=out_gpu,
        network_share_ttft=(pre.exposed_comm_s + kv_exposed) / ttft if ttft > 0 and math.isfinite(ttft) else 1.0,
        network_share_tpot=net_tpot / tpot if tpot > 0 and math.isfinite(tpot) else 1.0,
        bound=dec.bound, bottleneck_link=worst.bottleneck_link if worst is not None and worst.exposed_s > 0 else "",
        target_tpot_s=r.target_tpot_s, max_batch_for_target=target_batch,
        notes=tuple(dict.fromkeys(notes + ([f"{count(idle, 'GPU')} left idle"] if idle else []))),
    )


__all__ = ["BOUNDS", "AllToAll", "CommTerm", "PhaseReport", "ServingReport", "kv_transfer_time", "serving_analysis"]
