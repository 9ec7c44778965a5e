"""The assumptions behind a report: every constant the analysis uses, with value, unit and source.

Two kinds (block ``assumptions`` of the export report, docs/report-format.md):

- ``constants``: the analyzer's, the step model's and the serving model's constants. The values are
  read from :mod:`designer.analysis.common.constants`, :mod:`designer.analysis.training.constants` and
  :mod:`designer.analysis.serving.constants`, and each
  source is the ``#:`` comment written above the constant there, so code and report cannot
  disagree. A dict constant gives one row per key (``PROTOCOL_EFFICIENCY[infiniband]``).
- ``catalog``: the catalog figures of the models and cables the design uses (power, price,
  latency, reach, peak FLOP/s...), each with the catalog's own ``sources`` text.
"""

from __future__ import annotations

import inspect
import re
from types import ModuleType
from typing import Any

from designer.analysis.common import constants as analysis_constants
from designer.analysis.serving import constants as serving_constants
from designer.analysis.training import constants as training_constants
from designer.model import Design
from designer.model.catalog import Catalog, builtin_catalog

#: Unit of each constant reported (names not listed here are helpers, not assumptions).
CONSTANT_UNITS: dict[str, dict[str, str]] = {
    "designer.analysis.common.constants": {
        "BYTES_PER_S_PER_GBPS": "bytes/s per Gb/s",
        "NVLINK_EFFICIENCY": "fraction of line rate",
        "NVLINK_EFFICIENCY_BY_GEN": "fraction of line rate, by NVLink generation",
        "INFINIBAND_EFFICIENCY": "fraction of line rate",
        "ETHERNET_EFFICIENCY": "fraction of line rate",
        "PCIE_EFFICIENCY": "fraction of line rate",
        "DIRECT_EFFICIENCY": "fraction of line rate",
        "NVLS_EFFICIENCY": "fraction of effective NVLink rate",
        "NVLS_TREE_MAX_BUSBW_PER_CHANNEL": "bytes/s of busbw per rail channel, by servers (3: 3 or more)",
        "SHARP_EFFICIENCY": "fraction",
        "TREE_EFFICIENCY": "fraction",
        "PROTOCOL_BW_FACTOR": "fraction of Simple protocol bandwidth",
        "BASE_LATENCY_S": "s per collective call",
        "STEP_LATENCY_S": "s per algorithm step",
        "DIRECT_STEP_LATENCY_S": "s per algorithm step",
        "RING_PLATEAU_FACTOR": "factor",
        "RING_PLATEAU_BYTES_PER_RANK": "bytes per rank",
        "CABLE_LATENCY_S_PER_M": "s/m",
        "DEFAULT_SWITCH_LATENCY_S": "s per switch hop",
        "NIC_LATENCY_S": "s per network traversal",
        "MIN_LINK_GBPS": "Gb/s",
        "MAX_LINK_GBPS": "Gb/s",
        "EXACT_RTOL": "relative tolerance",
        "PAIR_WORK_BUDGET": "array elements",
        "CLASS_ROUTING_MIN": "switches",
        "FAIR_WORK_BUDGET": "array elements",
        "FAIR_MAX_NNZ": "matrix entries",
    },
    "designer.analysis.training.constants": {
        "FLOPS_PER_PARAM_PER_TOKEN": "FLOP per parameter per token",
        "BACKWARD_SHARE": "fraction of compute",
        "FORWARD_SHARE": "fraction of compute",
        "COMPUTE_EFFICIENCY": "fraction of peak FLOP/s",
        "RECOMPUTE_FACTOR": "factor",
        "DDP_BUCKET_BYTES": "bytes",
        "OVERLAP_FRACTION": "fraction",
        "TP_OVERLAP": "fraction",
        "GRADIENT_BYTES": "bytes per element",
        "ACTIVATION_BYTES": "bytes per element",
        "AMORTISATION_YEARS": "years",
        "HOURS_PER_YEAR": "hours",
        "INPUT_BYTES_PER_TOKEN": "bytes per token",
        "CONCURRENT_FAIR_MAX_FLOWS": "flows",
    },
    "designer.analysis.serving.constants": {
        "DTYPE_BYTES": "bytes per element, by data type",
        "FP8_OVER_BF16_PEAK": "factor",
        "FP8_SCALE_BYTES_PER_ELEMENT": "bytes per element",
        "MEMORY_EFFICIENCY": "fraction of peak HBM bytes/s",
        "MEMORY_USABLE_FRACTION": "fraction of GPU memory",
        "EP_EFFICIENCY": "fraction of effective link rate, by kernel mode and transport",
        "EP_CALL_LATENCY_S": "s per call",
    },
}
#: Each constant in plain words; ``{0}``, ``{1}``... stand for the parts of a table constant's key.
CONSTANT_WORDS: dict[str, str] = {
    "BYTES_PER_S_PER_GBPS": "Bytes per second in one Gb/s of line rate",
    "NVLINK_EFFICIENCY": "Share of an NVLink link's line rate that NCCL's collectives reach",
    "NVLINK_EFFICIENCY_BY_GEN": "Share of NVLink line rate that NCCL reaches, NVLink generation {0}",
    "INFINIBAND_EFFICIENCY": "Share of an InfiniBand NIC's line rate that collectives reach",
    "ETHERNET_EFFICIENCY": "Share of an Ethernet (RoCE) NIC's line rate that collectives reach",
    "PCIE_EFFICIENCY": "Share of a PCIe link's raw rate left for data",
    "DIRECT_EFFICIENCY": "Share of a direct chip-to-chip link's rate that collectives reach",
    "NVLS_EFFICIENCY": "NVLink SHARP (NVLS) all-reduce: its data rate against the effective NVLink rate",
    "NVLS_TREE_MAX_BUSBW_PER_CHANNEL": "NVLS across servers: NCCL's limit of bus bandwidth per channel, {0} servers",
    "SHARP_EFFICIENCY": "InfiniBand SHARP in-network reduction: share of the NIC rate it reaches",
    "TREE_EFFICIENCY": "NCCL's tree algorithm: its bandwidth correction",
    "PROTOCOL_BW_FACTOR": "Bandwidth of NCCL's {0} algorithm with the {1} protocol, against the Simple protocol",
    "BASE_LATENCY_S": "Software start-up time of a collective call: {0} algorithm, {1} protocol",
    "STEP_LATENCY_S": "Hardware time of one algorithm step over {0}: {1} algorithm, {2} protocol",
    "DIRECT_STEP_LATENCY_S": "Time of one step over a direct chip link, {0} protocol",
    "RING_PLATEAU_FACTOR": "NCCL's extra latency factor for large ring all-reduces across servers",
    "RING_PLATEAU_BYTES_PER_RANK": "Message size per GPU above which that factor applies",
    "CABLE_LATENCY_S_PER_M": "Signal delay per metre of a cable not in the catalog",
    "DEFAULT_SWITCH_LATENCY_S": "Port-to-port delay of a {0} switch whose model gives none",
    "NIC_LATENCY_S": "Delay the NICs add each time data crosses the network (send and receive)",
    "MIN_LINK_GBPS": "Slowest link counted (a slower one counts as no capacity)",
    "MAX_LINK_GBPS": "Fastest link rate accepted",
    "EXACT_RTOL": "Tolerance within which the two bisection bounds count as equal",
    "PAIR_WORK_BUDGET": "Size limit of the detailed per-pair routing (larger fabrics take a cheaper method)",
    "CLASS_ROUTING_MIN": "Switch count above which twin switches are routed once as a class",
    "FAIR_WORK_BUDGET": "Size limit of the fair-share computation (flows by links)",
    "FAIR_MAX_NNZ": "Size limit of the fair-share matrix",
    "FLOPS_PER_PARAM_PER_TOKEN": "Training arithmetic per parameter per token",
    "BACKWARD_SHARE": "Share of a step's compute in the backward pass",
    "FORWARD_SHARE": "Share of a step's compute in the forward pass",
    "COMPUTE_EFFICIENCY": "Share of the GPU's peak arithmetic rate the model's kernels reach",
    "RECOMPUTE_FACTOR": "Extra compute when activations are recomputed",
    "DDP_BUCKET_BYTES": "Size of a gradient bucket (PyTorch DDP's default)",
    "OVERLAP_FRACTION": "Share of data-parallel communication hidden behind compute",
    "TP_OVERLAP": "Share of tensor-parallel communication hidden behind compute",
    "GRADIENT_BYTES": "Size of a gradient value sent between GPUs",
    "ACTIVATION_BYTES": "Size of an activation value sent between GPUs",
    "AMORTISATION_YEARS": "Years over which a GPU's price is spread to cost its idle time",
    "HOURS_PER_YEAR": "Hours in a year",
    "INPUT_BYTES_PER_TOKEN": "Training data read per token",
    "CONCURRENT_FAIR_MAX_FLOWS": "Flow count up to which concurrent communicators share links fairly",
    "DTYPE_BYTES": "Size of a {0} value",
    "FP8_OVER_BF16_PEAK": "Peak arithmetic rate in FP8 against BF16",
    "FP8_SCALE_BYTES_PER_ELEMENT": "Extra bytes per FP8 activation value for its scale",
    "MEMORY_EFFICIENCY": "Share of the GPU's peak memory bandwidth the decode kernels reach",
    "MEMORY_USABLE_FRACTION": "Share of GPU memory the serving engine may fill",
    "EP_EFFICIENCY": "Expert all-to-all ({0} kernels over {1}): share of the effective link rate",
    "EP_CALL_LATENCY_S": "Fixed time of one expert dispatch or combine call",
}
#: How the parts of a table constant's key read.
_KEY_WORDS = {"nvlink": "NVLink", "pcie": "PCIe", "net": "the network", "infiniband": "InfiniBand",
              "ethernet": "Ethernet", "3": "3 or more", "rdma": "RDMA", "low_latency": "low-latency",
              "fp32": "FP32", "bf16": "BF16", "fp16": "FP16", "fp8": "FP8", "nvls": "NVLS", "nvls_tree": "NVLS-tree",
              "sharp": "SHARP"}


