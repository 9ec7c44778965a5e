"""The window shows a link at the rate the rules and the analysis give it: its cable can lower it."""

from __future__ import annotations

from designer.analysis.fabric.capacity import build_capacity_graph
from designer.gui import style
from designer.gui.canvas.describe import describe_item
from designer.gui.document import commands as cmd
from designer.model import Design, Device, Link, PortGroup, units


def _cable(catalog, rate: float):
    return next(c for c in sorted(catalog.cables.values(), key=lambda c: c.id)
                if c.rate_gbps == rate and c.medium == "passive_copper")


def _800g_pair(cable_id: str) -> Design:
    d = Design("800G ports")
    net = (PortGroup("p", 2, 800.0),)
    d.add_device(Device("a", "switch", net, x=0.0, y=0.0))
    d.add_device(Device("b", "switch", net, x=300.0, y=0.0))
    d.add_link(Link("l1", "a", "p1", "b", "p1", medium="passive_copper", length_m=1.0, cable=cable_id))
    return d


def _bundle(window):
    return next(item for item in window.scene.bundle_items.values()
                if window.scene.bundle_link_ids(item.key) == ["l1"])


def test_an_800g_port_pair_on_a_400g_cable_shows_400g_everywhere(window, catalog):
    slow = _cable(catalog, 400.0)
    window.document.set_design(_800g_pair(slow.id), None)
    design = window.document.design
    assert build_capacity_graph(design, catalog).line_bytes_per_s[0] == 400.0 / 8 * 1e9  # the analysis' rate
    window.scene.select_links(["l1"])
    shown = f"{units.line_rate(400.0)} per direction"
    assert window.inspector.l_rate.text() == shown
    assert shown in describe_item(window.scene, _bundle(window))
    assert _bundle(window)._pen.widthF() == style.link_width_px(400.0) != style.link_width_px(800.0)
    combo = window.inspector.l_cable
    offered = [combo.itemData(i) for i in range(combo.count()) if combo.model().item(i).isEnabled()]
    assert all(not c or catalog.cable(c).rate_gbps >= 800.0 for c in offered), \
        "the cable list offers cables for the ports' 800G; the one chosen is shown, greyed"
    assert combo.currentData() == slow.id


def test_changing_the_cable_redraws_the_line_at_the_new_rate(window, catalog):
    window.document.set_design(_800g_pair(_cable(catalog, 400.0).id), None)
    design = window.document.design
    window.document.push(cmd.SetLinkFieldCommand(design, ["l1"], "cable", _cable(catalog, 800.0).id))
    assert _bundle(window)._pen.widthF() == style.link_width_px(800.0)
    window.document.undo_stack.undo()
    assert _bundle(window)._pen.widthF() == style.link_width_px(400.0)
