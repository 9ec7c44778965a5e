"""Tables read a column at a time build the same design as record by record, and refuse the same."""

import json
import re
from pathlib import Path

import pytest
from file_tables import as_records, as_rows, rows_path

import designer.io.design_records as records
from designer.io import design_bulk, design_to_text, load_design
from designer.io.design_bulk import bulk_devices, bulk_groups, bulk_links
from designer.io.design_file import design_from_text
from designer.io.design_tables import read_table
from designer.model import DesignError

SAMPLE_FOLDER = Path(__file__).resolve().parents[2] / "sample_designs"


@pytest.mark.parametrize("name", ["superpod-h100-4su.json", "tpu-torus-4x4x8.json", "gb200-nvl72.json"])
def test_whole_tables_build_what_records_build(name, monkeypatch):
    text = (SAMPLE_FOLDER / name).read_text()
    fast = design_from_text(text)
    monkeypatch.setattr(records, "bulk_groups", lambda *a: None)
    monkeypatch.setattr(records, "bulk_devices", lambda *a, **k: None)
    monkeypatch.setattr(records, "bulk_links", lambda *a, **k: None)
    slow = design_from_text(text)
    assert [(g.id, g.kind, g.name, g.parent, g.collapsed, g.properties) for g in fast.iter_groups()] == \
        [(g.id, g.kind, g.name, g.parent, g.collapsed, g.properties) for g in slow.iter_groups()]
    assert design_to_text(fast) == design_to_text(slow) == text
    # The ends' index the table path hands over finds each port's link as the one built link by link.
    for dev in slow.iter_devices():
        for port in dev.iter_ports():
            held = [d.link_at(dev.id, port.id) for d in (fast, slow)]
            assert [lk and lk.id for lk in held] == [held[1] and held[1].id] * 2


def test_a_regular_sample_takes_the_table_path():
    data = json.loads((SAMPLE_FOLDER / "superpod-h100-4su.json").read_text())
    design = load_design(SAMPLE_FOLDER / "superpod-h100-4su.json")
    templates = {dev.model: dev.ports for dev in design.iter_devices()}
    groups = {g.id: i for i, g in enumerate(design.iter_groups())}
    read = bulk_groups(read_table(data["groups"], "groups"), records._KNOWN["group"], records.MAX_TEXT)
    assert read is not None and read[1] == groups and [g.id for g in read[0]] == list(groups)
    devices = bulk_devices(read_table(data["devices"], "devices"), records._KNOWN["device"], templates, groups,
                           records.MAX_TEXT,
                           lambda raw, path: design.device("su4-ufm").ports)
    assert devices is not None and len(devices) == design.device_count()
    links = bulk_links(read_table(data["links"], "links"), records._KNOWN["link"], devices, records.MAX_TEXT)
    assert links is not None
    assert [lk.id for lk in links] == [lk.id for lk in design.iter_links()]
    assert design.link_at(links[7].b_device, links[7].b_port) is design.link(links[7].id)
    assert all(lk.id in {x.id for x in design.links_of(dev.id)} for lk in links[:50] for dev in
               (design.device(lk.a_device), design.device(lk.b_device)))


def test_link_ends_split_only_when_each_holds_one_colon_and_no_line_break():
    from designer.io.design_bulk import _ends

    assert _ends(["gpu1:p1", "sw\u00e9:p2", "x:"]) == (["gpu1", "sw\u00e9", "x"], ["p1", "p2", ""])
    assert _ends([]) == ([], [])
    # colons and line breaks that add up to one colon per text but are not one in each text
    for refs in (["a:b:c", "de"], ["ab", "c:d:e"], ["a:b\nc:d", "e:f", "g"], ["a\n:b", "c:d"],
                 ["a:b\n", "c:d"], ["a:b", "c:d", 7], ["\ud800:p1", "x"]):
        assert _ends(refs) is None, refs
    assert _ends(["\ud800:p1"]) == (["\ud800"], ["p1"])  # no such device: refused by the port check


