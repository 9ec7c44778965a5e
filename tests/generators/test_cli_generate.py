"""``topo-designer generate`` and ``bom``: every kind, documented options, one-line refusals."""

from __future__ import annotations

import json
import re

import pytest

from designer.cli import build_parser, main
from designer.generators import GENERATORS
from designer.io import load_design


def test_generate_fat_tree_k8_writes_128_gpus(tmp_path, capsys):
    out = tmp_path / "ft.json"
    assert main(["generate", "fat-tree", "--k", "8", "-o", str(out)]) == 0
    d = load_design(out)
    assert sum(x.kind == "gpu" for x in d.iter_devices()) == 128
    assert sum(x.kind == "switch" for x in d.iter_devices()) == 80
    assert "80 switch" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["leaf-spine", "--leaves", "16", "--spines", "8", "--hosts-per-leaf", "32"],
        ["rail-optimized", "--sus", "1", "--nodes-per-su", "4", "--ufm", "--long-medium", "aoc"],
        ["torus", "--dims", "4x4x2", "--no-wrap"],
        ["dragonfly", "--p", "2", "--a", "4", "--h", "2", "--gpus-per-node", "2"],
        ["hypercube", "--n", "3"],
        ["clos3", "--pods", "2", "--leaves-per-pod", "2", "--hosts-per-leaf", "8"],
        ["nvl72", "--racks", "2"],
        ["server", "--gpu", "a100-sxm"],
    ],
)
def test_generate_every_kind_from_the_command_line(tmp_path, argv):
    out = tmp_path / "d.json"
    assert main(["generate", *argv, "-o", str(out)]) == 0
    assert load_design(out).properties["generator"] == argv[0]


@pytest.mark.parametrize("kind", list(GENERATORS))
def test_help_documents_every_parameter_with_its_default(kind):
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices["generate"]
    kind_parser = next(a for a in sub._actions if a.dest == "kind").choices[kind]
    text = kind_parser.format_help()
    assert "-o FILE, --output FILE" in text
    flat = " ".join(text.split())
    for p in GENERATORS[kind].params:
        assert p.cli_flag in text
        assert "default:" in flat


@pytest.mark.parametrize("kind", list(GENERATORS))
def test_help_names_generators_and_parameters_as_the_generate_dialog(kind):
    """The words and units of the window's Generate dialog (one table in the generators' params)."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices["generate"]
    spec = GENERATORS[kind]
    assert spec.title in " ".join(sub.format_help().split())
    text = " ".join(next(a for a in sub._actions if a.dest == "kind").choices[kind].format_help().split())
    assert f"{spec.title} ({kind}):" in text
    for p in spec.params:
        label = spec.label_of(p)
        option = re.split(rf"\s{p.cli_flag}[ ,]", text.split("options:", 1)[1], maxsplit=1)[1].split("(default:")[0]
        assert label in option, (p.name, label, option)
    if any(p.type == "bool" for p in spec.params):
        assert "(default: on)" in text or "(default: off)" in text
    assert "default: True" not in text and "default: False" not in text


def test_rail_optimized_help_reads_the_dialog_labels():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices["generate"]
    text = " ".join(next(a for a in sub._actions if a.dest == "kind").choices["rail-optimized"].format_help().split())
    assert "--sus N Scalable units (default: 1;" in text
    assert "--copper-max-m X Copper reach (m):" in text
    assert "--ufm, --no-ufm UFM appliance:" in text and "(default: off)" in text
    assert "Rail-optimized (SuperPOD) (rail-optimized):" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["fat-tree", "--k", "7"], "topo-designer: fat-tree: k must be even and at least 2, got 7"),
        (["leaf-spine", "--hosts-per-leaf", "40"],
         "topo-designer: leaf-spine: each leaf needs 40 host + 40 uplink ports but qm9700 has 64"),
        (["rail-optimized", "--sus", "0"], "topo-designer: rail-optimized: sus must be >= 1, got 0"),
    ],
)
def test_impossible_parameters_exit_2_with_one_line(tmp_path, capsys, argv, message):
    out = tmp_path / "x.json"
    assert main(["generate", *argv, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == message
    assert not out.exists()


def test_generate_without_kind_names_the_kinds(capsys):
    assert main(["generate"]) == 2
    assert "fat-tree" in capsys.readouterr().err


def test_bom_prints_a_table_and_writes_json(tmp_path, capsys):
    out = tmp_path / "pod.json"
    assert main(["generate", "rail-optimized", "--sus", "4", "--ufm", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["bom", str(out)]) == 0
    text = capsys.readouterr().out
    assert "unit W" in text and "total USD" in text
    assert "node-leaf" in text and "leaf-spine" in text
    assert main(["bom", str(out), "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    switches = {
        (line["item"], line["tier"]): line["quantity"] for line in data["lines"] if line["category"] == "switch"
    }
    assert switches == {("qm9700", "leaf"): 32, ("qm9700", "spine"): 16}
    cables = {}
    for line in data["lines"]:
        if line["category"] == "cable":
            cables[line["between"]] = cables.get(line["between"], 0) + line["quantity"]
    assert cables == {"node-leaf": 1020, "leaf-spine": 1024}
    assert main(["bom", str(out), "--json", str(tmp_path / "bom.json")]) == 0
    assert json.loads((tmp_path / "bom.json").read_text())["totals"]["switch"] == 48
