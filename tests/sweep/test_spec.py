"""Sweep specs: validation with one-line errors, grid expansion, zipped lists, keys, the Pareto front."""

import itertools
import json
import random
from pathlib import Path

import jsonschema
import pytest

from designer.cli import main
from designer.cli.analyze import parse_size
from designer.model.shipped import resources_dir
from designer.sweep import SweepError, expand, load_spec, pareto_front, parse_spec
from designer.sweep.results import columns, param_column

FOUR = {"generator": "leaf-spine", "parameters": {"leaves": [4, 8], "oversubscription": [1, 2]}, "sizes": ["1GiB"]}


def spec_of(data, base=None):
    return parse_spec(data, "s.json", parse_size, base=base)


def schema():
    return json.loads((resources_dir() / "schema" / "sweep.schema.json").read_text())


def test_the_four_point_spec_is_the_product_of_its_lists():
    spec = spec_of(FOUR)
    points = expand(spec)
    assert spec.count == len(points) == 4
    assert [dict(p.params) for p in points] == [
        {"leaves": 4, "oversubscription": 1.0}, {"leaves": 4, "oversubscription": 2.0},
        {"leaves": 8, "oversubscription": 1.0}, {"leaves": 8, "oversubscription": 2.0}]
    assert [p.index for p in points] == [0, 1, 2, 3]
    assert spec.settings.sizes == (1 << 30,) and spec.settings.size_names == ("1GiB",)
    assert spec.settings.metrics == ("bom", "bisection", "collective")
    jsonschema.validate(FOUR, schema())


def test_fixed_values_zipped_lists_and_workloads():
    data = {"generator": "leaf-spine",
            "parameters": {"leaves": [2, 4, 8], "spines": [1, 2, 4], "hosts_per_leaf": 16, "oversubscription": [1, 2]},
            "zip": [["leaves", "spines"]], "workloads": ["gpt3-1.3b-ddp", "llama3-70b"], "sizes": ["1MiB", "1GiB"]}
    jsonschema.validate(data, schema())
    spec = spec_of(data)
    points = expand(spec)
    assert spec.count == len(points) == 3 * 2 * 2
    assert {(p.params["leaves"], p.params["spines"]) for p in points} == {(2, 1), (4, 2), (8, 4)}
    assert all(p.params["hosts_per_leaf"] == 16 for p in points)
    assert [p.workload_name for p in points[:2]] == ["gpt3-1.3b-ddp", "llama3-70b"]  # workloads vary fastest
    assert spec.settings.metrics == ("bom", "bisection", "collective", "step")
    names = [c.name for c in columns(spec)]
    assert names[:7] == ["point", "key", "generator", "leaves", "spines", "hosts_per_leaf", "oversubscription"]
    assert "workload" in names and "time_to_train_s" in names and "allreduce_1MiB_time_s" in names
    assert names[-1] == "pareto"


def test_a_dims_list_of_numbers_is_one_value_and_a_list_of_sizes_an_axis():
    one = spec_of({"generator": "torus", "parameters": {"dims": [4, 4, 8]}})
    assert one.count == 1 and expand(one)[0].params == {"dims": "4x4x8"}
    two = spec_of({"generator": "torus", "parameters": {"dims": ["4x4", [8, 8]]}})
    assert [p.params["dims"] for p in expand(two)] == ["4x4", "8x8"]


def test_keys_are_stable_and_follow_what_a_point_computes():
    a, b = expand(spec_of(FOUR)), expand(spec_of(json.loads(json.dumps(FOUR))))
    assert [p.key for p in a] == [p.key for p in b]
    assert len({p.key for p in a}) == 4
    # the same point written another way (2 and 2.0) has the same key
    other = expand(spec_of({**FOUR, "parameters": {"leaves": [8], "oversubscription": [2.0]}}))
    assert other[0].key == a[3].key
    # other sizes: other results, another key
    assert expand(spec_of({**FOUR, "sizes": ["1MiB"]}))[0].key != a[0].key


def test_pareto_front_against_brute_force():
    rng = random.Random(7)
    for _ in range(50):
        pts = [(rng.choice([1.0, 2.0, 3.0, 4.0]), rng.choice([1.0, 2.0, 3.0, float("inf")])) for _ in range(12)]
        expected = [
            all(not (q[0] <= p[0] and q[1] <= p[1] and q != p) for q in pts) and all(map(lambda v: v < 9e9, p))
            for p in pts]
        assert pareto_front(pts) == expected
    assert pareto_front([]) == []


def test_parameter_columns_never_clash_with_metrics():
    from designer.generators import GENERATORS

    names = {p.name for spec in GENERATORS.values() for p in spec.params}
    for n in names:
        assert param_column(n) == n  # no generator parameter has a metric's name today
    assert param_column("cost_usd") == "param_cost_usd"


