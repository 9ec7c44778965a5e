"""The serving model: its formulas, the phase split, the bound, the batch search and serving files."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest

from designer.analysis.common import constants as K
from designer.analysis.fabric.context import build_context
from designer.analysis.serving import formulas as F
from designer.analysis.serving.model import serving_analysis
from designer.analysis.serving.pools import pools
from designer.analysis.serving.workload import Phase, Precision, ServingError
from designer.generators import GENERATORS
from designer.io.serving_records import serving_from_data
from designer.io.workload_file import load_serving, serving_preset_names, serving_presets_dir
from designer.model.shipped import docs_dir, resources_dir


@pytest.fixture(scope="module")
def su():
    """One DGX H100 SuperPOD scalable unit: 32 servers of 8 H100, one 400G NIC per GPU."""
    return build_context(GENERATORS["rail-optimized"].build(sus=1))


def doc(name: str) -> dict:
    return json.loads((serving_presets_dir() / f"{name}.json").read_text())


def test_presets_are_the_four_named_models() -> None:
    assert serving_preset_names() == ["deepseek-v3-serve", "llama3-405b-serve", "llama3-70b-serve",
                                      "mixtral-8x22b-serve"]


def test_kv_bytes_per_token_of_llama3_70b_in_bf16() -> None:
    w = load_serving("llama3-70b-serve")
    assert F.kv_bytes_per_token(w.model, w.precision) == 2 * 80 * 8 * 128 * 2 == 327_680


def test_mla_caches_the_latent_and_the_rotary_key_per_layer() -> None:
    w = load_serving("deepseek-v3-serve")
    assert w.model.is_mla
    assert F.kv_bytes_per_token(w.model, w.precision) == 61 * (512 + 64) * 2 == 70_272
    assert F.kv_bytes_per_token(w.model, Precision(kv_cache="fp8")) == 35_136
    # The latent is shared by every head, so tensor parallelism does not split it; GQA splits by KV head.
    assert F.kv_shards(w.model, 8) == 1
    assert F.kv_shards(load_serving("llama3-70b-serve").model, 16) == 8


def test_flops_and_experts_touched() -> None:
    w = load_serving("llama3-70b-serve")
    m = w.model
    assert F.flops_per_token(m, 0) == 2 * m.parameters
    assert F.attention_flops_per_token(m, 1000) == 2 * 80 * 64 * 1000 * (128 + 128)
    assert F.experts_touched(256, 8, 1) == pytest.approx(8 / 256)
    assert F.experts_touched(256, 8, 10) == pytest.approx(1 - (1 - 8 / 256) ** 10)


def test_weights_per_gpu_split_dense_by_tp_and_experts_by_ep() -> None:
    v3 = load_serving("deepseek-v3-serve")
    m, pr = v3.model, v3.precision
    ph = Phase(tp=1, dp=144, ep=144)
    per_expert = m.expert_parameters / m.experts
    held = F.weight_bytes_per_gpu(m, ph, pr, 0, all_experts=True)
    # 256 experts over 144 GPUs: two slots each (the spare ones redundant copies), FP8 weights.
    assert held == pytest.approx(m.dense_parameters + 2 * per_expert)
    one_token = F.weight_bytes_per_gpu(m, ph, pr, 1)
    assert one_token == pytest.approx(m.dense_parameters + 2 * per_expert * 8 / 256)


def test_disaggregated_pools_are_separate_servers(su) -> None:
    w = load_serving("deepseek-v3-serve")
    pf, dc, idle, _ = pools(su, w)
    dom = su.fabric.domain
    assert pf.gpus.shape == (1, 32) and dc.gpus.shape == (1, 144)
    assert not set(dom[pf.gpus.ravel()]) & set(dom[dc.gpus.ravel()])
    assert idle == 256 - 32 - 144
    assert dc.ep.shape == (1, 144) and pf.tp.shape == (32, 1)


def test_kv_transfer_runs_at_the_nics_rate(su) -> None:
    """Llama 3 70B, one TP 8 prefill server sending a 4,000-token prompt's cache to a decode server:
    each GPU's share leaves by its own 400G NIC, 8 x 50 GB/s x the InfiniBand efficiency."""
    r = serving_analysis(su, load_serving("llama3-70b-serve"))
    kv = r.kv_transfer
    assert kv is not None and kv.network
    assert kv.message_bytes == 4000 * 327_680
    assert kv.total_s == pytest.approx(4000 * 327_680 / (8 * 50e9 * K.INFINIBAND_EFFICIENCY), rel=1e-6)
    # Sent layer by layer while the prefill runs: one layer's share is exposed.
    assert kv.exposed_s == pytest.approx(kv.total_s / 80)
    assert r.ttft_s == pytest.approx(r.prefill.step_s + kv.exposed_s)


