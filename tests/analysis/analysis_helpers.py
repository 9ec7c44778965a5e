"""Small designs for the analyzer tests, built from Device/Link/PortGroup (no catalog needed)."""

from __future__ import annotations

import itertools

import numpy as np

from designer.model import Design, Device, Group, Link, PortGroup


def _net(n: int, gbps: float) -> tuple[PortGroup, ...]:
    return (PortGroup("p", n, gbps),)


def host_design(name: str = "hosts") -> tuple[Design, list, list, list]:
    return Design(name), [], [], []


def add_server(groups, devices, links, prefix, gpus=8, *, nvl_gbps=3600.0, pcie_gbps=512.0, nic_gbps=400.0,
               nvls=True, nics=True, props=None):
    """An HGX-style server: GPUs on one nvswitch device, one NIC per GPU. Returns its NIC ids."""
    props = dict(props or {})
    groups.append(Group(prefix, "server"))
    sw = f"{prefix}-nvsw"
    devices.append(Device(sw, "nvswitch", (PortGroup("nvl", max(gpus, 1), nvl_gbps, "nvlink"),), group=prefix,
                          properties={"nvls": nvls, "latency_ns": 250}))
    out = []
    for i in range(1, gpus + 1):
        g = f"{prefix}-gpu{i}"
        ports = (PortGroup("nvl", 1, nvl_gbps, "nvlink"), PortGroup("pcie", 1, pcie_gbps, "pcie"))
        devices.append(Device(g, "gpu", ports, group=prefix, properties={**props, "rail": i}))
        links.append(Link(f"{g}--{sw}", g, "nvl1", sw, f"nvl{i}", medium="nvlink", length_m=0.1))
        if nics:
            nic = f"{prefix}-nic{i}"
            devices.append(Device(nic, "nic", (PortGroup("p", 1, nic_gbps), PortGroup("pcie", 1, pcie_gbps, "pcie")),
                                  group=prefix, properties={**props, "rail": i}))
            links.append(Link(f"{g}--{nic}", g, "pcie1", nic, "pcie1", medium="pcie", length_m=0.1))
            out.append(nic)
    return out


def single_server(gpus=8, **kw) -> Design:
    d, groups, devices, links = host_design("server")
    add_server(groups, devices, links, "node1", gpus, **kw)
    d.extend(groups, devices, links)
    return d


def rail_cluster(nodes: int, gpus: int = 8, *, nic_gbps=400.0, protocol="infiniband", nvl_gbps=3600.0,
                 pcie_gbps=512.0, nvls=True, spines: int = 0, uplinks_per_leaf: int = 0, sharp=True,
                 switch_ports: int = 128) -> Design:
    """``nodes`` servers; NIC i of every server on leaf ``rail-i``; optional spine layer."""
    d, groups, devices, links = host_design("rails")
    for r in range(1, gpus + 1):
        devices.append(Device(f"leaf{r}", "switch", _net(switch_ports, nic_gbps), tier="leaf",
                              properties={"protocol": protocol, "sharp": sharp, "latency_ns": 150}))
    port = {f"leaf{r}": 0 for r in range(1, gpus + 1)}
    for s in range(1, nodes + 1):
        nics = add_server(groups, devices, links, f"node{s}", gpus, nvl_gbps=nvl_gbps, pcie_gbps=pcie_gbps,
                          nic_gbps=nic_gbps, nvls=nvls)
        for r, nic in enumerate(nics, 1):
            leaf = f"leaf{r}"
            port[leaf] += 1
            links.append(Link(f"{nic}--{leaf}", nic, "p1", leaf, f"p{port[leaf]}", length_m=3.0))
    for sp_i in range(1, spines + 1):
        devices.append(Device(f"spine{sp_i}", "switch", _net(switch_ports, nic_gbps), tier="spine",
                              properties={"protocol": protocol, "sharp": sharp, "latency_ns": 150}))
    sp_port = {i: 0 for i in range(1, spines + 1)}
    for r in range(1, gpus + 1):
        for u in range(uplinks_per_leaf):
            spn = u % spines + 1
            leaf = f"leaf{r}"
            port[leaf] += 1
            sp_port[spn] += 1
            links.append(Link(f"leaf{r}-up{u}", leaf, f"p{port[leaf]}", f"spine{spn}", f"p{sp_port[spn]}",
                              length_m=20.0))
    d.extend(groups, devices, links)
    return d


