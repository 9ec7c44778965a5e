"""Work around a reference-count bug of PySide6 6.12.0 on Python 3.11.

Every return from a ``void`` Qt virtual implemented in Python (``QGraphicsItem.paint``,
``QWidget.paintEvent``, ...) releases one reference to ``None`` that it never took. On
Python 3.12+ ``None`` is immortal and nothing happens; on 3.11 its count falls by one per call
and the interpreter aborts (``none_dealloc``) after some tens of thousands of paints: a
2,000-device canvas crashes within seconds. Measured: 1,000 ``QWidget.repaint()`` calls of a
widget with a Python ``paintEvent`` lower ``sys.getrefcount(None)`` by exactly 1,000.

The fix gives ``None`` the effectively-immortal reference count Python 3.12 gives it
(CPython only; ``id(None)`` is the object's address and the count is its first field).
"""

from __future__ import annotations

import ctypes
import platform
import sys

#: What Python 3.12 uses for immortal objects is larger; 2**40 decrements is ~12 days of
#: 1,000,000 paints per second.
_BOOST = 1 << 40


def protect_none() -> bool:
    """Make ``None`` practically immortal on CPython < 3.12; return True if it changed anything."""
    if sys.version_info >= (3, 12) or platform.python_implementation() != "CPython":
        return False
    refcnt = ctypes.c_ssize_t.from_address(id(None))
    if refcnt.value >= _BOOST:
        return False
    refcnt.value += _BOOST
    return True
