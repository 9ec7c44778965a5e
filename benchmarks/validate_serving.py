"""The serving model against public measurements: prints predicted and measured figures and the error
of each (the table of docs/serving.md, "Validation").

    PYTHONPATH=. python benchmarks/validate_serving.py

Measurements (each cited in docs/serving.md):
- DeepEP README, low-latency and normal kernels on H800 + CX7 400G InfiniBand.
- Mooncake README, Transfer Engine: 40 GB at 87 GB/s on 4 x 200 Gbps and 190 GB/s on 8 x 400 Gbps RoCE.
- DeepSeek's inference system overview (open-infra-index, day 6): per H800 node ~14.8k output tokens/s in
  decode (EP 144), ~73.7k input tokens/s in prefill including 56.3% cache hits (32.2k computed).
- LMSYS, "Deploying DeepSeek with PD Disaggregation and Large-scale Expert Parallelism on 96 H100 GPUs"
  (2025-05-05): prefill EP 32 on 4 nodes 57,674 / 54,543 / 50,302 tokens/s per node at 1K / 2K / 4K
  prompts; decode EP 72 on 9 nodes 22,282 tokens/s per node at a 2,000-token KV length.
"""

from __future__ import annotations

import copy
import json

import numpy as np

from designer.analysis.fabric.context import build_context
from designer.analysis.serving import constants as S
from designer.analysis.serving.model import AllToAll, kv_transfer_time, serving_analysis
from designer.analysis.serving.pools import Pool
from designer.analysis.serving.workload import Phase
from designer.analysis.training.placement import server_order
from designer.generators import GENERATORS
from designer.io.serving_records import serving_from_data
from designer.io.workload_file import serving_presets_dir

ROWS: list[tuple[str, float, float, str]] = []


def row(what: str, predicted: float, measured: float, unit: str) -> None:
    ROWS.append((what, predicted, measured, unit))


def deepep(ctx) -> None:  # noqa: ANN001
    """Dispatch and combine of 128 tokens per rank (low latency) on EP ranks, 8 per H800 server."""
    order = server_order(ctx)
    hidden, topk = 7168, 8
    dispatch = 128 * topk * hidden * (1 + S.FP8_SCALE_BYTES_PER_ELEMENT)
    combine = 128 * topk * hidden * 2
    table = {8: (77, 114), 16: (118, 195), 32: (155, 273), 64: (173, 314), 128: (192, 369), 256: (194, 360)}
    for ep, (d_us, c_us) in table.items():
        a2a = AllToAll(ctx, order[:ep][None, :], "low_latency")
        row(f"DeepEP low-latency dispatch, EP{ep}", a2a.per_call(dispatch) * 1e6, d_us, "us")
        row(f"DeepEP low-latency combine, EP{ep}", a2a.per_call(combine) * 1e6, c_us, "us")
    normal = {"dispatch": (4096 * topk * hidden * (1 + S.FP8_SCALE_BYTES_PER_ELEMENT),
                           {8: 153, 16: 43, 32: 58, 64: 51}),
              "combine": (4096 * topk * hidden * 2, {8: 158, 16: 43, 32: 57, 64: 50})}
    for kind, (message, measured) in normal.items():
        for ep, gbps in measured.items():
            a2a = AllToAll(ctx, order[:ep][None, :], "normal")
            t = a2a.per_call(message)
            # DeepEP's "bottleneck bandwidth": bytes through the bottleneck (NVLink in a server, else each
            # GPU's share leaving the server by RDMA) over the time.
            through = message * ((ep - 8) / ep if ep > 8 else (ep - 1) / ep)
            row(f"DeepEP normal {kind}, EP{ep} (bottleneck GB/s)", through / t / 1e9, gbps, "GB/s")


def mooncake() -> None:
    """40 GB from one server's GPUs to another's."""
    rail = GENERATORS["rail-optimized"]
    cases = {"8 x 400 Gbps": (rail.build(sus=1, switch="sn5600"), 8, 190.0),
             "4 x 200 Gbps": (rail.build(sus=1, switch="qm8700", gpus_per_node=4, nodes_per_su=16), 4, 87.0)}
    for label, (design, n, measured) in cases.items():
        ctx = build_context(design)
        order = server_order(ctx)
        src, dst = order[:n][None, :], order[n:2 * n][None, :]
        empty = np.zeros((n, 1), dtype=np.int64)
        pf, dc = Pool(Phase(tp=n), src, empty, empty, empty), Pool(Phase(tp=n), dst, empty, empty, empty)
        t, _, _ = kv_transfer_time(ctx, pf, dc, 40e9)
        row(f"Mooncake Transfer Engine, {label} (GB/s)", 40e9 / t / 1e9, measured, "GB/s")


def preset(name: str) -> dict:
    return json.loads((serving_presets_dir() / f"{name}.json").read_text())


def deepseek_official(ctx) -> None:  # noqa: ANN001
    """DeepSeek's deployment: decode EP 144 at 20-22 tokens/s per user; prefill EP 32."""
    d = preset("deepseek-v3-serve")
    d["requests"]["target_tpot_s"] = 1 / 21
    r = serving_analysis(ctx, serving_from_data(d))
    row("DeepSeek-V3 decode, output tokens/s per H800 node (EP144, 1/21 s TPOT)", r.output_tokens_per_s_per_server,
        14_800, "tokens/s")
    row("DeepSeek-V3 prefill, computed input tokens/s per H800 node (EP32)", r.input_tokens_per_s_per_server,
        73_700 * (1 - 0.563), "tokens/s")


def sglang(ctx) -> None:  # noqa: ANN001
    """LMSYS's 96-H100 deployment: prefill EP 32 on 4 nodes, decode EP 72 on 9 nodes."""
    base = preset("deepseek-v3-serve")
    for prompt, measured in ((1000, 57_674), (2000, 54_543), (4000, 50_302)):
        d = copy.deepcopy(base)
        d["requests"] = {"prompt_tokens": prompt, "output_tokens": 100}
        d["deployment"]["prefill"]["batch_sequences"] = 32 * 16_384 // prompt
        d["deployment"]["decode"].update(dp=72, ep=72, batch_sequences=72 * 256)
        r = serving_analysis(ctx, serving_from_data(d))
        row(f"SGLang DeepSeek-V3 prefill, {prompt:,}-token prompts, tokens/s per H100 node",
            r.input_tokens_per_s_per_server, measured, "tokens/s")
    d = copy.deepcopy(base)
    d["requests"] = {"prompt_tokens": 1950, "output_tokens": 100}
    d["deployment"]["decode"].update(dp=72, ep=72, batch_sequences=72 * 256)
    r = serving_analysis(ctx, serving_from_data(d))
    row("SGLang DeepSeek-V3 decode, 256 sequences per GPU, tokens/s per H100 node", r.output_tokens_per_s_per_server,
        22_282, "tokens/s")
    row("SGLang DeepSeek-V3 decode, 256 sequences per GPU, inter-token latency", r.tpot_s * 1e3, 100, "ms")


def main() -> None:
    h800 = build_context(GENERATORS["rail-optimized"].build(sus=1, gpu="h800-sxm"))
    h100 = build_context(GENERATORS["rail-optimized"].build(sus=1))
    deepep(h800)
    mooncake()
    deepseek_official(h800)
    sglang(h100)
    print("| measurement | predicted | measured | error |")
    print("|---|---:|---:|---:|")
    for what, p, m, unit in ROWS:
        print(f"| {what} | {p:,.3g} {unit} | {m:,.3g} {unit} | {100 * (p - m) / m:+.0f}% |")


if __name__ == "__main__":
    main()
