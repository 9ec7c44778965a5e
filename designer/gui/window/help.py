"""The Help menu: keyboard shortcuts, the documentation, and About with the version.

The shortcuts dialog is made from the window's own actions (``actions_by_name``), so it lists
what the keys really do, and from the canvas gestures table in ``docs/gui.md``. The
documentation is ``docs/*.md`` as shipped (:func:`designer.model.shipped.docs_dir`), shown as
rendered Markdown.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from PySide6 import __version__ as PYSIDE_VERSION
from PySide6.QtCore import QUrl, qVersion
from PySide6.QtGui import (
    QAction,
    QColor,
    QDesktopServices,
    QImageReader,
    QKeySequence,
    QResizeEvent,
    QTextCharFormat,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from designer.model import units
from designer.model.shipped import docs_dir

APP_NAME = "Topology Designer"
DISTRIBUTION = "topo-designer"
#: The heading in docs/gui.md whose table lists the canvas gestures.
GESTURES_HEADING = "Canvas gestures"
#: The user's pages first (getting started, then the window's guide); the others follow by title.
FIRST_DOCS = ("getting-started.md", "gui.md")
GETTING_STARTED = "getting-started.md"


def app_version() -> str:
    """The installed distribution's version; in a source checkout that is not installed, the
    package's own ``__version__`` marked as such."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        from designer import __version__

        return f"{__version__} (source)"


# ---------------------------------------------------------------------- shortcuts
@dataclass(frozen=True)
class ShortcutRow:
    """One line of the shortcuts list: where it is, what it does, which keys or gesture."""

    where: str
    what: str
    keys: str


def _plain(text: str) -> str:
    """A menu text without its mnemonic ampersand and trailing ellipsis."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("\u2026").rstrip(".").strip()


def _menu_paths(window: QMainWindow) -> dict[QAction, str]:
    """Each menu action and the menu that holds it (``Edit``, ``File > Open Recent``)."""
    found: dict[QAction, str] = {}

    def walk(menu: QMenu, path: str) -> None:
        for a in menu.actions():
            sub = a.menu()
            if isinstance(sub, QMenu):
                walk(sub, f"{path} \u203a {_plain(sub.title())}")
            elif not a.isSeparator():
                found.setdefault(a, path)

    for top in window.menuBar().actions():
        menu = top.menu()
        if isinstance(menu, QMenu):
            walk(menu, _plain(menu.title()))
    return found


def action_rows(window: QMainWindow) -> list[ShortcutRow]:
    """Every action of the window that has a shortcut, with all its keys, by menu."""
    actions: dict[str, QAction] = getattr(window, "actions_by_name", {})
    where = _menu_paths(window)
    rows = []
    for action in actions.values():
        keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts() if not k.isEmpty()]
        if keys:
            rows.append(ShortcutRow(where.get(action, "Window"), _plain(action.text()), ", ".join(keys)))
    return rows


def _cells(line: str) -> list[str]:
    return [c.strip().replace("`", "") for c in line.strip().strip("|").split("|")]


def gesture_rows(guide: Path | None = None) -> list[ShortcutRow]:
    """The rows of the canvas gestures table in ``docs/gui.md`` (none if it cannot be read)."""
    path = guide or docs_dir() / "gui.md"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return []
    rows: list[ShortcutRow] = []
    in_section = in_table = False
    for line in text.splitlines():
        if line.startswith("#"):
            if in_section:
                break
            in_section = line.lstrip("#").strip().lower() == GESTURES_HEADING.lower()
            continue
        if not in_section:
            continue
        if line.lstrip().startswith("|"):
            cells = _cells(line)
            if not in_table:  # the header row
                in_table = True
                continue
            if set("".join(cells)) <= set("-: "):
                continue  # the rule under the header
            if len(cells) >= 2:
                rows.append(ShortcutRow("Canvas", cells[0], cells[1]))
        elif in_table:
            break
    return rows


class ShortcutsDialog(QDialog):
    """Every shortcut of the window and the canvas gestures, filtered as you type."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.setWindowTitle(f"Keyboard Shortcuts \u2014 {APP_NAME}")
        self.rows = action_rows(window) + gesture_rows()
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search actions, keys or gestures\u2026")
        self.search.setClearButtonEnabled(True)
        self.table = QTableWidget(len(self.rows), 3)
        self.table.setHorizontalHeaderLabels(["Where", "Action", "Keys / mouse"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(True)
        for r, row in enumerate(self.rows):
            for c, text in enumerate((row.where, row.what, row.keys)):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(r, c, item)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.resizeRowsToContents()
        self.count = QLabel("")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.search)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.count)
        lay.addWidget(buttons)
        self.search.textChanged.connect(self.filter)
        self.filter("")
        self.resize(760, 560)
        self.search.setFocus()

    def filter(self, text: str) -> int:
        """Show the rows in which every word of ``text`` appears; return how many are shown."""
        words = text.lower().split()
        shown = 0
        for r, row in enumerate(self.rows):
            hay = f"{row.where} {row.what} {row.keys}".lower()
            hide = not all(w in hay for w in words)
            self.table.setRowHidden(r, hide)
            shown += not hide
        total = units.count(len(self.rows), "shortcut and gesture", "shortcuts and gestures")
        self.count.setText(f"{units.count(shown, 'match', 'matches')} of {total}" if words else total)
        return shown

    def visible_rows(self) -> list[ShortcutRow]:
        return [row for r, row in enumerate(self.rows) if not self.table.isRowHidden(r)]


