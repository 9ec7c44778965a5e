"""Refusals name the setting the way a user sets it: the dialog's words and the command-line flag."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from designer.generators import GENERATORS, GeneratorError, generate
from designer.generators.params import cli_flag, in_sentence, param_label, setting

SOURCES = sorted((Path(__file__).resolve().parents[2] / "designer" / "generators").glob("*.py"))
#: Python keyword advice such as ``nvswitch=<model>``, ``scaleout=true``, ``tiers=3`` (the radix ``k=6`` is notation).
PYTHON_ADVICE = re.compile(r"\b[a-z][a-z_]+=(<|true|false|\d)", re.IGNORECASE)


def _message_texts(tree: ast.AST) -> list[str]:
    """The literal text of every ``b.error(...)`` / ``self.error(...)`` / ``GeneratorError(...)`` message."""
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name not in ("error", "GeneratorError", "_ReachError"):
            continue
        for arg in node.args:
            parts = []
            for sub in ast.walk(arg):
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                    parts.append(sub.value)
            out.append("".join(parts))
    return out


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_refusal_gives_python_keyword_advice(path):
    texts = _message_texts(ast.parse(path.read_text(encoding="utf-8")))
    assert [t for t in texts if PYTHON_ADVICE.search(t)] == []


@pytest.mark.parametrize(
    ("kind", "params", "flags"),
    [
        ("server", {"gpu": "mi300x"}, ["--nvswitch MODEL", "--gpus-per-node 1"]),
        ("nvl72", {"racks": 2, "scaleout": False}, ["--scaleout", "--racks 1"]),
        ("rail-optimized", {"sus": 9, "nodes_per_su": 2, "tiers": 2}, ["--tiers 3", "--tiers 0"]),
        ("rail-optimized", {"sus": 1, "nodes_per_su": 1, "ufm": True}, ["--nodes-per-su 2"]),
        ("leaf-spine", {"spines": 5}, ["--spines N"]),
        ("leaf-spine", {"hosts_per_leaf": 12}, ["--hosts-per-leaf 12", "--gpus-per-node 8"]),
        ("clos3", {"spines_per_pod": 5}, ["--spines-per-pod N"]),
        ("fat-tree", {"k": 6, "gpus_per_node": 8}, ["--gpus-per-node 8"]),
        ("dragonfly", {"gpus_per_node": 3}, ["--gpus-per-node 3"]),
    ],
)
def test_refusal_names_the_cli_flag_and_the_dialog_label(kind, params, flags):
    with pytest.raises(GeneratorError) as err:
        generate(kind, **params)
    message = str(err.value)
    for flag in flags:
        assert flag in message
        name = flag.split()[0][2:].replace("-", "_")
        assert in_sentence(param_label(name)) in message  # the Generate dialog's label of the setting
        assert GENERATORS[kind].param(name).cli_flag == flag.split()[0]
    assert not PYTHON_ADVICE.search(message), message


def test_setting_text_comes_from_the_parameter_flag():
    assert cli_flag("gpus_per_node") == "--gpus-per-node"
    assert setting("scaleout", True) == "scale-out network on (--scaleout)"
    assert setting("scaleout", False) == "scale-out network off (--no-scaleout)"
    assert setting("copper_max_m", 3.0) == "copper reach (m) = 3 (--copper-max-m 3)"
    assert setting("ufm_links", metavar="N") == "UFM appliance links (--ufm-links N)"
