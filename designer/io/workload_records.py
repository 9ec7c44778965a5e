"""Training workload files as :class:`designer.analysis.training.workload.Workload` (docs/workload-format.md).

:func:`workload_from_data` checks a parsed workload document field by field with the shared typed
readers (:mod:`designer.io.typed_json`) and names the exact path of the first problem in a
one-line :class:`WorkloadError`. Reading files (bounded, with the JSON-shape limits) and the
shipped presets are :mod:`designer.io.workload_file`.

Examples
--------
>>> w = workload_from_data({"format": "topo-designer-workload", "version": 1, "name": "tiny",
...     "model": {"parameters": 1e9, "layers": 16, "hidden_size": 2048, "sequence_length": 2048},
...     "batch": {"global_batch_sequences": 64}})
>>> w.model.active_parameters, w.parallelism.order, w.data_parallel.bucket_bytes
(1000000000.0, ('tp', 'cp', 'pp', 'dp'), 26214400)
"""

from __future__ import annotations

from typing import Any

from designer.analysis.training import constants as T
from designer.analysis.training.workload import (
    DEFAULT_ORDER,
    DIMENSIONS,
    FRAMEWORK_SHARDING,
    FRAMEWORKS,
    SHARDING,
    WORKLOAD_FORMAT,
    WORKLOAD_VERSION,
    Batch,
    Compute,
    DataParallel,
    ModelSpec,
    Parallelism,
    Precision,
    Storage,
    Training,
    Workload,
    WorkloadError,
)
from designer.io.typed_json import Fields

_MAX_PARAMS = 1e15
_MAX_TOKENS = 1e18


def parameter_counts(d: dict[str, Any], f: Fields, p: str = "model") -> dict[str, Any]:
    """A model's parameter, layer and expert counts (training and serving files hold them alike):
    ``parameters``, ``active_parameters``, ``layers``, ``experts``, ``experts_per_token``, ``moe_layers``."""
    params = f.number(d, "parameters", p, maximum=_MAX_PARAMS)
    active = f.number(d, "active_parameters", p, params, maximum=_MAX_PARAMS)
    if active > params:
        raise f.fail(f"{p}.active_parameters ({active:g}) exceeds {p}.parameters ({params:g})")
    layers = f.int(d, "layers", p, maximum=100_000)
    experts = f.int(d, "experts", p, 1, maximum=100_000)
    k = f.int(d, "experts_per_token", p, 1, maximum=experts)
    moe_layers = f.int(d, "moe_layers", p, layers if experts > 1 else 0, minimum=0, maximum=layers)
    if experts > 1 and k == experts and active < params:
        raise f.fail(f"{p}.experts_per_token equals {p}.experts, so every parameter is "
                     "active: set active_parameters = parameters")
    return {"parameters": params, "active_parameters": active, "layers": layers, "experts": experts,
            "experts_per_token": k, "moe_layers": moe_layers}


def _model(d: Any, f: Fields) -> ModelSpec:
    p = "model"
    d = f.obj(d, p)
    f.keys(d, ("parameters", "active_parameters", "layers", "hidden_size", "sequence_length",
                    "attention_heads", "kv_heads", "ffn_hidden_size", "vocabulary", "experts",
                    "experts_per_token", "moe_layers"), p)
    counts = parameter_counts(d, f, p)
    heads = f.int(d, "attention_heads", p, 0, minimum=0, maximum=1_000_000)
    kv = f.int(d, "kv_heads", p, heads, minimum=0, maximum=heads or 1_000_000)
    return ModelSpec(
        **counts,
        hidden_size=f.int(d, "hidden_size", p, maximum=10**7),
        sequence_length=f.int(d, "sequence_length", p, maximum=10**9),
        attention_heads=heads, kv_heads=kv,
        ffn_hidden_size=f.int(d, "ffn_hidden_size", p, 0, minimum=0, maximum=10**8),
        vocabulary=f.int(d, "vocabulary", p, 0, minimum=0, maximum=10**8),
    )


def _parallelism(d: Any, f: Fields) -> Parallelism:
    p = "parallelism"
    d = f.obj(d, p)
    f.keys(d, ("tp", "pp", "dp", "ep", "cp", "virtual_stages", "sequence_parallel", "order"), p)
    dp_raw = d.get("dp", "auto")
    dp = 0 if dp_raw == "auto" else f.int(d, "dp", p, maximum=10**7)
    order_raw = d.get("order", list(DEFAULT_ORDER))
    if not isinstance(order_raw, list) or sorted(order_raw) != sorted(DIMENSIONS):
        raise f.fail(f"parallelism.order: must list each of {', '.join(DIMENSIONS)} once, "
                     f"innermost first, not {order_raw!r}")
    par = Parallelism(
        tp=f.int(d, "tp", p, 1, maximum=100_000), pp=f.int(d, "pp", p, 1, maximum=100_000), dp=dp,
        ep=f.int(d, "ep", p, 1, maximum=100_000), cp=f.int(d, "cp", p, 1, maximum=100_000),
        virtual_stages=f.int(d, "virtual_stages", p, 1, maximum=1000),
        sequence_parallel=f.bool(d, "sequence_parallel", p, True), order=tuple(order_raw),
    )
    return par


