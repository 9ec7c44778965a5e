"""What a measurement is, whatever file it came from: nccl-tests runs and port-counter samples.

Units: bytes, seconds, bytes/s (nccl-tests prints GB/s of 1e9 bytes per second and times in
microseconds; the reader converts). A counter sample holds the counters as the device gives them;
:mod:`designer.analysis.measured.ports` turns two samples into bytes/s per port and direction.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: nccl-tests binaries and the collective each measures (the designer's names, ``times.COLLECTIVES``);
#: sendrecv is each rank sending to the next and receiving from the previous one at once.
PERF_BINARIES = {
    "all_reduce_perf": "allreduce",
    "all_gather_perf": "allgather",
    "reduce_scatter_perf": "reducescatter",
    "alltoall_perf": "alltoall",
    "broadcast_perf": "broadcast",
    "sendrecv_perf": "sendrecv",
}
#: Collectives a run may hold (the designer's names).
MEASURED_COLLECTIVES = tuple(PERF_BINARIES.values())


@dataclass(frozen=True)
class RankInfo:
    """One line of the "Using devices" header: rank, host, local CUDA device, GPU name."""

    rank: int
    host: str
    device: int
    gpu_name: str = ""


@dataclass(frozen=True)
class Measure:
    """One half of a table row (out-of-place or in-place): time (s), algbw and busbw (bytes/s),
    ``wrong`` the #wrong count (None: validation off, ``N/A``; old logs print a max error, then
    ``wrong`` is 0 when it is small and the error in ``max_error``)."""

    time_s: float
    algbw_bytes_per_s: float
    busbw_bytes_per_s: float
    wrong: int | None = 0
    max_error: float | None = None


@dataclass(frozen=True)
class SizeRow:
    """One line of an nccl-tests table: message size (bytes), element count and type, reduction
    operation and root (None when the log has no such column), out-of-place and in-place figures."""

    line: int
    size_bytes: int
    count: int
    dtype: str
    redop: str | None
    root: int | None
    out_of_place: Measure
    in_place: Measure | None

    @property
    def best(self) -> Measure:
        """The faster of the two halves (nccl-tests' own "Avg bus bandwidth" averages both)."""
        if self.in_place is None or self.out_of_place.time_s <= self.in_place.time_s:
            return self.out_of_place
        return self.in_place

    @property
    def wrong(self) -> int:
        return sum(m.wrong or 0 for m in (self.out_of_place, self.in_place) if m is not None)


@dataclass(frozen=True)
class NcclRun:
    """One nccl-tests run: the collective, the ranks and hosts, the table, the average bus bandwidth.

    ``source`` is the file, ``line`` the line where the run starts; ``collective_from`` says how the
    collective was known (the log's own "Collective test starting" line, the binary named in it, the
    file name, or the user).
    """

    source: str
    line: int
    collective: str
    collective_from: str
    ranks: tuple[RankInfo, ...]
    rows: tuple[SizeRow, ...]
    avg_busbw_bytes_per_s: float | None = None
    n_threads: int = 1
    n_gpus: int = 1
    notes: tuple[str, ...] = ()

    @property
    def n_ranks(self) -> int:
        return len(self.ranks)

    @property
    def hosts(self) -> tuple[str, ...]:
        """Host names in the order of their first rank."""
        seen: dict[str, None] = {}
        for r in self.ranks:
            seen.setdefault(r.host, None)
        return tuple(seen)

    @property
    def label(self) -> str:
        return f"{self.source}:{self.line}"


@dataclass
class PortCounters:
    """The counters of one port at one moment, as a device reports them.

    ``node`` names the device as the source does (a GUID ``0x...``, a host or switch name), ``port`` its
    port number (None for a device-wide figure such as a GPU's NVLink total). ``values`` hold the raw
    counters by their canonical names (:data:`designer.io.measured.counters.CANONICAL`), ``widths`` the
    bits of each (32 or 64; a 32-bit InfiniBand counter saturates at its maximum instead of wrapping),
    ``time_s`` the moment (None: not in the source).
    """

    source: str
    line: int
    node: str
    port: int | None
    values: dict[str, float] = field(default_factory=dict)
    widths: dict[str, int] = field(default_factory=dict)
    time_s: float | None = None
    node_name: str = ""
