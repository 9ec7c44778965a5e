"""InfiniBand link speeds as data: each generation's lane signalling rate, line encoding and data rate.

A link's rate in a design is what it carries (per direction, in Gb/s), so an InfiniBand width x
speed is read as lanes x the generation's *data* rate per lane: the signalling rate less the line
code's overhead. 4xQDR signals at 40 Gb/s but carries 32 (8b/10b); FDR10 signals at 10.3125 Gb/s
per lane with 64b/66b and so carries 10, more than QDR's 8 at nearly the same signalling rate.

Sources: InfiniBand Trade Association, *InfiniBand Architecture Specification* Volume 2 (physical
layer: SDR/DDR/QDR 8b/10b; FDR and EDR 64b/66b), summarised with the same figures in the IBTA
roadmap and at https://en.wikipedia.org/wiki/InfiniBand#Performance (per-lane signalling rate,
encoding and effective rate of each generation); FDR10 is Mellanox's 10.3125 Gb/s 64b/66b mode
(Mellanox, "FDR InfiniBand" product brief, 2012). HDR, NDR and XDR are quoted by their data rate
per lane (50, 100, 200 Gb/s: PAM4 with RS-FEC, whose overhead is inside the quoted rate), as the
catalog's 200G HDR and 400G NDR ports are (4 lanes each).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class IbSpeed:
    """One InfiniBand generation: ``signal_gbps`` per lane (Gbaud), the line ``encoding``, and the
    ``data_gbps`` per lane a link carries (the rate the design uses)."""

    name: str
    signal_gbps: float
    encoding: str
    data_gbps: float


#: Every generation ibnetdiscover, ibdiagnet and ibsim name, slowest first.
IB_SPEEDS: dict[str, IbSpeed] = {s.name: s for s in (
    IbSpeed("SDR", 2.5, "8b/10b", 2.0),
    IbSpeed("DDR", 5.0, "8b/10b", 4.0),
    IbSpeed("QDR", 10.0, "8b/10b", 8.0),
    IbSpeed("FDR10", 10.3125, "64b/66b", 10.0),
    IbSpeed("FDR", 14.0625, "64b/66b", 14.0625 * 64 / 66),
    IbSpeed("EDR", 25.78125, "64b/66b", 25.0),
    IbSpeed("HDR", 53.125, "PAM4, RS-FEC", 50.0),
    IbSpeed("NDR", 106.25, "PAM4, RS-FEC", 100.0),
    IbSpeed("XDR", 212.5, "PAM4, RS-FEC", 200.0),
)}

#: ibdiagnet's ``SPD=`` gives the signalling rate per lane in Gb/s: that figure -> generation.
_BY_SIGNAL = {2.5: "SDR", 5.0: "DDR", 10.0: "QDR", 14.0: "FDR", 14.0625: "FDR", 10.3125: "FDR10",
              25.0: "EDR", 25.78125: "EDR", 50.0: "HDR", 53.125: "HDR", 100.0: "NDR", 106.25: "NDR",
              200.0: "XDR", 212.5: "XDR"}

#: ibsim's ``s=`` (the PortInfo LinkSpeedEnabled bits: 1 SDR, 2 DDR, 4 QDR) -> the fastest enabled.
IBSIM_SPEED_BITS = ((4, "QDR"), (2, "DDR"), (1, "SDR"))
#: ibsim's ``w=`` (the PortInfo LinkWidthEnabled bits: 1 1x, 2 4x, 4 8x, 8 12x) -> the widest enabled.
IBSIM_WIDTH_BITS = ((8, 12), (4, 8), (2, 4), (1, 1))


def lane_gbps(speed: str) -> float:
    """The data rate per lane of a generation (Gb/s per direction).

    >>> lane_gbps("QDR"), lane_gbps("FDR10"), round(lane_gbps("FDR"), 3), lane_gbps("NDR")
    (8.0, 10.0, 13.636, 100.0)
    """
    return IB_SPEEDS[speed.upper()].data_gbps


def link_gbps(width: int, speed: str) -> float:
    """A link's data rate: lanes x the generation's data rate per lane.

    >>> link_gbps(4, "QDR"), link_gbps(4, "DDR"), link_gbps(4, "HDR"), round(link_gbps(4, "FDR"), 2)
    (32.0, 16.0, 200.0, 54.55)
    """
    return width * lane_gbps(speed)


def speed_of_signal(gbps_per_lane: float) -> str:
    """The generation whose lanes signal at ``gbps_per_lane`` (ibdiagnet's ``SPD=``), or ``""``.

    >>> speed_of_signal(10), speed_of_signal(14), speed_of_signal(3.0)
    ('QDR', 'FDR', '')
    """
    return _BY_SIGNAL.get(float(gbps_per_lane), "")


def ibsim_width(bits: int) -> int:
    """The widest width enabled by ibsim's ``w=`` bit mask (0 when none is).

    >>> ibsim_width(2), ibsim_width(12), ibsim_width(1)
    (4, 12, 1)
    """
    return next((w for bit, w in IBSIM_WIDTH_BITS if bits & bit), 0)


def ibsim_speed(bits: int) -> str:
    """The fastest generation enabled by ibsim's ``s=`` bit mask (``""`` when none is).

    >>> ibsim_speed(7), ibsim_speed(1)
    ('QDR', 'SDR')
    """
    return next((s for bit, s in IBSIM_SPEED_BITS if bits & bit), "")
