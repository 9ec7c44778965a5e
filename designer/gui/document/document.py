"""The document: one design, the file it lives in, and its undo stack.

Opening replaces the design only after the file loaded completely, so a bad file leaves the
current design untouched. "Modified" is ``not undo_stack.isClean()``.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from designer.gui.document.commands import DesignCommand
from designer.io import load_design, save_design
from designer.model import Design
from designer.model.catalog import Catalog

#: Above this many devices shown, a freshly opened design starts with groups collapsed (servers
#: first, then racks, scalable units, pods), so that the whole design fits the window readably.
AUTO_COLLAPSE_DEVICES = 400
_COLLAPSE_ORDER = ("server", "rack", "su", "pod")


class Document(QObject):
    """A design plus its path and undo history."""

    design_replaced = Signal(object)  # the new Design
    path_changed = Signal(str)
    modified_changed = Signal(bool)

    def __init__(self, catalog: Catalog, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.design = Design()
        self.path: Path | None = None
        self.undo_stack = QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._on_undo_stack_clean_changed)

    # ------------------------------------------------------------------ state
    def _on_undo_stack_clean_changed(self, clean: bool) -> None:
        self.modified_changed.emit(not clean)

    def is_modified(self) -> bool:
        return not self.undo_stack.isClean()

    def push(self, command: QUndoCommand) -> None:
        """Run a command and put it on the undo stack.

        A design command runs before it is pushed: if the model refuses the edit, the
        DesignError propagates to the caller and the stack is unchanged.
        """
        if isinstance(command, DesignCommand):
            command.apply()
        self.undo_stack.push(command)

    def reveal(self, group_ids: list[str]) -> bool:
        """Expand collapsed groups to show what they hide, as view state: no undo step, not modified.

        For navigation (a bottleneck or a found device inside a collapsed server). The expansion is
        kept in the design like any collapsed flag, but it is not an edit of the design.
        """
        ids = [g for g in dict.fromkeys(group_ids) if self.design.has_group(g) and self.design.group(g).collapsed]
        if not ids:
            return False
        with self.design.batch():
            for g in ids:
                self.design.set_group_field(g, "collapsed", False)
        return True

    def display_name(self) -> str:
        if self.path is not None:
            return self.path.name
        return self.design.name or "Untitled"

    # ------------------------------------------------------------------ replacing the design
    def set_design(self, design: Design, path: Path | None, *, modified: bool = False, collapse: bool = True) -> None:
        """Make ``design`` the document's design; the undo history starts afresh.

        ``collapse``: collapse groups of a large design first (see :func:`auto_collapse`).
        """
        if collapse:
            auto_collapse(design)
        self.undo_stack.clear()
        self.design = design
        self.path = path
        self.design_replaced.emit(design)
        self.path_changed.emit(str(path) if path else "")
        if modified:
            # A restored recovery file: mark it modified so that closing asks to save it.
            self.undo_stack.push(_MarkModified())
        self.modified_changed.emit(self.is_modified())

    def new(self) -> None:
        self.set_design(Design(), None)

    def open(self, path: str | Path) -> None:
        """Load ``path`` and make it the design; raises DesignFileError and changes nothing on error."""
        p = Path(path)
        design = load_design(p)
        self.set_design(design, p.resolve())

    def save(self, path: str | Path | None = None) -> Path:
        """Write the design (atomically) to ``path`` or its current file; mark it clean."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ValueError("no file name: use save(path)")
        save_design(self.design, target)
        self.path = target.resolve()
        self.undo_stack.setClean()
        self.path_changed.emit(str(self.path))
        return self.path


class _MarkModified(QUndoCommand):
    """A no-op step that makes a restored design count as modified until it is saved."""

    def __init__(self) -> None:
        super().__init__("Restore unsaved changes")


def auto_collapse(design: Design, limit: int = AUTO_COLLAPSE_DEVICES) -> None:
    """Collapse groups, smallest kind first, until at most ``limit`` objects and links would be shown.

    Only a design with no collapsed group yet is touched: a design saved with its own
    collapse state opens as it was saved. This is view state kept in the model
    (``Group.collapsed``), set before the scene is built, and not an undoable edit.
    """
    if design.device_count() <= limit or any(g.collapsed for g in design.groups):
        return
    with design.batch():
        for kind in _COLLAPSE_ORDER:
            groups = [g for g in design.groups if g.kind == kind]
            for g in groups:
                design.set_group_field(g.id, "collapsed", True)
            if groups and shown_count(design) <= limit and bundle_count(design) <= 2 * limit:
                break


def shown_count(design: Design) -> int:
    """How many objects (devices and collapsed-group boxes) the canvas would show."""
    hidden_in = {g.id: design.outermost_collapsed_group(g.id) for g in design.groups}
    boxes = sum(1 for g in design.groups if g.collapsed and hidden_in[g.id] == g.id)
    devices = sum(1 for dev in design.iter_devices() if dev.group is None or hidden_in[dev.group] is None)
    return boxes + devices


def bundle_count(design: Design) -> int:
    """How many link lines the canvas would draw (parallel links and collapsed groups bundled)."""
    hidden_in = {g.id: design.outermost_collapsed_group(g.id) for g in design.groups}
    rep = {dev.id: (hidden_in[dev.group] or dev.id) if dev.group is not None else dev.id
           for dev in design.iter_devices()}
    keys = set()
    for link in design.iter_links():
        a, b = rep[link.a_device], rep[link.b_device]
        if a != b:
            keys.add((a, b) if a < b else (b, a))
    return len(keys)
