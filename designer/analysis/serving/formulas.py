"""The serving formulas that follow from the model's shape alone (units: bytes, FLOP, tokens).

- **KV cache per token**: grouped-query attention keeps a key and a value per layer and KV head,
  2 x layers x kv_heads x head_dim x bytes; multi-head latent attention (MLA, DeepSeek-V2/V3) keeps
  one compressed latent and the decoupled rotary key per layer, layers x (kv_lora_rank +
  qk_rope_head_dim) x bytes (DeepSeek-V2, arXiv:2405.04434, section 2.1.2 and Table 1).
- **FLOPs per token**: 2 x active parameters (one multiply-add per weight, Kaplan et al.,
  arXiv:2001.08361, section 2.1) plus attention over ``context`` earlier tokens,
  2 x layers x heads x context x (head_dim + v_head_dim) (scores Q K^T and the weighted sum of V).
- **Experts touched** by T tokens each routed to k of E experts, uniformly: 1 - (1 - k / E)^T of
  them; a decode step reads only those experts' weights.

Examples
--------
>>> from designer.analysis.serving.workload import Precision, ServingModel
>>> llama70 = ServingModel(70.6e9, 70.6e9, 80, 8192, 64, 8, 128)
>>> kv_bytes_per_token(llama70, Precision())
327680
>>> v3 = ServingModel(671e9, 37e9, 61, 7168, 128, 128, 192, 128, 256, 8, 58, 512, 64)
>>> kv_bytes_per_token(v3, Precision()), kv_bytes_per_token(v3, Precision(kv_cache="fp8"))
(70272, 35136)
>>> experts_touched(256, 8, 1), round(experts_touched(256, 8, 256), 3)
(0.03125, 1.0)
"""

from __future__ import annotations

import math

from designer.analysis.serving import constants as S
from designer.analysis.serving.workload import Phase, Precision, ServingModel


def kv_bytes_per_token(model: ServingModel, precision: Precision) -> int:
    """Bytes of KV cache one token adds over all layers (exact, a whole number)."""
    b = precision.bytes_of("kv_cache")
    if model.is_mla:
        return model.layers * (model.kv_lora_rank + model.qk_rope_head_dim) * b
    return 2 * model.layers * model.kv_heads * model.head_dim * b


def attention_flops_per_token(model: ServingModel, context: float) -> float:
    """FLOPs of attention for one token attending to ``context`` earlier tokens."""
    return 2.0 * model.layers * model.attention_heads * context * (model.head_dim + model.value_dim)


def flops_per_token(model: ServingModel, context: float) -> float:
    """Forward FLOPs of one token: the weights' 2 N_active and its attention."""
    return 2.0 * model.active_parameters + attention_flops_per_token(model, context)


def experts_touched(experts: int, per_token: int, tokens: float) -> float:
    """Expected fraction of ``experts`` that at least one of ``tokens`` tokens (``per_token`` each) uses."""
    if experts <= 1 or tokens <= 0:
        return 1.0 if tokens > 0 else 0.0
    return 1.0 - (1.0 - per_token / experts) ** tokens


def kv_shards(model: ServingModel, tp: int) -> int:
    """How many ways tensor parallelism splits a sequence's KV cache: by KV head (at most kv_heads ways;
    beyond, heads are replicated); an MLA latent is shared by every head, so every rank keeps it whole."""
    return 1 if model.is_mla else max(1, min(tp, model.kv_heads))


def kv_bytes_per_gpu(model: ServingModel, phase: Phase, precision: Precision, sequences: float,
                     context: float) -> float:
    """KV-cache bytes one GPU of an instance holds (and a decode step reads) for ``sequences`` sequences of
    ``context`` tokens: attention data parallelism gives each ``dp`` rank its own sequences, pipeline
    stages their layers, tensor parallelism its KV heads."""
    per_rank = sequences / phase.dp
    return per_rank * context * kv_bytes_per_token(model, precision) / (phase.pp * kv_shards(model, phase.tp))


def weight_bytes_per_gpu(model: ServingModel, phase: Phase, precision: Precision, tokens: float,
                         *, all_experts: bool = False) -> float:
    """Weight bytes one GPU reads in a step of ``tokens`` tokens (``all_experts``: holds, for memory).

    Dense weights are split over tensor and pipeline ranks (and replicated over attention data
    parallelism); routed experts over ``ep`` ranks per stage, or with ``ep`` 1 over the tensor ranks.
    """
    b = precision.bytes_of("weights")
    dense = model.dense_parameters * b / (phase.tp * phase.pp)
    expert = model.expert_parameters * b
    if expert <= 0:
        return dense
    touched = 1.0 if all_experts else experts_touched(model.experts, model.experts_per_token, tokens)
    if phase.ep > 1:  # whole experts per GPU; when ep does not divide them, the spare slots hold redundant copies
        held = math.ceil(model.experts / phase.ep) * expert / model.experts
        return dense + held * touched / phase.pp
    return dense + expert * touched / (phase.tp * phase.pp)


def dispatch_bytes_per_element(precision: Precision) -> float:
    """Bytes per hidden element of a token sent to an expert (FP8 with its per-tile scales)."""
    b = float(precision.bytes_of("dispatch"))
    return b + (S.FP8_SCALE_BYTES_PER_ELEMENT if precision.dispatch == "fp8" else 0.0)


__all__ = ["attention_flops_per_token", "dispatch_bytes_per_element", "experts_touched", "flops_per_token",
           "kv_bytes_per_gpu", "kv_bytes_per_token", "kv_shards", "weight_bytes_per_gpu"]
