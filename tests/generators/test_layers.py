"""Dependencies point down: generators and analysis use only the model; the model uses nothing of ours."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

DESIGNER = Path(__file__).resolve().parents[2] / "designer"
ALLOWED = {
    "model": {"model"},
    "analysis": {"analysis", "model"},
    "generators": {"generators", "model"},
}


def imported_layers(path: Path) -> set[tuple[str, int]]:
    """Every ``designer.<layer>`` a module imports, at any depth (function-level imports too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
        for name in names:
            parts = name.split(".")
            if parts[0] == "designer":
                found.add((parts[1] if len(parts) > 1 else "", node.lineno))
    return found


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_only_the_layers_below(layer):
    bad = [f"{path.relative_to(DESIGNER.parent)}:{line} imports designer.{used}"
           for path in sorted((DESIGNER / layer).rglob("*.py"))
           for used, line in sorted(imported_layers(path)) if used not in ALLOWED[layer]]
    assert not bad, "\n".join(bad)
