"""GML and GraphML: the Topology Zoo's real graphs, speed labels, our own GraphML read back exactly."""

from __future__ import annotations

import networkx as nx
import pytest
from import_helpers import DATA, imp

from designer.generators import GENERATORS
from designer.interop import graphml_bytes
from designer.io import design_to_text
from designer.io.importers import ImportFileError, ImportOptions, import_bytes, import_file, parse_rate_gbps


@pytest.mark.parametrize(("text", "gbps"), [
    ("400G", 400.0), ("100 Mb/s", 0.1), ("2.5 Gbit/s", 2.5), ("10 Gbps", 10.0), ("10GE", 10.0), ("40GbE", 40.0),
    ("OC-192c", 9.95328), ("OC-48", 2.48832), ("STM-64", 9.95328), ("155 Mbit/s", 0.155), ("1T", 1000.0),
    ("1-2.5 Gb/s", None), ("< 100 Mb/s", None), ("DWDM", None), ("", None), ("fast", None), ("0G", None),
])
def test_speed_labels_parse_only_when_they_name_one_rate(text, gbps):
    got = parse_rate_gbps(text)
    assert got == pytest.approx(gbps) if gbps is not None else got is None


def test_units_of_bare_numbers():
    assert parse_rate_gbps(155, default_unit="M") == pytest.approx(0.155)
    assert parse_rate_gbps(64, default_unit="K") == pytest.approx(64e-6)
    assert parse_rate_gbps(1e10, default_unit="bps") == pytest.approx(10.0)


def test_topology_zoo_abilene_on_a_map():
    design, report = import_file(DATA / "Abilene.gml")
    assert report.format == "gml"
    assert design.device_count() == 11 and design.link_count() == 14
    ny, chicago = design.device("New-York"), design.device("Chicago")
    assert ny.name == "New York" and ny.x > chicago.x  # east is right
    # Abilene gives its links only as "OC-192c": SONET's 9.95 Gb/s.
    assert [round(s, 5) for s in {p.speed_gbps for d in design.iter_devices() for p in d.ports}] == [9.95328]
    assert any("no kind attribute" in e.reason for e in report.guessed)
    assert any("Longitude" in n for n in report.notes)


def test_topology_zoo_renam_labels_ranges_and_a_link_too_slow_to_hold():
    design, report = import_file(DATA / "Renam.gml")
    skipped = [e for e in report.skipped if e.kind == "rate range"] if hasattr(report.skipped[0], "kind") else \
        [e for e in report.skipped if "outside" in e.reason]
    assert len(skipped) == 1 and "128 kb/s" in skipped[0].reason or "0.128 Mb/s" in skipped[0].reason
    reasons = " ".join(e.reason for e in report.guessed)
    assert "is not one rate" in reasons or "no speed attribute" in reasons


def test_disconnected_graph_is_read_and_said():
    design, report = import_file(DATA / "Padi.gml")
    assert design.device_count() == 15
    assert any("separate parts" in n for n in report.notes)


def test_gml_junk_before_graph_duplicate_edges_and_errors():
    gml = ('$ cat net.gml\r\ngraph [\r\n node [ id 0 label "a" ]\r\n node [ id 1 label "b" ]\r\n'
           ' edge [ source 0 target 1 LinkLabel "OC-192c" ]\r\n edge [ source 0 target 1 ]\r\n]\r\n\r\n')
    design, report = imp(b"\xef\xbb\xbf" + gml.encode(), "net.gml")
    assert design.link_count() == 1
    assert [e.line for e in report.skipped if "before 'graph ['" in e.reason] == [1]
    assert any("listed again" in e.reason for e in report.skipped)
    with pytest.raises(ImportFileError, match=r"line \d+"):
        imp('graph [\n node [ id 0 label "a" ]\n edge [ source 0 target ]\n]\n', "broken.gml")


