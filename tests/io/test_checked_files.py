"""A large file whose exact bytes passed every check before is read again without the checks, and
builds the same designs; anything else (another byte, other code, a refusal, a table read record by
record, no record at all) is read with every check, as always."""

import json
from pathlib import Path

import pytest

import designer.io.design_records as records
from designer.io import checked_files, design_file, design_to_text, load_design, load_designs, save_design
from designer.io.design_file import DesignFileError

SAMPLES = Path(__file__).resolve().parents[2] / "sample_designs"
SMALL = SAMPLES / "superpod-h100-1su.json"


def _copy(tmp_path):
    path = tmp_path / "d.json"
    path.write_bytes(SMALL.read_bytes())
    return path


@pytest.fixture
def checks(monkeypatch, tmp_path):
    """Every file counts as large; the list records, per device and link table read, whether its
    checks ran ("checked") or were skipped ("skipped")."""
    monkeypatch.setattr(design_file, "SHAPE_CHECK_BYTES", 0)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    seen = []
    real_devices, real_links = records.bulk_devices, records.bulk_links

    def devices(*args, check=True):
        seen.append("checked" if check else "skipped")
        return real_devices(*args, check=check)

    def links(*args, check=True):
        seen.append("checked" if check else "skipped")
        return real_links(*args, check=check)

    monkeypatch.setattr(records, "bulk_devices", devices)
    monkeypatch.setattr(records, "bulk_links", links)
    return seen


def test_a_file_read_before_skips_the_checks_and_builds_the_same_design(checks, tmp_path):
    path = _copy(tmp_path)
    first = load_design(path)
    assert checks == ["checked", "checked"] and checked_files.record_path().is_file()
    checks.clear()
    again = load_design(path)
    assert checks == ["skipped", "skipped"]
    assert design_to_text(again) == design_to_text(first) == SMALL.read_text()
    assert [(g.id, g.parent, g.collapsed) for g in again.iter_groups()] == \
        [(g.id, g.parent, g.collapsed) for g in first.iter_groups()]
    link = next(iter(first.iter_links()))
    assert again.link_at(link.a_device, link.a_port).id == link.id


def test_every_variant_is_read_again_without_its_checks(checks, tmp_path):
    main, other = load_design(SMALL), load_design(SMALL)
    other.set_design_field("name", "the other")
    path = tmp_path / "variants.json"
    save_design(main, path, [other])
    first = load_designs(path)
    checks.clear()
    again = load_designs(path)
    assert checks == ["skipped"] * 4
    assert [design_to_text(d) for d in again] == [design_to_text(d) for d in first]
    assert again[1].name == "the other"


def test_a_design_without_links_is_read_again_without_its_checks(checks, tmp_path):
    data = json.loads(SMALL.read_text())
    data["links"]["rows"] = []
    path = tmp_path / "no-links.json"
    path.write_text(json.dumps(data))
    first = load_design(path)
    checks.clear()
    again = load_design(path)
    assert checks == ["skipped", "skipped"] and again.link_count() == 0
    assert design_to_text(again) == design_to_text(first)


def test_one_byte_more_is_a_file_never_read(checks, tmp_path):
    path = _copy(tmp_path)
    load_design(path)
    path.write_bytes(SMALL.read_bytes() + b"\n")
    checks.clear()
    load_design(path)
    assert checks == ["checked", "checked"]


def test_other_reading_code_checks_every_file_again(checks, tmp_path, monkeypatch):
    path = _copy(tmp_path)
    load_design(path)
    monkeypatch.setattr(checked_files, "_fingerprint", lambda: b"another version of the reading code")
    checks.clear()
    load_design(path)
    assert checks == ["checked", "checked"]


def test_a_refused_file_is_refused_again_with_the_same_words(checks, tmp_path):
    data = json.loads(SMALL.read_text())
    data["links"]["rows"][5][2] = data["links"]["rows"][4][2]  # one port, two links
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(DesignFileError) as first:
        load_design(path)
    checks.clear()
    with pytest.raises(DesignFileError) as again:
        load_design(path)
    assert str(again.value) == str(first.value) and "links.rows[5].b: port" in str(first.value)
    assert "skipped" not in checks and not checked_files.record_path().exists()


def test_a_file_with_a_table_read_record_by_record_is_not_kept(checks, tmp_path, monkeypatch):
    path = _copy(tmp_path)
    spy = records.bulk_links
    monkeypatch.setattr(records, "bulk_links", lambda *args, check=True: None)  # the careful path reads it
    load_design(path)
    monkeypatch.setattr(records, "bulk_links", spy)
    assert not checked_files.record_path().exists()
    checks.clear()
    load_design(path)
    assert checks == ["checked", "checked"]


def test_a_record_that_cannot_be_written_or_read_is_no_error(checks, tmp_path, monkeypatch):
    path = _copy(tmp_path)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    for _ in range(2):
        assert load_design(path).link_count() > 0
    assert checks == ["checked"] * 4


@pytest.mark.parametrize("junk", [b"\x00\xff" * 50, b"zz\n" * 10, b"a" * 64 + b"\n" * 70_000])
def test_a_damaged_record_is_ignored_and_written_again_clean(checks, tmp_path, junk):
    path = _copy(tmp_path)
    record = checked_files.record_path()
    record.parent.mkdir(parents=True)
    record.write_bytes(junk)
    load_design(path)
    load_design(path)
    assert checks == ["checked", "checked", "skipped", "skipped"]
    assert record.read_text() == checked_files.key_of(path.read_bytes()) + "\n"


def test_a_false_match_on_an_irregular_table_falls_back_to_the_checks(checks, tmp_path, monkeypatch):
    """Only text that passed every check is ever recorded; were another text matched, a table the
    whole-table path cannot build still goes to the checked reading, which names its problem."""
    data = json.loads(SMALL.read_text())
    data["links"]["rows"][3].append("one value too many")
    path = tmp_path / "irregular.json"
    path.write_text(json.dumps(data))
    with pytest.raises(DesignFileError) as plain:
        load_design(path)
    monkeypatch.setattr(checked_files, "checked_before", lambda key: True)
    checks.clear()
    with pytest.raises(DesignFileError) as matched:
        load_design(path)
    assert str(matched.value) == str(plain.value) and "links.rows[3]" in str(plain.value)
    assert checks[:2] == ["skipped", "skipped"] and checks[2:] == ["checked", "checked"]


def test_the_record_keeps_the_newest_files(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(checked_files, "MAX_ENTRIES", 3)
    keys = [checked_files.key_of(bytes([i])) for i in range(5)]
    for key in keys:
        checked_files.remember(key)
    checked_files.remember(keys[2])  # read again: the newest
    assert checked_files.record_path().read_text().split() == [keys[3], keys[4], keys[2]]
    assert not checked_files.checked_before(keys[1]) and checked_files.checked_before(keys[3])


def test_small_files_are_not_recorded(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    load_design(SMALL)  # 176 kB: under the size from which files are measured, and recorded
    assert not checked_files.record_path().exists()
