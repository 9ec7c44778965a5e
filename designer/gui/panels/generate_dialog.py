"""The Generate dialog: one form per generator kind, built from the generators' registry.

Each parameter's type gives its widget (spin boxes with the declared limits, check boxes,
choices, catalog model and cable pickers); its label comes from the registry's table of labels
(``designer.generators.params.PARAM_LABELS``, generator titles in ``GENERATOR_TITLES``), its help
text, limits, parameter name and command-line flag make the tooltip. The built design is
inserted into the current one as one undo step by the caller.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from designer.gui.canvas.describe import tooltip_html
from designer.gui.canvas.editor import generator_registry
from designer.model import BOARD_MEDIA, Design, DesignError
from designer.model.catalog import Catalog


def server_presets(catalog: Catalog) -> list[tuple[str, dict, str]]:
    """Palette entries for ready-made servers: (title, server generator params, tooltip)."""
    registry = generator_registry()
    spec = registry.get("server")
    if spec is None:
        return []
    from designer.generators.base import DEFAULT_NVSWITCH

    defaults = spec.defaults()
    out = []
    for gpu_id, fabric in DEFAULT_NVSWITCH.items():
        gpu = catalog.components.get(gpu_id)
        if gpu is None or fabric not in catalog.components:
            continue
        nic = defaults.get("nic", "")
        params = {"gpu": gpu_id, "gpus_per_node": 8, "nic": nic}
        short = gpu.name.split(" (")[0].removeprefix("NVIDIA ").removeprefix("AMD ")
        out.append((f"8\u00d7 {short.split()[0]} server", params,
                    f"<b>HGX-style server</b><br>8 \u00d7 {gpu.name}<br>NVLink fabric {fabric}"
                    f"<br>one {nic} NIC per GPU"))
    return out


class ParamForm(QWidget):
    """Widgets for one generator's parameters."""

    def __init__(self, spec: Any, catalog: Catalog) -> None:
        super().__init__()
        self.spec = spec
        self.widgets: dict[str, QWidget] = {}
        form = QFormLayout(self)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.labels: dict[str, QLabel] = {}
        for p in spec.params:
            w = self._widget(p, catalog)
            tip = tooltip_html([p.help] + ([f"<i>{p.limits_text()}</i>"] if p.limits_text() else [])
                               + [f"parameter <code>{p.name}</code>, command line <code>{p.cli_flag}</code>"])
            w.setToolTip(tip)
            label = QLabel(spec.label_of(p))
            label.setToolTip(tip)
            label.setBuddy(w)
            self.widgets[p.name] = w
            self.labels[p.name] = label
            form.addRow(label, w)

    @staticmethod
    def _widget(p: Any, catalog: Catalog) -> QWidget:
        if p.type == "int":
            w = QSpinBox()
            lo = int(p.minimum) if p.minimum is not None else -(2**31)
            w.setRange(lo, int(p.maximum) if p.maximum is not None else 2**31 - 1)
            w.setValue(int(p.default))
            ParamForm._automatic_zero(p, w)
            return w
        if p.type == "float":
            f = QDoubleSpinBox()
            f.setDecimals(2)
            f.setRange(p.minimum if p.minimum is not None else -1e12, p.maximum if p.maximum is not None else 1e12)
            f.setValue(float(p.default))
            ParamForm._automatic_zero(p, f)
            return f
        if p.type == "bool":
            c = QCheckBox()
            c.setChecked(bool(p.default))
            return c
        if p.type in ("choice", "model", "cable"):
            combo = QComboBox()
            if p.type == "choice":
                for ch in p.choices:
                    combo.addItem(ch, ch)
            elif p.type == "model":
                if p.default == "":
                    combo.addItem("(automatic)", "")
                for comp in sorted(catalog.by_kind(p.model_kind), key=lambda c: c.name):
                    combo.addItem(comp.name.split(" (")[0] + f"  [{comp.id}]", comp.id)
            else:
                combo.addItem("(chosen by reach)", "")
                for cab in sorted(catalog.cables.values(), key=lambda c: c.id):
                    if cab.medium not in BOARD_MEDIA:
                        combo.addItem(cab.id, cab.id)
            combo.setCurrentIndex(max(0, combo.findData(p.default)))
            return combo
        if isinstance(p.default, (tuple, list)):
            return QLineEdit("x".join(str(v) for v in p.default))
        return QLineEdit(str(p.default))

    @staticmethod
    def _automatic_zero(p: Any, box: QSpinBox | QDoubleSpinBox) -> None:
        """Show 'automatic' instead of 0 where the generator reads 0 as 'choose for me'."""
        if p.minimum is not None and float(p.minimum) == 0.0 and "0 =" in p.help:
            box.setSpecialValueText("automatic")

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, w in self.widgets.items():
            if isinstance(w, (QSpinBox, QDoubleSpinBox)):
                out[name] = w.value()
            elif isinstance(w, QCheckBox):
                out[name] = w.isChecked()
            elif isinstance(w, QComboBox):
                out[name] = w.currentData()
            elif isinstance(w, QLineEdit):
                out[name] = w.text()
        return out

    def set_value(self, name: str, value: Any) -> None:
        w = self.widgets[name]
        if isinstance(w, (QSpinBox, QDoubleSpinBox)):
            w.setValue(value)
        elif isinstance(w, QCheckBox):
            w.setChecked(bool(value))
        elif isinstance(w, QComboBox):
            w.setCurrentIndex(w.findData(value))
        elif isinstance(w, QLineEdit):
            w.setText(str(value))


