"""Contracts of the design model: invariants, invertible primitives, events."""

import pytest

from designer.model import (
    Design,
    Device,
    DuplicateIdError,
    Group,
    InvalidValueError,
    Link,
    ModelError,
    PortGroup,
    PortInUseError,
    SelfLinkError,
    UnknownIdError,
)

NET4 = (PortGroup("p", 4, 400.0, "network", "OSFP"),)


def make(n=3):
    d = Design("test")
    for i in range(n):
        d.add_device(Device(f"s{i}", "switch", NET4, x=10.0 * i))
    return d


def test_port_ids_resolve_only_inside_their_group():
    dev = Device("h", "gpu", (PortGroup("p", 2, 400.0), PortGroup("pcie", 1, 512.0, "pcie")))
    assert dev.port("p2").speed_gbps == 400.0
    assert dev.port("pcie1").kind == "pcie"
    for bad in ("p3", "p0", "p01", "pcie2", "x1", "p", ""):
        assert dev.port(bad) is None
    assert [p.id for p in dev.iter_ports()] == ["p1", "p2", "pcie1"]


def test_a_port_holds_one_link():
    d = make()
    d.add_link(Link("l1", "s0", "p1", "s1", "p1"))
    with pytest.raises(PortInUseError, match="s0:p1 already holds link 'l1'"):
        d.add_link(Link("l2", "s0", "p1", "s2", "p1"))


def test_self_links_and_missing_ends_are_refused():
    d = make()
    with pytest.raises(SelfLinkError):
        d.add_link(Link("l1", "s0", "p1", "s0", "p2"))
    with pytest.raises(UnknownIdError, match="no device 'nope'"):
        d.add_link(Link("l1", "s0", "p1", "nope", "p1"))
    with pytest.raises(UnknownIdError, match="has no port 'p9'"):
        d.add_link(Link("l1", "s0", "p9", "s1", "p1"))
    assert d.link_count() == 0


def test_duplicate_ids_are_refused():
    d = make()
    with pytest.raises(DuplicateIdError):
        d.add_device(Device("s0", "switch", NET4))


@pytest.mark.parametrize("bad", ["", "a:b", "with space", "-lead", "x" * 129])
def test_ids_must_be_readable(bad):
    with pytest.raises(InvalidValueError):
        Device(bad, "switch", NET4)


@pytest.mark.parametrize("speed", [0, -1, float("nan"), float("inf")])
def test_port_speed_must_be_positive_and_finite(speed):
    with pytest.raises(InvalidValueError):
        PortGroup("p", 1, speed)


def test_remove_then_insert_at_index_restores_order():
    d = make(5)
    dev, idx = d.remove_device("s2")
    assert idx == 2 and [x.id for x in d.devices] == ["s0", "s1", "s3", "s4"]
    d.add_device(dev, idx)
    assert [x.id for x in d.devices] == ["s0", "s1", "s2", "s3", "s4"]


def test_undo_restores_link_order():
    d = make()
    for i in range(3):
        d.add_link(Link(f"l{i}", "s0", f"p{i + 1}", "s1", f"p{i + 1}"))
    link, idx = d.remove_link("l1")
    assert idx == 1
    d.add_link(link, idx)
    assert [x.id for x in d.links] == ["l0", "l1", "l2"]
    assert d.link_at("s1", "p2").id == "l1"


def test_device_with_links_cannot_be_removed_until_links_are():
    d = make()
    d.add_link(Link("l1", "s0", "p1", "s1", "p1"))
    with pytest.raises(ModelError, match="still has 1 link"):
        d.remove_device("s0")
    d.remove_link("l1")
    d.remove_device("s0")
    assert not d.has_device("s0")
    assert d.free_ports("s1") == ["p1", "p2", "p3", "p4"]


