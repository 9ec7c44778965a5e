"""``analyze`` tells which stage a long run is in, and says nothing on a short one."""

from __future__ import annotations

import io

from designer.cli.analyze import PROGRESS_AFTER_S, stage_progress


def test_long_runs_print_each_stage_with_the_time_so_far_and_short_runs_nothing():
    now = [100.0]
    out = io.StringIO()
    report = stage_progress(out, clock=lambda: now[0])
    report("routes", 0, 4)
    now[0] += PROGRESS_AFTER_S / 2
    report("bisection", 1, 4)
    assert out.getvalue() == ""
    now[0] += PROGRESS_AFTER_S
    report("collectives", 2, 4)
    assert out.getvalue() == "analyze: collectives (stage 3 of 4), 4.5 s so far\n"
