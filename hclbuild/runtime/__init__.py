"""Runtimes: the LLVM reference, g++ C simulation, Vitis, and Dask for work beyond this machine.

This package's own module is imported by every doit run, so it holds only what task discovery asks:
whether jobs go to Dask, without importing hclbuild.runtime.remote where nothing asks for it.
"""

from __future__ import annotations

import os
import sys

SCHEDULER_ENV = "HCLBUILD_SCHEDULER"  # a Dask scheduler address, e.g. tcp://host:8786
CLUSTER_ENV = "HCLBUILD_CLUSTER"  # or a cluster to start: slurm, pbs, lsf, sge, local


def dask_requested() -> bool:
    """hclbuild.runtime.remote.requested(), importing remote only when it may say yes: when it is
    loaded already (a session may exist) or the environment names a scheduler or a cluster."""
    remote = sys.modules.get("hclbuild.runtime.remote")
    if remote is not None:
        return bool(remote.requested())
    return bool(os.environ.get(SCHEDULER_ENV) or os.environ.get(CLUSTER_ENV))


def local_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one): the default
    of `hclbuild build -n` and of a local Dask cluster's workers."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1
