"""The GUI's rooms import downwards only: document <- canvas <- panels <- window."""

from __future__ import annotations

import ast
from pathlib import Path

import designer.gui

GUI = Path(designer.gui.__file__).parent
ORDER = ["document", "canvas", "panels", "window"]  # each room may import the rooms before it


def _room(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["designer", "gui"] or len(parts) < 3:
        return None
    return parts[2] if parts[2] in ORDER else None


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def test_every_gui_module_lives_in_a_room_or_the_foundation():
    flat = sorted(p.stem for p in GUI.glob("*.py"))
    assert flat == ["__init__", "icons", "qtfix", "style"]
    assert sorted(p.name for p in GUI.iterdir() if p.is_dir() and p.name != "__pycache__") == sorted(ORDER)


def test_rooms_import_downwards_only():
    wrong = []
    for room in ORDER:
        allowed = set(ORDER[: ORDER.index(room) + 1])
        for path in sorted((GUI / room).glob("*.py")):
            for module in _imports(path):
                target = _room(module)
                if target is not None and target not in allowed:
                    wrong.append(f"{room}/{path.name} imports {module}")
    assert not wrong, wrong


def test_the_foundation_imports_no_room():
    for name in ("icons", "qtfix", "style", "__init__"):
        assert not {m for m in _imports(GUI / f"{name}.py") if _room(m)}, name
