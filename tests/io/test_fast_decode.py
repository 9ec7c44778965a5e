"""A large design file is read by msgspec from its bytes (``design_file._decode_bytes``): it must refuse
every text the reader refuses, and build what ``json.loads`` builds from every text it reads, floats
to the bit; a text it refuses goes to ``json.loads``, which names the problem as it always has."""

import json
import math
import random
import struct
from decimal import Decimal, localcontext
from pathlib import Path

import pytest

from designer.io import design_file, load_design, save_design
from designer.io.design_file import DesignFileError, _decode_bytes
from designer.model.fields import lone_surrogate_path

DATA = Path(__file__).resolve().parents[1] / "data"
SUITE = sorted((DATA / "jsontestsuite" / "test_parsing").glob("*.json"))
SAMPLES = Path(__file__).resolve().parents[2] / "sample_designs"


def _careful(raw: bytes):
    """What the careful reader makes of ``raw``, its check of each object's keys aside (a repeated key
    is found by counting members, for both readers): ("refused", None) or ("read", value)."""
    try:
        text = raw.decode("utf-8-sig")
        value = json.loads(text, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))
    except (ValueError, RecursionError):
        return "refused", None
    if lone_surrogate_path(value) is not None:
        return "refused", None
    return "read", value


def _same(a, b) -> bool:
    """Equal values of equal types, floats bit for bit, keys in the same order (no recursion: some
    cases nest 500 deep)."""
    todo = [(a, b)]
    while todo:
        x, y = todo.pop()
        if type(x) is not type(y):
            return False
        if type(x) is float:
            if x.hex() != y.hex():
                return False
        elif type(x) is list:
            if len(x) != len(y):
                return False
            todo.extend(zip(x, y, strict=True))
        elif type(x) is dict:
            if list(x) != list(y):
                return False
            todo.extend((x[k], y[k]) for k in x)
        elif x != y:
            return False
    return True


def test_the_suite_is_all_there():
    kinds = [p.name[:2] for p in SUITE]
    assert (kinds.count("y_"), kinds.count("n_"), kinds.count("i_")) == (95, 188, 35)


@pytest.mark.parametrize("path", SUITE, ids=lambda p: p.stem)
def test_msgspec_reads_a_text_only_as_the_careful_reader_does(path):
    raw = path.read_bytes()
    fast = _decode_bytes(raw)
    verdict, careful = _careful(raw)
    if path.name.startswith("n_"):
        assert verdict == "refused" and fast is None
    if fast is not None:  # what it reads, the careful reader reads alike
        assert verdict == "read" and _same(fast, careful)
    if path.name.startswith("y_"):  # (a text of null alone reads as None, as a refusal does)
        assert verdict == "read" and (fast is not None or careful is None)


def _decimals(rng: random.Random) -> list[str]:
    """Numbers as files hold them: shortest reprs of random doubles, long decimals over the whole
    exponent range, the midpoints between neighbouring doubles and texts just either side of them
    (where a parser that rounds carelessly goes wrong), whole numbers of any size."""
    out = []
    while len(out) < 60_000:
        f = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if math.isfinite(f):
            out.append(repr(f))
    for _ in range(30_000):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 40)))
        text = ("-" if rng.random() < 0.5 else "") + "1" + digits[:rng.randint(0, len(digits))] + "." + digits
        out.append(text + (f"e{rng.randint(-300, 300)}" if rng.random() < 0.5 else ""))
    with localcontext() as ctx:
        ctx.prec = 800
        while len(out) < 120_000:
            f = abs(struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0])
            g = math.nextafter(f, math.inf)
            if not (math.isfinite(g) and f > 0):
                continue
            mid, step = (Decimal(f) + Decimal(g)) / 2, (Decimal(g) - Decimal(f)) / Decimal(10**12)
            out += [format(mid, "e"), format(mid + step, "e"), format(mid - step, "e")]
    out += [str(rng.randint(-10**rng.randint(1, 60), 10**rng.randint(1, 60))) for _ in range(10_000)]
    return out + ["-0", "0", "-0.0", "0e0", "-0e-0", "1E+2", "4.9e-324", "2.4703282292062328e-324",
                  "1.7976931348623157e308", "1e-400"]


