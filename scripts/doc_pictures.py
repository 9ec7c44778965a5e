"""Draw the window pictures of the docs again: docs/screenshot.png, docs/training-step.png and
docs/serving-panel.png, from the 1-SU SuperPOD sample, offscreen.

Run: ``.venv/bin/python scripts/doc_pictures.py`` (after a change to the window's look). The window
starts from the default dock arrangement (its saved settings are kept apart, in an organisation
of its own), shows Llama 3 70B training with links coloured by utilisation at 1280 x 800 for the
screenshot and the Training step panel, then DeepSeek-V3 serving in a taller bottom dock for the
Serving panel.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QCoreApplication, QSettings, Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

DOCS = ROOT / "docs"
SAMPLE = ROOT / "sample_designs" / "superpod-h100-1su.json"
#: The screenshot's window, and the window and bottom-dock height the Serving panel is drawn in.
SCREENSHOT_SIZE = (1280, 800)
SERVING_WINDOW, SERVING_DOCK_HEIGHT = (1400, 900), 300


def settle(app: QApplication, seconds: float) -> None:
    """Let the live analysis finish and the window paint."""
    end = time.time() + seconds
    while time.time() < end:
        app.processEvents()
        time.sleep(0.01)


def main() -> int:
    QCoreApplication.setOrganizationName("topo-designer-doc-pictures")
    QCoreApplication.setApplicationName("doc-pictures")
    app = QApplication.instance() or QApplication([])
    QSettings().clear()
    from designer.gui.window.main_window import MainWindow
    from designer.io import load_design
    from designer.model.catalog import builtin_catalog

    w = MainWindow(builtin_catalog(), recovery_dir=Path(tempfile.mkdtemp()) / "recovery")
    w.resize(*SCREENSHOT_SIZE)
    w.show()
    w.document.set_design(load_design(SAMPLE), None)
    settle(app, 2)
    if not w.analysis.set_workload("llama3-70b"):
        raise SystemExit("the llama3-70b preset could not be chosen")
    settle(app, 3)
    w.live.set_overlay(True)
    w.live.docks["step"].raise_()
    w.live.docks["bottlenecks"].raise_()
    settle(app, 2)
    w.grab().save(str(DOCS / "screenshot.png"))
    w.live.panels["step"].grab().save(str(DOCS / "training-step.png"))
    w.resize(*SERVING_WINDOW)
    settle(app, 1)
    if not w.analysis.set_serving("deepseek-v3-serve"):
        raise SystemExit("the deepseek-v3-serve preset could not be chosen")
    settle(app, 4)
    w.live.docks["serving"].raise_()
    w.resizeDocks([w.live.docks["serving"]], [SERVING_DOCK_HEIGHT], Qt.Orientation.Vertical)
    settle(app, 1)
    w.live.panels["serving"].grab().save(str(DOCS / "serving-panel.png"))
    w.document.undo_stack.setClean()
    w.close()
    for name in ("screenshot.png", "training-step.png", "serving-panel.png"):
        print(DOCS / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
