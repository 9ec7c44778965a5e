"""The bill of materials dock: devices by model and tier, cables by medium and length, optics,
power and cost, kept up to date with the design.

The figures are ``designer.analysis.bom.bill.bill_of_materials`` and their text is
``designer.present.bom_text``: the same table as ``topo-designer bom``. The dock recounts when
the document's feed is quiet (:mod:`designer.gui.document.feed`: settled, and the live analysis
done with it) after a change that can alter
the bill (devices, links, their models, tiers, ports, media, lengths and cables; not moves,
renames or collapsing), and only while it is shown. A small design is counted on the spot; a
large one is counted on the feed's snapshot, read in slices between event-loop turns, in the feed's
worker pool (the 16,384-GPU sample: about 1.3 s in the worker before the figures appear).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRunnable,
    Qt,
    Signal,
)
from PySide6.QtGui import QAction, QColor, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from designer.analysis.bom.bill import Bom, BomLine, bill_of_materials
from designer.gui.document.document import Document
from designer.gui.document.feed import FABRIC, NAMES, DesignFeed
from designer.model import Design, DesignError, units
from designer.model.catalog import Catalog
from designer.model.snapshot import DesignSnapshot
from designer.present.bom_text import BOM_ALIGN, BOM_HEADERS, board_text, bom_csv, bom_rows, totals_text

#: Designs with more devices and links than this are counted in a worker thread (from the edit's one
#: snapshot): counting 1,024 GPUs' 6,320 devices and links takes about 50 ms, too long for the UI thread.
THREAD_ABOVE = 2000
#: The narrowest the item column gets when the dock is narrow (px); drag the header to widen it.
MIN_ITEM_WIDTH = 70
#: The columns shown at first, in this order (the header's context menu shows the others: category,
#: tier / link and length, unit W); every column stays in the model and the CSV.
DEFAULT_COLUMNS = ("item", "qty", "unit USD", "total USD", "total kW")
#: Column heads as the narrow dock shows them (the hover and the CSV give the full head).
SHORT_HEADS = {"unit USD": "unit $", "total USD": "total $", "total kW": "kW", "tier / link, length": "tier / link"}
_UNPRICED = QColor("#B25E00")
_PRICE_COLUMNS = (BOM_HEADERS.index("unit USD"), BOM_HEADERS.index("total USD"))


def _unpriced(line: BomLine, catalog: Catalog) -> bool:
    """A line the bill could not price (its notes say why): a device with no catalog model that
    gives neither power nor price of its own, a cable with no catalog cable."""
    if line.unit_price_usd:
        return False
    if line.category == "cable":
        return line.item not in catalog.cables
    if line.category == "transceiver":
        return line.item not in catalog.transceivers
    return line.item not in catalog.components and not line.unit_power_w
_Index = QModelIndex | QPersistentModelIndex


class BomTableModel(QAbstractTableModel):
    """The bill's lines as the terminal table shows them (one row per line, no widget per cell)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bom: Bom | None = None
        self._rows: list[list[str]] = []
        self._unpriced: list[bool] = []

    def set_bom(self, bom: Bom | None, catalog: Catalog | None = None) -> None:
        """Show ``bom``; with ``catalog``, the lines it cannot price (what the notes are about)
        are marked."""
        self.beginResetModel()
        self.bom = bom
        self._rows = bom_rows(bom) if bom is not None else []
        self._unpriced = [catalog is not None and _unpriced(line, catalog) for line in bom.lines] if bom else []
        self.endResetModel()

    def unpriced(self, row: int) -> bool:
        return self._unpriced[row]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802 (Qt override)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802 (Qt override)
        return 0 if parent.isValid() else len(BOM_HEADERS)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.bom is None:
            return None
        row, col = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._rows[row][col]
        if role == Qt.ItemDataRole.TextAlignmentRole:
            horizontal = Qt.AlignmentFlag.AlignRight if BOM_ALIGN[col] == "r" else Qt.AlignmentFlag.AlignLeft
            return int(horizontal | Qt.AlignmentFlag.AlignVCenter)
        line = self.bom.lines[row]
        if role == Qt.ItemDataRole.ToolTipRole:
            where = self._rows[row][BOM_HEADERS.index("tier / link, length")]
            tip = f"{line.name}\n{line.category}" + (f", {where}" if where else "")
            if line.medium:
                tip += f"\n{line.medium.replace('_', ' ')}"
            if self._unpriced[row]:
                tip += "\nnot priced: see the notes below the table"
            return tip
        if role == Qt.ItemDataRole.ForegroundRole and self._unpriced[row] and col in _PRICE_COLUMNS:
            return _UNPRICED
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 (Qt override)
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return SHORT_HEADS.get(BOM_HEADERS[section], BOM_HEADERS[section])
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{BOM_HEADERS[section]} (right-click: choose the columns)"
        return None