def test_setters_return_the_old_value_and_emit_events():
    d = make()
    d.add_link(Link("l1", "s0", "p1", "s1", "p1", length_m=2.0))
    seen = []
    d.device_changed.connect(lambda *a: seen.append(("dev",) + a))
    d.link_changed.connect(lambda *a: seen.append(("link",) + a))
    d.devices_moved.connect(lambda ids: seen.append(("moved", tuple(ids))))
    assert d.set_device_field("s0", "name", "Leaf A") == ""
    assert d.set_link_field("l1", "length_m", 5) == 2.0
    assert d.move_devices({"s1": (3.0, 4.0)}) == {"s1": (10.0, 0.0)}
    assert seen == [
        ("dev", "s0", "name", "", "Leaf A"),
        ("link", "l1", "length_m", 2.0, 5.0),
        ("moved", ("s1",)),
    ]


def test_invalid_values_leave_the_design_unchanged():
    d = make()
    d.add_link(Link("l1", "s0", "p1", "s1", "p1", length_m=2.0))
    for field, value in [("length_m", -1), ("length_m", float("nan")), ("medium", "string"), ("failed", "yes")]:
        with pytest.raises(InvalidValueError):
            d.set_link_field("l1", field, value)
    assert d.link("l1").length_m == 2.0
    with pytest.raises(InvalidValueError):
        d.move_devices({"s0": (1.0, 1.0), "s1": (float("nan"), 0.0)})
    assert (d.device("s0").x, d.device("s0").y) == (0.0, 0.0)


def test_changing_ports_refuses_to_orphan_a_link():
    d = make()
    d.add_link(Link("l1", "s0", "p4", "s1", "p1"))
    with pytest.raises(ModelError, match="port 'p4' holds link 'l1'"):
        d.set_device_field("s0", "ports", (PortGroup("p", 2, 400.0),))
    old = d.set_device_field("s0", "ports", (PortGroup("p", 8, 800.0),))
    assert old == NET4


def test_groups_nest_without_cycles():
    d = make()
    d.add_group(Group("su1", "su"))
    d.add_group(Group("r1", "rack", parent="su1"))
    d.set_device_group("s0", "r1")
    assert [x.id for x in d.all_members("su1")] == ["s0"]
    assert d.ancestors("r1") == ["r1", "su1"]
    with pytest.raises(ModelError, match="inside itself"):
        d.set_group_field("su1", "parent", "r1")
    with pytest.raises(ModelError, match="not empty"):
        d.remove_group("r1")
    assert d.set_device_group("s0", None) == "r1"
    d.remove_group("r1")
    assert d.child_groups("su1") == []


def test_outermost_collapsed_group_is_what_hides_a_device_or_a_group():
    d = make()
    d.add_group(Group("pod", "pod"))
    d.add_group(Group("su", "su", parent="pod"))
    d.add_group(Group("rack", "rack", parent="su", collapsed=True))
    assert d.outermost_collapsed_group(None) is None
    assert d.outermost_collapsed_group("rack") == "rack"
    assert d.outermost_collapsed_group("rack", include_self=False) is None
    assert d.outermost_collapsed_group("su") is None and d.outermost_collapsed_group("pod") is None
    d.set_group_field("pod", "collapsed", True)
    assert d.outermost_collapsed_group("rack") == "pod" and d.outermost_collapsed_group("su") == "pod"
    assert d.outermost_collapsed_group("pod") == "pod"
    assert d.outermost_collapsed_group("pod", include_self=False) is None
    assert d.outermost_collapsed_group("su", include_self=False) == "pod"