class GenerateDialog(QDialog):
    """Pick a generator kind on the left, set its parameters on the right, press Generate."""

    def __init__(self, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Generate a fabric")
        self.catalog = catalog
        self.registry = generator_registry()
        self.kinds = QListWidget()
        self.kinds.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.description = QLabel()
        self.description.setWordWrap(True)
        self.description.setStyleSheet("color: #3E4C59; padding-bottom: 6px;")
        self.forms = QStackedWidget()
        self.form_by_kind: dict[str, ParamForm] = {}
        for kind, spec in self.registry.items():
            item = QListWidgetItem(spec.title)
            item.setData(Qt.ItemDataRole.UserRole, kind)
            item.setToolTip(f"<b>{spec.title}</b> (<code>{kind}</code>)<br>{spec.description}")
            self.kinds.addItem(item)
            form = ParamForm(spec, catalog)
            self.form_by_kind[kind] = form
            self.forms.addWidget(form)
        self.kinds.setFixedWidth(self.kinds.sizeHintForColumn(0) + 2 * self.kinds.frameWidth() + 16)
        self.kinds.currentRowChanged.connect(self._on_kinds_row_changed)
        self.error = QLabel()
        self.error.setStyleSheet("color: #D62828;")
        self.error.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.generate_button = buttons.addButton("Generate", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.try_accept)
        buttons.rejected.connect(self.reject)
        right = QVBoxLayout()
        right.addWidget(self.description)
        right.addWidget(self.forms, 1)
        body = QHBoxLayout()
        body.addWidget(self.kinds)
        body.addLayout(right, 1)
        lay = QVBoxLayout(self)
        lay.addLayout(body)
        lay.addWidget(self.error)
        lay.addWidget(buttons)
        self.result_design: Design | None = None
        if self.registry:
            self.kinds.setCurrentRow(0)

    def _on_kinds_row_changed(self, row: int) -> None:
        self.forms.setCurrentIndex(row)
        kind = self.current_kind()
        text = self.registry[kind].description if kind in self.registry else ""
        self.description.setText(text[:1].upper() + text[1:])  # a sentence under the generator's title

    def select_kind(self, kind: str) -> ParamForm:
        self.kinds.setCurrentRow(list(self.registry).index(kind))
        return self.form_by_kind[kind]

    def current_kind(self) -> str:
        item = self.kinds.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else ""

    def build(self) -> Design:
        """Build the design for the current form; raises DesignError for impossible parameters."""
        kind = self.current_kind()
        form = self.form_by_kind[kind]
        return self.registry[kind].build(catalog=self.catalog, **form.values())

    def try_accept(self) -> None:
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)  # a 16k-GPU fabric takes seconds
        try:
            self.result_design = self.build()
        except DesignError as e:
            self.error.setText(str(e))
            return
        finally:
            QApplication.restoreOverrideCursor()
        self.accept()
