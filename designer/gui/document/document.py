"""The document: one design and its variants, the file they live in, and their undo stacks.

Opening replaces the design only after the file loaded completely, so a bad file leaves the
current design untouched. Each variant (Design > New Variant) has its own undo stack in one
``QUndoGroup``; ``design`` and ``undo_stack`` are the active variant's. "Modified" means "differs
from the file on disk": a stack is away from its clean (saved or opened) step, or variants were
added, removed or restored since the last save. Replacing the shown design (an import, a restored
recovery file) is an ordinary undo step (:class:`ReplaceDesignCommand`), never a step that only
marks the design modified. Saving writes every variant into the one design file
(docs/file-format.md).
"""

from __future__ import annotations

import weakref
from collections import Counter
from collections.abc import Callable
from operator import attrgetter
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoCommand, QUndoGroup, QUndoStack

from designer.gui.document.commands import DesignCommand
from designer.io import load_designs, save_design
from designer.model import Design, Group
from designer.model.bulk import built_to_keep
from designer.model.catalog import Catalog
from designer.model.hierarchy import bundled_ends

#: Above this many devices shown, a freshly opened design starts with groups collapsed (servers
#: first, then racks, scalable units, pods), so that the whole design fits the window readably.
AUTO_COLLAPSE_DEVICES = 400
#: A document whose designs hold more devices and links than this is written by a worker thread
#: (saved behind a progress dialog, autosaved in the background): the 16,384-GPU sample, 118,000
#: records, takes half a second to write, 131,072 GPUs four; 20,000 records about 0.1 s.
WRITE_IN_WORKER_ABOVE = 20_000
#: Devices and links a step of the idle build of a new design's index of link ends takes (about
#: 10 ms; see :meth:`Document._index_ends`).
INDEX_ENDS_PER_STEP = 16_384
_COLLAPSE_ORDER = ("server", "rack", "su", "pod")
_KIND = attrgetter("kind")


