"""The Serving panel: where each token's time goes, per phase, for a serving workload on the design.

For prefill (one step gives the first token) and decode (one step gives one token of every sequence
in the batch), horizontal bars: the compute time, the memory time beyond it (the GPU waits on HBM),
and each communication's exposed time (tensor-parallel all-reduce, expert dispatch and combine,
pipeline sends, the KV-cache transfer to decode), coloured by kind; over them, TTFT, TPOT, tokens/s
per GPU and what bounds decode (:class:`designer.analysis.serving.model.ServingReport`, the words of
:mod:`designer.present.serving_text`). Shown when the analysis dock has a serving workload.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from designer.gui.panels.live_runner import LiveResult
from designer.gui.panels.part_bars import PartBarsPanel
from designer.model import units
from designer.present.serving_text import phase_parts

if TYPE_CHECKING:
    from designer.analysis.serving.model import ServingReport

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


class ServingPanel(PartBarsPanel):
    """A serving workload's TTFT and TPOT, split into compute, memory and exposed communication per phase.

    The CSV has each bar as a pair of points (0, row) .. (seconds, row), named by kind.
    """

    BAR_PX = 22

    def __init__(self) -> None:
        super().__init__("Serving", SERVING_PARTS)
        self.info.setText(HINT)

    def show_result(self, result: LiveResult | None) -> None:
        rep = result.serving if result is not None else None
        categories = serving_parts(rep) if rep is not None else []
        seconds = np.array([c[2] for c in categories])
        top = float(seconds.max()) if len(seconds) and np.isfinite(seconds).all() else 1.0
        self.draw_rows(categories, top)
        self.set_left_ticks([(float(i), c[1]) for i, c in enumerate(self.categories)])
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
