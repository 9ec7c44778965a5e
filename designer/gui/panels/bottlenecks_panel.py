"""The Bottlenecks panel: the most loaded links, table first.

The table lists every ranked link (rank, the full link name, utilisation, load, flows, the fair
share per flow), sortable by any column, each link's direction, traffic and example flows on hover;
a click selects the link on the canvas, a double-click centres the canvas on it. Under it a small
bar chart of the first :data:`TOP_BARS` links, one labelled bar each (its rank under it, its
utilisation over it), so ten equal loads no longer merge into one block.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem

from designer.gui.panels.live_runner import LiveResult
from designer.gui.panels.plot_base import PlotPanel
from designer.model import units

#: Bars drawn under the table (the table lists every ranked link).
TOP_BARS = 5
BAR_COLOUR = "#D62828"
#: Panel height from which the bar chart shows under the table, pixels.
BARS_FROM_PX = 260
#: Column heads, with what each means on hover.
COLUMNS = (("#", "rank by utilisation (1: the busiest)"),
           ("Link", "the link id in the design (hover: direction, traffic and example flows)"),
           ("Utilisation", "load over capacity, in the busier direction"),
           ("Load", "bytes per second in that direction under the traffic"),
           ("Flows", "flows crossing the link in that direction"),
           ("Fair share", "the max-min fair rate of each flow this link limits"))
#: The column holding the link id (a click selects it).
LINK_COLUMN = 1


class _Item(QTableWidgetItem):
    """A cell shown as text and sorted by a number (``Qt.UserRole``) when it has one."""

    def __init__(self, text: str, key: float | None = None) -> None:
        super().__init__(text)
        if key is not None:
            self.setData(Qt.ItemDataRole.UserRole, float(key))
            self.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    def __lt__(self, other: QTableWidgetItem) -> bool:
        a, b = self.data(Qt.ItemDataRole.UserRole), other.data(Qt.ItemDataRole.UserRole)
        if a is not None and b is not None:
            return float(a) < float(b)
        return self.text() < other.text()


class BottlenecksPanel(PlotPanel):
    """The most loaded links: a sortable table, then a bar per link of the first :data:`TOP_BARS`."""

    link_activated = Signal(str)  # clicked: select it
    link_centred = Signal(str)  # double-clicked: centre the canvas on it

    def __init__(self) -> None:
        super().__init__("Bottlenecks")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels([c for c, _ in COLUMNS])
        for i, (_c, tip) in enumerate(COLUMNS):
            self.table.horizontalHeaderItem(i).setToolTip(tip)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 6)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        self.table.setToolTip("click: select the link on the canvas; double-click: centre the canvas on it; "
                              "click a column head to sort")
        self.table.cellClicked.connect(lambda r, _c: self._emit(self.link_activated, r))
        self.table.cellDoubleClicked.connect(lambda r, _c: self._emit(self.link_centred, r))
        pi = self.plot.getPlotItem()
        pi.setLabel("left", "utilisation (%)")
        pi.getAxis("left").enableAutoSIPrefix(False)
        pi.showGrid(x=False, y=True, alpha=0.25)
        pi.setMouseEnabled(x=False, y=False)
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.6, brush=QColor(BAR_COLOUR).lighter(140),
                                    pen=pg.mkPen(BAR_COLOUR))
        pi.addItem(self.bars)
        self.labels: list[pg.TextItem] = []
        self.plot.setMinimumHeight(0)  # the panel may be short: the bars give way (resizeEvent)
        self.plot.setMaximumHeight(120)
        self.layout_.addWidget(self.table, 1)
        self.layout_.addWidget(self.plot)
        self.layout_.addWidget(self.info)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """The table first: on a short panel the bar chart gives way (the table keeps four rows or more)."""
        super().resizeEvent(event)
        self.plot.setVisible(self.height() >= BARS_FROM_PX)
        self._bar_ticks()

    def _emit(self, signal: Signal, row: int) -> None:
        item = self.table.item(row, LINK_COLUMN)
        if item is not None:
            signal.emit(item.text())

    def bar_data(self) -> tuple[np.ndarray, np.ndarray]:
        """The bars drawn: ranks and utilisation in percent."""
        opts = self.bars.opts
        return np.asarray(opts.get("x", []), dtype=float), np.asarray(opts.get("height", []), dtype=float)

    def has_data(self) -> bool:
        return bool(len(self.bar_data()[0]))

    def _bar_ticks(self) -> None:
        """Each bar named under it: the link's name when the bars are wide enough for it, else its rank."""
        names = getattr(self, "_names", [])
        room = self.plot.width() / max(len(names), 1)
        wide = bool(names) and room >= 1.1 * max(self.fontMetrics().horizontalAdvance(n) for n in names)
        self.plot.getPlotItem().getAxis("bottom").setTicks(
            [[(float(i + 1), n if wide else f"#{i + 1}") for i, n in enumerate(names)]])

    def _draw_bars(self, util: np.ndarray, names: list[str] | tuple[str, ...] = ()) -> None:
        pi = self.plot.getPlotItem()
        top = util[:TOP_BARS]
        ranks = np.arange(1, len(top) + 1, dtype=float)
        self.bars.setOpts(x=ranks, height=top)
        for label in self.labels[len(top):]:
            pi.removeItem(label)
        del self.labels[len(top):]
        for i, (x, u) in enumerate(zip(ranks, top, strict=True)):
            if i == len(self.labels):  # the labels of the last result are re-used, their text and place set
                self.labels.append(pg.TextItem("", color="#3A4350", anchor=(0.5, 1.0)))
                pi.addItem(self.labels[i])
            self.labels[i].setText(units.percent(u / 100.0))
            self.labels[i].setPos(float(x), float(u))
        self._names = list(names[:TOP_BARS])
        self._bar_ticks()
        pi.setXRange(0.4, max(len(top), 1) + 0.6, padding=0)
        pi.setYRange(0, max(100.0, float(top.max()) if len(top) else 0.0) * 1.18, padding=0)

    def show_result(self, result: LiveResult | None) -> None:
        rep = result.report if result is not None else None
        bns = list(rep.bottlenecks) if rep is not None else []
        self._draw_bars(np.array([b.utilization * 100.0 for b in bns]), [b.link for b in bns])
        self.table.setSortingEnabled(False)
        header = self.table.horizontalHeader()
        # Sized to the contents once, after the rows are in (per cell, it measures every row again).
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.setRowCount(len(bns))
        for i, bn in enumerate(bns):
            load = bn.utilization * bn.capacity_bytes_per_s
            cells = [_Item(str(i + 1), i + 1), _Item(bn.link),
                     _Item(units.percent(bn.utilization), bn.utilization),
                     _Item(units.rate(load), load),
                     _Item(units.count(bn.flows, "flow") if bn.flows else "\u2014", bn.flows),
                     _Item(units.rate(bn.fair_rate_bytes_per_s) if bn.fair_rate_bytes_per_s is not None
                           else "\u2014", bn.fair_rate_bytes_per_s or 0.0)]
            examples = "\n".join(bn.example_flows)
            tip = (f"{bn.link}\n{bn.direction} ({bn.protocol}), {units.percent(bn.utilization)} busy, capacity "
                   f"{units.rate(bn.capacity_bytes_per_s)}\n{bn.algorithm} {bn.collective} of "
                   f"{units.size(bn.message_bytes)}" + (f"\nflows such as:\n{examples}" if examples else ""))
            for c, item in enumerate(cells):
                item.setToolTip(tip)
                self.table.setItem(i, c, item)
        self.table.setSortingEnabled(True)
        self.table.sortItems(0, Qt.SortOrder.AscendingOrder)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        if rep is None:
            self.info.setText("No analysis yet.")
        elif not bns:
            self.info.setText("No link carries this traffic.")
        else:
            self.set_info(f"{units.count(len(bns), 'link')} ranked by utilisation under the {rep.collective} of "
                          f"{units.size(rep.link_use_bytes)}",
                          "Fair share: the max-min fair rate of the flows this link limits. Hover a link "
                          "for its direction and examples of its flows; click selects it, double-click centres "
                          "the canvas on it; click a column head to sort.")


__all__ = ["COLUMNS", "LINK_COLUMN", "TOP_BARS", "BottlenecksPanel"]
