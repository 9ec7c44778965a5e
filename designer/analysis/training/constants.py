"""Every constant of the training-step model, in one place, each with its public source.

Units: seconds, bytes, FLOP. The collective-time constants (NCCL latencies, protocol
efficiencies) are in :mod:`designer.analysis.common.constants`; these are the ones the step model adds.

Sources, abbreviated below:

- ``Kaplan``: Kaplan et al., *Scaling Laws for Neural Language Models*, arXiv:2001.08361 (2020),
  section 2.1: training compute C ~ 6 N per token (2 N forward, 4 N backward).
- ``Megatron``: Narayanan et al., *Efficient Large-Scale Language Model Training on GPU Clusters
  Using Megatron-LM*, SC21, arXiv:2104.04473: section 2.2 (1F1B pipeline bubble (p - 1) / m,
  interleaved (p - 1) / (v m)), section 2.3 and Shoeybi et al. arXiv:1909.08053 (two all-reduces
  per transformer layer in the forward pass and two in the backward pass under tensor parallelism).
- ``DDP``: Li et al., *PyTorch Distributed: Experiences on Accelerating Data Parallel Training*,
  VLDB 2020, arXiv:2006.15704 (gradient buckets, ``bucket_cap_mb`` default 25 MB, all-reduce of a
  bucket launched as soon as its gradients are ready, overlapping the rest of the backward pass).
- ``Llama3``: Llama Team, AI @ Meta, *The Llama 3 Herd of Models*, arXiv:2407.21783 (2024),
  Table 4: 405B pre-training on 8,192 H100 (TP 8, CP 1, PP 16, DP 64, 16M tokens per batch):
  430 TFLOP/s per GPU, 43% BF16 MFU; 16,384 H100 (DP 128): 400 TFLOP/s, 41%; 16,384 H100 with
  CP 16 and 131,072-token sequences: 380 TFLOP/s, 38%.

Examples
--------
>>> FLOPS_PER_PARAM_PER_TOKEN
6.0
>>> DDP_BUCKET_BYTES
26214400
"""

from __future__ import annotations

#: Training FLOPs per (active) parameter per token: 2 forward + 4 backward (Kaplan, section 2.1).
FLOPS_PER_PARAM_PER_TOKEN = 6.0
#: Share of a micro-batch's compute in the backward pass (4 of the 6 N FLOPs, Kaplan): the window
#: in which data-parallel gradient buckets can overlap compute (DDP).
BACKWARD_SHARE = 4.0 / 6.0
#: Share in the forward pass (2 of 6): the window for a sharded optimiser's parameter all-gather.
FORWARD_SHARE = 2.0 / 6.0

#: Kernel efficiency: the fraction of the GPU's peak dense BF16 FLOP/s the model's kernels reach
#: while computing (the rest of the step's time is pipeline bubbles and exposed communication, which
#: the model computes). Calibrated on Llama3 Table 4 (405B, 8,192 H100, 43% MFU): with this value
#: the step model predicts that run's MFU on a rail-optimized 400G fabric of the same size
#: (docs/analysis.md section 8 compares it with the other published runs).
COMPUTE_EFFICIENCY = 0.53

#: Full activation recomputation runs the forward pass again in the backward pass: 8 N FLOPs per token
#: of hardware work for 6 N of model work (Megatron, section 5.1: with recomputation the FLOPs of an
#: iteration are 96 B s l h^2 (...) against 72 without; MFU counts only the 6 N).
RECOMPUTE_FACTOR = 8.0 / 6.0

#: PyTorch DDP's default gradient bucket: ``bucket_cap_mb=25`` (DDP; torch.nn.parallel.DistributedDataParallel),
#: 25 MiB in bytes.
DDP_BUCKET_BYTES = 25 * 1024 * 1024

#: Megatron-Core's default gradient bucket, in parameters: ``max(40000000, 1000000 * dp_size)``
#: (``DistributedDataParallelConfig.bucket_size``: "If unspecified, MCore uses a default value of
#: max(40000000, 1000000 * dp_size) parameters (larger DP sizes need larger buckets to ensure
#: collectives do not become latency-bound)", NVIDIA/Megatron-LM
#: ``megatron/core/distributed/distributed_data_parallel_config.py``); with ``overlap_grad_reduce``
#: off it takes no buckets (one reduction of every gradient, ``distributed_data_parallel.py``).
MEGATRON_BUCKET_MIN_PARAMS = 40_000_000
MEGATRON_BUCKET_PARAMS_PER_DP_RANK = 1_000_000

#: Fraction of the backward window (and for sharded optimisers the forward window) in which data-parallel
#: communication is hidden behind compute when overlap is on. Modelling choice: NCCL kernels run on
#: the GPU's SMs next to the compute kernels and slow them, so an overlapped bucket is not entirely
#: free; DDP (Figure 9 there) shows overlap hiding most but not all of the communication. Set
#: ``data_parallel.overlap_fraction`` in a workload to change it.
OVERLAP_FRACTION = 0.8

#: Fraction of tensor-parallel communication hidden behind compute by default: none (Megatron runs the
#: per-layer all-reduces on the critical path; newer overlap schemes are set per workload with
#: ``compute.tp_overlap``).
TP_OVERLAP = 0.0

#: Bytes of a gradient element reduced across data-parallel ranks: BF16 (Megatron-Core
#: ``DistributedDataParallelConfig.grad_reduce_in_fp32`` defaults to False: gradients are reduced in the
#: parameter dtype). Per workload: ``precision.gradient_bytes``.
GRADIENT_BYTES = 2
#: Bytes per activation element sent between tensor-, pipeline- and expert-parallel ranks: BF16.
ACTIVATION_BYTES = 2

#: Amortisation of a GPU's price when a workload gives no price per GPU-hour: 6 years, the useful life
#: Microsoft gives its servers and network equipment (Form 10-K for fiscal 2022, change of estimate from
#: 4 to 6 years). Capital only: power, hosting and staff are not in it.
AMORTISATION_YEARS = 6.0
HOURS_PER_YEAR = 24 * 365.25

#: Data loading: bytes of input per training token when a workload gives none (a token id as a
#: 32-bit integer; Megatron's indexed datasets store ids as uint16 or int32 by vocabulary size).
INPUT_BYTES_PER_TOKEN = 4

#: Work limit of the max-min fair rates of concurrent communicators (flows); above it the busiest
#: link alone sets the shared time (the same value for uniform flows).
CONCURRENT_FAIR_MAX_FLOWS = 200_000
