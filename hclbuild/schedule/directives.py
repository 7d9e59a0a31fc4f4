"""Directives a schedule records for the hardware (loop pragmas, array partitions), as records.

Pure data, no MLIR: the schedule makes them, `hclbuild.compiler.attrs` writes them into the IR and
reads them back (the emitter and the estimator see these same records), docs/IR.md spells them.
"""

from __future__ import annotations

from dataclasses import dataclass

PARTITION_KINDS = ("complete", "block", "cyclic")


@dataclass(frozen=True)
class ArrayPartition:
    """s.partition(tensor, kind, dim, factor): `dim` is 1-based (0 = every dimension); a complete
    partition has factor 0, block and cyclic ones a factor >= 1."""

    kind: str
    dim: int
    factor: int = 0


@dataclass(frozen=True)
class LoopDirectives:
    """The pragmas a schedule put on one loop: pipeline II, unroll factor (0 = fully), parallel,
    dataflow. The defaults are "no directive"."""

    pipeline_ii: int | None = None
    unroll: int | None = None
    parallel: bool = False
    dataflow: bool = False
