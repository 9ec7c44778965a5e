"""Design rules on the canvas: re-check after edits (debounced) and mark what breaks a rule."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer, Signal

from designer.analysis.rules import check_design
from designer.gui.document import Document
from designer.gui.scene import DesignScene
from designer.model import Design

DEBOUNCE_MS = 400


class RuleChecker(QObject):
    """Runs ``check_design`` a moment after the design stops changing; marks findings in the scene."""

    #: (number of errors, number of warnings)
    checked = Signal(int, int)

    def __init__(self, document: Document, scene: DesignScene) -> None:
        super().__init__(document)
        self.document = document
        self.scene = scene
        self.findings: list = []
        self.last_duration_s = 0.0
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self.timer.timeout.connect(self.run)
        self._design: Design | None = None
        document.design_replaced.connect(self._on_document_design_replaced)
        self._on_document_design_replaced(document.design)

    def _on_document_design_replaced(self, design: Design) -> None:
        if self._design is not None:
            self._design.changed.disconnect(self.timer.start)
        self._design = design
        design.changed.connect(self.timer.start)
        self.timer.start()

    def run(self) -> None:
        """Check now and mark the scene."""
        self.timer.stop()
        t0 = time.perf_counter()
        findings = check_design(self.document.design, self.document.catalog)
        self.last_duration_s = time.perf_counter() - t0
        self.findings = findings
        by_dev: dict[str, list[str]] = {}
        by_link: dict[str, list[str]] = {}
        for f in findings:
            text = f"{f.severity}: {f.message}"
            if f.links:
                for lid in f.links:
                    by_link.setdefault(lid, []).append(text)
            else:
                for did in f.devices:
                    by_dev.setdefault(did, []).append(text)
        self.scene.set_findings(by_dev, by_link)
        errors = sum(1 for f in findings if f.severity == "error")
        self.checked.emit(errors, len(findings) - errors)
