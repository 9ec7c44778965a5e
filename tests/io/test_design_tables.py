"""Tables written as rows under one list of fields (version 3) read as their records did, and a
table of either form that breaks the format is refused naming the exact entry."""

import json
from pathlib import Path

import pytest
from file_tables import as_records

import designer.io.design_records as records
from designer.io import VERSION, DesignFileError, design_from_text, design_to_text
from designer.model import Design, Device, Group, Link, PortGroup

SAMPLES = Path(__file__).resolve().parents[2] / "sample_designs"
SWITCH = (PortGroup("p", 8, 400.0),)


def small() -> Design:
    d = Design("tables")
    d.add_group(Group("r1", "rack", "Rack 1"))
    d.add_group(Group("n1", "server", parent="r1", collapsed=True))
    d.add_device(Device("leaf1", "switch", SWITCH, model="sw", tier="leaf", x=10.0))
    d.add_device(Device("leaf2", "switch", (PortGroup("p", 4, 800.0),), model="sw", group="n1", name="odd one"))
    d.add_device(Device("leaf3", "switch", SWITCH, properties={"rail": 2}))
    d.add_link(Link("l1", "leaf1", "p1", "leaf2", "p1", medium="optical", length_m=30.0, cable="sr4"))
    d.add_link(Link("l2", "leaf1", "p2", "leaf3", "p2", medium="aoc", length_m=3.0, failed=True,
                    properties={"note": "spare"}))
    return d


def test_a_saved_table_is_its_fields_once_then_a_row_per_line_with_null_for_a_default():
    text = design_to_text(small())
    assert f'"version": {VERSION},' in text
    assert '  "devices": {"fields": ["id", "kind", "model", "name", "tier", "x", "y", "group", "ports", ' \
           '"properties"], "rows": [\n' in text
    # leaf1 keeps its model's ports (null), has no name and no group; leaf2 has ports of its own
    assert '\n    ["leaf1", "switch", "sw", null, "leaf", 10.0, 0.0, null, null, null],\n' in text
    assert '["leaf2", "switch", "sw", "odd one", null, 0.0, 0.0, "n1", [{"prefix": "p", "count": 4' in text
    assert '\n    ["l2", "leaf1:p2", "leaf3:p2", "aoc", 3.0, null, true, {"note": "spare"}]\n  ]}\n' in text
    assert design_to_text(Design("empty")).count('{"fields": [], "rows": []}') == 3


@pytest.mark.parametrize("name", ["superpod-h100-1su.json", "gb200-nvl72.json", "dragonfly-p4-a8-h4.json"])
def test_rows_and_records_read_as_the_same_design_either_way(name, monkeypatch):
    """A sample's rows, its records (a version 2 file), and each read record by record: one design."""
    rows = (SAMPLES / name).read_text()
    old = json.loads(rows)
    old["version"] = 2
    texts = [rows, json.dumps(as_records(old))]
    fast = [design_to_text(design_from_text(t)) for t in texts]
    monkeypatch.setattr(records, "bulk_devices", lambda *a, **k: None)
    monkeypatch.setattr(records, "bulk_links", lambda *a, **k: None)
    slow = [design_to_text(design_from_text(t)) for t in texts]
    assert fast == slow == [rows, rows]


def test_fields_in_any_order_and_null_cells_read_as_records_leaving_them_out():
    data = json.loads(design_to_text(small()))
    table = data["devices"]
    order = list(reversed(table["fields"]))
    table["rows"] = [[row[table["fields"].index(f)] for f in order] for row in table["rows"]]
    table["fields"] = order
    text = json.dumps(data)
    assert design_to_text(design_from_text(text)) == design_to_text(small())


def test_a_table_may_leave_out_a_field_every_record_leaves_out():
    data = json.loads(design_to_text(small()))
    data["links"] = {"fields": ["a", "b", "id", "length_m", "medium"],
                     "rows": [["leaf1:p1", "leaf2:p1", "l1", 30.0, "optical"]]}
    design = design_from_text(json.dumps(data))
    assert [(lk.id, lk.cable, lk.failed, lk.properties) for lk in design.iter_links()] == [("l1", "", False, {})]


def _with(edit) -> str:
    data = json.loads(design_to_text(small()))
    edit(data)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(links="l1"), "links: must be a list of records or an object of 'fields' and 'rows', "
                                         "not str"),
        (lambda d: d["links"].update(colour=1), "links: unknown field 'colour'"),
        (lambda d: d["links"].pop("rows"), "links: missing 'rows'"),
        (lambda d: d["groups"].pop("fields"), "groups: missing 'fields'"),
        (lambda d: d["links"].update(fields="id"), "links.fields: must be a list, not str"),
        (lambda d: d["links"]["fields"].__setitem__(2, 7), "links.fields[2]: must be text, not 7"),
        (lambda d: d["devices"]["fields"].__setitem__(3, "colour"), "devices.fields[3]: unknown field 'colour'"),
        (lambda d: d["devices"]["fields"].__setitem__(3, "id"), "devices.fields[3]: 'id' is listed twice"),
        (lambda d: d["links"]["fields"].__setitem__(0, "a"), "links.fields[1]: 'a' is listed twice"),
        (lambda d: d["links"].update(rows={}), "links.rows: must be a list, not dict"),
        (lambda d: d["devices"]["rows"].__setitem__(1, {"id": "x"}),
         "devices.rows[1]: must be a list of 10 values, one per field, not dict"),
        (lambda d: d["links"]["rows"][1].append(None), "links.rows[1]: must be a list of 8 values, one per field, "
                                                       "not 9 values"),
        (lambda d: d["groups"]["rows"][0].pop(), "groups.rows[0]: must be a list of 5 values, one per field, "
                                                 "not 4 values"),
        # a cell is checked as the field its column names
        (lambda d: d["devices"]["rows"][2].__setitem__(5, "far"), "devices.rows[2].x: must be a number"),
        (lambda d: d["devices"]["rows"][0].__setitem__(0, None), "devices.rows[0]: missing 'id'"),
        (lambda d: d["links"]["rows"][1].__setitem__(2, "leaf2:p1"),
         "links.rows[1].b: port leaf2:p1 already holds links.rows[0]"),
        (lambda d: d["groups"]["rows"][0].__setitem__(3, "n1"), "groups.rows[0].parent: groups nest in a cycle"),
        (lambda d: d["devices"]["rows"][0].__setitem__(8, {"prefix": "p"}), "devices.rows[0].ports: must be a list"),
    ],
)
def test_a_broken_table_is_refused_naming_the_exact_entry(edit, message):
    with pytest.raises(DesignFileError) as err:
        design_from_text(_with(edit))
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_a_version_2_file_of_records_is_written_back_as_rows():
    old = as_records(json.loads(design_to_text(small())))
    old["version"] = 2
    assert isinstance(old["devices"], list)
    assert design_to_text(design_from_text(json.dumps(old))) == design_to_text(small())
