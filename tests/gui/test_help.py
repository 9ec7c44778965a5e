"""Help: keyboard shortcuts made from the window's actions, the documentation, About with the version."""

from __future__ import annotations

from importlib import metadata

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QMessageBox

from designer.model.shipped import docs_dir


def _help_menu(window):
    (menu,) = [a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "Help"]
    return menu


def _action(window, text: str):
    return next(a for a in _help_menu(window).actions() if a.text().replace("&", "").rstrip("\u2026") == text)


def test_the_help_menu_offers_documentation_shortcuts_and_about(window):
    texts = [a.text().replace("&", "").rstrip("\u2026") for a in _help_menu(window).actions() if not a.isSeparator()]
    assert texts[:3] == ["Getting Started", "Documentation", "Keyboard Shortcuts"] and "About" in texts
    assert _action(window, "Documentation").shortcut() == QKeySequence(QKeySequence.StandardKey.HelpContents)


def test_the_shortcuts_list_every_action_with_keys_from_the_window_itself(window, qtbot):
    _action(window, "Keyboard Shortcuts").trigger()
    dialog = window._shortcuts_dialog
    qtbot.waitExposed(dialog)
    listed = {(row.what, row.keys) for row in dialog.rows}
    native = QKeySequence.SequenceFormat.NativeText
    with_keys = [a for a in window.actions_by_name.values() if a.shortcuts()]
    assert len(with_keys) >= 25
    for a in with_keys:
        keys = ", ".join(k.toString(native) for k in a.shortcuts())
        assert (a.text().replace("&", "").rstrip("\u2026"), keys) in listed, a.text()
    # generated, not a copy: a shortcut given to an action shows up
    window.actions_by_name["expand_all"].setShortcut(QKeySequence("Ctrl+Alt+X"))
    from designer.gui.window.help import action_rows

    assert any(r.what == "Expand All Groups" and "X" in r.keys for r in action_rows(window))
    # where each lives
    assert next(r for r in dialog.rows if r.what == "Save").where == "File"
    assert next(r for r in dialog.rows if r.what == "Analyze").where in ("Design", "Analysis")


def test_the_shortcuts_include_the_canvas_gestures_of_the_guide(window):
    from designer.gui.window.help import ShortcutsDialog, gesture_rows

    gestures = gesture_rows()
    assert len(gestures) >= 8
    text = " ".join(f"{g.what} {g.keys}" for g in gestures).lower()
    for word in ("port", "alt", "wheel", "middle", "space", "double-click", "rubber"):
        assert word in text
    dialog = ShortcutsDialog(window)
    assert [r for r in dialog.rows if r.where == "Canvas"] == gestures


def test_the_shortcuts_search_filters_as_you_type(window, qtbot):
    from designer.gui.window.help import ShortcutsDialog

    dialog = ShortcutsDialog(window)
    qtbot.addWidget(dialog)
    everything = len(dialog.visible_rows())
    qtbot.keyClicks(dialog.search, "undo")
    shown = dialog.visible_rows()
    assert 0 < len(shown) < everything
    assert all("undo" in f"{r.where} {r.what} {r.keys}".lower() for r in shown)
    dialog.search.setText("zoom ctrl")
    assert {r.what for r in dialog.visible_rows()} >= {"Zoom In", "Zoom Out", "Zoom to Fit"}
    dialog.search.setText("no such thing at all")
    assert dialog.visible_rows() == [] and "0 matches of" in dialog.count.text()
    dialog.search.clear()
    assert len(dialog.visible_rows()) == everything


def test_the_documentation_shows_every_shipped_document_rendered(window, qtbot):
    _action(window, "Documentation").trigger()
    dialog = window._docs_dialog
    qtbot.waitExposed(dialog)
    names = {p.name for _, p in dialog.docs}
    assert names == {p.name for p in docs_dir().glob("*.md")}
    assert dialog.current_name() == "getting-started.md"  # the user's page first
    assert dialog.list.count() == len(names)
    assert "Getting started" in dialog.browser.toPlainText()
    assert dialog.open_name("gui.md")
    assert "The designer window" in dialog.browser.toPlainText()
    assert "|---|" not in dialog.browser.toPlainText()  # rendered, not shown as source
    assert dialog.open_name("file-format.md")
    assert dialog.current_name() == "file-format.md"
    dialog._on_anchor_clicked(QUrl("gui.md"))  # a link from one document to another
    assert dialog.current_name() == "gui.md"


