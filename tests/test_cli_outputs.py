"""No command writes over its own input or writes two outputs to one file: each is refused in one
line, exit 2, before anything is read or written (the paths through symbolic links and ``./``)."""

import os
import shutil
from pathlib import Path

import pytest

from designer.cli import main

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_designs" / "hgx-h100-server.json"
IB = ROOT / "tests" / "data" / "importers" / "Abilene.gml"


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry of ``folder``: a file's bytes, a link's target (no file added, changed or replaced)."""
    return {p.name: os.readlink(p) if p.is_symlink() else p.read_bytes() if p.is_file() else "folder"
            for p in folder.iterdir()}


def refused(folder: Path, argv: list[str], capsys, expect: str) -> None:
    before = snapshot(folder)
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        code = main(argv)
    finally:
        os.chdir(cwd)
    out, err = capsys.readouterr()
    assert code == 2, (argv, out, err)
    assert err.count("\n") == 1 and err.startswith("topo-designer: "), err
    assert expect in err, err
    assert snapshot(folder) == before, argv


@pytest.fixture
def folder(tmp_path):
    shutil.copy(SAMPLE, tmp_path / "d.json")
    (tmp_path / "link.json").symlink_to("d.json")
    shutil.copy(IB, tmp_path / "f.gml")
    (tmp_path / "s.csv").write_text("point,key,status\n0,a,ok\n")
    (tmp_path / "x.json").write_text("{}\n")
    return tmp_path


OVER_THE_DESIGN = "would overwrite the design file"


@pytest.mark.parametrize(("argv", "expect"), [
    (["export", "d.json", "--report", "d.json"], "d.json: --report " + OVER_THE_DESIGN),
    (["export", "d.json", "--png", "d.json"], "d.json: --png " + OVER_THE_DESIGN),
    (["export", "d.json", "--html", "./d.json"], "./d.json: --html " + OVER_THE_DESIGN),
    (["export", "d.json", "--graphml", "link.json"], "link.json: --graphml " + OVER_THE_DESIGN + " (d.json)"),
    (["analyze", "d.json", "--json", "d.json"], "d.json: --json " + OVER_THE_DESIGN),
    (["analyze", "link.json", "--json", "./d.json"], "./d.json: --json " + OVER_THE_DESIGN + " (link.json)"),
    (["bom", "d.json", "--json", "d.json"], OVER_THE_DESIGN),
    (["validate", "d.json", "--json", "d.json"], OVER_THE_DESIGN),
    (["scan", "d.json", "--json", "d.json"], OVER_THE_DESIGN),
    (["whatif", "d.json", "--fail", "spine1", "--json", "d.json"], OVER_THE_DESIGN),
    (["scale", "d.json", "--workload", "llama3-70b", "--json", "d.json"], OVER_THE_DESIGN),
    (["advise", "d.json", "--workload", "llama3-70b", "--json", "d.json"], OVER_THE_DESIGN),
    (["analyze", "d.json", "--workload", "x.json", "--json", "x.json"], "x.json: --json would overwrite the "
     "workload file"),
    (["import", "f.gml", "-o", "f.gml"], "f.gml: -o would overwrite the imported file"),
    (["import", "f.gml", "-o", "x.json", "--report", "x.json"], "x.json: -o and --report name the same file"),
    (["import", "f.gml", "-o", "x.json", "--map", "x.json"], "x.json: -o would overwrite the name map"),
    (["sweep-point", "s.csv", "5", "-o", "s.csv"], "s.csv: -o would overwrite the results file"),
    (["sweep-report", "s.csv", "--html", "s.csv"], "s.csv: --html would overwrite the results file"),
    (["sweep", "x.json", "-o", "x.json"], "x.json: -o would overwrite the sweep spec"),
    (["export", "d.json", "--report", "x.json", "--cabling", "./x.json"],
     "./x.json: --report and --cabling name the same file"),
    (["export", "d.json", "--report", "new.json", "--graphml", "new.json"], "--report and --graphml name the same"),
    (["generate", "server", "-o", "x.json", "--catalog", "x.json"], "x.json: -o would overwrite a catalog"),
    (["sweep", "x.json", "-o", "s.csv"], "s.csv: the results file already exists; give --resume to finish its "
     "sweep or --force to replace it"),
    (["sweep", "x.json", "-o", "s.csv", "--resume", "--force"], "--resume and --force: give one or the other"),
])
def test_an_output_that_is_an_input_or_another_output_is_refused(folder, capsys, argv, expect):
    if "--catalog" in argv:
        (folder / "x.json").write_text('{"format": "topo-designer-catalog", "version": 1, "components": []}\n')
    refused(folder, argv, capsys, expect)


def test_a_hard_link_is_the_same_file(folder, capsys):
    os.link(folder / "d.json", folder / "hard.json")
    refused(folder, ["bom", "d.json", "--json", "hard.json"], capsys, "hard.json: --json " + OVER_THE_DESIGN)


def test_the_user_catalog_is_an_input(folder, capsys, monkeypatch):
    config = folder / "config" / "topo-designer"
    config.mkdir(parents=True)
    (config / "catalog.json").write_text('{"format": "topo-designer-catalog", "version": 1, "components": []}\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder / "config"))
    before = (config / "catalog.json").read_bytes()
    assert main(["generate", "server", "-o", str(config / "catalog.json")]) == 2
    assert "would overwrite the user catalog" in capsys.readouterr().err
    assert (config / "catalog.json").read_bytes() == before


def test_distinct_outputs_and_a_preset_named_like_a_file_still_work(folder, capsys):
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        assert main(["validate", "d.json", "--json", "findings.json"]) == 0
        # a preset's name is not a file: an output of that name is not its input
        shutil.copy(ROOT / "sample_designs" / "superpod-h100-1su.json", "su.json")
        assert main(["analyze", "su.json", "--sizes", "1MiB", "--workload", "llama3-70b", "--json", "llama3-70b"]) == 0
        assert main(["validate", "d.json", "--json", "-"]) == 0
    finally:
        os.chdir(cwd)
    assert (folder / "findings.json").exists() and (folder / "llama3-70b").exists()


def test_a_panel_picture_may_not_replace_the_design(folder, capsys):
    shutil.copy(SAMPLE, folder / "curves.png")  # a design saved under a panel's file name
    refused(folder, ["export", "curves.png", "--panels", "."], capsys,
            "curves.png: --panels (curves.png) would overwrite the design file")
