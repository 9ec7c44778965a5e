"""A training workload: model, parallelism, batch, precision, overlap, storage (docs/workload-format.md).

:func:`workload_from_data` checks a parsed workload document field by field and names the exact
path of the first problem in a one-line :class:`WorkloadError`. Reading files (bounded, with the
JSON-shape limits) and the shipped presets are :mod:`designer.io.workload_file`.

Examples
--------
>>> w = workload_from_data({"format": "topo-designer-workload", "version": 1, "name": "tiny",
...     "model": {"parameters": 1e9, "layers": 16, "hidden_size": 2048, "sequence_length": 2048},
...     "batch": {"global_batch_sequences": 64}})
>>> w.model.active_parameters, w.parallelism.order, w.data_parallel.bucket_bytes
(1000000000.0, ('tp', 'cp', 'pp', 'dp'), 26214400)
"""

from __future__ import annotations

import math
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


class WorkloadError(DesignError):
    """A workload cannot be read or does not fit the design; one-line message naming the field."""


@dataclass(frozen=True)
class ModelSpec:
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
    def is_moe(self) -> bool:
        return self.experts > 1 and self.moe_layers > 0

    @property
    def expert_parameters(self) -> float:
        """Parameters of all experts together: N = dense + E e, N_active = dense + k e."""
        if not self.is_moe or self.experts == self.experts_per_token:
            return 0.0
        per_expert = (self.parameters - self.active_parameters) / (self.experts - self.experts_per_token)
        return max(per_expert * self.experts, 0.0)

    @property
    def dense_parameters(self) -> float:
        return self.parameters - self.expert_parameters

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
    bucket_bytes: int = T.DDP_BUCKET_BYTES
    overlap: bool = True
    overlap_fraction: float = T.OVERLAP_FRACTION


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


