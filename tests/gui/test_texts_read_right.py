"""Texts the window shows read right: counts in the singular or plural, whole names, unit
strings that do not break, rule counts in the colour of their severity, refusals that say why."""

from __future__ import annotations

from PySide6.QtCore import QPointF
from PySide6.QtGui import QTextDocument

from designer.gui.canvas.describe import describe_item
from designer.model import Design, Device, Group, Link, PortGroup, units

NET = (PortGroup("p", 4, 400.0),)


def _sixteen_switches() -> Design:
    d = Design("switches")
    d.add_group(Group("spines", "custom", collapsed=True))
    for i in range(16):
        d.add_device(Device(f"s{i}", "switch", NET, x=i * 100.0, group="spines"))
    return d


def test_counts_take_the_plural_of_their_noun():
    assert units.count(16, "switch") == "16 switches"
    assert units.count(16, "NVLink switch") == "16 NVLink switches"
    assert units.count(2, "storage") == "2 storage"
    assert units.count(1, "GPU") == "1 GPU" and units.count(1, "link") == "1 link"


def test_a_collapsed_group_of_switches_reads_16_switches(window):
    window.document.set_design(_sixteen_switches(), None, collapse=False)
    box = window.scene.boxes["spines"]
    assert box.texts()[1] == "16 switches"
    assert "16 switches" in describe_item(window.scene, box)


def test_one_gpu_and_one_link_read_in_the_singular(window):
    d = Design("one of each")
    d.add_device(Device("g", "gpu", (PortGroup("pcie", 1, 512.0, "pcie"),), x=0.0))
    d.add_device(Device("n", "nic", (PortGroup("pcie", 1, 512.0, "pcie"), PortGroup("p", 1, 400.0)), x=200.0))
    d.add_link(Link("l1", "g", "pcie1", "n", "pcie1", medium="pcie", length_m=0.5))
    window.document.set_design(d, None)
    assert window.inspector.d_counts.text() == "1 GPU, 1 NIC; 1 link; 0 groups"
    assert window.count_label.text() == "1 GPU \u00b7 2 devices \u00b7 1 link"
    window.scene.select_devices(["g", "n"])
    assert window.inspector.m_counts.text() == "1 GPU, 1 NIC"


def test_the_design_name_shows_its_beginning(window):
    d = Design("rail-optimized 2,048 GPUs with a long name that does not fit the field")
    window.document.set_design(d, None)
    assert window.inspector.d_name.cursorPosition() == 0
    window.document.set_design(Design("another design with a rather long name, also too long"), None)
    assert window.inspector.d_name.cursorPosition() == 0


def test_rule_counts_are_red_only_for_errors(window, qtbot):
    d = Design("one warning")
    d.add_device(Device("lonely", "switch", NET, model="qm9700"))
    window.document.set_design(d, None)
    window.checker.run()
    text = window.rules_label.text()
    assert "1 warning" in text and "warnings" not in text and "0 " not in text
    assert "#D62828" not in text.upper(), "a warning alone is not shown in red"
    d2 = Design("errors")
    d2.add_device(Device("x", "switch", NET, model="no-such-model"))
    d2.add_device(Device("y", "switch", NET, model="no-such-model"))
    window.document.set_design(d2, None)
    window.checker.run()
    text = window.rules_label.text()
    assert "2 errors" in text and "#D62828" in text.upper()


def _laid_out_lines(html: str, width: float) -> list[str]:
    """The lines Qt lays out for rich text ``html`` at ``width`` pixels (as a tooltip does)."""
    doc = QTextDocument()
    doc.setHtml(html)
    doc.setTextWidth(width)
    doc.documentLayout().documentSize()  # lay it out
    out = []
    block = doc.begin()
    while block.isValid():
        layout = block.layout()
        for i in range(layout.lineCount()):
            line = layout.lineAt(i)
            out.append(block.text()[line.textStart():line.textStart() + line.textLength()].replace("\u00a0", " "))
        block = block.next()
    return out


def test_unit_strings_in_tooltips_do_not_break(window):
    d = Design("tooltip")
    d.add_device(Device("g", "gpu", (PortGroup("pcie", 1, 512.0, "pcie"),), x=0.0, model="no-such-gpu"))
    window.document.set_design(d, None)
    window.checker.run()
    tip = describe_item(window.scene, window.scene.device_items["g"])
    assert "512 Gb/s" in tip
    for width in (60, 90, 120, 150, 200):
        lines = _laid_out_lines(tip, width)
        assert any("512 Gb/s" in line for line in lines), (width, lines)
        assert not any(line.rstrip().endswith(("Gb/", "512")) for line in lines), (width, lines)
    longest = max(len(line) for line in _laid_out_lines(tip, 100))
    assert longest <= 100, "long rule messages are broken into lines"


