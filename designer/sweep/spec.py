"""Sweep specs: a generator kind and a grid of its parameters, workloads, sizes, failure scans, metrics.

A spec (docs/sweeps.md, ``resources/schema/sweep.schema.json``) is checked whole before anything
runs: the generator and every parameter value against the generator registry's own checks
(:meth:`designer.generators.Param.coerce`), the workloads through the workload reader, the sizes
through the size parser the command line uses. :func:`expand` turns it into :class:`Point` records,
one per point of the grid (the product of every list, zipped lists advancing together, times the
workloads), each keyed by a stable hash of what it computes (:attr:`Point.key`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from designer.analysis.collectives.names import COLLECTIVES
from designer.analysis.serving.workload import ServingWorkload
from designer.analysis.training.workload import Workload
from designer.generators import GENERATORS, GeneratorError
from designer.io.json_shape import parse_small_document
from designer.io.reading import read_input
from designer.model import DesignError, units
from designer.model.units import count
from designer.model.units import size as size_text

FORMAT = "topo-designer-sweep"
VERSION = 1
#: Largest grid a spec may give (a sweep of more points is split into several specs).
MAX_POINTS = 1_000_000
#: Largest spec file, bytes.
MAX_SPEC_BYTES = 1 << 20
#: No object of a spec has more members (generator parameters), and nothing nests deeper.
MAX_SPEC_MEMBERS = 1000
MAX_SPEC_DEPTH = 16
#: Metric groups a spec may ask for (``metrics``), in column order.
METRICS = ("bom", "bisection", "collective", "step", "serving", "failures")
#: Failure scans: ``switches`` fails every switch once per class, ``links`` every link too.
FAILURE_SCANS = ("switches", "links")
TOP_KEYS = ("format", "version", "name", "description", "generator", "parameters", "zip", "workloads",
            "serving", "collective", "sizes", "failures", "metrics")


class SweepError(DesignError):
    """A sweep spec, results file or run that cannot go on; the message is one line."""


@dataclass(frozen=True)
class Settings:
    """What every point of a sweep computes besides its design (the same for all its points)."""

    collective: str = "allreduce"
    sizes: tuple[int, ...] = (1 << 30,)
    #: Size texts as the spec wrote them, normalised (``1GiB``), one per size: column names.
    size_names: tuple[str, ...] = ("1GiB",)
    metrics: tuple[str, ...] = ("bom", "bisection", "collective")
    failures: str = ""

    def digest(self) -> str:
        return json.dumps([self.collective, list(self.sizes), list(self.metrics), self.failures])


@dataclass(frozen=True)
class Point:
    """One point of a sweep: the parameters that rebuild its design, its workload, and its key."""

    index: int
    generator: str
    #: The parameters the spec gives for this point (JSON values; defaults left out).
    params: Mapping[str, Any]
    workload_name: str = ""
    workload: Workload | ServingWorkload | None = field(default=None, repr=False, compare=False)
    settings: Settings = field(default_factory=Settings, repr=False)
    key: str = ""

    def parameters_json(self) -> str:
        return json.dumps(dict(self.params), sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class SweepSpec:
    """A checked spec: the generator, the axes of its grid and the settings of every point."""

    generator: str
    name: str
    #: Fixed parameters (one value each).
    fixed: Mapping[str, Any]
    #: Axes of the grid: each a tuple of parameter names advancing together and their value tuples.
    axes: tuple[tuple[tuple[str, ...], tuple[tuple[Any, ...], ...]], ...]
    #: Workloads as (name, workload): training workloads, then serving workloads; empty: no workload.
    workloads: tuple[tuple[str, Workload | ServingWorkload], ...]
    settings: Settings
    source: str = ""

    #: Every parameter the spec names, in the spec's order (fixed and varied).
    parameter_names: tuple[str, ...] = ()

    @property
    def varied(self) -> tuple[str, ...]:
        return tuple(n for names, _ in self.axes for n in names)

    @property
    def count(self) -> int:
        n = max(len(self.workloads), 1)
        for _, values in self.axes:
            n *= len(values)
        return n


def _json_value(value: Any) -> Any:
    """A coerced parameter value as JSON: dims ``(4, 4, 8)`` -> ``'4x4x8'``, whole floats stay floats."""
    if isinstance(value, tuple):
        return "x".join(str(v) for v in value)
    return value


def _check_value(kind: str, name: str, value: Any) -> Any:
    spec = GENERATORS[kind]
    param = spec.param(name)
    return _json_value(param.coerce(kind, value))


def _is_axis(kind: str, name: str, value: Any) -> bool:
    """A list is an axis of the grid, except a ``dims`` value written as a list of whole numbers."""
    if not isinstance(value, list):
        return False
    if GENERATORS[kind].param(name).type == "dims":
        return not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    return True


def _size_name(n: int) -> str:
    """``1073741824`` -> ``1GiB``: the size as a column name reads it."""
    return size_text(n).replace(" ", "")


def parse_spec(data: Any, source: str, parse_size: Callable[[str], int] = units.parse_size, *,
               base: Path | None = None) -> SweepSpec:
    """Check a spec document (parsed JSON) and return the :class:`SweepSpec`; SweepError names the field.

    ``parse_size`` reads a size text (``1GiB``) into bytes (:func:`designer.model.units.parse_size`,
    whose refusals are ValueErrors); ``base`` is the folder workload paths are
    relative to (the spec file's).
    """
    def fail(where: str, msg: str) -> SweepError:
        return SweepError(f"{source}: {where}: {msg}" if where else f"{source}: {msg}")

    if not isinstance(data, dict):
        raise fail("", "a sweep spec is a JSON object")
    unknown = [k for k in data if k not in TOP_KEYS]
    if unknown:
        raise fail(unknown[0], f"unknown field (fields: {', '.join(TOP_KEYS)})")
    if "format" in data and data["format"] != FORMAT:
        raise fail("format", f"must be {FORMAT!r}, not {data['format']!r}")
    if "version" in data and data["version"] != VERSION:
        raise fail("version", f"version {data['version']!r} is not supported (this program reads {VERSION})")
    kind = data.get("generator")
    if not isinstance(kind, str) or kind not in GENERATORS:
        raise fail("generator", f"unknown generator {kind!r} (known: {', '.join(GENERATORS)})")
    name = data.get("name", "")
    if not isinstance(name, str):
        raise fail("name", "must be text")
    params = data.get("parameters", {})
    if not isinstance(params, dict):
        raise fail("parameters", "must be an object of generator parameters")
    known = {p.name for p in GENERATORS[kind].params}
    fixed: dict[str, Any] = {}
    lists: dict[str, tuple[Any, ...]] = {}
    for pname, value in params.items():
        if pname not in known:
            raise fail(f"parameters.{pname}", f"{kind} has no parameter {pname!r} (known: {', '.join(sorted(known))})")
        try:
            if _is_axis(kind, pname, value):
                if not value:
                    raise fail(f"parameters.{pname}", "an empty list gives no points")
                lists[pname] = tuple(_check_value(kind, pname, v) for v in value)
            else:
                fixed[pname] = _check_value(kind, pname, value)
        except GeneratorError as e:
            raise fail(f"parameters.{pname}", str(e).removeprefix(f"{kind}: ")) from None
    zipped = data.get("zip", [])
    if not isinstance(zipped, list) or not all(isinstance(g, list) and all(isinstance(n, str) for n in g)
                                               for g in zipped):
        raise fail("zip", "must be a list of lists of parameter names")
    in_zip: set[str] = set()
    axes: list[tuple[tuple[str, ...], tuple[tuple[Any, ...], ...]]] = []
    zip_of: dict[str, int] = {}
    for i, group in enumerate(zipped):
        if len(group) < 2:
            raise fail(f"zip[{i}]", "zip at least two parameters")
        for n in group:
            if n not in lists:
                raise fail(f"zip[{i}]", f"{n!r} is not a parameter given as a list")
            if n in in_zip:
                raise fail(f"zip[{i}]", f"{n!r} is zipped twice")
            in_zip.add(n)
            zip_of[n] = i
        lengths = {len(lists[n]) for n in group}
        if len(lengths) != 1:
            raise fail(f"zip[{i}]", "zipped lists must have the same length: "
                       + ", ".join(f"{n} has {len(lists[n])}" for n in group))
    done: set[int] = set()
    for n in lists:  # axes in the spec's order; a zip group where its first parameter is
        if n in zip_of:
            gi = zip_of[n]
            if gi in done:
                continue
            done.add(gi)
            group = tuple(zipped[gi])
            axes.append((group, tuple(zip(*(lists[g] for g in group), strict=True))))
        else:
            axes.append(((n,), tuple((v,) for v in lists[n])))
    training = _workloads(data.get("workloads", []), fail, base, "workloads")
    serving = _workloads(data.get("serving", []), fail, base, "serving")
    workloads = training + serving
    if len({n for n, _ in workloads}) != len(workloads):
        raise fail("serving", "a serving workload has the name of a training workload")
    settings = _settings(data, fail, parse_size, bool(training), bool(serving))
    spec = SweepSpec(kind, name, fixed, tuple(axes), workloads, settings, source,
                     parameter_names=tuple(params))
    if spec.count > MAX_POINTS:
        raise fail("parameters", f"the grid has {spec.count:,} points; a sweep takes at most {MAX_POINTS:,}")
    return spec


def _workloads(value: Any, fail: Callable[[str, str], SweepError], base: Path | None, key: str
               ) -> tuple[tuple[str, Workload | ServingWorkload], ...]:
    """The training workloads (``key`` "workloads") or serving workloads ("serving") a spec lists."""
    from designer.io.workload_file import load_serving, load_workload

    load = load_serving if key == "serving" else load_workload
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        what = "serving" if key == "serving" else "workload"
        raise fail(key, f"must be a list of {what} preset names or {what} files")
    out = []
    for i, w in enumerate(value):
        target = w
        if base is not None and (w.endswith(".json") or os.sep in w) and not Path(w).is_absolute():
            target = str(base / w)
        try:
            out.append((w, load(target)))
        except DesignError as e:
            raise fail(f"{key}[{i}]", str(e)) from None
    if len({n for n, _ in out}) != len(out):
        raise fail(key, "a workload is listed twice")
    return tuple(out)


def _settings(data: dict, fail: Callable[[str, str], SweepError], parse_size: Callable[[str], int],
              has_workload: bool, has_serving: bool = False) -> Settings:
    collective = data.get("collective", "allreduce")
    if collective not in COLLECTIVES:
        raise fail("collective", f"unknown collective {collective!r} (known: {', '.join(COLLECTIVES)})")
    sizes_in = data.get("sizes", ["1GiB"])
    if isinstance(sizes_in, (str, int)):
        sizes_in = [sizes_in]
    if not isinstance(sizes_in, list) or not sizes_in:
        raise fail("sizes", "must be a non-empty list of message sizes such as \"1MiB\", \"1GiB\"")
    sizes: dict[int, str] = {}
    for i, s in enumerate(sizes_in):
        try:
            n = parse_size(str(s)) if not (isinstance(s, int) and not isinstance(s, bool)) else parse_size(f"{s}B")
        except (DesignError, ValueError) as e:
            raise fail(f"sizes[{i}]", str(e)) from None
        sizes[n] = _size_name(n)
    if len(sizes) > 64:
        raise fail("sizes", f"{len(sizes)} sizes; a sweep records at most 64")
    failures = data.get("failures", "")
    if isinstance(failures, dict):
        unknown = [k for k in failures if k != "scan"]
        if unknown:
            raise fail(f"failures.{unknown[0]}", "unknown field (fields: scan)")
        failures = failures.get("scan", "")
    if failures is None or failures is False:
        failures = ""
    if failures and failures not in FAILURE_SCANS:
        raise fail("failures", f"scan must be one of {', '.join(FAILURE_SCANS)}, not {failures!r}")
    default = [m for m in METRICS if (m != "step" or has_workload) and (m != "serving" or has_serving)
               and (m != "failures" or failures)]
    metrics = data.get("metrics", default)
    if not isinstance(metrics, list) or not metrics or not all(isinstance(m, str) for m in metrics):
        raise fail("metrics", f"must be a non-empty list of: {', '.join(METRICS)}")
    for m in metrics:
        if m not in METRICS:
            raise fail("metrics", f"unknown metric group {m!r} (known: {', '.join(METRICS)})")
    if "step" in metrics and not has_workload:
        raise fail("metrics", "step needs at least one workload (workloads)")
    if "serving" in metrics and not has_serving:
        raise fail("metrics", "serving needs at least one serving workload (serving)")
    if "failures" in metrics and not failures:
        failures = "switches"
    if failures and "failures" not in metrics:
        metrics = [*metrics, "failures"]
    ordered = tuple(m for m in METRICS if m in metrics)
    order = sorted(sizes)
    return Settings(collective, tuple(order), tuple(sizes[n] for n in order), ordered, failures)


def load_spec(path: str | os.PathLike[str], parse_size: Callable[[str], int] = units.parse_size) -> SweepSpec:
    """Read and check a spec file (JSON); SweepError names the file and the problem in one line."""
    p = Path(path)
    source = os.fspath(path)
    raw, source = read_input(path, MAX_SPEC_BYTES, "a sweep spec", SweepError)
    data = parse_small_document(raw, source, "a sweep spec", SweepError, max_members=MAX_SPEC_MEMBERS,
                                max_depth=MAX_SPEC_DEPTH)
    return parse_spec(data, source, parse_size, base=p.parent)


def _workload_digest(w: Workload | ServingWorkload | None) -> str:
    if w is None:
        return ""
    text = json.dumps(dataclasses.asdict(w), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def point_key(generator: str, params: Mapping[str, Any], workload: Workload | ServingWorkload | None,
              settings: Settings) -> str:
    """A stable hash of what a point computes: generator, parameters, workload contents and settings.

    The same point in another run (or another spec with the same settings) has the same key, so
    ``--resume`` recognises it; any change to what it computes changes the key.
    """
    return _key(generator, params, _workload_digest(workload), settings)


def _key(generator: str, params: Mapping[str, Any], workload_digest: str, settings: Settings) -> str:
    text = json.dumps([generator, dict(params), workload_digest, settings.digest()], sort_keys=True,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def expand(spec: SweepSpec) -> list[Point]:
    """Every point of the grid, in order: the first axis varies slowest, workloads fastest."""
    out: list[Point] = []
    workloads: Sequence[tuple[str, Workload | ServingWorkload | None]] = spec.workloads or (("", None),)
    digests = {name: _workload_digest(w) for name, w in workloads}
    combos = itertools.product(*(values for _, values in spec.axes)) if spec.axes else [()]
    order = spec.parameter_names
    for combo in combos:
        params = dict(spec.fixed)
        for (names, _), values in zip(spec.axes, combo, strict=True):
            params.update(zip(names, values, strict=True))
        params = {n: params[n] for n in order}
        for wname, w in workloads:
            key = _key(spec.generator, params, digests[wname], spec.settings)
            out.append(Point(len(out), spec.generator, params, wname, w, spec.settings, key))
    return out


def params_at(spec: SweepSpec, index: int) -> dict[str, Any]:
    """The generator parameters of point ``index`` of :func:`expand`, without expanding the grid
    (the estimate samples a grid of a million points in milliseconds)."""
    per_combo = max(len(spec.workloads), 1)
    combo = index // per_combo
    params = dict(spec.fixed)
    for names, values in reversed(spec.axes):
        combo, at = divmod(combo, len(values))
        params.update(zip(names, values[at], strict=True))
    return {n: params[n] for n in spec.parameter_names}


def describe(spec: SweepSpec) -> str:
    """One line: the generator, the grid's shape and the number of points."""
    dims = [f"{' x '.join(names) if len(names) > 1 else names[0]} ({len(values)})" for names, values in spec.axes]
    if spec.workloads:
        dims.append(f"workloads ({len(spec.workloads)})")
    grid = " x ".join(dims) if dims else "one point"
    return f"{spec.generator}: {grid} = {count(spec.count, 'point')}"


def finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
