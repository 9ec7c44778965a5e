"""Every constant of the serving model, in one place, each with its public source.

Units: seconds, bytes, FLOP. Collective latencies and link efficiencies are the analyzer's
(:mod:`designer.analysis.common.constants`); the kernel efficiency of a forward pass is the
training model's (:data:`designer.analysis.training.constants.COMPUTE_EFFICIENCY`: a prefill is the
forward pass of training at the same token counts).

Sources, abbreviated below:

- ``DeepEP``: deepseek-ai/DeepEP README, "Performance" (https://github.com/deepseek-ai/DeepEP):
  H800 (NVLink 200 GB/s per direction, "~160 GB/s NVLink maximum bandwidth"), one CX7 InfiniBand
  400 Gb/s NIC per GPU ("~50 GB/s maximum bandwidth"), 7168 hidden, top-8 experts, FP8 dispatch,
  BF16 combine. Normal kernels (4,096 tokens): intranode EP8 dispatch 153 GB/s, combine 158 GB/s
  (NVLink); internode EP16 43 / 43, EP32 58 / 57, EP64 51 / 50 GB/s (RDMA). Low-latency kernels
  (128 tokens per rank): dispatch EP8 77 us (98 GB/s), EP16 118 us (63), EP32 155 us (48), EP64
  173 us (43), EP128 192 us (39), EP256 194 us (39); combine EP8 114 us (127 GB/s), EP16 195 us (74),
  EP32 273 us (53), EP64 314 us (46), EP128 369 us (39), EP256 360 us (40).
- ``DeepSeek-V3``: DeepSeek-AI, *DeepSeek-V3 Technical Report*, arXiv:2412.19437, section 3.3.2
  (activations quantised to FP8 per 1x128 tile, one FP32 scale per tile) and section 3.4 (prefill
  and decode deployed separately; two micro-batches overlap one's all-to-all with the other's compute).
- ``FlashMLA``: deepseek-ai/FlashMLA README (https://github.com/deepseek-ai/FlashMLA): "up to 3000
  GB/s in memory-bound configuration" on H800 SXM5 (3.35 TB/s HBM3).
- ``Mooncake``: Qin et al., *Mooncake: A KVCache-centric Disaggregated Architecture for LLM
  Serving*, FAST 2025, arXiv:2407.00079, section 5.1 (layer-wise prefill: each layer's KV cache is
  sent while the next layer computes).
- ``Sarathi``: Agrawal et al., *Taming Throughput-Latency Tradeoff in LLM Inference with
  Sarathi-Serve*, OSDI 2024, arXiv:2403.02310 (chunked prefill: a colocated engine runs prompt
  chunks inside decode iterations, which lengthens them).
- ``vLLM``: vLLM engine arguments, ``--gpu-memory-utilization`` default 0.9
  (https://docs.vllm.ai/en/latest/serving/engine_args.html).

Examples
--------
>>> DTYPE_BYTES["bf16"], DTYPE_BYTES["fp8"]
(2, 1)
>>> round(EP_EFFICIENCY[("low_latency", "rdma")], 4)
0.8125
"""

from __future__ import annotations

from designer.analysis.common import constants as K

#: Bytes per element of each data type a serving workload names.
DTYPE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1}

#: Dense FP8 Tensor Core FLOP/s over dense BF16 on the GPUs with FP8 (Hopper, Blackwell): 2. NVIDIA H100
#: datasheet: FP8 3,958 TFLOPS and BF16 1,979 TFLOPS (both with 2:4 sparsity), i.e. 1,979 and 989 dense
#: (https://glennklockwood.com/garden/processors/h100 lists the same figures).
FP8_OVER_BF16_PEAK = 2.0

#: Extra bytes per element of an FP8 activation: one FP32 scale per 1x128 tile (DeepSeek-V3, section 3.3.2;
#: DeepEP's FP8 dispatch sends the scales with the tokens).
FP8_SCALE_BYTES_PER_ELEMENT = 4.0 / 128.0

