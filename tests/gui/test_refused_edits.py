"""A refused edit changes nothing: not the design, not the undo stack, even mid-way through a macro."""

from __future__ import annotations

import copy

from PySide6.QtCore import QPointF

from designer.gui.document import commands as cmd
from designer.io import design_to_text


def _pair(window):
    ed = window.editor
    a = ed.place_component("qm9700", QPointF(0, 0))
    b = ed.place_component("qm9700", QPointF(0, -200))
    lid = ed.connect_ports(a, None, b, None)
    return a, b, lid


def test_a_macro_refused_in_its_last_step_leaves_the_design_as_it_was(window):
    a, b, lid = _pair(window)
    d = window.document.design
    before, count = design_to_text(d), window.document.undo_stack.count()
    macro = cmd.MacroCommand(d, "Retune")
    cmd.SetLinkFieldCommand(d, [lid], "length_m", 3.0, macro)
    cmd.SetDeviceFieldCommand(d, a, "name", "leaf A", macro)
    cmd.SetLinkFieldCommand(d, [lid], "medium", "carrier-pigeon", macro)  # the model refuses this
    messages: list[str] = []
    window.editor.message.connect(messages.append)
    assert not window.editor._push(macro)
    assert messages and "medium" in messages[-1]
    assert design_to_text(d) == before and window.document.undo_stack.count() == count
    assert not window.document.undo_stack.canRedo()


def test_an_insert_refused_at_its_last_link_inserts_nothing(window):
    a, b, lid = _pair(window)
    d = window.document.design
    before = design_to_text(d)
    frag = copy.deepcopy(d.device(a))
    frag.id = "switch-9"
    bad = copy.deepcopy(d.link(lid))
    bad.id = "link-9"
    bad.a_device, bad.b_device = "switch-9", b  # b's port is taken by the existing link
    command = cmd.InsertDesignCommand(d, [], [frag], [bad], "Insert")
    assert not window.editor._push(command)
    assert design_to_text(d) == before and not d.has_device("switch-9")
    assert "switch-9" not in window.scene.device_items
