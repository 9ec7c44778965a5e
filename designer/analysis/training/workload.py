"""A training workload: model, parallelism, batch, precision, overlap, storage (docs/workload-format.md).

The types the training-step model reads. Workload files are parsed into them by
:mod:`designer.io.workload_records` (the file format) and read by :mod:`designer.io.workload_file`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from designer.analysis.training import constants as T
from designer.model.errors import DesignError

WORKLOAD_FORMAT = "topo-designer-workload"
WORKLOAD_VERSION = 1
#: Parallel dimensions a placement order names, innermost first.
DIMENSIONS = ("tp", "cp", "pp", "dp")
DEFAULT_ORDER = ("tp", "cp", "pp", "dp")
SHARDING = ("none", "optimizer", "full")
#: Training frameworks whose data-parallel defaults a workload follows (``data_parallel.framework``):
#: PyTorch DDP (25 MiB buckets, all-reduce), Megatron-Core (buckets of max(40M, 1M x DP) parameters),
#: PyTorch FSDP (full sharding, its default ``ShardingStrategy.FULL_SHARD``).
FRAMEWORKS = ("pytorch-ddp", "megatron-core", "fsdp")
#: The sharding each framework uses unless the workload says: DDP all-reduces, Megatron-Core
#: reduce-scatters into its distributed optimizer (``--use-distributed-optimizer``, as the published
#: Megatron and NeMo runs use it), FSDP shards everything.
FRAMEWORK_SHARDING = {"pytorch-ddp": "none", "megatron-core": "optimizer", "fsdp": "full"}


class WorkloadError(DesignError):
    """A workload cannot be read or does not fit the design; one-line message naming the field."""


class ExpertCounts:
    """What a model's parameter counts say of its experts (training and serving models share it).

    A mixture-of-experts model holds ``parameters`` in all, ``active_parameters`` per token: with
    ``experts`` routed experts of which ``experts_per_token`` run per token, N = dense + E e and
    N_active = dense + k e give each expert's size e.
    """

    parameters: float
    active_parameters: float
    experts: int
    experts_per_token: int
    moe_layers: int

    @property
    def is_moe(self) -> bool:
        return self.experts > 1 and self.moe_layers > 0

    @property
    def expert_parameters(self) -> float:
        """Parameters of all routed experts together (E e); 0 for a dense model."""
        if not self.is_moe or self.experts == self.experts_per_token:
            return 0.0
        per_expert = (self.parameters - self.active_parameters) / (self.experts - self.experts_per_token)
        return max(per_expert * self.experts, 0.0)

    @property
    def dense_parameters(self) -> float:
        return self.parameters - self.expert_parameters


@dataclass(frozen=True)
class ModelSpec(ExpertCounts):
    """The network being trained. ``parameters`` total, ``active_parameters`` per token (MoE)."""

    parameters: float
    active_parameters: float
    layers: int
    hidden_size: int
    sequence_length: int
    attention_heads: int = 0
    kv_heads: int = 0
    ffn_hidden_size: int = 0
    vocabulary: int = 0
    experts: int = 1
    experts_per_token: int = 1
    moe_layers: int = 0

    @property
    def kv_fraction(self) -> float:
        """Key/value width over hidden width (grouped-query attention); 1 when not given."""
        if self.attention_heads and self.kv_heads:
            return self.kv_heads / self.attention_heads
        return 1.0


@dataclass(frozen=True)
class Parallelism:
    """Degrees of parallelism; ``dp = 0`` means "every GPU left" (``"auto"`` in the file)."""

    tp: int = 1
    pp: int = 1
    dp: int = 0
    ep: int = 1
    cp: int = 1
    virtual_stages: int = 1
    sequence_parallel: bool = True
    order: tuple[str, ...] = DEFAULT_ORDER


@dataclass(frozen=True)
class Batch:
    """Global batch in sequences (or tokens, converted on reading) and micro-batch in sequences."""

    global_batch_sequences: int
    micro_batch_sequences: int = 1


@dataclass(frozen=True)
class Precision:
    compute: str = "bf16"
    gradient_bytes: int = T.GRADIENT_BYTES
    activation_bytes: int = T.ACTIVATION_BYTES


@dataclass(frozen=True)
class DataParallel:
    """How gradients are reduced: ``sharding`` none (all-reduce), optimizer (reduce-scatter +
    all-gather, ZeRO-1 / distributed optimizer) or full (FSDP / ZeRO-3); buckets; overlap."""

    sharding: str = "none"
    #: Bytes per gradient bucket; 0: the framework's rule (Megatron-Core: :meth:`bucket_for`).
    bucket_bytes: int = T.DDP_BUCKET_BYTES
    overlap: bool = True
    overlap_fraction: float = T.OVERLAP_FRACTION
    framework: str = "pytorch-ddp"

    def bucket_for(self, dp_ranks: int, gradient_bytes: int, total_bytes: float) -> float:
        """Bytes per bucket with ``dp_ranks`` data-parallel ranks: the workload's, else Megatron-Core's
        max(40M, 1M x DP) parameters (one bucket of ``total_bytes`` when overlap is off, as MCore does)."""
        if self.bucket_bytes > 0:
            return float(self.bucket_bytes)
        if not self.overlap:
            return max(float(total_bytes), 1.0)
        params = max(T.MEGATRON_BUCKET_MIN_PARAMS, T.MEGATRON_BUCKET_PARAMS_PER_DP_RANK * dp_ranks)
        return float(params * gradient_bytes)


@dataclass(frozen=True)
class Compute:
    """Kernel efficiency, or the compute time of a step given directly; optional peak override."""

    efficiency: float = T.COMPUTE_EFFICIENCY
    step_compute_s: float | None = None
    peak_tflops: float | None = None
    tp_overlap: float = T.TP_OVERLAP
    activation_recompute: bool = False


@dataclass(frozen=True)
class Training:
    """Tokens to train and the price of a GPU-hour (None: the catalog price amortised)."""

    tokens: float = 1e12
    gpu_hour_usd: float | None = None


@dataclass(frozen=True)
class Storage:
    """Input bytes per token; bytes of one checkpoint (the whole job's model and optimiser state, spread
    evenly over its GPUs) and the interval between checkpoints (0: no checkpoints modelled)."""

    bytes_per_token: float = T.INPUT_BYTES_PER_TOKEN
    checkpoint_bytes: float = 0.0
    checkpoint_interval_s: float = 0.0


@dataclass(frozen=True)
class Workload:
    """A training job, independent of the fabric it runs on."""

    name: str
    model: ModelSpec
    parallelism: Parallelism
    batch: Batch
    precision: Precision = field(default_factory=Precision)
    data_parallel: DataParallel = field(default_factory=DataParallel)
    compute: Compute = field(default_factory=Compute)
    training: Training = field(default_factory=Training)
    storage: Storage = field(default_factory=Storage)
    description: str = ""
    sources: dict[str, str] = field(default_factory=dict, hash=False, compare=False)

    @property
    def tokens_per_step(self) -> int:
        return self.batch.global_batch_sequences * self.model.sequence_length

    def with_options(self, **changes: Any) -> Workload:
        """A copy with some sections replaced: ``w.with_options(data_parallel={"overlap": False})``."""
        out = self
        for section, values in changes.items():
            current = getattr(self, section)
            out = replace(out, **{section: replace(current, **values)})
        return out


__all__ = ["DEFAULT_ORDER", "DIMENSIONS", "SHARDING", "WORKLOAD_FORMAT", "WORKLOAD_VERSION", "Batch", "Compute",
           "DataParallel", "ModelSpec", "Parallelism", "Precision", "Storage", "Training", "Workload",
           "WorkloadError"]
