"""Run a sweep on Dask: a local cluster by default, or an existing one given its scheduler's address.

Each point is a task: its parameters (and workload) go to a worker, which rebuilds the design and
analyses it (:func:`designer.sweep.evaluate.evaluate_point`); designs are never shipped. The
catalog is scattered to the workers once. Rows come back as tasks finish
(``distributed.as_completed``) and are written at once (:class:`designer.sweep.results.Sink`),
so an interrupted sweep keeps every finished point and ``resume`` skips them. A task that fails
on the cluster (its worker died, the worker cannot import the designer) is recorded as a
``failed`` row and the sweep goes on.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from designer.model.catalog import Catalog, builtin_catalog
from designer.model.units import duration
from designer.sweep.results import FINISHED, Column, Sink, columns, error_row, finish, read_results
from designer.sweep.spec import Point, SweepError, SweepSpec, expand, params_at

#: Seconds to wait for a scheduler given by address before giving up.
CONNECT_TIMEOUT_S = 10
#: Seconds a scheduler with no workers (at the start, or after losing every worker) is waited for
#: before the sweep stops and says so.
WORKER_WAIT_S = 60
#: The interface a local cluster's scheduler, workers and status pages listen on: this machine only.
LOOPBACK = "127.0.0.1"
#: Exceptions of a task that say the cluster lost it (its worker died or left), not that the point failed.
_CLUSTER_ERRORS = ("KilledWorker", "CancelledError", "FutureCancelledError", "CommClosedError")
#: Called as ``progress(done, total, errors, elapsed_s)`` after each point (and once at the start).
Progress = Callable[[int, int, int, float], None]


@dataclass(frozen=True)
class Outcome:
    """What a run did: points in the spec, skipped as already done, run now, errors, seconds, workers."""

    points: int
    skipped: int
    ran: int
    errors: int
    seconds: float
    workers: int
    rows: int


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):
        return max(os.cpu_count() or 1, 1)


def plan(spec: SweepSpec, output: str | os.PathLike[str], resume: bool
         ) -> tuple[list[Point], list[Point], tuple[Column, ...], list[dict[str, Any]]]:
    """(all points, points to run, columns, rows kept from an earlier run)."""
    points = expand(spec)
    cols = columns(spec)
    kept: list[dict[str, Any]] = []
    done: set[str] = set()
    out = Path(output)
    if resume:
        from designer.sweep.results import journal_path

        if out.exists() or journal_path(out).exists():
            old_cols, old_rows = read_results(out)
            if old_cols and [c.name for c in old_cols] != [c.name for c in cols]:
                raise SweepError(f"{out}: its columns are not this spec's (other parameters, sizes or metrics); "
                                 "write to a new file or run without --resume")
            todo_keys = {p.key for p in points}
            for r in old_rows:
                # finished points, and rows of points no longer in the spec, stay; failed points run again
                if (r.get("status") in FINISHED or r.get("key") not in todo_keys) and r.get("key") not in done:
                    kept.append(r)
                    done.add(r.get("key"))
    todo = [p for p in points if p.key not in done]
    return points, todo, cols, kept


def run_sweep(spec: SweepSpec, output: str | os.PathLike[str], *, scheduler: str | None = None,
              workers: int | None = None, resume: bool = False, processes: bool = True,
              catalog: Catalog | None = None, progress: Progress | None = None,
              client: Any = None) -> Outcome:
    """Run every point of ``spec`` not already in ``output`` (with ``resume``), writing rows as they arrive.

    ``scheduler``: the address of an existing Dask scheduler (``tcp://HOST:PORT``); without it a
    local cluster of ``workers`` worker processes (default one per core; ``processes=False``:
    threads in this process) runs for the sweep alone. ``client``: a connected
    ``distributed.Client`` to use instead of either.
    """
    points, todo, cols, kept = plan(spec, output, resume)
    catalog = catalog if catalog is not None else builtin_catalog()
    t0 = time.perf_counter()
    rows = list(kept)
    errors = 0
    n_workers = 0
    with contextlib.ExitStack() as stack:
        # the cluster first: a results file is not touched when the cluster cannot be had
        cl = stack.enter_context(_client(scheduler, workers, processes, client)) if todo else None
        if cl is not None:
            n_workers = len(cl.scheduler_info().get("workers", {}))
            _check_workers(cl)
        sink = Sink(output, cols, kept)
        try:
            if cl is not None:
                if progress is not None:
                    progress(0, len(todo), 0, 0.0)
                errors = _run(cl, todo, catalog, sink, rows, progress, t0)
        finally:
            sink.close()
    finish(output, cols, rows)
    return Outcome(len(points), len(points) - len(todo), len(todo), errors, time.perf_counter() - t0, n_workers,
                   len(rows))


@contextlib.contextmanager
def _client(scheduler: str | None, workers: int | None, processes: bool, client: Any):
    if client is not None:
        yield client
        return
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            cl = Client(scheduler, timeout=f"{CONNECT_TIMEOUT_S}s", set_as_default=False)
        except (OSError, TimeoutError, ValueError) as e:
            raise SweepError(f"cannot reach the Dask scheduler at {scheduler}: {_first_line(e)}") from None
        try:
            yield cl
        finally:
            cl.close()
        return
    n = workers if workers else default_workers()
    if n < 1:
        raise SweepError(f"--workers {n}: at least 1")
    # Workers listen on the loopback interface only (no dashboard); worker processes ignore Ctrl+C
    # (designer.sweep.worker_setup), which this process handles for them.
    extra = {"preload": ["designer.sweep.worker_setup"]} if processes else {}
    try:
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=processes, host=LOOPBACK,
                               dashboard_address=f"{LOOPBACK}:0", silence_logs=logging.ERROR, **extra)
    except BaseException:
        # Interrupted while starting: the half-started cluster cannot be closed, and Dask's exit hook
        # would print a traceback trying; its worker processes end with this one.
        from distributed.deploy.spec import SpecCluster

        SpecCluster._instances.clear()
        raise
    try:
        cl = Client(cluster, set_as_default=False)
        try:
            yield cl
        finally:
            cl.close()
    finally:
        cluster.close()


def _workers(cl: Any) -> int:
    return len(cl.scheduler_info().get("workers", {}))


def _wait_for_workers(cl: Any, wait_s: float) -> bool:
    """True when the cluster has a worker within ``wait_s`` seconds."""
    try:
        cl.wait_for_workers(1, timeout=wait_s)
    except (TimeoutError, OSError):
        return False
    return True


def _first_line(e: BaseException) -> str:
    text = str(e) or type(e).__name__
    return text.splitlines()[0] if text.splitlines() else text


def _worker_version() -> str:
    import designer

    return designer.__version__


def _check_workers(cl: Any) -> None:
    """A worker runs the designer, of this version: otherwise every point would fail the same way."""
    import designer

    if _workers(cl) == 0 and not _wait_for_workers(cl, WORKER_WAIT_S):
        raise SweepError(f"the Dask scheduler has no workers (waited {WORKER_WAIT_S} s): start some with "
                         "'dask worker ADDRESS' where the designer is installed")
    try:
        theirs = cl.submit(_worker_version, pure=False).result(timeout=120)
    except Exception as e:  # noqa: BLE001 - whatever stops a worker from importing the designer
        raise SweepError("the cluster's workers cannot run the designer (install topo-designer where they run): "
                         f"{type(e).__name__}: {_first_line(e)}") from None
    if theirs != designer.__version__:
        raise SweepError(f"the cluster's workers run topo-designer {theirs}, this is {designer.__version__}: "
                         "install the same version on both")


class _Tasks:
    """The points on the cluster. When the cluster loses every worker, the points it lost with them
    (and the catalog every task reads) are sent again once workers are back, instead of being
    recorded as failed with the cluster's own message; a point that loses its worker while others
    run is recorded as failed, as before."""

    def __init__(self, cl: Any, todo: Sequence[Point], catalog: Catalog) -> None:
        from designer.sweep.evaluate import evaluate_point

        self.cl, self.catalog, self.evaluate = cl, catalog, evaluate_point
        self.cat = cl.scatter(catalog, broadcast=True)
        self.futures = cl.map(evaluate_point, list(todo), catalog=self.cat, pure=False)
        self.point_of = {f.key: p for f, p in zip(self.futures, todo, strict=True)}
        self.round_of = dict.fromkeys(self.point_of, 0)
        self.round = 0  # how many times every worker was lost and came back
        self.sent_again: set[int] = set()  # points sent again (once each: a point that kills workers fails)

    def lost(self, fut: Any, e: BaseException, done: int, total: int) -> bool:
        """True when ``fut`` failed because the cluster lost every worker; it has been sent again."""
        point = self.point_of[fut.key]
        if type(e).__name__ not in _CLUSTER_ERRORS or point.index in self.sent_again:
            return False
        if self.round_of[fut.key] == self.round:  # not yet known lost: is every worker gone?
            if _workers(self.cl) > 0:
                return False
            if not _wait_for_workers(self.cl, WORKER_WAIT_S):
                raise SweepError(f"the cluster lost every worker and none came back within {WORKER_WAIT_S} s; "
                                 f"{done:,} of {total:,} points finished and are kept: run the same command with "
                                 "--resume once workers run again")
            self.round += 1
            self.cat = self.cl.scatter(self.catalog, broadcast=True)
        self.sent_again.add(point.index)
        again = self.cl.submit(self.evaluate, point, catalog=self.cat, pure=False)
        self.point_of[again.key], self.round_of[again.key] = point, self.round
        self.futures.append(again)
        self.pending.add(again)
        return True

    def __iter__(self):  # noqa: ANN204
        from distributed import as_completed

        self.pending = as_completed(self.futures, loop=self.cl.loop)
        return iter(self.pending)


def _run(cl: Any, todo: Sequence[Point], catalog: Catalog, sink: Sink, rows: list[dict[str, Any]],
         progress: Progress | None, t0: float) -> int:
    tasks = _Tasks(cl, todo, catalog)
    errors = 0
    done = 0
    try:
        for fut in tasks:
            try:
                row = fut.result()
            except Exception as e:  # noqa: BLE001 - the task failed on the cluster: record it, go on
                if tasks.lost(fut, e, done, len(todo)):
                    continue
                row = error_row(tasks.point_of[fut.key], "failed", f"{type(e).__name__}: {_first_line(e)}")
            if row.get("status") != "ok":
                errors += 1
            sink.write(row)
            rows.append(row)
            done += 1
            fut.release()
            if progress is not None:
                progress(done, len(todo), errors, time.perf_counter() - t0)
    except BaseException:
        cl.cancel(tasks.futures)
        raise
    return errors


def estimate(spec: SweepSpec, workers: int, catalog: Catalog | None = None, probes: int = 5, *,
             local: bool = False) -> tuple[float, str]:
    """Seconds the sweep should take on ``workers`` workers, and how the figure was made.

    The designs of up to ``probes`` points spread evenly over the grid (the first and the last
    among them) are built here, not analysed, and their GPUs counted; each point is then costed by
    :data:`SECONDS_PER_POINT` + :data:`SECONDS_PER_GPU` x GPUs (measured by benchmarks/bench_sweep.py),
    times the failure scan's analyses. ``local``: a local cluster is started for the sweep, which
    adds :func:`startup_seconds`.
    """
    from designer.generators import GENERATORS

    gen = GENERATORS[spec.generator]
    n = spec.count
    k = min(probes, n)
    picks = sorted({round(i * (n - 1) / max(k - 1, 1)) for i in range(k)})
    gpus = []
    for i in picks:
        try:
            d = gen.build(catalog, **params_at(spec, i))
        except Exception:  # noqa: BLE001 - a refused probe says nothing of the others
            continue
        gpus.append(sum(1 for x in d.iter_devices() if x.kind == "gpu"))
    mean = sum(gpus) / len(gpus) if gpus else 1024
    per = SECONDS_PER_POINT + SECONDS_PER_GPU * mean
    if "step" in spec.settings.metrics:
        per += STEP_SECONDS_PER_GPU * mean
    if spec.settings.failures:
        per *= FAILURE_SCAN_FACTOR[spec.settings.failures]
    if not gpus:
        how = "the sampled points were refused; assuming 1,024 GPUs a point"
    elif len(gpus) == 1:
        how = f"from the {gpus[0]:,} GPUs of {'the point' if n == 1 else 'a sampled point'}"
    else:
        how = f"from {len(gpus)} sampled points of {min(gpus):,} to {max(gpus):,} GPUs"
    seconds = n * per / max(workers, 1)
    if local:
        start = startup_seconds(workers)
        seconds += start
        how += f", and {duration(start)} to start the workers"
    return seconds, how


def startup_seconds(workers: int) -> float:
    """Seconds to start a local cluster of ``workers`` processes, each importing the designer: the
    cores start :data:`STARTUP_SECONDS_PER_WORKER` worth of workers at a time."""
    return STARTUP_SECONDS_PER_WORKER * math.ceil(max(workers, 1) / default_workers())


#: Cost model of one point (generation + analysis + bill of materials), seconds, from the benchmark.
SECONDS_PER_POINT = 0.05
SECONDS_PER_GPU = 2.6e-4
STEP_SECONDS_PER_GPU = 2.0e-5
#: Starting one local worker process and importing the designer in it, seconds: 4.0 s for one
#: worker on the 2-core benchmark machine, 8.7-10.9 s for two (benchmarks/bench_sweep.py's
#: "start" column; the machine shared and loaded).
STARTUP_SECONDS_PER_WORKER = 4.5
#: A failure scan analyses the design once per class of equivalent switches (or links) besides once whole.
FAILURE_SCAN_FACTOR = {"switches": 4.0, "links": 10.0}
