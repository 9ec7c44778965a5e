"""Files: design files (versioned, migrated, validated, atomic writes). No Qt.

The JSON documents of results (report, findings, bill of materials) are written by
:mod:`designer.present`.
"""

from designer.io.atomic import FileWriteError, atomic_write_bytes, atomic_write_text
from designer.io.design_file import (
    FORMAT,
    VERSION,
    DesignFileError,
    SaveStopped,
    design_from_data,
    design_from_text,
    design_to_text,
    designs_from_text,
    load_design,
    load_designs,
    save_design,
)

__all__ = [
    "FORMAT",
    "VERSION",
    "DesignFileError",
    "FileWriteError",
    "SaveStopped",
    "atomic_write_bytes",
    "atomic_write_text",
    "design_from_data",
    "design_from_text",
    "design_to_text",
    "designs_from_text",
    "load_design",
    "load_designs",
    "save_design",
]
