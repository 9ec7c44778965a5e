"""The wheel carries the code, the resources (catalog, schemas, icons), the sample designs and the
documentation the Help menu shows.

Builds the wheel once from a copy of the working tree (so new, uncommitted files count too)
and compares its contents with the folders. scripts/check-wheel.sh installs the wheel and
runs the program from it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from designer.model import shipped

ROOT = Path(__file__).resolve().parents[1]
#: Files in sample_designs/ that stay in the repository: the folder's notes and its build script.
NOT_SHIPPED = {"README.md", "make_samples.py", "make_measured_examples.py"}


def _files(folder: Path) -> set[str]:
    """Every file under ``folder``, as paths relative to it, leaving out caches and hidden files."""
    found = set()
    for path in folder.rglob("*"):
        rel = path.relative_to(folder)
        if path.is_file() and not any(part == "__pycache__" or part.startswith(".") for part in rel.parts):
            found.add(rel.as_posix())
    return found


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    shutil.copytree(
        ROOT,
        src,
        ignore=shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache"),
    )
    out = base / "out"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"pip wheel failed:\n{done.stdout}\n{done.stderr}"
    (whl,) = out.glob("topo_designer-*.whl")
    return whl


@pytest.fixture(scope="module")
def names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as z:
        return set(z.namelist())


def test_every_resource_file_is_in_the_wheel(names: set[str]) -> None:
    expected = {f"designer/resources/{rel}" for rel in _files(ROOT / "resources")}
    assert any(n.startswith("designer/resources/catalog/") for n in expected)
    assert any(n.startswith("designer/resources/schema/") for n in expected)
    missing = sorted(expected - names)
    assert not missing, f"not packaged (add them to package-data in pyproject.toml): {missing}"


def test_every_sample_design_is_in_the_wheel(names: set[str]) -> None:
    expected = {
        f"designer/sample_designs/{rel}" for rel in _files(ROOT / "sample_designs") if rel not in NOT_SHIPPED
    }
    assert "designer/sample_designs/superpod-h100-1su.json" in expected
    missing = sorted(expected - names)
    assert not missing, f"not packaged (add them to package-data in pyproject.toml): {missing}"
    assert not [n for n in names if n.startswith("designer/sample_designs/") and n.endswith(".py")]


def test_every_document_is_in_the_wheel(names: set[str]) -> None:
    expected = {f"designer/docs/{rel}" for rel in _files(ROOT / "docs")}
    assert "designer/docs/gui.md" in expected
    missing = sorted(expected - names)
    assert not missing, f"not packaged (add them to package-data in pyproject.toml): {missing}"


def test_every_module_is_in_the_wheel(names: set[str]) -> None:
    expected = {f"designer/{rel}" for rel in _files(ROOT / "designer") if rel.endswith(".py")}
    missing = sorted(expected - names)
    assert not missing, f"modules missing from the wheel (a folder without __init__.py?): {missing}"


def test_the_unpacked_wheel_finds_its_own_resources(wheel: Path, tmp_path: Path) -> None:
    """Imported from the unpacked wheel, outside the repository, the data comes from the package."""
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
    code = (
        "from designer.io.catalog_files import load_catalog\nfrom designer.model.shipped import resources_dir\n"
        "from designer.model.shipped import docs_dir, sample_designs_dir\n"
        "from designer.io import load_design\n"
        "print(resources_dir()); print(sample_designs_dir())\n"
        "print(len(load_catalog(include_user=False).components))\n"
        "print(len(load_design(sample_designs_dir() / 'superpod-h100-1su.json').devices))\n"
        "print(docs_dir()); print((docs_dir() / 'gui.md').is_file())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "TOPO_DESIGNER_RESOURCES"}
    env["PYTHONPATH"] = str(site)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    res, samples, components, devices, docs, has_guide = done.stdout.split()
    assert Path(res) == site / "designer" / "resources"
    assert Path(samples) == site / "designer" / "sample_designs"
    assert int(components) > 0
    assert int(devices) > 0
    assert Path(docs) == site / "designer" / "docs" and has_guide == "True"


def test_the_source_tree_uses_the_top_level_folders(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("TOPO_DESIGNER_RESOURCES", raising=False)
    assert shipped.resources_dir() == ROOT / "resources"
    assert shipped.sample_designs_dir() == ROOT / "sample_designs"
    assert shipped.docs_dir() == ROOT / "docs"
    monkeypatch.setenv("TOPO_DESIGNER_RESOURCES", str(tmp_path))
    assert shipped.resources_dir() == tmp_path
