"""Sweeps under faults: a scheduler with no workers is named as such; a cluster that loses every
worker has the points it lost sent again when workers return, and otherwise the sweep stops with a
one-line reason and a non-zero exit instead of recording Dask's message as failed points; a local
cluster listens on the loopback interface and its workers leave Ctrl+C to the sweep's process; the
time estimate counts the workers' start-up."""

import json
import signal
import subprocess
import sys

import pytest

import designer.sweep.runner as runner
from designer.cli import main
from designer.cli.analyze import parse_size
from designer.model.units import duration
from designer.sweep import SweepError, expand, parse_spec


def test_a_scheduler_with_no_workers_is_diagnosed_as_such(tmp_path, capsys, monkeypatch):
    from distributed import LocalCluster

    monkeypatch.setattr(runner, "WORKER_WAIT_S", 1)
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({"generator": "server"}))
    with LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1", scheduler_port=0,
                      dashboard_address=None) as lc:
        code = main(["sweep", str(spec), "-o", str(tmp_path / "r.csv"), "--scheduler", lc.scheduler_address, "-q"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "the Dask scheduler has no workers (waited 1 s): start some with 'dask worker ADDRESS'" in err
    assert not (tmp_path / "r.csv").exists()


class KilledWorker(Exception):
    """Named like Dask's: the cluster lost the task's worker."""


class FakeFuture:
    def __init__(self, key):
        self.key = key


class FakeCluster:
    """What _Tasks asks of a Dask client: workers, waiting for them, scatter and submit."""

    def __init__(self, workers_after_wait):
        self.workers = 0
        self.workers_after_wait = workers_after_wait
        self.submitted = []
        self.scattered = 0
        self.loop = None

    def scheduler_info(self):
        return {"workers": dict.fromkeys(range(self.workers))}

    def wait_for_workers(self, n, timeout):
        if not self.workers_after_wait:
            raise TimeoutError
        self.workers = self.workers_after_wait

    def scatter(self, data, broadcast):
        self.scattered += 1
        return f"catalog-{self.scattered}"

    def map(self, fn, points, catalog, pure):
        return [FakeFuture(f"first-{p.index}") for p in points]

    def submit(self, fn, point, catalog, pure):
        self.submitted.append((point.index, catalog))
        return FakeFuture(f"again-{point.index}-{len(self.submitted)}")


def tasks_on(cl, n=3):
    points = expand(parse_spec({"generator": "leaf-spine", "parameters": {"leaves": [4, 8, 16][:n]}}, "s.json",
                               parse_size))
    tasks = runner._Tasks(cl, points, catalog=object())

    class Pending(list):
        def add(self, fut):
            self.append(fut)

    tasks.pending = Pending()
    return tasks


def test_points_lost_with_every_worker_run_again_when_workers_return():
    cl = FakeCluster(workers_after_wait=2)
    tasks = tasks_on(cl)
    first, second, third = tasks.futures[:3]
    assert tasks.lost(first, KilledWorker("lost"), 0, 3)  # every worker gone: wait, scatter again, resubmit
    assert cl.scattered == 2 and cl.submitted == [(0, "catalog-2")]
    # the other points lost in the same event are sent again without waiting (workers are back by now)
    assert tasks.lost(second, KilledWorker("lost"), 0, 3) and tasks.lost(third, KilledWorker("lost"), 0, 3)
    assert [i for i, _ in cl.submitted] == [0, 1, 2] and cl.scattered == 2 and len(tasks.pending) == 3
    # a point sent again that loses its worker once more (it kills workers) is a failed point
    again = tasks.futures[3]
    assert not tasks.lost(again, KilledWorker("lost"), 0, 3)


def test_a_point_that_fails_while_workers_run_is_a_failed_point():
    cl = FakeCluster(workers_after_wait=2)
    cl.workers = 2
    tasks = tasks_on(cl)
    assert not tasks.lost(tasks.futures[0], KilledWorker("lost"), 0, 3)
    assert not tasks.lost(tasks.futures[1], ValueError("a bug"), 0, 3)
    assert cl.submitted == []


def test_a_cluster_whose_workers_never_return_stops_the_sweep_with_a_reason():
    tasks = tasks_on(FakeCluster(workers_after_wait=0))
    with pytest.raises(SweepError, match=r"^the cluster lost every worker and none came back within 60 s; 1 of 3 "
                       r"points finished and are kept: run the same command with --resume once workers run again$"):
        tasks.lost(tasks.futures[1], KilledWorker("lost"), 1, 3)


def test_a_local_cluster_listens_on_loopback_and_its_workers_ignore_ctrl_c(monkeypatch):
    import distributed

    seen = {}

    class Cluster:
        def __init__(self, **kwargs):
            seen.update(kwargs)

        def close(self):
            seen["closed"] = True

    class Client:
        def __init__(self, cluster, set_as_default):
            pass

        def close(self):
            pass

    monkeypatch.setattr(distributed, "LocalCluster", Cluster)
    monkeypatch.setattr(distributed, "Client", Client)
    with runner._client(None, 2, True, None):
        pass
    assert seen["host"] == "127.0.0.1" and seen["dashboard_address"] == "127.0.0.1:0"
    assert seen["preload"] == ["designer.sweep.worker_setup"] and seen["closed"]
    code = ("import signal\nfrom designer.sweep.worker_setup import dask_setup\ndask_setup(None)\n"
            "print(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout
    assert out.strip() == "True"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_the_estimate_counts_the_local_workers_start_up():
    spec = parse_spec({"generator": "leaf-spine", "parameters": {"leaves": [4, 8]}}, "s.json", parse_size)
    remote, how_remote = runner.estimate(spec, 2)
    local, how_local = runner.estimate(spec, 2, local=True)
    assert local == pytest.approx(remote + runner.startup_seconds(2))
    assert how_local == how_remote + f", and {duration(runner.startup_seconds(2))} to start the workers"
    assert runner.startup_seconds(4 * runner.default_workers()) == 4 * runner.STARTUP_SECONDS_PER_WORKER