def test_linking_to_a_device_without_the_port_kind_says_the_kinds_do_not_match(window):
    ed = window.editor
    gpu = ed.place_component("h100-sxm", QPointF(0, 0))
    sw = ed.place_component("qm9700", QPointF(300, 0))
    from designer.gui.canvas.linking import LinkError, choose_ports

    try:
        choose_ports(window.document.design, gpu, "nvl1", sw, None)
    except LinkError as e:
        message = str(e)
    else:
        raise AssertionError("an NVLink port cannot join a switch")
    assert "no free" not in message and "nvlink" in message.lower() and "network" in message.lower()


def test_opening_another_design_drops_the_old_analysis_time(window, qtbot):
    from designer.generators import GENERATORS

    window.document.set_design(GENERATORS["server"].build(), None)
    with qtbot.waitSignal(window.runner.result_ready, timeout=60_000):
        window.runner.start()
    qtbot.waitUntil(lambda: "Analyzed in" in window.analysis.state.text(), timeout=10_000)
    window.document.set_design(GENERATORS["server"].build(gpus_per_node=4), None)
    assert "Analyzed in" not in window.analysis.state.text()
    assert window.analysis.bisection.text() == "\u2014"



def test_a_collapsed_rack_inside_an_su_reads_its_own_name(window):
    """Like a device (``gpu3`` inside ``su1-node4``), an unnamed box drops its parent's prefix, so a
    small box reads ``rack1`` rather than an elided ``su…ack1``; the hover text keeps the id."""
    from designer.generators import GENERATORS

    d = GENERATORS["rail-optimized"].build(nodes_per_su=8)
    for g in d.groups:
        if g.kind == "rack":
            d.set_group_field(g.id, "collapsed", True)
    window.document.set_design(d, None, collapse=False)
    box = window.scene.boxes["su1-rack1"]
    assert box.texts()[0] == "rack1"
    assert "su1-rack1" in describe_item(window.scene, box)
    assert window.scene.boxes["spine-rack1"].texts()[0] == "spine rack 1"  # a name is shown as it is


def _label_lines(text: str, width: float) -> list[str]:
    """The lines Qt lays out for plain ``text`` wrapped at word boundaries in ``width`` pixels."""
    from PySide6.QtGui import QTextOption

    doc = QTextDocument()
    doc.setPlainText(text)
    option = doc.defaultTextOption()
    option.setWrapMode(QTextOption.WrapMode.WordWrap)
    doc.setDefaultTextOption(option)
    doc.setTextWidth(width)
    doc.documentLayout().documentSize()
    out = []
    block = doc.begin()
    while block.isValid():
        layout = block.layout()
        for i in range(layout.lineCount()):
            line = layout.lineAt(i)
            out.append(block.text()[line.textStart():line.textStart() + line.textLength()])
        block = block.next()
    return out


def test_the_inspectors_wrapped_messages_keep_quantities_whole(window, catalog):
    """The refusal notice and the Rules rows wrap at word boundaries but never inside "400 Gb/s"."""
    from designer.gui.canvas.describe import unbroken

    text = "No active copper cable in the catalog carries 400 Gb/s over 6 m: the link has no cable now"
    split = [w for w in range(80, 400, 3)
             if any(x.rstrip().endswith(("Gb/", "400")) for x in _label_lines(text, w))]
    assert split, "Qt would break a plain quantity somewhere"
    for w in range(80, 400, 3):
        lines = [x.replace("\u2060", "") for x in _label_lines(unbroken(text), w)]
        assert not any(x.rstrip().endswith(("Gb/", "400", " 6")) for x in lines), (w, lines)
    d = Design("refused")
    qm = catalog.component("qm9700")
    d.add_device(qm.make_device("a", tier="leaf", x=0.0))
    d.add_device(qm.make_device("b", tier="spine", x=300.0))
    d.add_link(Link("l1", "a", "p1", "b", "p1", medium="optical", length_m=6.0, cable="sr4-400g-mm"))
    window.document.set_design(d, None)
    window.scene.select_links(["l1"])
    i = window.inspector.l_medium.findData("active_copper")
    window.inspector.l_medium.setCurrentIndex(i)
    window.inspector.l_medium.activated.emit(i)
    assert "400\u00a0Gb\u2060/\u2060s" in window.inspector.notice.text()
