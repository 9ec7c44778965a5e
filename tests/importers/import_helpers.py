"""Shared by the importer tests: the real files in tests/data/importers and small builders."""

from __future__ import annotations

from pathlib import Path

from designer.io.importers import ImportOptions, import_bytes, read_name_map

DATA = Path(__file__).resolve().parents[1] / "data" / "importers"
X5_DUMP = DATA / "psmn-X5.ibnetdiscover.topofile"
X5_MAP = DATA / "psmn-X5.guid-hostname.map"
X5_SPINE = DATA / "psmn-X5.spine"
X5_SLURM = DATA / "psmn-X5.topology.conf"


def x5_options(**kw) -> ImportOptions:
    return ImportOptions(name_map=read_name_map(X5_MAP), **kw)


def imp(text: str | bytes, name: str = "t.txt", **kw):
    raw = text.encode() if isinstance(text, str) else text
    return import_bytes(raw, name, ImportOptions(**kw))


def switch_pairs(design) -> set[frozenset]:
    """Switch-to-switch adjacency by switch id (parallel cables counted once)."""
    kinds = {d.id: d.kind for d in design.iter_devices()}
    return {frozenset((lk.a_device, lk.b_device)) for lk in design.iter_links()
            if kinds[lk.a_device] == kinds[lk.b_device] == "switch"}


def tiers(design) -> dict[str, str]:
    return {d.id: d.tier for d in design.iter_devices() if d.kind == "switch"}
