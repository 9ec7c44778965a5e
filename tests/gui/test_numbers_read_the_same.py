"""A quantity reads the same everywhere: the analyze summary, the analysis dock, the inspector,
the canvas tooltip and the palette all format through designer.model.units."""

from __future__ import annotations

from pathlib import Path

from designer.cli import main
from designer.gui.canvas.describe import describe_item
from designer.gui.panels.analysis_dock import DEFAULT_SIZE
from designer.io import load_design
from designer.model import units
from designer.model.catalog import link_rate_gbps
from designer.present.report_text import summary_lines

SAMPLE = Path(__file__).resolve().parents[2] / "sample_designs" / "hgx-h100-server.json"


def test_the_dock_and_the_command_line_summary_show_the_same_figures(window, qtbot, capsys):
    window.document.set_design(load_design(SAMPLE), None)
    with qtbot.waitSignal(window.runner.result_ready, timeout=60_000):
        window.runner.start()
    report, dock = window.runner.report, window.analysis
    assert main(["analyze", str(SAMPLE)]) == 0
    cli = capsys.readouterr().out.splitlines()

    bisection = units.rate(report.bisection.lower_bytes_per_s)
    assert dock.bisection.text().startswith(f"{bisection} per direction")
    assert any(line.startswith("Bisection") and f": {bisection} .. " in line for line in cli)

    chosen = next(r for r in report.collectives if r.selected and r.message_bytes == DEFAULT_SIZE)
    time, busbw = units.duration(chosen.time_s), units.rate(chosen.busbw_bytes_per_s)
    assert dock.allreduce.text().startswith(
        f"{time} for {units.size(DEFAULT_SIZE)} over {units.count(report.ranks, 'GPU')}")
    assert dock.allreduce.text().endswith(f"busbw {busbw}")
    row = next(line for line in cli if line.strip().startswith(units.size(DEFAULT_SIZE) + " "))
    assert f"*{time:>10} {busbw:>12}" in row

    assert dock.details.toPlainText().splitlines() == summary_lines(report, max_rows=8)
    if report.bottlenecks:
        table = window.live.panels["bottlenecks"].table
        assert table.item(0, 2).text() == units.percent(report.bottlenecks[0].utilization)


def test_the_inspector_and_the_tooltip_show_a_link_rate_alike(window):
    window.document.set_design(load_design(SAMPLE), None)
    design = window.document.design
    link = next(lk for lk in design.iter_links() if lk.medium == "nvlink")
    window.scene.select_links([link.id])
    rate = units.line_rate(link_rate_gbps(design, link))
    assert window.inspector.l_rate.text() == f"{rate} per direction"
    bundle = next(item for item in window.scene.bundle_items.values()
                  if window.scene.bundle_link_ids(item.key) == [link.id])
    assert f"{rate} per direction" in describe_item(window.scene, bundle)
