"""The HTML report reads for someone who does not run the designer: no local path, no $0 for what has
no price, every kind of finding shown with its count, a word on SHARP, assumptions in plain words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from export_helpers import SAMPLE

from designer.io import load_design
from designer.io.importers import ImportOptions, import_file, read_name_map
from designer.present.assumptions import CONSTANT_UNITS, CONSTANT_WORDS, constants_rows
from designer.present.export import prepare
from designer.present.html_report import html_report
from designer.present.html_sections import FINDINGS_PER_KIND, NO_POWER, NOT_PRICED

DATA = Path(__file__).resolve().parents[1] / "data" / "importers"


def _page(design, source: str = "", **kw) -> tuple[str, dict]:
    data = prepare(design, source=source, sizes=[1 << 20, 1 << 30], **kw)
    return html_report(data.document), data.document


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.fixture(scope="module")
def imported() -> tuple[str, dict]:
    """The PSMN X5 cluster's real ibnetdiscover dump, imported: nothing priced, 23 degraded links."""
    options = ImportOptions(name_map=read_name_map(DATA / "psmn-X5.guid-hostname.map"))
    design, _ = import_file(DATA / "psmn-X5.ibnetdiscover.topofile", options)
    return _page(design, source=str(DATA / "psmn-X5.json"))


@pytest.fixture(scope="module")
def superpod(tmp_path_factory) -> tuple[str, dict]:
    folder = tmp_path_factory.mktemp("deep") / "home" / "someone" / "designs"
    folder.mkdir(parents=True)
    path = folder / "my-superpod.json"
    path.write_bytes(SAMPLE.read_bytes())
    return _page(load_design(path), source=str(path))


def test_the_header_names_the_file_never_its_folder(superpod):
    html, doc = superpod
    assert "/home/someone/designs" in doc["exported"]["file"]  # the JSON keeps what it was given
    assert "someone" not in html and "my-superpod.json" in html


def test_an_unpriced_import_says_not_priced_instead_of_zero(imported):
    html, doc = imported
    assert doc["bom"]["totals"]["price_usd"] == 0 and doc["bom"]["totals"]["power_w"] == 0
    figures = html[html.index("<h2>Key figures</h2>"):html.index("<h2>Bisection")]
    assert NOT_PRICED in figures and NO_POWER in figures
    assert "$0" not in figures and "0.0 kW" not in figures
    bom = html[html.index("<h2>Bill of materials</h2>"):]
    assert ">$0</td>" not in bom and NOT_PRICED in bom


def test_a_partly_priced_design_gives_the_priced_total_and_counts_the_rest(superpod):
    from designer.present.html_sections import cost_text

    _, doc = superpod
    bom = dict(doc["bom"])
    custom = {"category": "switch", "item": "", "name": "custom switch", "quantity": 3, "unpriced": 3,
              "unit_power_w": 0.0, "unit_price_usd": 0.0, "power_w": 0.0, "price_usd": 0.0}
    bom["lines"] = [*bom["lines"], custom]
    assert cost_text(bom).endswith("+ 3 items not priced") and cost_text(bom).startswith("$")
    assert cost_text(doc["bom"]).startswith("$") and NOT_PRICED not in cost_text(doc["bom"])


def test_the_bill_of_an_import_has_a_line_per_model_not_per_host(imported):
    _, doc = imported
    nics = [line for line in doc["bom"]["lines"] if line["category"] == "nic"]
    assert len(nics) <= 5
    assert sum(line["quantity"] for line in nics) == doc["bom"]["totals"]["nic"]
    assert not any(re.fullmatch(r"r\d+node\d+", line["name"]) for line in nics)


def test_every_kind_of_finding_is_shown_with_its_count_and_the_degraded_links_appear(imported):
    html, doc = imported
    kinds: dict[str, int] = {}
    for f in doc["findings"]["findings"]:
        kinds[f["code"]] = kinds.get(f["code"], 0) + 1
    assert kinds["degraded-link"] == 23 and len(doc["findings"]["findings"]) > 200
    section = html[html.index("<h2>Design rules</h2>"):]
    for code, n in kinds.items():
        assert f'<span class="code">{code}</span></td><td class="n">{n:,}</td>' in section, code
        shown = section.count(f'<span class="code">{code}</span></td><td class="">')
        assert shown == min(n, FINDINGS_PER_KIND), code
    # the fabric's own findings come before the bookkeeping of the bill of materials
    assert section.index(">degraded-link<") < section.index(">no-cable<") < section.index(">unpriced<")


def test_sharp_shown_but_not_selected_is_explained(superpod):
    html, doc = superpod
    sharp = [r for r in doc["collectives"] if r["algorithm"] == "sharp"]
    assert sharp and not any(r["selected"] for r in sharp)
    text = _text(html)
    assert "sharp (InfiniBand in-network reduction) is shown but not selected" in text
    assert "NCCL_COLLNET_ENABLE=1" in text and "Aggregation Manager" in text


def test_assumptions_read_in_plain_words_with_constant_names_only_in_the_details(superpod):
    html, _ = superpod
    section = html[html.index("<h2>Assumptions</h2>"):]
    before, details = section.split("<details>", 1)
    assert "NVLINK_EFFICIENCY_BY_GEN" not in before and "INFINIBAND_EFFICIENCY" not in before
    assert "Share of an InfiniBand NIC&#x27;s line rate that collectives reach" in before
    assert "96% of line rate" in before
    assert "NVLINK_EFFICIENCY_BY_GEN[4]" in details


def test_every_constant_has_plain_words():
    listed = {name for names in CONSTANT_UNITS.values() for name in names}
    assert listed <= set(CONSTANT_WORDS), sorted(listed - set(CONSTANT_WORDS))
    for row in constants_rows():
        assert "{" not in row["meaning"] and "_" not in row["meaning"], row


def test_the_training_step_says_how_the_job_is_split_and_which_gpus_it_leaves_out():
    from designer.io.workload_file import load_workload

    data = prepare(load_design(SAMPLE), sizes=[1 << 30], workload=load_workload("llama3-70b"))
    text = _text(html_report(data.document))
    assert "Parallelism: TP 8 \u00d7 PP 4 \u00d7 DP 7 = 224 GPUs, TP innermost." in text
    assert "24 of 248 GPUs left out: a data-parallel replica takes TP x CP x PP = 32 GPUs" in text
