"""Design files are read through a bounded reader: pipes, devices and standard input cannot grow
the program without limit, and no object may expand into millions of keys."""

import contextlib
import io
import json
import os
import threading
from pathlib import Path

import pytest

from designer.io import design_file, json_shape
from designer.io.design_file import (
    MAX_OBJECT_MEMBERS,
    DesignFileError,
    design_to_text,
    load_design,
    load_design_stream,
    read_bounded,
)
from designer.io.json_shape import measure

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_designs" / "hgx-h100-server.json"


def test_a_stream_longer_than_the_limit_is_refused_after_reading_just_past_it():
    class Endless(io.RawIOBase):
        served = 0

        def readable(self):
            return True

        def readinto(self, b):
            self.served += len(b)
            b[:] = b"\0" * len(b)
            return len(b)

    stream = Endless()
    with pytest.raises(DesignFileError, match=r"<pipe>: larger than the 1,000 B limit"):
        read_bounded(stream, "<pipe>", limit=1000)
    assert stream.served <= 1001


def test_a_file_of_known_length_is_read_in_one_piece_and_still_bounded_if_it_grew():
    from designer.io import reading

    reads = []

    class Counted(io.BytesIO):
        def read(self, n=-1):
            reads.append(n)
            return super().read(n)

    text = b"x" * 5000
    assert reading.read_bounded(Counted(text), "f", 10_000, "a design file", DesignFileError, 5000) == text
    assert len(reads) == 2 and reads[0] == 5001  # one piece, then the end of the file
    reads.clear()
    grown = text + b"y" * 3000  # longer than its length when it was looked at
    assert reading.read_bounded(Counted(grown), "f", 10_000, "a design file", DesignFileError, 5000) == grown
    with pytest.raises(DesignFileError, match=r"f: larger than the 5.86 KiB limit"):
        reading.read_bounded(Counted(grown), "f", 6000, "a design file", DesignFileError, 5000)
    with pytest.raises(DesignFileError, match=r"f: larger than the 1,000 B limit"):
        reading.read_bounded(Counted(text), "f", 1000, "a design file", DesignFileError, 5000)


def test_a_device_is_refused_before_it_is_read():
    with pytest.raises(DesignFileError, match=r"^/dev/zero: a device, not a design file; give a file, or '-' for "
                       "standard input$"):
        load_design("/dev/zero")


def test_a_named_pipe_with_no_writer_is_refused_instead_of_waiting(tmp_path, monkeypatch):
    from designer.io import reading

    monkeypatch.setattr(reading, "PIPE_WAIT_S", 0.2)
    fifo = tmp_path / "fabric.json"
    os.mkfifo(fifo)
    with pytest.raises(DesignFileError, match=r"fabric.json: a named pipe with no writer \(waited 200 ms\)"):
        load_design(fifo)


def test_a_named_pipe_is_read_through_the_same_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(design_file, "MAX_FILE_BYTES", 1 << 16)
    fifo = tmp_path / "fabric.json"
    os.mkfifo(fifo)

    def writer():
        with contextlib.suppress(BrokenPipeError), open(fifo, "wb") as fh:
            fh.write(b" " * (1 << 20))

    t = threading.Thread(target=writer)
    t.start()
    try:
        with pytest.raises(DesignFileError, match="larger than the 64 KiB limit"):
            load_design(fifo)
    finally:
        t.join(timeout=10)


def test_standard_input_is_read_with_dash(monkeypatch):
    raw = SAMPLE.read_bytes()

    class FakeStdin:
        buffer = io.BytesIO(raw)

    monkeypatch.setattr("sys.stdin", FakeStdin)
    d = load_design("-")
    assert design_to_text(d) == design_to_text(load_design(SAMPLE))
    assert load_design_stream(io.BytesIO(raw)).device_count() == d.device_count()


def test_an_empty_stream_is_named_as_empty():
    with pytest.raises(DesignFileError, match=r"^<stdin>: file is empty$"):
        load_design_stream(io.BytesIO(b"  \n"))


