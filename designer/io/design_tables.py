"""A design file's tables (groups, devices, links): rows under one list of fields, or records.

Version 3 writes each table as an object, the field names once and then one row per record, one
row per line::

    "links": {"fields": ["id", "a", "b", "medium", "length_m", "cable"], "rows": [
      ["l1", "su1-node1-nic1:p1", "su1-leaf1:p1", "passive_copper", 2.0, "dac-400g-ndr"],
      ["l2", "su1-node2-nic1:p1", "su1-leaf1:p2", "optical", 12.0, null]
    ]}

A row holds its record's values in the order of ``fields``, ``null`` where the record leaves a field
out (its default). Versions 1 and 2 wrote each table as a list of records (objects); every version
reads both forms. The rows spare the parser an object and a repeated key per record: the
131,072-GPU design's file is 109 MB instead of 154 MB and parses in 0.67 s instead of 1.0 s.

A table read from a file is a :class:`Table`: its records one by one for the careful path of
:mod:`designer.io.design_records`, which names a problem by its path (``links.rows[12]``), and its
columns for the whole-table checks of :mod:`designer.io.design_bulk`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import chain, repeat
from operator import itemgetter
from typing import Any

from designer.model.fields import FieldError, as_list, as_text

#: Each table's fields in the order a row holds them; a file's ``fields`` lists some of them, in this
#: order when written by this program, in any order when read.
FIELDS: dict[str, tuple[str, ...]] = {
    "groups": ("id", "kind", "name", "parent", "collapsed", "properties"),
    "devices": ("id", "kind", "model", "name", "tier", "x", "y", "group", "ports", "properties"),
    "links": ("id", "a", "b", "medium", "length_m", "cable", "failed", "properties"),
}
TABLE_KEYS = frozenset(("fields", "rows"))
_DICT = frozenset((dict,))
_LIST = frozenset((list,))

#: One column of a table: ``column(field, default)`` gives the field's value in every record, in table
#: order, ``default`` where a record leaves it out.
Columns = Callable[[str, Any], list[Any]]


class Table:
    """One table of a design body as its file holds it."""

    def __init__(self, path: str, records: list[Any] | None = None, fields: tuple[str, ...] = (),
                 rows: list[Any] | None = None) -> None:
        #: The path of the table's entries in messages: ``devices`` (records) or ``devices.rows``.
        self.path = path
        self._records = records
        self.fields = fields
        self._rows = rows

    def records(self) -> Iterator[Any]:
        """The entries one by one as records (a row becomes the object of its non-null values); a
        row that is not a list of one value per field is refused when it is reached."""
        if self._records is not None:
            yield from self._records
            return
        fields, n = self.fields, len(self.fields)
        for i, row in enumerate(self._rows or ()):
            if type(row) is not list or len(row) != n:
                got = f"{len(row)} values" if type(row) is list else type(row).__name__
                raise FieldError(f"{self.path}[{i}]", f"must be a list of {n} values, one per field, not {got}")
            yield {f: v for f, v in zip(fields, row, strict=True) if v is not None}

    def columns(self, known: frozenset[str] | set[str]) -> Columns | None:
        """The table a column at a time when every entry is regular: records are objects with no
        field outside ``known``, rows are lists of one value per field. None otherwise (the careful
        path then names the problem)."""
        if self._records is not None:
            raw = self._records
            if not (set(map(type, raw)) <= _DICT and all(map(known.issuperset, raw))):
                return None
            return lambda key, default=None: list(map(dict.get, raw, repeat(key), repeat(default)))
        rows = self._rows or []
        if rows and not (set(map(type, rows)) <= _LIST and set(map(len, rows)) == {len(self.fields)}):
            return None
        where = {f: i for i, f in enumerate(self.fields)}

        def column(key: str, default: Any = None) -> list[Any]:
            i = where.get(key)
            if i is None:
                return [default] * len(rows)
            values = list(map(itemgetter(i), rows))
            if default is not None and None in values:
                values = [default if v is None else v for v in values]
            return values

        return column


def read_table(value: Any, name: str) -> Table:
    """The table ``name`` (``groups``, ``devices``, ``links``) of a design body: a list of records,
    or an object of ``fields`` (known, each once) and ``rows`` (a list)."""
    if type(value) is list:
        return Table(name, records=value)
    if type(value) is not dict:
        raise FieldError(name, f"must be a list of records or an object of 'fields' and 'rows', not "
                               f"{type(value).__name__}")
    extra = value.keys() - TABLE_KEYS
    if extra:
        raise FieldError(name, f"unknown field {sorted(extra)[0]!r}")
    for key in ("fields", "rows"):
        if key not in value:
            raise FieldError(name, f"missing {key!r}")
    fields = as_list(value["fields"], f"{name}.fields")
    known = FIELDS[name]
    for j, f in enumerate(fields):
        as_text(f, f"{name}.fields[{j}]")
        if f not in known:
            raise FieldError(f"{name}.fields[{j}]", f"unknown field {f!r}")
        if f in fields[:j]:
            raise FieldError(f"{name}.fields[{j}]", f"{f!r} is listed twice")
    return Table(f"{name}.rows", fields=tuple(fields), rows=as_list(value["rows"], f"{name}.rows"))


def table_records(value: Any, name: str) -> list[Any]:
    """The entries of the table ``name`` of a parsed body as records, whichever form it has (for a
    script that edits a saved file record by record; a list of records may be written back as is)."""
    return list(read_table(value, name).records())


def table_rows(name: str, records: list[dict[str, Any]]) -> tuple[list[str], Iterator[tuple[Any, ...]]]:
    """The fields and rows that write ``records`` (this program's own, keys among ``FIELDS[name]``):
    the fields any record holds, in the order of ``FIELDS[name]``; None where a record leaves one out."""
    held = set(chain.from_iterable(records))
    fields = [f for f in FIELDS[name] if f in held]
    columns = [map(dict.get, records, repeat(f)) for f in fields]
    return fields, zip(*columns, strict=True)
