"""Sweep results: one row per point, written as points finish (CSV or Parquet), read back, Pareto marked.

Columns (:func:`columns`): the point's number and key, the generator, one column per parameter
the spec names, the workload, ``parameters`` (the point's parameters as JSON: what rebuilds its
design), ``status`` (``ok``, ``refused``: the generator or the workload refused the parameters,
``failed``: anything else, the worker lost...) and ``error``, then the metrics the spec asks for,
``seconds`` (evaluation time on the worker) and ``pareto``.

- **CSV** (``.csv``): a header, then one line per point appended and flushed as it arrives.
- **Parquet** (``.parquet``): row groups written as points arrive (every :data:`ROWS_PER_GROUP`
  rows or :data:`GROUP_SECONDS`), the footer when the run ends or is interrupted; beside it a
  journal (``RESULTS.parquet.journal.csv``, a CSV flushed per row) keeps every row should the
  process be killed before the footer is written. The journal is removed when the sweep completes.

When every point is done, :func:`finish` marks the Pareto front (cost against time to train with
a workload, against the collective time at the largest size without) and rewrites the file
atomically.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from designer.io.atomic import atomic_write_bytes, atomic_write_text
from designer.sweep.pareto import pareto_front
from designer.sweep.spec import Point, SweepError, SweepSpec

ROWS_PER_GROUP = 64
GROUP_SECONDS = 10.0
FORMATS = (".csv", ".parquet")
#: Statuses of a finished point (``--resume`` skips them); ``failed`` points run again.
FINISHED = ("ok", "refused")


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # int, float, bool, str


HEAD = (Column("point", "int"), Column("key", "str"), Column("generator", "str"))
STATUS = (Column("parameters", "str"), Column("status", "str"), Column("error", "str"),
          Column("gpus", "int"), Column("devices", "int"))
BOM = (Column("switches", "int"), Column("cables", "int"), Column("power_w", "float"), Column("cost_usd", "float"))
ANALYSIS = (Column("links", "int"),)
BISECTION = (Column("bisection_lower_bytes_per_s", "float"), Column("bisection_upper_bytes_per_s", "float"))
STEP = (Column("step_time_s", "float"), Column("gpu_idle_fraction", "float"), Column("mfu", "float"),
        Column("tokens_per_s", "float"), Column("time_to_train_s", "float"),
        Column("idle_cost_to_train_usd", "float"))
SERVING = (Column("ttft_s", "float"), Column("tpot_s", "float"), Column("output_tokens_per_s_per_gpu", "float"),
           Column("input_tokens_per_s_per_gpu", "float"), Column("network_share_ttft", "float"),
           Column("network_share_tpot", "float"), Column("serving_bound", "str"))
FAILURES = (Column("n1_classes", "int"), Column("n1_worst", "str"), Column("n1_gpus_cut_off", "int"),
            Column("n1_lost_bisection_bytes_per_s", "float"), Column("n1_added_step_s", "float"))
TAIL = (Column("seconds", "float"), Column("pareto", "bool"))
_METRIC_NAMES = {c.name for c in (*HEAD, *STATUS, *BOM, *ANALYSIS, *BISECTION, *STEP, *SERVING, *FAILURES, *TAIL)} | \
    {"workload"}
_PARAM_TYPES = {"int": "int", "float": "float", "bool": "bool"}


def param_column(name: str) -> str:
    """The column of generator parameter ``name`` (its own name unless a metric has it)."""
    return f"param_{name}" if name in _METRIC_NAMES else name


def collective_columns(collective: str, size_names: Sequence[str]) -> tuple[Column, ...]:
    out = []
    for name in size_names:
        p = f"{collective}_{name}"
        out += [Column(f"{p}_time_s", "float"), Column(f"{p}_busbw_bytes_per_s", "float"),
                Column(f"{p}_algorithm", "str")]
    return tuple(out)


def columns(spec: SweepSpec) -> tuple[Column, ...]:
    """The columns of a sweep's results, in order."""
    from designer.generators import GENERATORS

    gen = GENERATORS[spec.generator]
    out = list(HEAD)
    for name in spec.parameter_names:
        out.append(Column(param_column(name), _PARAM_TYPES.get(gen.param(name).type, "str")))
    if spec.workloads:
        out.append(Column("workload", "str"))
    out += STATUS
    s = spec.settings
    if "bom" in s.metrics:
        out += BOM
    if "bisection" in s.metrics or "collective" in s.metrics:
        out += ANALYSIS
    if "bisection" in s.metrics:
        out += BISECTION
    if "collective" in s.metrics:
        out += collective_columns(s.collective, s.size_names)
    if "step" in s.metrics:
        out += STEP
    if "serving" in s.metrics:
        out += SERVING
    if "failures" in s.metrics:
        out += FAILURES
    out += TAIL
    return tuple(out)