def test_what_a_collapse_hides_is_read_once_for_the_whole_tree():
    from designer.model.hierarchy import bundled_ends

    d = make(5)
    # a child re-parented under a group added after it: the table is not parents-first
    d.add_group(Group("rack", "rack", collapsed=True))
    d.add_group(Group("su", "su"))
    d.add_group(Group("pod", "pod", collapsed=True))
    d.add_group(Group("lone", "custom"))
    d.set_group_field("rack", "parent", "su")
    d.set_group_field("su", "parent", "pod")
    for dev, group in (("s0", "rack"), ("s1", "rack"), ("s2", "su"), ("s3", "lone")):
        d.set_device_group(dev, group)
    hiding = d.hiding_groups()
    assert hiding == {g.id: d.outermost_collapsed_group(g.id) for g in d.groups}
    assert hiding == {"rack": "pod", "su": "pod", "pod": "pod", "lone": None}
    assert d.devices_hidden_in() == ["pod", "pod", "pod", None, None]
    assert d.shown_device_count() == 2
    d.set_group_field("pod", "collapsed", False)
    assert d.devices_hidden_in() == ["rack", "rack", None, None, None]
    assert d.shown_device_count() == 3 == d.devices_hidden_in().count(None)
    for i, (a, b) in enumerate((("s0", "s1"), ("s1", "s2"), ("s3", "s4"), ("s2", "s0"))):
        d.add_link(Link(f"l{i}", a, f"p{i + 1}", b, f"p{i + 1}"))
    shown = {dev.id: top or dev.id for dev, top in zip(d.iter_devices(), d.devices_hidden_in(), strict=True)}
    assert [(link.id, a, b) for link, a, b in bundled_ends(d.links, shown)] == [
        ("l1", "rack", "s2"), ("l2", "s3", "s4"), ("l3", "s2", "rack")]  # l0 lies inside the rack


def test_batch_emits_changed_once():
    d = make()
    count = []
    d.changed.connect(lambda: count.append(1))
    with d.batch():
        d.add_device(Device("x", "switch", NET4))
        d.add_link(Link("l1", "x", "p1", "s0", "p1"))
    assert len(count) == 1
    d.set_device_field("x", "tier", "leaf")
    assert len(count) == 2


def test_unique_id_skips_taken_names():
    d = make()
    assert d.unique_id("new") == "new"
    assert d.unique_id("s0") == "s0-2"
    d.add_device(Device("s0-2", "switch", NET4))
    assert d.unique_id("s0") == "s0-3"
    assert d.unique_id("s0-2") == "s0-3"


def test_copy_is_deep_and_silent():
    d = make()
    d.add_link(Link("l1", "s0", "p1", "s1", "p1"))
    c = d.copy()
    c.move_devices({"s0": (99.0, 99.0)})
    assert d.device("s0").x == 0.0
    assert [x.id for x in c.links] == ["l1"]


def test_copy_keeps_groups_re_parented_under_a_later_group():
    d = make()
    d.add_group(Group("inner", "rack"))
    d.add_group(Group("outer", "su"))
    d.set_group_field("inner", "parent", "outer")
    d.set_device_group("s0", "inner")
    c = d.copy()
    assert c.ancestors("inner") == ["inner", "outer"]
    assert [x.id for x in c.all_members("outer")] == ["s0"]
    c.set_device_property("s0", "note", "copy only")
    assert "note" not in d.device("s0").properties


def test_a_link_length_beyond_the_file_range_is_refused_in_memory_too():
    from designer.model import InvalidValueError
    from designer.model.entities import MAX_LINK_LENGTH_M

    d = Design()
    net = (PortGroup("p", 2, 400.0),)
    d.add_device(Device("a", "switch", net))
    d.add_device(Device("b", "switch", net))
    d.add_link(Link("l", "a", "p1", "b", "p1", medium="optical", length_m=10.0))
    d.set_link_field("l", "length_m", MAX_LINK_LENGTH_M)
    with pytest.raises(InvalidValueError, match="length_m must be 0 .. 100,000 m"):
        d.set_link_field("l", "length_m", 1e300)
    assert d.link("l").length_m == MAX_LINK_LENGTH_M


