"""The estimate's records: one function's latency, interval, loops and resources, and their JSON.

`FunctionEstimate.to_json()` writes exactly the keys runtime/report/estimate.py reads
(kind="estimate", model_version, function, part, clock_ns, latency_min, latency_max, interval,
loops[{label, trip_count, ii_requested, ii, limited_by, iteration_latency, latency}],
resources{DSP, BRAM_18K, FF, LUT}); `from_json` reads it back. Every figure is a model's, never a
synthesis result: whatever shows one says "estimated".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hclbuild.errors import ToolError

ESTIMATE_KIND = "estimate"
# bumped whenever a rule changes a figure, so cached estimate files are recomputed and compared apart
MODEL_VERSION = "1"


@dataclass(frozen=True)
class Resources:
    """Estimated DSP, BRAM_18K, FF and LUT of a function (its callees' included)."""

    DSP: int = 0
    BRAM_18K: int = 0
    FF: int = 0
    LUT: int = 0

    def __add__(self, other: Resources) -> Resources:
        return Resources(
            self.DSP + other.DSP, self.BRAM_18K + other.BRAM_18K, self.FF + other.FF, self.LUT + other.LUT
        )

    def times(self, count: int) -> Resources:
        return Resources(self.DSP * count, self.BRAM_18K * count, self.FF * count, self.LUT * count)

    def to_json(self) -> dict[str, int]:
        return {"DSP": self.DSP, "BRAM_18K": self.BRAM_18K, "FF": self.FF, "LUT": self.LUT}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Resources:
        return cls(*(int(data.get(key) or 0) for key in ("DSP", "BRAM_18K", "FF", "LUT")))


@dataclass(frozen=True)
class LoopEstimate:
    """One loop as the estimate sees it: its C label, trips, II asked and modelled, and why.

    `ii` is None for a loop that is not pipelined; `limited_by` says what set the II (or why the
    loop is not pipelined). A nest Vitis flattens is one LoopEstimate under its outermost loop's
    label, its trip count the product. `trip_count`, `iteration_latency` and `latency` are the
    worst case where the trip count depends on data (None where unbounded)."""

    label: str
    trip_count: int | None
    ii_requested: int | None
    ii: int | None
    limited_by: str
    iteration_latency: int | None
    latency: int | None
    trip_count_min: int | None = None
    flattened: tuple[str, ...] = ()  # the labels of the loops flattened into this one, outermost first

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "trip_count": self.trip_count,
            "ii_requested": self.ii_requested,
            "ii": self.ii,
            "limited_by": self.limited_by,
            "iteration_latency": self.iteration_latency,
            "latency": self.latency,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LoopEstimate:
        return cls(
            label=str(data["label"]),
            trip_count=data.get("trip_count"),
            ii_requested=data.get("ii_requested"),
            ii=data.get("ii"),
            limited_by=str(data.get("limited_by") or ""),
            iteration_latency=data.get("iteration_latency"),
            latency=data.get("latency"),
        )


@dataclass(frozen=True)
class FunctionEstimate:
    """The estimated latency (cycles, best and worst case), interval, loops and resources of one
    function at one part and clock."""

    function: str
    part: str
    clock_ns: float
    latency_min: int | None
    latency_max: int | None
    interval: int | None
    loops: tuple[LoopEstimate, ...] = ()
    resources: Resources = field(default_factory=Resources)
    model_version: str = MODEL_VERSION

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": ESTIMATE_KIND,
            "model_version": self.model_version,
            "function": self.function,
            "part": self.part,
            "clock_ns": self.clock_ns,
            "latency_min": self.latency_min,
            "latency_max": self.latency_max,
            "interval": self.interval,
            "loops": [loop.to_json() for loop in self.loops],
            "resources": self.resources.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FunctionEstimate:
        """The record of a to_json() dict; ToolError when it is not an estimate."""
        if not isinstance(data, dict) or data.get("kind") != ESTIMATE_KIND:
            raise ToolError('not an hclbuild estimate (no "kind": "estimate")')
        return cls(
            function=str(data["function"]),
            part=str(data["part"]),
            clock_ns=float(data["clock_ns"]),
            latency_min=data.get("latency_min"),
            latency_max=data.get("latency_max"),
            interval=data.get("interval"),
            loops=tuple(LoopEstimate.from_json(loop) for loop in data.get("loops") or []),
            resources=Resources.from_json(data.get("resources") or {}),
            model_version=str(data.get("model_version") or MODEL_VERSION),
        )


__all__ = ["ESTIMATE_KIND", "MODEL_VERSION", "FunctionEstimate", "LoopEstimate", "Resources"]