def base_row(point: Point) -> dict[str, Any]:
    """The columns a point has before it is evaluated: its number, key, generator and parameters."""
    row: dict[str, Any] = {"point": point.index, "key": point.key, "generator": point.generator}
    for name, value in point.params.items():
        row[param_column(name)] = value
    if point.workload_name:
        row["workload"] = point.workload_name
    row["parameters"] = point.parameters_json()
    return row


def error_row(point: Point, status: str, error: str) -> dict[str, Any]:
    """The row of a point that never returned (its worker was lost, the task could not run)."""
    row = base_row(point)
    row["status"], row["error"] = status, error
    return row


# --------------------------------------------------------------------------- text cells
def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _parse(text: str, kind: str) -> Any:
    if text == "":
        return None
    if kind == "int":
        return int(text)
    if kind == "float":
        return float(text)
    if kind == "bool":
        return text.lower() == "true"
    return text


def _guess(values: Iterable[str]) -> str:
    vals = [v for v in values if v != ""]
    for kind, test in (("bool", lambda v: v.lower() in ("true", "false")), ("int", int), ("float", float)):
        try:
            if vals and all(test(v) is not False for v in vals):
                return kind
        except ValueError:
            continue
    return "str"


def _csv_line(names: Sequence[str], row: dict[str, Any]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([_cell(row.get(n)) for n in names])
    return buf.getvalue()


def _csv_text(cols: Sequence[Column], rows: Iterable[dict[str, Any]]) -> str:
    names = [c.name for c in cols]
    return ",".join(names) + "\n" + "".join(_csv_line(names, r) for r in rows)


def _read_csv(path: Path, known: dict[str, str] | None = None) -> tuple[list[Column], list[dict[str, Any]]]:
    with open(path, newline="", encoding="utf-8") as f:
        text = f.read()
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]  # a line cut short by an interruption
    reader = csv.reader(io.StringIO(text))
    try:
        names = next(reader)
    except StopIteration:
        return [], []
    raw = [r for r in reader if len(r) == len(names)]
    types = {c.name: c.type for c in _all_known()}
    types.update(known or {})
    cols = [Column(n, types.get(n) or _guess(r[i] for r in raw)) for i, n in enumerate(names)]
    rows = []
    for r in raw:
        try:
            rows.append({c.name: _parse(v, c.type) for c, v in zip(cols, r, strict=True)})
        except ValueError:
            continue  # a damaged line
    return cols, rows


def _all_known() -> tuple[Column, ...]:
    return (*HEAD, *STATUS, *BOM, *ANALYSIS, *BISECTION, *STEP, *SERVING, *FAILURES, *TAIL,
            Column("workload", "str"))


# --------------------------------------------------------------------------- parquet
def _arrow_schema(cols: Sequence[Column]) -> Any:
    import pyarrow as pa

    kinds = {"int": pa.int64(), "float": pa.float64(), "bool": pa.bool_(), "str": pa.string()}
    return pa.schema([(c.name, kinds[c.type]) for c in cols])


def _arrow_table(cols: Sequence[Column], rows: Sequence[dict[str, Any]]) -> Any:
    import pyarrow as pa

    schema = _arrow_schema(cols)
    return pa.Table.from_pydict({c.name: [r.get(c.name) for r in rows] for c in cols}, schema=schema)


