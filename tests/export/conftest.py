"""Export tests: one export run of a sample design, shared by the tests that read its files."""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from designer.cli import main  # noqa: E402
from designer.model.shipped import resources_dir, sample_designs_dir  # noqa: E402

SAMPLE = sample_designs_dir() / "superpod-h100-1su.json"
PNG_WIDTH = 1200


@pytest.fixture(scope="session")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every output of ``topo-designer export`` of the 256-GPU SuperPOD sample with a workload."""
    out = tmp_path_factory.mktemp("export")
    files = {"png": out / "canvas.png", "panels": out / "panels", "report": out / "report.json",
             "html": out / "report.html", "cabling": out / "cabling.csv", "graphml": out / "fabric.graphml"}
    args = ["export", str(SAMPLE), "--png-width", str(PNG_WIDTH), "--workload", "llama3-70b", "--quiet",
            "--sizes", "1KiB:1GiB"]
    for key, path in files.items():
        args += [f"--{key}", str(path)]
    assert main(args) == 0
    return files


@pytest.fixture(scope="session")
def report(exported: dict[str, Path]) -> dict:
    return json.loads(exported["report"].read_text())


def report_validator():
    """A validator of report.schema.json that resolves its references to the bom and findings schemas."""
    import jsonschema
    from referencing import Registry, Resource

    folder = resources_dir() / "schema"
    schemas = [json.loads((folder / n).read_text()) for n in ("report.schema.json", "bom.schema.json",
                                                               "findings.schema.json")]
    registry = Registry().with_resources([(s["$id"], Resource.from_contents(s)) for s in schemas])
    jsonschema.Draft202012Validator.check_schema(schemas[0])
    return jsonschema.Draft202012Validator(schemas[0], registry=registry)
