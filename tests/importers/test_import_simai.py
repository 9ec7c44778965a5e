"""SimAI topology files: a real 128-GPU Spectrum-X fabric, and broken variants."""

from __future__ import annotations

import pytest
from import_helpers import DATA, imp

from designer.io.importers import ImportFileError, detect_format, import_file

SIMAI = DATA / "Spectrum-X_128g_8gps_100Gbps_A100"


def test_spectrum_x_128_gpus():
    assert detect_format(SIMAI.read_text()) == "simai"
    design, report = import_file(SIMAI)
    kinds: dict[str, int] = {}
    for d in design.iter_devices():
        kinds[d.kind] = kinds.get(d.kind, 0) + 1
    assert kinds == {"gpu": 128, "nvswitch": 16, "switch": 72}
    assert design.link_count() == 768
    servers = [g for g in design.iter_groups() if g.kind == "server"]
    assert len(servers) == 16
    tiers = [d.tier for d in design.iter_devices() if d.kind == "switch"]
    assert tiers.count("leaf") == 8 and tiers.count("spine") == 64
    nv = [lk for lk in design.iter_links() if lk.medium == "nvlink"]
    assert len(nv) == 128 and {lk.cable for lk in nv} == {"nvlink-board"}
    # The file sets NVLink to 100 Gb/s: read as given, and said.
    assert any("slower than any real NVLink" in n for n in report.notes)
    assert report.read["gpus"] == 128 and "gpus stamped behind adapters" not in report.read


def test_messy_and_broken_simai():
    text = SIMAI.read_text().replace("\n", "\r\n")
    lines = text.split("\r\n")
    lines.insert(5, "this is not a link")
    lines[6] = "0 999 100Gbps 0.0005ms 0"
    design, report = imp("\r\n".join(lines), "simai.txt", format="simai")
    reasons = {e.line: e.reason for e in report.skipped}
    assert "not 'src dst" in reasons[6] and "beyond the 216 nodes" in reasons[7]
    with pytest.raises(ImportFileError, match="line 1: not 'nodes gpus_per_server"):
        imp("216 8 x 72 768\n1 2 3\n", "s.txt", format="simai")
    with pytest.raises(ImportFileError, match="cannot hold"):
        imp("10 8 16 72 768 A100\n1 2 3\n0 1 100Gbps 0.1ms 0\n", "s.txt", format="simai")
