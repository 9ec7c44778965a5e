"""GUI test fixtures: offscreen Qt, isolated settings and recovery files, no blocking dialogs."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QCoreApplication  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402

import designer.gui  # noqa: E402,F401  (applies the PySide6 None refcount fix before any paint)
from designer.model.catalog import builtin_catalog  # noqa: E402


class DialogLog:
    """Records every message box shown; answers questions with ``answer``."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, str]] = []
        self.answer = QMessageBox.StandardButton.Discard

    def question(self, parent, title, text, *args, **kwargs):  # noqa: ANN001, ANN201
        self.shown.append(("question", text))
        return self.answer

    def critical(self, parent, title, text, *args, **kwargs):  # noqa: ANN001, ANN201
        self.shown.append(("critical", text))
        return QMessageBox.StandardButton.Ok

    def kinds(self) -> list[str]:
        return [k for k, _ in self.shown]


@pytest.fixture(autouse=True)
def dialogs(monkeypatch: pytest.MonkeyPatch) -> DialogLog:
    """No test may block on a modal dialog: message boxes are captured instead."""
    log = DialogLog()
    monkeypatch.setattr(QMessageBox, "question", log.question)
    monkeypatch.setattr(QMessageBox, "critical", log.critical)
    monkeypatch.setattr(QMessageBox, "warning", log.critical)
    return log


@pytest.fixture(scope="session")
def catalog():
    return builtin_catalog()


@pytest.fixture
def make_window(qtbot, tmp_path, catalog):
    """Factory of main windows with their own recovery folder; closed without questions at the end."""
    QCoreApplication.setOrganizationName("topo-designer-tests")
    QCoreApplication.setApplicationName(f"gui-tests-{os.getpid()}")
    from PySide6.QtCore import QSettings

    from designer.gui.window.main_window import MainWindow

    QSettings().remove("window")  # each test starts from the default dock arrangement

    windows = []

    def make(**kwargs):
        w = MainWindow(catalog, recovery_dir=tmp_path / "recovery", **kwargs)
        qtbot.addWidget(w)
        w.resize(1200, 800)
        w.show()
        windows.append(w)
        return w

    yield make
    for w in windows:
        w.document.undo_stack.setClean()
        w.close()


@pytest.fixture
def window(make_window):
    return make_window()

