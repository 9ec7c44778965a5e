"""Every JSON document is written by the C encoder, one record per line; link tables are columns."""

import json
import math

import pytest

from designer.cli.common import _json_escaped, json_text
from designer.present.json_text import json_chunks

DOC = {
    "format": "x", "version": 2, "units": {"time": "s"}, "empty": [], "none": None,
    "rows": [{"a": 1, "b": [1, 2]}, {"a": 2.5, "b": []}],
    "columns": {"id": ["l1", "l2"], "utilization": [0.5, 1.0]},
    "nested": {"inner": {"deep": [{"x": 1}]}, "flat": 3},
    "names": ["é", "rack\u202e1"],
}


def test_the_text_reads_back_as_the_document_with_one_record_per_line():
    text = json_text(DOC)
    assert json.loads(text) == DOC and text.endswith("}\n")
    lines = text.splitlines()
    assert ' "units": {"time": "s"},' in lines  # a container of plain values: one line
    assert '  {"a": 1, "b": [1, 2]},' in lines  # rows of a table: one per line
    assert '  "utilization": [0.5, 1.0]' in lines  # a column: one line
    assert '  "inner": {"deep": [{"x": 1}]},' in lines  # below two levels: one line
    assert '"é"' in text  # UTF-8 as it is


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_numbers_that_are_not_finite_are_refused(bad):
    with pytest.raises(ValueError, match="not JSON compliant"):
        json_text({"rows": [{"v": bad}]})


def test_no_hooks_for_objects_json_does_not_know():
    with pytest.raises(TypeError):
        json_text({"a": {1, 2}})
    with pytest.raises(TypeError):
        "".join(json_chunks({"rows": {3: [1]}}))


def test_scalars_and_empty_documents():
    assert json_text(3) == "3\n" and json_text({}) == "{}\n" and json_text([]) == "[]\n"


def test_standard_output_escapes_what_a_terminal_would_act_on():
    text = json_text(DOC)
    shown = _json_escaped(text)
    assert "\u202e" not in shown and "\\u202e" in shown and "é" in shown
    assert json.loads(shown) == DOC
    assert _json_escaped("\x7f\U000e0001\n\t") == "\\u007f\\udb40\\udc01\n\t"
