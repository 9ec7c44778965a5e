"""The pieces every HTML page of the designer is built from: its style sheet, escaping, tables, figures.

The design report (:mod:`designer.present.html_report`) and the sweep report
(:mod:`designer.present.sweep_report`) share them, so both pages read alike. Pictures are PNG
data URIs; nothing is fetched.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from designer.model.text import visible

if TYPE_CHECKING:
    from designer.present.export import Picture

CSS = """
:root { color-scheme: light; }
body { font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #1d232b;
       max-width: 1100px; margin: 24px auto; padding: 0 20px; background: #fff; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 30px 0 8px; border-bottom: 2px solid #1E6FD9; padding-bottom: 3px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
.sub { color: #5a6472; margin: 0 0 14px; }
.figures { display: flex; flex-wrap: wrap; gap: 10px; margin: 12px 0; }
.figure { border: 1px solid #c9ced6; border-radius: 6px; padding: 8px 12px; min-width: 150px; flex: 1 1 150px; }
.figure .v { font-size: 20px; font-weight: 600; }
.figure .k { color: #5a6472; font-size: 12px; }
table { border-collapse: collapse; margin: 6px 0 12px; width: 100%; font-size: 13px; }
th, td { border: 1px solid #d7dbe1; padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #eef2f7; }
td.n, th.n { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
tr.sel td { font-weight: 600; }
.total td { font-weight: 600; background: #f6f8fa; }
img { max-width: 100%; height: auto; border: 1px solid #d7dbe1; }
figure { margin: 10px 0 18px; }
figcaption { color: #5a6472; font-size: 12px; }
.panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(460px, 1fr)); gap: 14px; }
.error { color: #b3261e; } .warning { color: #8a5a00; }
.code { white-space: nowrap; }
details { margin: 6px 0 12px; } summary { cursor: pointer; color: #1E6FD9; }
.note { color: #5a6472; font-size: 12.5px; }
.src { color: #5a6472; font-size: 11.5px; }
@media print {
  body { margin: 0; max-width: none; font-size: 11pt; }
  h2, h3, .sub { break-after: avoid; page-break-after: avoid; }
  figure, .figures, .figure, tr { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
  .panels { display: block; }
  a { color: inherit; text-decoration: none; }
}
"""


def esc(value: Any) -> str:
    """``value`` as HTML text (quotes escaped too, for attributes), control and bidirectional
    characters shown as ``\\u202e`` text (:func:`designer.model.text.visible`): a name cannot reverse
    or hide the page's text."""
    return escape(visible(str(value)), quote=True)


def tagged(key: str, value: Any, text: str) -> str:
    """Text of a figure tagged with its JSON path and exact value."""
    raw = "" if value is None else repr(value) if isinstance(value, float) else str(value)
    return f'<span data-key="{esc(key)}" data-value="{esc(raw)}">{esc(text)}</span>'


def or_missing(fmt: Any, value: float | None, missing: str = "n/a") -> str:
    """``fmt(value)``, or ``missing`` when there is no value."""
    return missing if value is None else fmt(value)


def figure(label: str, body: str) -> str:
    """A key-figure box: ``body`` (HTML) large, ``label`` under it."""
    return f'<div class="figure"><div class="v">{body}</div><div class="k">{esc(label)}</div></div>'


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[bool] = (),
          row_class: Sequence[str] = ()) -> str:
    """An HTML table; cells are already HTML."""
    num = list(numeric) + [False] * (len(headers) - len(numeric))
    head = "".join(f'<th class="{"n" if n else ""}">{esc(h)}</th>' for h, n in zip(headers, num, strict=True))
    body = []
    classes = list(row_class)
    for i, row in enumerate(rows):
        cls = f' class="{classes[i]}"' if i < len(classes) and classes[i] else ""
        cells = "".join(f'<td class="{"n" if n else ""}">{c}</td>' for c, n in zip(row, num, strict=True))
        body.append(f"<tr{cls}>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def img(pic: Picture, alt: str) -> str:
    """A picture embedded as a PNG data URI."""
    data = base64.b64encode(pic.png).decode("ascii")
    size = f' width="{pic.width}" height="{pic.height}"' if pic.width and pic.height else ""
    return f'<img src="data:image/png;base64,{data}" alt="{esc(alt)}"{size}>'


__all__ = ["CSS", "esc", "figure", "img", "or_missing", "table", "tagged"]
