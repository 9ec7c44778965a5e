"""Files: design files (versioned, migrated, validated, atomic) and report JSON. No Qt."""

from designer.io.atomic import FileWriteError, atomic_write_bytes, atomic_write_text
from designer.io.design_file import (
    FORMAT,
    VERSION,
    DesignFileError,
    design_from_data,
    design_from_text,
    design_to_text,
    load_design,
    save_design,
)
from designer.io.report import report_to_dict, report_to_json, save_report

__all__ = [
    "FORMAT",
    "VERSION",
    "DesignFileError",
    "FileWriteError",
    "atomic_write_bytes",
    "atomic_write_text",
    "design_from_data",
    "design_from_text",
    "design_to_text",
    "load_design",
    "report_to_dict",
    "report_to_json",
    "save_design",
    "save_report",
]
