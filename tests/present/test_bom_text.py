"""The bill of materials as text: headers with units, totals, notes."""

from __future__ import annotations

import math

from designer.analysis.bom.bill import bill_of_materials
from designer.generators import build_rail_optimized, build_server
from designer.present.bom_text import format_bom


def test_text_table_has_units_in_headers_and_totals():
    text = format_bom(bill_of_materials(build_rail_optimized(sus=1, nodes_per_su=4)))
    header = text.splitlines()[2]
    for col in ("qty", "unit W", "unit USD", "total kW", "total USD"):
        assert col in header
    assert "Total power:" in text and "kW" in text and "Indicative cost: $" in text
    assert math.isfinite(bill_of_materials(build_server()).total_price_usd)


def test_columns_line_up_left_for_names_and_right_for_numbers():
    lines = format_bom(bill_of_materials(build_server())).splitlines()
    header, rule, first = lines[2], lines[3], lines[4]
    assert set(rule) <= {"-", " "} and len(rule) >= len(first.rstrip())
    qty_end = header.index("qty") + len("qty")
    assert first.startswith("gpu") and first[qty_end - 1].isdigit()


def test_csv_has_the_tables_columns_plain_numbers_and_a_totals_row():
    import csv
    import io

    from designer.present.bom_text import BOM_HEADERS, bom_csv, bom_rows

    bom = bill_of_materials(build_rail_optimized(sus=1, nodes_per_su=4))
    rows = list(csv.reader(io.StringIO(bom_csv(bom))))
    assert tuple(rows[0]) == BOM_HEADERS
    shown = bom_rows(bom)
    assert len(rows) == len(shown) + 2
    for got, want in zip(rows[1:-1], shown, strict=True):
        assert got == [cell.replace(",", "") if i >= 3 else cell for i, cell in enumerate(want)]
    assert rows[-1][0] == "total"
    assert float(rows[-1][-1]) == round(bom.total_price_usd)
    assert float(rows[-1][-2]) == round(bom.total_power_w / 1000, 2)
