"""The PySide6 6.12 / Python 3.11 reference-count work-around keeps None alive through many paints."""

from __future__ import annotations

import sys

from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QWidget

from designer.gui.qtfix import protect_none


class _Painted(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.paints = 0

    def paintEvent(self, event) -> None:  # noqa: ANN001, N802
        QPainter(self).end()
        self.paints += 1


def test_none_survives_many_python_paint_events(qtbot):
    w = _Painted()
    qtbot.addWidget(w)
    w.resize(20, 20)
    w.show()
    qtbot.waitExposed(w)
    before = sys.getrefcount(None)
    for _ in range(2000):
        w.grab()
    assert w.paints >= 2000
    if sys.version_info < (3, 12):
        assert sys.getrefcount(None) > 1 << 39  # immortal in practice, whatever the binding drops
        assert not protect_none()  # applied once, at import of designer.gui
    else:
        assert sys.getrefcount(None) == before
