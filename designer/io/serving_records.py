"""Serving workload files as :class:`designer.analysis.serving.workload.ServingWorkload` (docs/serving.md).

:func:`serving_from_data` checks a parsed serving document field by field with the typed readers the
training workloads use (:mod:`designer.io.typed_json`) and names the exact path of the first problem
in a one-line :class:`ServingError`. Reading files and the shipped presets is
:mod:`designer.io.workload_file`.

Examples
--------
>>> w = serving_from_data({"format": "topo-designer-serving", "version": 1, "name": "tiny",
...     "model": {"parameters": 8e9, "layers": 32, "hidden_size": 4096, "attention_heads": 32,
...               "kv_heads": 8, "head_dim": 128},
...     "deployment": {"mode": "colocated", "decode": {"tp": 2, "batch_sequences": 16}},
...     "requests": {"prompt_tokens": 1000, "output_tokens": 200}})
>>> w.mode, w.prefill.tp, w.decode.batch_sequences, w.precision.kv_cache
('colocated', 2, 16, 'bf16')
"""

from __future__ import annotations

from typing import Any

from designer.analysis.serving import constants as S
from designer.analysis.serving.workload import (
    MODES,
    SERVING_FORMAT,
    SERVING_VERSION,
    Efficiency,
    Phase,
    Precision,
    Requests,
    ServingError,
    ServingModel,
    ServingWorkload,
)
from designer.analysis.training import constants as T
from designer.io.typed_json import Fields
from designer.io.workload_records import parameter_counts

_DTYPES = tuple(S.DTYPE_BYTES)
_PHASE_KEYS = ("tp", "pp", "dp", "ep", "instances", "batch_sequences", "ep_mode", "overlap")


def _model(d: Any, f: Fields) -> ServingModel:
    p = "model"
    d = f.obj(d, p)
    f.keys(d, ("parameters", "active_parameters", "layers", "hidden_size", "attention_heads", "kv_heads",
               "head_dim", "v_head_dim", "experts", "experts_per_token", "moe_layers", "kv_lora_rank",
               "qk_rope_head_dim"), p)
    counts = parameter_counts(d, f, p)
    heads = f.int(d, "attention_heads", p, maximum=1_000_000)
    model = ServingModel(
        **counts,
        hidden_size=f.int(d, "hidden_size", p, maximum=10**7), attention_heads=heads,
        kv_heads=f.int(d, "kv_heads", p, heads, maximum=heads), head_dim=f.int(d, "head_dim", p, maximum=100_000),
        v_head_dim=f.int(d, "v_head_dim", p, 0, minimum=0, maximum=100_000),
        kv_lora_rank=f.int(d, "kv_lora_rank", p, 0, minimum=0, maximum=1_000_000),
        qk_rope_head_dim=f.int(d, "qk_rope_head_dim", p, 0, minimum=0, maximum=100_000),
    )
    if model.qk_rope_head_dim and not model.kv_lora_rank:
        raise f.fail("model.qk_rope_head_dim is given without model.kv_lora_rank (an MLA model needs both)")
    return model


def _phase(d: dict[str, Any], name: str, f: Fields, base: Phase | None, model: ServingModel) -> Phase:
    p = f"deployment.{name}"
    d = f.section(d, name, "deployment", _PHASE_KEYS)
    b = base or Phase()
    ph = Phase(
        tp=f.int(d, "tp", p, b.tp, maximum=100_000), pp=f.int(d, "pp", p, b.pp, maximum=100_000),
        dp=f.int(d, "dp", p, b.dp, maximum=100_000), ep=f.int(d, "ep", p, b.ep, maximum=100_000),
        instances=f.int(d, "instances", p, 0, minimum=0, maximum=10**7) if d.get("instances", "auto") != "auto"
        else 0,
        batch_sequences=f.int(d, "batch_sequences", p, 1 if name == "prefill" else 0,
                              minimum=1 if name == "prefill" else 0, maximum=10**7),
        ep_mode=f.choice(d, "ep_mode", p, S.EP_MODES, "normal" if name == "prefill" else "low_latency"),
        overlap=f.choice(d, "overlap", p, S.OVERLAP_MODES, "none"),
    )
    if ph.ep > 1 and not model.is_moe:
        raise f.fail(f"{p}.ep is {ph.ep} but the model has no experts (model.experts)")
    if ph.ep > 1 and ph.ep != ph.tp * ph.dp:
        raise f.fail(f"{p}.ep ({ph.ep}) must be 1 or tp x dp ({ph.tp * ph.dp}): the experts are spread over every "
                     "GPU of a pipeline stage")
    if ph.ep > model.experts:
        raise f.fail(f"{p}.ep ({ph.ep}) exceeds model.experts ({model.experts})")
    if ph.pp > model.layers:
        raise f.fail(f"{p}.pp ({ph.pp}) exceeds model.layers ({model.layers})")
    return ph