def test_msgspec_reads_every_number_to_the_bit_or_leaves_it_to_json():
    numbers = _decimals(random.Random(29))
    refused = []
    for start in range(0, len(numbers), 2000):
        part = numbers[start:start + 2000]
        careful = json.loads("[" + ",".join(part) + "]")
        fast = _decode_bytes(("[" + ",".join(part) + "]").encode())
        if fast is None:  # some number out of a double's range: which?
            fast = [_decode_bytes(f"[{n}]".encode()) for n in part]
            refused += [c for f, c in zip(fast, careful, strict=True) if f is None]
            fast = [f[0] if f is not None else c for f, c in zip(fast, careful, strict=True)]
        assert _same(fast, careful)
    # only numbers beyond a double (json.loads: infinity, which the records refuse) or below its
    # smallest (json.loads: zero) go to json.loads
    assert refused and all(math.isinf(c) or c == 0.0 for c in refused)
    for text in ("1e400", "-1.5e309", "123e99999"):
        assert _decode_bytes(f"[{text}]".encode()) is None and math.isinf(json.loads(f"[{text}]")[0])


@pytest.fixture
def measured(monkeypatch):
    """Every file measured, so read by msgspec first."""
    monkeypatch.setattr(design_file, "SHAPE_CHECK_BYTES", 0)


def _without_msgspec(monkeypatch, path):
    """What loading ``path`` gives (or the message it refuses it with) when msgspec reads nothing."""
    with monkeypatch.context() as m:
        m.setattr(design_file, "_decode_bytes", lambda raw: None)
        try:
            return load_design(path)
        except DesignFileError as e:
            return str(e)


def test_a_measured_file_reads_as_json_reads_it_with_or_without_a_byte_order_mark(tmp_path, measured, monkeypatch):
    sample = SAMPLES / "superpod-h100-1su.json"
    with_bom = tmp_path / "bom.json"
    with_bom.write_bytes(b"\xef\xbb\xbf" + sample.read_bytes())
    for path in (sample, with_bom):
        fast, slow = tmp_path / "fast.json", tmp_path / "slow.json"
        save_design(load_design(path), fast)
        save_design(_without_msgspec(monkeypatch, path), slow)
        assert _decode_bytes(path.read_bytes()) is not None  # msgspec read it
        assert fast.read_bytes() == slow.read_bytes()
    assert fast.read_bytes().replace(b"\r\n", b"\n") == sample.read_bytes().replace(b"\r\n", b"\n")


@pytest.mark.parametrize(("old", "new"), [
    ('"nvlink", 0.5', '"nvlink", NaN'),  # not JSON
    ('"nvlink", 0.5', '"nvlink", 1e400'),  # read as infinity by json.loads: the link's length is refused
    ('"nvlink", 0.5', '"nvlink", 1' + "0" * 400),  # a whole number beyond a double
    ('"qm9700"', '"qm\\ud800"'),  # a lone surrogate
    ('"qm9700"', '"qm\u00e9"'),  # not a problem: text beyond ASCII
])
def test_an_unusual_number_or_text_in_a_measured_file_reads_as_before(tmp_path, measured, monkeypatch, old, new):
    text = (SAMPLES / "superpod-h100-1su.json").read_text()
    assert old in text
    path = tmp_path / "edited.json"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    before = _without_msgspec(monkeypatch, path)
    try:
        now = load_design(path)
    except DesignFileError as e:
        now = str(e)
    if isinstance(before, str):
        assert now == before
    else:
        a, b = tmp_path / "a.json", tmp_path / "b.json"
        save_design(before, a)
        save_design(now, b)
        assert a.read_bytes() == b.read_bytes()


def test_bytes_that_are_not_utf8_are_named_as_before(tmp_path, measured):
    raw = (SAMPLES / "superpod-h100-1su.json").read_bytes()
    path = tmp_path / "latin1.json"
    path.write_bytes(raw.replace(b'"qm9700"', b'"qm\xe9"', 1))
    assert _decode_bytes(path.read_bytes()) is None
    with pytest.raises(DesignFileError, match=r"not UTF-8 text \(byte \d+\)"):
        load_design(path)