def constant_meaning(name: str, key: Any = None) -> str:
    """A constant (with the key of a table constant's entry) in plain words.

    >>> constant_meaning("STEP_LATENCY_S", ("net", "ring", "Simple"))
    'Hardware time of one algorithm step over the network: ring algorithm, Simple protocol'
    """
    parts = key if isinstance(key, tuple) else () if key is None else (key,)
    words = CONSTANT_WORDS.get(name, name)
    return words.format(*(_KEY_WORDS.get(str(p), str(p)) for p in parts)) if parts else words


_MODULES: tuple[ModuleType, ...] = (analysis_constants, training_constants, serving_constants)
#: Which constants only the workload models use (listed only when a workload is analysed).
_WORKLOAD_MODULES = ("designer.analysis.training.constants", "designer.analysis.serving.constants")


def constant_comments(module: ModuleType) -> dict[str, str]:
    """The ``#:`` comment block written above each ``NAME = ...`` of a module, joined into one line.

    A constant on the line right after another one shares its comment (``MIN_LINK_GBPS`` /
    ``MAX_LINK_GBPS``).
    """
    try:
        lines = inspect.getsource(module).splitlines()
    except (OSError, TypeError):
        return {}
    out: dict[str, str] = {}
    block: list[str] = []
    previous = ""  # the comment of the assignment on the line before, if any
    for line in lines:
        if line.startswith("#:"):
            block.append(line[2:].strip())
            continue
        m = re.match(r"([A-Z][A-Z0-9_]*)\s*(?::[^=]*)?=", line)
        comment = " ".join(block) if block else previous if m else ""
        if m and comment:
            out[m.group(1)] = comment
        previous = comment if m else ""
        block = []
    return out


