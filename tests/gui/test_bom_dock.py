"""The bill of materials dock: the figures of ``topo-designer bom``, kept up to date, copied as CSV."""

from __future__ import annotations

import csv
import io
import json

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication

from designer.analysis.bom.bill import bill_of_materials
from designer.generators import build_rail_optimized
from designer.gui.document.commands import MoveDevicesCommand, SetDeviceFieldCommand
from designer.io import load_design
from designer.model import DesignError
from designer.model.catalog import Catalog
from designer.model.shipped import sample_designs_dir
from designer.present.bom_text import BOM_HEADERS, bom_csv, bom_rows, totals_text


def _shown(window):
    """The BOM dock, raised in front of the dock it shares a place with."""
    dock = window.docks["bom"]
    dock.show()
    dock.raise_()
    QApplication.processEvents()
    return dock.widget()


def _table(bom_dock) -> list[list[str]]:
    m = bom_dock.model
    return [[m.data(m.index(r, c)) for c in range(m.columnCount())] for r in range(m.rowCount())]


def _open_sample(window, name="superpod-h100-1su.json"):
    design = load_design(sample_designs_dir() / name)
    window.document.set_design(design, None)
    return design


def test_the_dock_is_in_the_window_and_the_view_menu(window):
    assert "bom" in window.docks
    dock = window.docks["bom"]
    assert dock.windowTitle() == "Bill of Materials"
    assert dock.toggleViewAction() in window.view_menu.actions()
    # it shares the analysis dock's place rather than taking width from the canvas
    assert dock in window.tabifiedDockWidgets(window.docks["analysis"])


def test_it_shows_the_same_figures_as_the_command_line(window, qtbot):
    bom_dock = _shown(window)
    design = _open_sample(window)
    qtbot.waitUntil(lambda: bom_dock.bom is not None and bom_dock.bom.design == design.name, timeout=30_000)
    expected = bill_of_materials(load_design(sample_designs_dir() / "superpod-h100-1su.json"), window.catalog)
    assert _table(bom_dock) == bom_rows(expected)
    headers = [bom_dock.model.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
               for c in range(len(BOM_HEADERS))]
    assert [h.split(" (right-click")[0] for h in headers] == list(BOM_HEADERS)
    assert bom_dock.totals.text().replace("  \u00b7  ", "    ") == totals_text(expected)
    assert "nvlink" in bom_dock.board.text()
    categories = {row[0] for row in _table(bom_dock)}
    assert {"gpu", "nic", "switch", "cable", "transceiver"} <= categories


def test_it_follows_edits_after_a_pause_but_not_moves(window, qtbot):
    bom_dock = _shown(window)
    qtbot.waitUntil(lambda: bom_dock.bom is not None, timeout=30_000)
    assert bom_dock.model.rowCount() == 0
    window.editor.place_component("qm9700", QPointF(0, 0))
    assert bom_dock.model.rowCount() == 0  # not on every edit: after a pause
    qtbot.waitUntil(lambda: bom_dock.bom.quantity("switch", tier="leaf") == 1, timeout=30_000)
    sw = window.editor.place_component("qm9700", QPointF(400, 0))
    window.document.push(SetDeviceFieldCommand(window.document.design, sw, "tier", "spine"))
    qtbot.waitUntil(lambda: bom_dock.bom.quantity("switch", tier="spine") == 1, timeout=30_000)
    counted = bom_dock.generation
    window.document.push(MoveDevicesCommand(window.document.design, {sw: (800.0, 0.0)}))
    window.document.push(SetDeviceFieldCommand(window.document.design, sw, "name", "spine A"))
    qtbot.wait(500)
    assert bom_dock.generation == counted  # moving and renaming cannot change the bill
    window.document.undo_stack.undo()
    window.document.undo_stack.undo()
    window.document.undo_stack.undo()  # the tier change
    qtbot.waitUntil(lambda: bom_dock.bom.quantity("switch", tier="leaf") == 2, timeout=30_000)


def test_a_hidden_dock_counts_when_it_is_shown_again(window, qtbot):
    bom_dock = _shown(window)
    qtbot.waitUntil(lambda: bom_dock.bom is not None, timeout=30_000)
    window.docks["bom"].hide()
    window.editor.place_component("h100-sxm", QPointF(0, 0))
    qtbot.wait(400)
    assert bom_dock.bom.quantity("gpu") == 0
    _shown(window)
    qtbot.waitUntil(lambda: bom_dock.bom.quantity("gpu") == 1, timeout=30_000)


