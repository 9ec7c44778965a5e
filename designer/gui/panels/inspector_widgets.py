"""Small widgets of the inspector: pages, form rows, spin boxes, and a guard against wheel edits."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QDoubleSpinBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from designer.gui.canvas.describe import count_text

__all__ = ["Pages", "WheelGuard", "count_text", "form_page", "typed_value", "unit_spin", "value_label"]


class Pages(QWidget):
    """One page shown at a time, the widget as tall as that page.

    (A QStackedWidget is as tall as its tallest page, even for height-for-width pages with
    wrapped labels: the short design page scrolled for the device page's link table.)
    """

    def __init__(self) -> None:
        super().__init__()
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._pages: list[QWidget] = []
        self._current: QWidget | None = None

    def addWidget(self, page: QWidget) -> None:  # noqa: N802 (the QStackedWidget name)
        self._pages.append(page)
        self._layout.addWidget(page)
        if self._current is None:
            self._current = page
        else:
            page.hide()

    def setCurrentWidget(self, page: QWidget) -> None:  # noqa: N802
        if page is not self._current:
            if self._current is not None:
                self._current.hide()
            page.show()
            self._current = page

    def currentWidget(self) -> QWidget | None:  # noqa: N802
        return self._current


def form_page(parent: Pages) -> tuple[QWidget, QFormLayout]:
    page = QWidget()
    form = QFormLayout(page)
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
    parent.addWidget(page)
    return page, form


def value_label() -> QLabel:
    lab = QLabel()
    lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    lab.setWordWrap(True)
    return lab


def typed_value(spin: QDoubleSpinBox, current: float) -> float:
    """The value typed into a spin box and not yet reported (else ``current``)."""
    if not spin.lineEdit().isModified():
        return current
    value, ok = spin.locale().toDouble(spin.cleanText())
    if not ok or not spin.minimum() <= value <= spin.maximum():
        return current
    return round(value, spin.decimals())


def unit_spin(suffix: str, lo: float, hi: float, decimals: int) -> QDoubleSpinBox:
    s = QDoubleSpinBox()
    s.setRange(lo, hi)
    s.setDecimals(decimals)
    s.setSuffix(suffix)
    s.setKeyboardTracking(False)
    return s


class WheelGuard(QObject):
    """Wheel events reach a spin box or combo box only when it has the keyboard focus.

    The inspector scrolls: a wheel turned to scroll it must not move a device or change a
    link's medium because the pointer crossed a field on the way.
    """

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.Wheel and isinstance(watched, QWidget) and not watched.hasFocus():
            event.ignore()  # the scroll area behind scrolls instead
            return True
        return False

    def guard(self, *widgets: QAbstractSpinBox | QComboBox) -> None:
        for w in widgets:
            w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            w.installEventFilter(self)