@pytest.mark.parametrize(("data", "message"), [
    ({"generator": "spaghetti"}, "s.json: generator: unknown generator 'spaghetti' (known: server,"),
    ({"generator": "leaf-spine", "parameters": {"leafs": [2]}},
     "s.json: parameters.leafs: leaf-spine has no parameter"),
    ({"generator": "leaf-spine", "parameters": {"leaves": [2, 0]}}, "s.json: parameters.leaves: leaves must be >= 1"),
    ({"generator": "leaf-spine", "parameters": {"leaves": []}}, "s.json: parameters.leaves: an empty list gives no"),
    ({"generator": "leaf-spine", "parameters": {"leaves": [2, 4], "spines": [1]}, "zip": [["leaves", "spines"]]},
     "s.json: zip[0]: zipped lists must have the same length: leaves has 2, spines has 1"),
    ({"generator": "leaf-spine", "sizes": ["1 potato"]}, "s.json: sizes[0]: invalid size"),
    ({"generator": "leaf-spine", "metrics": ["step"]}, "s.json: metrics: step needs at least one workload"),
    ({"generator": "leaf-spine", "workloads": ["no-such-model"]}, "s.json: workloads[0]: no workload preset"),
    ({"generator": "leaf-spine", "failures": "everything"}, "s.json: failures: scan must be one of"),
    ({"generator": "leaf-spine", "colour": "red"}, "s.json: colour: unknown field"),
])
def test_bad_specs_are_refused_naming_the_field(data, message):
    with pytest.raises(SweepError) as e:
        spec_of(data)
    assert str(e.value).startswith(message)
    assert "\n" not in str(e.value)


def _cli(tmp_path, capsys, data, *extra, output=None):
    spec = tmp_path / "s.json"
    spec.write_text(data if isinstance(data, str) else json.dumps(data))
    out = output if output is not None else str(tmp_path / "r.csv")
    code = main(["sweep", str(spec), "-o", out, *extra])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


@pytest.mark.parametrize(("data", "output", "needle"), [
    ({"generator": "nope"}, None, "generator: unknown generator 'nope'"),
    ({"generator": "leaf-spine", "parameters": {"radix": [1]}}, None, "parameters.radix: leaf-spine has no parameter"),
    ({"generator": "leaf-spine", "parameters": {"leaves": []}}, None, "an empty list gives no points"),
    ("{not json", None, "not valid JSON"),
    (FOUR, "/no/such/folder/r.csv", "/no/such/folder/r.csv: folder /no/such/folder does not exist"),
    (FOUR, "r.xlsx", "results are written as .csv or .parquet"),
])
def test_the_command_refuses_in_one_line_with_exit_2(tmp_path, capsys, data, output, needle):
    code, out, err = _cli(tmp_path, capsys, data, output=output)
    assert code == 2 and out == ""
    assert needle in err and err.count("\n") == 1 and err.startswith("topo-designer: ")


def test_unwritable_output_is_refused_before_anything_runs(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        import os

        if os.access(locked, os.W_OK):  # root writes anywhere
            pytest.skip("running as a user who can write into a read-only folder")
        code, _, err = _cli(tmp_path, capsys, FOUR, output=str(locked / "r.csv"))
        assert code == 2 and "cannot write here" in err
    finally:
        locked.chmod(0o700)


def test_check_prints_points_and_estimate_and_runs_nothing(tmp_path, capsys):
    code, out, _ = _cli(tmp_path, capsys, FOUR, "--check", "--workers", "2")
    assert code == 0
    assert "leaf-spine: leaves (2) x oversubscription (2) = 4 points; about " in out
    assert "on 2 local workers" in out and "from 4 sampled points of 128 to 256 GPUs" in out
    assert not (tmp_path / "r.csv").exists()


def test_workload_files_are_read_relative_to_the_spec(tmp_path):
    src = resources_dir() / "workloads" / "gpt3-1.3b-ddp.json"
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "mine.json").write_bytes(src.read_bytes())
    (tmp_path / "s.json").write_text(json.dumps({"generator": "server", "workloads": ["w/mine.json"]}))
    spec = load_spec(tmp_path / "s.json", parse_size)
    assert spec.workloads[0][0] == "w/mine.json" and spec.count == 1


def test_grid_of_many_lists_is_their_product():
    data = {"generator": "rail-optimized",
            "parameters": {"sus": [1, 2, 3], "oversubscription": [1, 2], "gpus_per_node": [4, 8], "ufm": [True, False]}}
    points = expand(spec_of(data))
    assert len(points) == 24
    combos = [tuple(p.params.values()) for p in points]
    assert combos == [(s, float(o), g, u) for s, o, g, u in itertools.product([1, 2, 3], [1, 2], [4, 8],
                                                                              [True, False])]


def test_docs_examples_are_valid_specs():
    docs = Path(__file__).resolve().parents[2] / "docs" / "sweeps.md"
    text = docs.read_text()
    blocks = [b.split("```", 1)[0] for b in text.split("```json\n")[1:]]
    assert blocks
    for b in blocks:
        data = json.loads(b)
        jsonschema.validate(data, schema())
        spec_of(data)


def test_a_point_of_one_gpu_records_no_bisection_rather_than_failing():
    from designer.sweep.evaluate import evaluate_point

    spec = parse_spec({"generator": "server", "parameters": {"gpus_per_node": 1}, "sizes": ["1MiB"],
                       "metrics": ["bisection"]}, "s.json")  # the default size reader: designer.model.units
    (point,) = expand(spec)
    row = evaluate_point(point)
    assert row.get("error") in (None, "")
    assert row["bisection_lower_bytes_per_s"] is None and row["bisection_upper_bytes_per_s"] is None
