"""Time and peak memory of the command line on hostile inputs: every refusal, one process each.

Usage: python benchmarks/bench_hostile.py [--quick] [--refusals]
(--quick: 64 MiB files instead of ~250 MiB; --refusals: only the small-file cases below, not the floods)

Cases, each in its own process (peak resident memory is that process's ru_maxrss):

- ``/dev/zero``: a device, refused before it is read.
- ``stdin stream``: 300 MiB piped to ``validate -``; the bounded reader stops one byte past 256 MiB.
- ``key flood``: one ``design.properties`` object with ~12 million keys, just under the limit;
  measured before parsing and refused.
- ``array flood``: ``[]`` repeated in a free-form property, just under the limit (the densest
  JSON in objects per byte that the member limit does not stop).
- small files that would cost big work, refused from the counts they state: a 35-byte Slurm line
  naming a million nodes, a GML file declaring a million nodes, a SimAI header declaring 999,999,
  ``sweep --check`` of a grid at the 1,000,000-point limit (runs: it samples five points);
- readers that could hang: a named pipe with no writer as a design, a workload, a sweep spec, a
  catalog and an imported file; ``--catalog /dev/zero``;
- values ``validate`` refuses so that no command trips on them: a lone surrogate in a name, a
  ``rail`` of 10**30, a custom ``power_w`` of ``"abc"``, ``x`` = 1e308;
- an output that is the command's own input (``analyze d.json --json d.json``).

Figures are printed, not asserted: this is a benchmark, not a timed test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from designer.io.design_tables import table_records  # noqa: E402

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


def run(label: str, args: list[str], stdin_bytes: int = 0, command: str = "validate") -> None:
    cmd = [sys.executable, "-c", CHILD, *([command] if command else []), *args]
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


def design_with(folder: Path, name: str, change) -> str:  # noqa: ANN001
    data = json.loads((ROOT / "sample_designs" / "hgx-h100-server.json").read_text())
    data["devices"] = table_records(data["devices"], "devices")  # a list of records reads as the rows did
    change(data)
    path = folder / name
    path.write_text(json.dumps(data))
    return str(path)


def refusals(folder: Path) -> None:
    """The small-file cases: each a refusal (or, for sweep --check, a run) within seconds."""
    print("small files, big work; readers that could hang; values validate refuses; outputs over inputs")
    (folder / "topology.conf").write_text("SwitchName=s1 Nodes=node[0-999999]\n")
    run("slurm node[0-999999] (35 B)", ["import", str(folder / "topology.conf"), "-o", str(folder / "o.json")],
        command="")
    with open(folder / "big.gml", "w") as fh:
        fh.write("graph [\n" + "".join(f"node [ id {i} ]\n" for i in range(1_000_000)) + "]\n")
    run("GML of 10^6 nodes (18 MB)", ["import", str(folder / "big.gml"), "-o", str(folder / "o.json")], command="")
    (folder / "simai.txt").write_text("999999 8 1 1 0 H100\n999998\n")
    run("SimAI header 999,999 nodes", ["import", str(folder / "simai.txt"), "--format", "simai", "-o",
                                       str(folder / "o.json")], command="")
    side = list(range(1, 1001))
    (folder / "spec.json").write_text(json.dumps({"generator": "leaf-spine", "parameters": {
        "leaves": side, "hosts_per_leaf": side}}))
    run("sweep --check, 10^6 points", ["sweep", str(folder / "spec.json"), "-o", str(folder / "r.csv"), "--check"],
        command="")
    fifo = folder / "pipe.json"
    os.mkfifo(fifo)
    server = str(ROOT / "sample_designs" / "hgx-h100-server.json")
    for label, argv in (("FIFO as design", ["validate", str(fifo)]),
                        ("FIFO as workload", ["analyze", server, "--workload", str(fifo)]),
                        ("FIFO as sweep spec", ["sweep", str(fifo), "-o", str(folder / "r.csv"), "--check"]),
                        ("FIFO as catalog", ["--catalog", str(fifo), "bom", server]),
                        ("FIFO as import", ["import", str(fifo), "-o", str(folder / "o.json")]),
                        ("--catalog /dev/zero", ["--catalog", "/dev/zero", "bom", server])):
        run(label, argv, command="")
    for label, change in (("lone surrogate in a name", lambda d: d["devices"][0].update(name="bad\ud800x")),
                          ("rail 10**30", lambda d: d["devices"][0].setdefault("properties", {}).update(rail=10**30)),
                          ("power_w 'abc'", lambda d: d["devices"][0].setdefault("properties", {}).update(
                              power_w="abc")),
                          ("x = 1e308", lambda d: d["devices"][0].update(x=1e308))):
        run(label, [design_with(folder, "v.json", change)])
    design = design_with(folder, "d.json", lambda d: None)
    run("analyze d.json --json d.json", ["analyze", design, "--json", design], command="")


def main() -> None:
    quick = "--quick" in sys.argv
    if "--refusals" in sys.argv:
        with tempfile.TemporaryDirectory() as folder:
            refusals(Path(folder))
        return
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
        os.unlink(arrays)
        refusals(Path(folder))


if __name__ == "__main__":
    main()
