"""Inspector fields: the wheel does not edit what it passes over; exact positions survive an edit."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from designer.gui.document.commands import MoveDevicesCommand
from designer.io import design_to_text


def _wheel(widget, steps: int = 1) -> None:
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(QPoint(10, 10))), QPoint(0, 0), QPoint(0, 120 * steps),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def test_scrolling_over_the_inspector_edits_nothing(window):
    ed = window.editor
    a = ed.place_component("qm9700", QPointF(0, 0))
    b = ed.place_component("qm9700", QPointF(0, -200))
    ed.connect_ports(a, None, b, None)
    insp = window.inspector
    window.view.setFocus()
    window.scene.select_devices([a])
    before = design_to_text(window.document.design)
    for field in (insp.v_x, insp.v_y, insp.v_tier):
        _wheel(field)
    window.scene.clearSelection()
    next(iter(window.scene.bundle_items.values())).setSelected(True)
    for field in (insp.l_medium, insp.l_length, insp.l_cable):
        _wheel(field, -1)
    assert design_to_text(window.document.design) == before
    # with the focus in the field, the wheel is a deliberate edit
    insp.l_length.setFocus()
    QApplication.processEvents()
    _wheel(insp.l_length)
    assert design_to_text(window.document.design) != before


def test_editing_y_keeps_an_exact_x(window):
    d = window.document.design
    a = window.editor.place_component("qm9700", QPointF(0, 0))
    window.document.push(MoveDevicesCommand(d, {a: (37.5, 12.25)}))  # as generators place some devices
    window.scene.select_devices([a])
    insp = window.inspector
    assert insp.v_x.value() == round(37.5)
    insp.v_y.setValue(100)
    assert (d.device(a).x, d.device(a).y) == (37.5, 100)
    insp.v_x.setValue(60)
    assert (d.device(a).x, d.device(a).y) == (60, 100)