def _deployment(d: Any, model: ServingModel, f: Fields) -> tuple[str, Phase, Phase]:
    p = "deployment"
    d = f.obj(d, p)
    f.keys(d, ("mode", "prefill", "decode"), p)
    mode = f.choice(d, "mode", p, MODES, "disaggregated")
    decode = _phase(d, "decode", f, None, model)
    if mode == "colocated":
        extra = [k for k in d.get("prefill", {}) if k not in ("batch_sequences", "ep_mode", "overlap")] \
            if isinstance(d.get("prefill"), dict) else []
        if extra:
            raise f.fail(f"deployment.prefill.{extra[0]}: colocated prefill runs on the decode instances (give "
                         "only batch_sequences, ep_mode, overlap)")
        prefill = _phase(d, "prefill", f, decode, model)
        prefill = Phase(decode.tp, decode.pp, decode.dp, decode.ep, decode.instances, prefill.batch_sequences,
                        prefill.ep_mode, prefill.overlap)
    else:
        prefill = _phase(d, "prefill", f, None, model)
    return mode, prefill, decode


def serving_from_data(data: Any, source: str = "<serving workload>") -> ServingWorkload:
    """A :class:`ServingWorkload` from a parsed document, or a :class:`ServingError` naming the field."""
    f = Fields(source, ServingError)
    d = f.obj(data, "")
    f.keys(d, ("format", "version", "name", "description", "sources", "model", "precision", "deployment",
               "requests", "efficiency"), "")
    f.header(d, SERVING_FORMAT, SERVING_VERSION, "serving workload")
    for key in ("model", "deployment", "requests"):
        if key not in d:
            raise f.fail(f"{key}: missing")
    sources = f.sources(d)
    model = _model(d["model"], f)
    pr = f.section(d, "precision", "", ("weights", "activations", "kv_cache", "dispatch", "compute"))
    precision = Precision(*(f.choice(pr, k, "precision", _DTYPES, "bf16")
                            for k in ("weights", "activations", "kv_cache", "dispatch")),
                          f.choice(pr, "compute", "precision", ("bf16", "fp8"), "bf16"))
    mode, prefill, decode = _deployment(d["deployment"], model, f)
    rq = f.obj(d["requests"], "requests")
    f.keys(rq, ("prompt_tokens", "output_tokens", "target_tpot_s"), "requests")
    requests = Requests(f.int(rq, "prompt_tokens", "requests", maximum=10**8),
                        f.int(rq, "output_tokens", "requests", maximum=10**8),
                        f.optional_number(rq, "target_tpot_s", "requests", maximum=3600.0))
    if not decode.batch_sequences and requests.target_tpot_s is None:
        raise f.fail("deployment.decode: give batch_sequences or requests.target_tpot_s (the largest batch that "
                     "keeps it is then found)")
    e = f.section(d, "efficiency", "", ("compute", "memory", "peak_tflops", "kv_transfer"))
    efficiency = Efficiency(f.number(e, "compute", "efficiency", T.COMPUTE_EFFICIENCY, maximum=1.0),
                            f.number(e, "memory", "efficiency", S.MEMORY_EFFICIENCY, maximum=1.0),
                            f.optional_number(e, "peak_tflops", "efficiency", maximum=1e9),
                            f.choice(e, "kv_transfer", "efficiency", S.KV_TRANSFER_MODES, "layer"))
    return ServingWorkload(
        name=f.text(d, "name", "", "serving"), model=model, mode=mode, prefill=prefill, decode=decode,
        requests=requests, precision=precision, efficiency=efficiency,
        description=f.text(d, "description", "", ""), sources=sources,
    )


__all__ = ["serving_from_data"]