# ---------------------------------------------------------------------- documentation
def _title(path: Path) -> str:
    """A document's first heading, else its file name."""
    try:
        with path.open(encoding="utf-8") as f:
            for line in f:
                if line.startswith("# "):
                    return line[2:].strip()
    except OSError:
        pass
    return path.stem


def documents(folder: Path | None = None) -> list[tuple[str, Path]]:
    """(title, path) of every shipped document: the guide first, then by title."""
    folder = folder or docs_dir()
    paths = sorted(folder.glob("*.md")) if folder.is_dir() else []
    docs = [(_title(p), p) for p in paths]
    first = [d for name in FIRST_DOCS for d in docs if d[1].name == name]
    return first + sorted((d for d in docs if d not in first), key=lambda d: d[0].lower())


class _DocBrowser(QTextBrowser):
    """A text browser that shrinks pictures wider than itself (the window screenshots are
    1,440 px wide) and keeps them fitted as it is resized."""

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder

    def fit_images(self) -> None:
        doc = self.document()
        room = max(200.0, self.viewport().width() - 2 * doc.documentMargin() - 8)
        block = doc.begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                frag = it.fragment()
                fmt = frag.charFormat()
                if fmt.isImageFormat():
                    image = fmt.toImageFormat()
                    natural = QImageReader(str(self.folder / image.name())).size()
                    if natural.width() > 0:
                        width = min(float(natural.width()), room)
                        image.setWidth(width)
                        image.setHeight(natural.height() * width / natural.width())
                        cursor = QTextCursor(doc)
                        cursor.setPosition(frag.position())
                        cursor.setPosition(frag.position() + frag.length(), QTextCursor.MoveMode.KeepAnchor)
                        cursor.setCharFormat(image)
                it += 1
            block = block.next()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self.fit_images()