def test_a_repeated_id_in_a_validated_extend_leaves_the_links_before_it_as_the_loop_did():
    from designer.model import DuplicateIdError

    for quiet in (True, False):
        d = make()
        d.add_link(Link("l0", "s0", "p4", "s1", "p4"))
        if not quiet:
            d.link_added.connect(lambda link, index: None)
        links = [Link("l1", "s0", "p1", "s1", "p1"), Link("l2", "s0", "p2", "s1", "p2"),
                 Link("l0", "s0", "p3", "s1", "p3")]
        with pytest.raises(DuplicateIdError, match="'l0'"):
            d.extend(links=links, validated=True)
        assert [lk.id for lk in d.iter_links()] == ["l0", "l1", "l2"] and d.link("l0").a_port == "p4"
        assert d.link_at("s1", "p2").id == "l2" and d.link_at("s0", "p3") is None


def test_extend_validated_skips_the_link_check_but_not_duplicate_ids():
    from designer.model import DuplicateIdError, UnknownIdError

    d = make()
    bad = Link("l9", "s0", "p1", "nowhere", "p1")
    with pytest.raises(UnknownIdError):
        d.extend(links=[bad])
    events = []
    d.link_added.connect(lambda link, index: events.append((link.id, index)))
    d.extend(links=[Link("l1", "s0", "p1", "s1", "p1")], validated=True)
    assert events == [("l1", 0)] and d.link_at("s1", "p1").id == "l1" and d.links_of("s0")[0].id == "l1"
    with pytest.raises(DuplicateIdError):
        d.extend(links=[Link("l1", "s0", "p2", "s1", "p2")], validated=True)


def _ends_index(d):
    """What the design answers about every port of every device, and each device's links in order."""
    return ({(dev.id, p.id): getattr(d.link_at(dev.id, p.id), "id", None) for dev in d.iter_devices()
             for p in dev.iter_ports()},
            {dev.id: [lk.id for lk in d.links_of(dev.id)] for dev in d.iter_devices()},
            {dev.id: d.free_ports(dev.id) for dev in d.iter_devices()})


def _bulk_pair():
    """The same three switches and links built by primitives, and by one validated extend."""
    made = make()
    links = [Link("l1", "s0", "p2", "s1", "p1"), Link("l2", "s2", "p1", "s0", "p1"), Link("l3", "s1", "p4", "s2", "p3")]
    for lk in links:
        made.add_link(Link(lk.id, lk.a_device, lk.a_port, lk.b_device, lk.b_port))
    bulk = Design("test")
    bulk.extend(devices=[Device(f"s{i}", "switch", NET4, x=10.0 * i) for i in range(3)],
                links=[Link(lk.id, lk.a_device, lk.a_port, lk.b_device, lk.b_port) for lk in links], validated=True)
    return made, bulk


def test_a_bulk_append_leaves_the_index_of_the_ends_to_be_built_and_it_answers_as_if_built_link_by_link():
    made, bulk = _bulk_pair()
    assert bulk._held_ports is None  # left to be built
    assert _ends_index(bulk) == _ends_index(made)
    assert bulk._held_ports is not None


def test_the_index_of_the_ends_is_built_a_slice_at_a_time_and_any_query_finishes_it():
    made, bulk = _bulk_pair()
    assert bulk.index_link_ends(limit=1) is False and bulk._ends_pending is not None
    assert bulk.link_at("s2", "p3").id == "l3"  # a query builds the rest at once
    assert bulk._ends_pending is None and bulk.index_link_ends(limit=1) is True
    assert _ends_index(bulk) == _ends_index(made)
    _, sliced = _bulk_pair()
    steps = 1
    while not sliced.index_link_ends(limit=2):  # 3 devices and 3 links, 2 at a time
        steps += 1
    assert steps == 3 and _ends_index(sliced) == _ends_index(made)


