"""Time and peak memory of `topo-designer validate` on hostile inputs at the size limit.

Usage: python benchmarks/bench_hostile.py [--quick]   (--quick: 64 MiB files instead of ~250 MiB)

Cases, each in its own process (peak resident memory is that process's ru_maxrss):

- ``/dev/zero``: an endless device; the bounded reader stops one byte past 256 MiB.
- ``stdin stream``: 300 MiB piped to ``validate -``.
- ``key flood``: one ``design.properties`` object with ~12 million keys, just under the limit;
  measured before parsing and refused.
- ``array flood``: ``[]`` repeated in a free-form property, just under the limit (the densest
  JSON in objects per byte that the member limit does not stop).

Figures are printed, not asserted: this is a benchmark, not a timed test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAD = '{"format": "topo-designer-design", "version": 1, "design": {"name": "x", "description": "", "properties": '
TAIL = '}, "models": [], "groups": [], "devices": [], "links": []}\n'


def write_key_flood(path: Path, target_bytes: int) -> None:
    per_key = len('"k00000000": 1, ')
    n = (target_bytes - len(HEAD) - len(TAIL) - 2) // per_key
    with open(path, "w") as fh:
        fh.write(HEAD + "{")
        step = 1_000_000
        for start in range(0, n, step):
            fh.write(", ".join(f'"k{i:08d}": 1' for i in range(start, min(n, start + step))))
            if start + step < n:
                fh.write(", ")
        fh.write("}" + TAIL)


def write_array_flood(path: Path, target_bytes: int) -> None:
    n = (target_bytes - len(HEAD) - len(TAIL) - 16) // 3
    with open(path, "w") as fh:
        fh.write(HEAD + '{"a": [')
        chunk = "[]," * 1_000_000
        left = n
        while left > 1_000_000:
            fh.write(chunk)
            left -= 1_000_000
        fh.write("[]," * (left - 1) + "[]")
        fh.write("]}" + TAIL)


CHILD = (
    "import resource, sys\n"
    "from designer.cli import main\n"
    "rc = main(sys.argv[1:])\n"
    "print(f'peak-rss-kib {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}', file=sys.stderr)\n"
    "sys.exit(rc)\n"
)


def run(label: str, args: list[str], stdin_bytes: int = 0) -> None:
    cmd = [sys.executable, "-c", CHILD, "validate", *args]
    t0 = time.perf_counter()
    if stdin_bytes:
        feeder = subprocess.Popen(["head", "-c", str(stdin_bytes), "/dev/zero"], stdout=subprocess.PIPE)
        r = subprocess.run(cmd, stdin=feeder.stdout, capture_output=True, text=True, cwd=ROOT)
        feeder.stdout.close()
        feeder.wait()
    else:
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - t0
    lines = r.stderr.strip().splitlines()
    peak = int(lines.pop().split()[1]) / 1024
    message = lines[-1] if lines else r.stdout.strip().splitlines()[-1]
    print(f"{label:<28} exit {r.returncode}  {elapsed:6.1f} s  peak {peak:7,.0f} MiB  {message[:100]}")


def main() -> None:
    quick = "--quick" in sys.argv
    target = (64 if quick else 255) * 2**20
    print(f"validate on hostile inputs ({'quick, 64 MiB' if quick else 'at the 256 MiB limit'}); one process each")
    run("/dev/zero", ["/dev/zero"])
    run("300 MiB on standard input", ["-"], stdin_bytes=300 * 2**20)
    with tempfile.TemporaryDirectory() as folder:
        keys = Path(folder) / "key-flood.json"
        write_key_flood(keys, target)
        run(f"key flood ({keys.stat().st_size / 2**20:.0f} MiB)", [str(keys)])
        os.unlink(keys)
        arrays = Path(folder) / "array-flood.json"
        write_array_flood(arrays, target)
        run(f"array flood ({arrays.stat().st_size / 2**20:.0f} MiB)", [str(arrays)])


if __name__ == "__main__":
    main()
