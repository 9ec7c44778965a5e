"""Contracts of design files: round trip, exact errors, versions, hostile input, atomic saves."""

import json
import os

import pytest
from file_tables import as_records, as_rows, rows_path

from designer.io import VERSION, DesignFileError, FileWriteError, design_to_text, load_design, save_design
from designer.io import design_file as df
from designer.model import Design, Device, Group, Link, PortGroup

NET = (PortGroup("p", 64, 400.0, "network", "OSFP", per_cage=2),)
GPU = (PortGroup("nvl", 1, 3600.0, "nvlink", lanes=18), PortGroup("pcie", 1, 512.0, "pcie", lanes=16))


def sample() -> Design:
    d = Design("round trip", "a small fabric")
    d.properties = {"generator": {"kind": "test", "k": 4}}
    d.add_group(Group("su1", "su", "Scalable unit 1"))
    d.add_group(Group("n1", "server", parent="su1", collapsed=True))
    d.add_device(Device("leaf3", "switch", NET, model="qm9700", tier="leaf", x=1.5, y=-2.25))
    d.add_device(Device("spine1", "switch", NET, model="qm9700", tier="spine", properties={"note": "é ✓"}))
    d.add_device(Device("gpu1", "gpu", GPU, model="h100-sxm", group="n1", properties={"rail": 1}))
    d.add_link(Link("l1", "leaf3", "p64", "spine1", "p1", medium="optical", length_m=30.0, cable="sr4"))
    d.add_link(Link("l2", "leaf3", "p2", "spine1", "p2", medium="aoc", length_m=0.1 + 0.2, failed=True))
    return d


def test_load_save_load_save_is_byte_identical(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    save_design(sample(), a)
    save_design(load_design(a), b)
    assert a.read_bytes() == b.read_bytes()
    d = load_design(b)
    assert d.device("spine1").properties == {"note": "é ✓"}
    assert d.link("l2").failed and d.link("l2").length_m == 0.1 + 0.2
    assert d.group("n1").collapsed and d.group("n1").parent == "su1"
    assert d.device("leaf3").ports[0].per_cage == 2


def test_model_ports_are_written_once_and_overrides_are_kept(tmp_path):
    d = sample()
    d.add_device(Device("leaf4", "switch", (PortGroup("p", 32, 800.0),), model="qm9700", tier="leaf"))
    text = design_to_text(d)
    assert text.count('"prefix": "p", "count": 64') == 1
    path = tmp_path / "m.json"
    path.write_text(text)
    loaded = load_design(path)
    assert loaded.device("spine1").ports == NET
    assert loaded.device("leaf4").ports == (PortGroup("p", 32, 800.0),)
    assert design_to_text(loaded) == text


def test_the_shipped_schema_accepts_what_we_write_and_rejects_what_we_refuse(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    from designer.model.catalog import resources_dir

    schema = json.loads((resources_dir() / "schema" / "design.schema.json").read_text())
    data = json.loads(design_to_text(sample()))
    jsonschema.validate(data, schema)
    records = as_records(json.loads(design_to_text(sample())))
    jsonschema.validate(records, schema)  # versions 1 and 2 wrote records, which still read
    records["links"][0]["length_m"] = -1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(records, schema)
    data["links"]["fields"].append("colour")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema)


def _text_with(mutate, form: str = "records") -> str:
    """The sample's file with ``mutate`` applied to its records, its tables written in ``form``."""
    data = as_records(json.loads(design_to_text(sample())))
    mutate(data)
    return json.dumps(as_rows(data) if form == "rows" else data)


#: What the rows form says where it differs from the record form's message with its paths renamed.
_ROWS_SAYS = {"devices[0]: unknown field 'colour'": "devices.fields[8]: unknown field 'colour'"}


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["links"][1].update(b="spine1:p65"), "links[1].b: device 'spine1' has no port 'p65'"),
        (lambda d: d["links"][0].update(a="leaf9:p1"), "links[0].a: no device 'leaf9'"),
        (lambda d: d["links"][1].update(a="leaf3:p64"), "links[1].a: port leaf3:p64 already holds links[0]"),
        (lambda d: d["links"][0].update(b="leaf3:p5"), "links[0]: link joins device 'leaf3' to itself"),
        (lambda d: d["devices"][1].update(id="leaf3"), "devices[1].id: device 'leaf3' is already defined"),
        # Only an id repeated, every other check passed: the design's tables meet it first.
        (lambda d: d["devices"].append(dict(d["devices"][0])),
         "devices[3].id: device 'leaf3' is already defined at devices[0]"),
        (lambda d: d["links"][1].update(id="l1"), "links[1].id: link 'l1' is already defined at links[0]"),
        (lambda d: d["models"][0]["ports"][0].update(speed_gbps=-400), "models[0].ports[0].speed_gbps: must be > 0"),
        (lambda d: d["models"][0]["ports"][0].update(count=10**6),
         "models[0].ports[0].count: must be a whole number from 1 to 4,096"),
        (lambda d: d.update(models=[]), "devices[0]: missing 'ports' and model 'qm9700' has no entry in 'models'"),
        (lambda d: d["devices"][1].update(ports=[{"prefix": "p", "count": 2, "speed_gbps": 1, "colour": 1}]),
         "devices[1].ports[0]: unknown field 'colour'"),
        (lambda d: d["devices"][2].update(group="nope"), "devices[2].group: no group 'nope'"),
        (lambda d: d["devices"][0].update(kind="toaster"), "devices[0].kind: must be one of"),
        (lambda d: d["devices"][0].update(colour="red"), "devices[0]: unknown field 'colour'"),
        (lambda d: d["links"][0].update(length_m="long"), "links[0].length_m: must be a number"),
        (lambda d: d["groups"][0].update(parent="n1"), "groups nest in a cycle"),
        (lambda d: d.update(devices=1000000), "devices: must be a list"),
        (lambda d: d.update(version=999), "file version 999 is newer than this program reads"),
        (lambda d: d.update(format="something-else"), "not a design file"),
    ],
)
@pytest.mark.parametrize("form", ["records", "rows"])
def test_invalid_files_name_the_exact_problem(tmp_path, mutate, message, form):
    """Every problem is named in a table of records (versions 1 and 2) and in a table of rows."""
    path = tmp_path / "bad.json"
    path.write_text(_text_with(mutate, form))
    with pytest.raises(DesignFileError) as err:
        load_design(path)
    if form == "rows":
        message = _ROWS_SAYS.get(message, rows_path(message))
    assert message in str(err.value)
    assert str(path) in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "file is empty"),
        (b'{"format": "topo-designer-design", "version": 1, "devices": [', "not valid JSON"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (b"[" * 200_000, "nested too deeply"),
        (b'{"format": "topo-designer-design", "version": 1, "design": {"name": NaN}}', "NaN is not allowed"),
        (b'{"format": "topo-designer-design", "format": "x", "version": 1}', "duplicate key 'format'"),
    ],
)
def test_hostile_bytes_fail_with_one_line(tmp_path, content, message):
    path = tmp_path / "hostile.json"
    path.write_bytes(content)
    with pytest.raises(DesignFileError, match=message):
        load_design(path)


