"""The command line under hostile and degenerate conditions: global options anywhere, a broken
catalog refused by every command, no display, no Qt, names that would rewrite the terminal."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from designer.cli import build_parser, main
from designer.cli.common import terminal_text
from designer.cli.entry import _split_command
from designer.cli.gui import qt_platform_problem
from designer.io import load_design, save_design

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_designs" / "hgx-h100-server.json"


def run_cli(*args, env=None, stdin=None):
    full = {k: v for k, v in os.environ.items()}
    full.update(env or {})
    full = {k: v for k, v in full.items() if v is not None}
    return subprocess.run([sys.executable, "-m", "designer", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, env=full, input=stdin)


def user_catalog(tmp_path: Path, text: str) -> dict:
    folder = tmp_path / "config" / "topo-designer"
    folder.mkdir(parents=True)
    (folder / "catalog.json").write_text(text)
    return {"XDG_CONFIG_HOME": str(tmp_path / "config")}


# ------------------------------------------------------------------ global options
@pytest.mark.parametrize(
    ("argv", "expect"),
    [
        (["--catalog", "mine.json", "analyze", "f.json"], ["--catalog", "mine.json", "analyze", "f.json"]),
        (["--catalog=mine.json", "f.json"], ["--catalog=mine.json", "gui", "f.json"]),
        (["--catalog", "mine.json"], ["--catalog", "mine.json"]),
        (["--catalog", "a.json", "--catalog", "b.json", "f.json"],
         ["--catalog", "a.json", "--catalog", "b.json", "gui", "f.json"]),
        (["f.json"], ["gui", "f.json"]),
        (["validate", "f.json"], ["validate", "f.json"]),
        (["--", "validate"], ["gui", "validate"]),
    ],
)
def test_the_command_is_the_first_word_that_is_not_an_option_value(argv, expect):
    assert _split_command(build_parser(), argv) == expect


def test_catalog_path_works_before_and_after_the_command(tmp_path):
    mine = tmp_path / "mine.json"
    mine.write_text(json.dumps({"format": "topo-designer-catalog", "version": 1, "components": [
        {"id": "my-switch", "kind": "switch", "name": "My switch", "ports": [
            {"prefix": "p", "count": 8, "speed_gbps": 400}], "price_usd": 1000,
         "sources": {"price_usd": "quoted by the vendor"}}]}))
    before = run_cli("--catalog", str(mine), "validate", str(SAMPLE))
    after = run_cli("validate", str(SAMPLE), "--catalog", str(mine))
    assert before.returncode == after.returncode == 0, (before.stderr, after.stderr)
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    for args in (["--catalog", str(broken), "bom", str(SAMPLE)], ["bom", str(SAMPLE), "--catalog", str(broken)],
                 ["generate", "server", "--catalog", str(broken), "-o", str(tmp_path / "s.json")]):
        r = run_cli(*args)
        assert r.returncode == 2 and "broken.json: not valid JSON" in r.stderr, (args, r.stderr)
        assert r.stderr.count("\n") == 1


# ------------------------------------------------------------------ a catalog that cannot be loaded
@pytest.mark.parametrize("command", [["validate"], ["bom"], ["analyze", "--sizes", "1MiB"]])
def test_every_command_refuses_a_broken_user_catalog_alike(tmp_path, command):
    env = user_catalog(tmp_path, '{"format": "topo-designer-catalog", "version": 1, "components": [{"id": 3}]}')
    r = run_cli(command[0], str(SAMPLE), *command[1:], env=env)
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr == f"topo-designer: {tmp_path}/config/topo-designer/catalog.json: id: must be text, not 3\n"


def test_analysis_never_silently_drops_the_catalog(tmp_path, monkeypatch):
    from designer.analysis.fabric.capacity import build_capacity_graph
    from designer.model import catalog as catalog_module

    def broken():
        raise catalog_module.CatalogError("built-in catalog not found")

    monkeypatch.setattr("designer.analysis.fabric.capacity.builtin_catalog", broken)
    with pytest.raises(catalog_module.CatalogError, match="not found"):
        build_capacity_graph(load_design(SAMPLE))


# ------------------------------------------------------------------ no display, no Qt
def test_no_display_is_a_one_line_message_that_says_what_to_do():
    r = run_cli(str(SAMPLE), env={"DISPLAY": None, "WAYLAND_DISPLAY": None, "QT_QPA_PLATFORM": None})
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1
    assert "no display" in r.stderr and "QT_QPA_PLATFORM=offscreen" in r.stderr
    assert "validate, generate, analyze and bom work without a window" in r.stderr


@pytest.mark.parametrize(
    ("env", "problem"),
    [
        ({}, "no display"),
        ({"QT_QPA_PLATFORM": "offscreen"}, None),
        ({"QT_QPA_PLATFORM": "wayland"}, "WAYLAND_DISPLAY is not set"),
        ({"WAYLAND_DISPLAY": "wayland-0"}, None),
    ],
)
def test_platform_check(env, problem):
    found = qt_platform_problem(env, "linux")
    assert (found is None) if problem is None else (problem in found)
    assert qt_platform_problem({}, "darwin") is None


def test_missing_pyside6_is_a_one_line_message():
    code = ("import sys; sys.modules['PySide6'] = None; from designer.cli import main; "
            f"sys.exit(main([{str(SAMPLE)!r}]))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                       env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "needs PySide6 and pyqtgraph" in r.stderr and "QT_QPA_PLATFORM=offscreen" in r.stderr


# ------------------------------------------------------------------ terminal safety
def test_terminal_text_escapes_what_a_terminal_would_act_on():
    assert terminal_text("plain name, 1.80 TB/s\n\ttab") == "plain name, 1.80 TB/s\n\ttab"
    assert terminal_text("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert terminal_text("x\u202ey\u2028z\x9b") == "x\\u202ey\\u2028z\\x9b"


@pytest.fixture()
def evil(tmp_path):
    d = load_design(SAMPLE)
    d.name = "evil\u202e\x1b[31mred\x07"
    dev = next(iter(d.iter_devices()))
    d.set_device_field(dev.id, "name", "gpu\u202eX")
    path = tmp_path / "evil\x1b.json"
    save_design(d, path)
    return path


@pytest.mark.parametrize("command", [["validate"], ["bom"], ["analyze", "--sizes", "1MiB"],
                                     ["bom", "--json", "-"], ["validate", "--json", "-"],
                                     ["analyze", "--sizes", "1MiB", "--json", "-"]])
def test_no_command_prints_control_or_bidi_characters(evil, command, capsys):
    main([command[0], str(evil), *command[1:]])
    out = capsys.readouterr()
    for stream in (out.out, out.err):
        assert "\x1b" not in stream and "\u202e" not in stream and "\x07" not in stream
    if "--json" in command:
        json.loads(out.out)  # still valid JSON


def test_error_messages_escape_the_file_name(tmp_path, capsys):
    path = tmp_path / "bad\x1b[2J.json"
    path.write_text("{")
    assert main(["validate", str(path)]) == 2
    assert "bad\\x1b[2J.json" in capsys.readouterr().err


# ------------------------------------------------------------------ standard input
def test_dash_reads_the_design_from_standard_input():
    r = run_cli("validate", "-", stdin=SAMPLE.read_text())
    assert r.returncode == 0 and r.stdout.startswith("<stdin>: clean (17 devices, 16 links)")
    r = run_cli("bom", "-", stdin=SAMPLE.read_text())
    assert r.returncode == 0 and "Bill of materials" in r.stdout
    r = run_cli("analyze", "-", "--sizes", "1MiB", stdin="{")
    assert r.returncode == 2 and r.stderr.startswith("topo-designer: <stdin>: not valid JSON")


def test_a_missing_x11_library_is_named(monkeypatch):
    import ctypes

    from designer.cli import gui

    def missing(path):
        raise OSError("libxcb-icccm.so.4: cannot open shared object file: No such file or directory")

    monkeypatch.setattr(ctypes, "CDLL", missing)
    problem = gui.qt_platform_problem({"DISPLAY": ":0"}, "linux")
    assert problem is not None and "libxcb-icccm.so.4 is missing" in problem
    assert "ensure-qt-libs.sh --x11" in problem
