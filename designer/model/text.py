r"""Free text from a design (names, descriptions, property values) made safe to show or to write.

Names are free text: a terminal would act on an escape sequence, a page's text would be reversed
by a bidirectional override (U+202E), and XML cannot hold most control characters at all. One
rule says which characters are escaped and how, for the terminal, the HTML reports and GraphML:

- :func:`visible`: control, format, surrogate, private-use, unassigned and line/paragraph
  separator characters (Unicode categories ``Cc Cf Cs Co Cn Zl Zp``), newline and tab excepted,
  become ``\xNN``, ``\uNNNN`` or ``\UNNNNNNNN`` text. The terminal and the HTML reports use it.
- :func:`xml_text`: only the characters XML 1.0 cannot hold (C0 controls but tab, newline and
  carriage return; U+FFFE, U+FFFF; surrogates) escaped the same way, so GraphML stays well-formed
  and every other name reads back exactly.

>>> visible("rack\u202e1\x1b[2J\tok\n"), xml_text("rack\u202e1\x1b[2J")
('rack\\u202e1\\x1b[2J\tok\n', 'rack\u202e1\\x1b[2J')
"""

from __future__ import annotations

import re
import unicodedata

_UNSAFE = frozenset(("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))
#: What may need an escape: anything but printable ASCII, newline and tab (then checked by category).
_MAYBE_UNSAFE = re.compile(r"[^\x20-\x7e\n\t]")
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def escaped_char(ch: str) -> str:
    """``ch`` as ``\\xNN``, ``\\uNNNN`` or ``\\UNNNNNNNN``."""
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def unsafe(ch: str) -> bool:
    """A character a terminal or a page would act on instead of showing (newline and tab are safe)."""
    return ch not in "\n\t" and unicodedata.category(ch) in _UNSAFE


def _visible_match(match: re.Match[str]) -> str:
    ch = match.group()
    return escaped_char(ch) if unsafe(ch) else ch


def visible(text: str) -> str:
    """``text`` with every :func:`unsafe` character escaped (the search runs in C)."""
    if text.isascii() and text.isprintable():
        return text
    return _MAYBE_UNSAFE.sub(_visible_match, text)


def xml_text(text: str) -> str:
    """``text`` with the characters XML 1.0 cannot hold escaped (markup is not escaped here)."""
    return _NOT_XML.sub(lambda m: escaped_char(m.group()), text)
