"""Measured against predicted: nccl-tests runs and port counters of a real cluster held against the design.

``runs.py`` holds what a measurement is (a parsed nccl-tests run, a port-counter sample), independent of
the file it came from (the readers are in :mod:`designer.io.measured`); ``ranks.py`` maps a run's ranks to
the design's GPUs; ``compare.py`` sets each measured size beside the prediction, with a verdict per range
of sizes and the likeliest reasons for a gap (``reasons.py``); ``fit.py`` fits the per-medium efficiency
to a measurement; ``ports.py`` maps counters to the design's links (docs/measured.md).
"""
