"""``topo-designer workloads``: the shipped training and serving presets; ``workload_arg`` reads
``--workload``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from designer.analysis.training.workload import DIMENSIONS, Workload, WorkloadError
from designer.cli.commands import SUMMARIES
from designer.cli.common import echo, guard_outputs, write_json
from designer.model.units import count, figures

if TYPE_CHECKING:  # the serving presets are read only by the workloads command itself
    from designer.analysis.serving.workload import Phase, ServingWorkload


def workload_arg(value: str, placement: str | None = None) -> Workload:
    """The workload a ``--workload NAME|FILE`` names, with an optional ``--placement`` order."""
    from designer.io.workload_file import load_workload

    w = load_workload(value)
    if placement:
        order = [x.strip() for x in placement.split(",") if x.strip()]
        if sorted(order) != sorted(DIMENSIONS):
            raise WorkloadError(f"--placement {placement!r}: list each of {', '.join(DIMENSIONS)} once, innermost "
                                "first (e.g. tp,cp,pp,dp)")
        w = w.with_options(parallelism={"order": tuple(order)})
    return w


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "workloads",
        help=SUMMARIES["workloads"],
        description="List the shipped training workload presets (model, parallelism, batch; figures from the "
        "models' public papers) and serving presets (model shape, deployment per phase, requests). Use one with "
        "'topo-designer analyze FILE --workload NAME' or '--serve NAME', or write your own workload file "
        "(docs/workload-format.md, docs/serving.md).",
    )
    p.add_argument("--json", metavar="PATH", help="write the presets as JSON to PATH ('-' for stdout)")
    p.set_defaults(func=run)


def _summary(w: Workload) -> dict:
    par = w.parallelism
    return {
        "name": w.name, "description": w.description,
        "parameters": w.model.parameters, "active_parameters": w.model.active_parameters,
        "layers": w.model.layers, "hidden_size": w.model.hidden_size, "sequence_length": w.model.sequence_length,
        "experts": w.model.experts,
        "parallelism": {"tp": par.tp, "pp": par.pp, "cp": par.cp, "ep": par.ep,
                        "dp": par.dp or "auto", "order": list(par.order)},
        "global_batch_sequences": w.batch.global_batch_sequences, "tokens_per_step": w.tokens_per_step,
        "train_tokens": w.training.tokens, "sources": dict(w.sources),
    }


def _serving_summary(w: ServingWorkload) -> dict:
    def phase(p: Phase) -> dict:
        return {"tp": p.tp, "dp": p.dp, "pp": p.pp, "ep": p.ep, "instances": p.instances or "auto",
                "batch_sequences": p.batch_sequences or None}

    return {
        "name": w.name, "description": w.description, "mode": w.mode,
        "parameters": w.model.parameters, "active_parameters": w.model.active_parameters, "layers": w.model.layers,
        "experts": w.model.experts, "mla": w.model.is_mla,
        "prefill": phase(w.prefill), "decode": phase(w.decode),
        "prompt_tokens": w.requests.prompt_tokens, "output_tokens": w.requests.output_tokens,
        "target_tpot_s": w.requests.target_tpot_s, "sources": dict(w.sources),
    }


def _layout(p: Phase) -> str:
    return f"TP {p.tp}" + (f", DP {p.dp}" if p.dp > 1 else "") + (f", PP {p.pp}" if p.pp > 1 else "") + \
        (f", EP {p.ep}" if p.ep > 1 else "")


def _serving_lines(presets: list[ServingWorkload]) -> list[str]:
    lines = [f"{count(len(presets), 'serving preset')} (use: topo-designer analyze FILE --serve NAME):"]
    for w in presets:
        m = w.model
        active = f" ({figures(m.active_parameters / 1e9)}B active)" if m.is_moe else ""
        phases = f"decode {_layout(w.decode)}" if not w.disaggregated else \
            f"prefill {_layout(w.prefill)}, decode {_layout(w.decode)}"
        target = f", TPOT target {figures(w.requests.target_tpot_s * 1e3)} ms" if w.requests.target_tpot_s else ""
        lines.append(f"  {w.name}: {figures(m.parameters / 1e9)}B parameters{active}, {w.mode}; {phases}; "
                     f"{w.requests.prompt_tokens:,}-token prompts, {w.requests.output_tokens:,}-token answers{target}")
        if w.description:
            lines.append(f"    {w.description}")
    return lines


def run(args: argparse.Namespace) -> int:
    from designer.io.workload_file import load_serving, load_workload, preset_names, serving_preset_names

    guard_outputs(args, {"--json": args.json})
    presets = [load_workload(name) for name in preset_names()]
    serving = [load_serving(name) for name in serving_preset_names()]
    if args.json:
        write_json({"format": "topo-designer-workloads", "version": 1,
                    "workloads": [_summary(w) for w in presets],
                    "serving": [_serving_summary(w) for w in serving]}, args.json)
        if args.json == "-":
            return 0
    lines = [f"{count(len(presets), 'workload preset')} (use: topo-designer analyze FILE --workload NAME):"]
    for w in presets:
        m, par = w.model, w.parallelism
        active = f" ({figures(m.active_parameters / 1e9)}B active, {m.experts} experts)" if m.is_moe else ""
        layout = f"TP {par.tp}, PP {par.pp}" + (f", CP {par.cp}" if par.cp > 1 else "") + \
            (f", EP {par.ep}" if par.ep > 1 else "") + ", DP " + (str(par.dp) if par.dp else "auto")
        lines.append(f"  {w.name}: {figures(m.parameters / 1e9)}B parameters{active}, {count(m.layers, 'layer')}, "
                     f"{figures(w.tokens_per_step / 1e6)}M tokens per step; {layout}")
        if w.description:
            lines.append(f"    {w.description}")
    echo("\n".join(lines + [""] + _serving_lines(serving)))
    return 0