def test_copy_as_csv_from_the_button_and_the_context_menu(window, qtbot):
    bom_dock = _shown(window)
    _open_sample(window)
    qtbot.waitUntil(lambda: bom_dock.bom is not None and bom_dock.model.rowCount() > 0, timeout=30_000)
    QApplication.clipboard().clear()
    qtbot.mouseClick(bom_dock.copy_button, Qt.MouseButton.LeftButton)
    text = QApplication.clipboard().text()
    assert text == bom_csv(bom_dock.bom)
    rows = list(csv.reader(io.StringIO(text)))
    assert tuple(rows[0]) == BOM_HEADERS and rows[-1][0] == "total"
    assert len(rows) == bom_dock.model.rowCount() + 2
    assert bom_dock.table.contextMenuPolicy() == Qt.ContextMenuPolicy.ActionsContextMenu
    (menu_action,) = [a for a in bom_dock.table.actions() if a.text() == "Copy as CSV"]
    QApplication.clipboard().clear()
    menu_action.trigger()
    assert QApplication.clipboard().text() == text


def test_unpriced_parts_show_the_bills_own_notes(make_window, qtbot):
    window = make_window()
    window.document.catalog = Catalog()  # no catalog: nothing can be priced
    bom_dock = _shown(window)
    window.document.set_design(build_rail_optimized(sus=1, nodes_per_su=2), None)
    qtbot.waitUntil(lambda: bom_dock.bom is not None and bool(bom_dock.bom.notes), timeout=30_000)
    expected = bill_of_materials(build_rail_optimized(sus=1, nodes_per_su=2), Catalog())
    assert bom_dock.notes.isVisibleTo(bom_dock)
    for note in expected.notes:
        assert f"Note: {note}" in bom_dock.notes.text()
    assert "not in the catalog" in bom_dock.notes.text()
    m = bom_dock.model
    assert all(m.unpriced(r) for r in range(m.rowCount()) if m.bom.lines[r].category != "transceiver")
    assert m.data(m.index(0, 7), Qt.ItemDataRole.ForegroundRole) is not None  # the price, in amber
    assert m.data(m.index(0, 6), Qt.ItemDataRole.ForegroundRole) is None  # not the power
    assert "not priced" in m.data(m.index(0, 1), Qt.ItemDataRole.ToolTipRole)


def test_parts_the_catalog_prices_at_zero_are_not_marked(window, qtbot):
    bom_dock = _shown(window)
    _open_sample(window)
    qtbot.waitUntil(lambda: bom_dock.bom is not None and bom_dock.model.rowCount() > 0, timeout=30_000)
    m = bom_dock.model
    zero = [r for r in range(m.rowCount()) if not m.bom.lines[r].unit_price_usd]
    assert zero  # the sample's NVLink switch fabric and fabric manager cost nothing extra in the catalog
    assert not any(m.unpriced(r) for r in zero) and not bom_dock.bom.notes


def test_a_bill_that_cannot_be_counted_says_why(window, qtbot, monkeypatch):
    import designer.gui.panels.bom_dock as module

    def broken(design, catalog):
        raise DesignError("catalog.json: cable 'x' has no rate")

    monkeypatch.setattr(module, "bill_of_materials", broken)
    bom_dock = _shown(window)
    _open_sample(window)
    qtbot.waitUntil(lambda: "cannot be counted" in bom_dock.state.text(), timeout=30_000)
    assert "cable 'x' has no rate" in bom_dock.state.text()
    assert bom_dock.model.rowCount() == 0 and not bom_dock.copy_button.isEnabled()


def test_a_large_design_is_counted_in_a_worker_thread(window, qtbot, monkeypatch):
    import threading

    import designer.gui.panels.bom_dock as module

    monkeypatch.setattr(module, "THREAD_ABOVE", 100)
    threads: list[int] = []
    run = module._Count.run
    monkeypatch.setattr(module._Count, "run", lambda self: threads.append(threading.get_ident()) or run(self))
    bom_dock = _shown(window)
    design = _open_sample(window)
    qtbot.waitUntil(lambda: bom_dock.bom is not None and not bom_dock.counting, timeout=10000)
    assert threads and threading.get_ident() not in threads  # counted off the UI thread
    assert _table(bom_dock) == bom_rows(bill_of_materials(design, window.catalog))


