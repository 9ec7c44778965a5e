"""Design-space sweeps: a grid of generator parameters, evaluated point by point on Dask (docs/sweeps.md).

- :mod:`designer.sweep.spec`: the spec (:func:`load_spec`, :func:`parse_spec`), its grid (:func:`expand`)
  and the stable key of each point;
- :mod:`designer.sweep.evaluate`: one point, on a worker: the design rebuilt from its parameters, the
  analysis entry points, one row;
- :mod:`designer.sweep.results`: the columns, CSV and Parquet written as points arrive, read back,
  the Pareto front marked (:mod:`designer.sweep.pareto`);
- :mod:`designer.sweep.runner`: the Dask run (a local cluster, or an existing scheduler), resume, the
  time estimate.

No Qt. Dask is imported only when a sweep runs.
"""

from designer.sweep.pareto import pareto_front
from designer.sweep.spec import Point, SweepError, SweepSpec, expand, load_spec, parse_spec

__all__ = ["Point", "SweepError", "SweepSpec", "expand", "load_spec", "pareto_front", "parse_spec"]
