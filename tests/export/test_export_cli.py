"""``topo-designer export``: exit codes, one-line errors, outputs without a display or without Qt."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from export_helpers import SAMPLE

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "designer", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd or ROOT, env=env)


def one_line_error(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("topo-designer: ")
    return lines[0]


@pytest.mark.parametrize(("args", "words"), [
    (["export", "no-such-design.json", "--report", "{tmp}/r.json"], "no such file"),
    (["export", str(SAMPLE), "--report", "{tmp}/missing/r.json"], "does not exist"),
    (["export", str(SAMPLE), "--html", "{tmp}"], "is a folder"),
    (["export", str(SAMPLE), "--panels", "{tmp}/file.txt"], "not a folder"),
    (["export", str(SAMPLE), "--report", "{tmp}/r.json", "--workload", "no-such-workload"], "no workload"),
    (["export", str(SAMPLE)], "nothing to export"),
    (["export", str(SAMPLE), "--png", "{tmp}/c.png", "--png-width", "5"], "--png-width"),
    (["export", str(SAMPLE), "--png", "{tmp}/c.png", "--png-width", "800", "--png-scale", "1"], "one or the other"),
    (["export", str(SAMPLE), "--report", "{tmp}/r.json", "--sizes", "huge"], "invalid size"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, words):
    (tmp_path / "file.txt").write_text("x")
    result = run_cli(*[a.format(tmp=tmp_path) for a in args])
    assert words in one_line_error(result)
    assert not (tmp_path / "r.json").exists()


def test_unwritable_output_is_refused_before_the_analysis(tmp_path):
    if os.geteuid() == 0:
        # root writes anywhere: a path under a file stands in for an unwritable place
        target = tmp_path / "file.txt" / "r.json"
        (tmp_path / "file.txt").write_text("x")
    else:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        target = locked / "r.json"
    line = one_line_error(run_cli("export", str(SAMPLE), "--report", str(target)))
    assert str(target) in line


def test_a_workload_that_does_not_fit_is_one_line(tmp_path):
    server = ROOT / "sample_designs" / "hgx-h100-server.json"
    line = one_line_error(run_cli("export", str(server), "--report", str(tmp_path / "r.json"),
                                  "--workload", "llama3-405b"))
    assert "GPUs" in line


def test_every_output_with_no_display(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    result = run_cli("export", str(SAMPLE), "--png", str(tmp_path / "c.png"), "--panels", str(tmp_path / "p"),
                     "--html", str(tmp_path / "r.html"), "--report", str(tmp_path / "r.json"),
                     "--cabling", str(tmp_path / "c.csv"), "--graphml", str(tmp_path / "g.graphml"),
                     "--sizes", "1MiB,1GiB", env=env)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # the offscreen platform's notes are not shown
    for name in ("c.png", "r.html", "r.json", "c.csv", "g.graphml"):
        assert (tmp_path / name).stat().st_size > 0, name
    assert len(list((tmp_path / "p").glob("*.png"))) >= 4
    assert "wrote" in result.stdout and "time:" in result.stdout


BLOCK_QT = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph"):
            raise ImportError(f"{name} is blocked")
        return None
sys.meta_path.insert(0, Block())
from designer.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_files_without_pictures_need_no_qt(tmp_path):
    base = [sys.executable, "-c", BLOCK_QT, "export", str(SAMPLE), "--sizes", "1MiB"]
    ok = subprocess.run([*base, "--report", str(tmp_path / "r.json"), "--cabling", str(tmp_path / "c.csv"),
                         "--graphml", str(tmp_path / "g.graphml"), "--html", str(tmp_path / "r.html")],
                        capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert ok.returncode == 0, ok.stderr
    assert "pictures are missing" in (tmp_path / "r.html").read_text()
    png = subprocess.run([*base, "--png", str(tmp_path / "c.png")], capture_output=True, text=True, timeout=300,
                         cwd=ROOT)
    assert "PySide6" in one_line_error(png)


def test_a_design_without_gpus_still_exports(tmp_path):
    from designer.cli import main
    from designer.io import save_design
    from designer.model import Design, Device, Link, PortGroup

    d = Design("pair")
    net = (PortGroup("p", 1, 400.0),)
    d.add_device(Device("a", "switch", net, tier="leaf"))
    d.add_device(Device("b", "switch", net, tier="spine"))
    d.add_link(Link("l", "a", "p1", "b", "p1", medium="optical", length_m=20, cable="sr4-400g-mm"))
    for design in (d, Design("empty")):
        path = tmp_path / f"{design.name}.json"
        save_design(design, path)
        out = tmp_path / design.name
        out.mkdir()
        args = ["export", str(path), "--quiet", "--png", str(out / "c.png"), "--panels", str(out / "p"),
                "--report", str(out / "r.json"), "--html", str(out / "r.html"), "--cabling", str(out / "c.csv"),
                "--graphml", str(out / "g.graphml")]
        assert main(args) == 0
        assert not list((out / "p").glob("*.png"))  # nothing to plot without GPUs
        rows = (out / "c.csv").read_text().strip().splitlines()
        assert len(rows) == 1 + design.link_count()
