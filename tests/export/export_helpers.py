"""Export tests' helpers: the sample design, the picture width asked for, the report's schema validator."""

from __future__ import annotations

import json
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from designer.model.shipped import resources_dir, sample_designs_dir  # noqa: E402

SAMPLE = sample_designs_dir() / "superpod-h100-1su.json"
PNG_WIDTH = 1200


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
