"""A parsed design file's tables turned from rows (what version 3 writes) into records and back, so
that a test can edit one record of a saved file and write it in either form."""

from __future__ import annotations

from typing import Any

from designer.io.design_tables import FIELDS, table_records

TABLES = tuple(FIELDS)


def _bodies(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [data, *data.get("variants", [])]


def as_records(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with every table of rows (main design and variants) a list of records, in place."""
    for body in _bodies(data):
        for name in TABLES:
            if isinstance(body.get(name), dict):
                body[name] = table_records(body[name], name)
    return data


def as_rows(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with every table of records written as rows, in place: the fields in the order of
    ``FIELDS``, then any other keys the records hold (an unknown field stays in the file)."""
    for body in _bodies(data):
        for name in TABLES:
            table = body.get(name)
            if isinstance(table, list) and all(isinstance(r, dict) for r in table):
                held = {k for r in table for k in r}
                fields = [f for f in FIELDS[name] if f in held] + sorted(held - set(FIELDS[name]))
                body[name] = {"fields": fields, "rows": [[r.get(f) for f in fields] for r in table]}
    return data


def rows_path(message: str) -> str:
    """A message of the record form as the row form names the same entry (``links[1]`` ->
    ``links.rows[1]``)."""
    for name in TABLES:
        message = message.replace(f"{name}[", f"{name}.rows[")
    return message