def _key_text(key: Any) -> str:
    return ",".join(str(k) for k in key) if isinstance(key, tuple) else str(key)


def constants_rows(workload: bool = True) -> list[dict[str, Any]]:
    """One row per constant (and per key of a dict constant): ``name``, ``value``, ``unit``, ``meaning``
    (plain words), ``source``.

    >>> rows = constants_rows()
    >>> row = next(r for r in rows if r["name"] == "INFINIBAND_EFFICIENCY")
    >>> row["value"], row["unit"], "#290" in row["source"]
    (0.96, 'fraction of line rate', True)
    """
    rows: list[dict[str, Any]] = []
    for module in _MODULES:
        if module.__name__ in _WORKLOAD_MODULES and not workload:
            continue
        units = CONSTANT_UNITS[module.__name__]
        comments = constant_comments(module)
        where = module.__name__.replace(".", "/") + ".py"
        for name, unit in units.items():
            value = getattr(module, name)
            source = comments.get(name) or f"see {where}"
            if isinstance(value, dict):
                # a dict's own comment often names the source of its entries in the constants above it
                for key, v in value.items():
                    rows.append({"name": f"{name}[{_key_text(key)}]", "value": float(v), "unit": unit,
                                 "meaning": constant_meaning(name, key), "source": source, "defined_in": where})
            else:
                rows.append({"name": name, "value": float(value), "unit": unit,
                             "meaning": constant_meaning(name), "source": source, "defined_in": where})
    return rows