@pytest.mark.parametrize("size", [(1440, 900), (1280, 800)])
def test_the_canvas_keeps_half_the_width_with_the_dock_shown(make_window, qtbot, size):
    window = make_window()
    window.resize(*size)
    bom_dock = _shown(window)
    _open_sample(window, "superpod-h100-4su.json")
    qtbot.waitUntil(lambda: bom_dock.bom is not None and bom_dock.model.rowCount() > 0, timeout=5000)
    for _ in range(5):
        QApplication.processEvents()
    assert window.view.width() >= size[0] / 2
    assert window.docks["bom"].width() <= size[0] / 3


@pytest.mark.parametrize("name", ["superpod-h100-1su.json", "superpod-h100-4su.json"])
def test_the_dock_and_topo_designer_bom_print_the_same_figures(window, qtbot, capsys, name):
    """What the dock shows, laid out as a text table, is what the command prints; its CSV carries
    the command's JSON figures."""
    from designer.cli import main
    from designer.present.bom_text import BOM_ALIGN, table

    path = sample_designs_dir() / name
    bom_dock = _shown(window)
    window.document.set_design(load_design(path), None)
    qtbot.waitUntil(lambda: bom_dock.bom is not None and bom_dock.model.rowCount() > 0, timeout=5000)
    capsys.readouterr()
    assert main(["bom", str(path)]) == 0
    printed = capsys.readouterr().out
    assert table(list(BOM_HEADERS), _table(bom_dock), BOM_ALIGN) in printed
    assert bom_dock.totals.text().replace("  \u00b7  ", "    ") in printed
    assert bom_dock.board.text() and bom_dock.board.text() in printed

    assert main(["bom", str(path), "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    QApplication.clipboard().clear()
    qtbot.mouseClick(bom_dock.copy_button, Qt.MouseButton.LeftButton)
    rows = list(csv.reader(io.StringIO(QApplication.clipboard().text())))
    assert tuple(rows[0]) == BOM_HEADERS and len(rows) == len(doc["lines"]) + 2
    for row, line in zip(rows[1:-1], doc["lines"], strict=False):
        assert row[0] == line["category"] and row[1] == (line["item"] or line["name"])
        assert int(row[3]) == line["quantity"]
        assert float(row[6]) == pytest.approx(line["power_w"] / 1000, abs=0.005)
        assert float(row[7]) == pytest.approx(line["price_usd"], abs=0.5)
    total = rows[-1]
    assert total[0] == "total"
    assert float(total[6]) == pytest.approx(doc["totals"]["power_w"] / 1000, abs=0.005)
    assert float(total[7]) == pytest.approx(doc["totals"]["price_usd"], abs=0.5)


def test_a_large_design_is_read_for_its_bill_without_stopping_the_window(window, qtbot, monkeypatch):
    # The bill takes the feed's snapshot read in slices between event-loop turns, never the one read
    # at once on the UI thread (a second at 131,072 GPUs, before the window could even appear).
    import designer.gui.panels.bom_dock as module

    monkeypatch.setattr(module, "THREAD_ABOVE", 100)
    bom_dock = _shown(window)

    def at_once():
        raise AssertionError("the bill read the design at once on the UI thread")

    monkeypatch.setattr(bom_dock.feed, "snapshot", at_once)
    design = _open_sample(window)
    qtbot.waitUntil(lambda: bom_dock.bom is not None and not bom_dock.counting, timeout=10000)
    assert _table(bom_dock) == bom_rows(bill_of_materials(design, window.catalog))


def test_an_edit_made_while_the_hidden_dock_counts_is_counted_when_it_is_shown_again(window, qtbot, monkeypatch):
    import threading

    import designer.gui.panels.bom_dock as module

    monkeypatch.setattr(module, "THREAD_ABOVE", 100)
    release = threading.Event()
    run = module._Count.run
    monkeypatch.setattr(module._Count, "run", lambda self: release.wait(10) and run(self))
    bom_dock = _shown(window)
    design = _open_sample(window)
    qtbot.waitUntil(lambda: bom_dock.counting, timeout=10000)
    window.docks["bom"].hide()
    leaf = next(d for d in design.iter_devices() if d.tier == "leaf")
    window.document.push(SetDeviceFieldCommand(window.document.design, leaf.id, "tier", "spine"))
    release.set()
    # The count of the design before the edit ends while the dock is hidden (it used to raise here).
    qtbot.waitUntil(lambda: not bom_dock.counting, timeout=10000)
    _shown(window)
    qtbot.waitUntil(lambda: not bom_dock.counting and bom_dock.bom is not None
                    and _table(bom_dock) == bom_rows(bill_of_materials(design, window.catalog)), timeout=10000)