@pytest.mark.parametrize("edit", [
    lambda d: d.remove_link("l1"),
    lambda d: d.add_link(Link("l9", "s0", "p3", "s2", "p4"), 0),
    lambda d: d.restore_links(d.remove_links(["l2", "l1"])),
    lambda d: d.add_device(Device("s9", "switch", NET4)),
    lambda d: d.add_device(Device("s9", "switch", NET4), 0),
    lambda d: (d.add_device(Device("s9", "switch", NET4)), d.restore_devices(d.remove_devices(["s9"]))),
    lambda d: d.extend(devices=[Device("s8", "switch", NET4)], links=[Link("l8", "s8", "p1", "s0", "p4")],
                       validated=True),
])
def test_edits_of_a_design_whose_index_is_to_be_built_or_half_built_keep_it_exact(edit):
    made, bulk = _bulk_pair()
    _, half = _bulk_pair()
    half.index_link_ends(limit=1)  # one device of three
    _, most = _bulk_pair()
    most.index_link_ends(limit=5)  # every device and two links of three
    for d in (made, bulk, half, most):
        edit(d)
    assert _ends_index(bulk) == _ends_index(made) == _ends_index(half) == _ends_index(most)
    with pytest.raises(PortInUseError):
        bulk.add_link(Link("lx", "s1", "p4", "s0", "p4"))


def test_appending_to_a_design_with_links_keeps_its_index_built():
    made, bulk = _bulk_pair()
    made.extend(devices=[Device("s8", "switch", NET4)], links=[Link("l8", "s8", "p1", "s0", "p4")], validated=True)
    assert made._held_ports is not None and made.link_at("s0", "p4").id == "l8"
    with pytest.raises(DuplicateIdError):
        bulk.extend(links=[Link("l1", "s2", "p4", "s1", "p3")], validated=True)
    assert bulk.link_at("s2", "p4") is None and bulk.link_at("s0", "p2").id == "l1"


def test_the_model_has_no_private_bulk_entry_point_for_loaders():
    assert not hasattr(Design, "_extend_validated")


def test_a_snapshot_builds_independent_equal_designs_and_is_what_copy_uses(monkeypatch):
    from designer.model.snapshot import DesignSnapshot

    d = make()
    d.add_group(Group("rack1", "rack"))
    d.set_device_group("s0", "rack1")
    d.set_device_property("s0", "tags", ["a", {"b": 1}])
    d.add_link(Link("l1", "s0", "p1", "s1", "p1", properties={"note": "x"}))
    d.properties["owner"] = {"team": "net"}
    snap = DesignSnapshot.capture(d)
    d.set_device_field("s0", "name", "changed after capture")
    d.device("s0").properties["tags"][1]["b"] = 2
    assert not snap.any_failed_link()
    d.set_link_field("l1", "failed", True)
    assert DesignSnapshot.capture(d).any_failed_link() and not snap.any_failed_link()
    one, two = snap.build(), snap.build()
    for c in (one, two):
        assert c.device("s0").name == "" and c.device("s0").properties["tags"] == ["a", {"b": 1}]
        assert [x.id for x in c.all_members("rack1")] == ["s0"] and c.link_at("s1", "p1").id == "l1"
        assert c.properties == {"owner": {"team": "net"}}
    one.device("s0").properties["tags"].append("one only")
    assert two.device("s0").properties["tags"] == ["a", {"b": 1}]
    calls = []
    real = DesignSnapshot.capture.__func__
    monkeypatch.setattr(DesignSnapshot, "capture", classmethod(lambda cls, x: calls.append(x) or real(cls, x)))
    assert d.copy().device("s0").name == "changed after capture" and calls == [d]


def test_links_appended_in_bulk_are_found_per_device_in_the_order_they_were_added():
    # Links appended in one validated extend, then edited, are found per device in the same order as
    # in a design built link by link, a device being at the a end of some links and the b end of others.
    def build(bulk):
        d = make(5)
        links = [Link(f"l{i}", f"s{i % 3}", f"p{i // 3 + 1}", "s3", f"p{i + 1}") for i in range(4)]
        links += [Link("l5", "s4", "p1", "s0", "p3"), Link("l6", "s1", "p3", "s4", "p2"),
                  Link("l7", "s4", "p3", "s2", "p3")]
        if bulk:
            d.extend(links=links, validated=True)
        else:
            for lk in links:
                d.add_link(lk)
        d.remove_link("l1")
        d.add_link(Link("l9", "s1", "p1", "s2", "p4"), index=0)
        d.add_device(Device("s5", "switch", NET4))
        return d

    bulk, single = build(True), build(False)
    for dev in ("s0", "s1", "s2", "s3", "s4", "s5"):
        assert [lk.id for lk in bulk.links_of(dev)] == [lk.id for lk in single.links_of(dev)]
    assert [lk.id for lk in bulk.links_of("s4")] == ["l5", "l6", "l7"]
    with pytest.raises(ModelError, match="still has 2 links"):
        bulk.remove_device("s1")
    bulk.remove_device("s5")