def test_pictures_in_the_documentation_fit_the_page(window, qtbot):
    from PySide6.QtGui import QTextImageFormat

    from designer.gui.window.help import DocsDialog

    dialog = DocsDialog(window)
    qtbot.addWidget(dialog)
    dialog.resize(900, 600)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.open_name("gui.md")
    doc = dialog.browser.document()
    widths = {}
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                image = QTextImageFormat(fmt.toImageFormat())
                widths[image.name()] = image.width()
            it += 1
        block = block.next()
    assert {"screenshot.png", "bom-dock.png"} <= set(widths)
    room = dialog.browser.viewport().width()
    assert all(0 < w <= room for w in widths.values()), (widths, room)


def test_the_documentation_says_so_when_it_is_not_installed(window, tmp_path):
    from designer.gui.window.help import DocsDialog

    dialog = DocsDialog(window, folder=tmp_path / "missing")
    assert dialog.list.count() == 0
    assert "not installed" in dialog.browser.toPlainText()


def test_about_names_the_version(window, monkeypatch):
    shown = []
    monkeypatch.setattr(QMessageBox, "about", lambda parent, title, text: shown.append(text))
    _action(window, "About").trigger()
    (text,) = shown
    assert metadata.version("topo-designer") in text


def test_the_version_falls_back_to_the_package_in_a_source_checkout(monkeypatch):
    from designer import __version__
    from designer.gui.window import help as help_module

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(help_module.metadata, "version", missing)
    assert help_module.app_version() == f"{__version__} (source)"


@pytest.mark.parametrize("name", ["gui.md", "architecture.md"])
def test_documents_have_a_title(name):
    from designer.gui.window.help import documents

    titles = {p.name: t for t, p in documents()}
    assert titles[name] and not titles[name].startswith("#")


def test_getting_started_opens_from_help_and_speaks_to_users_not_modules(window, qtbot):
    _action(window, "Getting Started").trigger()
    dialog = window._docs_dialog
    qtbot.waitExposed(dialog)
    assert dialog.current_name() == "getting-started.md"
    text = dialog.browser.toPlainText()
    assert "designer." not in text and ".py" not in text  # no module paths
    for menu in ("Design \u25b8 Generate", "File \u25b8 Export", "File \u25b8 Import", "Design \u25b8 New Variant"):
        assert menu in text, menu
    acts = {a.text().replace("&", "").rstrip("\u2026") for a in window.actions_by_name.values()}
    assert {"Generate", "Export", "Import", "Documentation"} <= acts


def test_the_documentation_is_searchable(window, qtbot):
    from designer.gui.window.help import DocsDialog

    dialog = DocsDialog(window)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    everything = dialog.list.count()
    dialog.search.setText("ibnetdiscover")
    hits = [dialog.list.item(r) for r in range(everything) if not dialog.list.item(r).isHidden()]
    expected = [p.name for _, p in dialog.docs if "ibnetdiscover" in p.read_text(encoding="utf-8").lower()]
    assert len(hits) == len(expected) >= 2 and dialog.current_name() in expected
    assert all(item.text().endswith(")") for item in hits)  # with their number of matches
    assert dialog.browser.extraSelections()  # the matches are marked in the page shown
    assert dialog.open_name("import.md")  # a page with many matches: Enter walks through them
    before = dialog.browser.textCursor().position()
    assert dialog.find_next() and dialog.browser.textCursor().position() != before
    dialog.search.setText("ibnetdiscover sweep")  # every word must be in the page
    both = sum(not dialog.list.item(r).isHidden() for r in range(everything))
    assert both <= len(hits)
    dialog.search.setText("zzqx-not-a-word")
    assert all(dialog.list.item(r).isHidden() for r in range(everything))
    assert "No page" in dialog.matches.text()
    dialog.search.clear()
    assert all(not dialog.list.item(r).isHidden() for r in range(everything))
