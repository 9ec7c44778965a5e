"""The panels read at 1280 x 800: units chosen per magnitude, the Bottlenecks table first and sortable with
labelled bars, the Training step naming its parallelism, the GPUs it leaves out and why, with hover text."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QPointF, Qt

from designer.generators import GENERATORS
from designer.gui.panels.bottlenecks_panel import LINK_COLUMN, TOP_BARS
from designer.io import load_design
from designer.model import units
from designer.model.shipped import sample_designs_dir


def _live(qtbot, window, design, workload: str = ""):
    with qtbot.waitSignal(window.runner.live_result, timeout=120_000) as blocker:
        window.document.set_design(design, None)
    if workload:
        with qtbot.waitSignal(window.runner.live_result, timeout=120_000) as blocker:
            assert window.analysis.set_workload(workload)
    return blocker.args[0]


@pytest.fixture
def small_window(make_window):
    w = make_window()
    w.resize(1280, 800)
    w.live.size_docks()
    return w


def test_a_short_step_reads_in_ms_not_a_fraction_of_seconds(small_window, qtbot):
    res = _live(qtbot, small_window, GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8, spines=2),
                "gpt3-1.3b-ddp")
    assert res.step is not None and res.step.step_time_s < 1.0
    panel = small_window.live.panels["step"]
    label = panel.plot.getPlotItem().getAxis("bottom").labelText
    unit, scale = units.time_unit(max(c[2] for c in panel.categories))
    assert unit in ("ms", "us") and label == f"time per step ({unit})"
    x, _ = panel.bars["compute"].getData()
    assert max(x) == pytest.approx(res.step.compute_s / scale)
    # a bar ends at its value: flat ends, never the round caps pyqtgraph gives wide pens
    assert {bar.opts["pen"].capStyle() for bar in panel.bars.values()} == {Qt.PenCapStyle.FlatCap}


def test_the_step_names_its_parallelism_the_gpus_left_out_and_why(small_window, qtbot):
    res = _live(qtbot, small_window, load_design(sample_designs_dir() / "superpod-h100-1su.json"), "llama3-70b")
    step = res.step
    assert step is not None and step.idle_gpus == 24 and step.gpus == 224
    panel = small_window.live.panels["step"]
    info = panel.info.text()
    assert "TP 8 \u00d7 PP 4 \u00d7 DP 7 = 224 GPUs, TP innermost" in info
    assert "24 of 248 GPUs left out" in info
    assert "TP x CP x PP = 32 GPUs, and 248 GPUs hold 7 whole replicas" in panel.info.toolTip()
    # hover text per bar: each names its part, its time and its share of the step
    assert len(panel.tips) == len(panel.categories)
    assert panel.tips[0].startswith(f"compute: {units.duration(step.compute_s)}")
    tp = next(i for i, c in enumerate(panel.categories) if c[1].startswith("tp "))
    assert "tensor parallel allreduce" in panel.tips[tp] and "call" in panel.tips[tp]
    vb = panel.plot.getPlotItem().getViewBox()
    scene = vb.mapViewToScene(QPointF(step.compute_s / panel.time_unit[1] / 2, float(tp)))
    assert panel.bar_at(scene) == tp


def test_bottlenecks_table_first_sortable_with_full_names_and_labelled_bars(small_window, qtbot):
    res = _live(qtbot, small_window, load_design(sample_designs_dir() / "superpod-h100-1su.json"))
    panel = small_window.live.panels["bottlenecks"]
    table = panel.table
    bns = res.report.bottlenecks
    assert table.rowCount() == len(bns) > TOP_BARS
    assert [table.item(i, LINK_COLUMN).text() for i in range(len(bns))] == [b.link for b in bns]
    assert all(b.link in table.item(i, 0).toolTip() for i, b in enumerate(bns))
    x, height = panel.bar_data()
    assert list(x) == list(range(1, TOP_BARS + 1))
    assert [label.toPlainText() for label in panel.labels] == [units.percent(b.utilization) for b in bns[:TOP_BARS]]
    assert height == pytest.approx([b.utilization * 100 for b in bns[:TOP_BARS]])
    # the table comes first in the panel, and gives way to nothing at 1280 x 800
    layout = panel.layout_
    assert layout.indexOf(table) < layout.indexOf(panel.plot)
    assert table.isSortingEnabled()
    table.sortItems(0, Qt.SortOrder.DescendingOrder)
    assert table.item(0, 0).text() == str(len(bns)) and table.item(0, LINK_COLUMN).text() == bns[-1].link
    header = table.horizontalHeader()
    assert header.sectionSize(LINK_COLUMN) >= table.fontMetrics().horizontalAdvance(bns[0].link)
    # A result with no ranked link takes the labels away; the next one labels its bars again.
    panel.show_result(None)
    assert panel.labels == [] and table.rowCount() == 0
    panel.show_result(res)
    assert [label.toPlainText() for label in panel.labels] == [units.percent(b.utilization) for b in bns[:TOP_BARS]]
    assert [label.pos().x() for label in panel.labels] == list(range(1, TOP_BARS + 1))


def test_a_new_result_with_the_same_curves_keeps_the_legend_and_a_new_choice_renames_it(small_window, qtbot):
    res = _live(qtbot, small_window, load_design(sample_designs_dir() / "superpod-h100-1su.json"))
    curves = small_window.live.panels["curves"]

    def legend() -> list[tuple[object, str]]:
        return [(sample.item, label.text) for sample, label in curves.legend.items]

    before = legend()
    selected = [text for _, text in before if text.endswith("(selected)")]
    assert len(selected) == 1 and len(before) == len(curves.curves)
    curves.show_result(res)
    assert legend() == before and all(a is b for (a, _), (b, _) in zip(legend(), before, strict=True))
    other = next(a for a in curves.curves if not selected[0].startswith(a + " "))
    from dataclasses import replace

    labels = [label for _, label in curves.legend.items]
    small_window.runner.traffic = replace(small_window.runner.traffic, algorithm=other)
    small_window.runner.schedule()
    qtbot.waitUntil(lambda: small_window.runner.result is not res and not small_window.runner.running,
                    timeout=60_000)
    assert [t for _, t in legend() if t.endswith("(selected)")] == [f"{other} (selected)"]
    # the same curves under new names: the entries are renamed in place, not built again
    assert [label for _, label in curves.legend.items] == labels


def test_no_panel_text_reads_minus_zero(small_window, qtbot):
    _live(qtbot, small_window, load_design(sample_designs_dir() / "superpod-h100-1su.json"), "llama3-70b")
    texts = [small_window.analysis.step.text(), small_window.analysis.allreduce.text()]
    for panel in small_window.live.panels.values():
        texts += [panel.info.text(), panel.info.toolTip()]
        figures = getattr(panel, "figures", None)
        if figures is not None:
            texts.append(figures.text())
    joined = " ".join(texts)
    assert "-0%" not in joined and "\u22120%" not in joined


def test_the_bill_dock_shows_item_quantity_price_total_and_power_on_screen(small_window, qtbot):
    from designer.gui.panels.bom_dock import DEFAULT_COLUMNS

    small_window.document.set_design(load_design(sample_designs_dir() / "superpod-h100-1su.json"), None)
    dock = small_window.docks["bom"]
    dock.show()
    dock.raise_()
    bom = dock.widget()
    qtbot.waitUntil(lambda: bom.bom is not None and bom.model.rowCount() > 0, timeout=10_000)
    assert bom.shown_columns() == list(DEFAULT_COLUMNS)
    widths = sum(bom.table.columnWidth(c) for c in range(bom.model.columnCount()) if not bom.table.isColumnHidden(c))
    assert widths <= bom.table.viewport().width()
    # the hidden columns come back from the header's menu, and the tooltip names what they hold
    bom.column_actions["category"].setChecked(True)
    assert "category" in bom.shown_columns()
    assert "switch" in bom.model.data(bom.model.index(3, 1), Qt.ItemDataRole.ToolTipRole)


def test_legends_toggle_the_line_rate_has_its_number_and_bisection_has_no_empty_row(small_window, qtbot):
    res = _live(qtbot, small_window, load_design(sample_designs_dir() / "superpod-h100-1su.json"))
    curves = small_window.live.panels["curves"]
    assert curves.legend.isVisible()
    curves.legend_box.setChecked(False)
    assert not curves.legend.isVisible()
    curves.what.setCurrentIndex(1)
    curves.what.setCurrentIndex(0)  # redrawn: the choice holds
    assert not curves.legend.isVisible()
    assert curves.ceiling.label.toPlainText() == f"line rate {units.rate(res.report.ceiling_busbw_bytes_per_s)}"
    util = small_window.live.panels["utilisation"]
    util.legend_box.setChecked(False)
    assert not util.legend.isVisible()
    bis = small_window.live.panels["bisection"]
    ticks = bis.plot.getPlotItem().getAxis("left")._tickLevels
    assert [label for _v, label in ticks[0]] == ["design"]


def test_no_stale_dock_tab_bar_is_drawn_over_the_panels(small_window, qtbot):
    from PySide6.QtWidgets import QTabBar

    qtbot.waitExposed(small_window)
    bars = [b for b in small_window.findChildren(QTabBar) if b.parent() is small_window and b.isVisible()]
    tabs = [[b.tabText(i) for i in range(b.count())] for b in bars]
    assert ["Utilisation", "Bisection"] not in tabs and ["Collective curves", "Bottlenecks"] not in tabs
    for i, a in enumerate(tabs):  # no bar repeats part of another one's tabs
        assert not any(j != i and set(a) < set(b) for j, b in enumerate(tabs)), tabs
    for bar in bars:  # and every tab reads whole
        for i in range(bar.count()):
            assert bar.tabRect(i).width() >= bar.fontMetrics().horizontalAdvance(bar.tabText(i)), bar.tabText(i)


def test_the_analysis_figures_are_never_squeezed_at_1280x800(small_window, qtbot):
    _live(qtbot, small_window, load_design(sample_designs_dir() / "superpod-h100-1su.json"), "llama3-70b")
    dock = small_window.analysis
    qtbot.waitExposed(small_window)
    qtbot.wait(300)  # the labels' new text laid out
    for label in (dock.bisection, dock.allreduce, dock.busiest, dock.step):
        if label.isVisibleTo(dock):
            assert label.height() >= label.heightForWidth(label.width()), label.text()


def test_compare_variants_shows_its_table_first_and_whole_when_docked(small_window, qtbot):
    _live(qtbot, small_window, load_design(sample_designs_dir() / "superpod-h100-1su.json"))
    assert small_window.live.new_variant("copy")
    panel = small_window.live.compare
    small_window.docks["compare"].raise_()
    qtbot.waitUntil(lambda: panel.table.rowCount() > 5 and panel.table.columnCount() == 2, timeout=120_000)
    qtbot.wait(200)
    split = panel.table.parentWidget()
    assert split.indexOf(panel.table) == 0
    if panel.height() < 320:  # docked at 1280 x 800: the curves give way to the figures
        assert not panel.plot.isVisible()
    rows = panel.table.viewport().height() // panel.table.rowHeight(0)
    assert rows >= min(panel.table.rowCount(), 6)


def test_axes_name_their_unit_without_scale_factors(small_window, qtbot):
    _live(qtbot, small_window, GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8, spines=2), "gpt3-1.3b-ddp")
    for key in ("utilisation", "step", "bottlenecks"):
        pi = small_window.live.panels[key].plot.getPlotItem()
        for side in ("left", "bottom"):
            axis = pi.getAxis(side)
            text = axis.labelString() if axis.label.isVisible() else ""
            assert not re.search(r"\(x[\d.]|\(m%\)|e-\d", text), (key, side, text)
