"""Reading nccl-tests logs: real ones from public repositories, the noise around them, broken ones."""

from __future__ import annotations

import pytest
from measured_helpers import ABCI_A100, ABCI_V100, H100_1N, H100_2N, H100_2N_HALF, H100_10N

from designer.io.measured import MeasuredFileError
from designer.io.measured.nccl_tests import parse_nccl_tests, read_nccl_tests


def test_new_format_logs_with_several_runs():
    runs = read_nccl_tests(H100_10N)
    assert [r.collective for r in runs] == ["allreduce", "allgather", "reducescatter", "alltoall", "sendrecv"]
    ar = runs[0]
    assert ar.collective_from == "the log"
    assert ar.n_ranks == 80 and len(ar.hosts) == 10 and ar.hosts[0] == "cnode3-002"
    assert ar.ranks[9].device == 1 and ar.ranks[9].gpu_name == "NVIDIA H100 80GB HBM3"
    assert len(ar.rows) == 10 and ar.rows[0].size_bytes == 33554432 and ar.rows[0].root == -1
    assert ar.avg_busbw_bytes_per_s == pytest.approx(265.631e9)
    # alltoall prints N/A for the in-place check: no count, not an error.
    assert runs[3].rows[0].in_place.wrong is None
    single = read_nccl_tests(H100_1N)
    assert len(single) == 5 and single[0].n_ranks == 8 and single[0].hosts == ("cnode3-002",)
    assert single[0].rows[-1].best.busbw_bytes_per_s == pytest.approx(482.27e9)


def test_pairwise_logs_two_nodes():
    for path, avg in ((H100_2N, 91.9179e9), (H100_2N_HALF, 23.4963e9)):
        runs = read_nccl_tests(path)
        assert [r.collective for r in runs] == ["alltoall", "sendrecv"]
        assert runs[0].n_ranks == 16 and len(runs[0].hosts) == 2
        assert runs[0].avg_busbw_bytes_per_s == pytest.approx(avg)


def test_old_format_infers_the_collective_and_skips_ucx_noise():
    a100 = read_nccl_tests(ABCI_A100)
    assert len(a100) == 1
    run = a100[0]
    assert run.collective == "allreduce" and "ratio" in run.collective_from
    assert run.n_ranks == 128 and len(run.hosts) == 16
    assert run.rows[0].redop == "sum" and run.rows[0].root is None  # no root column before nccl-tests 2.10
    assert run.rows[0].out_of_place.max_error == pytest.approx(5e-7)
    assert len(run.rows) == 24 and run.rows[-1].out_of_place.time_s == pytest.approx(2500.7e-6)
    v100 = read_nccl_tests(ABCI_V100)[0]  # 128 UCX warning lines before the header
    assert v100.line == 129 and v100.n_ranks == 128 and len(v100.hosts) == 32
    assert read_nccl_tests(ABCI_A100, "allreduce")[0].collective_from == "--collective"


def test_mpi_prefixes_crlf_and_nccl_info_noise_read_the_same():
    text = H100_2N.read_text()
    noisy = []
    for i, line in enumerate(text.splitlines()):
        noisy.append(f"[1,0]<stdout>:{line}")
        if i % 3 == 0:
            noisy.append("cnode3-002:2627782:2627782 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.2<0>")
    clean = parse_nccl_tests(text, "clean.log")
    tagged = parse_nccl_tests("\r\n".join(noisy) + "\r\n", "noisy.log")
    srun = parse_nccl_tests("\n".join(f"0: {x}" for x in text.splitlines()), "srun.log")
    for runs in (tagged, srun):
        assert [(r.collective, r.n_ranks, [x.size_bytes for x in r.rows]) for r in runs] == \
            [(r.collective, r.n_ranks, [x.size_bytes for x in r.rows]) for r in clean]
        assert runs[0].rows[-1].best.time_s == clean[0].rows[-1].best.time_s


def test_truncated_table_is_refused():
    lines = H100_10N.read_text().splitlines()
    cut = "\n".join(lines[:96])  # inside the first table, before its average
    with pytest.raises(MeasuredFileError, match="line 96: the table ends .* cut short"):
        parse_nccl_tests(cut, "cut.log")
    half_row = "\n".join(lines[:96] + [lines[96][:60]])
    with pytest.raises(MeasuredFileError, match="truncated table row"):
        parse_nccl_tests(half_row, "cut.log")


def test_wrong_values_are_refused():
    text = H100_2N.read_text()
    row = next(x for x in text.splitlines() if x.strip().startswith("4294967296"))
    fields = row.split()
    fields[8] = "3"
    with pytest.raises(MeasuredFileError, match=r"line \d+: 3 wrong values at 4 GiB"):
        parse_nccl_tests(text.replace(row, "  ".join(fields)), "bad.log")
    failed = text.replace("# Out of bounds values : 0 OK", "# Out of bounds values : 2 FAILED", 1)
    with pytest.raises(MeasuredFileError, match="out of bounds"):
        parse_nccl_tests(failed, "bad.log")


def test_not_a_log_and_unknown_collective(tmp_path):
    with pytest.raises(MeasuredFileError, match="no nccl-tests run"):
        parse_nccl_tests("hello\n", "x.log")
    # An old-format table whose bus factor, (p-1)/p, fits both all-gather and all-to-all: ask.
    ag = ABCI_A100.read_text().replace("float     sum", "float    none")
    for x in [x for x in ag.splitlines() if x.strip() and x.strip()[0].isdigit()]:
        f = x.split()
        f[6] = f"{float(f[5]) * 127 / 128:.2f}"
        f[10] = f"{float(f[9]) * 127 / 128:.2f}"
        ag = ag.replace(x, "  ".join(f))
    with pytest.raises(MeasuredFileError, match="give --collective"):
        parse_nccl_tests(ag, "ag.log")
    missing = tmp_path / "none.log"
    with pytest.raises(Exception, match="no such file"):
        read_nccl_tests(missing)
