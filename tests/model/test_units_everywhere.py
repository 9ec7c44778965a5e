"""Every text of the program (the core's notes, rule messages, formulas and descriptions, the
window's and the command line's messages and undo names) reads quantities and counts through
designer.model.units: no "link(s)", no "device{'s' if n != 1 else ''}", no hand-made "{x:g} Gb/s"
or "{x:.1f} GB/s"."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import designer

ROOT = Path(designer.__file__).parent
PACKAGES = ("analysis", "generators", "io", "model", "interop", "sweep")
#: The front ends and the presentation package: they show the core's figures and count things too.
FRONT = ("cli", "gui", "present")
UNITS = ROOT / "model" / "units.py"

#: A format spec in front of a unit: ":g} Gb/s", ":.1f} GB/s", ":.2f} us" ...
_UNIT_AFTER_SPEC = re.compile(r"^\s*(?:[kMGT]?[bB]/s|[num]?s|ns|us|ms|[KMGT]iB)\b")
_SPEC = re.compile(r"^(?:[,_]?\.?\d*[gfe%]|,\.?\d*f?)$")


def _spec(node: ast.FormattedValue) -> str:
    spec = node.format_spec
    if not isinstance(spec, ast.JoinedStr):
        return ""
    return "".join(v.value for v in spec.values if isinstance(v, ast.Constant) and isinstance(v.value, str))


def _plural_by_condition(node: ast.FormattedValue) -> bool:
    """``{'s' if n != 1 else ''}``: a plural made by hand after a count."""
    v = node.value
    return isinstance(v, ast.IfExp) and any(
        isinstance(x, ast.Constant) and x.value in ("s", "es") for x in (v.body, v.orelse))


def _problems(path: Path, base: Path = ROOT.parent) -> list[str]:
    """Hand-made plurals and quantities in ``path``'s string literals and f-strings (docstrings and
    comments are not looked at), as ``file:line: what``."""
    where = path.relative_to(base)
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if re.search(r"\((?:s|es)\)", node.value):
                out.append((node.lineno, f"plural by hand in {node.value!r}"))
        elif isinstance(node, ast.JoinedStr):
            parts = node.values
            for part in parts:
                if isinstance(part, ast.FormattedValue) and _plural_by_condition(part):
                    out.append((part.lineno, "plural by hand with a condition"))
            for here, after in zip(parts, parts[1:], strict=False):
                if not (isinstance(here, ast.FormattedValue) and isinstance(after, ast.Constant)):
                    continue
                spec = _spec(here)
                if spec and _SPEC.match(spec) and _UNIT_AFTER_SPEC.match(str(after.value)):
                    out.append((here.lineno, f"hand-formatted quantity {{:{spec}}} {str(after.value).split()[0]}"))
    return [f"{where}:{line}: {what}" for line, what in sorted(out)]


def test_the_core_formats_quantities_and_plurals_through_units():
    files = [p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py")) if p != UNITS]
    assert len(files) > 20
    problems = [line for p in files for line in _problems(p)]
    assert not problems, "use designer.model.units (count, line_rate, rate, duration, size):\n" + "\n".join(problems)


def test_the_window_and_the_command_line_count_through_units():
    files = [p for pkg in FRONT for p in sorted((ROOT / pkg).rglob("*.py"))]
    assert len(files) > 40
    problems = [line for p in files for line in _problems(p)]
    assert not problems, "use designer.model.units (count, kind_counts, line_rate, rate):\n" + "\n".join(problems)


def test_the_check_catches_what_it_is_for(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('x = 3\nA = f"{x} link(s)"\nB = f"{x:g} Gb/s"\nC = f"{x / 1e9:.1f} GB/s"\nD = f"{x:.2f} us"\n'
                   '# a comment about link(s) and {x:g} Gb/s\nE = f"{x:,} GPUs, {x:g} m, x {x:.4g}"\n'
                   'F = f"{x} device{\'s\' if x != 1 else \'\'}"\n')
    assert _problems(bad, tmp_path) == [
        "bad.py:2: plural by hand in ' link(s)'", "bad.py:3: hand-formatted quantity {:g} Gb/s",
        "bad.py:4: hand-formatted quantity {:.1f} GB/s", "bad.py:5: hand-formatted quantity {:.2f} us",
        "bad.py:8: plural by hand with a condition"]
