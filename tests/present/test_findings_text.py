"""The lines validate prints: one per finding, a tally with proper plurals, or clean."""

from __future__ import annotations

from designer.analysis.common.findings import Finding
from designer.generators import build_server
from designer.present.findings_text import findings_lines


def test_clean_design_says_its_size():
    d = build_server()
    assert findings_lines(d, [], "f.json") == [
        f"f.json: clean ({d.device_count():,} devices, {d.link_count():,} links)"]


def test_findings_then_a_tally_in_the_singular_and_plural():
    d = build_server()
    found = [Finding("error", "duplicate-link", "two links join a and b", ()),
             Finding("warning", "no-gpu", "nic1 has no GPU", ()),
             Finding("warning", "no-gpu", "nic2 has no GPU", ())]
    lines = findings_lines(d, found, "<stdin>")
    assert lines[0] == "<stdin>: error: [duplicate-link] two links join a and b"
    assert lines[-1] == "<stdin>: 1 error, 2 warnings"
    assert findings_lines(d, found[1:2], "x")[-1] == "x: 0 errors, 1 warning"