#: Catalog fields reported per kind of entry: (field, unit).
_COMPONENT_FIELDS = (("power_w", "W"), ("price_usd", "USD"), ("latency_ns", "ns"))
_SPEC_UNITS = {"bf16_dense_tflops": "TFLOP/s (dense BF16)", "memory_gb": "GB", "hbm_gb": "GB",
               "domain_gpus": "GPUs"}
_CABLE_FIELDS = (("rate_gbps", "Gb/s per direction"), ("reach_m", "m"), ("latency_ns_per_m", "ns/m"),
                 ("power_w_per_end", "W per end"), ("price_usd", "USD"), ("price_usd_per_m", "USD/m"))
_TRANSCEIVER_FIELDS = (("rate_gbps", "Gb/s per direction"), ("reach_m", "m"), ("power_w", "W"),
                       ("price_usd", "USD"))


def _source(sources: dict[str, str], key: str) -> str:
    return sources.get(key) or "no source given in the catalog"


def catalog_rows(design: Design, catalog: Catalog | None = None) -> list[dict[str, Any]]:
    """The catalog figures of the models, cables and transceivers ``design`` uses, with their sources.

    >>> from designer.generators import GENERATORS
    >>> rows = catalog_rows(GENERATORS["server"].build())
    >>> sorted({r["kind"] for r in rows})
    ['cable', 'gpu', 'nic', 'nvswitch']
    """
    cat = catalog if catalog is not None else builtin_catalog()
    rows: list[dict[str, Any]] = []
    models = sorted({d.model for d in design.iter_devices() if d.model})
    cables = sorted({lk.cable for lk in design.iter_links() if lk.cable})
    modules: set[str] = set()
    for mid in models:
        comp = cat.components.get(mid)
        if comp is None:
            continue
        for key, unit in _COMPONENT_FIELDS:
            rows.append({"item": comp.id, "kind": comp.kind, "field": key, "value": float(getattr(comp, key)),
                         "unit": unit, "source": _source(comp.sources, key)})
        for key, value in sorted(comp.specs.items()):
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                rows.append({"item": comp.id, "kind": comp.kind, "field": f"specs.{key}", "value": float(value),
                             "unit": _SPEC_UNITS.get(key, ""),
                             "source": comp.sources.get(f"specs.{key}") or _source(comp.sources, key)})
    for cid in cables:
        cab = cat.cables.get(cid)
        if cab is None:
            continue
        if cab.transceiver:
            modules.add(cab.transceiver)
        for key, unit in _CABLE_FIELDS:
            rows.append({"item": cab.id, "kind": "cable", "field": key, "value": float(getattr(cab, key)),
                         "unit": unit, "source": _source(cab.sources, key)})
    for tid in sorted(modules):
        t = cat.transceivers.get(tid)
        if t is None:
            continue
        for key, unit in _TRANSCEIVER_FIELDS:
            rows.append({"item": t.id, "kind": "transceiver", "field": key, "value": float(getattr(t, key)),
                         "unit": unit, "source": _source(t.sources, key)})
    # A catalog's own efficiency of a medium (an overlay compare --fit wrote) replaces the constant above.
    for medium, value in sorted(cat.efficiency.items()):
        rows.append({"item": medium, "kind": "efficiency", "field": "efficiency", "value": float(value),
                     "unit": "fraction of line rate (replaces the analyzer's default for this medium)",
                     "source": _source(cat.efficiency_sources, medium)})
    return rows


def assumptions_to_dict(design: Design, catalog: Catalog | None = None, *, workload: bool = False
                        ) -> dict[str, Any]:
    """The ``assumptions`` block: constants (the step model's only with a workload) and catalog figures."""
    return {"constants": constants_rows(workload), "catalog": catalog_rows(design, catalog)}


__all__ = ["CONSTANT_UNITS", "CONSTANT_WORDS", "assumptions_to_dict", "catalog_rows", "constant_comments",
           "constant_meaning", "constants_rows"]
