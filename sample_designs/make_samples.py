"""Regenerate the sample designs in this folder from the generators (deterministic).

Usage: python sample_designs/make_samples.py [--check]
--check writes nothing and exits 1 when a sample differs from what the generators build now.
Every sample must validate clean: the script exits 1 if the design rules find anything.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from designer.analysis.rules.check import check_design  # noqa: E402
from designer.generators.samples import SAMPLES, Sample  # noqa: E402
from designer.io import design_to_text, save_design  # noqa: E402
from designer.model import Design  # noqa: E402
from designer.model.catalog import Catalog  # noqa: E402


def write_samples(folder: str | Path, catalog: Catalog | None = None, *, check: bool = False,
                  build: Callable[[Sample], Design] | None = None) -> list[str]:
    """Write every sample to ``folder`` (or with ``check``, list the files that differ); return file names.

    ``build`` makes a sample's design (default: ``sample.build(catalog)``), e.g. from designs already built.
    """
    out = []
    for s in SAMPLES:
        design = build(s) if build is not None else s.build(catalog)
        path = Path(folder) / s.file
        if check:
            text = design_to_text(design)
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                out.append(s.file)
        else:
            save_design(design, path)
            out.append(s.file)
    return out


def main(argv: list[str]) -> int:
    folder = Path(__file__).resolve().parent
    if "--check" in argv:
        stale = write_samples(folder, check=True)
        for name in stale:
            print(f"{name}: differs from the generators: run python sample_designs/make_samples.py")
        return 1 if stale else 0
    status = 0
    for sample in SAMPLES:
        design = sample.build()
        findings = check_design(design)
        for f in findings:
            print(f"{sample.file}: {f.severity}: {f.message}")
            status = 1
    for name in write_samples(folder):
        print(f"wrote {name}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