def leaf_spine_hosts(leaves: int, hosts: int, uplinks: int, spines: int, gbps: float = 400.0) -> Design:
    """Hosts (GPUs with one network port) on leaves; each leaf has ``uplinks`` links spread over spines."""
    d, groups, devices, links = host_design("leaf-spine")
    for s in range(spines):
        devices.append(Device(f"spine{s}", "switch", _net(leaves * uplinks, gbps), tier="spine"))
    sp_port = [0] * spines
    for lf in range(leaves):
        devices.append(Device(f"leaf{lf}", "switch", _net(hosts + uplinks, gbps), tier="leaf"))
        for h in range(hosts):
            g = f"h{lf}-{h}"
            devices.append(Device(g, "gpu", _net(1, gbps)))
            links.append(Link(f"{g}--leaf{lf}", g, "p1", f"leaf{lf}", f"p{h + 1}"))
        for u in range(uplinks):
            s = u % spines
            sp_port[s] += 1
            links.append(Link(f"leaf{lf}-u{u}", f"leaf{lf}", f"p{hosts + u + 1}", f"spine{s}", f"p{sp_port[s]}"))
    d.extend(groups, devices, links)
    return d


def fat_tree_hosts(k: int, gbps: float = 400.0) -> Design:
    """Al-Fares k-ary fat-tree with hosts as single-port GPUs."""
    d, groups, devices, links = host_design("fat-tree")
    h = k // 2
    cport = {}
    for c in range(h * h):
        devices.append(Device(f"core{c}", "switch", _net(k, gbps), tier="core"))
        cport[c] = 0
    for p in range(k):
        for e in range(h):
            devices.append(Device(f"e{p}-{e}", "switch", _net(k, gbps), tier="edge"))
            devices.append(Device(f"a{p}-{e}", "switch", _net(k, gbps), tier="aggregation"))
        for e in range(h):
            for x in range(h):
                g = f"h{p}-{e}-{x}"
                devices.append(Device(g, "gpu", _net(1, gbps)))
                links.append(Link(f"{g}--e", g, "p1", f"e{p}-{e}", f"p{x + 1}"))
            for a in range(h):
                links.append(Link(f"e{p}-{e}--a{p}-{a}", f"e{p}-{e}", f"p{h + a + 1}", f"a{p}-{a}", f"p{e + 1}"))
        for a in range(h):
            for j in range(h):
                c = a * h + j
                cport[c] += 1
                links.append(Link(f"a{p}-{a}--core{c}", f"a{p}-{a}", f"p{h + j + 1}", f"core{c}", f"p{cport[c]}"))
    d.extend(groups, devices, links)
    return d


def torus_gpus(dims: tuple[int, ...], gbps: float = 400.0) -> Design:
    """k-ary n-cube: GPUs with 2n network ports linked directly (wraparound)."""
    d, groups, devices, links = host_design("torus")
    n = len(dims)
    nodes = list(itertools.product(*(range(k) for k in dims)))
    name = {c: "g" + "_".join(map(str, c)) for c in nodes}
    for c in nodes:
        devices.append(Device(name[c], "gpu", _net(2 * n, gbps)))
    for c in nodes:
        for axis in range(n):
            if dims[axis] < 3 and c[axis] == dims[axis] - 1:
                continue  # k = 2: one link per pair
            nb = list(c)
            nb[axis] = (c[axis] + 1) % dims[axis]
            nb = tuple(nb)
            links.append(Link(f"{name[c]}-x{axis}", name[c], f"p{2 * axis + 1}", name[nb], f"p{2 * axis + 2}"))
    d.extend(groups, devices, links)
    return d


def hypercube_gpus(dim: int, gbps: float = 400.0) -> Design:
    d, groups, devices, links = host_design("hypercube")
    for v in range(2**dim):
        devices.append(Device(f"g{v}", "gpu", _net(dim, gbps)))
    for v in range(2**dim):
        for i in range(dim):
            w = v ^ (1 << i)
            if v < w:
                links.append(Link(f"g{v}-g{w}", f"g{v}", f"p{i + 1}", f"g{w}", f"p{i + 1}"))
    d.extend(groups, devices, links)
    return d


def two_node_design() -> Design:
    """Two servers of two GPUs, each NIC on one shared switch."""
    d, groups, devices, links = host_design("two nodes")
    devices.append(Device("sw", "switch", _net(8, 400.0), properties={"protocol": "infiniband"}))
    k = 0
    for s in (1, 2):
        for nic in add_server(groups, devices, links, f"n{s}", 2):
            k += 1
            links.append(Link(f"{nic}--sw", nic, "p1", "sw", f"p{k}"))
    d.extend(groups, devices, links)
    return d


