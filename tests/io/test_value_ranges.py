"""Port speeds and link lengths outside their documented ranges are load errors naming the exact path."""

import json

import pytest
from file_tables import as_records, as_rows, rows_path

from designer.io import DesignFileError, design_from_text, design_to_text
from designer.model import Design, Device, Link, PortGroup
from designer.model.entities import MAX_LINK_LENGTH_M, MAX_PORT_GBPS, MIN_PORT_GBPS

NIC = (PortGroup("p", 1, 400.0), PortGroup("pcie", 1, 512.0, "pcie"))
SWITCH = (PortGroup("p", 8, 400.0),)


def data() -> dict:
    d = Design("ranges")
    d.add_device(Device("leaf1", "switch", SWITCH, model="qm9700"))
    d.add_device(Device("nic1", "nic", NIC, model="connectx-7-400g"))
    d.add_device(Device("nic2", "nic", NIC))
    d.add_link(Link("l1", "nic1", "p1", "leaf1", "p1", medium="passive_copper", length_m=2.0, cable="dac-400g-ndr"))
    d.add_link(Link("l2", "nic2", "p1", "leaf1", "p2", medium="optical", length_m=30.0, cable="sr4-400g-mm"))
    return as_records(json.loads(design_to_text(d)))


def load(mutate, form: str = "records") -> Design:
    raw = data()
    mutate(raw)
    return design_from_text(json.dumps(as_rows(raw) if form == "rows" else raw))


def test_the_ranges():
    assert (MIN_PORT_GBPS, MAX_PORT_GBPS, MAX_LINK_LENGTH_M) == (1e-3, 1e5, 1e5)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["devices"][2]["ports"][0].update(speed_gbps=1e-300),
         "devices[2].ports[0].speed_gbps: must be >= 0.001 Gb/s, not 1e-300"),
        (lambda d: d["devices"][2]["ports"][0].update(speed_gbps=5e-324),
         "devices[2].ports[0].speed_gbps: must be >= 0.001 Gb/s"),
        (lambda d: d["devices"][2]["ports"][0].update(speed_gbps=2e5),
         "devices[2].ports[0].speed_gbps: must be <= 100000 Gb/s, not 200000"),
        (lambda d: d["models"][0]["ports"][0].update(speed_gbps=1e305),
         "models[0].ports[0].speed_gbps: must be <= 100000 Gb/s"),
        (lambda d: d["devices"][2]["ports"][0].update(speed_gbps=0), "devices[2].ports[0].speed_gbps: must be > 0"),
        (lambda d: d["links"][1].update(length_m=1e300), "links[1].length_m: must be <= 100000 m, not 1e+300"),
        (lambda d: d["links"][0].update(length_m=100000.5), "links[0].length_m: must be <= 100000 m"),
        (lambda d: d["links"][0].update(length_m=-1), "links[0].length_m: must be >= 0 m, not -1"),
    ],
)
@pytest.mark.parametrize("form", ["records", "rows"])
def test_out_of_range_values_name_their_path(mutate, message, form):
    with pytest.raises(DesignFileError) as err:
        load(mutate, form)
    assert (rows_path(message) if form == "rows" else message) in str(err.value)


@pytest.mark.parametrize("form", ["records", "rows"])
def test_the_ends_of_the_ranges_load(form):
    def edge(d):
        d["devices"][2]["ports"][0]["speed_gbps"] = MIN_PORT_GBPS
        d["devices"][2]["ports"][1]["speed_gbps"] = MAX_PORT_GBPS
        d["links"][0]["length_m"] = 0
        d["links"][1]["length_m"] = MAX_LINK_LENGTH_M

    design = load(edge, form)
    assert design.device("nic2").ports[0].speed_gbps == MIN_PORT_GBPS
    assert design.link("l2").length_m == MAX_LINK_LENGTH_M
    assert design.link("l1").length_m == 0
