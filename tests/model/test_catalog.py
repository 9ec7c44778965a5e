"""The built-in catalog loads, cites every figure, and user catalogs merge over it."""

import json
from pathlib import Path

import pytest

from designer.io.catalog_files import load_catalog
from designer.model.catalog import CatalogError, builtin_catalog
from designer.model.shipped import resources_dir


def _numbers(obj, prefix=""):
    for key, value in obj.items():
        if isinstance(value, bool) or key in ("sources", "lengths_m"):
            continue
        if isinstance(value, (int, float)) and value != 0:
            yield f"{prefix}{key}"
        elif isinstance(value, dict):
            yield from _numbers(value, f"{prefix}{key}.")


def test_builtin_catalog_has_the_required_components():
    cat = load_catalog(include_user=False)
    for cid in ("h100-sxm", "h200-sxm", "b200", "a100-sxm", "h800-sxm", "mi300x", "connectx-7-400g",
                "connectx-8-800g", "bluefield-3-400g", "qm9700", "sn5600", "hgx-h100-nvswitch"):
        assert cid in cat.components, cid
    media = {c.medium for c in cat.cables.values()}
    assert {"passive_copper", "active_copper", "aoc", "optical", "nvlink", "pcie"} <= media
    qm = cat.component("qm9700")
    assert sum(g.count for g in qm.ports) == 64 and qm.ports[0].speed_gbps == 400


def test_every_figure_cites_a_source():
    missing = []
    for path in sorted((resources_dir() / "catalog").glob("*.json")):
        data = json.loads(path.read_text())
        for section in ("components", "cables", "transceivers"):
            for entry in data.get(section, []):
                sources = entry.get("sources", {})
                for field in _numbers({k: v for k, v in entry.items() if k not in ("ports",)}):
                    top = field.split(".")[0]
                    if field not in sources and top not in sources:
                        missing.append(f"{path.name}:{entry['id']}:{field}")
                if entry.get("ports") and "ports" not in sources:
                    missing.append(f"{path.name}:{entry['id']}:ports")
    assert not missing, missing


def test_cable_choice_follows_reach():
    cat = load_catalog(include_user=False)
    assert cat.choose_cable(400, 2.0).medium == "passive_copper"
    assert cat.choose_cable(400, 4.5).medium in ("active_copper", "aoc", "optical")
    far = cat.choose_cable(400, 400.0)
    assert far.medium == "optical" and far.reach_m >= 400
    assert cat.choose_cable(400, 10_000.0) is None


def test_user_catalog_replaces_and_adds(tmp_path):
    user = tmp_path / "mine.json"
    user.write_text(json.dumps({
        "format": "topo-designer-catalog", "version": 1,
        "components": [
            {"id": "qm9700", "kind": "switch", "name": "QM9700 (negotiated price)",
             "ports": [{"prefix": "p", "count": 64, "speed_gbps": 400}], "price_usd": 1.0},
            {"id": "my-gpu", "kind": "gpu", "name": "Custom accelerator",
             "ports": [{"prefix": "nvl", "count": 1, "speed_gbps": 1000, "kind": "nvlink"}]},
        ],
    }))
    cat = load_catalog([user], include_user=False)
    assert cat.component("qm9700").price_usd == 1.0
    assert cat.component("my-gpu").make_device("g1").ports[0].speed_gbps == 1000
    assert cat.origins["my-gpu"] == str(user)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not valid JSON"),
        ('{"format": "other", "version": 1}', "not a catalog file"),
        ('{"format": "topo-designer-catalog", "version": 1, "components": [{"id": "x", "kind": "gpu", "ports": []}]}',
         "ports must be a non-empty list"),
        ('{"format": "topo-designer-catalog", "version": 1, "components": [{"id": "x", "kind": "gpu", '
         '"ports": [{"prefix": "p", "count": 1, "speed_gbps": -5}]}]}', "speed_gbps must be"),
    ],
)
def test_bad_user_catalog_is_a_clear_error(tmp_path, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    with pytest.raises(CatalogError, match=message):
        load_catalog([bad], include_user=False)


def test_the_model_reads_no_file_but_the_shipped_catalog():
    # The user's files (catalogs, designs, workloads) are read in designer.io, bounded; the model
    # reads only the catalog shipped with it, in builtin_catalog().
    import ast

    import designer.model

    readers = {"open", "read_bytes", "read_text", "stdin", "fdopen"}
    found = []
    for path in sorted(Path(designer.model.__file__).parent.glob("*.py")):
        tree = ast.parse(path.read_text())
        for func in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
            for node in ast.walk(func):
                name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
                if name in readers:
                    found.append(f"{path.name}:{func.name}:{name}")
    assert found == ["catalog.py:builtin_catalog:read_bytes"]


def test_no_module_of_the_model_holds_a_catalog_a_caller_can_swap():
    import designer.model.catalog as catalog_module

    for gone in ("default_catalog", "set_default_catalog", "set_catalog_files", "load_catalog", "user_catalog_path"):
        assert not hasattr(catalog_module, gone)
    assert builtin_catalog() is builtin_catalog() and builtin_catalog().frozen
