"""Server templates in the palette: a real NCCL topology dump stamped out on the canvas."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, QSettings

from designer.gui.canvas.editor import MIME_TEMPLATE
from designer.gui.panels.palette import TEMPLATES_KEY
from designer.io.server_template import load_server_template

DATA = Path(__file__).resolve().parents[1] / "data" / "importers"
P5 = DATA / "azhpc-images-ndv4-topo.xml"  # an Azure ND A100 v4 server: 8 GPUs, 8 NICs


@pytest.fixture(autouse=True)
def no_templates():
    QSettings().remove(TEMPLATES_KEY)
    yield
    QSettings().remove(TEMPLATES_KEY)


def gpus(design):
    return [d for d in design.iter_devices() if d.kind == "gpu"]


def test_a_template_is_added_remembered_and_stamped_out_as_one_undo_step(window):
    palette = window.palette
    assert palette.add_template(str(P5))
    item = palette.item_for(str(P5.resolve()))
    assert item is not None and item.text(0) == "azhpc-images-ndv4-topo (template)"
    assert palette.template_paths() == [str(P5.resolve())]
    expected = len(gpus(load_server_template(P5)))
    assert expected == 8
    doc = window.document
    before = len(gpus(doc.design))
    mime = QMimeData()
    mime.setData(MIME_TEMPLATE, str(P5.resolve()).encode())
    assert window.editor.accepts_drop(mime)
    assert window.editor.drop(mime, QPointF(5000, 5000))
    assert len(gpus(doc.design)) == before + expected
    window.palette.activated.emit(MIME_TEMPLATE, str(P5.resolve()))  # double-click: another copy
    assert len(gpus(doc.design)) == before + 2 * expected
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert len(gpus(doc.design)) == before
    palette.remove_template(str(P5.resolve()))
    assert palette.template_paths() == [] and palette.item_for(str(P5.resolve())) is None


def test_a_file_without_a_gpu_is_not_a_template(window, tmp_path):
    messages = []
    window.palette.message.connect(messages.append)
    assert not window.palette.add_template(str(DATA / "Abilene.gml"))
    assert window.palette.template_paths() == []
    assert "holds no GPU" in messages[-1]
    junk = tmp_path / "junk.xml"
    junk.write_text("<not a topology")
    assert not window.palette.add_template(str(junk))
    assert messages[-1].startswith("not added as a server template:")


def test_a_template_file_gone_since_is_a_message_at_the_drop(window, tmp_path):
    copy = tmp_path / "p5.xml"
    copy.write_bytes(P5.read_bytes())
    assert window.palette.add_template(str(copy))
    copy.unlink()
    before = window.document.design.device_count()
    assert window.editor.place_template(str(copy.resolve()), QPointF(0, 0)) == []
    assert window.document.design.device_count() == before
    assert "no such" in window.statusBar().currentMessage().lower()
