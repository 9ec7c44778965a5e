"""Hostile input: cut, garbled and repeated copies of every real file import or are refused in one line."""

from __future__ import annotations

import random

import pytest
from import_helpers import DATA

from designer.io.importers import ImportFileError, import_bytes, import_file
from designer.model import DesignError

FILES = sorted(p for p in DATA.iterdir() if p.name != "NOTICE.md" and p.stat().st_size < 30_000)


def _mutate(raw: bytes, rng: random.Random) -> bytes:
    b = bytearray(raw)
    for _ in range(rng.randrange(1, 4)):
        if not b:
            break
        op = rng.choice(("cut", "flip", "dup", "del", "num"))
        i = rng.randrange(len(b))
        if op == "cut":
            del b[i:]
        elif op == "flip":
            for _ in range(rng.randrange(1, 20)):
                b[rng.randrange(len(b))] = rng.choice(b' []"{}:<>\n0123456789xq\t-&;=#*')
        elif op == "dup":
            b[i:i] = b[i:i + rng.randrange(400)]
        elif op == "num":
            b[i:i] = rng.choice((b"99999999", b"-1", b"0", b"1e309", b"nan", b"4097"))
        else:
            del b[i:i + rng.randrange(100)]
    return bytes(b)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_mutated_files_import_or_are_refused_in_one_line(path):
    rng = random.Random(path.name)
    raw = path.read_bytes()
    for _ in range(12):
        try:
            import_bytes(_mutate(raw, rng), path.name)
        except DesignError as e:
            assert "\n" not in str(e) and str(e).startswith(path.name) or "default rate" in str(e), str(e)


@pytest.mark.parametrize("source", ["/dev/null", "/dev/zero"])
def test_devices_are_refused_before_they_are_read(source):
    from designer.io.importers import ImportOptions

    with pytest.raises(ImportFileError, match=f"^{source}: a device, not a file to import"):
        import_file(source, ImportOptions(max_bytes=1 << 20))