#: Fraction of the peak HBM bandwidth the decode kernels reach (weights and KV cache read each step):
#: FlashMLA's 3,000 GB/s of the H800's 3.35 TB/s.
MEMORY_EFFICIENCY = 3000.0 / 3350.0

#: Fraction of a GPU's memory the engine may fill with weights and KV cache (vLLM's default).
MEMORY_USABLE_FRACTION = 0.9

#: Fixed cost of one dispatch or combine call: NCCL's base latency of a kernel call (LL protocol, ring:
#: tuning.cc ``baseLat`` 6.6 us). Modelling choice: DeepEP publishes no fixed latency (its tables are
#: bandwidth-bound at 128 tokens).
EP_CALL_LATENCY_S = K.BASE_LATENCY_S[("ring", "LL")]

#: H800 NVLink at NCCL's effective rate, bytes/s per direction (8 NVLink4 links x 20.6 GB/s): the rate
#: DeepEP's H800 NVLink figures are divided by.
_H800_NVLINK = 8 * 20.6e9
#: Bytes a GPU sends to the 7 others of its server in DeepEP's low-latency EP8 test: 7/8 of 128 tokens x
#: 8 experts x 7168 elements, FP8 with its scales (dispatch) or BF16 (combine).
_LL_EP8_ELEMENTS = 7 / 8 * 128 * 8 * 7168
_LL_DISPATCH_NVLINK = _LL_EP8_ELEMENTS * (1 + FP8_SCALE_BYTES_PER_ELEMENT) / _H800_NVLINK / (77e-6 - EP_CALL_LATENCY_S)
_LL_COMBINE_NVLINK = _LL_EP8_ELEMENTS * 2 / _H800_NVLINK / (114e-6 - EP_CALL_LATENCY_S)

#: Expert all-to-all (dispatch and combine) efficiency, by kernel mode and transport, as a fraction of the
#: fabric's effective rate (line rate x protocol efficiency: InfiniBand 0.96 of 50 GB/s = 48 GB/s; H800
#: NVLink 8 links x 20.6 GB/s = 164.8 GB/s). DeepEP: low-latency RDMA 39 GB/s at EP128 (every token on the
#: network): 39 / 48; normal RDMA 43 GB/s at EP16: 43 / 48; normal NVLink 153 GB/s at EP8: 153 / 164.8;
#: low latency over NVLink (EP8 in one server, NVLink since DeepEP #173): dispatch 77 us and combine 114 us
#: for the bytes above, less the call latency: 0.571 and 0.726 of 164.8 GB/s, their mean.
EP_EFFICIENCY = {
    ("low_latency", "rdma"): 39.0 / (50.0 * K.INFINIBAND_EFFICIENCY),
    ("normal", "rdma"): 43.0 / (50.0 * K.INFINIBAND_EFFICIENCY),
    ("normal", "nvlink"): 153.0e9 / _H800_NVLINK,
    ("low_latency", "nvlink"): (_LL_DISPATCH_NVLINK + _LL_COMBINE_NVLINK) / 2,
}

#: Kernel modes of the expert all-to-all (DeepEP): "normal" (high throughput, prefill) and
#: "low_latency" (decode).
EP_MODES = ("normal", "low_latency")
#: How a phase hides its expert all-to-all: "none", or "two-batch" (DeepSeek-V3 section 3.4: two
#: micro-batches, one's all-to-all under the other's compute, so only the all-to-all time beyond the
#: compute is exposed).
OVERLAP_MODES = ("none", "two-batch")
#: How the KV cache goes from the prefill to the decode pool: "layer" (Mooncake: each layer's cache is sent
#: while the next layer computes; only what outlasts the prefill, and at least the last layer's share, is
#: exposed) or "after" (sent once the prefill ends, all exposed).
KV_TRANSFER_MODES = ("layer", "after")
