"""Start the designer window: ``run_gui(path)``.

PySide6 and pyqtgraph are imported when this module is: an ImportError from importing it means
the window cannot run here (the command line says so in one line).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyqtgraph  # noqa: F401
import PySide6.QtWidgets  # noqa: F401

from designer.model.shipped import sample_designs_dir

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

    from designer.gui.window.main_window import MainWindow

#: Shown when the window starts without a file: the first of these that exists, else the first sample.
SAMPLE_DESIGNS = ("dgx-h100-superpod-1su.json", "superpod-h100-1su.json")


def default_design_path() -> Path | None:
    """The sample shown when the window starts without a file."""
    folder = sample_designs_dir()
    for name in SAMPLE_DESIGNS:
        if (folder / name).is_file():
            return folder / name
    samples = sorted(folder.glob("*.json")) if folder.is_dir() else []
    return samples[0] if samples else None


def create_application(argv: list[str] | None = None) -> QApplication:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setOrganizationName("topo-designer")
    app.setApplicationName("Topology Designer")
    return app


def create_window(path: str | None, catalog_files: Sequence[str] = ()) -> MainWindow:
    """A main window showing ``path``, or a sample design (or a recovered one after a crash), with the
    built-in catalog, the user catalog and ``catalog_files`` merged."""
    from designer.gui.window.main_window import MainWindow
    from designer.io import load_design
    from designer.io.catalog_files import load_catalog
    from designer.model import DesignError

    # A catalog that cannot be loaded raises CatalogError: without it InfiniBand would pass for
    # Ethernet, NVLS and SHARP would vanish and the bill of materials would be $0 (run_gui says so).
    window = MainWindow(load_catalog(catalog_files))
    restored = window.offer_recovery()
    if not restored:
        if path:
            window.open_path(path)
        else:
            sample = default_design_path()
            if sample is not None:
                # A sample is a starting point: opened without a file name (Save asks where),
                # and not added to the recent files.
                try:
                    window.document.set_design(load_design(sample), None)
                except DesignError as e:
                    window.show_error("Cannot open the sample design", str(e))
    return window


def show_window(window: MainWindow, geometry: Any = None) -> None:
    """Show the window at its last size and place (``geometry``), or at its first-start size
    (maximized on a screen smaller than that), then fit the design into the canvas as shown."""
    from PySide6.QtWidgets import QApplication

    from designer.gui.window.main_window import FIRST_START_SIZE

    if geometry is not None and window.restoreGeometry(geometry):
        window.show()
    elif window.width() < FIRST_START_SIZE[0] or window.height() < FIRST_START_SIZE[1]:
        window.showMaximized()  # a small screen: the window manager fits the frame to it
    else:
        window.show()
    QApplication.processEvents()  # the docks take their first-start sizes before the fit
    window.view.zoom_to_fit()


def run_gui(path: str | None = None, catalog_files: Sequence[str] = ()) -> int:
    """Open the designer window on ``path`` (or a sample design), with ``catalog_files`` merged over the
    built-in and user catalogs, and run until it closes."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QMessageBox

    from designer.model.catalog import CatalogError

    app = create_application()
    try:
        window = create_window(path, catalog_files)
    except CatalogError as e:
        # The command line refuses in the same words (exit 2); nothing was opened, so nothing is lost.
        QMessageBox.critical(
            None, "Topology Designer cannot start",
            f"The component catalog cannot be loaded:\n\n{e}\n\nFix or move that file, or start with "
            "another --catalog, then start again. Without the catalog every analysis and bill of "
            "materials would be wrong.")
        return 2
    show_window(window, QSettings().value("window/geometry"))
    return int(app.exec())
