"""Slurm ``topology.conf`` (topology/tree): a switch hierarchy with host lists, and no speeds.

A file for the topology/block plugin (``BlockName=``) is read by :mod:`designer.io.importers.slurm_block`.

``SwitchName=s1 Nodes=node[1-5,7] Switches=s[2-3]`` per line; ``#`` comments; keys are case
insensitive. Hostlists expand as Slurm does (``tux[000-015]`` keeps its zero padding, several
bracket groups multiply). Every link runs at the default rate the user gives (``--default-rate``;
otherwise 100 Gb/s, reported). ``LinkSpeed`` is in Slurm's arbitrary units: read, not used as a
rate. A host listed under two switches is a contradiction in a tree: the first switch keeps it.
A switch pair listed from both sides is one cable.
"""

from __future__ import annotations

import re

from designer.io.importers.base import MAX_IMPORT_NODES, ImportFileError, ImportOptions, ImportReport
from designer.io.importers.fabric import Fabric
from designer.io.importers.slurm_block import read_blocks
from designer.model import Design

NAME = "slurm"
TITLE = "Slurm topology.conf"
DEFAULT_RATE_GBPS = 100.0
#: The most names the hostlists of one file may expand to, counted before any is expanded (a typo
#: like node[1-999999999] is refused at once).
MAX_HOSTLIST = MAX_IMPORT_NODES

_PAIR = re.compile(r"(\w+)\s*=\s*(\S+)")


def sniff(text: str) -> int:
    head = text[:100_000]
    if re.search(r"^\s*(?:SwitchName|BlockName)\s*=", head, re.MULTILINE | re.IGNORECASE):
        return 90
    return 0


def expand_hostlist(text: str, limit: int = MAX_HOSTLIST) -> list[str]:
    """Slurm hostlist expression -> names.

    >>> expand_hostlist("node[1-3,7],gpu[01-02]x[1-2],login")
    ['node1', 'node2', 'node3', 'node7', 'gpu01x1', 'gpu01x2', 'gpu02x1', 'gpu02x2', 'login']
    """
    total = hostlist_size(text)
    if total > limit:
        raise ValueError(f"'{text[:40]}' expands to {total:,} names; an import holds at most {limit:,}")
    out: list[str] = []
    for part in _split_top(text):
        names = [""]
        for literal, bracket in _pieces(part):
            choices = _range_items(bracket, part) if bracket else [""]
            names = [n + literal + c for n in names for c in choices]
        out.extend(n for n in names if n)
    return out


class _Budget:
    """The names a whole file's hostlists may still expand to (:data:`MAX_HOSTLIST` in all)."""

    def __init__(self) -> None:
        self.left = MAX_HOSTLIST

    def expand(self, text: str) -> list[str]:
        n = hostlist_size(text)
        if n > self.left:
            raise ValueError(f"'{text[:40]}' expands to {n:,} names, which takes the file's hostlists past "
                             f"{MAX_HOSTLIST:,} names, the most an import holds")
        self.left -= n
        return expand_hostlist(text)


def _pieces(part: str) -> list[tuple[str, str]]:
    if part.count("[") != part.count("]"):
        raise ValueError(f"unbalanced brackets in '{part[:40]}'")
    return [(lit, br) for lit, br in re.findall(r"([^\[\]]*)(?:\[([^\[\]]*)\])?", part) if lit or br]


def hostlist_size(text: str) -> int:
    """How many names a hostlist expression expands to, counted without expanding it.

    >>> hostlist_size("node[1-3,7],gpu[01-02]x[1-2],login"), hostlist_size("node[0-999999999]")
    (9, 1000000000)
    """
    total = 0
    for part in _split_top(text):
        n = 1
        for _, bracket in _pieces(part):
            if bracket:
                n *= sum(hi - lo + 1 for lo, hi, _ in _ranges(bracket, part))
        total += n
    return total


def _ranges(spec: str, part: str) -> list[tuple[int, int, int]]:
    """The ranges of a bracket: (low, high, zero-padded width)."""
    out = []
    for piece in spec.split(","):
        piece = piece.strip()
        m = re.fullmatch(r"(\d{1,18})(?:-(\d{1,18}))?", piece)
        if not m:
            raise ValueError(f"'{piece}' in '{part[:40]}' is not a number or a range")
        lo, hi = m.group(1), m.group(2) or m.group(1)
        if int(hi) < int(lo):
            raise ValueError(f"range '{piece}' in '{part[:40]}' runs backwards")
        out.append((int(lo), int(hi), len(lo) if lo.startswith("0") and len(lo) > 1 else 0))
    return out


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def _range_items(spec: str, part: str) -> list[str]:
    return [str(i).zfill(width) for lo, hi, width in _ranges(spec, part) for i in range(lo, hi + 1)]


