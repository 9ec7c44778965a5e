"""Time and peak memory to import a large ibnetdiscover dump (prints figures; not a test).

    .venv/bin/python benchmarks/bench_import.py            # 100 leaves x 100 spines, 1,500 adapters
    .venv/bin/python benchmarks/bench_import.py 200 200 30 # leaves, spines, hosts per leaf

The dump is made here: ``leaves`` leaf switches, each cabled to every one of ``spines`` spine
switches and to ``hosts`` single-adapter hosts, all at 4xNDR, in ibnetdiscover's text. Each size
runs in its own process so its peak resident memory is its own. CPU time (user + system) is
printed beside wall time: on a shared machine the CPU figure is the one to compare.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def dump(leaves: int, spines: int, hosts: int) -> bytes:
    """An ibnetdiscover dump of a two-tier fat tree with single-adapter hosts."""
    lines = []
    for s in range(spines):
        lines.append(f'switchguid=0x{0x100000 + s:x}\nSwitch\t{leaves} "S-{0x100000 + s:016x}"\t# "spine{s}" lid {s}')
        for lf in range(leaves):
            lines.append(f'[{lf + 1}]\t"S-{0x200000 + lf:016x}"[{s + 1 + hosts}]\t# "leaf{lf}" lid 1 4xNDR')
    for lf in range(leaves):
        lines.append(f'switchguid=0x{0x200000 + lf:x}\nSwitch\t{hosts + spines} "S-{0x200000 + lf:016x}"'
                     f'\t# "leaf{lf}" lid {lf}')
        for h in range(hosts):
            lines.append(f'[{h + 1}]\t"H-{0x300000 + lf * 1000 + h:016x}"[1]\t# "n{lf}-{h} HCA-1" lid 1 4xNDR')
        for s in range(spines):
            lines.append(f'[{s + 1 + hosts}]\t"S-{0x100000 + s:016x}"[{lf + 1}]\t# "spine" lid 1 4xNDR')
    for lf in range(leaves):
        for h in range(hosts):
            lines.append(f'Ca\t1 "H-{0x300000 + lf * 1000 + h:016x}"\t# "n{lf}-{h} HCA-1"')
            lines.append(f'[1]\t"S-{0x200000 + lf:016x}"[{h + 1}]\t# lid 1 lmc 0 "leaf" lid 1 4xNDR')
    return "\n".join(lines).encode()


def child(leaves: int, spines: int, hosts: int) -> None:
    sys.path.insert(0, str(ROOT))
    from designer.io.importers import ImportOptions, import_bytes

    raw = dump(leaves, spines, hosts)
    before = resource.getrusage(resource.RUSAGE_SELF)
    t = time.perf_counter()
    design, report = import_bytes(raw, "big.ibnet", ImportOptions())
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(json.dumps({"mib": len(raw) / 2**20, "switches": report.read["switches"],
                      "adapters": report.read["adapters"], "links": design.link_count(), "wall_s": wall,
                      "cpu_s": cpu, "peak_mib": after.ru_maxrss / 1024}))


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        child(*(int(a) for a in argv[1:4]))
        return 0
    leaves, spines, hosts = (int(a) for a in argv[:3]) if len(argv) >= 3 else (100, 100, 15)
    out = subprocess.run([sys.executable, __file__, "--child", str(leaves), str(spines), str(hosts)],
                         capture_output=True, text=True, check=True)
    r = json.loads(out.stdout)
    print(f"{'dump MiB':>8} {'switches':>8} {'adapters':>8} {'links':>7} {'wall s':>7} {'cpu s':>7} {'peak MiB':>8}")
    print(f"{r['mib']:>8.1f} {r['switches']:>8,} {r['adapters']:>8,} {r['links']:>7,} {r['wall_s']:>7.2f} "
          f"{r['cpu_s']:>7.2f} {r['peak_mib']:>8.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
