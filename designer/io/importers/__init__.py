"""Import other tools' fabric descriptions as designs (docs/import.md). No Qt.

One module per format, each with ``NAME``, ``TITLE``, ``sniff(text) -> 0..100`` (how sure the
content is that format) and ``read(text, options, report) -> Design``. :func:`import_file` reads a
file through a bounded reader, decodes it (UTF-8 with or without a byte-order mark, CRLF; Latin-1
when it is not UTF-8, reported), detects the format from the content unless one is given, and
returns the design with its :class:`ImportReport`.

>>> from designer.io.importers import import_text
>>> design, report = import_text('graph [ node [ id 0 label "a" ] node [ id 1 label "b" ] '
...                              'edge [ source 0 target 1 LinkLabel "10GE" ] ]', source="two.gml")
>>> report.format, design.n_devices if hasattr(design, "n_devices") else len(list(design.iter_devices()))
('gml', 2)
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from designer.io.importers import astrasim, containerlab, graphs, ibnetdiscover, nccl, simai, slurm
from designer.io.importers.base import (
    ATTRIBUTE_KEYS,
    MAX_IMPORT_BYTES,
    ImportFileError,
    ImportOptions,
    ImportReport,
    decode_text,
    parse_attribute_mapping,
    parse_rate_gbps,
    parse_rate_option,
    read_name_map,
    read_source,
)
from designer.io.importers.hosts import ServerTemplate, template_from_design
from designer.model import Design

#: Format name -> module, in the order detection tries them.
FORMATS = {
    "ibnetdiscover": ibnetdiscover,
    "graphml": graphs.GRAPHML,
    "gml": graphs.GML,
    "slurm": slurm,
    "nccl": nccl,
    "simai": simai,
    "containerlab": containerlab,
    "astrasim": astrasim,
}
#: Names a user may give for a format.
ALIASES = {"ibdiagnet": "ibnetdiscover", "lst": "ibnetdiscover", "topology.conf": "slurm", "nccl-xml": "nccl",
           "clab": "containerlab", "astra-sim": "astrasim"}


@dataclass
class ImportResult:
    design: Design
    report: ImportReport


def format_names() -> list[str]:
    return list(FORMATS)


#: Files recognised but not imported by this version: what they look like, what they are.
RECOGNISED_ONLY = (
    (re.compile(r"\A(?:\s*(?:#.*)?\n)*\s*(?:0x)?[0-9A-Fa-f]{8,}|\A(?:\s*(?:#.*)?\n)*\s*[SH]-[0-9a-f]{16}\s+\S+\s*$",
                re.MULTILINE),
     "a list of GUIDs (a node-name map or a GUID list), not a topology: give a node-name map with --map"),
)


def check_hosts_regex(text: str) -> str:
    """``text`` if it is a regular expression, else ImportFileError saying why (``--hosts``)."""
    try:
        re.compile(text)
    except re.error as e:
        raise ImportFileError(f"--hosts {text!r}: not a regular expression: {e}") from None
    return text


def read_server_template(path: str | os.PathLike[str]) -> ServerTemplate:
    """The server a file holds (an NCCL topology XML, or a design file of one server), as the template
    of every GPU host of an import (``--server-xml``)."""
    from designer.io.server_template import load_server_template, template_title

    return template_from_design(load_server_template(path), template_title(path))


def detect_format(text: str, source: str = "<input>") -> str:
    """The format name the content is, or ImportFileError saying what the file looks like."""
    scores = sorted(((mod.sniff(text), name) for name, mod in FORMATS.items()), reverse=True)
    best, name = scores[0]
    if best <= 0:
        head = text[:20_000]
        for pattern, what in RECOGNISED_ONLY:
            if pattern.search(head):
                raise ImportFileError(f"{source}: {what}")
        raise ImportFileError(f"{source}: format not recognised (not {', '.join(FORMATS)}): "
                              "give it with --format")
    return name


def import_text(text: str, source: str = "<input>",
                options: ImportOptions | None = None) -> tuple[Design, ImportReport]:
    """Import decoded text (see :func:`import_file`)."""
    options = options or ImportOptions()
    if not text.strip():
        raise ImportFileError(f"{source}: file is empty")
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    name = options.format
    if name:
        name = ALIASES.get(name.lower(), name.lower())
        if name not in FORMATS:
            raise ImportFileError(f"unknown import format {options.format!r}: use one of {', '.join(FORMATS)}")
    else:
        name = detect_format(text, source)
    report = ImportReport(source, format=name)
    design = FORMATS[name].read(text, options, report)
    return design, report


def import_bytes(raw: bytes, source: str = "<input>",
                 options: ImportOptions | None = None) -> tuple[Design, ImportReport]:
    """Import a file's bytes (see :func:`import_file`)."""
    options = options or ImportOptions()
    if len(raw) > options.max_bytes:
        raise ImportFileError(f"{source}: larger than the {options.max_bytes // (1024 * 1024)} MiB import limit")
    if not raw.strip():
        raise ImportFileError(f"{source}: file is empty")
    text, latin1_line = decode_text(raw, source)
    del raw
    design, report = import_text(text, source, options)
    if latin1_line:
        report.guess("text encoding", "not UTF-8: read as Latin-1", latin1_line, "encoding")
    return design, report


def import_file(path: str | os.PathLike[str], options: ImportOptions | None = None) -> tuple[Design, ImportReport]:
    """Import ``path`` (``-``: standard input): the design and what the import read, guessed and skipped.

    Raises :class:`ImportFileError` (a one-line :class:`~designer.model.DesignError`) when the file
    cannot be read or is not the format.
    """
    options = options or ImportOptions()
    raw, source = read_source(path, options.max_bytes)
    return import_bytes(raw, source, options)


__all__ = [
    "ATTRIBUTE_KEYS",
    "FORMATS",
    "MAX_IMPORT_BYTES",
    "ImportFileError",
    "ImportOptions",
    "ImportReport",
    "ImportResult",
    "check_hosts_regex",
    "detect_format",
    "format_names",
    "import_bytes",
    "import_file",
    "import_text",
    "parse_attribute_mapping",
    "parse_rate_gbps",
    "parse_rate_option",
    "read_name_map",
    "read_server_template",
]