def test_attribute_mapping_for_a_foreign_graphml():
    g = nx.Graph()
    g.add_node("s1", role="router")
    g.add_node("h1", role="host")
    g.add_node("h2", role="host")
    g.add_edge("s1", "h1", bw=25000)
    g.add_edge("s1", "h2", bw="25000")
    raw = "\n".join(nx.generate_graphml(g)).encode()
    opts = ImportOptions(attributes={"kind": "role", "rate": "bw", "rate_unit": "M"}, gpus_per_adapter=2)
    design, report = import_bytes(raw, "lab.graphml", opts)
    assert report.format == "graphml"
    assert design.device("s1").tier == "leaf"
    assert sorted(d.kind for d in design.iter_devices()) == ["gpu"] * 4 + ["nic"] * 2 + ["switch"]
    assert {p.speed_gbps for p in design.device("s1").ports} == {25.0}


def test_graphml_with_entities_is_refused():
    bomb = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">]>'
            '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph/></graphml>')
    with pytest.raises(ImportFileError, match="entities"):
        imp(bomb, "bomb.graphml")
    with pytest.raises(ImportFileError, match="not well-formed|not readable"):
        imp('<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph><node id="a">', "cut.graphml")


@pytest.mark.parametrize(("kind", "params"), [
    ("server", {}),
    ("leaf-spine", {}),
    ("rail-optimized", {}),
])
def test_our_graphml_round_trips_exactly(kind, params):
    design = GENERATORS[kind].build(**params)
    exported = graphml_bytes(design)
    first, report = import_bytes(exported, f"{kind}.graphml")
    assert report.format == "graphml (topo-designer export)"
    assert graphml_bytes(first) == exported
    second, _ = import_bytes(graphml_bytes(first), f"{kind}.graphml")
    assert design_to_text(second) == design_to_text(first)
    assert [d.id for d in first.iter_devices()] == [d.id for d in design.iter_devices()]
    # Links come back in the graph's order (by device), each as it was.
    assert sorted((lk.id, lk.a, lk.b, lk.cable, lk.medium, lk.length_m) for lk in first.iter_links()) == \
        sorted((lk.id, lk.a, lk.b, lk.cable, lk.medium, lk.length_m) for lk in design.iter_links())


@pytest.mark.parametrize("name", ["psmn-X5.ibnetdiscover.topofile", "Spectrum-X_128g_8gps_100Gbps_A100",
                                  "simccl-topo_8A100_4CX6.xml", "inputs-hgx_h100_32gpu.yml", "Abilene.gml"])
def test_an_import_exported_to_graphml_and_imported_again_is_the_same(name):
    first, _ = import_file(DATA / name)
    exported = graphml_bytes(first)
    second, _ = import_bytes(exported, "again.graphml")
    assert graphml_bytes(second) == exported
    third, _ = import_bytes(graphml_bytes(second), "again.graphml")
    assert design_to_text(third) == design_to_text(second)


def test_graphml_keeps_every_property_the_analysis_reads():
    from import_helpers import superpod_dump

    from designer.analysis.report import analyze

    text = superpod_dump(sus=1, hosts_per_su=2, spines=2)
    # A loopback cable on the first spine, and a degraded (4xEDR) switch-to-switch cable.
    text = text.replace('"MF0;leaf-su1-r1:MQM8700/U1" lid 5 4xHDR', '"MF0;leaf-su1-r1:MQM8700/U1" lid 5 4xEDR')
    first, _ = imp(text, "pod.topo")
    first.set_device_property("S-0c42a10300001008", "loopback_cables", [[30, 31]])
    assert any(d.properties.get("sharp") for d in first.iter_devices())
    assert any("negotiated_gbps" in lk.properties for lk in first.iter_links())
    exported = graphml_bytes(first)
    second, report = import_bytes(exported, "pod.graphml")
    assert "records" in " ".join(report.notes)
    assert design_to_text(second) == design_to_text(first)
    a, b = (analyze(d, sizes=[1 << 30]) for d in (first, second))
    assert [r.busbw_bytes_per_s for r in a.collectives] == [r.busbw_bytes_per_s for r in b.collectives]
    assert a.servers == b.servers == 2


def test_graphml_without_records_is_still_read_from_its_attributes():
    import re

    design = GENERATORS["leaf-spine"].build()
    text = graphml_bytes(design).decode()
    text = re.sub(r'<data key="[neg]_(record|design|groups)">[^<]*</data>', "", text)
    back, report = import_bytes(text.encode(), "old.graphml")
    assert report.format == "graphml (topo-designer export)"
    assert back.device_count() == design.device_count() and back.link_count() == design.link_count()