def _with_properties(n: int) -> str:
    data = json.loads(SAMPLE.read_text())
    data["design"]["properties"] = {f"k{i}": i for i in range(n)}
    return json.dumps(data)


def test_an_object_may_hold_the_documented_number_of_members(tmp_path):
    path = tmp_path / "ok.json"
    path.write_text(_with_properties(MAX_OBJECT_MEMBERS))
    assert len(load_design(path).properties) == MAX_OBJECT_MEMBERS


@pytest.mark.parametrize("measure_first", [False, True])
def test_an_object_with_too_many_members_is_refused(tmp_path, monkeypatch, measure_first):
    # Large files are measured before parsing; small ones are checked as each object is built.
    # Both give the same message.
    if measure_first:
        monkeypatch.setattr(design_file, "SHAPE_CHECK_BYTES", 0)
    path = tmp_path / "flood.json"
    path.write_text(_with_properties(MAX_OBJECT_MEMBERS + 1))
    with pytest.raises(DesignFileError, match=r"an object has 1,001 members; a design file allows at most 1,000"):
        load_design(path)


def test_measuring_first_accepts_a_real_design(monkeypatch):
    monkeypatch.setattr(design_file, "SHAPE_CHECK_BYTES", 0)
    assert load_design(ROOT / "sample_designs" / "superpod-h100-1su.json").device_count() > 300


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        (b"{}", (0, 1)),
        (b"[]", (0, 1)),
        (b'{"a": 1, "b": {"c": [1, {"d": 2, "e": 3, "f": 4}]}}', (3, 4)),
        # Braces and colons inside strings do not count, escaped quotes do not end a string.
        (b'{"a:{b": "}:{:{", "q\\"{:": 1}', (2, 1)),
        # An escaped backslash before a quote: the quote ends the string.
        (b'{"a\\\\": 1, "b": 2, "c": 3}', (3, 1)),
        (b'{"a\\\\\\"b": 1}', (1, 1)),
        (b'[{"a": 1}, {"b": 1, "c": 2}]', (2, 2)),
    ],
)
def test_largest_object_counts_members_outside_strings(text, expect):
    shape = measure(text)
    assert (shape.largest_object, shape.depth) == expect
    json.loads(text)  # each case is valid JSON


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"format": "topo-designer-design", "version": 1, "design": {"name": "ab',
         "not valid JSON: unterminated string starting at line 1, column 69; the file ends before the JSON "
         "does (was it cut short?)"),
        ('{"format": "topo-designer-design", "version": 1, ',
         "not valid JSON: expecting property name enclosed in double quotes at line 1, column 50; the file "
         "ends before the JSON does (was it cut short?)"),
        ('{"a": 1} x', "not valid JSON: extra data at line 1, column 10"),
        ('{"foo": 1}', "not a design file (it has no \"format\" field; expected 'topo-designer-design')"),
    ],
)
def test_json_errors_read_as_whole_sentences(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(DesignFileError) as e:
        load_design(path)
    assert str(e.value) == f"{path}: {message}"


def _with_property_value(value) -> str:
    data = json.loads(SAMPLE.read_text())
    data["design"]["properties"] = {"notes": value}
    return json.dumps(data)


def test_a_file_that_would_expand_into_too_many_containers_is_refused(tmp_path, monkeypatch):
    text = _with_property_value([[] for _ in range(5000)])
    containers = measure(text.encode()).containers
    monkeypatch.setattr(design_file, "MAX_CONTAINERS", containers - 1)
    path = tmp_path / "arrays.json"
    path.write_text(text)
    with pytest.raises(DesignFileError, match=rf"holds {containers:,} JSON objects and arrays; a design file "
                       rf"allows at most {containers - 1:,}"):
        load_design(path)
    monkeypatch.setattr(design_file, "MAX_CONTAINERS", containers)
    assert load_design(path).properties["notes"][0] == []


def test_a_file_that_would_expand_into_too_many_values_is_refused(tmp_path, monkeypatch):
    text = _with_property_value([1] * 20000)
    values = measure(text.encode()).values
    monkeypatch.setattr(design_file, "MAX_VALUES", values - 1)
    path = tmp_path / "values.json"
    path.write_text(text)
    with pytest.raises(DesignFileError, match=rf"holds about {values:,} JSON values"):
        load_design(path)


def test_braces_and_commas_inside_names_do_not_count_against_the_limits(tmp_path, monkeypatch):
    # The fast byte count sees them; the exact count outside strings clears the file.
    text = _with_property_value("{[,]}" * 20000)
    monkeypatch.setattr(design_file, "MAX_CONTAINERS", measure(text.encode()).containers)
    monkeypatch.setattr(design_file, "MAX_VALUES", measure(text.encode()).values)
    path = tmp_path / "braces.json"
    path.write_text(text)
    assert load_design(path).properties["notes"].startswith("{[,]}")


def _reference_shape(obj, depth=1):
    """(largest object, depth, containers, values + empty containers, members) of parsed JSON."""
    if isinstance(obj, (dict, list)):
        children = list(obj.values()) if isinstance(obj, dict) else obj
        members = len(obj) if isinstance(obj, dict) else 0
        shape = [members, depth, 1, 1 + (not obj), members]
        for child in children:
            sub = _reference_shape(child, depth + 1)
            shape = [max(shape[0], sub[0]), max(shape[1], sub[1]), shape[2] + sub[2], shape[3] + sub[3],
                     shape[4] + sub[4]]
        return shape
    return [0, depth - 1, 0, 1, 0]


def _random_json(rng, alphabet):
    """A random JSON value: objects, arrays and scalars nested up to 6 deep, texts from ``alphabet``."""

    def text():
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))

    def value(depth=0):
        r = rng.random()
        if depth > 5 or r < 0.3:
            return rng.choice([1, 2.5, None, True, text()])
        if r < 0.65:
            return {text() + str(i): value(depth + 1) for i in range(rng.randint(0, 6))}
        return [value(depth + 1) for _ in range(rng.randint(0, 6))]

    return value()


