"""The inspector's link page: a new medium brings a cable of that medium, the cable list offers
only cables that fit the link (the others greyed, with the reason), and the Rules row follows the
design-rule check."""

from __future__ import annotations

from PySide6.QtCore import Qt

from designer.gui.canvas.linking import cable_for
from designer.gui.document import commands as cmd
from designer.model import Design, Link

LENGTH_M = 2.0


def _switch_pair(catalog) -> Design:
    d = Design("two switches")
    qm = catalog.component("qm9700")
    d.add_device(qm.make_device("a", tier="leaf", x=0.0, y=0.0))
    d.add_device(qm.make_device("b", tier="spine", x=300.0, y=0.0))
    d.add_link(Link("l1", "a", "p1", "b", "p1", medium="passive_copper", length_m=LENGTH_M, cable="dac-400g-ndr"))
    return d


def _open(window, catalog) -> Design:
    window.document.set_design(_switch_pair(catalog), None)
    window.checker.run()
    window.scene.select_links(["l1"])
    assert window.inspector.stack.currentWidget() is window.inspector.link_page
    return window.document.design


def _choose(combo, data) -> None:
    i = combo.findData(data)
    assert i >= 0, data
    combo.setCurrentIndex(i)
    combo.activated.emit(i)


def _offered(combo) -> dict[str, bool]:
    """Cable id -> whether the list lets it be chosen."""
    model = combo.model()
    return {combo.itemData(i): model.item(i).isEnabled() for i in range(combo.count()) if combo.itemData(i)}


def test_a_new_medium_brings_the_cheapest_cable_of_that_medium_that_reaches(window, catalog):
    d = _open(window, catalog)
    insp = window.inspector
    _choose(insp.l_medium, "optical")
    link = d.link("l1")
    expected = catalog.choose_cable(400.0, LENGTH_M, medium="optical")
    assert link.medium == "optical" and link.cable == expected.id == cable_for(catalog, "optical", 400.0, LENGTH_M).id
    window.checker.run()
    assert [f.code for f in window.checker.findings if "l1" in f.links] == []
    assert insp.l_rules.text() == "\u2014"
    assert insp.l_cable.currentData() == expected.id
    window.document.undo_stack.undo()  # medium and cable come back together: one step
    assert (link.medium, link.cable) == ("passive_copper", "dac-400g-ndr")
    window.document.undo_stack.redo()
    assert (link.medium, link.cable) == ("optical", expected.id)


def test_a_medium_no_cable_reaches_leaves_no_cable_and_says_why(window, catalog):
    d = _open(window, catalog)
    window.document.push(cmd.SetLinkFieldCommand(d, ["l1"], "length_m", 40.0))
    _choose(window.inspector.l_medium, "active_copper")
    assert d.link("l1").medium == "active_copper" and d.link("l1").cable == ""
    assert window.inspector.notice.isVisibleTo(window.inspector)
    shown = window.inspector.notice.text()
    assert "active copper" in shown and "40\u00a0m" in shown  # a quantity stays on one line


def test_the_cable_list_offers_only_cables_that_fit(window, catalog):
    _open(window, catalog)
    combo = window.inspector.l_cable
    offered = _offered(combo)
    assert set(offered) == set(catalog.cables), "every catalog cable is listed"
    fits = {c for c, ok in offered.items() if ok}
    assert fits == {"dac-400g-ndr"}, fits
    for cid in ("dac-800g", "pcie-board", "nvlink-board", "sr8-800g-mm", "hdr-dac-200g", "acc-400g"):
        assert not offered[cid], cid
    tip = {combo.itemData(i): combo.itemData(i, Qt.ItemDataRole.ToolTipRole) for i in range(combo.count())}
    assert "made for 800 Gb/s ports" in tip["dac-800g"]
    assert tip["dac-800g"].startswith("<p style='white-space:pre'>"), "Qt must not break 400 Gb/s in the tooltip"
    assert "board connection" in tip["pcie-board"] and "network" in tip["pcie-board"]
    assert "slower" in tip["hdr-dac-200g"]
    assert "medium" in tip["acc-400g"]
    window.document.push(cmd.SetLinkFieldCommand(window.document.design, ["l1"], "length_m", 20.0))
    _choose(window.inspector.l_medium, "optical")
    offered = _offered(combo)
    assert {c for c, ok in offered.items() if ok} == {"sr4-400g-mm", "dr4-400g-sm", "dr4-400g-sm-500m", "fr4-400g-sm"}
    window.document.push(cmd.SetLinkFieldCommand(window.document.design, ["l1"], "length_m", 80.0))
    tip = {combo.itemData(i): combo.itemData(i, Qt.ItemDataRole.ToolTipRole) for i in range(combo.count())}
    assert not _offered(combo)["sr4-400g-mm"] and "reaches 50 m" in tip["sr4-400g-mm"]


