"""The records a design is made of: devices with port groups, links, groups.

Units: port speeds are per-direction line rates in gigabits per second (``speed_gbps``);
lengths are metres; positions are scene units (1 unit = 1 pixel at zoom 1).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

from designer.model.errors import InvalidValueError

DEVICE_KINDS = ("gpu", "nic", "nvswitch", "switch", "storage")
PORT_KINDS = ("nvlink", "pcie", "network")
MEDIA = ("passive_copper", "active_copper", "aoc", "optical", "nvlink", "pcie")
GROUP_KINDS = ("server", "rack", "su", "pod", "custom")
COPPER_MEDIA = ("passive_copper", "active_copper")
#: Media on a board or in a chassis (a port of the same kind at each end), not cables.
BOARD_MEDIA = ("nvlink", "pcie")

#: Ranges a design file must hold to (``designer.io.design_records`` refuses a file outside them
#: and the design rule ``out-of-range`` reports a design built in memory outside them; the model
#: itself accepts any finite positive speed and length >= 0, which the analysis copes with).
#: A port runs at 1 Mb/s (the analyzer's ``MIN_LINK_GBPS``: slower links count as zero capacity)
#: to 100 Tb/s (about 7x an NVLink 6 GPU's aggregate port). A link is at most 100 km long, the
#: reach of the longest single-span data-centre-interconnect optics (400ZR class, 80-120 km).
MIN_PORT_GBPS = 1e-3
MAX_PORT_GBPS = 1e5
MAX_LINK_LENGTH_M = 1e5
#: A device's canvas position (``x``, ``y``, in canvas units: 1 unit is 1 px at 100 % zoom) lies
#: within +-MAX_COORD. The largest generated floor plan (the 131,072-GPU fabric) spans about 1e6
#: units; beyond 1e9 the canvas can no longer zoom out far enough to show a design whole. Every
#: reader, the inspector and the canvas hold positions to this bound.
MAX_COORD = 1e9
#: A device's own power (``properties.power_w`` of a custom device, a catalog ``power_w``) is at
#: most 1 MW, about eight GB200 NVL72 racks (120-132 kW each, NVIDIA's published rack power); a
#: price (``price_usd``) at most 1e9 USD. Above either, a figure is a slip of the keyboard.
MAX_POWER_W = 1e6
MAX_PRICE_USD = 1e9

_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$")
#: The id pattern's match, for a caller that checks many ids inline (:func:`check_id` refuses a bad one).
match_id = _ID_RE.match


def check_id(value: object, what: str = "id") -> str:
    """Return ``value`` if it is a valid readable id, else raise InvalidValueError.

    Ids are 1-128 characters of letters, digits, ``_``, ``.`` and ``-``, starting with a letter
    or digit (``su2-node17-gpu3``). ``:`` is reserved: ``leaf3:p65`` names a port.
    """
    if value.__class__ is str and match_id(value):
        return value  # the common case, in one call
    if not isinstance(value, str) or not _ID_RE.match(value):
        raise InvalidValueError(
            f"invalid {what} {value!r}: use 1-128 letters, digits, '_', '.', '-', starting with a letter or digit"
        )
    return value


def check_finite(value: object, what: str, *, minimum: float = 0.0, strict: bool = False) -> float:
    """Return ``value`` as float if it is a finite number >= minimum (> when strict)."""
    if value.__class__ is float and -math.inf < value < math.inf and (
            value > minimum or not strict and value == minimum):
        return value  # the common case, decided without the conversions below
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidValueError(f"{what} must be a number, not {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise InvalidValueError(f"{what} must be finite, not {value!r}")
    if v < minimum or (strict and v == minimum):
        op = ">" if strict else ">="
        raise InvalidValueError(f"{what} must be {op} {minimum:g}, not {value!r}")
    return v


def check_coord(value: object, what: str) -> float:
    """A canvas position: a finite number within +-:data:`MAX_COORD`."""
    if value.__class__ is float and -MAX_COORD <= value <= MAX_COORD:
        return value  # the common case (a float in range is finite)
    v = check_finite(value, what, minimum=-MAX_COORD)
    if v > MAX_COORD:
        raise InvalidValueError(f"{what} must be <= {MAX_COORD:g}, not {value!r}")
    return v


def clamp_coord(value: float) -> float:
    """``value`` held within +-:data:`MAX_COORD` (a drag or a paste that would carry a device past it)."""
    return min(max(value, -MAX_COORD), MAX_COORD)


class PortSpec(NamedTuple):
    """One port, as resolved from its device's port group."""

    id: str
    speed_gbps: float
    kind: str
    form_factor: str
    lanes: int
    group_index: int


@dataclass(frozen=True, slots=True)
class PortGroup:
    """``count`` identical ports named ``prefix1`` .. ``prefixN``.

    ``speed_gbps`` is the per-direction line rate of one port in Gb/s (an aggregated NVLink
    port carries the sum of its lanes). ``per_cage`` > 1 when logical ports share a physical
    cage (twin-port OSFP), which the bill of materials uses to count transceivers.
    """

    prefix: str
    count: int
    speed_gbps: float
    kind: str = "network"
    form_factor: str = ""
    lanes: int = 1
    per_cage: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.prefix, str) or not re.match(r"^[A-Za-z][A-Za-z_\-]{0,15}$", self.prefix):
            raise InvalidValueError(f"invalid port prefix {self.prefix!r}: 1-16 letters, '_' or '-'")
        if isinstance(self.count, bool) or not isinstance(self.count, int) or not 1 <= self.count <= 4096:
            raise InvalidValueError(f"port count must be an integer in 1..4096, not {self.count!r}")
        # Stored as float so that a catalog's 400 and a file's 400.0 save identically.
        object.__setattr__(self, "speed_gbps", check_finite(self.speed_gbps, "port speed_gbps", strict=True))
        if self.kind not in PORT_KINDS:
            raise InvalidValueError(f"port kind must be one of {', '.join(PORT_KINDS)}, not {self.kind!r}")
        if isinstance(self.lanes, bool) or not isinstance(self.lanes, int) or self.lanes < 1:
            raise InvalidValueError(f"port lanes must be a positive integer, not {self.lanes!r}")
        if isinstance(self.per_cage, bool) or not isinstance(self.per_cage, int) or self.per_cage < 1:
            raise InvalidValueError(f"port per_cage must be a positive integer, not {self.per_cage!r}")

    def port_ids(self) -> list[str]:
        return [f"{self.prefix}{i}" for i in range(1, self.count + 1)]


