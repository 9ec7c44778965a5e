"""Port-counter snapshots of a real fabric: ``perfquery``, ibdiagnet's PM counters, Prometheus exporters.

Formats (found from the content):

- ``perfquery`` (infiniband-diags): blocks ``# Port counters: Lid L port P`` (PortCounters, 32-bit data
  counters) or ``# Port extended counters: ...`` (PortCountersExtended, 64-bit), then ``Name:.....value``
  lines; ``perfquery -E`` receive-error details likewise. perfquery prints LIDs, not GUIDs: the node is
  the GUID in the file name (``0x7cfe9003009ce5b0.out``, as exporters save one file per node), else the LID.
- ``ibdiagnet2.pm``: blocks ``Port=P Lid=0x.. GUID=0x.. Device=D Port Name=...`` then ``name=0x..``
  lines (``*_extended`` the 64-bit counters).
- ibdiagnet's ``db_csv``: the ``START_PM_INFO`` .. ``END_PM_INFO`` table (NodeGUID, PortNumber, counters;
  ``...Extended`` / ``...Ext`` columns 64-bit).
- Prometheus text exposition: infiniband_exporter's ``infiniband_{switch,hca}_port_*`` (data already
  in bytes), node_exporter's ``node_infiniband_*`` (by host and RDMA device), and dcgm-exporter's
  NVLink and PCIe fields (``DCGM_FI_PROF_NVLINK_{TX,RX}_BYTES``,
  ``DCGM_FI_PROF_PCIE_{TX,RX}_BYTES``: rates in bytes/s; NVLink error counters).

Units, as the InfiniBand Architecture Specification (Vol. 1, PortCounters and PortCountersExtended)
defines them: PortXmitData / PortRcvData count 32-bit words (octets divided by 4), so they are multiplied
by 4 here; PortXmitWait counts ticks of the port's sampling clock; PortCounters fields are 32 bits or less
and stop at their maximum instead of wrapping; PortCountersExtended data fields are 64 bits.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from designer.analysis.measured.runs import PortCounters
from designer.io.measured import MeasuredFileError, read_measurement

MAX_COUNTER_BYTES = 128 * 1024 * 1024
#: Octets per unit of PortXmitData / PortRcvData (IBA: "in units of 32-bit words").
DATA_WORD_BYTES = 4

#: Canonical counter names, from each source's spelling (lower case, without "_" and "extended"/"ext").
CANONICAL = {
    "portxmitdata": "xmit_data", "portrcvdata": "rcv_data",
    "portxmitpkts": "xmit_pkts", "portrcvpkts": "rcv_pkts",
    "portxmitwait": "xmit_wait",
    "symbolerrorcounter": "symbol_errors", "symbolerror": "symbol_errors",
    "linkerrorrecoverycounter": "link_error_recovery", "linkerrorrecovery": "link_error_recovery",
    "linkdownedcounter": "link_downed", "linkdowncounter": "link_downed", "linkdowned": "link_downed",
    "portrcverrors": "rcv_errors", "receiveerrors": "rcv_errors",
    "portrcvremotephysicalerrors": "rcv_remote_physical_errors",
    "portxmitdiscards": "xmit_discards", "portxmitdiscard": "xmit_discards", "transmitdiscards": "xmit_discards",
    "locallinkintegrityerrors": "local_link_integrity_errors",
    "excessivebufferoverrunerrors": "excessive_buffer_overrun_errors",
    "excessivebuffererrors": "excessive_buffer_overrun_errors",
    "portlocalphysicalerrors": "local_physical_errors",
    "portmalformedpkterrors": "malformed_packet_errors", "portmalformedpacketerrors": "malformed_packet_errors",
}
#: Counters that say a link is unhealthy when they grow.
ERROR_COUNTERS = ("symbol_errors", "link_error_recovery", "link_downed", "rcv_errors", "rcv_remote_physical_errors",
                  "xmit_discards", "local_link_integrity_errors", "excessive_buffer_overrun_errors",
                  "local_physical_errors", "malformed_packet_errors", "nvlink_crc_errors", "nvlink_replays",
                  "nvlink_recoveries")
#: Bits of each PortCounters (not extended) field, IBA Vol. 1 table "PortCounters".
PORT_COUNTER_BITS = {"symbol_errors": 16, "link_error_recovery": 8, "link_downed": 8, "rcv_errors": 16,
                     "rcv_remote_physical_errors": 16, "xmit_discards": 16, "local_link_integrity_errors": 4,
                     "excessive_buffer_overrun_errors": 4, "xmit_data": 32, "rcv_data": 32, "xmit_pkts": 32,
                     "rcv_pkts": 32, "xmit_wait": 32}
_DATA = ("xmit_data", "rcv_data")

_GUID = re.compile(r"0x[0-9a-fA-F]{16}")
_PQ_HEAD = re.compile(r"^#\s*Port\s+(extended\s+)?counters:\s*Lid\s+(\d+)\s+port\s+(\d+)", re.IGNORECASE)
_PQ_DETAIL = re.compile(r"^#\s*Port\w*\s+counters:\s*Lid\s+(\d+)\s+port\s+(\d+)", re.IGNORECASE)
_PQ_LINE = re.compile(r"^(\w+):\.*\s*(\S+)\s*$")
_PM_HEAD = re.compile(r"^Port=(\d+)\s+Lid=(\w+)\s+GUID=(0x[0-9a-fA-F]+)\s+Device=(\d+)\s+Port Name=(.*)$")
_PM_LINE = re.compile(r"^(\w+)=(\S+)\s*$")
_PROM = re.compile(r'^([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+(-?\d+))?\s*$')
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def canonical(name: str) -> tuple[str | None, bool]:
    """(canonical name or None, whether the spelling is an extended 64-bit counter)."""
    key = name.lower().replace("_", "")
    extended = False
    for suffix in ("extended", "ext"):
        if key.endswith(suffix):
            key, extended = key[: -len(suffix)], True
            break
    return CANONICAL.get(key), extended


def read_counters(path: str | os.PathLike[str]) -> list[PortCounters]:
    """The port counters in ``path`` (``-``: standard input), whatever its format (module docstring)."""
    text, source = read_measurement(path, MAX_COUNTER_BYTES)
    return parse_counters(text, source)


def parse_counters(text: str, source: str) -> list[PortCounters]:
    lines = text.splitlines()
    head = "\n".join(lines[:200])
    if re.search(r"^#\s*Port\s+(extended\s+)?counters:", head, re.IGNORECASE | re.MULTILINE) or \
            re.search(r"^#\s*Port\w*\s+counters:", head, re.IGNORECASE | re.MULTILINE):
        out = _perfquery(lines, source)
    elif re.search(r"^Port=\d+\s+Lid=", head, re.MULTILINE):
        out = _ibdiagnet_pm(lines, source)
    elif "START_PM_INFO" in text:
        out = _db_csv(lines, source)
    elif re.search(r"^(infiniband_|node_infiniband_|DCGM_FI_|#\s*(HELP|TYPE)\s)", head, re.MULTILINE):
        out = _prometheus(lines, source)
    elif not text.strip():
        raise MeasuredFileError(f"{source}: empty: no port counters (a node that returned nothing?)")
    else:
        raise MeasuredFileError(f"{source}: not a counter file this reader knows (perfquery, ibdiagnet2.pm, "
                                "ibdiagnet db_csv, Prometheus text from infiniband_exporter, node_exporter or "
                                "dcgm-exporter)")
    if not out:
        raise MeasuredFileError(f"{source}: no port counters found")
    return out


def _number(text: str, where: str) -> float | None:
    t = text.strip()
    if t.upper() in ("NA", "N/A", ""):
        return None
    try:
        return float(int(t, 16)) if t.lower().startswith("0x") else float(t)
    except ValueError:
        raise MeasuredFileError(f"{where}: counter value {text!r} is not a number") from None


def _store(values: dict, widths: dict, name: str, value: float | None, extended: bool, default_bits: int | None,
           data_in_words: bool) -> None:
    key, ext = canonical(name)
    if key is None or value is None:
        return
    ext = ext or extended
    if key in values and not ext and widths.get(key) == 64:
        return  # the extended counter of a pair wins
    values[key] = value * DATA_WORD_BYTES if (key in _DATA and data_in_words) else value
    widths[key] = 64 if ext else (default_bits or PORT_COUNTER_BITS.get(key, 64))


def _perfquery(lines: list[str], source: str) -> list[PortCounters]:
    m = _GUID.search(Path(source).name)
    node_guid = m.group(0).lower() if m else None
    out: list[PortCounters] = []
    cur: PortCounters | None = None
    extended = False
    for n, line in enumerate(lines, start=1):
        h = _PQ_HEAD.match(line) or _PQ_DETAIL.match(line)
        if h:
            lid, port = (h.group(2), h.group(3)) if h.re is _PQ_HEAD else (h.group(1), h.group(2))
            extended = h.re is _PQ_HEAD and bool(h.group(1))
            cur = PortCounters(source, n, node_guid or f"lid:{lid}", int(port))
            out.append(cur)
            continue
        kv = _PQ_LINE.match(line.strip())
        if kv and cur is not None:
            _store(cur.values, cur.widths, kv.group(1), _number(kv.group(2), f"{source}: line {n}"), extended,
                   None, True)
    return _merge(out)


def _merge(items: list[PortCounters]) -> list[PortCounters]:
    """One record per (node, port): blocks of one port (counters, then error details) merged."""
    by: dict[tuple[str, int | None], PortCounters] = {}
    for c in items:
        have = by.get((c.node, c.port))
        if have is None:
            by[(c.node, c.port)] = c
        else:
            for k, v in c.values.items():
                if k not in have.values or c.widths.get(k, 0) >= have.widths.get(k, 0):
                    have.values[k] = v
                    have.widths[k] = c.widths.get(k, 64)
    return list(by.values())


def _ibdiagnet_pm(lines: list[str], source: str) -> list[PortCounters]:
    out: list[PortCounters] = []
    cur: PortCounters | None = None
    for n, line in enumerate(lines, start=1):
        h = _PM_HEAD.match(line.strip())
        if h:
            guid = "0x" + h.group(3)[2:].lower().zfill(16)
            cur = PortCounters(source, n, guid, int(h.group(1)), node_name=h.group(5).strip())
            out.append(cur)
            continue
        kv = _PM_LINE.match(line.strip())
        if kv and cur is not None:
            _store(cur.values, cur.widths, kv.group(1), _number(kv.group(2), f"{source}: line {n}"), False, None,
                   True)
    return _merge(out)


def _db_csv(lines: list[str], source: str) -> list[PortCounters]:
    out: list[PortCounters] = []
    start = next(i for i, x in enumerate(lines) if x.strip().startswith("START_PM_INFO"))
    if start + 1 >= len(lines):
        raise MeasuredFileError(f"{source}: line {start + 1}: START_PM_INFO without a header row")
    header = [h.strip() for h in lines[start + 1].split(",")]
    cols = {h.lower(): i for i, h in enumerate(header)}
    gi, pi = cols.get("nodeguid", cols.get("portguid")), cols.get("portnumber", cols.get("portnum"))
    if gi is None or pi is None:
        raise MeasuredFileError(f"{source}: line {start + 2}: the PM_INFO table has no NodeGUID and PortNumber columns")
    for n in range(start + 2, len(lines)):
        line = lines[n].strip()
        if line.startswith("END_PM_INFO"):
            break
        if not line:
            continue
        cells = line.split(",")
        where = f"{source}: line {n + 1}"
        if len(cells) != len(header):
            raise MeasuredFileError(f"{where}: {len(cells)} fields where the PM_INFO header has {len(header)}")
        port = _number(cells[pi], where)
        guid = cells[gi].strip().lower()
        c = PortCounters(source, n + 1, "0x" + guid[2:].zfill(16) if guid.startswith("0x") else guid,
                         int(port) if port is not None else None)
        for i, name in enumerate(header):
            if i not in (gi, pi):
                _store(c.values, c.widths, name, _number(cells[i], where), False, None, True)
        out.append(c)
    else:
        raise MeasuredFileError(f"{source}: the PM_INFO table has no END_PM_INFO line: the file is cut short")
    return _merge(out)


_IBX = re.compile(r"^infiniband_(switch|hca)_port_(\w+?)(?:_total)?$")
#: infiniband_exporter metric (after ``infiniband_{switch,hca}_port_``) -> canonical counter.
_IBX_NAMES = {"transmit_data_bytes": "xmit_data", "receive_data_bytes": "rcv_data",
              "transmit_packets": "xmit_pkts", "receive_packets": "rcv_pkts", "transmit_wait": "xmit_wait",
              "symbol_error": "symbol_errors", "link_downed": "link_downed",
              "link_error_recovery": "link_error_recovery", "receive_errors": "rcv_errors",
              "receive_remote_physical_errors": "rcv_remote_physical_errors",
              "transmit_discards": "xmit_discards", "local_link_integrity_errors": "local_link_integrity_errors",
              "excessive_buffer_overrun_errors": "excessive_buffer_overrun_errors"}
#: node_exporter's infiniband collector (data already in bytes), by host and RDMA device.
_NODE = {"node_infiniband_port_data_transmitted_bytes_total": "xmit_data",
         "node_infiniband_port_data_received_bytes_total": "rcv_data",
         "node_infiniband_link_downed_total": "link_downed",
         "node_infiniband_link_error_recovery_total": "link_error_recovery",
         "node_infiniband_port_transmit_wait_total": "xmit_wait",
         "node_infiniband_rate_bytes_per_second": "rate_bytes_per_s"}
#: dcgm-exporter fields: NVLink and PCIe rates (gauges, bytes/s, DCGM_FI_PROF_*) and NVLink error counters.
_DCGM = {"DCGM_FI_PROF_NVLINK_TX_BYTES": "nvlink_xmit_rate", "DCGM_FI_PROF_NVLINK_RX_BYTES": "nvlink_rcv_rate",
         "DCGM_FI_PROF_PCIE_TX_BYTES": "pcie_xmit_rate", "DCGM_FI_PROF_PCIE_RX_BYTES": "pcie_rcv_rate",
         "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL": "nvlink_crc_errors",
         "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL": "nvlink_crc_errors",
         "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL": "nvlink_replays",
         "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL": "nvlink_recoveries"}


def _prometheus(lines: list[str], source: str) -> list[PortCounters]:
    """infiniband_exporter, node_exporter and dcgm-exporter samples, one record per (node, port)."""
    by: dict[tuple[str, int | None], PortCounters] = {}
    names: dict[str, str] = {}
    for n, line in enumerate(lines, start=1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        m = _PROM.match(s)
        if not m:
            raise MeasuredFileError(f"{source}: line {n}: not a Prometheus sample line")
        metric, labels = m.group(1), dict(_LABEL.findall(m.group(2) or ""))
        where = f"{source}: line {n}"
        value = _number(m.group(3), where)
        t = int(m.group(4)) / 1000.0 if m.group(4) else None
        info = re.match(r"^infiniband_(switch|hca)_info$", metric)
        if info and "guid" in labels:
            names[labels["guid"].lower()] = labels.get(info.group(1), "")
            continue
        ib = _IBX.match(metric)
        if ib and "guid" in labels and "port" in labels:
            key = _IBX_NAMES.get(ib.group(2))
            if key is None:
                continue
            node, port = labels["guid"].lower(), int(labels["port"])
            c = by.setdefault((node, port), PortCounters(source, n, node, port))
            c.values[key] = value if value is not None else 0.0
            c.widths[key] = 64
        elif metric == "infiniband_hca_rate_bytes_per_second" and "guid" in labels:
            node = labels["guid"].lower()
            port = int(labels.get("port", 1))
            c = by.setdefault((node, port), PortCounters(source, n, node, port))
            c.values["rate_bytes_per_s"] = value or 0.0
        elif metric in _NODE and "device" in labels:
            host = labels.get("hostname") or labels.get("Hostname") or labels.get("instance", "").rsplit(":", 1)[0]
            node = f"nic:{host}:{labels['device']}"
            port = int(labels.get("port", 1))
            c = by.setdefault((node, port), PortCounters(source, n, node, port, node_name=host))
            c.values[_NODE[metric]] = value or 0.0
            c.widths[_NODE[metric]] = 64
        elif metric in _DCGM and "gpu" in labels:
            host = labels.get("Hostname") or labels.get("hostname") or ""
            node = f"gpu:{host}:{labels['gpu']}"
            c = by.setdefault((node, None), PortCounters(source, n, node, None, node_name=host))
            key = _DCGM[metric]
            c.values[key] = c.values.get(key, 0.0) + (value or 0.0)
            c.widths[key] = 64
        else:
            continue
        if t is not None and (c.time_s is None or t > c.time_s):
            c.time_s = t
    out = list(by.values())
    for c in out:
        if not c.node_name and c.node in names:
            c.node_name = names[c.node]
    return out