def test_ten_megabytes_of_garbage_fail_fast(tmp_path):
    path = tmp_path / "garbage.json"
    path.write_bytes(os.urandom(10 * 2**20))
    with pytest.raises(DesignFileError):
        load_design(path)


def test_oversized_file_is_refused_before_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(df, "MAX_FILE_BYTES", 1000)
    path = tmp_path / "big.json"
    path.write_text(" " * 2000)
    with pytest.raises(DesignFileError, match="larger than the 1,000 B limit"):
        load_design(path)


def test_older_versions_migrate_forward_step_by_step(tmp_path, monkeypatch):
    # A version-(VERSION-1) file whose links were written as objects; the step rewrites them.
    def step(data):
        for link in data.get("links", []):
            for side in ("a", "b"):
                link[side] = f"{link[side]['device']}:{link[side]['port']}"
        return data

    monkeypatch.setitem(df.MIGRATIONS, VERSION - 1, step)
    old = as_records(json.loads(design_to_text(sample())))
    old["version"] = VERSION - 1
    for link in old["links"]:
        for side in ("a", "b"):
            dev, port = link[side].split(":")
            link[side] = {"device": dev, "port": port}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    assert design_to_text(load_design(path)) == design_to_text(sample())


def test_a_version_without_migration_is_refused(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"format": "topo-designer-design", "version": 0}))
    with pytest.raises(DesignFileError, match="no migration from file version 0"):
        load_design(path)


def test_a_version_1_file_reads_as_a_design_without_variants(tmp_path):
    from designer.io import load_designs

    text = design_to_text(sample()).replace(f'"version": {VERSION},', '"version": 1,')
    path = tmp_path / "v1.json"
    path.write_text(text)
    designs = load_designs(path)
    assert len(designs) == 1 and design_to_text(designs[0]) == design_to_text(sample())