def test_measuring_in_chunks_agrees_with_the_parser_on_random_json_with_hostile_strings():
    import random

    rng = random.Random(7)
    alphabet = ["a", '"', "\\", "{", "}", ":", ",", "[", "]", "é", "\\\\", '\\"']

    for _ in range(60):
        obj = _random_json(rng, alphabet)
        raw = json.dumps(obj, ensure_ascii=rng.random() < 0.5).encode()
        expect = tuple(_reference_shape(obj))
        for chunk in (3, 1 << 22):
            assert tuple(measure(raw, chunk)) == expect, (raw, chunk)


def _outside_reference(raw: bytes) -> bytes:
    """The structural characters outside strings, one byte at a time (what measure must find): a
    quote after an odd run of backslashes is escaped (outside a string too, where the parser stops
    at the backslash anyway)."""
    out = bytearray()
    in_string = escaped = False
    for c in raw:
        if c == 0x22 and not escaped:
            in_string = not in_string
        elif c in b"{}[]:," and not in_string:
            out.append(c)
        escaped = c == 0x5C and not escaped
    return bytes(out)


def test_the_characters_outside_strings_are_found_in_any_text_and_any_chunking():
    # Text with and without escapes (chunks without a backslash are read another way), valid JSON
    # or not: the structural characters outside strings are those a character-by-character scan finds.
    import random

    rng = random.Random(11)
    for alphabet in (b'"{}[]:, a', b'"{}[]:, a\\', b'""""::{a'):
        for _ in range(200):
            raw = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
            for chunk in (1, 3, 64):
                found = b"".join(p.tobytes() for p in json_shape._outside_strings(raw, chunk))
                assert found == _outside_reference(raw), (raw, chunk)


def test_measuring_text_without_escapes_agrees_with_the_parser():
    import random

    rng = random.Random(5)
    alphabet = ["a", "{", "}", ":", ",", "[", "]", "é", " "]

    for _ in range(60):
        obj = _random_json(rng, alphabet)
        raw = json.dumps(obj, ensure_ascii=False).encode()
        assert b"\\" not in raw
        for chunk in (2, 1 << 22):
            assert tuple(measure(raw, chunk)) == tuple(_reference_shape(obj)), (raw, chunk)
