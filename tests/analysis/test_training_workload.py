"""Workload files: the presets load and validate against the schema; bad files say what is wrong."""

from __future__ import annotations

import json

import jsonschema
import pytest

from designer.analysis.training.workload import WorkloadError
from designer.io.workload_file import MAX_WORKLOAD_BYTES, load_workload, preset_names, presets_dir
from designer.io.workload_records import workload_from_data
from designer.model.shipped import resources_dir

SCHEMA = json.loads((resources_dir() / "schema" / "workload.schema.json").read_text())
REQUIRED_PRESETS = {"llama3-70b", "gpt3-175b", "mixtral-8x22b", "gpt3-1.3b-ddp"}


def minimal(**over) -> dict:
    doc = {"format": "topo-designer-workload", "version": 1, "name": "t",
           "model": {"parameters": 1e9, "layers": 4, "hidden_size": 1024, "sequence_length": 1024},
           "batch": {"global_batch_sequences": 8}}
    doc.update(over)
    return doc


def test_the_schema_is_valid_and_every_preset_validates_and_loads() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    names = preset_names()
    assert set(names) >= REQUIRED_PRESETS
    for name in names:
        data = json.loads((presets_dir() / f"{name}.json").read_text())
        jsonschema.validate(data, SCHEMA)
        w = load_workload(name)
        assert w.name == name
        # Every model figure cites its source.
        assert any(k.startswith("model") for k in w.sources), name
        assert all(len(v) > 20 for v in w.sources.values())


def test_preset_figures_match_the_papers() -> None:
    llama = load_workload("llama3-70b").model
    assert (llama.layers, llama.hidden_size, llama.ffn_hidden_size, llama.kv_heads) == (80, 8192, 28672, 8)
    gpt3 = load_workload("gpt3-175b")
    assert (gpt3.model.parameters, gpt3.model.layers, gpt3.model.hidden_size) == (175e9, 96, 12288)
    assert (gpt3.parallelism.tp, gpt3.parallelism.pp) == (8, 8)
    mix = load_workload("mixtral-8x22b").model
    assert (mix.parameters, mix.active_parameters, mix.experts, mix.experts_per_token) == (141e9, 39e9, 8, 2)
    assert mix.is_moe and 0 < mix.expert_parameters < mix.parameters
    small = load_workload("gpt3-1.3b-ddp")
    assert (small.parallelism.tp, small.parallelism.pp) == (1, 1)


def test_a_minimal_document_takes_the_documented_defaults() -> None:
    w = workload_from_data(minimal())
    jsonschema.validate(minimal(), SCHEMA)
    assert w.parallelism.order == ("tp", "cp", "pp", "dp")
    assert w.data_parallel.sharding == "none" and w.data_parallel.overlap
    assert w.tokens_per_step == 8 * 1024
    tok = minimal(batch={"global_batch_tokens": 4096})
    assert workload_from_data(tok).batch.global_batch_sequences == 4


@pytest.mark.parametrize(("change", "message"), [
    ({"format": "x"}, "not a workload file"),
    ({"version": 2}, "newer than this program"),
    ({"model": {"parameters": -1, "layers": 4, "hidden_size": 8, "sequence_length": 8}}, "model.parameters"),
    ({"model": {"parameters": 1e9, "layers": 4, "hidden_size": 8}}, "model.sequence_length: missing"),
    ({"batch": {}}, "exactly one of"),
    ({"batch": {"global_batch_tokens": 1000}}, "not a whole number of"),
    ({"parallelism": {"tp": 0}}, "parallelism.tp"),
    ({"parallelism": {"order": ["tp", "pp"]}}, "parallelism.order"),
    ({"parallelism": {"ep": 2}}, "no experts"),
    ({"parallelism": {"pp": 8}}, "exceeds model.layers"),
    ({"data_parallel": {"sharding": "zero"}}, "data_parallel.sharding"),
    ({"data_parallel": {"overlap_fraction": 2}}, "must be <= 1, not 2"),
    ({"compute": {"efficiency": "high"}}, "compute.efficiency: must be a number"),
    ({"precision": {"compute": "fp8"}}, "only 'bf16'"),
    ({"surprise": 1}, "surprise: unknown field"),
    ({"storage": {"checkpoint": 1}}, "storage.checkpoint: unknown field"),
])
def test_bad_documents_name_the_field(change, message) -> None:
    doc = minimal(**change)
    with pytest.raises(WorkloadError, match=message.replace("(", r"\(")):
        workload_from_data(doc, "w.json")
    # The schema refuses them too (the checks go further than the schema for cross-field rules).
    if message not in ("not a whole number of", "no experts", "exceeds model.layers", "newer than this program"):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(doc, SCHEMA)


