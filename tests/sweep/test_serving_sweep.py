"""Sweeps over serving workloads: the spec, the columns, and rows that read as ``analyze --serve``."""

from __future__ import annotations

import pytest

from designer.analysis.serving.model import serving_analysis
from designer.generators import GENERATORS
from designer.io.workload_file import load_serving
from designer.sweep import SweepError, expand, parse_spec
from designer.sweep.evaluate import evaluate_point
from designer.sweep.results import columns, mark_pareto, pareto_axes


def spec(**extra):
    data = {"generator": "rail-optimized", "parameters": {"sus": 1, "oversubscription": [1, 2]},
            "serving": ["llama3-70b-serve"], "sizes": ["1GiB"], **extra}
    return parse_spec(data, "s.json")


def test_serving_workloads_are_values_of_the_workload_axis() -> None:
    s = spec(workloads=["llama3-70b"])
    assert [w for w, _ in s.workloads] == ["llama3-70b", "llama3-70b-serve"]
    assert s.count == 4 and "serving" in s.settings.metrics and "step" in s.settings.metrics
    names = [c.name for c in columns(s)]
    assert {"ttft_s", "tpot_s", "output_tokens_per_s_per_gpu", "serving_bound"} <= set(names)


def test_a_serving_row_reads_as_analyze_serve() -> None:
    s = spec()
    point = expand(s)[1]
    row = evaluate_point(point)
    assert row["status"] == "ok", row.get("error")
    design = GENERATORS["rail-optimized"].build(sus=1, oversubscription=2)
    r = serving_analysis(design, load_serving("llama3-70b-serve"))
    assert row["tpot_s"] == pytest.approx(r.tpot_s) and row["ttft_s"] == pytest.approx(r.ttft_s)
    assert row["output_tokens_per_s_per_gpu"] == pytest.approx(r.output_tokens_per_s_per_gpu)
    assert row["serving_bound"] == r.bound
    names = [c.name for c in columns(s)]
    assert pareto_axes(names) == ("cost_usd", "tpot_s")
    rows = [row, {**row, "point": 0, "cost_usd": row["cost_usd"] * 2, "tpot_s": row["tpot_s"] * 2}]
    mark_pareto(names, rows)
    assert [r["pareto"] for r in rows] == [True, False]


@pytest.mark.parametrize(("extra", "message"), [
    ({"serving": ["gpt9-serve"]}, "serving[0]: no serving workload preset"),
    ({"serving": [], "metrics": ["serving"]}, "serving needs at least one serving workload"),
    ({"serving": 3}, "serving: must be a list of serving preset names"),
])
def test_bad_serving_entries_are_refused_in_one_line(extra, message) -> None:
    with pytest.raises(SweepError, match=message.replace("[", r"\[").replace("]", r"\]")):
        spec(**extra)