def _read_parquet(path: Path) -> tuple[list[Column], list[dict[str, Any]]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    back = {pa.int64(): "int", pa.float64(): "float", pa.bool_(): "bool", pa.string(): "str"}
    cols = [Column(f.name, back.get(f.type, "str")) for f in table.schema]
    return cols, table.to_pylist()


def journal_path(path: str | os.PathLike[str]) -> Path:
    return Path(f"{os.fspath(path)}.journal.csv")


def results_format(path: str | os.PathLike[str]) -> str:
    """``.csv`` or ``.parquet`` from the file name; SweepError for anything else."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise SweepError(f"{os.fspath(path)}: results are written as .csv or .parquet, not {suffix or 'no suffix'}")
    return suffix


def read_results(path: str | os.PathLike[str]) -> tuple[list[Column], list[dict[str, Any]]]:
    """The columns and rows of a results file (a Parquet file cut short is read from its journal)."""
    p = Path(path)
    fmt = results_format(p)
    journal = journal_path(p)
    if not p.exists() and not (fmt == ".parquet" and journal.exists()):
        raise SweepError(f"{p}: no such results file")
    try:
        if fmt == ".csv":
            return _read_csv(p)
        cols: list[Column] = []
        rows: list[dict[str, Any]] = []
        with contextlib.suppress(Exception):  # no footer: the run was killed; the journal has the rows
            cols, rows = _read_parquet(p)
        if journal.exists():
            jcols, jrows = _read_csv(journal, {c.name: c.type for c in cols})
            seen = {r.get("key") for r in jrows}
            rows = jrows + [r for r in rows if r.get("key") not in seen]
            cols = cols or jcols
        if not cols:
            raise SweepError(f"{p}: not a readable Parquet file")
        return cols, rows
    except OSError as e:
        raise SweepError(f"{p}: cannot read: {e.strerror or e}") from None
    except (UnicodeDecodeError, csv.Error) as e:
        raise SweepError(f"{p}: not a results file: {e}") from None


# --------------------------------------------------------------------------- writing as points arrive
class Sink:
    """Writes rows as they arrive; :meth:`close` leaves a readable file whatever happened."""

    def __init__(self, path: str | os.PathLike[str], cols: Sequence[Column], rows: Sequence[dict[str, Any]] = ()
                 ) -> None:
        self.path = Path(path)
        self.cols = tuple(cols)
        self.names = [c.name for c in cols]
        self.format = results_format(self.path)
        self._pending: list[dict[str, Any]] = []
        self._last_group = time.monotonic()
        self._writer: Any = None
        csv_path = self.path if self.format == ".csv" else journal_path(self.path)
        # the rows kept from an earlier run, written whole and atomically before appending
        atomic_write_text(csv_path, _csv_text(self.cols, rows))
        self._csv = open(csv_path, "a", newline="", encoding="utf-8")  # noqa: SIM115 - closed by close()
        if self.format == ".parquet":
            import pyarrow.parquet as pq

            self._writer = pq.ParquetWriter(self.path, _arrow_schema(self.cols))
            if rows:
                self._writer.write_table(_arrow_table(self.cols, list(rows)))

    def write(self, row: dict[str, Any]) -> None:
        self._csv.write(_csv_line(self.names, row))
        self._csv.flush()
        if self._writer is not None:
            self._pending.append(row)
            if len(self._pending) >= ROWS_PER_GROUP or time.monotonic() - self._last_group >= GROUP_SECONDS:
                self._flush_group()

    def _flush_group(self) -> None:
        if self._pending:
            self._writer.write_table(_arrow_table(self.cols, self._pending))
            self._pending = []
        self._last_group = time.monotonic()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._csv.close()
        if self._writer is not None:
            try:
                self._flush_group()
            finally:
                self._writer.close()
                self._writer = None


# --------------------------------------------------------------------------- the Pareto front
def pareto_axes(names: Iterable[str]) -> tuple[str, str] | None:
    """The columns the front is drawn on: (cost, time to train), with serving workloads only (cost, time
    per output token), or (cost, collective time at the largest size) without a workload; None when the
    results have no cost."""
    names = list(names)
    if "cost_usd" not in names:
        return None
    if "time_to_train_s" in names:
        return "cost_usd", "time_to_train_s"
    if "tpot_s" in names:
        return "cost_usd", "tpot_s"
    times = [n for n in names if n.endswith("_time_s") and n != "step_time_s" and not n.startswith("n1_")]
    if not times:
        return None
    return "cost_usd", times[-1]  # sizes are in increasing order


def mark_pareto(names: Sequence[str], rows: Sequence[dict[str, Any]]) -> None:
    """Set ``pareto`` on every row: True on the front of its workload, False off it, None when not ok."""
    axes = pareto_axes(names)
    groups: dict[Any, list[dict[str, Any]]] = {}
    for r in rows:
        r["pareto"] = None
        if axes is not None and r.get("status") == "ok":
            groups.setdefault(r.get("workload"), []).append(r)
    if axes is None:
        return
    x, y = axes
    for members in groups.values():
        pts = [(_num(r.get(x)), _num(r.get(y))) for r in members]
        for r, on in zip(members, pareto_front(pts), strict=True):
            r["pareto"] = on


def _num(v: Any) -> float:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan


def finish(path: str | os.PathLike[str], cols: Sequence[Column], rows: list[dict[str, Any]]) -> None:
    """Mark the Pareto front and rewrite the results atomically, in point order; drop the journal."""
    rows.sort(key=lambda r: (r.get("point") if r.get("point") is not None else math.inf, r.get("key") or ""))
    mark_pareto([c.name for c in cols], rows)
    p = Path(path)
    if results_format(p) == ".csv":
        atomic_write_text(p, _csv_text(cols, rows))
        return
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(_arrow_table(cols, rows), buf, row_group_size=max(len(rows), 1) if len(rows) < 4096 else 4096)
    atomic_write_bytes(p, buf.getvalue())
    with contextlib.suppress(FileNotFoundError):
        journal_path(p).unlink()


def as_json(value: Any) -> Any:
    """A cell as JSON (NaN and infinities as None)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def parameters_of(row: dict[str, Any]) -> dict[str, Any]:
    """The generator parameters of a result row (its ``parameters`` column)."""
    text = row.get("parameters")
    try:
        params = json.loads(text) if isinstance(text, str) else None
    except json.JSONDecodeError:
        params = None
    if not isinstance(params, dict):
        raise SweepError(f"point {row.get('point')}: the row has no readable parameters")
    return params
