"""File ▸ Open Sweep Point… opens a point of sweep results as a design; the core imports no Qt."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from designer.cli.analyze import parse_size
from designer.sweep import parse_spec
from designer.sweep.evaluate import evaluate_point
from designer.sweep.results import Sink, columns, finish
from designer.sweep.spec import expand

SPEC = {"generator": "leaf-spine", "parameters": {"leaves": [2, 3], "hosts_per_leaf": 8, "nodes_per_rack": 1}}


@pytest.fixture
def results(tmp_path):
    """Results of a two-point sweep, evaluated in this process (the runner is tested elsewhere)."""
    spec = parse_spec(SPEC, "s.json", parse_size)
    out = tmp_path / "r.csv"
    sink = Sink(out, columns(spec), [])
    rows = [evaluate_point(p) for p in expand(spec)]
    for r in rows:
        sink.write(r)
    sink.close()
    finish(out, columns(spec), rows)
    return out


def test_open_sweep_point_menu_and_dialog(qtbot, tmp_path, results, monkeypatch):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QDialog, QMessageBox

    import designer.gui  # noqa: F401
    from designer.gui.window import sweep as sweep_window
    from designer.gui.window.main_window import MainWindow
    from designer.model.catalog import builtin_catalog

    QCoreApplication.setOrganizationName("topo-designer-tests")
    QCoreApplication.setApplicationName(f"sweep-tests-{os.getpid()}")
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    errors = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *a, **k: errors.append(a[2]) or QMessageBox.StandardButton.Ok)
    w = MainWindow(builtin_catalog(), recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(w)
    try:
        file_menu = w.menuBar().actions()[0].menu()
        assert any(a.text().replace("&", "") == "Open Sweep Point\u2026" for a in file_menu.actions())
        # the dialog lists the points, the chosen one opens as an unsaved design
        from designer.sweep.results import read_results

        cols, rows = read_results(results)
        dialog = sweep_window.PointDialog(w, str(results), cols, rows)
        assert dialog.table.rowCount() == 2
        assert dialog.chosen()["pareto"]  # the front first
        dialog.close()

        monkeypatch.setattr(sweep_window.QFileDialog, "getOpenFileName", lambda *a, **k: (str(results), ""))
        monkeypatch.setattr(sweep_window.PointDialog, "exec", lambda self: QDialog.DialogCode.Accepted)
        chosen = []
        original = sweep_window.PointDialog.chosen
        monkeypatch.setattr(sweep_window.PointDialog, "chosen",
                            lambda self: chosen.append(original(self)) or chosen[-1])
        assert sweep_window.open_sweep_point(w)
        params = json.loads(chosen[0]["parameters"])
        gpus = sum(1 for d in w.document.design.iter_devices() if d.kind == "gpu")
        assert gpus == params["leaves"] * params["hosts_per_leaf"]
        assert w.document.is_modified() and w.document.path is None
        assert "sweep point" in w.document.design.name
        assert w.document.undo_stack.undoText().startswith("Open sweep point")  # an ordinary undo step
        assert sweep_window.open_sweep_point(w, str(results), point=1)
        assert sum(1 for d in w.document.design.iter_devices() if d.kind == "gpu") == 24
        assert not sweep_window.open_sweep_point(w, str(tmp_path / "missing.csv"))
        assert errors and "no such results file" in errors[-1]
    finally:
        w.document.undo_stack.setClean()
        w.close()


def test_the_sweep_core_works_with_qt_blocked(tmp_path):
    script = textwrap.dedent(f"""
        import importlib.abc, sys
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph"):
                    raise ImportError(name)
                return None
        sys.meta_path.insert(0, Block())
        import pkgutil, importlib, designer.sweep
        for info in pkgutil.walk_packages(designer.sweep.__path__, "designer.sweep."):
            importlib.import_module(info.name)
        import designer.present.sweep_report
        from designer.cli import main
        spec = {SPEC!r}
        open({str(tmp_path / "s.json")!r}, "w").write(__import__("json").dumps(spec))
        code = main(["sweep", {str(tmp_path / "s.json")!r}, "-o", {str(tmp_path / "r.csv")!r}, "--check"])
        assert code == 0, code
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")


def test_the_report_of_an_unfinished_sweep_marks_the_front_itself(tmp_path, results, capsys):
    from designer.cli import main

    lines = results.read_text().splitlines()
    # as written while the sweep runs: the pareto column still empty
    results.write_text("\n".join([lines[0], *(ln.rsplit(",", 1)[0] + "," for ln in lines[1:])]) + "\n")
    html = tmp_path / "r.html"
    assert main(["sweep-report", str(results), "--html", str(html)]) == 0
    assert "2 points, 1 on the Pareto front" in capsys.readouterr().out
    assert 'data-key="pareto" data-value="1"' in html.read_text()