class DocsDialog(QDialog):
    """The documentation, one document at a time, rendered from its Markdown."""

    def __init__(self, parent: QWidget | None = None, folder: Path | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Documentation \u2014 {APP_NAME}")
        self.folder = folder or docs_dir()
        self.docs = documents(self.folder)
        self.list = QListWidget()
        for title, path in self.docs:
            item = QListWidgetItem(title)
            item.setToolTip(path.name)
            self.list.addItem(item)
        self._texts: dict[str, str] = {}
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search the documentation")
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip("Pages holding every word are listed with their number of matches; the matches are "
                               "highlighted; Enter goes to the next one")
        self.search.textChanged.connect(self.filter)
        self.search.returnPressed.connect(self.find_next)
        self.matches = QLabel("")
        side = QWidget()
        side_lay = QVBoxLayout(side)
        side_lay.setContentsMargins(0, 0, 0, 0)
        side_lay.addWidget(self.search)
        side_lay.addWidget(self.list, 1)
        side_lay.addWidget(self.matches)
        self.browser = _DocBrowser(self.folder)
        self.browser.setOpenLinks(False)
        self.browser.setSearchPaths([str(self.folder)])
        self.browser.anchorClicked.connect(self._on_anchor_clicked)
        split = QSplitter()
        split.addWidget(side)
        split.addWidget(self.browser)
        split.setStretchFactor(1, 1)
        split.setSizes([220, 780])
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(split, 1)
        lay.addWidget(buttons)
        self.list.currentRowChanged.connect(self.show_document)
        if self.docs:
            self.list.setCurrentRow(0)
        else:
            self.browser.setPlainText(
                f"The documentation is not installed here (looked in {self.folder}). It is in the docs folder "
                "of the source repository.")
        self.resize(1000, 700)

    def _text(self, path: Path) -> str:
        if path.name not in self._texts:
            try:
                self._texts[path.name] = path.read_text(encoding="utf-8")
            except OSError:
                self._texts[path.name] = ""
        return self._texts[path.name]

    def show_document(self, row: int) -> None:
        if not 0 <= row < len(self.docs):
            return
        _, path = self.docs[row]
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            self.browser.setPlainText(f"Cannot read {path.name}: {e.strerror or e}")
            return
        self.browser.setMarkdown(text)
        self.browser.fit_images()
        self._highlight()

    def _words(self) -> list[str]:
        return self.search.text().lower().split()

    def filter(self, _text: str = "") -> int:
        """List the pages holding every word searched (with their number of matches of the first word) and
        highlight the matches in the page shown; returns how many pages match."""
        words = self._words()
        shown = 0
        for row, (title, path) in enumerate(self.docs):
            item = self.list.item(row)
            body = self._text(path).lower()
            hit = all(w in body or w in title.lower() for w in words)
            item.setHidden(not hit)
            item.setText(f"{title} ({body.count(words[0]):,})" if words and hit else title)
            shown += hit
        current = self.list.currentItem()
        if words and (current is None or current.isHidden()):
            first = next((r for r in range(self.list.count()) if not self.list.item(r).isHidden()), -1)
            if first >= 0:
                self.list.setCurrentRow(first)
        self.matches.setText("" if not words else
                             f"{units.count(shown, 'page')} with \u201c{' '.join(words)}\u201d" if shown else
                             f"No page holds \u201c{' '.join(words)}\u201d")
        self._highlight()
        return shown

    def _highlight(self) -> None:
        """Mark every match of the first word in the page shown and go to the first one."""
        words = self._words()
        selections = []
        if words:
            fmt = QTextCharFormat()
            fmt.setBackground(QColor("#FFE58A"))
            doc = self.browser.document()
            cursor = doc.find(words[0])
            while not cursor.isNull():
                sel = QTextEdit.ExtraSelection()
                sel.cursor = cursor
                sel.format = fmt
                selections.append(sel)
                cursor = doc.find(words[0], cursor)
            if selections:
                self.browser.setTextCursor(QTextCursor(selections[0].cursor))
                self.browser.ensureCursorVisible()
        self.browser.setExtraSelections(selections)

    def find_next(self) -> bool:
        """The next match of the first word in the page shown (from the top again after the last)."""
        words = self._words()
        if not words:
            return False
        if self.browser.find(words[0]):
            return True
        self.browser.moveCursor(QTextCursor.MoveOperation.Start)
        return self.browser.find(words[0])

    def current_name(self) -> str:
        row = self.list.currentRow()
        return self.docs[row][1].name if 0 <= row < len(self.docs) else ""

    def open_name(self, name: str) -> bool:
        """Show the document with file name ``name`` (a link from another document)."""
        for row, (_, path) in enumerate(self.docs):
            if path.name == name:
                self.list.setCurrentRow(row)
                return True
        return False

    def _on_anchor_clicked(self, url: QUrl) -> None:
        if url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)
            return
        name = Path(url.path()).name
        if name and self.open_name(name):
            if url.fragment():
                self.browser.scrollToAnchor(url.fragment())
        elif url.fragment():
            self.browser.scrollToAnchor(url.fragment())


# ---------------------------------------------------------------------- entry points
def show_shortcuts(window: QMainWindow) -> ShortcutsDialog:
    dialog = getattr(window, "_shortcuts_dialog", None)
    if dialog is None:
        dialog = window._shortcuts_dialog = ShortcutsDialog(window)  # type: ignore[attr-defined]
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return dialog


def show_documentation(window: QMainWindow) -> DocsDialog:
    dialog = getattr(window, "_docs_dialog", None)
    if dialog is None:
        dialog = window._docs_dialog = DocsDialog(window)  # type: ignore[attr-defined]
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return dialog


def show_getting_started(window: QMainWindow) -> DocsDialog:
    """The documentation opened on the Getting started page."""
    dialog = show_documentation(window)
    dialog.open_name(GETTING_STARTED)
    return dialog


def about_text() -> str:
    return (
        f"<b>{APP_NAME}</b> {app_version()}<br>Design GPU-cluster network fabrics and see, before buying "
        f"hardware, how fast they will be.<p>Python {platform.python_version()} \u00b7 Qt {qVersion()} "
        f"\u00b7 PySide6 {PYSIDE_VERSION}</p><p>Help \u203a Documentation (F1) has the guide; "
        "Help \u203a Keyboard Shortcuts lists every key.</p>"
    )


def show_about(window: QMainWindow) -> None:
    QMessageBox.about(window, f"About {APP_NAME}", about_text())


__all__ = [
    "DocsDialog", "ShortcutRow", "ShortcutsDialog", "about_text", "action_rows", "app_version", "documents",
    "gesture_rows", "show_about", "show_documentation", "show_getting_started", "show_shortcuts",
]