class Document(QObject):
    """A design plus its path and undo history."""

    design_replaced = Signal(object)  # the new Design (another file, or another variant shown)
    path_changed = Signal(str)
    modified_changed = Signal(bool)
    #: the list of variants changed (added, removed, renamed, another one active)
    variants_changed = Signal()

    def __init__(self, catalog: Catalog, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.design = Design()
        self.path: Path | None = None
        self.undo_group = QUndoGroup(self)
        self._stacks: dict[int, QUndoStack] = {}
        self.variants: list[Design] = []
        self._variants_edited = False
        #: per design (by id), the groups collapsed only to fit it on screen: view state, not saved
        self._auto_collapsed: dict[int, set[str]] = {}
        #: the design last counted by :meth:`device_kinds` and its counts, until its devices change
        self._kinds: tuple[weakref.ref[Design], Counter[str]] | None = None
        # A design read or built in bulk has the index of its links' ends still to build: it is
        # built a step at a time while the window waits for its user, not at the first edit.
        self._indexing = QTimer(self)
        self._indexing.setInterval(0)
        self._indexing.timeout.connect(self._index_ends)
        self.design_replaced.connect(self._start_indexing)
        self._install([self.design])

    # ------------------------------------------------------------------ state
    @property
    def undo_stack(self) -> QUndoStack:
        """The active variant's undo stack."""
        return self._stacks[id(self.design)]

    def _install(self, designs: list[Design]) -> None:
        """Make ``designs`` the variants (the first active), each with a fresh undo stack."""
        for stack in self._stacks.values():
            self.undo_group.removeStack(stack)
            stack.deleteLater()
        self._stacks = {}
        for old in self.variants:
            self._watch(old, False)
        self.variants = list(designs)
        for d in self.variants:
            self._add_stack(d)
            self._watch(d, True)
        self.design = self.variants[0]
        self.undo_group.setActiveStack(self.undo_stack)
        self._variants_edited = False

    def _start_indexing(self, _design: Design) -> None:
        self._indexing.start()

    def _index_ends(self) -> None:
        """One step of the shown design's index of link ends (the timer stops once it is built)."""
        with built_to_keep():  # kept as long as the design, like what the opening built
            if self.design.index_link_ends(INDEX_ENDS_PER_STEP):
                self._indexing.stop()

    def _add_stack(self, design: Design) -> QUndoStack:
        stack = QUndoStack(self)
        stack.cleanChanged.connect(self._on_undo_stack_clean_changed)
        self.undo_group.addStack(stack)
        self._stacks[id(design)] = stack
        return stack

    def _watch(self, design: Design, on: bool) -> None:
        watched = ((design.design_changed, self._on_design_design_changed),
                   (design.device_added, self._on_design_devices_changed),
                   (design.device_removed, self._on_design_devices_changed),
                   (design.device_changed, self._on_design_device_changed))
        for signal, slot in watched:
            if on:
                signal.connect(slot)
            else:
                signal.disconnect(slot)

    def device_kinds(self) -> Counter[str]:
        """How many devices of each kind the shown design holds (the inspector's contents, the status
        bar's GPUs), counted again only after its devices changed: at 131,072 GPUs a count of its
        285,696 devices costs 0.05-0.1 s, which every edit paid twice."""
        held = self._kinds
        if held is None or held[0]() is not self.design:
            held = self._kinds = (weakref.ref(self.design), Counter(map(_KIND, self.design.iter_devices())))
        return Counter(held[1])

    def _on_design_devices_changed(self, *_args: object) -> None:
        self._kinds = None

    def _on_design_device_changed(self, _device_id: str, field: str, *_args: object) -> None:
        if field == "kind":
            self._kinds = None

    def _on_design_design_changed(self, field: str, *_args: object) -> None:
        if field == "name":
            self.variants_changed.emit()

    def _on_undo_stack_clean_changed(self, _clean: bool) -> None:
        self.modified_changed.emit(self.is_modified())

    def is_modified(self) -> bool:
        return self._variants_edited or not all(s.isClean() for s in self._stacks.values())

    # ------------------------------------------------------------------ variants
    def variant_names(self) -> list[str]:
        return [d.name or f"Variant {i + 1}" for i, d in enumerate(self.variants)]

    def active_variant(self) -> int:
        return next(i for i, d in enumerate(self.variants) if d is self.design)

    def new_variant(self, name: str | None = None) -> Design:
        """Duplicate the active variant as a new variant (named ``name`` or after it) and show it."""
        copy = self.design.copy()
        names = set(self.variant_names())
        base = name or f"{self.design.name or 'Design'} (variant)"
        label, n = base, 2
        while label in names:
            label, n = f"{base} {n}", n + 1
        copy.name = label
        self._auto_collapsed[id(copy)] = set(self._auto_collapsed.get(id(self.design), ()))
        self.variants.insert(self.active_variant() + 1, copy)
        self._add_stack(copy)
        self._watch(copy, True)
        self._variants_edited = True
        self.switch_variant(self.variants.index(copy))
        self.modified_changed.emit(True)
        return copy

    def switch_variant(self, index: int) -> None:
        """Show variant ``index`` (its undo history comes with it)."""
        design = self.variants[index]
        if design is self.design:
            return
        self.design = design
        self.undo_group.setActiveStack(self.undo_stack)
        self.design_replaced.emit(design)
        self.variants_changed.emit()

    def remove_variant(self, index: int) -> None:
        """Delete a variant (not the last one); the neighbour is shown if it was active."""
        if len(self.variants) < 2:
            raise ValueError("the only design of a file cannot be removed")
        design = self.variants[index]
        if design is self.design:
            self.switch_variant(index + 1 if index + 1 < len(self.variants) else index - 1)
        self.variants.pop(index)
        self._watch(design, False)
        stack = self._stacks.pop(id(design))
        self.undo_group.removeStack(stack)
        stack.deleteLater()
        self._variants_edited = True
        self.variants_changed.emit()
        self.modified_changed.emit(True)

    def others(self) -> list[Design]:
        """The variants after the main one (the file's first design), as the file stores them."""
        return self.variants[1:]

    def push(self, command: QUndoCommand) -> None:
        """Run a command and put it on the undo stack.

        A design command runs before it is pushed: if the model refuses the edit, the
        DesignError propagates to the caller and the stack is unchanged.
        """
        if isinstance(command, DesignCommand):
            command.apply()
        self.undo_stack.push(command)

    def set_collapsed(self, group_ids: list[str], collapsed: bool) -> bool:
        """Collapse or expand groups as view state: no undo step, and the design is not modified.

        The flag lives in the design (``Group.collapsed``) and a save writes it, as the user left
        it; what only fitted a large design on screen (:func:`auto_collapse`) is not written.
        """
        d = self.design
        ids = self.changing_groups(group_ids, collapsed)
        if not ids:
            return False
        self._auto_collapsed.get(id(d), set()).difference_update(ids)  # the user's choice from now on
        with d.batch():
            for g in ids:
                d.set_group_field(g, "collapsed", collapsed)
        return True

    def changing_groups(self, group_ids: list[str], collapsed: bool) -> list[str]:
        """The groups among ``group_ids`` (each once, in order) that :meth:`set_collapsed` would change."""
        d = self.design
        return [g for g in dict.fromkeys(group_ids) if d.has_group(g) and d.group(g).collapsed != collapsed]

    def reveal(self, group_ids: list[str]) -> bool:
        """Expand collapsed groups to show what they hide (a bottleneck, a found device), as view state."""
        return self.set_collapsed(group_ids, False)

    def view_only_collapsed(self, design: Design) -> set[str]:
        """The groups of ``design`` collapsed only to fit it on screen, still collapsed: not saved."""
        auto = self._auto_collapsed.get(id(design), set())
        return {g for g in auto if design.has_group(g) and design.group(g).collapsed}

    def display_name(self) -> str:
        if self.path is not None:
            return self.path.name
        return self.design.name or "Untitled"

    # ------------------------------------------------------------------ replacing the design
    def set_design(self, design: Design, path: Path | None, *, modified: bool = False, collapse: bool = True,
                   variants: list[Design] | tuple[Design, ...] = ()) -> None:
        """Make ``design`` (with its ``variants``) the document's design; the undo history starts afresh.

        ``collapse``: collapse groups of a large design first (see :func:`auto_collapse`).
        """
        self._auto_collapsed = {id(d): auto_collapse(d) if collapse else set() for d in (design, *variants)}
        self._install([design, *variants])
        self.path = path
        self.design_replaced.emit(design)
        self.variants_changed.emit()
        self.path_changed.emit(str(path) if path else "")
        # A restored recovery file with variants differs from the file on disk as a whole: no undo
        # step stands for that, so it counts as modified until saved (see ``replace`` otherwise).
        self._variants_edited = modified
        self.modified_changed.emit(self.is_modified())

    def replace(self, design: Design, path: Path | None, text: str, *, collapse: bool = True) -> None:
        """Show ``design`` instead of the active one, as one undo step named ``text``.

        The file name becomes ``path`` (None: saving asks where); undo brings back the design and
        the file name shown before, and with them the modified mark they had.
        """
        self._auto_collapsed[id(design)] = auto_collapse(design) if collapse else set()
        self.push(ReplaceDesignCommand(self, design, path, text))

    def _swap(self, old: Design, new: Design, path: Path | None) -> None:
        """Put ``new`` in the place of variant ``old`` (its undo stack follows) and show it."""
        index = next(i for i, d in enumerate(self.variants) if d is old)
        self._stacks[id(new)] = self._stacks.pop(id(old))
        self._watch(old, False)
        self.variants[index] = new
        self._watch(new, True)
        self.design = new
        path_moved = path != self.path
        self.path = path
        self.design_replaced.emit(new)
        self.variants_changed.emit()
        if path_moved:
            self.path_changed.emit(str(path) if path else "")

    def new(self) -> None:
        self.set_design(Design(), None)

    def open(self, path: str | Path, read: Callable[[Path], list[Design]] = load_designs) -> None:
        """Load ``path`` and make it the design; raises DesignFileError (or what ``read`` raises) and
        changes nothing on error. ``read`` reads the file into the design and its variants (the
        window passes one that reads it in a worker thread behind a progress dialog)."""
        p = Path(path)
        # Read and shown without the collector, then exempted from its scans (the window keeps
        # its designs so, :func:`designer.model.bulk.built_to_keep`): at 131,072 GPUs a collection
        # would scan the 3 million new objects (0.5-1 s) once the canvas starts building.
        with built_to_keep():
            designs = read(p)
            self.set_design(designs[0], p.resolve(), variants=designs[1:])

    def save(self, path: str | Path | None = None, write: Callable[[Path], None] | None = None) -> Path:
        """Write the design (atomically) to ``path`` or its current file; mark it clean. ``write``
        writes it (default :meth:`save_copy`; the window passes one that writes a large design in a
        worker thread behind a progress dialog); what it raises leaves the document as it was."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ValueError("no file name: use save(path)")
        (write or self.save_copy)(target)
        self.path = target.resolve()
        self._variants_edited = False
        for stack in self._stacks.values():
            stack.setClean()
        self.modified_changed.emit(self.is_modified())
        self.path_changed.emit(str(self.path))
        return self.path

    def large_to_write(self) -> bool:
        """Writing the design and its variants would hold the window (see :data:`WRITE_IN_WORKER_ABOVE`)."""
        return sum(d.device_count() + d.link_count() for d in self.variants) > WRITE_IN_WORKER_ABOVE

    def save_copy(self, path: str | Path) -> None:
        """Write the design and its variants to ``path`` (atomically) without changing the document."""
        save_design(self.variants[0], path, self.others(), [self.view_only_collapsed(d) for d in self.variants])


class ReplaceDesignCommand(QUndoCommand):
    """The shown design replaced by another (an import, a restored recovery file): one undo step.

    Later steps on the same stack edit the new design; undoing past this one brings the old
    design object back, so the steps before it find the design they were made on.
    """

    def __init__(self, document: Document, design: Design, path: Path | None, text: str) -> None:
        super().__init__(text)
        self.document = document
        self.old, self.new = document.design, design
        self.old_path, self.new_path = document.path, path

    def redo(self) -> None:
        self.document._swap(self.old, self.new, self.new_path)

    def undo(self) -> None:
        self.document._swap(self.new, self.old, self.old_path)


def auto_collapse(design: Design, limit: int = AUTO_COLLAPSE_DEVICES) -> set[str]:
    """Collapse groups, smallest kind first, until at most ``limit`` objects and links would be shown;
    return the ids of the groups it collapsed.

    Only a design with no collapsed group yet is touched: a design saved with its own
    collapse state opens as it was saved. This is view state kept in the model
    (``Group.collapsed``), set before the scene is built, and not an undoable edit.
    """
    done: set[str] = set()
    if design.device_count() <= limit or any(g.collapsed for g in design.groups):
        return done
    ordered = design.groups_parent_first()  # collapsing changes no group's place in the tree
    with design.batch():
        for kind in _COLLAPSE_ORDER:
            groups = [g for g in design.groups if g.kind == kind]
            for g in groups:
                design.set_group_field(g.id, "collapsed", True)
                done.add(g.id)
            # After the last kind there is nothing more to collapse: counting would change nothing
            # (0.3 s of bundles at 131,072 GPUs).
            if kind == _COLLAPSE_ORDER[-1]:
                break
            if groups and shown_count(design, ordered) <= limit and bundle_count(design, ordered) <= 2 * limit:
                break
    return done


def shown_count(design: Design, parents_first: list[Group] | None = None) -> int:
    """How many objects (devices and collapsed-group boxes) the canvas would show (``parents_first``:
    see :meth:`designer.model.Design.hiding_groups`)."""
    hiding = design.hiding_groups(parents_first)
    boxes = sum(1 for gid, top in hiding.items() if top == gid)
    return boxes + design.shown_device_count(hiding)


def bundle_count(design: Design, parents_first: list[Group] | None = None) -> int:
    """How many link lines the canvas would draw (parallel links and collapsed groups bundled)."""
    # a device's shown object: itself, or ":" and the id of the group hiding it (":" is in no id)
    box = {gid: ":" + top for gid, top in design.hiding_groups(parents_first).items() if top is not None}
    devices = list(design.iter_devices())
    ids = list(map(attrgetter("id"), devices))
    rep = dict(zip(ids, map(box.get, map(attrgetter("group"), devices), ids), strict=True))
    return len({(a, b) if a < b else (b, a) for _, a, b in bundled_ends(design.links, rep)})
