"""Slurm topology.conf: hostlists, default rates, self-contradicting configurations."""

from __future__ import annotations

import pytest
from import_helpers import imp

from designer.io.importers import ImportFileError
from designer.io.importers.slurm import expand_hostlist


def test_hostlists_expand_like_slurm():
    assert expand_hostlist("node[1-5,7]") == ["node1", "node2", "node3", "node4", "node5", "node7"]
    assert expand_hostlist("tux[008-010],login") == ["tux008", "tux009", "tux010", "login"]
    assert expand_hostlist("r[1-2]n[1-2]") == ["r1n1", "r1n2", "r2n1", "r2n2"]
    for bad in ("node[3-1]", "node[1-x]", "node[1-2", "n[1-99999999]"):
        with pytest.raises(ValueError):
            expand_hostlist(bad)


CONF = """\
# a small tree
SwitchName=leaf1 Nodes=node[1-4]
SwitchName=leaf2 Nodes=node[5-8],node4 LinkSpeed=100
SwitchName=spine Switches=leaf[1-2]
SwitchName=leaf1 Switches=spine
"""


def test_tree_with_default_rate_and_contradictions():
    design, report = imp(CONF, "topology.conf", default_rate_gbps=200.0)
    assert report.format == "slurm"
    assert {d.id: d.tier for d in design.iter_devices() if d.kind == "switch"} == \
        {"leaf1": "leaf", "leaf2": "leaf", "spine": "spine"}
    assert {p.speed_gbps for p in design.device("spine").ports} == {200.0}
    reasons = [(e.line, e.reason) for e in report.skipped]
    assert any(n == 3 and "already under leaf1 (line 2)" in r for n, r in reasons)
    assert any(n == 3 and "Slurm's own units" in r for n, r in reasons)
    assert any(n == 5 and "defined again" in r for n, r in reasons)
    assert any(n == 5 and "already listed on line 4" in r for n, r in reasons)
    assert design.device_count() == 3 + 8 * 2


def test_no_default_rate_is_a_stated_guess():
    _, report = imp(CONF, "topology.conf")
    assert any("100 Gb/s" in e.reason and "--default-rate" in e.reason for e in report.guessed)


@pytest.mark.parametrize(("text", "words"), [
    ("BlockName=b[1-2] Nodes=n[1-4]\n", "line 1: BlockName names 2 blocks"),
    ("SwitchName=s[1-2] Nodes=n1\n", "line 1: SwitchName names 2 switches"),
    ("SwitchName=s1 Nodes=n[1-\n", "line 1:"),
])
def test_broken_configurations_are_refused(text, words):
    with pytest.raises(ImportFileError) as err:
        imp(text, "topology.conf", format="slurm")
    assert words in str(err.value)
