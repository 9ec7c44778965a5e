"""A minimal synchronous signal: the model's change events, free of Qt.

The GUI bridges these to Qt signals; analysis runners subscribe to debounce recomputation.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any


class Signal:
    """A list of callbacks called in connection order with the emitted arguments."""

    __slots__ = ("name", "_slots")

    def __init__(self, name: str) -> None:
        self.name = name
        self._slots: list[Callable[..., Any]] = []

    def connect(self, slot: Callable[..., Any]) -> None:
        if slot not in self._slots:
            self._slots.append(slot)

    def disconnect(self, slot: Callable[..., Any]) -> None:
        with contextlib.suppress(ValueError):
            self._slots.remove(slot)

    def emit(self, *args: Any) -> None:
        for slot in tuple(self._slots):
            slot(*args)

    def __len__(self) -> int:
        return len(self._slots)

    def __repr__(self) -> str:
        return f"Signal({self.name!r}, {len(self._slots)} slots)"