def test_variants_round_trip_byte_for_byte_and_name_their_errors(tmp_path):
    from designer.io import load_designs

    main = sample()
    other = main.copy()
    other.name = "two spines"
    other.set_link_field(next(iter(other.iter_links())).id, "failed", True)
    path = tmp_path / "variants.json"
    save_design(main, path, [other])
    first = path.read_bytes()
    designs = load_designs(path)
    assert [d.name for d in designs] == [main.name, "two spines"]
    assert design_to_text(designs[1]) == design_to_text(other)
    assert load_design(path).name == main.name  # commands read the main design
    save_design(designs[0], path, designs[1:])
    assert path.read_bytes() == first
    data = json.loads(first)
    jsonschema = pytest.importorskip("jsonschema")
    from designer.model.shipped import resources_dir

    jsonschema.validate(data, json.loads((resources_dir() / "schema" / "design.schema.json").read_text()))
    data["variants"][0]["devices"]["rows"][0][1] = "toaster"
    path.write_text(json.dumps(data))
    with pytest.raises(DesignFileError, match=r"variants\[0\]: devices\.rows\[0\]\.kind"):
        load_designs(path)
    data["variants"] = [{"design": {}, "wires": []}]
    path.write_text(json.dumps(data))
    with pytest.raises(DesignFileError, match="unknown field 'wires'"):
        load_designs(path)


def test_failed_save_leaves_the_previous_file_intact(tmp_path, monkeypatch):
    path = tmp_path / "keep.json"
    save_design(sample(), path)
    before = path.read_bytes()

    def boom(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", boom)
    d = sample()
    d.set_design_field("name", "changed")
    with pytest.raises(FileWriteError, match="No space left"):
        save_design(d, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["keep.json"]


def test_save_to_a_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(FileWriteError, match="does not exist"):
        save_design(sample(), tmp_path / "nope" / "x.json")


def test_a_group_re_parented_under_a_later_group_round_trips(tmp_path):
    d = sample()
    d.add_group(Group("pod1", "pod"))
    d.set_group_field("su1", "parent", "pod1")
    path = tmp_path / "regrouped.json"
    save_design(d, path)
    text = path.read_text()
    assert text.index('["pod1", ') < text.index('["su1", ')
    loaded = load_design(path)
    assert loaded.ancestors("n1") == ["n1", "su1", "pod1"]
    assert design_to_text(loaded) == text


def test_reading_a_design_leaves_no_reference_cycles():
    """A design read from a file is freed by reference counting alone: nothing of the reading (a
    helper that refers to itself, say) keeps its groups alive until the collector runs, which the
    window, which exempts what it keeps from the collector, would never do."""
    import gc
    from pathlib import Path

    sample = Path(__file__).resolve().parents[2] / "sample_designs" / "superpod-h100-4su.json"
    was = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        design = load_design(sample)
        assert design.group_count() > 100
        del design
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()


@pytest.mark.parametrize("asked_before_true", [0, 1, 3, 5])
def test_a_stopped_save_leaves_the_file_as_it_was(tmp_path, monkeypatch, asked_before_true):
    """``stop`` is asked while the records are made and before each piece is written; once it says
    true the save raises SaveStopped, the file keeps its old text and no temporary file is left."""
    from designer.generators import GENERATORS
    from designer.io import SaveStopped

    monkeypatch.setattr(df, "_STOP_EVERY", 64)
    monkeypatch.setattr(df, "LINES_PER_PIECE", 256)
    design = GENERATORS["leaf-spine"].build(leaves=4, hosts_per_leaf=16)
    path = tmp_path / "d.json"
    path.write_text("the old text", encoding="utf-8")
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > asked_before_true

    with pytest.raises(SaveStopped):
        save_design(design, path, stop=stop)
    assert path.read_text(encoding="utf-8") == "the old text"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.json"]


def test_a_save_asked_to_stop_but_never_stopped_writes_what_a_save_writes(tmp_path, monkeypatch):
    from designer.generators import GENERATORS

    monkeypatch.setattr(df, "_STOP_EVERY", 64)
    monkeypatch.setattr(df, "LINES_PER_PIECE", 256)
    design = GENERATORS["leaf-spine"].build(leaves=4, hosts_per_leaf=16)
    asked = []
    save_design(design, tmp_path / "watched.json", stop=lambda: bool(asked.append(1)))
    save_design(design, tmp_path / "plain.json")
    assert (tmp_path / "watched.json").read_bytes() == (tmp_path / "plain.json").read_bytes()
    assert len(asked) > 5  # asked while the devices, the links and the pieces were made