class _Signals(QObject):
    finished = Signal(int, object, float)  # generation, Bom or error text, seconds


class _Count(QRunnable):
    """Counts a snapshot's bill of materials in a worker thread."""

    def __init__(self, owner: BomDock, state: DesignSnapshot, catalog: Catalog, signals: _Signals) -> None:
        super().__init__()
        self.owner, self.generation = owner, owner.generation
        self.state, self.catalog, self.signals = state, catalog, signals

    def run(self) -> None:
        if self.generation != self.owner.generation:
            return  # an edit since has its own count (or none is wanted): this one would only hold the worker
        t0 = time.perf_counter()
        result = count_bom(lambda: self.state.build(), self.catalog)
        self.signals.finished.emit(self.generation, result, time.perf_counter() - t0)


def count_bom(design: Callable[[], Design], catalog: Catalog) -> Bom | str:
    """The bill of materials, or the one-line reason it cannot be counted."""
    try:
        return bill_of_materials(design(), catalog)
    except DesignError as e:
        return str(e)
    except Exception as e:  # noqa: BLE001 - a broken catalog entry must not take the window down
        return f"{type(e).__name__}: {e}"


class BomDock(QWidget):
    """The bill of materials of the document's design, with its totals and notes."""

    #: a new bill is shown (or None when it could not be counted)
    updated = Signal(object)

    def __init__(self, document: Document, feed: DesignFeed) -> None:
        super().__init__()
        self.document = document
        self.feed = feed
        self.bom: Bom | None = None
        self.seconds = 0.0
        self.generation = 0
        self.counting = False
        self._dirty = True
        self._signals = _Signals()
        self._signals.finished.connect(self._on_count_finished)

        self.totals = QLabel("\u2014")
        self.totals.setWordWrap(True)  # the dock stays narrow: the canvas keeps its width
        self.totals.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        f = self.totals.font()
        f.setBold(True)
        self.totals.setFont(f)
        self.state = QLabel("")
        self.state.setWordWrap(True)
        self.model = BomTableModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.viewport().installEventFilter(self)
        self.table.verticalHeader().hide()
        self.table.setAlternatingRowColors(True)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        rows = self.table.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.table.fontMetrics().height() + 6)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        self._default_columns(header)
        self.copy_action = QAction("Copy as CSV", self)
        self.copy_action.setToolTip("Put the table on the clipboard as CSV, for a spreadsheet")
        self.copy_action.triggered.connect(self.copy_csv)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.table.addAction(self.copy_action)
        self.board = QLabel("")
        self.board.setWordWrap(True)
        self.notes = QLabel("")
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notes.setStyleSheet("color: #8A4B00")
        self.copy_button = QPushButton("Copy as CSV")
        self.copy_button.setToolTip(self.copy_action.toolTip())
        self.copy_button.clicked.connect(self.copy_csv)
        top = QHBoxLayout()
        top.addWidget(self.totals, 1)
        top.addWidget(self.copy_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 6)
        lay.addLayout(top)
        lay.addWidget(self.state)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.board)
        lay.addWidget(self.notes)
        feed.edited.connect(self._on_feed_edited)
        feed.quiet.connect(self._on_feed_quiet)
        document.design_replaced.connect(self._on_document_design_replaced)
        self._on_document_design_replaced(document.design)

    def _default_columns(self, header: QHeaderView) -> None:
        """Show :data:`DEFAULT_COLUMNS` in their order; the header's context menu toggles every column."""
        for target, name in enumerate(DEFAULT_COLUMNS):
            header.moveSection(header.visualIndex(BOM_HEADERS.index(name)), target)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        header.setToolTip("right-click: choose the columns")
        self.column_actions: dict[str, QAction] = {}
        for col, name in enumerate(BOM_HEADERS):
            action = QAction(name, header)
            action.setCheckable(True)
            action.setChecked(name in DEFAULT_COLUMNS)
            action.toggled.connect(lambda on, c=col: self.table.setColumnHidden(c, not on))
            header.addAction(action)
            self.column_actions[name] = action
            self.table.setColumnHidden(col, name not in DEFAULT_COLUMNS)

    def _fit_item_column(self) -> None:
        """The item column takes what the other shown columns leave of the dock's width (at least
        :data:`MIN_ITEM_WIDTH`; a long name is elided in the middle, whole in the tooltip), so quantity,
        price and power stay on screen."""
        item = BOM_HEADERS.index("item")
        others = sum(self.table.columnWidth(c) for c in range(len(BOM_HEADERS))
                     if c != item and not self.table.isColumnHidden(c))
        bar = self.table.verticalScrollBar()
        room = self.table.viewport().width() - others - 2 - (0 if bar.isVisible() else bar.sizeHint().width())
        self.table.setColumnWidth(item, max(MIN_ITEM_WIDTH, min(self.table.sizeHintForColumn(item), room)))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if self.bom is not None:
            self._fit_item_column()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        """The table's own area resized (the labels under it changed, a scroll bar came): fit again."""
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize and self.bom is not None:
            self._fit_item_column()
        return super().eventFilter(watched, event)

    def shown_columns(self) -> list[str]:
        """The column heads shown, left to right."""
        header = self.table.horizontalHeader()
        cols = sorted(range(len(BOM_HEADERS)), key=header.visualIndex)
        return [BOM_HEADERS[c] for c in cols if not self.table.isColumnHidden(c)]

    # ------------------------------------------------------------------ following the design
    def _on_document_design_replaced(self, _design: Design) -> None:
        self.generation += 1  # a count of the previous design still running is dropped
        self.counting = False
        self._dirty = True  # counted when the feed settles with the new design
        self._show(None, "")

    def _on_feed_edited(self, aspects: frozenset[str]) -> None:
        """What can change the bill: devices, links, ports, models, cables; not moves, groups,
        failures (a failed link is still bought) or renames of catalogued devices."""
        if FABRIC in aspects or (NAMES in aspects and self._names_listed()):
            self._dirty = True

    def _names_listed(self) -> bool:
        """Some device has no catalog model: the bill lists it under its own name."""
        components = self.document.catalog.components
        return any(dev.model not in components for dev in self.document.design.iter_devices())

    def _on_feed_quiet(self, _aspects: frozenset[str]) -> None:
        if self._dirty and self.isVisible():  # a hidden dock counts when it is shown
            self.recount()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        if self._dirty:
            self.recount()

    # ------------------------------------------------------------------ counting
    def recount(self) -> None:
        """Count the bill of the design as it is now: here if small, else in the feed's worker pool."""
        design = self.document.design
        catalog = self.document.catalog
        self.generation += 1
        if design.device_count() + design.link_count() <= THREAD_ABOVE:
            self._dirty = False
            t0 = time.perf_counter()
            result = count_bom(lambda: design, catalog)
            self._on_count_finished(self.generation, result, time.perf_counter() - t0)
            return
        self.counting = True
        self.state.setText(f"Counting {units.count(design.device_count(), 'device')}\u2026")
        # Read in slices between event-loop turns (never a second on the UI thread at 131,072 GPUs).
        # Dirty until read: an edit before the reading ends drops it, and the quiet after any edit
        # (a move too) counts again.
        self._dirty = True
        generation = self.generation
        self.feed.snapshot_later(lambda _revision, snapshot: self._count(generation, snapshot))

    def _count(self, generation: int, snapshot: DesignSnapshot) -> None:
        if generation != self.generation:
            return
        self._dirty = False
        self.feed.pool.start(_Count(self, snapshot, self.document.catalog, self._signals))

    def _on_count_finished(self, generation: int, result: Bom | str, seconds: float) -> None:
        if generation != self.generation:
            return  # the design changed (or was replaced) while counting: a newer count follows
        self.counting = False
        self.seconds = seconds
        if isinstance(result, str):
            self._show(None, f"The bill of materials cannot be counted: {result}")
        else:
            self._show(result, "")
        # Edited meanwhile (_dirty): the quiet after the edit, or the dock's next showing, counts again.

    def _show(self, bom: Bom | None, problem: str) -> None:
        self.bom = bom
        self.model.set_bom(bom, self.document.catalog)
        self.table.resizeColumnsToContents()
        self._fit_item_column()
        self.state.setText(problem)
        self.state.setVisible(bool(problem))
        self.state.setStyleSheet("color: #D62828" if problem else "")
        self.copy_button.setEnabled(bom is not None)
        self.copy_action.setEnabled(bom is not None)
        if bom is None:
            self.totals.setText("\u2014")
            self.board.setText("")
            self.notes.setText("")
        else:
            self.totals.setText(totals_text(bom).replace("    ", "  \u00b7  "))
            self.board.setText(board_text(bom))
            self.notes.setText("\n".join(f"Note: {n}" for n in bom.notes))
        self.board.setVisible(bool(self.board.text()))
        self.notes.setVisible(bool(self.notes.text()))
        self.updated.emit(bom)

    # ------------------------------------------------------------------ clipboard
    def csv_text(self) -> str:
        """The table as CSV (with a totals row), or an empty string when there is no bill."""
        return bom_csv(self.bom) if self.bom is not None else ""

    def copy_csv(self) -> bool:
        text = self.csv_text()
        if not text:
            return False
        QApplication.clipboard().setText(text)
        self.state.setStyleSheet("")
        self.state.setText(f"Copied {units.count(len(self.bom.lines), 'line')} as CSV.")  # type: ignore[union-attr]
        self.state.setVisible(True)
        return True
