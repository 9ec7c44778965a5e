"""Small designs for the analyzer tests, built from Device/Link/PortGroup (no catalog needed)."""

from __future__ import annotations

import itertools

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
