"""The Measured panel: what the loaded nccl-tests runs and port counters say against the design.

One row per run (its verdict per range of sizes, its likely reasons below), one for the port counters,
and one per finding of the counters (link errors, a port below its rate) with a Fail button that runs
the failure what-if for that link in one click (an undoable edit; the live analysis shows the result).
"""

from __future__ import annotations

from pathlib import PurePath

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.model import units


class MeasuredPanel(QWidget):
    """The loaded measurements held against the design (docs/measured.md)."""

    #: (link ids, what): the user asked to fail these links for a what-if.
    fail_requested = Signal(list, str)
    #: A link id: the user clicked a row naming it (show it on the canvas).
    link_chosen = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        self.info = QLabel("No measurements loaded: Analysis \u25b8 Load Measurements\u2026 reads nccl-tests logs "
                           "and port-counter snapshots.")
        self.info.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["measured against predicted", ""])
        self.tree.setRootIsDecorated(True)
        self.tree.setWordWrap(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        lay.addWidget(self.info)
        lay.addWidget(self.tree, 1)
        self.tree.itemClicked.connect(self._on_item_clicked)
        self.fail_buttons: dict[str, QPushButton] = {}

    def show_measurements(self, doc: dict | None) -> None:
        """Fill the panel from a ``compare`` JSON document (None: nothing loaded)."""
        self.tree.clear()
        self.fail_buttons.clear()
        if doc is None:
            self.info.setText("No measurements loaded: Analysis \u25b8 Load Measurements\u2026 reads nccl-tests logs "
                              "and port-counter snapshots.")
            return
        runs = doc.get("runs", [])
        counters = doc.get("counters")
        self.info.setText(f"{units.count(len(runs), 'nccl-tests run')}"
                          + (f", port counters of {units.count(len(counters['links']), 'link')}" if counters else "")
                          + ". The ratio is predicted over measured time: 1 is the model.")
        for run in runs:
            head = QTreeWidgetItem([f"{run['collective']}: {run['ranks']:,} ranks on {len(run['hosts']):,} hosts "
                                    f"({PurePath(run['source']).name}:{run['line']})", ""])
            self.tree.addTopLevelItem(head)
            for r in run["ranges"]:
                QTreeWidgetItem(head, [f"{r['regime']} {units.size(r['first_size'])} \u2013 "
                                       f"{units.size(r['last_size'])}: {r['median_ratio']:.2f}x, {r['verdict']}", ""])
            for reason in run["reasons"]:
                item = QTreeWidgetItem(head, [reason["text"], ""])
                item.setToolTip(0, reason["text"])
            head.setExpanded(True)
        if counters:
            busiest = max(counters["links"], key=lambda u: u["utilisation"], default=None)
            head = QTreeWidgetItem([f"port counters: {units.count(len(counters['links']), 'link')} measured, "
                                    f"{len(counters['unmapped']):,} not mapped"
                                    + (f"; busiest {busiest['link']} at {units.percent(busiest['utilisation'])}"
                                       if busiest else ""), ""])
            self.tree.addTopLevelItem(head)
            for u in counters["unmapped"][:100]:
                QTreeWidgetItem(head, [f"not mapped: {u}", ""])
            for f in counters["findings"]:
                item = QTreeWidgetItem([f"{f['code']}: {f['message']}", ""])
                item.setToolTip(0, f"{f['message']}\n(click to show it on the canvas)")
                item.setData(0, Qt.ItemDataRole.UserRole, f["links"][0] if f["links"] else "")
                item.setForeground(0, Qt.GlobalColor.darkYellow)
                self.tree.addTopLevelItem(item)
                links = list(f["links"])
                button = QPushButton("Fail (what-if)")
                button.setToolTip(f"Fail {', '.join(links)} and see what losing it costs (undo restores it)")
                button.clicked.connect(lambda _c=False, ls=links: self.fail_requested.emit(ls, ", ".join(ls)))
                self.tree.setItemWidget(item, 1, button)
                self.fail_buttons[links[0]] = button

    def _on_item_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        link = item.data(0, Qt.ItemDataRole.UserRole)
        if link:
            self.link_chosen.emit(str(link))