def test_many_links_and_devices_removed_and_restored_at_once_as_one_at_a_time():
    from designer.model import UnknownIdError
    from designer.model.table import ONE_BY_ONE

    def build():
        d = make(40)
        for i in range(39):
            for p in (1, 2):
                d.add_link(Link(f"l{i}-{p}", f"s{i}", f"p{p + 2}", f"s{i + 1}", f"p{p}"))
        return d

    bulk, single = build(), build()
    events = []
    bulk.link_removed.connect(lambda link, index: events.append(("-", link.id, index)))
    bulk.link_added.connect(lambda link, index: events.append(("+", link.id, index)))
    bulk.device_removed.connect(lambda dev, index: events.append(("-", dev.id, index)))
    changes = []
    bulk.changed.connect(lambda: changes.append(1))
    gone = [f"l{i}-{p}" for i in [*range(38, 5, -2), *range(7, 38, 2)] for p in (2, 1)]  # not in table order
    with pytest.raises(UnknownIdError):
        bulk.remove_links([*gone, "nowhere"])
    assert bulk.link_count() == 78 and not events
    removed = bulk.remove_links(gone)
    assert [(lk.id, i) for lk, i in removed] == [(lk.id, i) for lk, i in map(single.remove_link, gone)]
    assert events == [("-", lk.id, i) for lk, i in removed] and changes == [1]
    lone = [f"s{i}" for i in range(39, 5, -1) if not bulk.links_of(f"s{i}")]
    assert len(lone) > ONE_BY_ONE  # the one-pass way
    with pytest.raises(ModelError, match="still has"):
        bulk.remove_devices([*lone, "s1"])
    dropped = bulk.remove_devices(lone)
    assert [(x.id, i) for x, i in dropped] == [(x.id, i) for x, i in map(single.remove_device, lone)]
    for d in (bulk, single):
        assert [x.id for x in d.iter_devices()] == [x.id for x in single.iter_devices()]
    bulk.restore_devices(dropped)
    bulk.restore_links(removed)
    for dev, index in reversed(dropped):
        single.add_device(dev, index)
    for lk, index in reversed(removed):
        single.add_link(lk, index)
    assert [lk.id for lk in bulk.iter_links()] == [lk.id for lk in single.iter_links()] == [
        lk.id for lk in build().iter_links()]
    for i in range(40):
        assert [lk.id for lk in bulk.links_of(f"s{i}")] == [lk.id for lk in single.links_of(f"s{i}")]
        assert bulk.free_ports(f"s{i}") == single.free_ports(f"s{i}")


def test_a_refused_restore_of_many_links_changes_nothing():
    from designer.model import PortInUseError

    d = make(3)
    links = [Link(f"l{p}", "s0", f"p{p}", "s1", f"p{p}") for p in (1, 2, 3)]
    for lk in links:
        d.add_link(lk)
    removed = d.remove_links(["l1", "l2", "l3"])
    d.add_link(Link("x", "s0", "p1", "s2", "p1"))  # takes a port l1 held
    with pytest.raises(PortInUseError):
        d.restore_links(removed)
    assert [lk.id for lk in d.iter_links()] == ["x"] and d.free_ports("s1") == ["p1", "p2", "p3", "p4"]
    assert d.link_at("s0", "p1").id == "x" and not d.has_link("l2")


