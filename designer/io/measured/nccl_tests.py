"""nccl-tests logs: the output of ``all_reduce_perf``, ``all_gather_perf``, ``reduce_scatter_perf``,
``alltoall_perf``, ``broadcast_perf`` and ``sendrecv_perf`` (NVIDIA/nccl-tests, ``src/common.cu``).

A run is the header (``# nThread 1 nGpus 1 minBytes ...``, then ``# Using devices`` and one
``#  Rank  r Group g Pid p on HOST device d [bus] NAME`` line per rank; older versions print no
``Group``), the table (``size count type redop root time algbw busbw #wrong`` for out-of-place, then
the same for in-place; versions before 2.10 have no ``root`` column and print the largest error instead
of ``#wrong``) and ``# Avg bus bandwidth : X``. Logs hold several runs one after the other; lines of
``NCCL_DEBUG=INFO``, MPI and UCX are skipped; MPI output prefixes (``[1,0]<stdout>:``, srun's ``3: ``)
are removed; CRLF line ends are read as LF. Times are microseconds, bandwidths GB/s (1e9 bytes/s).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from designer.analysis.measured.runs import PERF_BINARIES, Measure, NcclRun, RankInfo, SizeRow
from designer.io.measured import MeasuredFileError, read_measurement
from designer.model.units import count, size

#: The largest log read (a run of 4,096 ranks with NCCL_DEBUG=INFO is a few MiB).
MAX_LOG_BYTES = 64 * 1024 * 1024
GB = 1e9
US = 1e-6

_TAG = re.compile(r"^\s*(?:\[\d+,\d+\]<std(?:out|err)>:\s?|\d+:\s)")
_HOST_TAG = re.compile(r"^[\w.\-]+:\s+(?=#|\s*\d+\s+\d+\s+[A-Za-z])")
_STARTING = re.compile(r"^#\s*Collective test starting:\s*(\w+)")
_BINARY = re.compile(r"\b(" + "|".join(PERF_BINARIES) + r")\b")
_NTHREAD = re.compile(r"^#\s*nThread\s+(\d+)\s+nGpus\s+(\d+)")
_RANK = re.compile(r"^#\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)"
                   r"\s+\[[^\]]*\]\s*(.*)$")
_AVG = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*(\S+)")
_OOB = re.compile(r"^#\s*Out of bounds values\s*:\s*(\d+)\s+(\w+)")
_ROW = re.compile(r"^\s*\d+\s+\d+\s+[A-Za-z]")


@dataclass
class _Open:
    """A run being read."""

    line: int
    collective: str | None
    collective_from: str
    n_threads: int = 1
    n_gpus: int = 1
    ranks: list[RankInfo] = field(default_factory=list)
    columns: list[str] | None = None
    rows: list[SizeRow] = field(default_factory=list)
    avg: float | None = None
    last_row_line: int = 0


def _clean(line: str) -> str:
    line = _TAG.sub("", line, count=1)
    return _HOST_TAG.sub("", line, count=1).rstrip()


def _collective_of_name(name: str) -> str | None:
    m = _BINARY.search(name)
    return PERF_BINARIES[m.group(1)] if m else None


def read_nccl_tests(path: str | os.PathLike[str], collective: str | None = None) -> list[NcclRun]:
    """The runs of an nccl-tests log (``-``: standard input); ``collective`` names the collective when
    the log does not (logs of nccl-tests before 2.13 print no "Collective test starting" line).

    Raises :class:`MeasuredFileError` for a file with no run, a table cut short, a row whose values
    failed nccl-tests' check (#wrong > 0, or "Out of bounds values: N FAILED").
    """
    text, source = read_measurement(path, MAX_LOG_BYTES)
    return parse_nccl_tests(text, source, collective)


def parse_nccl_tests(text: str, source: str, collective: str | None = None) -> list[NcclRun]:
    """:func:`read_nccl_tests` on text already read."""
    runs: list[NcclRun] = []
    cur: _Open | None = None
    hinted: tuple[str, str] | None = None  # (collective, how it was known) before the next run
    from_name = _collective_of_name(Path(source).name)
    for n, raw_line in enumerate(text.splitlines(), start=1):
        line = _clean(raw_line)
        m = _STARTING.match(line)
        if m:
            if cur is not None:
                runs.append(_close(cur, source))
                cur = None
            coll = PERF_BINARIES.get(m.group(1))
            if coll is None:
                raise MeasuredFileError(f"{source}: line {n}: {m.group(1)!r} is not an nccl-tests binary the "
                                        f"designer compares ({', '.join(PERF_BINARIES)})")
            hinted = (coll, "the log")
            continue
        m = _NTHREAD.match(line)
        if m:
            if cur is not None:
                runs.append(_close(cur, source))
            if collective is not None:
                coll, how = collective, "--collective"
            elif hinted is not None:
                coll, how = hinted
            elif from_name is not None:
                coll, how = from_name, "the file name"
            else:
                coll, how = None, ""
            cur = _Open(n, coll, how, int(m.group(1)), int(m.group(2)))
            hinted = None
            continue
        if cur is None:
            if not line.startswith("#"):
                coll = _collective_of_name(line)
                if coll is not None:
                    hinted = (coll, "the command line in the log")
            continue
        _read_line(cur, line, n, source)
        if cur.avg is not None:
            runs.append(_close(cur, source))
            cur = None
    if cur is not None:
        runs.append(_close(cur, source))
    if not runs:
        raise MeasuredFileError(f"{source}: no nccl-tests run found (no '# nThread ... nGpus ...' header)")
    return runs


def _read_line(cur: _Open, line: str, n: int, source: str) -> None:
    """One line inside a run: a rank, the column header, a table row, the summary."""
    m = _RANK.match(line)
    if m:
        cur.ranks.append(RankInfo(int(m.group(1)), m.group(2), int(m.group(3)), m.group(4).strip()))
        return
    if line.startswith("#"):
        words = line.lstrip("#").split()
        if words[:2] == ["size", "count"]:
            cur.columns = words
            return
        m = _OOB.match(line)
        if m and (int(m.group(1)) > 0 or m.group(2).upper() != "OK"):
            raise MeasuredFileError(f"{source}: line {n}: {count(int(m.group(1)), 'value')} out of bounds "
                                    f"({m.group(2)}): the run failed nccl-tests' check, its figures are not a "
                                    "measurement")
        m = _AVG.match(line)
        if m:
            try:
                cur.avg = float(m.group(1)) * GB
            except ValueError:
                raise MeasuredFileError(f"{source}: line {n}: average bus bandwidth {m.group(1)!r} is not a "
                                        "number") from None
        return
    if _ROW.match(line):
        cur.rows.append(_row(cur, line, n, source))
        cur.last_row_line = n


def _number(tok: str, what: str, where: str) -> float:
    try:
        v = float(tok)
    except ValueError:
        raise MeasuredFileError(f"{where}: {what} {tok!r} is not a number") from None
    if not v >= 0 or v == float("inf"):
        raise MeasuredFileError(f"{where}: {what} {tok!r} is not a non-negative number")
    return v


def _half(toks: list[str], error_col: bool, where: str, size_bytes: int) -> Measure:
    time_us = _number(toks[0], "time", where)
    algbw = _number(toks[1], "algbw", where)
    busbw = _number(toks[2], "busbw", where)
    wrong: int | None
    max_err = None
    if toks[3].upper() == "N/A":
        wrong = None
    elif error_col:
        max_err = _number(toks[3], "error", where)
        wrong = 0
    else:
        try:
            wrong = int(toks[3])
        except ValueError:
            raise MeasuredFileError(f"{where}: #wrong {toks[3]!r} is not a whole number") from None
        if wrong > 0:
            raise MeasuredFileError(f"{where}: {count(wrong, 'wrong value')} at {size(size_bytes)}: the run failed "
                                    "nccl-tests' check, its figures are not a measurement")
    if time_us <= 0:
        raise MeasuredFileError(f"{where}: time {toks[0]} us is not positive")
    return Measure(time_us * US, algbw * GB, busbw * GB, wrong, max_err)


def _row(cur: _Open, line: str, n: int, source: str) -> SizeRow:
    where = f"{source}: line {n}"
    toks = line.split()
    cols = cur.columns or []
    pre = cols[: cols.index("time")] if "time" in cols else []
    if not pre:  # no header seen: size count type, then redop and root when the row has room for them
        pre = ["size", "count", "type"] + (["redop", "root"] if len(toks) >= 13 else ["redop"] if len(toks) == 12
                                            else [])
    error_col = "error" in cols
    k = len(pre)
    if len(toks) < k + 4 or (len(toks) < k + 8 and len(toks) != k + 4):
        raise MeasuredFileError(f"{where}: truncated table row ({len(toks)} fields, expected {k + 8}): the log is "
                                "cut short or garbled")
    size_bytes = int(toks[0])
    cnt = int(toks[1])
    if size_bytes <= 0:
        raise MeasuredFileError(f"{where}: message size {size_bytes} is not positive")
    named = dict(zip(pre, toks[:k], strict=True))
    root = None
    if "root" in named:
        try:
            root = int(named["root"])
        except ValueError:
            raise MeasuredFileError(f"{where}: root {named['root']!r} is not a whole number") from None
    oop = _half(toks[k:k + 4], error_col, where, size_bytes)
    inp = _half(toks[k + 4:k + 8], error_col, where, size_bytes) if len(toks) >= k + 8 else None
    return SizeRow(n, size_bytes, cnt, named.get("type", ""), named.get("redop"), root, oop, inp)


def _infer_collective(rows: list[SizeRow], p: int) -> str | None:
    """The collective whose nccl-tests bus factor (busbw / algbw: 2(p-1)/p all-reduce, (p-1)/p all-gather,
    reduce-scatter and all-to-all, 1 broadcast and sendrecv) the table shows, when only one fits; None else.

    Only rows with algbw of 1 GB/s or more count (the table prints two decimals).
    """
    if p < 2:
        return None
    ratios = [m.busbw_bytes_per_s / m.algbw_bytes_per_s for r in rows for m in (r.out_of_place,)
              if m.algbw_bytes_per_s >= GB]
    if not ratios:
        return None
    ratio = sorted(ratios)[len(ratios) // 2]
    redop = rows[0].redop
    if abs(ratio - 2.0 * (p - 1) / p) < 0.01:
        return "allreduce"
    if abs(ratio - (p - 1) / p) < 0.01 and p > 2:
        return "reducescatter" if redop not in (None, "none") else None
    return None


def _close(cur: _Open, source: str) -> NcclRun:
    where = f"{source}: line {cur.line}"
    if not cur.rows:
        raise MeasuredFileError(f"{where}: the run has no table rows: the log is cut short or the run failed")
    if cur.avg is None:
        raise MeasuredFileError(f"{source}: line {cur.last_row_line}: the table ends without nccl-tests' 'Avg bus "
                                "bandwidth' line: the log is cut short (or the run failed there)")
    if not cur.ranks:
        raise MeasuredFileError(f"{where}: the run lists no ranks ('# Using devices' and its 'Rank' lines)")
    ranks = tuple(sorted(cur.ranks, key=lambda r: r.rank))
    if [r.rank for r in ranks] != list(range(len(ranks))):
        raise MeasuredFileError(f"{where}: the 'Rank' lines do not number the ranks 0..{len(ranks) - 1}")
    if cur.collective is None:
        cur.collective = _infer_collective(cur.rows, len(ranks))
        cur.collective_from = "the table's busbw / algbw ratio"
    if cur.collective is None:
        raise MeasuredFileError(f"{where}: the log does not say which collective it measured (no 'Collective test "
                                f"starting' line, no *_perf name in it or in the file name): give --collective")
    return NcclRun(source, cur.line, cur.collective, cur.collective_from, ranks, tuple(cur.rows), cur.avg,
                   cur.n_threads, cur.n_gpus)
