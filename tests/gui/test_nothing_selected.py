"""The window's dock and panels when no algorithm can run (failed links split the GPUs)."""

from __future__ import annotations

from designer.generators import GENERATORS


def split_fabric():
    d = GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8, spines=2)
    tier = {dev.id: dev.tier for dev in d.iter_devices()}
    for lk in list(d.iter_links()):
        if "spine" in (tier[lk.a_device], tier[lk.b_device]):
            d.set_link_field(lk.id, "failed", True)
    return d


def test_the_dock_and_panels_say_cannot_run(window, qtbot):
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        window.document.set_design(split_fabric(), None)
    report = blocker.args[0].report
    assert report.selected() == [] and report.cannot_run
    dock = window.analysis
    assert "cannot run" in dock.allreduce.text()
    assert "bring back failed links" in dock.allreduce.toolTip()
    assert "nothing selected" in dock.details.toPlainText()
    curves = window.live.panels["curves"]
    assert "cannot run" in curves.info.text() and "islands" in curves.info.toolTip()
    assert window.live.panels["utilisation"].info.text().startswith("No link carries this traffic")


def test_one_gpu_shows_no_bisection(window, qtbot):
    with qtbot.waitSignal(window.runner.live_result, timeout=60_000) as blocker:
        window.document.set_design(GENERATORS["server"].build(gpus_per_node=1), None)
    report = blocker.args[0].report
    assert report.bisection.lower_bytes_per_s is None
    assert window.analysis.bisection.text() == "needs at least two GPUs"
    assert window.live.panels["bisection"].figures.text() == "needs at least two GPUs"
