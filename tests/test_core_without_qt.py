"""The core (model, analysis, generators, io, present, CLI) imports and works with Qt blocked."""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent(
    """
    import importlib.abc, pkgutil, sys

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph"):
                raise ImportError(f"{name} is blocked in this test")
            return None

    sys.meta_path.insert(0, Block())
    import designer
    core = ["designer.model", "designer.analysis", "designer.generators", "designer.io", "designer.interop",
            "designer.sweep", "designer.present", "designer.cli"]
    names = []
    for pkg_name in core:
        pkg = importlib.import_module(pkg_name)
        names.append(pkg_name)
        for info in pkgutil.walk_packages(pkg.__path__, pkg_name + "."):
            importlib.import_module(info.name)
            names.append(info.name)
    import designer.cli
    designer.cli.build_parser()
    # The core works, not only imports: build, save, load, check a design.
    from designer.model import Design, Device, Link, PortGroup
    from designer.io import design_to_text, design_from_text
    from designer.analysis import check_design
    d = Design()
    net = (PortGroup("p", 2, 400.0),)
    d.add_device(Device("a", "switch", net, model="qm9700")); d.add_device(Device("b", "switch", net, model="qm9700"))
    d.add_link(Link("l", "a", "p1", "b", "p1", medium="passive_copper", length_m=1, cable="dac-400g-ndr"))
    assert design_to_text(design_from_text(design_to_text(d))) == design_to_text(d)
    assert check_design(d) == []
    leaked = [m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph")]
    assert not leaked, leaked
    print(len(names), "core modules imported without Qt")
    """
)


def test_core_imports_and_works_with_qt_blocked():
    result = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "core modules imported without Qt" in result.stdout