# --------------------------------------------------------------------------- reading
def _where(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _obj(data: Any, path: str, source: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise WorkloadError(f"{source}: {path or 'the document'} must be an object")
    return data


def _check_keys(obj: dict[str, Any], allowed: tuple[str, ...], path: str, source: str) -> None:
    for k in obj:
        if k not in allowed:
            raise WorkloadError(f"{source}: {_where(path, k)}: unknown field (allowed: {', '.join(allowed)})")


def _number(obj: dict[str, Any], key: str, path: str, source: str, default: Any = None, *,
            positive: bool = True, maximum: float | None = None) -> Any:
    v = obj.get(key, default)
    if v is None:
        if default is None and key not in obj:
            raise WorkloadError(f"{source}: {_where(path, key)}: missing")
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise WorkloadError(f"{source}: {_where(path, key)}: must be a number, not {v!r}")
    if positive and v <= 0 or v < 0:
        raise WorkloadError(f"{source}: {_where(path, key)}: must be {'> 0' if positive else '>= 0'}, not {v!r}")
    if maximum is not None and v > maximum:
        raise WorkloadError(f"{source}: {_where(path, key)}: must be at most {maximum:g}, not {v!r}")
    return float(v)


def _int(obj: dict[str, Any], key: str, path: str, source: str, default: int | None = None, *,
         minimum: int = 1, maximum: int = 10**9) -> int:
    v = obj.get(key, default)
    if v is None:
        raise WorkloadError(f"{source}: {_where(path, key)}: missing")
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise WorkloadError(f"{source}: {_where(path, key)}: must be a whole number, not {v!r}")
    if v < minimum or v > maximum:
        raise WorkloadError(f"{source}: {_where(path, key)}: must be from {minimum:,} to {maximum:,}, not {v:,}")
    return v


def _bool(obj: dict[str, Any], key: str, path: str, source: str, default: bool) -> bool:
    v = obj.get(key, default)
    if not isinstance(v, bool):
        raise WorkloadError(f"{source}: {_where(path, key)}: must be true or false, not {v!r}")
    return v


def _text(obj: dict[str, Any], key: str, path: str, source: str, default: str | None = None) -> str:
    v = obj.get(key, default)
    if v is None:
        raise WorkloadError(f"{source}: {_where(path, key)}: missing")
    if not isinstance(v, str) or len(v) > 10_000:
        raise WorkloadError(f"{source}: {_where(path, key)}: must be text")
    return v


_MAX_PARAMS = 1e15
_MAX_TOKENS = 1e18


def _model(d: Any, source: str) -> ModelSpec:
    p = "model"
    d = _obj(d, p, source)
    _check_keys(d, ("parameters", "active_parameters", "layers", "hidden_size", "sequence_length",
                    "attention_heads", "kv_heads", "ffn_hidden_size", "vocabulary", "experts",
                    "experts_per_token", "moe_layers"), p, source)
    params = _number(d, "parameters", p, source, maximum=_MAX_PARAMS)
    active = _number(d, "active_parameters", p, source, params, maximum=_MAX_PARAMS)
    if active > params:
        raise WorkloadError(f"{source}: model.active_parameters ({active:g}) exceeds model.parameters ({params:g})")
    layers = _int(d, "layers", p, source, maximum=100_000)
    experts = _int(d, "experts", p, source, 1, maximum=100_000)
    k = _int(d, "experts_per_token", p, source, 1, maximum=experts)
    moe_layers = _int(d, "moe_layers", p, source, layers if experts > 1 else 0, minimum=0, maximum=layers)
    heads = _int(d, "attention_heads", p, source, 0, minimum=0, maximum=1_000_000)
    kv = _int(d, "kv_heads", p, source, heads, minimum=0, maximum=heads or 1_000_000)
    if experts > 1 and k == experts and active < params:
        raise WorkloadError(f"{source}: model.experts_per_token equals model.experts, so every parameter is "
                            "active: set active_parameters = parameters")
    return ModelSpec(
        parameters=params, active_parameters=active, layers=layers,
        hidden_size=_int(d, "hidden_size", p, source, maximum=10**7),
        sequence_length=_int(d, "sequence_length", p, source, maximum=10**9),
        attention_heads=heads, kv_heads=kv,
        ffn_hidden_size=_int(d, "ffn_hidden_size", p, source, 0, minimum=0, maximum=10**8),
        vocabulary=_int(d, "vocabulary", p, source, 0, minimum=0, maximum=10**8),
        experts=experts, experts_per_token=k, moe_layers=moe_layers,
    )


def _parallelism(d: Any, source: str) -> Parallelism:
    p = "parallelism"
    d = _obj(d, p, source)
    _check_keys(d, ("tp", "pp", "dp", "ep", "cp", "virtual_stages", "sequence_parallel", "order"), p, source)
    dp_raw = d.get("dp", "auto")
    dp = 0 if dp_raw == "auto" else _int(d, "dp", p, source, maximum=10**7)
    order_raw = d.get("order", list(DEFAULT_ORDER))
    if not isinstance(order_raw, list) or sorted(order_raw) != sorted(DIMENSIONS):
        raise WorkloadError(f"{source}: parallelism.order: must list each of {', '.join(DIMENSIONS)} once, "
                            f"innermost first, not {order_raw!r}")
    par = Parallelism(
        tp=_int(d, "tp", p, source, 1, maximum=100_000), pp=_int(d, "pp", p, source, 1, maximum=100_000), dp=dp,
        ep=_int(d, "ep", p, source, 1, maximum=100_000), cp=_int(d, "cp", p, source, 1, maximum=100_000),
        virtual_stages=_int(d, "virtual_stages", p, source, 1, maximum=1000),
        sequence_parallel=_bool(d, "sequence_parallel", p, source, True), order=tuple(order_raw),
    )
    return par


def _batch(d: Any, seq: int, source: str) -> Batch:
    p = "batch"
    d = _obj(d, p, source)
    _check_keys(d, ("global_batch_sequences", "global_batch_tokens", "micro_batch_sequences"), p, source)
    if ("global_batch_sequences" in d) == ("global_batch_tokens" in d):
        raise WorkloadError(f"{source}: batch: give exactly one of global_batch_sequences, global_batch_tokens")
    if "global_batch_tokens" in d:
        tokens = _int(d, "global_batch_tokens", p, source, maximum=10**13)
        if tokens % seq:
            raise WorkloadError(f"{source}: batch.global_batch_tokens ({tokens:,}) is not a whole number of "
                                f"{seq:,}-token sequences")
        gbs = tokens // seq
    else:
        gbs = _int(d, "global_batch_sequences", p, source, maximum=10**9)
    return Batch(gbs, _int(d, "micro_batch_sequences", p, source, 1, maximum=gbs))


def workload_from_data(data: Any, source: str = "<workload>") -> Workload:
    """A :class:`Workload` from a parsed document, or a :class:`WorkloadError` naming the field."""
    d = _obj(data, "", source)
    _check_keys(d, ("format", "version", "name", "description", "sources", "model", "parallelism", "batch",
                    "precision", "data_parallel", "compute", "training", "storage"), "", source)
    if d.get("format") != WORKLOAD_FORMAT:
        raise WorkloadError(f"{source}: not a workload file (format must be {WORKLOAD_FORMAT!r})")
    version = d.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise WorkloadError(f"{source}: version must be a whole number >= 1")
    if version > WORKLOAD_VERSION:
        raise WorkloadError(f"{source}: workload version {version} is newer than this program reads "
                            f"({WORKLOAD_VERSION}); update topo-designer")
    for key in ("model", "batch"):
        if key not in d:
            raise WorkloadError(f"{source}: {key}: missing")
    sources = d.get("sources", {})
    if not isinstance(sources, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                for k, v in sources.items()):
        raise WorkloadError(f"{source}: sources: must map field names to citation text")
    model = _model(d["model"], source)
    par = _parallelism(d.get("parallelism", {}), source)
    if par.ep > 1 and not model.is_moe:
        raise WorkloadError(f"{source}: parallelism.ep is {par.ep} but the model has no experts (model.experts)")
    if model.is_moe and model.experts % par.ep:
        raise WorkloadError(f"{source}: parallelism.ep ({par.ep}) must divide model.experts ({model.experts})")
    if par.pp > model.layers:
        raise WorkloadError(f"{source}: parallelism.pp ({par.pp}) exceeds model.layers ({model.layers})")

    pr = _obj(d.get("precision", {}), "precision", source)
    _check_keys(pr, ("compute", "gradient_bytes", "activation_bytes"), "precision", source)
    compute_dtype = _text(pr, "compute", "precision", source, "bf16")
    if compute_dtype != "bf16":
        raise WorkloadError(f"{source}: precision.compute: only 'bf16' is modelled (the catalog gives peak "
                            "dense BF16 FLOP/s), not {compute_dtype!r}")
    precision = Precision(compute_dtype, _int(pr, "gradient_bytes", "precision", source, T.GRADIENT_BYTES, maximum=8),
                          _int(pr, "activation_bytes", "precision", source, T.ACTIVATION_BYTES, maximum=8))

    dp = _obj(d.get("data_parallel", {}), "data_parallel", source)
    _check_keys(dp, ("sharding", "bucket_bytes", "overlap", "overlap_fraction"), "data_parallel", source)
    sharding = _text(dp, "sharding", "data_parallel", source, "none")
    if sharding not in SHARDING:
        raise WorkloadError(f"{source}: data_parallel.sharding: one of {', '.join(SHARDING)}, not {sharding!r}")
    data_parallel = DataParallel(
        sharding, _int(dp, "bucket_bytes", "data_parallel", source, T.DDP_BUCKET_BYTES, maximum=1 << 40),
        _bool(dp, "overlap", "data_parallel", source, True),
        _number(dp, "overlap_fraction", "data_parallel", source, T.OVERLAP_FRACTION, positive=False, maximum=1.0))

    c = _obj(d.get("compute", {}), "compute", source)
    _check_keys(c, ("efficiency", "step_compute_s", "peak_tflops", "tp_overlap", "activation_recompute"), "compute",
                source)
    compute = Compute(
        _number(c, "efficiency", "compute", source, T.COMPUTE_EFFICIENCY, maximum=1.0),
        _number(c, "step_compute_s", "compute", source, None, maximum=1e7) if c.get("step_compute_s") is not None
        else None,
        _number(c, "peak_tflops", "compute", source, None, maximum=1e9) if c.get("peak_tflops") is not None else None,
        _number(c, "tp_overlap", "compute", source, T.TP_OVERLAP, positive=False, maximum=1.0),
        _bool(c, "activation_recompute", "compute", source, False))

    t = _obj(d.get("training", {}), "training", source)
    _check_keys(t, ("tokens", "gpu_hour_usd"), "training", source)
    training = Training(_number(t, "tokens", "training", source, 1e12, maximum=_MAX_TOKENS),
                        _number(t, "gpu_hour_usd", "training", source, None, positive=False, maximum=1e6)
                        if t.get("gpu_hour_usd") is not None else None)

    s = _obj(d.get("storage", {}), "storage", source)
    _check_keys(s, ("bytes_per_token", "checkpoint_bytes", "checkpoint_interval_s"), "storage", source)
    storage = Storage(
        _number(s, "bytes_per_token", "storage", source, float(T.INPUT_BYTES_PER_TOKEN), positive=False,
                maximum=1e9),
        _number(s, "checkpoint_bytes", "storage", source, 0.0, positive=False, maximum=1e18),
        _number(s, "checkpoint_interval_s", "storage", source, 0.0, positive=False, maximum=1e9))

    return Workload(
        name=_text(d, "name", "", source, "workload"),
        model=model, parallelism=par, batch=_batch(d["batch"], model.sequence_length, source),
        precision=precision, data_parallel=data_parallel, compute=compute, training=training, storage=storage,
        description=_text(d, "description", "", source, ""), sources=dict(sources),
    )


__all__ = ["DEFAULT_ORDER", "DIMENSIONS", "SHARDING", "WORKLOAD_FORMAT", "WORKLOAD_VERSION", "Batch", "Compute",
           "DataParallel", "ModelSpec", "Parallelism", "Precision", "Storage", "Training", "Workload",
           "WorkloadError", "workload_from_data"]
