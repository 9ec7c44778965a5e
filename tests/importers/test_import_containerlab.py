"""containerlab topologies: a real 5-stage Clos lab, and broken variants."""

from __future__ import annotations

import pytest
from import_helpers import DATA, imp

from designer.io.importers import ImportFileError, detect_format, import_file

CLOS = DATA / "clos02.clab.yml"


def test_five_stage_clos_lab():
    assert detect_format(CLOS.read_text()) == "containerlab"
    design, report = import_file(CLOS)
    tiers = {d.id: d.tier for d in design.iter_devices() if d.kind == "switch"}
    assert sorted(tiers.values()) == ["core"] * 2 + ["leaf"] * 4 + ["spine"] * 4
    assert tiers["superspine1"] == "core" and tiers["leaf3"] == "leaf"
    assert {g.id for g in design.iter_groups() if g.kind == "server"} == {"client1", "client2", "client3", "client4"}
    link = next(lk for lk in design.iter_links() if lk.medium != "pcie")
    assert {"a_interface", "b_interface"} <= set(link.properties)
    assert any("no speed given" in e.reason for e in report.guessed)
    assert design.device("leaf1").properties["clab_kind"] == "nokia_srlinux"


def test_new_style_endpoints_special_ends_and_contradictions():
    text = """name: lab
topology:
  defaults:
    kind: ceos
  nodes:
    sw1: {}
    sw2: {}
    h1: {kind: linux}
  links:
    - endpoints: [{node: sw1, interface: et1}, {node: sw2, interface: et1}]
    - endpoints: ["h1:eth1", "sw1:et2"]
    - endpoints: ["sw1:et2", "sw2:et2"]
    - endpoints: ["sw2:et9", "ghost:e1"]
    - endpoints: ["host:veth0", "sw2:et3"]
    - endpoints: ["only-one:e1"]
"""
    design, report = imp(text, "lab.clab.yml", default_rate_gbps=25.0)
    assert design.device("sw1").properties["clab_kind"] == "ceos"
    assert {p.speed_gbps for p in design.device("sw2").ports} == {25.0}
    reasons = {e.line: e.reason for e in report.skipped}
    assert "already cabled (line 11)" in reasons[12]
    assert "not in the topology's nodes" in reasons[13]
    assert "special end" in reasons[14]
    assert "not two" in reasons[15]


def test_broken_yaml_is_refused_with_its_line():
    with pytest.raises(ImportFileError, match=r"line 5: not readable YAML"):
        imp("name: x\ntopology:\n  nodes:\n    a: [unclosed\n  links: []\n", "x.clab.yml", format="containerlab")
    with pytest.raises(ImportFileError, match="no nodes"):
        imp("name: x\ntopology:\n  nodes: {}\n", "x.clab.yml", format="containerlab")
    bomb = "a: &a [x]\n" + "".join(f"b{i}: &b{i} [*{'a' if i == 0 else f'b{i - 1}'}]\n" for i in range(1200))
    with pytest.raises(ImportFileError, match="aliases"):
        imp("topology:\n  nodes:\n" + bomb, "bomb.yml", format="containerlab")