def two_linked_boards(*, nics: bool) -> Design:
    """GPUs g1, g2 on NVLink switch X and g3, g4 on Y; X and Y joined by a thin 100G NVLink link.

    With ``nics``, every GPU also has a 400G NIC on one network switch.
    """
    d = Design("two boards")
    board = (PortGroup("nvl", 2, 3600.0, "nvlink"), PortGroup("tr", 1, 100.0, "nvlink"))
    gpu = (PortGroup("nvl", 1, 3600.0, "nvlink"), PortGroup("pcie", 1, 512.0, "pcie"))
    devs = [Device("X", "nvswitch", board), Device("Y", "nvswitch", board)]
    devs += [Device(f"g{i}", "gpu", gpu) for i in range(1, 5)]
    links = [Link(f"g{i}-{h}", f"g{i}", "nvl1", h, f"nvl{(i - 1) % 2 + 1}", "nvlink")
             for i, h in ((1, "X"), (2, "X"), (3, "Y"), (4, "Y"))]
    links.append(Link("X-Y", "X", "tr1", "Y", "tr1", "nvlink"))
    if nics:
        devs.append(Device("sw", "switch", (PortGroup("p", 4, 400.0),)))
        for i in range(1, 5):
            devs.append(Device(f"n{i}", "nic", (PortGroup("p", 1, 400.0), PortGroup("pcie", 1, 512.0, "pcie"))))
            links += [Link(f"g{i}-n{i}", f"g{i}", "pcie1", f"n{i}", "pcie1", "pcie"),
                      Link(f"n{i}-sw", f"n{i}", "p1", "sw", f"p{i}")]
    d.extend(devices=devs, links=links)
    return d


def random_servers(rng: np.random.Generator) -> Design:
    """Servers (GPUs on an NVLink switch, mostly a NIC per GPU with one or two network links), random
    switches and switch links, random speeds; sometimes a link between two servers' NVLink switches
    or a failed link."""
    d = Design("random servers")
    speeds = [100.0, 200.0, 400.0]
    n_sw = int(rng.integers(1, 4))
    devs = [Device(f"s{i}", "switch", (PortGroup("p", 32, float(rng.choice(speeds))),)) for i in range(n_sw)]
    links: list[Link] = []
    used = {f"s{i}": 0 for i in range(n_sw)}

    def sw_port(sw: str) -> str:
        used[sw] += 1
        return f"p{used[sw]}"

    for i in range(1, n_sw):  # connected switches, then extra switch links
        j = int(rng.integers(0, i))
        links.append(Link(f"s{i}-s{j}", f"s{i}", sw_port(f"s{i}"), f"s{j}", sw_port(f"s{j}")))
    for k in range(int(rng.integers(0, 3))):
        i, j = rng.choice(n_sw, size=2) if n_sw > 1 else (0, 0)
        if i != j:
            links.append(Link(f"x{k}", f"s{i}", sw_port(f"s{i}"), f"s{j}", sw_port(f"s{j}")))
    n_gpus = 0
    servers = int(rng.integers(1, 4))
    for s in range(servers):
        g = int(rng.integers(2 if s == 0 else 1, 5)) if n_gpus < 7 else 1
        with_nics = rng.random() < 0.7
        nvl = float(rng.choice([400.0, 1600.0, 3600.0]))
        board = (PortGroup("nvl", 4, nvl, "nvlink"), PortGroup("tr", 1, 200.0, "nvlink"))
        devs.append(Device(f"v{s}", "nvswitch", board))
        for x in range(1, g + 1):
            n_gpus += 1
            gid = f"g{s}-{x}"
            devs.append(Device(gid, "gpu", (PortGroup("nvl", 1, nvl, "nvlink"), PortGroup("pcie", 1, 512.0, "pcie"))))
            links.append(Link(f"{gid}-v", gid, "nvl1", f"v{s}", f"nvl{x}", "nvlink"))
            if not with_nics:
                continue
            nic_speed = float(rng.choice(speeds))
            devs.append(Device(f"n{s}-{x}", "nic", (PortGroup("p", 2, nic_speed), PortGroup("pcie", 1, 512.0, "pcie"))))
            links.append(Link(f"{gid}-n", gid, "pcie1", f"n{s}-{x}", "pcie1", "pcie"))
            for port in range(1, int(rng.integers(1, 3)) + 1):
                sw = f"s{int(rng.integers(0, n_sw))}"
                links.append(Link(f"n{s}-{x}-{port}", f"n{s}-{x}", f"p{port}", sw, sw_port(sw)))
    if servers > 1 and rng.random() < 0.5:
        links.append(Link("v0-v1", "v0", "tr1", "v1", "tr1", "nvlink"))
    d.extend(devices=devs, links=links)
    if rng.random() < 0.3:
        d.set_link_field(links[int(rng.integers(0, len(links)))].id, "failed", True)
    return d
