"""The Serving panel: where each token's time goes, per phase, for a serving workload on the design.

For prefill (one step gives the first token) and decode (one step gives one token of every sequence
in the batch), horizontal bars: the compute time, the memory time beyond it (the GPU waits on HBM),
and each communication's exposed time (tensor-parallel all-reduce, expert dispatch and combine,
pipeline sends, the KV-cache transfer to decode), coloured by kind; over them, TTFT, TPOT, tokens/s
per GPU and what bounds decode (:class:`designer.analysis.serving.model.ServingReport`, the words of
:mod:`designer.present.serving_text`). Shown when the analysis dock has a serving workload.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from designer.analysis.serving.model import ServingReport
from designer.gui.panels.live_runner import LiveResult
from designer.gui.panels.plot_base import PlotPanel
from designer.model import units
from designer.present.serving_text import phase_parts

#: the parts of a step: (key, legend label, colour)
SERVING_PARTS = (("compute", "compute", "#2E7D32"), ("memory", "memory (beyond compute)", "#1E6FD9"),
                 ("network", "exposed communication, network", "#E07A00"),
                 ("nvlink", "exposed communication, NVLink", "#6B3FA0"))
HINT = "Choose a serving workload in the Analysis dock to see where each token's time goes on this design."


def serving_parts(rep: ServingReport) -> list[tuple[str, str, float]]:
    """(part, label, seconds) of each phase's step: compute, memory beyond it, each exposed communication
    (the prefill's KV-cache transfer last), in the order a token meets them."""
    out: list[tuple[str, str, float]] = []
    for phase in (rep.prefill, rep.decode):
        parts = phase_parts(phase)
        out.append(("compute", f"{phase.phase}: compute", parts["compute"]))
        if parts["memory"] > 0:
            out.append(("memory", f"{phase.phase}: memory", parts["memory"]))
        for c in phase.comm:
            out.append(("network" if c.network else "nvlink", f"{phase.phase}: {c.name}", c.exposed_s))
        if phase is rep.prefill and rep.kv_transfer is not None:
            k = rep.kv_transfer
            out.append(("network" if k.network else "nvlink", f"{phase.phase}: {k.name}", k.exposed_s))
    return out


class ServingPanel(PlotPanel):
    """A serving workload's TTFT and TPOT, split into compute, memory and exposed communication per phase.

    The CSV has each bar as a pair of points (0, row) .. (seconds, row), named by kind.
    """

    BAR_PX = 22

    def __init__(self) -> None:
        super().__init__("Serving")
        pi = self.plot.getPlotItem()
        pi.setLabel("bottom", "time per step", units="s")
        pi.showGrid(x=True, y=False, alpha=0.25)
        pi.invertY(True)
        pi.setMouseEnabled(x=True, y=False)
        self.figures = QLabel("")
        self.figures.setWordWrap(True)
        self.figures.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.layout_.addWidget(self.figures)
        self.layout_.addWidget(self.plot, 1)
        self.layout_.addWidget(self.info)
        self.bars: dict[str, pg.PlotDataItem] = {}
        for key, label, colour in SERVING_PARTS:
            self.bars[key] = pi.plot(name=label, pen=pg.mkPen(colour, width=self.BAR_PX, cap=Qt.PenCapStyle.FlatCap),
                                     connect="pairs")
        self.categories: list[tuple[str, str, float]] = []
        pi.getViewBox().sigResized.connect(self._fit_bars)
        self.info.setText(HINT)

    def _fit_bars(self, *_args) -> None:
        rows = max(1, len(self.categories))
        row_px = self.plot.getPlotItem().getViewBox().height() / rows
        width = max(2.0, min(float(self.BAR_PX), 0.66 * row_px))
        for key, _label, colour in SERVING_PARTS:
            self.bars[key].setPen(pg.mkPen(colour, width=width, cap=Qt.PenCapStyle.FlatCap))

    def show_result(self, result: LiveResult | None) -> None:
        rep = result.serving if result is not None else None
        pi = self.plot.getPlotItem()
        self.categories = serving_parts(rep) if rep is not None else []
        seconds = np.array([c[2] for c in self.categories])
        for key, bar in self.bars.items():
            rows = [i for i, c in enumerate(self.categories) if c[0] == key]
            if not rows:
                bar.setData([], [])
                continue
            bar.setData(np.ravel([(0.0, seconds[i]) for i in rows]), np.repeat(np.array(rows, dtype=float), 2))
        self.set_left_ticks([(float(i), c[1]) for i, c in enumerate(self.categories)])
        self._fit_bars()
        if self.categories:
            pi.setYRange(-0.6, len(self.categories) - 0.4, padding=0)
            top = float(seconds.max()) if np.isfinite(seconds).all() else 1.0
            pi.setXRange(0, top * 1.05 or 1.0, padding=0)
        workload = result.traffic.serving if result is not None else None
        if rep is None:
            self.figures.setText(f"<b>{workload.name}</b> cannot be served here" if workload is not None else "")
            self.info.setText(result.serving_error if workload is not None else HINT)
            return
        self.figures.setText(
            f"TTFT <b>{units.duration(rep.ttft_s)}</b> (network {units.percent(rep.network_share_ttft)}), TPOT "
            f"<b>{units.duration(rep.tpot_s)}</b> (network {units.percent(rep.network_share_tpot)}); "
            f"{units.figures(rep.output_tokens_per_s_per_gpu)} output tokens/s per GPU; decode is "
            f"<b>{rep.bound}-bound</b>")
        self.set_info(f"{rep.workload} ({rep.mode}) on {units.count(rep.gpus, 'GPU')}; green compute, blue memory "
                      "beyond compute, exposed communication orange (network) or purple (NVLink)",
                      "A step is one forward pass of an instance over its batch: the prefill bars add up to the time "
                      "to first token, the decode bars to the time per output token; step = GPU time (the larger of "
                      "compute and memory) + exposed communication (docs/serving.md)."
                      + (f"\nBottleneck link: {rep.bottleneck_link}." if rep.bottleneck_link else ""))


__all__ = ["SERVING_PARTS", "ServingPanel", "serving_parts"]
