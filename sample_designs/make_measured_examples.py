"""Write the example measurements of the tour: an nccl-tests log and two port-counter samples of
``superpod-h100-1su.json``, in ``sample_designs/measured/``. They are EXAMPLES, not measurements.

The story they tell: two servers (su1-node1, su1-node2) ran ``all_reduce_perf`` while the rail-3 NIC of
su1-node2 had trained down to 200 Gb/s and its cable was taking symbol errors. The log's times are the
designer's own prediction on a copy of the design with that NIC at 200G (small messages 25% slower, as
per-call overhead usually makes them); the counter samples, 60 s apart in infiniband_exporter's format,
carry that run's NIC traffic, the 200G rate the adapter reports and 7 new symbol errors. ``topo-designer
compare`` on them finds the gap, the half-rate NIC and the failing link.

Usage: python sample_designs/make_measured_examples.py [--check]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from designer.analysis.collectives.times import bus_factor, collective_times  # noqa: E402
from designer.analysis.fabric.context import build_context  # noqa: E402
from designer.io import load_design  # noqa: E402
from designer.model import PortGroup  # noqa: E402

HERE = Path(__file__).resolve().parent
DESIGN = HERE / "superpod-h100-1su.json"
OUT = HERE / "measured"
HOSTS = ("su1-node1", "su1-node2")
SLOW_NIC = "su1-node2-nic3"
SIZES = [8 << (2 * k) for k in range(15)]  # 8 B .. 2 GiB, every power of 4
RUN_BUSBW = 23.5e9  # bytes/s each rail NIC carries each way while the 1 GiB all-reduce runs (the log's figure)
NOTE = ("EXAMPLE made by sample_designs/make_measured_examples.py from the designer's own model, with "
        f"{SLOW_NIC} at 200G: not a measurement")


def _log() -> str:
    design = load_design(DESIGN)
    nic = design.device(SLOW_NIC)
    design.set_device_field(SLOW_NIC, "ports", tuple(
        PortGroup(g.prefix, g.count, 200.0, g.kind) if g.kind == "network" else g for g in nic.ports))
    ctx = build_context(design)
    gpus = [f"{h}-gpu{i}" for h in HOSTS for i in range(1, 9)]
    res = collective_times(ctx, "allreduce", sizes=SIZES, members=gpus)
    chosen = {r.message_bytes: r for r in res.rows if r.selected}
    p = len(gpus)
    lines = [f"# {NOTE}", "# nccl-tests version 2.17.8 nccl-headers=22902 nccl-library=22902",
             "# Collective test starting: all_reduce_perf",
             "# nThread 1 nGpus 1 minBytes 8 maxBytes 2147483648 step: 4(factor) warmup iters: 5 iters: 20 "
             "agg iters: 1 validation: 1 graph: 0", "#", "# Using devices"]
    for rank in range(len(gpus)):
        host, dev = HOSTS[rank // 8], rank % 8
        lines.append(f"#  Rank {rank:2d} Group  0 Pid {4000 + rank:6d} on {host} device {dev:2d} "
                     f"[0000:{16 * dev + 27:02x}:00] NVIDIA H100 80GB HBM3")
    lines += ["#", "#" + " " * 62 + "out-of-place" + " " * 23 + "in-place",
              "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw "
              "  busbw #wrong",
              "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s) "
              " (GB/s)"]
    total = 0.0
    for s in SIZES:
        r = chosen[s]
        t = r.time_s * (1.25 if s < (1 << 20) else 1.0)
        algbw = s / t / 1e9
        busbw = algbw * bus_factor("allreduce", p)
        total += busbw
        half = f"{t * 1e6:8.1f} {algbw:7.2f} {busbw:7.2f}      0"
        lines.append(f"{s:12d}  {s // 4:12d}     float     sum      -1 {half} {half}")
    lines += ["# Out of bounds values : 0 OK", f"# Avg bus bandwidth    : {total / len(SIZES):.4f} ", "#",
              "# Collective test concluded: all_reduce_perf", ""]
    return "\n".join(lines)


def _counters(seconds: float) -> str:
    """infiniband_exporter samples of the 16 rail NICs at ``seconds`` into the run (time stamps in ms)."""
    stamp = int((1_767_225_600 + seconds) * 1000)
    nics = [f"{h}-nic{i}" for h in HOSTS for i in range(1, 9)]
    guid = {n: f"0x0000c0ffee{k + 1:06x}" for k, n in enumerate(nics)}
    out = [f"# {NOTE}", "# HELP infiniband_hca_info Infiniband HCA information", "# TYPE infiniband_hca_info gauge"]
    out += [f'infiniband_hca_info{{guid="{guid[n]}",hca="{n}",lid="{k + 1}"}} 1' for k, n in enumerate(nics)]
    for metric in ("transmit_data_bytes", "receive_data_bytes"):
        name = f"infiniband_hca_port_{metric}_total"
        out += [f"# TYPE {name} counter"]
        out += [f'{name}{{guid="{guid[n]}",port="1"}} {int(5e12 + RUN_BUSBW * seconds)} {stamp}' for n in nics]
    name = "infiniband_hca_port_symbol_error_total"
    out += [f"# TYPE {name} counter"]
    out += [f'{name}{{guid="{guid[n]}",port="1"}} {7 if n == SLOW_NIC and seconds else 0} {stamp}' for n in nics]
    out += ["# TYPE infiniband_hca_rate_bytes_per_second gauge"]
    out += [f'infiniband_hca_rate_bytes_per_second{{guid="{guid[n]}"}} {2.5e10 if n == SLOW_NIC else 5e10:.3g}'
            for n in nics]
    return "\n".join(out) + "\n"


def files() -> dict[str, str]:
    return {"example-all_reduce-2nodes.log": _log(), "example-counters-t0.prom": _counters(0.0),
            "example-counters-t60.prom": _counters(60.0)}


def main(argv: list[str]) -> int:
    made = files()
    if "--check" in argv:
        stale = [n for n, text in made.items() if not (OUT / n).is_file() or (OUT / n).read_text() != text]
        for n in stale:
            print(f"measured/{n}: differs: run python sample_designs/make_measured_examples.py")
        return 1 if stale else 0
    OUT.mkdir(exist_ok=True)
    for n, text in made.items():
        (OUT / n).write_text(text, encoding="utf-8")
        print(f"wrote measured/{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
