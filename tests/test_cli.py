"""The command line: subcommands, exit codes, one-line errors and no tracebacks."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from designer.cli import main
from designer.io import save_design
from designer.model import Design, Device, Link, PortGroup

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "designer", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, timeout=300)


def small(path: Path, length_m: float = 1.0) -> Path:
    d = Design("cli")
    net = (PortGroup("p", 2, 400.0),)
    d.add_device(Device("a", "switch", net, model="qm9700"))
    d.add_device(Device("b", "switch", net, model="qm9700"))
    d.add_link(Link("l1", "a", "p1", "b", "p1", medium="passive_copper", length_m=length_m, cable="dac-400g-ndr"))
    save_design(d, path)
    return path


def test_help_lists_the_subcommands_and_each_documents_itself():
    from designer.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert {"gui", "validate", "generate", "analyze", "bom"} <= set(sub.choices)
    r = run_cli("--help")
    assert r.returncode == 0
    for cmd in ("validate", "generate", "analyze", "bom"):
        assert f"topo-designer {cmd}" in r.stdout
        assert sub.choices[cmd].format_help().startswith(f"usage: topo-designer {cmd}")


def test_the_program_exits_with_the_commands_code_and_spares_the_collector_a_last_pass(monkeypatch, tmp_path,
                                                                                      capsys):
    import gc

    from designer.cli import console, entry

    calls = []
    real_main = entry.main

    def traced_main() -> int:
        code = real_main()
        calls.append("returned")
        return code

    monkeypatch.setattr(entry, "main", traced_main)
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(sys, "argv", ["topo-designer", "validate", str(tmp_path / "missing.json")])
    with pytest.raises(SystemExit) as exit_:
        console()
    assert exit_.value.code == 2 and calls[-2:] == ["returned", "freeze"]
    assert "missing.json" in capsys.readouterr().err


def test_validate_exit_codes(tmp_path, capsys):
    assert main(["validate", str(small(tmp_path / "ok.json"))]) == 0
    assert "clean" in capsys.readouterr().out
    assert main(["validate", str(small(tmp_path / "far.json", length_m=40))]) == 1
    assert "[reach]" in capsys.readouterr().out


def test_a_design_still_being_read_after_a_while_is_announced(monkeypatch, tmp_path, capsys):
    import time

    import designer.io
    from designer.cli import common

    path = small(tmp_path / "ok.json")
    assert main(["validate", str(path)]) == 0
    assert "still reading" not in capsys.readouterr().err  # a quick read says nothing
    real = designer.io.load_design
    monkeypatch.setattr(common, "READ_NOTICE_AFTER_S", 0.05)
    monkeypatch.setattr(designer.io, "load_design", lambda p: time.sleep(1.0) or real(p))
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr()
    assert f"topo-designer: still reading {path} (" in out.err and "clean" in out.out


@pytest.mark.parametrize(
    ("content", "expect"),
    [
        ('{"format": "topo-designer-design", "version": 1, "devices": [', "not valid JSON"),
        (None, "links.rows[0].b: no device 'ghost'"),
        ('{"format": "topo-designer-design", "version": 999}', "version 999 is newer"),
    ],
)
def test_unreadable_files_give_one_line_and_exit_2(tmp_path, content, expect):
    path = tmp_path / "bad.json"
    if content is None:
        small(path)
        data = json.loads(path.read_text())
        data["links"]["rows"][0][data["links"]["fields"].index("b")] = "ghost:p1"
        path.write_text(json.dumps(data))
    else:
        path.write_text(content)
    r = run_cli("validate", str(path))
    assert r.returncode == 2
    assert expect in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr


def test_validate_json_output(tmp_path, capsys):
    path = small(tmp_path / "far.json", length_m=40)
    assert main(["validate", str(path), "--json", "-"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["findings"][0]["code"] == "reach"


def test_missing_file_for_the_window_is_an_error_not_a_window(tmp_path, capsys):
    assert main([str(tmp_path / "none.json")]) == 2
    assert "no such file" in capsys.readouterr().err
