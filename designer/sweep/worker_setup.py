"""Set-up of a local cluster's worker processes (a Dask worker preload, see :func:`dask_setup`).

The terminal sends Ctrl+C to the whole process group: the sweep's own process stops the workers
and says so in one line, while each worker, left to itself, would print a traceback of its
interrupted event loop. A local cluster's workers therefore ignore it.
"""

from __future__ import annotations

import signal
import threading
from typing import Any


def dask_setup(worker: Any) -> None:  # noqa: ARG001 - Dask's preload signature
    """Called by Dask as each worker starts, in the worker's process."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
