"""Text from a design cannot escape where it is written: control characters keep GraphML well-formed
(and our GraphML reads back exactly), the HTML report shows a right-to-left override instead of
obeying it, positions have an upper bound, and the command line's own errors are one line: option
values that start with '-', digits of other scripts, negative counts."""

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from file_tables import as_records

from designer.cli import main
from designer.io import load_design
from designer.model import DesignError
from designer.model.entities import MAX_COORD, clamp_coord
from designer.model.text import visible, xml_text

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "sample_designs" / "hgx-h100-server.json"
HOSTILE = "rack\x1b[2J\u202eevil\x01\x85\u2066"


@pytest.fixture
def hostile_design(tmp_path):
    data = as_records(json.loads(SERVER.read_text()))
    data["design"]["name"] = "Fabric " + HOSTILE
    data["devices"][0]["name"] = HOSTILE
    data["devices"][0]["properties"] = {'k"<ey\x02': "v\x03&"}
    path = tmp_path / "d.json"
    path.write_text(json.dumps(data))
    return path


def test_graphml_of_names_with_control_characters_is_well_formed_and_reads_back(tmp_path, hostile_design):
    out = tmp_path / "d.graphml"
    assert main(["export", str(hostile_design), "--graphml", str(out), "-q"]) == 0
    ET.parse(out)  # raises on a control character XML cannot hold
    text = out.read_text(encoding="utf-8")
    assert "\x1b" not in text and "\x01" not in text and "\\x1b[2J" in text
    assert main(["import", str(out), "-o", str(tmp_path / "back.json"), "-q"]) == 0
    back = load_design(tmp_path / "back.json")
    assert back.devices[0].name == HOSTILE
    assert back.devices[0].properties == {'k"<ey\x02': "v\x03&"}


def test_the_html_report_shows_control_and_bidirectional_characters_as_text(tmp_path, hostile_design):
    out = tmp_path / "d.html"
    assert main(["export", str(hostile_design), "--html", str(out), "-q"]) == 0
    page = out.read_text(encoding="utf-8")
    for ch in "\x1b\u202e\x01\x85\u2066":
        assert ch not in page, repr(ch)
    assert "Fabric rack\\x1b[2J\\u202eevil\\x01\\x85\\u2066" in page


def test_one_rule_for_the_terminal_the_page_and_xml():
    assert visible("a\u202eb\tc\n\x7f") == "a\\u202eb\tc\n\\x7f"
    assert visible("été 東京 🙂") == "été 東京 🙂"
    assert xml_text("a\u202eb\x00c\ufffe\r\n") == "a\u202eb\\x00c\\ufffe\r\n"


def test_positions_have_an_upper_bound_everywhere():
    design = load_design(SERVER)
    dev = design.devices[0]
    with pytest.raises(DesignError, match=re.escape(f"x must be <= {MAX_COORD:g}, not 1e+308")):
        design.move_devices({dev.id: (1e308, 0.0)})
    assert clamp_coord(1e308) == MAX_COORD and clamp_coord(-1e308) == -MAX_COORD and clamp_coord(5.0) == 5.0


@pytest.mark.parametrize(("argv", "expect"), [
    (["whatif", str(SERVER), "--fail", "-spine1"],
     "topo-designer whatif: argument --fail: expected one argument (a value that starts with '-' is written as "
     "--option=VALUE); 'topo-designer whatif --help' lists the options"),
    (["analyze", str(SERVER), "--top"], "topo-designer analyze: argument --top: expected one argument"),
    (["scan", str(SERVER), "--top", "-5"], "topo-designer scan: argument --top: '-5': give 0 or more"),
    (["analyze", str(SERVER), "--top", "-1"], "topo-designer analyze: argument --top: '-1': give 0 or more"),
    (["analyze", str(SERVER), "--top", "\u0665"], "argument --top: '\u0665' is not a whole number"),
    (["analyze", str(SERVER), "--sizes", "\u0661MiB"], "invalid size '\u0661MiB'"),
    (["generate", "fat-tree", "--k", "\u0668", "-o", "{dir}/ft.json"],
     "topo-designer generate fat-tree: argument --k: '\u0668' is not a whole number"),
    (["generate", "leaf-spine", "--oversubscription", "\uff12", "-o", "{dir}/ls.json"], "is not a number"),
    (["export", str(SERVER), "--png", "{dir}/x.png", "--png-scale", "nan"],
     "argument --png-scale: 'nan' is not a number"),
    (["sweep", "s.json", "-o", "{dir}/r.csv", "--workers", "\u0662"],
     "argument --workers: '\u0662' is not a whole number"),
])
def test_command_line_errors_are_one_line(tmp_path, capsys, argv, expect):
    argv = [a.format(dir=tmp_path) for a in argv]
    try:
        code = main(argv)  # a value the command refuses
    except SystemExit as e:  # a value argparse refuses
        code = e.code
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and expect in err, err
    assert os.listdir(tmp_path) == []
