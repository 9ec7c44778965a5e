"""Server templates: a server read from a file, to stamp out on the canvas as often as needed.

A template is a design file (``.json``) or any file the importers read (:mod:`designer.io.importers`;
an NCCL topology dump above all: the inside of one real server) that holds at least one GPU. The
window's palette lists the templates a user added (Servers ▸ *name (template)*) and places a fresh
copy of the file's design at each drop.
"""

from __future__ import annotations

import os
from pathlib import Path

from designer.io.design_file import DesignFileError, load_design
from designer.model import Design


def template_title(path: str | os.PathLike[str]) -> str:
    """How the palette names a template: its file name without the extension.

    >>> template_title("/data/aws-ofi-nccl-p5.48xl-topo.xml")
    'aws-ofi-nccl-p5.48xl-topo'
    """
    return Path(path).stem or Path(path).name


def load_server_template(path: str | os.PathLike[str]) -> Design:
    """The server a template file holds; a one-line DesignError when it cannot be read or has no GPU."""
    from designer.io.importers import import_file

    p = os.fspath(path)
    design = load_design(p) if p.lower().endswith(".json") else import_file(p)[0]
    if not any(d.kind == "gpu" for d in design.iter_devices()):
        raise DesignFileError(f"{p}: holds no GPU: a server template is one server (GPUs, NICs, NVLink switches), "
                              "such as an NCCL topology dump")
    if not design.name:
        design.name = template_title(p)
    return design


__all__ = ["load_server_template", "template_title"]