def test_phase_split_and_bounds(su) -> None:
    r = serving_analysis(su, load_serving("llama3-70b-serve"))
    pre, dec = r.prefill, r.decode
    assert pre.bound == "compute" and pre.compute_s > pre.memory_s
    assert dec.bound == "memory" and dec.memory_s > dec.compute_s
    assert r.bound == dec.bound
    for p in (pre, dec):
        assert p.step_s == pytest.approx(max(p.compute_s, p.memory_s) + p.exposed_comm_s)
    assert r.tpot_s == dec.step_s
    assert r.output_tokens_per_s_per_gpu == pytest.approx(dec.batch_sequences / dec.step_s / 8)
    assert r.network_share_tpot == pytest.approx(dec.exposed_comm_s / dec.step_s)
    # The most exposed communication is the prefill's all-reduce over one server's NVLink: its link is named.
    worst = max(pre.comm, key=lambda c: c.exposed_s)
    assert worst.name == "tensor-parallel all-reduce" and not worst.network
    assert r.bottleneck_link == worst.bottleneck_link and r.bottleneck_link.endswith("nvsw")


def test_expert_all_to_all_over_the_network_bounds_deepseek_prefill(su) -> None:
    r = serving_analysis(su, load_serving("deepseek-v3-serve"))
    pre = r.prefill
    assert pre.bound == "network"
    dispatch = next(c for c in pre.comm if c.name == "expert dispatch")
    assert dispatch.network and dispatch.calls == 58
    # 4 prompts of 4,400 tokens over 32 GPUs, 8 experts each, FP8 with one FP32 scale per 128 elements.
    assert dispatch.message_bytes == pytest.approx(4 * 4400 / 32 * 8 * 7168 * (1 + 4 / 128))
    # Two-batch overlap hides as much all-to-all as the GPU is busy.
    total = sum(c.total_s for c in pre.comm)
    assert pre.exposed_comm_s == pytest.approx(total - max(pre.compute_s, pre.memory_s))


def test_largest_batch_within_the_tpot_target(su) -> None:
    d = doc("llama3-70b-serve")
    d["requests"]["target_tpot_s"] = 0.025
    r = serving_analysis(su, serving_from_data(d))
    b = r.max_batch_for_target
    assert 1 < b < r.decode.max_batch_by_memory
    assert r.decode.batch_sequences == b and r.tpot_s <= 0.025
    d["deployment"]["decode"]["batch_sequences"] = b + 1
    assert serving_analysis(su, serving_from_data(d)).tpot_s > 0.025


def test_colocated_decode_pays_for_the_prefill_it_runs(su) -> None:
    w = load_serving("llama3-405b-serve")
    r = serving_analysis(su, w)
    per_token = r.prefill.step_s / r.prefill.tokens_per_step
    assert r.tpot_s == pytest.approx(r.decode.step_s + per_token * 64 * 2000 / 500)
    assert r.input_tokens_per_s_per_gpu == pytest.approx(r.output_tokens_per_s_per_gpu * 2000 / 500)
    assert r.kv_transfer is None


BAD = [
    (lambda d: d.pop("requests"), "requests: missing"),
    (lambda d: d.update(format="x"), "not a serving workload file"),
    (lambda d: d["model"].update(layers="many"), "model.layers: must be a whole number"),
    (lambda d: d["deployment"]["decode"].update(ep=4), "deployment.decode.ep is 4 but the model has no experts"),
    (lambda d: d["deployment"].update(mode="split"), "deployment.mode: one of disaggregated, colocated"),
    (lambda d: d["precision"].update(kv_cache="int3"), "precision.kv_cache: one of"),
    (lambda d: d["requests"].pop("target_tpot_s"), "give batch_sequences or requests.target_tpot_s"),
    (lambda d: d["deployment"]["prefill"].update(colour=1), "deployment.prefill.colour: unknown field"),
    (lambda d: d["model"].update(qk_rope_head_dim=64), "qk_rope_head_dim is given without model.kv_lora_rank"),
]


@pytest.mark.parametrize(("edit", "message"), BAD)
def test_bad_serving_files_name_the_field(edit, message) -> None:
    d = copy.deepcopy(doc("llama3-70b-serve"))
    edit(d)
    with pytest.raises(ServingError, match=message):
        serving_from_data(d, "s.json")


def test_an_instance_larger_than_the_design_is_refused() -> None:
    ctx = build_context(GENERATORS["server"].build())
    with pytest.raises(ServingError, match="the design has 8 GPUs"):
        serving_analysis(ctx, load_serving("deepseek-v3-serve"))


SCHEMA = json.loads((resources_dir() / "schema" / "serving.schema.json").read_text())


def test_the_schema_is_valid_and_every_preset_and_the_documented_example_validate() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    for name in serving_preset_names():
        jsonschema.validate(doc(name), SCHEMA)
    text = (docs_dir() / "serving.md").read_text()
    example = json.loads(text.split("```json\n", 1)[1].split("```", 1)[0])
    jsonschema.validate(example, SCHEMA)
    assert serving_from_data(example).model.layers == 80
    bad = copy.deepcopy(doc("llama3-70b-serve"))
    bad["deployment"]["prefill"]["colour"] = 1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, SCHEMA)