def test_a_board_link_offers_its_board_connection_only(window, catalog):
    d = Design("server bits")
    d.add_device(catalog.component("h100-sxm").make_device("g"))
    d.add_device(catalog.component("connectx-7-400g").make_device("n", x=200.0))
    d.add_link(Link("l1", "g", "pcie1", "n", "pcie1", medium="pcie", length_m=0.5, cable="pcie-board"))
    window.document.set_design(d, None)
    window.scene.select_links(["l1"])
    assert {c for c, ok in _offered(window.inspector.l_cable).items() if ok} == {"pcie-board"}


def test_the_rules_row_follows_the_check(window, catalog):
    d = _open(window, catalog)
    insp = window.inspector
    assert insp.l_rules.text() == "\u2014"
    window.document.push(cmd.SetLinkFieldCommand(d, ["l1"], "length_m", 10.0))  # beyond the copper's 3 m
    window.checker.run()
    assert "reach" in insp.l_rules.text()
    window.document.undo_stack.undo()
    window.checker.run()
    assert insp.l_rules.text() == "\u2014"
    window.scene.select_devices(["a"])
    assert insp.v_rules.text() == "\u2014"
    window.document.push(cmd.SetDeviceFieldCommand(d, "a", "model", "no-such-switch"))
    window.checker.run()
    assert "unknown" in insp.v_rules.text() or "not in the catalog" in insp.v_rules.text()


def test_the_canvas_marks_a_tier_skip_and_says_why_on_hover(window):
    from designer.generators import GENERATORS
    from designer.gui.canvas.describe import describe_item

    d = GENERATORS["rail-optimized"].build(nodes_per_su=2)
    lk = next(x for x in d.links_of("su1-node1-nic1") if x.medium not in ("nvlink", "pcie"))
    d.remove_link(lk.id)
    nic_end = ("su1-node1-nic1", "p1")
    d.add_link(Link(lk.id, *nic_end, "spine1", d.free_ports("spine1", "network")[0], medium=lk.medium,
                    length_m=lk.length_m, cable=lk.cable))
    window.document.set_design(d, None, collapse=False)
    window.checker.run()
    assert window.scene.link_flagged(lk.id)
    bundle = window.scene.select_links([lk.id])
    assert bundle is not None
    tip = describe_item(window.scene, bundle)
    assert "skipping the leaf tier" in tip and "Design rule" in tip
    assert "skipping the leaf tier" in window.inspector.l_rules.text()


def test_the_canvas_marks_a_rail_misaligned_link_and_names_the_leaf_on_hover(window):
    from designer.generators import GENERATORS
    from designer.gui.canvas.describe import describe_item

    d = GENERATORS["rail-optimized"].build(nodes_per_su=2)
    l1, l2 = (next(x for x in d.links_of(f"su1-node2-nic{i}") if x.medium not in ("nvlink", "pcie")) for i in (1, 2))
    ends = {}
    for lk in (l1, l2):
        d.remove_link(lk.id)
        ends[lk.id] = (lk.b_device, lk.b_port) if lk.b_device.startswith("su1-leaf") else (lk.a_device, lk.a_port)
    for lk, nic, other in ((l1, "su1-node2-nic1", l2), (l2, "su1-node2-nic2", l1)):  # the two rails swapped
        d.add_link(Link(lk.id, nic, "p1", *ends[other.id], medium=lk.medium, length_m=lk.length_m, cable=lk.cable))
    window.document.set_design(d, None, collapse=False)
    window.checker.run()
    assert window.scene.link_flagged(l1.id) and window.scene.link_flagged(l2.id)
    bundle = window.scene.select_links([l1.id])
    tip = describe_item(window.scene, bundle)
    assert "rail 1" in tip and "cable it to su1-leaf1" in tip and "Design rule" in tip
    assert "cable it to su1-leaf1" in window.inspector.l_rules.text()