def _read_block_file(lines: list[str], options: ImportOptions, report: ImportReport) -> Design:
    """A topology/block file (``BlockName=``, ``BlockSizes=``): see :mod:`designer.io.importers.slurm_block`."""
    src = report.source
    budget = _Budget()
    entries: list[tuple[int, str, list[str]]] = []
    sizes: list[int] = []
    for n, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        pairs = {k.lower(): v for k, v in _PAIR.findall(line)}
        if "switchname" in pairs:
            raise ImportFileError(f"{src}: line {n}: SwitchName in a topology/block file: a file is for one plugin "
                                  "(tree or block)")
        if "blocksizes" in pairs:
            try:
                sizes = [int(t) for t in pairs["blocksizes"].split(",") if t.strip()]
            except ValueError:
                raise ImportFileError(f"{src}: line {n}: BlockSizes={pairs['blocksizes']!r}: not a list of "
                                      "numbers") from None
            continue
        if "blockname" not in pairs:
            report.skip(f"{line[:60]!r}", "not a BlockName line: ignored", n, "unreadable")
            continue
        try:
            names = budget.expand(pairs["blockname"])
            nodes = budget.expand(pairs.get("nodes", ""))
        except ValueError as e:
            raise ImportFileError(f"{src}: line {n}: {e}") from None
        if len(names) != 1:
            raise ImportFileError(f"{src}: line {n}: BlockName names {len(names)} blocks; it names one")
        entries.append((n, names[0], nodes))
    if not entries:
        raise ImportFileError(f"{src}: no BlockName line: not a Slurm topology/block file")
    return read_blocks(entries, sizes, options, report)


def read(text: str, options: ImportOptions, report: ImportReport) -> Design:
    src = report.source
    fabric = Fabric(report)
    lines = text.split("\n")
    budget = _Budget()
    entries: list[tuple[int, str, list[str], list[str]]] = []
    seen_switch: dict[str, int] = {}
    for n, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        pairs = {k.lower(): v for k, v in _PAIR.findall(line)}
        if "blockname" in pairs or "blocksizes" in pairs:
            return _read_block_file(lines, options, report)
        if "switchname" not in pairs:
            what = "before the first SwitchName line" if not entries else "not a SwitchName line"
            report.skip(f"{line[:60]!r}", f"{what}: ignored", n, "junk" if not entries else "unreadable")
            continue
        unknown = sorted(set(pairs) - {"switchname", "nodes", "switches", "linkspeed"})
        if unknown:
            report.skip(", ".join(unknown), "not a topology/tree key: ignored", n, "unknown key")
        if "linkspeed" in pairs:
            report.skip(f"LinkSpeed={pairs['linkspeed']}", "Slurm's own units, not a rate: the default rate is used",
                        n, "linkspeed")
        try:
            names = budget.expand(pairs["switchname"])
            hosts = budget.expand(pairs.get("nodes", ""))
            children = budget.expand(pairs.get("switches", ""))
        except ValueError as e:
            raise ImportFileError(f"{src}: line {n}: {e}") from None
        if len(names) != 1:
            raise ImportFileError(f"{src}: line {n}: SwitchName names {len(names)} switches; it names one")
        name = names[0]
        if name in seen_switch:
            report.skip(f"SwitchName={name}", f"defined again (first on line {seen_switch[name]}): its lists are "
                        "merged", n, "contradiction")
        seen_switch.setdefault(name, n)
        entries.append((n, name, hosts, children))
    if not entries:
        raise ImportFileError(f"{src}: no SwitchName line: not a Slurm topology.conf")
    for n, name, _, _ in entries:
        fabric.add_node(name, "switch", n, properties={"slurm_switch": name})
    parent_of: dict[str, tuple[str, int]] = {}
    pairs_seen: dict[frozenset, int] = {}
    for n, name, hosts, children in entries:
        for child in children:
            if child == name:
                report.skip(f"Switches={child}", "a switch listed under itself", n, "contradiction")
                continue
            if child not in seen_switch:
                fabric.add_node(child, "switch", n, properties={"slurm_switch": child})
                report.guess(child, "listed under a switch but never defined: read as a switch with no hosts", n,
                             "undeclared switch")
            key = frozenset((name, child))
            if key in pairs_seen:
                report.skip(f"{name} - {child}", f"already listed on line {pairs_seen[key]}: one cable", n,
                            "duplicate")
                continue
            pairs_seen[key] = n
            fabric.add_edge(child, None, name, None, options.default_rate_gbps, n)
        for host in hosts:
            if host in seen_switch:
                report.skip(f"Nodes={host}", f"a switch (line {seen_switch[host]}) listed as a node", n,
                            "contradiction")
                continue
            if host in parent_of:
                first, line0 = parent_of[host]
                report.skip(f"node {host} under {name}", f"already under {first} (line {line0}); a tree gives a "
                            "node one switch: kept there", n, "contradiction")
                continue
            parent_of[host] = (name, n)
            fabric.add_node(host, "adapter", n, ports=1, name=host, host=host, id_hint=host)
            fabric.add_edge(host, None, name, None, options.default_rate_gbps, n)
    if options.default_rate_gbps:
        rate, why = options.default_rate_gbps, "the default rate given"
    else:
        rate, why = DEFAULT_RATE_GBPS, "topology.conf has no speeds; --default-rate sets them"
    base = re.split(r"[\\/]", src)[-1]
    design = fabric.build(f"Slurm topology ({base})", options, default_rate_gbps=rate,
                          rate_reason=why)
    design.description = f"Imported from {src} (Slurm topology.conf)"
    return design