def test_files_are_bounded_and_strict_json(tmp_path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_WORKLOAD_BYTES + 1))
    with pytest.raises(WorkloadError, match="limit for a workload file"):
        load_workload(big)
    nan = tmp_path / "nan.json"
    nan.write_text(json.dumps(minimal()).replace("1000000000.0", "NaN"))
    with pytest.raises(WorkloadError, match="NaN is not allowed"):
        load_workload(nan)
    dup = tmp_path / "dup.json"
    dup.write_text('{"format": "topo-designer-workload", "format": "x"}')
    with pytest.raises(WorkloadError, match="duplicate key"):
        load_workload(dup)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100 + "]" * 100)
    with pytest.raises(WorkloadError, match="nested"):
        load_workload(deep)
    wide = tmp_path / "wide.json"
    wide.write_text(json.dumps({f"k{i}": i for i in range(1000)}))
    with pytest.raises(WorkloadError, match="members"):
        load_workload(wide)
    with pytest.raises(WorkloadError, match="no workload preset or file"):
        load_workload("no-such-preset")
    with pytest.raises(WorkloadError, match="no such file"):
        load_workload(tmp_path / "missing.json")
    ok = tmp_path / "ok.json"
    ok.write_text(json.dumps(minimal()))
    assert load_workload(ok).name == "t"


def test_the_documented_example_is_a_valid_workload() -> None:
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "workload-format.md").read_text()
    doc = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
    jsonschema.validate(doc, SCHEMA)
    assert workload_from_data(doc).name == "llama3-70b"


def test_megatron_core_buckets_follow_the_data_parallel_size() -> None:
    """Megatron-Core's DDP default: buckets of max(40M, 1M x DP) parameters; one bucket without overlap."""
    from designer.analysis.training import constants as T
    from designer.analysis.training.workload import DataParallel
    from designer.io.workload_file import load_workload

    w = load_workload("llama3-405b")
    dpc = w.data_parallel
    assert dpc.framework == "megatron-core" and dpc.sharding == "optimizer" and dpc.bucket_bytes == 0
    assert dpc.bucket_for(8, 2, 1e12) == 40_000_000 * 2
    assert dpc.bucket_for(128, 2, 1e12) == 128_000_000 * 2
    assert DataParallel(bucket_bytes=0, overlap=False, framework="megatron-core").bucket_for(128, 2, 5e9) == 5e9
    assert load_workload("gpt3-1.3b-ddp").data_parallel.bucket_for(128, 2, 1e12) == T.DDP_BUCKET_BYTES
    from designer.io.workload_records import workload_from_data

    doc = {"format": "topo-designer-workload", "version": 1, "name": "f",
           "model": {"parameters": 1e9, "layers": 16, "hidden_size": 2048, "sequence_length": 2048},
           "batch": {"global_batch_sequences": 64}, "data_parallel": {"framework": "fsdp"}}
    assert workload_from_data(doc).data_parallel.sharding == "full"  # FSDP's FULL_SHARD default
    doc["data_parallel"] = {"framework": "megatron-core", "bucket_bytes": 1 << 20, "sharding": "none"}
    mc = workload_from_data(doc).data_parallel
    assert (mc.sharding, mc.bucket_for(512, 2, 1e12)) == ("none", 1 << 20)  # the file's values win
