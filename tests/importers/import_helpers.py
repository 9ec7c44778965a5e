"""Shared by the importer tests: the real files in tests/data/importers and small builders."""

from __future__ import annotations

from pathlib import Path

from designer.io.importers import ImportOptions, import_bytes, read_name_map

DATA = Path(__file__).resolve().parents[1] / "data" / "importers"
X5_DUMP = DATA / "psmn-X5.ibnetdiscover.topofile"
X5_MAP = DATA / "psmn-X5.guid-hostname.map"
X5_SPINE = DATA / "psmn-X5.spine"
X5_SLURM = DATA / "psmn-X5.topology.conf"


def x5_options(**kw) -> ImportOptions:
    return ImportOptions(name_map=read_name_map(X5_MAP), **kw)


def imp(text: str | bytes, name: str = "t.txt", **kw):
    raw = text.encode() if isinstance(text, str) else text
    return import_bytes(raw, name, ImportOptions(**kw))


def switch_pairs(design) -> set[frozenset]:
    """Switch-to-switch adjacency by switch id (parallel cables counted once)."""
    kinds = {d.id: d.kind for d in design.iter_devices()}
    return {frozenset((lk.a_device, lk.b_device)) for lk in design.iter_links()
            if kinds[lk.a_device] == kinds[lk.b_device] == "switch"}


def tiers(design) -> dict[str, str]:
    return {d.id: d.tier for d in design.iter_devices() if d.kind == "switch"}


def superpod_dump(sus: int = 2, hosts_per_su: int = 4, rails: int = 8, spines: int = 4, speed: str = "HDR",
                  style: str = "hca", ufm: bool = True, sharp: bool = True, quantum2: bool = False) -> str:
    """A DGX SuperPOD-style ibnetdiscover dump: ``sus`` scalable units of ``hosts_per_su`` hosts with
    ``rails`` adapters each (rail r of every host of an SU on that SU's leaf r), every leaf cabled
    to every spine, a UFM host with two adapters on the first two spines, a SHARP aggregation node
    in every switch. ``style``: adapter descriptions ``dgx001 HCA-1`` (``hca``), ``dgx001 mlx5_0``
    (``mlx5``) or the bare host name (``bare``). ``quantum2``: port labels ``[1](1/1/1)``."""
    ports = 64 if quantum2 else 40
    switches: dict[str, list[str]] = {}
    cas: dict[str, tuple[str, list[str]]] = {}
    guid = iter(range(0x1000, 0x100000))

    def sw_guid() -> str:
        return f"S-0c42a103{next(guid):08x}"

    def ca_guid() -> str:
        return f"H-b83fd203{next(guid):08x}"

    leaves = {(su, r): sw_guid() for su in range(sus) for r in range(rails)}
    spine_ids = [sw_guid() for _ in range(spines)]
    desc = {g: f"MF0;leaf-su{su + 1}-r{r + 1}:MQM8700/U1" for (su, r), g in leaves.items()}
    desc.update({g: f"MF0;spine{i + 1}:MQM8700/U1" for i, g in enumerate(spine_ids)})
    used = {g: 0 for g in list(leaves.values()) + spine_ids}
    rate = f"4x{speed}"

    def label(port: int) -> str:
        return f"({(port - 1) // 2 + 1}/{(port - 1) % 2 + 1}/1)" if quantum2 else ""

    def cable(a: str, b: str, a_is_ca: bool = False) -> None:
        used[b] += 1
        pb = used[b]
        if a_is_ca:
            cas[a][1].append(f'[1](b83f0000)\t"{b}"[{pb}]{label(pb)}\t\t# lid 1 lmc 0 "{desc[b]}" lid 2 {rate}')
            switches.setdefault(b, []).append(f'[{pb}]{label(pb)}\t"{a}"[1](b83f0000)\t\t# "{cas[a][0]}" lid 3 {rate}')
            return
        used[a] += 1
        pa = used[a]
        switches.setdefault(a, []).append(f'[{pa}]{label(pa)}\t"{b}"[{pb}]{label(pb)}\t\t# "{desc[b]}" lid 4 {rate}')
        switches.setdefault(b, []).append(f'[{pb}]{label(pb)}\t"{a}"[{pa}]{label(pa)}\t\t# "{desc[a]}" lid 5 {rate}')

    n = 0
    for su in range(sus):
        for _h in range(hosts_per_su):
            n += 1
            for r in range(rails):
                g = ca_guid()
                d = {"hca": f"dgx{n:03d} HCA-{r + 1}", "mlx5": f"dgx{n:03d} mlx5_{r}", "bare": f"dgx{n:03d}"}[style]
                cas[g] = (d, [])
                cable(g, leaves[(su, r)], a_is_ca=True)
    for leaf in leaves.values():
        for sp in spine_ids:
            cable(leaf, sp)
    if ufm:
        for i in range(2):
            g = ca_guid()
            cas[g] = (f"ufm01 HCA-{i + 1}", [])
            cable(g, spine_ids[i], a_is_ca=True)
    if sharp:
        for s in list(leaves.values()) + spine_ids:
            g = ca_guid()
            cas[g] = ("Mellanox Technologies Aggregation Node", [])
            cable(g, s, a_is_ca=True)
    out = ["#", "# Topology file: generated for a test", "#"]
    for s in list(leaves.values()) + spine_ids:
        out += ["", "vendid=0x2c9", "devid=0xd2f0", f"sysimgguid=0x{s[2:]}", f"switchguid=0x{s[2:]}(0x{s[2:]})",
                f'Switch\t{ports} "{s}"\t\t# "{desc[s]}" enhanced port 0 lid 7 lmc 0', *switches[s]]
    for g, (d, lines) in cas.items():
        out += ["", "vendid=0x2c9", "devid=0x101b", f"sysimgguid=0x{g[2:]}", f"caguid=0x{g[2:]}",
                f'Ca\t1 "{g}"\t\t# "{d}"', *lines]
    return "\n".join(out) + "\n"
