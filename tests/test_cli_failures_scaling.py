"""whatif, scan, scale and advise on the command line: output, JSON and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from designer.cli import main
from designer.io import save_design
from designer.model import Design, Device, Link, PortGroup

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = str(ROOT / "sample_designs" / "superpod-h100-1su.json")


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "designer", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)


def test_whatif_before_after_delta(capsys) -> None:
    assert main(["whatif", SAMPLE, "--fail", "spine1", "--workload", "llama3-70b"]) == 0
    out = capsys.readouterr().out
    assert "before:" in out and "after:" in out and "delta:" in out
    assert main(["whatif", SAMPLE, "--fail", "su1-leaf1,spine2", "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == "topo-designer-whatif" and data["failed"] == ["su1-leaf1", "spine2"]
    assert data["delta"]["gpus_cut_off"] > 0


def test_scan_lists_the_ranking_and_single_points(capsys) -> None:
    assert main(["scan", SAMPLE, "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == "topo-designer-scan"
    assert data["rows"][0]["gpus_cut_off"] > 0
    # One definition: the leaf the ranking says cuts GPUs off is a single point of failure too.
    worst = data["rows"][0]
    assert {"id": worst["element"], "gpus_cut_off": worst["gpus_cut_off"]} in data["single_points"]["devices"]
    assert main(["scan", SAMPLE]) == 0
    assert "N-1 scan" in capsys.readouterr().out


def test_scale_and_advise(capsys) -> None:
    assert main(["scale", SAMPLE, "--workload", "gpt3-1.3b-ddp", "--factors", "0.5,1,2", "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    gpus = [p["gpus"] for p in data["points"]]
    assert gpus[1] == 248 and gpus[0] < gpus[1] < gpus[2] == 504  # 2 SUs of 32 servers, one slot for UFM
    assert data["headroom"]["binding_tier"] == "spine"
    assert main(["advise", SAMPLE, "--workload", "gpt3-1.3b-ddp"]) == 0
    out = capsys.readouterr().out
    assert "verdict:" in out and "GPUs" in out


def test_errors_are_one_line_and_exit_2(tmp_path) -> None:
    d = Design("hand-drawn")
    d.add_device(Device("g", "gpu", (PortGroup("p", 1, 400.0),)))
    d.add_device(Device("s", "switch", (PortGroup("p", 1, 400.0),)))
    d.add_link(Link("l", "g", "p1", "s", "p1"))
    hand = tmp_path / "hand.json"
    save_design(d, hand)
    for args, message in ((["whatif", SAMPLE, "--fail", "ghost"], "no link or device 'ghost'"),
                          (["scale", str(hand), "--workload", "gpt3-1.3b-ddp"], "only generated designs"),
                          (["advise", str(hand), "--workload", "gpt3-1.3b-ddp"], "only generated designs"),
                          (["scale", SAMPLE, "--workload", "gpt3-1.3b-ddp", "--factors", "0,x"], "--factors"),
                          (["scan", str(tmp_path / "missing.json")], "missing.json")):
        r = run_cli(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
        assert "Traceback" not in r.stderr


def test_advice_keeps_the_fabric_kind_and_offers_sharp_where_the_switches_lack_it() -> None:
    import copy
    import dataclasses

    from designer.cli.advise import options
    from designer.generators import GENERATORS
    from designer.model.catalog import builtin_catalog

    catalog = builtin_catalog()
    design = GENERATORS["rail-optimized"].build(sus=1, ufm=False)
    labels = [label for label, _d in options(design, catalog)]
    faster = next(label for label in labels if "NICs" in label)
    switch = faster.split(" and ")[1].split()[0]
    assert catalog.components[switch].specs["protocol"] == "infiniband"  # never Ethernet switches for it
    assert not any("SHARP" in label for label in labels)  # its QM9700s already have SHARP
    # a catalog where the design's InfiniBand switch lacks SHARP: the advice offers SHARP-capable ones
    plain = copy.copy(catalog)
    plain.components = dict(catalog.components)
    qm = catalog.components["qm9700"]
    plain.components["qm9700"] = dataclasses.replace(qm, specs={**qm.specs, "sharp": False})
    sharp = [(label, d) for label, d in options(design, plain) if "SHARP" in label]
    assert len(sharp) == 1
    rebuilt = sharp[0][1]
    models = {d.model for d in rebuilt.iter_devices() if d.kind == "switch"}
    assert models and all(plain.components[m].specs.get("sharp") for m in models)


def test_a_rebuilt_design_keeps_every_generator_option() -> None:
    """scale and advise rebuild the fabric family: the UFM appliance (an option the design did not
    record) used to be dropped, 1,024 GPUs instead of 1,016 and another bill of materials."""
    from designer.analysis.bom.bill import bill_of_materials
    from designer.cli.fabric_family import rebuild
    from designer.generators import GENERATORS

    d = GENERATORS["rail-optimized"].build(sus=2, ufm=True, ufm_links=2, nodes_per_rack=2)
    again = rebuild(d, 1.0)
    gpus = [x for x in again.devices if x.kind == "gpu"]
    assert len(gpus) == 2 * 32 * 8 - 8
    assert bill_of_materials(again).total_price_usd == bill_of_materials(d).total_price_usd
    assert d.properties["ufm"] is True and d.properties["ufm_links"] == 2 and d.properties["nodes_per_rack"] == 2
    assert sum(1 for x in rebuild(d, 2.0).devices if x.kind == "gpu") == 4 * 32 * 8 - 8
