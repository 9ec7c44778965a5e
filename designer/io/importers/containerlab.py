"""containerlab topologies (``*.clab.yml``): nodes with a kind, links between ``node:interface`` ends.

Nodes of a host kind (``linux``, ``host``, ``generic_vm``, ``bridge`` excepted) are host adapters
with GPUs behind them; every other kind (``nokia_srlinux``, ``ceos``, ``crpd``, ``sonic-vs``...) is a
switch, its kind and ``type`` kept in its properties. Links are ``endpoints: ["a:e1-1", "b:e1-1"]``
or the newer ``endpoints: [{node: a, interface: e1-1}, ...]``; the interface names are kept on the
link. containerlab gives no speeds: every link runs at the default rate. Special ends (``host:``,
``mgmt-net:``, ``macvlan:``) are not cables of the fabric and are skipped.
"""

from __future__ import annotations

import re

from designer.io.importers.base import ImportFileError, ImportOptions, ImportReport
from designer.io.importers.fabric import Fabric
from designer.io.importers.yamlfile import load_yaml
from designer.model import Design

NAME = "containerlab"
TITLE = "containerlab topology"
DEFAULT_RATE_GBPS = 100.0
HOST_KINDS = ("linux", "host", "generic_vm", "k8s-kind", "ext-container")
SPECIAL_ENDS = ("host", "mgmt-net", "macvlan", "bridge", "ovs-bridge")


def sniff(text: str) -> int:
    head = text[:50_000]
    if re.search(r"^topology\s*:\s*$", head, re.MULTILINE) and re.search(r"^\s+nodes\s*:", head, re.MULTILINE) \
            and (re.search(r"endpoints\s*:", head) or re.search(r"^name\s*:", head, re.MULTILINE)):
        return 85
    return 0


def _end(item: object) -> tuple[str, str] | None:
    if isinstance(item, str) and ":" in item:
        node, _, iface = item.partition(":")
        return node.strip(), iface.strip()
    if isinstance(item, dict) and isinstance(item.get("node"), str):
        return item["node"], str(item.get("interface", ""))
    return None


def read(text: str, options: ImportOptions, report: ImportReport) -> Design:
    src = report.source
    doc = load_yaml(text, src)
    if not isinstance(doc.value, dict):
        raise ImportFileError(f"{src}: line {doc.line}: not a containerlab topology (a mapping with 'topology')")
    topo = doc.child("topology")
    if topo is None or not isinstance(topo.value, dict):
        raise ImportFileError(f"{src}: no 'topology' mapping: not a containerlab topology")
    nodes = topo.child("nodes")
    if nodes is None or not isinstance(nodes.value, dict) or not nodes.value:
        raise ImportFileError(f"{src}: line {topo.line}: the topology has no nodes")
    defaults = topo.value.get("defaults") if isinstance(topo.value.get("defaults"), dict) else {}
    fabric = Fabric(report)
    kinds: dict[str, str] = {}
    for (name, spec), located in zip(nodes.value.items(), nodes.items(), strict=False):
        name = str(name)
        spec = spec if isinstance(spec, dict) else {}
        kind = str(spec.get("kind") or defaults.get("kind") or "")
        if not kind:
            report.guess(name, "no kind: read as a switch", located.line, "kind")
        kinds[name] = kind
        props = {"clab_kind": kind, **({"clab_type": str(spec["type"])} if spec.get("type") else {})}
        if kind in HOST_KINDS:
            fabric.add_node(name, "adapter", located.line, name=name, host=name, id_hint=name, properties=props)
        else:
            fabric.add_node(name, "switch", located.line, name="", id_hint=name, properties=props)
    links = topo.child("links")
    items = links.items() if links is not None else []
    if links is not None and not isinstance(links.value, list):
        raise ImportFileError(f"{src}: line {links.line}: 'links' is not a list")
    seen_ifaces: dict[tuple[str, str], int] = {}
    for item in items:
        spec = item.value if isinstance(item.value, dict) else {}
        ends = [_end(e) for e in spec.get("endpoints", [])] if isinstance(spec.get("endpoints"), list) else []
        if len(ends) != 2 or None in ends:
            report.skip(f"link {spec.get('endpoints', item.value)!r}"[:80], "not two 'node:interface' ends",
                        item.line, "unreadable")
            continue
        (a, ai), (b, bi) = ends  # type: ignore[misc]
        special = [n for n in (a, b) if n in SPECIAL_ENDS and n not in kinds]
        if special:
            report.skip(f"link {a}:{ai} - {b}:{bi}", f"'{special[0]}' is a special end, not a node of the fabric",
                        item.line, "special end")
            continue
        missing = [n for n in (a, b) if n not in kinds]
        if missing:
            report.skip(f"link {a}:{ai} - {b}:{bi}", f"node {missing[0]!r} is not in the topology's nodes",
                        item.line, "contradiction")
            continue
        clash = [(n, i) for n, i in ((a, ai), (b, bi)) if (n, i) in seen_ifaces]
        if clash:
            n, i = clash[0]
            report.skip(f"link {a}:{ai} - {b}:{bi}", f"interface {n}:{i} is already cabled (line "
                        f"{seen_ifaces[(n, i)]})", item.line, "contradiction")
            continue
        seen_ifaces[(a, ai)] = seen_ifaces[(b, bi)] = item.line
        fabric.add_edge(a, None, b, None, options.default_rate_gbps, item.line, a_interface=ai, b_interface=bi)
    if options.default_rate_gbps:
        rate, why = options.default_rate_gbps, "the default rate given"
    else:
        rate, why = DEFAULT_RATE_GBPS, "containerlab gives no speeds; --default-rate sets them"
    name = str(doc.value.get("name") or "containerlab topology")
    design = fabric.build(f"{name} (containerlab)", options, default_rate_gbps=rate, rate_reason=why)
    design.description = f"Imported from {src} (containerlab topology)"
    return design
