"""One point of a sweep, evaluated where it runs (a Dask worker): rebuild the design, analyse it, one row.

The design is built from the point's parameters by the generator registry; every figure comes
from the analysis entry points the rest of the product uses: :func:`designer.analysis.analyze`
(bisection bounds, collective times), :func:`designer.analysis.bom.bill.bill_of_materials` (switches,
cables, power, cost), :func:`designer.analysis.training.step_analysis` (step time, GPU idle
fraction, time to train), :func:`designer.analysis.serving.model.serving_analysis` (TTFT, TPOT,
tokens/s per GPU) and :func:`designer.analysis.training.failures.n1_scan`. A point whose
parameters the generator refuses, or whose workload does not fit, is a row with status
``refused`` and the one-line reason; anything unexpected is ``failed`` with its error. Nothing
here raises.
"""

from __future__ import annotations

import math
import time
from typing import Any

from designer.analysis.serving.workload import ServingWorkload
from designer.analysis.training.workload import Workload
from designer.model import Design, DesignError
from designer.model.catalog import Catalog
from designer.sweep.results import base_row
from designer.sweep.spec import Point, SweepError


def evaluate_point(point: Point, catalog: Catalog | None = None) -> dict[str, Any]:
    """The result row of ``point`` (see :func:`designer.sweep.results.columns`)."""
    t0 = time.perf_counter()
    row = base_row(point)
    try:
        _metrics(point, catalog, row)
        row["status"] = "ok"
    except DesignError as e:
        row["status"], row["error"] = "refused", str(e)
    except MemoryError:
        row["status"], row["error"] = "failed", "out of memory"
    except Exception as e:  # noqa: BLE001 - a failing point is recorded and the sweep goes on
        row["status"], row["error"] = "failed", f"{type(e).__name__}: {e}"
    row["seconds"] = time.perf_counter() - t0
    return row


def design_of(row: dict[str, Any], catalog: Catalog | None = None) -> Design:
    """The design of a result row, rebuilt by its generator from the row's parameters."""
    from designer.generators import GENERATORS
    from designer.sweep.results import parameters_of

    kind = row.get("generator")
    if kind not in GENERATORS:
        raise SweepError(f"point {row.get('point')}: unknown generator {kind!r}")
    if row.get("status") == "refused":
        raise SweepError(f"point {row.get('point')} was refused: {row.get('error') or 'no reason recorded'}")
    design = GENERATORS[kind].build(catalog, **parameters_of(row))
    design.name = f"{design.name or kind} (sweep point {row.get('point')})"
    return design


def _metrics(point: Point, catalog: Catalog | None, row: dict[str, Any]) -> None:
    from designer.analysis import analyze, build_context
    from designer.generators import GENERATORS

    s = point.settings
    design = GENERATORS[point.generator].build(catalog, **point.params)
    row["devices"] = design.device_count()
    row["gpus"] = sum(1 for d in design.iter_devices() if d.kind == "gpu")
    ctx = build_context(design, catalog)
    if "bom" in s.metrics:
        from designer.analysis.bom.bill import bill_of_materials

        bom = bill_of_materials(design, catalog)
        row["switches"] = bom.quantity("switch")
        row["cables"] = bom.quantity("cable")
        row["power_w"] = float(bom.total_power_w)
        row["cost_usd"] = float(bom.total_price_usd)
    if "bisection" in s.metrics or "collective" in s.metrics:
        rep = analyze(design, catalog, collective=s.collective, sizes=list(s.sizes), top=1, context=ctx)
        row["links"] = rep.design.links
        if "bisection" in s.metrics:
            b = rep.bisection  # no value (None) with fewer than two GPUs
            row["bisection_lower_bytes_per_s"] = None if b.lower_bytes_per_s is None else float(b.lower_bytes_per_s)
            row["bisection_upper_bytes_per_s"] = None if b.upper_bytes_per_s is None else float(b.upper_bytes_per_s)
        if "collective" in s.metrics:
            selected = {r.message_bytes: r for r in rep.selected()}
            for n, name in zip(s.sizes, s.size_names, strict=True):
                r = selected.get(n)
                prefix = f"{s.collective}_{name}"
                if r is None:
                    continue
                row[f"{prefix}_time_s"] = float(r.time_s)
                row[f"{prefix}_busbw_bytes_per_s"] = float(r.busbw_bytes_per_s)
                row[f"{prefix}_algorithm"] = r.algorithm
    training = point.workload if isinstance(point.workload, Workload) else None
    if "step" in s.metrics and training is not None:
        from designer.analysis.training import step_analysis

        step = step_analysis(ctx, training, catalog)
        row["step_time_s"] = float(step.step_time_s)
        row["gpu_idle_fraction"] = float(step.gpu_idle_fraction)
        row["mfu"] = float(step.mfu)
        row["tokens_per_s"] = float(step.tokens_per_s)
        row["time_to_train_s"] = float(step.time_to_train_s)
        row["idle_cost_to_train_usd"] = float(step.idle_cost_to_train_usd)
    if "serving" in s.metrics and isinstance(point.workload, ServingWorkload):
        from designer.analysis.serving.model import serving_analysis

        served = serving_analysis(ctx, point.workload, catalog)
        row["ttft_s"] = float(served.ttft_s)
        row["tpot_s"] = float(served.tpot_s)
        row["output_tokens_per_s_per_gpu"] = float(served.output_tokens_per_s_per_gpu)
        row["input_tokens_per_s_per_gpu"] = float(served.input_tokens_per_s_per_gpu)
        row["network_share_ttft"] = float(served.network_share_ttft)
        row["network_share_tpot"] = float(served.network_share_tpot)
        row["serving_bound"] = served.bound
    if "failures" in s.metrics and s.failures:
        from designer.analysis.training.failures import n1_scan

        scan = n1_scan(design, links=s.failures == "links", workload=training, catalog=catalog)
        row["n1_classes"] = scan.classes
        if scan.rows:
            worst = scan.rows[0]
            row["n1_worst"] = worst.element
            row["n1_gpus_cut_off"] = max(r.gpus_cut_off for r in scan.rows)
            row["n1_lost_bisection_bytes_per_s"] = max(r.lost_bisection_bytes_per_s for r in scan.rows)
            added = [r.added_step_s for r in scan.rows if r.added_step_s is not None]
            if added:
                row["n1_added_step_s"] = max(added) if all(not math.isnan(a) for a in added) else math.nan