@pytest.mark.parametrize(
    ("edit", "expect"),
    [
        (lambda d: d["devices"][3].update(kind=["gpu"]), "devices[3].kind: must be text"),
        (lambda d: d["devices"][3].update(group={"a": 1}), "devices[3].group: no group"),
        (lambda d: d["devices"][2].update(x="far"), "devices[2].x: must be a number"),
        (lambda d: d["devices"][2].update(y=-2e9), "devices[2].y: must be >= -1e+09"),
        (lambda d: d["links"][4].update(medium=["optical"]), "links[4].medium: must be text"),
        (lambda d: d["links"][4].update(length_m=True), "links[4].length_m: must be a number"),
        (lambda d: d["links"][5].update(a=d["links"][4]["a"]), "links[5].a: port"),
        (lambda d: d["links"][5].update(id=d["links"][4]["id"]), "links[5].id: link"),
        (lambda d: d["links"][5].update(id="bad id"), "invalid link id 'bad id'"),
        (lambda d: d["links"][6].update(b=d["links"][6]["a"].split(":")[0] + ":p999"), "has no port 'p999'"),
        (lambda d: d["links"][5].update(id="x\ny"), "links[5]: invalid link id 'x\\ny'"),
        (lambda d: d["devices"][3].update(id="x\ny"), "devices[3]: invalid device id 'x\\ny'"),
        (lambda d: d["links"][6].update(a=d["links"][6]["a"] + ":x"), "links[6].a: must look like 'device:port'"),
        (lambda d: d["links"][6].update(a=d["links"][6]["a"].replace(":", "\n:")), "links[6].a: no device"),
        (lambda d: d["links"][6].update(length_m=10**400), "links[6].length_m: must be at most 100000 m"),
        (lambda d: d["devices"][2]["properties"].update(su="1"), "devices[2].properties.su: must be a whole number"),
        (lambda d: d["groups"][2].update(kind=["rack"]), "groups[2].kind: must be text"),
        (lambda d: d["groups"][2].update(kind="cabinet"), "groups[2].kind: must be one of"),
        (lambda d: d["groups"][2].update(name=5), "groups[2].name: must be text"),
        (lambda d: d["groups"][2].update(id=d["groups"][1]["id"]), "groups[2].id: group 'su1-rack1' is already"),
        (lambda d: d["groups"][2].update(id="bad id"), "groups[2]: invalid group id 'bad id'"),
        (lambda d: d["groups"][2].update(parent=7), "groups[2].parent: must be a group id or null"),
        (lambda d: d["groups"][2].update(parent="nowhere"), "groups[2].parent: no group 'nowhere'"),
        (lambda d: d["groups"][2].update(collapsed="yes"), "groups[2].collapsed: must be true or false"),
        (lambda d: d["groups"][2].update(properties=[1]), "groups[2].properties: must be an object"),
    ],
)
@pytest.mark.parametrize("form", ["records", "rows"])
def test_a_table_with_one_bad_record_is_refused_naming_it(edit, expect, form):
    data = as_records(json.loads((SAMPLE_FOLDER / "superpod-h100-1su.json").read_text()))
    edit(data)
    if form == "rows":
        as_rows(data)
        expect = rows_path(expect)
    with pytest.raises(DesignError, match=re.escape(expect)):
        design_from_text(json.dumps(data))


@pytest.mark.parametrize(("edit", "expect"), [
    (lambda d: d["groups"][2].update(kind=None), "groups[2]: missing 'kind'"),  # a row's null is no value
    (lambda d: d["groups"][2].update(collapsed=None), "groups[2].collapsed: must be true or false"),
    (lambda d: d["groups"][2].update(colour="red"), "groups[2]: unknown field 'colour'"),  # rows: in the fields
])
def test_a_group_record_with_a_null_or_an_unknown_field_is_refused_naming_it(edit, expect):
    data = as_records(json.loads((SAMPLE_FOLDER / "superpod-h100-1su.json").read_text()))
    edit(data)
    with pytest.raises(DesignError, match=re.escape(expect)):
        design_from_text(json.dumps(data))


@pytest.mark.parametrize("form", ["records", "rows"])
def test_a_whole_number_written_as_a_float_is_stored_as_one_in_every_record(form):
    data = as_records(json.loads((SAMPLE_FOLDER / "superpod-h100-1su.json").read_text()))
    for d in data["devices"][:5]:
        d.setdefault("properties", {})["su"] = 1.0
    design = design_from_text(json.dumps(as_rows(data) if form == "rows" else data))
    sus = [dev.properties["su"] for dev in list(design.iter_devices())[:5]]
    assert sus == [1] * 5 and all(type(s) is int for s in sus)


def test_link_ends_are_told_apart_by_their_hashes_and_by_their_texts_when_two_hashes_meet(monkeypatch):
    a, b = ["s1:p1", "s1:p2", "s2:p1"], ["s3:p1", "s3:p2", "s4:p9"]
    assert design_bulk._distinct(a, b) and design_bulk._distinct([], [])
    assert not design_bulk._distinct(a, ["s3:p1", "s1:p2", "s4:p9"])  # a port at both ends of two links
    assert not design_bulk._distinct(["s1:p1", "s1:p1"], [])
    monkeypatch.setattr(design_bulk, "hash", lambda text: 7, raising=False)  # every hash collides
    assert design_bulk._distinct(a, b)
    assert not design_bulk._distinct(a, ["s1:p1"] + b[1:])