@lru_cache(maxsize=8192)
def port_index(ports: tuple[PortGroup, ...]) -> dict[str, PortSpec]:
    """Port id -> PortSpec for a tuple of port groups (shared by every device with these ports)."""
    index: dict[str, PortSpec] = {}
    for gi, g in enumerate(ports):
        for i in range(1, g.count + 1):
            pid = f"{g.prefix}{i}"
            index[pid] = PortSpec(pid, g.speed_gbps, g.kind, g.form_factor, g.lanes, gi)
    return index


@dataclass(slots=True, eq=False)
class Device:
    """A GPU, NIC, NVLink switch (fabric), network switch or storage node.

    ``model`` names a catalog component (may be empty for a custom device); the port groups are
    copied from the catalog when the device is made, so a design file stays readable without it.
    ``tier`` is the role in the fabric (``leaf``, ``spine``, ``core``, ``router``...) or empty.
    """

    id: str
    kind: str
    ports: tuple[PortGroup, ...]
    model: str = ""
    name: str = ""
    tier: str = ""
    x: float = 0.0
    y: float = 0.0
    group: str | None = None
    properties: dict[str, Any] = field(default_factory=dict)
    _indexed: tuple[PortGroup, ...] = field(default=(), init=False, repr=False, compare=False)
    _index: dict[str, PortSpec] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_id(self.id, "device id")
        if self.kind not in DEVICE_KINDS:
            raise InvalidValueError(
                f"device {self.id!r}: kind must be one of {', '.join(DEVICE_KINDS)}, not {self.kind!r}"
            )
        self.ports = tuple(self.ports)
        prefixes = [g.prefix for g in self.ports]
        if len(set(prefixes)) != len(prefixes):
            raise InvalidValueError(f"device {self.id!r}: port prefixes must be distinct, got {prefixes}")
        self.x = check_coord(self.x, f"device {self.id!r} x")
        self.y = check_coord(self.y, f"device {self.id!r} y")

    @property
    def label(self) -> str:
        return self.name or self.id

    @property
    def port_count(self) -> int:
        return sum(g.count for g in self.ports)

    def port(self, port_id: str) -> PortSpec | None:
        """The port named ``port_id``, or None if the device has no such port."""
        if self._indexed is not self.ports:
            self._index = port_index(self.ports)
            self._indexed = self.ports
        return self._index.get(port_id)

    def iter_ports(self) -> list[PortSpec]:
        if self._indexed is not self.ports:
            self._index = port_index(self.ports)
            self._indexed = self.ports
        return list(self._index.values())


@dataclass(slots=True, eq=False)
class Link:
    """A cable or board connection between two ports: ``a_device:a_port`` -- ``b_device:b_port``.

    ``medium`` is one of MEDIA; ``cable`` names a catalog cable (may be empty); ``length_m`` is
    the physical length in metres; ``failed`` marks a link that is down (for what-if analysis).
    """

    id: str
    a_device: str
    a_port: str
    b_device: str
    b_port: str
    medium: str = "optical"
    length_m: float = 1.0
    cable: str = ""
    failed: bool = False
    properties: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_id(self.id, "link id")
        if self.medium not in MEDIA:
            raise InvalidValueError(f"link {self.id!r}: medium must be one of {', '.join(MEDIA)}, not {self.medium!r}")
        self.length_m = check_finite(self.length_m, f"link {self.id!r} length_m")
        if not isinstance(self.failed, bool):
            raise InvalidValueError(f"link {self.id!r}: failed must be true or false")

    @property
    def a(self) -> str:
        return f"{self.a_device}:{self.a_port}"

    @property
    def b(self) -> str:
        return f"{self.b_device}:{self.b_port}"

    def other(self, device_id: str) -> str:
        return self.b_device if device_id == self.a_device else self.a_device


@dataclass(slots=True, eq=False)
class Group:
    """A server, rack, scalable unit (su), pod or custom group; groups nest through ``parent``."""

    id: str
    kind: str = "custom"
    name: str = ""
    parent: str | None = None
    collapsed: bool = False
    properties: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_id(self.id, "group id")
        if self.kind not in GROUP_KINDS:
            raise InvalidValueError(
                f"group {self.id!r}: kind must be one of {', '.join(GROUP_KINDS)}, not {self.kind!r}"
            )

    @property
    def label(self) -> str:
        return self.name or self.id


def parse_port_ref(ref: str) -> tuple[str, str]:
    """Split ``'leaf3:p65'`` into ``('leaf3', 'p65')``; raise InvalidValueError otherwise."""
    if not isinstance(ref, str) or ref.count(":") != 1:
        raise InvalidValueError(f"port reference must look like 'device:port', not {ref!r}")
    dev, port = ref.split(":")
    if not dev or not port:
        raise InvalidValueError(f"port reference must look like 'device:port', not {ref!r}")
    return dev, port
