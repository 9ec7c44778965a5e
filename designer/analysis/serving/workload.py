"""A serving workload: the model's shape, its precisions, the deployment per phase, the requests.

The types the serving model reads (docs/serving.md). Serving files are parsed into them by
:mod:`designer.io.serving_records`; the formulas that follow from the shape alone (KV-cache bytes
per token, FLOPs per token, weights per GPU) are :mod:`designer.analysis.serving.formulas`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from designer.analysis.serving import constants as S
from designer.analysis.training import constants as T
from designer.analysis.training.workload import ExpertCounts
from designer.model.errors import DesignError

SERVING_FORMAT = "topo-designer-serving"
SERVING_VERSION = 1
#: Where prefill and decode run: on separate server pools, or both on every instance.
MODES = ("disaggregated", "colocated")
PHASES = ("prefill", "decode")


class ServingError(DesignError):
    """A serving workload cannot be read or does not fit the design; one-line message naming the field."""


@dataclass(frozen=True)
class ServingModel(ExpertCounts):
    """The served network. ``parameters`` total and ``active_parameters`` per token (MoE); attention by
    heads (``head_dim`` for queries and keys, ``v_head_dim`` for values); an MLA model (multi-head latent
    attention) caches ``kv_lora_rank + qk_rope_head_dim`` elements per token and layer instead of keys
    and values (``kv_lora_rank`` 0: ordinary grouped-query attention)."""

    parameters: float
    active_parameters: float
    layers: int
    hidden_size: int
    attention_heads: int
    kv_heads: int
    head_dim: int
    v_head_dim: int = 0
    experts: int = 1
    experts_per_token: int = 1
    moe_layers: int = 0
    kv_lora_rank: int = 0
    qk_rope_head_dim: int = 0

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank > 0

    @property
    def value_dim(self) -> int:
        return self.v_head_dim or self.head_dim


@dataclass(frozen=True)
class Precision:
    """Data types: weights (read every step), activations (all-reduces, pipeline sends, combine),
    the KV cache, the expert dispatch, and the matrix-product peak used (``compute``)."""

    weights: str = "bf16"
    activations: str = "bf16"
    kv_cache: str = "bf16"
    dispatch: str = "bf16"
    compute: str = "bf16"

    def bytes_of(self, what: str) -> int:
        return S.DTYPE_BYTES[getattr(self, what)]


@dataclass(frozen=True)
class Phase:
    """One phase's parallelism on one instance (``tp x dp x pp`` GPUs; ``ep`` 1 or ``tp x dp``: every
    GPU of a pipeline stage holds ``experts / ep`` experts), the number of instances (0: as many as fit),
    the sequences one step serves, the expert all-to-all kernel mode and overlap."""

    tp: int = 1
    pp: int = 1
    dp: int = 1
    ep: int = 1
    instances: int = 0
    batch_sequences: int = 1
    ep_mode: str = "normal"
    overlap: str = "none"

    @property
    def gpus(self) -> int:
        return self.tp * self.dp * self.pp


@dataclass(frozen=True)
class Requests:
    """Prompt and output lengths (tokens), and an optional decode latency target (s per output token)."""

    prompt_tokens: int
    output_tokens: int
    target_tpot_s: float | None = None


@dataclass(frozen=True)
class Efficiency:
    """Fractions of the catalog's peaks the kernels reach (compute FLOP/s, HBM bytes/s), an optional
    peak override, and how the KV cache goes from prefill to decode."""

    compute: float = T.COMPUTE_EFFICIENCY
    memory: float = S.MEMORY_EFFICIENCY
    peak_tflops: float | None = None
    kv_transfer: str = "layer"


@dataclass(frozen=True)
class ServingWorkload:
    """A model served on a fabric, independent of the fabric."""

    name: str
    model: ServingModel
    mode: str
    prefill: Phase
    decode: Phase
    requests: Requests
    precision: Precision = field(default_factory=Precision)
    efficiency: Efficiency = field(default_factory=Efficiency)
    description: str = ""
    sources: dict[str, str] = field(default_factory=dict, hash=False, compare=False)

    @property
    def disaggregated(self) -> bool:
        return self.mode == "disaggregated"


__all__ = ["MODES", "PHASES", "SERVING_FORMAT", "SERVING_VERSION", "Efficiency", "Phase", "Precision",
           "Requests", "ServingError", "ServingModel", "ServingWorkload"]