def test_links_named_is_link_of_each_in_order_and_names_a_missing_one():
    from designer.model import UnknownIdError

    d = make()
    d.add_link(Link("l1", "s0", "p1", "s1", "p1"))
    d.add_link(Link("l2", "s1", "p2", "s2", "p2"))
    assert d.links_named(iter(["l2", "l1", "l2"])) == [d.link("l2"), d.link("l1"), d.link("l2")]
    assert d.links_named([]) == []
    with pytest.raises(UnknownIdError, match="no link 'gone'"):
        d.links_named(["l1", "gone"])


def _group_state(d):
    return ([g.id for g in d.iter_groups()], {g.id: [c.id for c in d.child_groups(g.id)] for g in d.iter_groups()},
            [c.id for c in d.child_groups(None)], {g.id: [m.id for m in d.members(g.id)] for g in d.iter_groups()})


def _nested(d):
    tree = [("pod", "pod", None), ("su1", "su", "pod"), ("other", "rack", None), ("r1", "rack", "su1"),
            ("r2", "rack", "su1"), ("su2", "su", "pod"), ("r3", "rack", "su2")]
    tree += [(f"x{i}", "rack", "su2") for i in range(20)]  # more than Table.ONE_BY_ONE: one pass over the table
    for gid, kind, parent in tree:
        d.add_group(Group(gid, kind, parent=parent))
    d.set_device_group("s0", "other")
    return d


def test_remove_groups_and_restore_them_as_each_one_on_its_own():
    from designer.model import ModelError, UnknownIdError

    order = ["r1", "r2", "r3", *(f"x{i}" for i in range(20)), "su1", "su2", "pod"]  # sub-groups first
    one, many = _nested(make()), _nested(make())
    heard_one, heard_many = [], []
    for d, heard in ((one, heard_one), (many, heard_many)):
        d.group_removed.connect(lambda g, i, heard=heard: heard.append(("-", g.id, i)))
        d.group_added.connect(lambda g, i, heard=heard: heard.append(("+", g.id, i)))
    before = _group_state(one)
    removed_one = [one.remove_group(g) for g in order]
    removed_many = many.remove_groups(order)
    assert [(g.id, i) for g, i in removed_many] == [(g.id, i) for g, i in removed_one]
    left = ([g for g in before[0] if g not in order], {"other": []}, ["other"], {"other": ["s0"]})
    assert _group_state(many) == _group_state(one) == left
    for g, i in reversed(removed_one):
        one.add_group(g, i)
    many.restore_groups(removed_many)
    assert heard_many == heard_one and _group_state(many) == _group_state(one)
    assert _group_state(many)[0] == before[0]  # every group back at its index
    before = _group_state(many)
    # refused, nothing changed: a parent before its sub-groups, a parent with a sub-group left (r2),
    # a group holding a device, an unknown id
    for bad, error in ((["pod", "su1"], ModelError), (["r1", "su1"], ModelError), (["r1", "other"], ModelError),
                       (["r1", "nowhere"], UnknownIdError)):
        with pytest.raises(error):
            many.remove_groups(bad)
        assert _group_state(many) == before


def test_restore_groups_refuses_a_taken_id_or_a_missing_parent_and_changes_nothing():
    from designer.model import DuplicateIdError, UnknownIdError

    d = _nested(make())
    removed = d.remove_groups(["r1", "r2", "su1"])
    d.add_group(Group("su1", "su"))
    state = _group_state(d)
    with pytest.raises(DuplicateIdError, match="su1"):
        d.restore_groups(removed)
    assert _group_state(d) == state
    d.remove_group("su1")
    state = _group_state(d)
    with pytest.raises(UnknownIdError, match="r1"):
        d.restore_groups(removed[:1])  # r1 without its parent su1
    assert _group_state(d) == state
    d.restore_groups(removed)
    assert {c.id for c in d.child_groups("su1")} == {"r1", "r2"}
