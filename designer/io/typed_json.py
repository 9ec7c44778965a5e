"""Typed readers of the fields of a small parsed JSON document (workloads of every kind).

The rule of each kind of value (a whole number may be written ``2.0``, text is at most
:data:`designer.model.fields.MAX_TEXT` characters, numbers are finite) is
:mod:`designer.model.fields`, which design files and catalogs read through too; this module binds
those rules to one document's name and error class.

Each reader takes the object, the key and the dotted path of the object, checks the value's type
and range, and raises the document's error class with one line naming ``source`` and the exact
field (``w.json: model.layers: must be a whole number, not 'x'``).

Examples
--------
>>> f = Fields("w.json", ValueError)
>>> f.int({"layers": 80}, "layers", "model"), f.number({}, "share", "", 0.5, maximum=1.0)
(80, 0.5)
>>> f.int({"layers": 0}, "layers", "model")
Traceback (most recent call last):
ValueError: w.json: model.layers: must be a whole number from 1 to 1,000,000,000, not 0
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from designer.model.fields import FieldError, as_bool, as_int, as_number, as_text


def where(path: str, key: str) -> str:
    """``path.key``, or ``key`` at the top of the document."""
    return f"{path}.{key}" if path else key


class Fields:
    """Readers bound to one document's name (``source``) and error class."""

    def __init__(self, source: str, error: Callable[[str], Exception]) -> None:
        self.source = source
        self.error = error

    def fail(self, message: str) -> Exception:
        """The document's error with ``source: message``, to raise."""
        return self.error(f"{self.source}: {message}")

    def obj(self, data: Any, path: str) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise self.fail(f"{path or 'the document'} must be an object")
        return data

    def keys(self, obj: dict[str, Any], allowed: tuple[str, ...], path: str) -> None:
        for k in obj:
            if k not in allowed:
                raise self.fail(f"{where(path, k)}: unknown field (allowed: {', '.join(allowed)})")

    def section(self, parent: dict[str, Any], key: str, path: str, allowed: tuple[str, ...]) -> dict[str, Any]:
        """``parent[key]`` (an empty object when absent), checked to be an object with ``allowed`` keys."""
        full = where(path, key)
        d = self.obj(parent.get(key, {}), full)
        self.keys(d, allowed, full)
        return d

    def _checked(self, read: Callable[..., Any], value: Any, field: str, *args: Any, **kwargs: Any) -> Any:
        """``read(value, field, ...)`` of :mod:`designer.model.fields`, its refusal as this document's error."""
        try:
            return read(value, field, *args, **kwargs)
        except FieldError as e:
            raise self.fail(str(e)) from None

    def number(self, obj: dict[str, Any], key: str, path: str, default: Any = None, *, positive: bool = True,
               maximum: float | None = None) -> Any:
        v = obj.get(key, default)
        if v is None:
            if default is None and key not in obj:
                raise self.fail(f"{where(path, key)}: missing")
            return None
        return self._checked(as_number, v, where(path, key), minimum=0.0, positive=positive,
                             maximum=math.inf if maximum is None else maximum)

    def optional_number(self, obj: dict[str, Any], key: str, path: str, *, positive: bool = True,
                        maximum: float | None = None) -> float | None:
        """A number, or None when the field is absent or null."""
        if obj.get(key) is None:
            return None
        return self.number(obj, key, path, positive=positive, maximum=maximum)

    def int(self, obj: dict[str, Any], key: str, path: str, default: int | None = None, *, minimum: int = 1,
            maximum: int = 10**9) -> int:
        v = obj.get(key, default)
        if v is None:
            raise self.fail(f"{where(path, key)}: missing")
        return self._checked(as_int, v, where(path, key), minimum, maximum)

    def bool(self, obj: dict[str, Any], key: str, path: str, default: bool) -> bool:
        return self._checked(as_bool, obj.get(key, default), where(path, key))

    def text(self, obj: dict[str, Any], key: str, path: str, default: str | None = None) -> str:
        v = obj.get(key, default)
        if v is None:
            raise self.fail(f"{where(path, key)}: missing")
        return self._checked(as_text, v, where(path, key))

    def choice(self, obj: dict[str, Any], key: str, path: str, options: tuple[str, ...], default: str) -> str:
        v = self.text(obj, key, path, default)
        if v not in options:
            raise self.fail(f"{where(path, key)}: one of {', '.join(options)}, not {v!r}")
        return v

    def header(self, d: dict[str, Any], fmt: str, newest: int, kind: str) -> None:
        """The ``format`` and ``version`` members every workload kind starts with (``kind``: "workload")."""
        if d.get("format") != fmt:
            raise self.fail(f"not a {kind} file (format must be {fmt!r})")
        version = d.get("version")
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise self.fail("version must be a whole number >= 1")
        if version > newest:
            raise self.fail(f"{kind} version {version} is newer than this program reads ({newest}); "
                            "update topo-designer")

    def sources(self, d: dict[str, Any]) -> dict[str, str]:
        """The ``sources`` member: field names to citation text."""
        sources = d.get("sources", {})
        if not isinstance(sources, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                    for k, v in sources.items()):
            raise self.fail("sources: must map field names to citation text")
        return dict(sources)


__all__ = ["Fields", "where"]
