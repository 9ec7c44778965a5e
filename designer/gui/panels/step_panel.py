"""The Training step panel: a workload's step on the design, part by part.

Compute, the pipeline bubble and each communicator's exposed time as horizontal bars, with the GPU
idle fraction, MFU and the cost of idle GPU time (:class:`designer.analysis.training.StepReport`,
the words of :mod:`designer.present.step_text`); shown when the analysis dock has a workload.
"""

from __future__ import annotations

import numpy as np

from designer.gui.panels.live_runner import LiveResult
from designer.gui.panels.part_bars import PartBarsPanel
from designer.gui.panels.plot_base import plot_pen
from designer.model import units
from designer.present.step_text import PHASE_NAMES, left_out_text, parallelism_text, tokens, usd

#: the step's parts: (key, legend label, colour)
STEP_PARTS = (("compute", "compute", "#2E7D32"), ("bubble", "pipeline bubble", "#8C8C8C"),
              ("network", "exposed communication, network", "#E07A00"),
              ("nvlink", "exposed communication, NVLink", "#6B3FA0"))


class StepPanel(PartBarsPanel):
    """A workload's training step: where its time goes, the GPU idle fraction and what it costs.

    One horizontal bar per part of the step (compute, the pipeline bubble, each communicator's
    exposed time, named with where it runs), coloured by kind (:data:`STEP_PARTS`); with
    failures, a tick marks each part without them. The CSV has each bar as a pair of points
    (0, row) .. (seconds, row), named by kind.
    """

    def __init__(self) -> None:
        super().__init__("Training step", STEP_PARTS)
        pi = self.plot.getPlotItem()
        pi.getAxis("bottom").enableAutoSIPrefix(False)  # the label names the unit chosen for the step
        self.baseline = pi.plot(name="without failures", pen=None, symbol="|", symbolSize=self.BAR_PX + 8,
                                symbolPen=plot_pen("#3A4350", 2))
        self.tips: list[str] = []  # hover text per bar
        self.time_unit = ("s", 1.0)
        self.plot.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.info.setText("Choose a workload in the Analysis dock to see its training step on this design.")

    def bar_at(self, scene_pos) -> int | None:
        """The bar (row) under a scene position, if any."""
        vb = self.plot.getPlotItem().getViewBox()
        if not self.categories or not vb.sceneBoundingRect().contains(scene_pos):
            return None
        row = int(round(vb.mapSceneToView(scene_pos).y()))
        return row if 0 <= row < len(self.categories) else None

    def _on_mouse_moved(self, scene_pos) -> None:
        row = self.bar_at(scene_pos)
        self.plot.setToolTip(self.tips[row] if row is not None and row < len(self.tips) else "")

    def bar_tips(self, step) -> list[str]:
        """Hover text of each bar: what the part is, its time and share of the step, and for communication
        the collective, groups, calls, message, time per call and bottleneck link."""
        total = step.step_time_s or 1.0

        def head(label: str, seconds: float) -> str:
            return f"{label}: {units.duration(seconds)}, {units.percent(seconds / total)} of the step"

        tips = [head("compute", step.compute_s) + f"\nMFU {units.percent(step.mfu)} at "
                f"{units.percent(step.efficiency)} kernel efficiency"]
        if step.bubble_s > 0:
            tips.append(head("pipeline bubble", step.bubble_s) + f"\nPP {step.parallelism.get('pp', 1)}: stages wait "
                        "at the start and end of each step")
        for p in step.phases:
            where = "network" if p.network else "NVLink"
            tip = (head(f"{PHASE_NAMES.get(p.name, p.name)} {p.collective} ({where}, exposed)", p.exposed_s)
                   + f"\n{p.algorithm}: {units.count(p.groups, 'group')} of {p.group_size:,}, "
                   f"{units.count(p.calls_per_step, 'call')} of {units.size(p.message_bytes)}, "
                   f"{units.duration(p.time_per_call_s)} each; total {units.duration(p.total_s)}, the rest hidden "
                   "behind compute")
            if p.bottleneck_link:
                tip += f"\nbottleneck link {p.bottleneck_link}"
            tips.append(tip)
        return tips

    def parts(self, step) -> list[tuple[str, str, float]]:
        """(part, label, seconds) of a step: compute, the bubble, each communicator's exposed time."""
        out = [("compute", "compute", step.compute_s)]
        if step.bubble_s > 0:
            out.append(("bubble", "pipeline bubble", step.bubble_s))
        for p in step.phases:
            where = "network" if p.network else "nvlink"
            out.append((where, f"{p.name} {p.collective}, {'network' if p.network else 'NVLink'}", p.exposed_s))
        return out

    def show_result(self, result: LiveResult | None) -> None:
        step = result.step if result is not None else None
        pi = self.plot.getPlotItem()
        categories = self.parts(step) if step is not None else []
        self.tips = self.bar_tips(step) if step is not None else []
        base = result.baseline_step if result is not None else None
        top = max([c[2] for c in categories] + ([s for *_x, s in self.parts(base)]
                                                 if base is not None and step is not None else []), default=0.0)
        self.time_unit = units.time_unit(top)
        unit, scale = self.time_unit
        pi.setLabel("bottom", f"time per step ({unit})")
        self.draw_rows(categories, top, scale)
        if base is not None and step is not None:
            b = {label: s / scale for _k, label, s in self.parts(base)}
            self.baseline.setData([b.get(label, 0.0) for _k, label, _s in self.categories],
                                  np.arange(len(self.categories), dtype=float))
        else:
            self.baseline.setData([], [])
        pi.getAxis("left").setTicks([[(i, c[1]) for i, c in enumerate(self.categories)]])
        if result is None or result.traffic.workload is None:
            self.figures.setText("")
            self.info.setText("Choose a workload in the Analysis dock to see its training step on this design.")
            return
        if step is None:
            self.figures.setText(f"<b>{result.traffic.workload.name}</b> cannot run here")
            self.info.setText(result.step_error)
            return
        idle = units.percent(step.gpu_idle_fraction)
        text = (f"<b>{units.duration(step.step_time_s)}</b> per step \u00b7 GPUs idle <b>{idle}</b> "
                f"({units.percent(step.comm_idle_fraction)} on communication) \u00b7 MFU "
                f"{units.percent(step.mfu)} \u00b7 {tokens(step.tokens_per_s)} tokens/s")
        if step.gpu_hour_usd > 0:
            text += f" \u00b7 idle time <b>{usd(step.idle_cost_per_day_usd)}/day</b>"
        if base is not None and base.step_time_s > 0:
            text += (f"<br>without failures (the ticks): {units.duration(base.step_time_s)} per step, idle "
                     f"{units.percent(base.gpu_idle_fraction)}")
        self.figures.setText(text)
        phases = ", ".join(f"{p.name} = {PHASE_NAMES.get(p.name, p.name)}" for p in step.phases)
        price = f" at {usd(step.gpu_hour_usd)} per GPU-hour ({step.price_source})" if step.gpu_hour_usd > 0 else ""
        par = result.traffic.workload.parallelism
        layout = parallelism_text(step, tuple(par.order))
        left = left_out_text(step, dp_fixed=bool(par.dp))
        short = f"; {step.idle_gpus:,} of {step.gpus + step.idle_gpus:,} GPUs left out (hover: why)" if left else ""
        self.set_info(f"{layout}{short}",
                      f"{step.workload}: {layout}.\n" + (f"{left}.\n" if left else "")
                      + "step = compute + pipeline bubble + exposed communication (the part compute does not "
                      "hide): green compute, grey bubble, orange network, purple NVLink; hover a bar for its "
                      f"figures.\n{phases}.\nIdle cost{price}.")
