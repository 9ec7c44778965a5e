"""File ▸ Import… in the window: the imported design opens unsaved, the report beside it, errors as dialogs."""

from __future__ import annotations

import os

import pytest
from import_helpers import DATA, X5_DUMP, x5_options

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QCoreApplication, QSettings  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402

import designer.gui  # noqa: E402,F401


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(QMessageBox, "critical", lambda _p, title, text, *a, **k: shown.append((title, text)))
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    QCoreApplication.setOrganizationName("topo-designer-tests")
    QCoreApplication.setApplicationName(f"import-tests-{os.getpid()}")
    QSettings().remove("window")
    from designer.gui.window.main_window import MainWindow
    from designer.model.catalog import builtin_catalog

    w = MainWindow(builtin_catalog(), recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    w.errors = shown
    yield w
    w.document.undo_stack.setClean()
    w.close()


def test_file_menu_offers_import_and_opens_the_fabric_unsaved(window):
    from designer.gui.window.import_dialog import import_fabric

    file_menu = window.menuBar().actions()[0].menu()
    assert "&Import\u2026" in [a.text() for a in file_menu.actions()]
    assert import_fabric(window, str(X5_DUMP), x5_options())
    design = window.document.design
    assert design.device_count() == 189 and window.document.path is None
    assert window.document.is_modified()
    report = window.import_report
    assert report.isVisible() and "read as ibnetdiscover" in report.text.toPlainText()
    assert "imported" in window.statusBar().currentMessage()
    assert not window.errors


def test_options_dialog_and_errors_are_dialogs(window, qtbot):
    from designer.gui.window.import_dialog import ImportOptionsDialog, import_fabric

    d = ImportOptionsDialog(window, str(DATA / "psmn-X5.topology.conf"), window.catalog)
    qtbot.addWidget(d)
    d.rate.setText("200G")
    d.gpus.setValue(0)
    d.attributes.setText("rate=bw, rate_unit=M")
    opts = d.options()
    assert opts.default_rate_gbps == 200.0 and opts.gpus_per_adapter == 0 and opts.format is None
    assert opts.attributes == {"rate": "bw", "rate_unit": "M"}
    d.rate.setText("fast")
    with pytest.raises(Exception, match="not a rate"):
        d.options()
    before = window.document.design
    assert not import_fabric(window, str(DATA / "psmn-X5.spine"), opts)
    assert window.errors and window.errors[0][0] == "Cannot import" and "GUIDs" in window.errors[0][1]
    assert window.document.design is before


def test_options_dialog_server_and_hosts(window, qtbot):
    from designer.gui.window.import_dialog import ImportOptionsDialog

    d = ImportOptionsDialog(window, str(DATA / "psmn-X5.ibnetdiscover.topofile"), window.catalog)
    qtbot.addWidget(d)
    assert d.options().server == "auto" and d.options().server_template is None
    d.server.setCurrentIndex(d.server.findData("h100-sxm"))
    d.hosts.setText(r"^(?P<host>\S+)\s")
    opts = d.options()
    assert opts.server == "h100-sxm" and opts.hosts_regex == r"^(?P<host>\S+)\s"
    d.server.setEditText(str(DATA / "simccl-topo_8A100_4CX6.xml"))
    assert d.options().server_template.gpus == 8
    d.hosts.setText("(")
    with pytest.raises(Exception, match="not a regular expression"):
        d.options()


def test_import_is_an_ordinary_undo_step_and_undo_keeps_the_unsaved_mark(window, qtbot, tmp_path, monkeypatch):
    """Import over unsaved work, undo: the work is back, still marked unsaved, and closing asks to save."""
    from PySide6.QtCore import QPointF

    from designer.gui.window.import_dialog import import_fabric

    window.editor.place_component("h100-sxm", QPointF(0, 0))  # unsaved work in an untitled design
    before = window.document.design
    assert import_fabric(window, str(X5_DUMP), x5_options())
    undo = window.actions_by_name["undo"]
    assert undo.text() == f"&Undo Import {X5_DUMP.name}"
    assert window.document.is_modified() and window.isWindowModified()
    undo.trigger()
    assert window.document.design is before and before.has_device("gpu-1")
    assert window.document.is_modified() and window.isWindowModified()
    asked: list[str] = []
    monkeypatch.setattr(QMessageBox, "question",
                        lambda _p, _t, text, *a, **k: asked.append(text) or QMessageBox.StandardButton.Cancel)
    assert not window.close()
    assert asked and asked[0].startswith("Save changes")
    window.actions_by_name["redo"].trigger()
    assert window.document.design.device_count() == 189 and window.document.path is None


def test_import_over_a_saved_file_undoes_to_the_file_and_its_name(window, tmp_path):
    from designer.gui.window.import_dialog import import_fabric

    saved = tmp_path / "mine.json"
    window.document.save(saved)
    assert import_fabric(window, str(X5_DUMP), x5_options())
    assert window.document.path is None and window.document.is_modified()
    window.document.undo_stack.undo()
    assert window.document.path == saved.resolve() and not window.document.is_modified()
    assert window.windowTitle().startswith("mine.json")
