"""Serving a model on a fabric: time to first token (prefill) and time per output token (decode),
with the tensor-parallel all-reduces, expert all-to-alls, pipeline sends and the KV-cache transfer
between prefill and decode pools routed over the design (docs/serving.md).

Entry point: :func:`designer.analysis.serving.model.serving_analysis`. Reuses the training room's
concurrent communicators and GPU figures; the file format is :mod:`designer.io.serving_records`.
"""