def _batch(d: Any, seq: int, f: Fields) -> Batch:
    p = "batch"
    d = f.obj(d, p)
    f.keys(d, ("global_batch_sequences", "global_batch_tokens", "micro_batch_sequences"), p)
    if ("global_batch_sequences" in d) == ("global_batch_tokens" in d):
        raise f.fail("batch: give exactly one of global_batch_sequences, global_batch_tokens")
    if "global_batch_tokens" in d:
        tokens = f.int(d, "global_batch_tokens", p, maximum=10**13)
        if tokens % seq:
            raise f.fail(f"batch.global_batch_tokens ({tokens:,}) is not a whole number of "
                         f"{seq:,}-token sequences")
        gbs = tokens // seq
    else:
        gbs = f.int(d, "global_batch_sequences", p, maximum=10**9)
    return Batch(gbs, f.int(d, "micro_batch_sequences", p, 1, maximum=gbs))


def workload_from_data(data: Any, source: str = "<workload>") -> Workload:
    """A :class:`Workload` from a parsed document, or a :class:`WorkloadError` naming the field."""
    f = Fields(source, WorkloadError)
    d = f.obj(data, "")
    f.keys(d, ("format", "version", "name", "description", "sources", "model", "parallelism", "batch",
               "precision", "data_parallel", "compute", "training", "storage"), "")
    f.header(d, WORKLOAD_FORMAT, WORKLOAD_VERSION, "workload")
    for key in ("model", "batch"):
        if key not in d:
            raise f.fail(f"{key}: missing")
    sources = f.sources(d)
    model = _model(d["model"], f)
    par = _parallelism(d.get("parallelism", {}), f)
    if par.ep > 1 and not model.is_moe:
        raise f.fail(f"parallelism.ep is {par.ep} but the model has no experts (model.experts)")
    if model.is_moe and model.experts % par.ep:
        raise f.fail(f"parallelism.ep ({par.ep}) must divide model.experts ({model.experts})")
    if par.pp > model.layers:
        raise f.fail(f"parallelism.pp ({par.pp}) exceeds model.layers ({model.layers})")

    pr = f.section(d, "precision", "", ("compute", "gradient_bytes", "activation_bytes"))
    compute_dtype = f.text(pr, "compute", "precision", "bf16")
    if compute_dtype != "bf16":
        raise f.fail("precision.compute: only 'bf16' is modelled (the catalog gives peak "
                     f"dense BF16 FLOP/s), not {compute_dtype!r}")
    precision = Precision(compute_dtype, f.int(pr, "gradient_bytes", "precision", T.GRADIENT_BYTES, maximum=8),
                          f.int(pr, "activation_bytes", "precision", T.ACTIVATION_BYTES, maximum=8))

    dp = f.section(d, "data_parallel", "", ("framework", "sharding", "bucket_bytes", "overlap", "overlap_fraction"))
    framework = f.choice(dp, "framework", "data_parallel", FRAMEWORKS, "pytorch-ddp")
    sharding = f.choice(dp, "sharding", "data_parallel", SHARDING, FRAMEWORK_SHARDING[framework])
    # Megatron-Core sizes its buckets by the data-parallel size (0: that rule, applied at placement).
    bucket = f.int(dp, "bucket_bytes", "data_parallel", T.DDP_BUCKET_BYTES, maximum=1 << 40) \
        if "bucket_bytes" in dp or framework != "megatron-core" else 0
    data_parallel = DataParallel(
        sharding, bucket, f.bool(dp, "overlap", "data_parallel", True),
        f.number(dp, "overlap_fraction", "data_parallel", T.OVERLAP_FRACTION, positive=False, maximum=1.0),
        framework)

    c = f.section(d, "compute", "", ("efficiency", "step_compute_s", "peak_tflops", "tp_overlap",
                                     "activation_recompute"))
    compute = Compute(
        f.number(c, "efficiency", "compute", T.COMPUTE_EFFICIENCY, maximum=1.0),
        f.optional_number(c, "step_compute_s", "compute", maximum=1e7),
        f.optional_number(c, "peak_tflops", "compute", maximum=1e9),
        f.number(c, "tp_overlap", "compute", T.TP_OVERLAP, positive=False, maximum=1.0),
        f.bool(c, "activation_recompute", "compute", False))

    t = f.section(d, "training", "", ("tokens", "gpu_hour_usd"))
    training = Training(f.number(t, "tokens", "training", 1e12, maximum=_MAX_TOKENS),
                        f.optional_number(t, "gpu_hour_usd", "training", positive=False, maximum=1e6))

    s = f.section(d, "storage", "", ("bytes_per_token", "checkpoint_bytes", "checkpoint_interval_s"))
    storage = Storage(
        f.number(s, "bytes_per_token", "storage", float(T.INPUT_BYTES_PER_TOKEN), positive=False,
                 maximum=1e9),
        f.number(s, "checkpoint_bytes", "storage", 0.0, positive=False, maximum=1e18),
        f.number(s, "checkpoint_interval_s", "storage", 0.0, positive=False, maximum=1e9))

    return Workload(
        name=f.text(d, "name", "", "workload"),
        model=model, parallelism=par, batch=_batch(d["batch"], model.sequence_length, f),
        precision=precision, data_parallel=data_parallel, compute=compute, training=training, storage=storage,
        description=f.text(d, "description", "", ""), sources=sources,
    )


__all__ = ["workload_from_data"]
