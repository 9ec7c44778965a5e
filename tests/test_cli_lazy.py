"""The parser comes from a static table: --version and --help import no command module, nor the model,
analysis, scipy, networkx or Qt; a command imports its own module only."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from designer.cli.commands import COMMANDS, MODULES
from designer.cli.entry import build_parser

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import sys
from designer.cli import main
try:
    main({argv!r})
except SystemExit:
    pass
heavy = ("scipy", "networkx", "PySide6", "pyqtgraph", "designer.analysis", "designer.generators", "designer.io",
         "designer.model")
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {{"scipy", "networkx", "PySide6", "pyqtgraph"}}
                or m.startswith(heavy) or m.startswith("designer.cli.") and m.rsplit(".", 1)[1] in {modules!r})
print("LOADED", *loaded)
"""


def loaded_by(argv: list[str]) -> list[str]:
    code = PROBE.format(argv=argv, modules=set(MODULES))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("LOADED"))
    return line.split()[1:]


@pytest.mark.parametrize("argv", [["--version"], ["--help"]])
def test_version_and_help_import_no_command_module_nor_the_core(argv):
    assert loaded_by(argv) == []


def test_a_command_s_help_imports_its_module_only():
    loaded = loaded_by(["generate", "--help"])
    assert "designer.cli.generate" in loaded
    assert not [m for m in loaded if m.startswith("designer.cli.") and m != "designer.cli.generate"]
    assert not [m for m in loaded if m.split(".")[0] in ("scipy", "networkx", "PySide6")]


def test_the_table_and_the_modules_agree():
    """Each command of the table is defined by its module, with the table's summary, and no other."""
    full = build_parser()
    sub = next(a for a in full._actions if a.dest == "command")
    assert list(sub.choices) == [name for name, _, _ in COMMANDS]
    summaries = {a.dest: a.help for a in sub._choices_actions}
    assert summaries == {name: summary for name, _, summary in COMMANDS}
    for name, _, _ in COMMANDS:
        lazy = next(a for a in build_parser(name)._actions if a.dest == "command")
        assert lazy.choices[name].format_help() == sub.choices[name].format_help()
        assert list(lazy.choices) == list(sub.choices)


def test_the_main_help_is_the_same_lazy_or_full():
    assert build_parser(None).format_help() == build_parser().format_help()


def test_a_bill_of_materials_imports_neither_scipy_nor_networkx_nor_the_whole_analysis():
    """Importing one module of designer.analysis does not import the package's every module (its
    names are imported on first use): ``bom`` prices a design without the graph libraries."""
    loaded = loaded_by(["bom", str(ROOT / "sample_designs" / "superpod-h100-4su.json")])
    assert "designer.analysis.bom.bill" in loaded
    assert not [m for m in loaded if m.split(".")[0] in ("scipy", "networkx", "PySide6")]
    assert "designer.analysis.report" not in loaded and "designer.analysis.bisection.bounds" not in loaded


@pytest.mark.parametrize("package", ["designer.analysis", "designer.analysis.training"])
def test_the_analysis_package_names_are_those_of_their_modules(package):
    import importlib

    lazy = importlib.import_module(package)
    for name in lazy.__all__:
        assert getattr(lazy, name) is getattr(importlib.import_module(lazy._WHERE[name]), name)
    assert set(lazy.__all__) == set(lazy._WHERE) and set(lazy.__all__) <= set(dir(lazy))
    with pytest.raises(AttributeError, match="no_such_name"):
        lazy.no_such_name  # noqa: B018


def test_the_window_module_imports_no_scipy_nor_the_analysis_core():
    """The window starts without scipy: the design rules and the live analysis
    import it in their worker when they first run; panels name the reports' types for annotations only."""
    code = ("import sys, designer.gui.window.main_window\n"
            "print('LOADED', *sorted(m for m in sys.modules if m.split('.')[0] in ('scipy', 'networkx')"
            " or m in ('designer.analysis.report', 'designer.analysis.collectives.times',"
            " 'designer.analysis.training.step')))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                       env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert r.returncode == 0, r.stderr
    assert next(ln for ln in r.stdout.splitlines() if ln.startswith("LOADED")).split() == ["LOADED"]


def test_the_collective_names_are_those_the_time_models_use():
    from designer.analysis.collectives import direct, names, times

    for name in ("ALGORITHMS", "ALIASES", "COLLECTIVES", "COLLECTIVE_TITLES", "NOT_DEFAULT", "bus_factor"):
        assert getattr(times, name) is getattr(names, name)
    assert direct.DIRECT_ALGORITHMS is names.DIRECT_ALGORITHMS
