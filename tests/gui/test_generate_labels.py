"""The Generate dialog speaks words, not identifiers: every generator and parameter has a human
label (with its unit), and the ids are in the tooltips."""

from __future__ import annotations

from PySide6.QtCore import Qt

from designer.generators import GENERATORS
from designer.generators.params import GENERATOR_TITLES, KIND_PARAM_LABELS, PARAM_LABELS
from designer.gui.panels.generate_dialog import GenerateDialog


def test_every_generator_and_parameter_has_a_label():
    assert set(GENERATOR_TITLES) == set(GENERATORS)
    for kind, spec in GENERATORS.items():
        for p in spec.params:
            assert p.name in PARAM_LABELS or (kind, p.name) in KIND_PARAM_LABELS, (kind, p.name)
            label = spec.label_of(p)
            assert label != p.name and label != p.name.replace("_", " "), (kind, p.name)
            assert label[0].isupper(), label


def test_the_dialog_shows_titles_and_labels_with_the_ids_on_hover(window):
    dialog = GenerateDialog(window.catalog, window)
    titles = [dialog.kinds.item(i).text() for i in range(dialog.kinds.count())]
    assert titles == [GENERATOR_TITLES[k] for k in GENERATORS]
    assert "clos3" not in titles and "nvl72" not in titles
    for i, kind in enumerate(GENERATORS):
        item = dialog.kinds.item(i)
        assert item.data(Qt.ItemDataRole.UserRole) == kind and f"<code>{kind}</code>" in item.toolTip()
    form = dialog.select_kind("rail-optimized")
    assert dialog.current_kind() == "rail-optimized"
    shown = {name: label.text() for name, label in form.labels.items()}
    assert shown["sus"] == "Scalable units"
    assert shown["ufm"] == "UFM appliance"
    assert shown["copper_max_m"] == "Copper reach (m)"
    for name, label in form.labels.items():
        assert label.text() not in (name, name.replace("_", " ")), name
        flag = "--" + name.replace("_", "-")
        assert f"<code>{name}</code>" in label.toolTip() and flag in label.toolTip()
        assert label.toolTip() == form.widgets[name].toolTip() and label.buddy() is form.widgets[name]
    assert dialog.select_kind("server").labels["with_nics"].text() == "Scale-out NICs"
    assert dialog.select_kind("dragonfly").labels["switch"].text() == "Router switch model"
    assert dialog.select_kind("torus").labels["link_speed_gbps"].text() == "Link speed (Gb/s)"


def test_the_description_reads_as_a_sentence(window):
    dialog = GenerateDialog(window.catalog, window)
    for kind in GENERATORS:
        dialog.select_kind(kind)
        text = dialog.description.text()
        assert not text[0].islower() and text[1:] == GENERATORS[kind].description[1:], kind
