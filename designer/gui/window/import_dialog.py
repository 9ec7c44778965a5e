"""File ▸ Import…: another tool's fabric description (ibnetdiscover, GML, GraphML, Slurm...) as a new design.

The same import as ``topo-designer import`` (:mod:`designer.io.importers`): choose a file, then the
options the file cannot give (format, default rate, GPUs per host adapter, node-name map). The
imported design replaces the one shown as an ordinary edit ("Undo Import <file>" brings the previous
design and its file name back), unsaved and without a file name, so closing asks where to keep it;
the import report (what was
read, guessed and skipped, with line numbers) shows in a window of its own. Errors are dialogs.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from designer.io.importers import (
    ATTRIBUTE_KEYS,
    FORMATS,
    ImportOptions,
    ImportReport,
    check_hosts_regex,
    import_file,
    parse_attribute_mapping,
    parse_rate_option,
    read_name_map,
    read_server_template,
)
from designer.io.importers.hosts import nvswitch_for
from designer.model import DesignError
from designer.model.catalog import Catalog

if TYPE_CHECKING:
    from designer.gui.window.main_window import MainWindow

FILE_FILTER = ("Fabric descriptions (*.topofile *.ibnetdiscover *.ibnet *.lst *.txt *.gml *.graphml *.xml *.conf "
               "*.yml *.yaml);;All files (*)")


class ImportOptionsDialog(QDialog):
    """The options of an import: format (detected by default), default rate, GPUs per adapter, name map,
    graph attribute mapping."""

    def __init__(self, parent: QWidget | None, path: str, catalog: Catalog) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.setWindowTitle(f"Import \u2014 {Path(path).name}")
        self.format = QComboBox()
        self.format.addItem("Detect from the content", None)
        for name, mod in FORMATS.items():
            self.format.addItem(mod.TITLE, name)
        self.rate = QLineEdit()
        self.rate.setPlaceholderText("from the file (e.g. 400G)")
        self.rate.setToolTip("Rate of links whose speed the file does not give, per direction: 400G, 100Gb/s, 25")
        self.gpus = QSpinBox()
        self.gpus.setRange(0, 64)
        self.gpus.setValue(1)
        self.gpus.setToolTip("GPUs stamped behind each host adapter as the analysis' endpoints (0: none)")
        self.name_map = QLineEdit()
        self.name_map.setPlaceholderText("none")
        browse = QPushButton("Browse\u2026")
        browse.clicked.connect(self._browse_map)
        row = QHBoxLayout()
        row.addWidget(self.name_map)
        row.addWidget(browse)
        self.server = QComboBox()
        self.server.setEditable(True)
        self.server.addItem("Guess from the hosts' adapters (8 HDR: DGX A100, 8 NDR: DGX H100)", "auto")
        self.server.addItem("None: GPUs per host adapter", "none")
        for comp in sorted(catalog.by_kind("gpu"), key=lambda c: c.id):
            if nvswitch_for(comp, catalog) is not None:
                self.server.addItem(f"{comp.id}: an NVSwitch board of {comp.name}", comp.id)
        self.server.setToolTip("What each GPU host is: guessed, none, a catalog GPU's NVSwitch board, or the path of "
                               "an NCCL topology XML of one server")
        server_row = QHBoxLayout()
        server_row.addWidget(self.server, 1)
        browse_xml = QPushButton("NCCL XML\u2026")
        browse_xml.clicked.connect(self._browse_server)
        server_row.addWidget(browse_xml)
        self.hosts = QLineEdit()
        self.hosts.setPlaceholderText("<host> HCA-<n>, <host> mlx5_<n> or a bare host name")
        self.hosts.setToolTip("A regular expression naming an adapter's host from its node description: its group "
                              "'host', else its first group (e.g. ^(\\S+) )")
        self.attributes = QLineEdit()
        self.attributes.setPlaceholderText("e.g. rate=bw, rate_unit=M, kind=type")
        self.attributes.setToolTip(f"GML/GraphML: which attribute holds what ({', '.join(ATTRIBUTE_KEYS)})")
        form = QFormLayout()
        form.addRow("Format", self.format)
        form.addRow("Default rate", self.rate)
        form.addRow("GPUs per host adapter", self.gpus)
        form.addRow("Node-name map", row)
        form.addRow("GPU hosts are", server_row)
        form.addRow("Host names", self.hosts)
        form.addRow("Graph attributes", self.attributes)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Import")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("What the file does not say is guessed, and the import report lists every guess."))
        lay.addLayout(form)
        lay.addWidget(buttons)

    def _browse_map(self) -> None:
        from designer.gui.window.main_window import last_folder

        path, _ = QFileDialog.getOpenFileName(self, "Node-name map", last_folder(), "All files (*)")
        if path:
            self.name_map.setText(path)

    def _browse_server(self) -> None:
        from designer.gui.window.main_window import last_folder

        path, _ = QFileDialog.getOpenFileName(self, "One server's NCCL topology", last_folder(),
                                              "NCCL topology (*.xml);;Designs (*.json);;All files (*)")
        if path:
            self.server.setEditText(path)

    def options(self) -> ImportOptions:
        """The chosen options; DesignError when a field does not read (a rate that is not one...)."""
        opts = ImportOptions(format=self.format.currentData(), gpus_per_adapter=self.gpus.value(),
                             catalog=self.catalog)
        if self.rate.text().strip():
            opts.default_rate_gbps = parse_rate_option(self.rate.text().strip())
        if self.name_map.text().strip():
            opts.name_map = read_name_map(self.name_map.text().strip())
        opts.attributes = parse_attribute_mapping(self.attributes.text())
        if self.hosts.text().strip():
            opts.hosts_regex = check_hosts_regex(self.hosts.text().strip())
        index = self.server.findText(self.server.currentText())
        server = self.server.itemData(index) if index >= 0 else self.server.currentText().strip()
        if server and Path(str(server)).suffix.lower() in (".xml", ".json"):
            opts.server_template = read_server_template(str(server))
        else:
            opts.server = str(server or "auto")
        return opts


class ImportReportWindow(QDialog):
    """The import report as text, beside the window (not modal)."""

    def __init__(self, parent: QWidget | None, report: ImportReport) -> None:
        super().__init__(parent)
        self.setObjectName("import_report")
        self.setWindowTitle(f"Import report \u2014 {Path(report.source).name}")
        text = QPlainTextEdit("\n".join(report.summary_lines(limit=200)))
        text.setReadOnly(True)
        text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        lay = QVBoxLayout(self)
        lay.addWidget(text)
        lay.addWidget(buttons)
        self.text = text
        self.resize(760, 420)


def import_fabric(window: MainWindow, path: str | None = None, options: ImportOptions | None = None) -> bool:
    """File ▸ Import…: ask for a file and options (unless given), import, show the design as one undo step."""
    if path is None:
        from designer.gui.window.main_window import last_folder, remember_folder

        path, _ = QFileDialog.getOpenFileName(window, "Import a fabric", last_folder(), FILE_FILTER)
        if not path:
            return False
        remember_folder(path)
    try:
        if options is None:
            dialog = ImportOptionsDialog(window, path, window.catalog)
            if dialog.exec() != QDialog.DialogCode.Accepted:
                return False
            options = dialog.options()
        if options.catalog is None:
            options = dataclasses.replace(options, catalog=window.catalog)
        design, report = import_file(path, options)
    except DesignError as e:
        window.show_error("Cannot import", str(e))
        return False
    except MemoryError:
        window.show_error("Cannot import", f"{path}: out of memory")
        return False
    window.document.replace(design, None, f"Import {Path(path).name}")
    window.import_report = ImportReportWindow(window, report)
    window.import_report.show()
    guessed = sum(report.counts["guessed"].values())
    skipped = sum(report.counts["skipped"].values())
    window.statusBar().showMessage(f"imported {path} as {report.format}: {guessed} guessed, {skipped} skipped "
                                   "(see the import report)", 8000)
    return True
