"""The group tree of a design, as queries: members, sub-groups, ancestors, what a collapse hides.

A mixin of :class:`designer.model.design.Design`, kept apart from the edit primitives: it reads the
design's group table and its member and child indexes, and never changes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import compress
from operator import attrgetter, ne
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from designer.model.entities import Device, Group, Link

_GROUP, _A_DEVICE, _B_DEVICE = attrgetter("group"), attrgetter("a_device"), attrgetter("b_device")
K = TypeVar("K")


def parents_first(groups: Iterable[Group], by_id: Mapping[str, Group]) -> list[Group]:
    """``groups`` in their order, except that a parent always comes before its sub-groups (each
    chain of missing ancestors is walked once, outermost placed first; ``by_id`` finds a parent,
    and the tree holds no cycle). A loop, not a recursive helper: nothing deep to recurse into and
    no function that refers to itself, which would keep the groups alive until the collector ran."""
    ordered: list[Group] = []
    placed: set[str] = set()
    for g in groups:
        chain = []
        cur: Group | None = g
        while cur is not None and cur.id not in placed:
            chain.append(cur)
            cur = by_id[cur.parent] if cur.parent is not None else None
        for c in reversed(chain):
            placed.add(c.id)
            ordered.append(c)
    return ordered


def bundled_ends(links: Sequence[Link], shown: Mapping[str, K]) -> Iterator[tuple[Link, K, K]]:
    """``(link, shown object at end a, at end b)`` of each link whose two ends show as different
    objects, in link order; ``shown`` maps every device id to the object that shows it (the device,
    or the collapsed group hiding it). A link inside one collapsed group is drawn by nothing.

    Looked up a column at a time: at 131,072 GPUs most of the 655,360 links lie inside collapsed groups.
    """
    ends_a = list(map(shown.__getitem__, map(_A_DEVICE, links)))
    ends_b = list(map(shown.__getitem__, map(_B_DEVICE, links)))
    return compress(zip(links, ends_a, ends_b, strict=True), map(ne, ends_a, ends_b))


class GroupHierarchy:
    """Queries of the group tree (the design's ``_groups``, ``_devices``, ``_group_members`` and
    ``_group_children`` hold it)."""

    _devices: Any
    _groups: Any
    _group_members: dict[str, dict[str, None]]
    _group_children: dict[str, dict[str, None]]

    def members(self, group_id: str) -> list[Device]:
        """Devices directly in a group (not in its sub-groups)."""
        by_id = self._devices.by_id
        return [by_id[i] for i in self._group_members.get(group_id, ())]

    def child_groups(self, group_id: str | None) -> list[Group]:
        if group_id is None:
            return [g for g in self._groups.order if g.parent is None]
        by_id = self._groups.by_id
        return [by_id[i] for i in self._group_children.get(group_id, ())]

    def all_members(self, group_id: str) -> list[Device]:
        """Devices in a group or any of its sub-groups."""
        out: list[Device] = []
        stack = [group_id]
        device = self._devices.by_id.__getitem__
        members, children = self._group_members, self._group_children
        while stack:
            gid = stack.pop()
            out.extend(map(device, members.get(gid, ())))
            stack.extend(children.get(gid, ()))
        return out

    def ancestors(self, group_id: str | None) -> list[str]:
        """The group and its enclosing groups, innermost first."""
        out: list[str] = []
        while group_id is not None:
            out.append(group_id)
            group_id = self._groups.by_id[group_id].parent
        return out

    def outermost_collapsed_group(self, group_id: str | None, *, include_self: bool = True) -> str | None:
        """The outermost collapsed group among ``group_id`` and its enclosing groups, or None.

        For a device in group ``g``, ``outermost_collapsed_group(g)`` is the collapsed group the
        device is hidden in (None: it is shown). With ``include_self=False`` only the groups
        enclosing ``group_id`` count: whether group ``g`` itself is hidden inside a collapsed group.
        """
        by_id = self._groups.by_id
        if group_id is not None and not include_self:
            group_id = by_id[group_id].parent
        outermost = None
        while group_id is not None:
            group = by_id[group_id]
            if group.collapsed:
                outermost = group_id
            group_id = group.parent
        return outermost

    def hiding_groups(self, parents_first: list[Group] | None = None) -> dict[str, str | None]:
        """Each group's :meth:`outermost_collapsed_group` (None: the group is shown open), read in one
        pass parents first: the one map the canvas and its counts read what a collapse hides from.
        ``parents_first``: :meth:`groups_parent_first` when the caller has it already (the groups
        unchanged since, their ``collapsed`` flags aside)."""
        out: dict[str, str | None] = {}
        for g in self.groups_parent_first() if parents_first is None else parents_first:
            outer = out[g.parent] if g.parent is not None else None
            out[g.id] = outer if outer is not None else g.id if g.collapsed else None
        return out

    def devices_hidden_in(self, hiding: dict[str, str | None] | None = None) -> list[str | None]:
        """Per device in table order, the collapsed group it is hidden in (None: the device is drawn);
        ``hiding`` is :meth:`hiding_groups` when the caller has it already."""
        if hiding is None:
            hiding = self.hiding_groups()
        return list(map(hiding.get, map(_GROUP, self._devices.order)))  # no group: get(None) is None

    def shown_device_count(self, hiding: dict[str, str | None] | None = None) -> int:
        """How many devices no collapsed group hides: ``devices_hidden_in(hiding).count(None)``
        counted a group at a time (a look per group, not per device)."""
        if hiding is None:
            hiding = self.hiding_groups()
        members = self._group_members
        hidden = sum(len(members.get(g, ())) for g, top in hiding.items() if top is not None)
        return len(self._devices.order) - hidden

    def groups_parent_first(self) -> list[Group]:
        """Groups in table order, except that a parent always comes before its sub-groups.

        (A group can be re-parented under a group added after it; files and copies list
        parents first so that they can be rebuilt in order.)
        """
        return parents_first(self._groups.order, self._groups.by_id)
