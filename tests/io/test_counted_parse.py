"""A measured design file is parsed without the per-object duplicate-key check, and its members are
counted instead: every file is read as before, and refused with the same message as before."""

import json
from pathlib import Path

import pytest
from file_tables import as_records

from designer.io import VERSION, design_file, load_design, load_designs, save_design
from designer.io.design_bulk import counted_members
from designer.io.design_file import DesignFileError
from designer.io.json_shape import measure
from designer.model import Group

SAMPLES = Path(__file__).resolve().parents[2] / "sample_designs"
SMALL = SAMPLES / "superpod-h100-1su.json"


@pytest.fixture
def parses(monkeypatch):
    """Every file measured first; the list records each parse: "bytes" (msgspec, no check of each
    object), "checked" (json.loads with the check of each object)."""
    monkeypatch.setattr(design_file, "SHAPE_CHECK_BYTES", 0)
    seen = []
    real, real_bytes = design_file.parse_json, design_file._decode_bytes

    def spy(text, source):
        seen.append("checked")
        return real(text, source)

    def spy_bytes(raw):
        seen.append("bytes")
        return real_bytes(raw)

    monkeypatch.setattr(design_file, "parse_json", spy)
    monkeypatch.setattr(design_file, "_decode_bytes", spy_bytes)
    return seen


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.json")), ids=lambda p: p.stem)
def test_every_sample_has_all_its_members_counted(path):
    raw = path.read_bytes()
    assert counted_members(json.loads(raw)) == measure(raw).members


def test_a_regular_file_with_variants_is_parsed_once_without_the_check(tmp_path, parses):
    design = load_design(SMALL)
    variant = design.copy()
    variant.add_group(Group("extra", "custom", properties={"tags": ["a", {"b": [1, 2]}]}))
    variant.set_device_property(variant.devices[0].id, "notes", {"owner": {"team": "net"}, "list": [{"x": 1}]})
    path = tmp_path / "variants.json"
    save_design(design, path, [variant])
    raw = path.read_bytes()
    assert counted_members(json.loads(raw)) == measure(raw).members
    parses.clear()
    main, again = load_designs(path)
    assert parses == ["bytes"]
    assert again.device(variant.devices[0].id).properties["notes"]["owner"] == {"team": "net"}


def _edit(text: str, old: str, new: str) -> str:
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


def _text(form: str) -> str:
    """The small sample's file with its tables as rows (as written) or as records (versions 1 and 2)."""
    text = SMALL.read_text()
    return text if form == "rows" else json.dumps(as_records(json.loads(text)))


@pytest.mark.parametrize(
    ("form", "old", "new", "key"),
    [
        # a repeated field of a link record, of a device's properties, of the top level
        ("records", '"medium": "nvlink"', '"medium": "nvlink", "medium": "nvlink"', "medium"),
        ("records", '"properties": {"su": 1', '"properties": {"su": 1, "su": 1', "su"),
        ("records", f'"version": {VERSION}', f'"version": {VERSION}, "version": {VERSION}', "version"),
        # in an object where the format puts none: the count misses that object, and the careful
        # parse finds the key before any record is read
        ("records", '"tier": "leaf"', '"tier": {"a": 1, "a": 2}', "a"),
        # a table's own member, a device's properties, an object in a cell where the format puts none
        ("rows", '"fields": [', '"fields": [], "fields": [', "fields"),
        ("rows", '{"su": 1, "rail": 1}', '{"su": 1, "su": 1, "rail": 1}', "su"),
        ("rows", '"qm9700", null, "leaf"', '"qm9700", null, {"a": 1, "a": 2}', "a"),
        # a row that is an object, in a table with no field that holds objects
        ("rows", '"length_m", "cable"], "rows": [\n', '"length_m", "cable"], "rows": [\n{"b": 1, "b": 2},\n', "b"),
    ],
)
def test_a_repeated_key_is_refused_as_before(tmp_path, parses, form, old, new, key):
    path = tmp_path / "twice.json"
    path.write_text(_edit(_text(form), old, new))
    with pytest.raises(DesignFileError, match=f"not valid JSON: duplicate key '{key}'$"):
        load_design(path)
    assert parses == ["bytes", "checked"]


@pytest.mark.parametrize(("form", "old", "new", "key"), [
    ("records", '"medium": "nvlink"', '"medium": "nvlink", "medium": "pcie"', "medium"),
    ("rows", '{"su": 1, "rail": 1}', '{"su": 1, "su": 2, "rail": 1}', "su"),
])
def test_the_first_problem_is_named_as_before_when_a_repeated_key_comes_before_broken_json(tmp_path, parses, form,
                                                                                           old, new, key):
    text = _edit(_text(form), old, new)
    path = tmp_path / "both.json"
    path.write_text(text[:-20])
    with pytest.raises(DesignFileError, match=f"duplicate key '{key}'"):
        load_design(path)
    assert parses == ["bytes", "checked"]  # the text read twice, not three times


@pytest.mark.parametrize(("form", "old", "new", "where"), [
    ("records", '"medium": "nvlink"', '"medium": "carrier-pigeon"', r"links\[\d+\]"),
    ("rows", '"nvlink", 0.5', '"carrier-pigeon", 0.5', r"links\.rows\[\d+\]"),
])
def test_a_record_error_of_a_measured_file_reads_as_before(tmp_path, parses, form, old, new, where):
    path = tmp_path / "bad.json"
    path.write_text(_edit(_text(form), old, new))
    with pytest.raises(DesignFileError, match=where + r"\.medium: must be one of"):
        load_design(path)
    assert parses == ["bytes"]
