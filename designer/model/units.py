"""How quantities read, wherever they are shown: terminal summaries, the window's docks, inspector
and palette, tables, and the core's own texts (design-rule messages, analysis notes and formulas,
generator descriptions). It lives in the model, and imports nothing of ours, so every layer can use it.

The rule, the same for every quantity with a unit: **at most three significant figures**, in the
largest unit that keeps the number at 1 or more, trailing zeros dropped; 1,000 or more of the
largest unit is a whole number with thousands separators. The unit is chosen after rounding, so
999.7 GB/s reads ``1 TB/s``, never ``1000 GB/s``.

- rates in bytes per second, decimal units: ``25 GB/s``, ``1.8 TB/s``, ``13.6 MB/s``;
- line rates in bits per second (designs give them in Gb/s): ``400 Gb/s``, ``3.6 Tb/s``;
- times: ``1.05 ms``, ``250 us``, ``700 ns``, ``2.5 s``;
- byte sizes, binary units: exact when a whole number of its unit (``8 GiB``, the power-of-two
  message sizes of the collective tables), else three figures (``1.5 GiB``, ``977 KiB``);
- counts: whole with thousands separators and the noun in the singular or plural
  (``1 GPU``, ``2,048 GPUs``, ``3 switches``);
- fractions as whole percentages (``87%``).

Zero reads ``0`` in the base unit (``0 B/s``, ``0 Gb/s``, ``0 s``). Money reads ``$456,789``
(:func:`usd`). Sizes typed by a user (``--sizes``, sweep specs) are read by :func:`parse_size`,
in powers of 1,024 like the tables print them; a refusal is a ``ValueError`` with one line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

#: Bits in a byte: line rates are in bits per second, data rates and message sizes in bytes.
BITS_PER_BYTE = 8
#: Bytes per second in one Gb/s of line rate.
BYTES_PER_S_PER_GBPS = 1e9 / BITS_PER_BYTE

_RATE_UNITS = ((1.0, "B/s"), (1e3, "kB/s"), (1e6, "MB/s"), (1e9, "GB/s"), (1e12, "TB/s"))
_LINE_RATE_UNITS = ((1e-3, "Mb/s"), (1.0, "Gb/s"), (1e3, "Tb/s"))  # scales in Gb/s
_TIME_UNITS = ((1e-9, "ns"), (1e-6, "us"), (1e-3, "ms"), (1.0, "s"))
_SIZE_UNITS = ((1, "B"), (1 << 10, "KiB"), (1 << 20, "MiB"), (1 << 30, "GiB"), (1 << 40, "TiB"))


def figures(x: float) -> str:
    """``x`` to at most three significant figures, trailing zeros dropped, never in e-notation.

    >>> figures(1.8), figures(25.0), figures(13.64), figures(0.001234), figures(1234.5), figures(0)
    ('1.8', '25', '13.6', '0.00123', '1,234', '0')
    """
    if not math.isfinite(x):
        return f"{x:g}"
    if x < 0:
        return "-" + figures(-x)
    if x == 0:
        return "0"
    if x >= 999.5:
        return f"{round(x):,}"
    decimals = max(0, 2 - math.floor(math.log10(x)))
    text = f"{x:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def usd(amount: float) -> str:
    """Money, in US dollars: whole dollars from $1,000, else at most three significant figures.

    >>> usd(456789.4), usd(12345.6), usd(2.5), usd(0.574), usd(0), usd(float("inf"))
    ('$456,789', '$12,346', '$2.5', '$0.574', '$0', '$inf')
    """
    if not math.isfinite(amount):
        return f"${amount:g}"
    if amount < 0:
        return "-" + usd(-amount)
    return f"${round(amount):,}" if amount >= 999.5 else f"${figures(amount)}"


def _scaled(value: float, units: tuple[tuple[float, str], ...]) -> str:
    if not math.isfinite(value):
        return f"{value:g} {units[-1][1]}"
    magnitude = abs(value)
    if magnitude == 0:
        return f"0 {next(name for scale, name in units if scale == 1)}"
    rounded = float(f"{magnitude:.3g}")
    scale, name = next(((s, n) for s, n in reversed(units) if rounded >= s), units[0])
    return f"{'-' if value < 0 else ''}{figures(rounded / scale)} {name}"


def rate(bytes_per_s: float) -> str:
    """A rate in bytes per second (decimal units, per direction where the caller says so).

    >>> rate(25e9), rate(1.8e12), rate(13.6e6), rate(4.2e3), rate(999.7e9), rate(0)
    ('25 GB/s', '1.8 TB/s', '13.6 MB/s', '4.2 kB/s', '1 TB/s', '0 B/s')
    """
    return _scaled(bytes_per_s, _RATE_UNITS)


def line_rate(gbps: float) -> str:
    """A line rate given in Gb/s, as designs and the catalog give port and cable speeds.

    >>> line_rate(400), line_rate(3600), line_rate(53.125), line_rate(0.5), line_rate(0)
    ('400 Gb/s', '3.6 Tb/s', '53.1 Gb/s', '500 Mb/s', '0 Gb/s')
    """
    return _scaled(gbps, _LINE_RATE_UNITS)


def duration(seconds: float) -> str:
    """A time in seconds.

    >>> duration(2.5), duration(1.05e-3), duration(2.5e-4), duration(7e-7), duration(0)
    ('2.5 s', '1.05 ms', '250 us', '700 ns', '0 s')
    """
    return _scaled(seconds, _TIME_UNITS)


def time_unit(seconds: float) -> tuple[str, float]:
    """The unit :func:`duration` reads ``seconds`` in, and its size in seconds: for a plot's axis, whose
    values are then divided by it (``ms``, never ``seconds (x0.001)``).

    >>> time_unit(17.2), time_unit(0.0123), time_unit(2.5e-5), time_unit(0)
    (('s', 1.0), ('ms', 0.001), ('us', 1e-06), ('s', 1.0))
    """
    magnitude = abs(seconds) if math.isfinite(seconds) else 0.0
    if magnitude == 0:
        return "s", 1.0
    rounded = float(f"{magnitude:.3g}")
    scale, name = next(((s, n) for s, n in reversed(_TIME_UNITS) if rounded >= s), _TIME_UNITS[0])
    return name, scale


def size(n_bytes: float) -> str:
    """A size in bytes, binary units: exact when a whole number of its unit, else three figures.

    >>> size(8), size(1 << 20), size(8 << 30), size(1536 << 20), size(1_000_000), size(1000)
    ('8 B', '1 MiB', '8 GiB', '1.5 GiB', '977 KiB', '1,000 B')
    """
    if n_bytes >= 1 and float(n_bytes).is_integer():
        n = int(n_bytes)
        scale, name = next((s, u) for s, u in reversed(_SIZE_UNITS) if n >= s)
        if n % scale == 0:
            return f"{n // scale:,} {name}"
    return _scaled(n_bytes, _SIZE_UNITS)


#: Nouns whose plural is not the noun + "s" / "es" (the last word decides: "NVLink switch").
_IRREGULAR = {"storage": "storage", "chassis": "chassis", "switch": "switches", "series": "series",
              "matrix": "matrices", "index": "indices"}


def plural(n: int, noun: str, plural_form: str = "") -> str:
    """``noun`` as it reads after the number ``n``: ``GPU`` / ``GPUs``, ``switch`` / ``switches``.

    The one place plurals are made: regular nouns take "s" ("es" after s, sh, ch, x), the
    irregular ones (``storage``, ``chassis``, ``matrix``) read from a table; the last word of
    a phrase decides (``NVLink switch`` / ``NVLink switches``).

    >>> plural(1, "link"), plural(2, "link"), plural(0, "switch"), plural(3, "bus", "buses")
    ('link', 'links', 'switches', 'buses')
    >>> plural(16, "NVLink switch"), plural(2, "storage"), plural(2, "box"), plural(2, "matrix")
    ('NVLink switches', 'storage', 'boxes', 'matrices')
    """
    if n == 1:
        return noun
    if plural_form:
        return plural_form
    head, _, last = noun.rpartition(" ")
    irregular = _IRREGULAR.get(last)
    if irregular is not None:
        return f"{head} {irregular}" if head else irregular
    return noun + ("es" if noun.endswith(("s", "sh", "ch", "x")) else "s")


def count(n: int, noun: str, plural_form: str = "") -> str:
    """``n`` with thousands separators and ``noun`` in the singular or plural.

    >>> count(1, "GPU"), count(2048, "GPU"), count(3, "switch"), count(0, "flow"), count(16, "switch")
    ('1 GPU', '2,048 GPUs', '3 switches', '0 flows', '16 switches')
    """
    return f"{n:,} {plural(n, noun, plural_form)}"


#: How device kinds read in counts ("248 GPUs, 16 switches"), in the order they are listed.
KIND_NAMES = {"gpu": "GPU", "nic": "NIC", "nvswitch": "NVLink switch", "switch": "switch", "storage": "storage"}


def kind_counts(kinds: Mapping[str, int]) -> str:
    """Devices counted by kind, in a fixed order of kinds, each in the singular or plural.

    >>> kind_counts({"switch": 16, "gpu": 248, "nvswitch": 1, "nic": 0})
    '248 GPUs, 1 NVLink switch, 16 switches'
    """
    order = list(KIND_NAMES) + sorted(k for k in kinds if k not in KIND_NAMES)
    return ", ".join(count(kinds[k], KIND_NAMES.get(k, k)) for k in order if kinds.get(k))


def percent(fraction: float) -> str:
    """A fraction as a whole percentage; one that rounds to zero reads ``0%``, never ``-0%``.

    >>> percent(0.874), percent(1.0), percent(0), percent(-0.004), percent(-0.25)
    ('87%', '100%', '0%', '0%', '-25%')
    """
    if not math.isfinite(fraction):
        return f"{fraction:g}"
    whole = round(fraction * 100)
    return f"{whole if whole else 0}%"


def change(fraction: float) -> str:
    """A relative change as a signed whole percentage: ``+12%``, ``-3%``; one that rounds to zero reads ``0%``.

    >>> change(0.12), change(-0.031), change(-0.004), change(0.0)
    ('+12%', '-3%', '0%', '0%')
    """
    text = percent(fraction)
    return "+" + text if text[0].isdigit() and text != "0%" else text




# --------------------------------------------------------------------------- reading sizes
#: Size units, powers of 1,024 (as nccl-tests reads ``-b 8 -e 8G`` and as the tables print sizes):
#: a bare letter or its IEC name (``K`` = ``KiB`` = 1,024 B). Case does not matter.
_UNITS = {"": 1, "b": 1}
for _k, _letter in enumerate("kmgtp", start=1):
    _UNITS[_letter] = _UNITS[f"{_letter}ib"] = 1 << (10 * _k)
#: Decimal SI names are refused rather than read two ways: ``1kB`` is 1,000 B to some, 1,024 to others.
_DECIMAL = {f"{letter}b" for letter in "kmgtp"}
MAX_SIZE_BYTES = 1 << 50  # 1 PiB
MAX_SIZES = 4096
SIZE_HELP = ("sizes in bytes with an optional unit, powers of 1,024: B, K or KiB, M or MiB, G or GiB, T or TiB, "
             "P or PiB (as nccl-tests reads -b/-e; kB, MB... are refused as ambiguous), from 1 B to 1 PiB")


def parse_size(text: str) -> int:
    """Bytes from ``8``, ``8B``, ``64K`` = ``64KiB``, ``1.5M``...: units are powers of 1,024
    (:data:`SIZE_HELP`); decimal names (``1MB``) are refused with the binary one offered.

    >>> parse_size("8B"), parse_size("1MiB"), parse_size("2G"), parse_size("1k") == parse_size("1KiB")
    (8, 1048576, 2147483648, True)
    >>> parse_size("1PiB") == 1 << 50
    True
    """
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", text, re.ASCII)
    unit = m.group(2).lower() if m else ""
    if m and unit in _DECIMAL:
        raise ValueError(f"invalid size {text!r}: {m.group(2)} is ambiguous (1,000 or 1,024?); write "
                            f"{m.group(1)}{unit[0].upper()}iB for powers of 1,024, or the bytes in full")
    if not m or unit not in _UNITS:
        raise ValueError(f"invalid size {text!r}: use e.g. 8B, 64KiB, 1MiB, 8GiB ({SIZE_HELP})")
    value = float(m.group(1)) * _UNITS[unit]
    if value < 1 or value != int(value) or value > MAX_SIZE_BYTES:
        raise ValueError(f"invalid size {text!r}: a whole number of bytes from 1 B to 1 PiB")
    return int(value)


def parse_sizes(text: str) -> list[int]:
    """``8B:8GiB`` (powers of two from..to, like nccl-tests ``-f 2``) or a list ``1MiB,1GiB``.

    >>> parse_sizes("8B:64B"), parse_sizes("1MiB,1KiB,1KiB")
    ([8, 16, 32, 64], [1024, 1048576])
    """
    if ":" in text:
        lo_s, _, hi_s = text.partition(":")
        lo, hi = parse_size(lo_s), parse_size(hi_s)
        if lo > hi:
            raise ValueError(f"invalid size range {text!r}: the first size is larger than the last")
        out = []
        v = lo
        while v <= hi and len(out) < MAX_SIZES:
            out.append(v)
            v *= 2
        return out
    sizes = sorted({parse_size(s) for s in text.split(",") if s.strip()})
    if not sizes:
        raise ValueError("--sizes is empty: give at least one size")
    if len(sizes) > MAX_SIZES:
        raise ValueError(f"--sizes lists {len(sizes)} sizes; at most {MAX_SIZES}")
    return sizes


__all__ = ["KIND_NAMES", "MAX_SIZES", "MAX_SIZE_BYTES", "SIZE_HELP", "count", "duration", "figures", "kind_counts",
           "line_rate", "parse_size", "parse_sizes", "percent", "plural", "rate", "size", "usd"]
