"""One design point of an exploration: kernel.py's schedule at some knob values, compiled and
estimated (hclbuild.compiler.estimate), written to build/<p>/explore/points/<key>.json.

A point's file records the digest of everything its figures follow from (hclbuild's sources,
kernel.py and its sibling modules, the sizes, part, clock and Vitis release, the knob values and
the model's version), so an exploration evaluates a point again only when one of them changed:
adding a value to [explore], or --apply writing [knobs], reruns nothing already estimated.

A point whose schedule fails (a value the schedule rejects) is a result too, with its one-line
error naming the point: it fails the same way until its inputs change, so it is not retried.
Every figure is the model's and is labelled "estimated", never a synthesis result.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hclbuild.atomic import write_text_atomic
from hclbuild.compiler.estimate import MODEL_VERSION, FunctionEstimate, estimate_module
from hclbuild.compiler.passes.reserved_top import rename_reserved_top
from hclbuild.compiler.pipeline import compile_schedule
from hclbuild.dsl.context import init
from hclbuild.dsl.operations import compute, placeholder
from hclbuild.errors import CsimError, HCLError
from hclbuild.project.config import DEFAULT_CLOCK_PERIOD_NS, DEFAULT_PART, Project
from hclbuild.project.kernel import kernel_schedule
from hclbuild.project.knobs import KnobValue, point_key
from hclbuild.project.layout import KERNEL_FILE, PROJECT_FILE
from hclbuild.runtime.isolate import run_isolated
from hclbuild.schedule.schedule import Schedule
from hclbuild.schedule.tracing import create_schedule

ESTIMATED, FAILED = "estimated", "error"
POINT_KIND = "explore-point"
RESOURCE_NAMES = ("DSP", "BRAM_18K", "FF", "LUT")


@dataclass(frozen=True)
class PointResult:
    """A point's outcome: the top function's estimated latency (cycles, worst case), interval and
    resources (its callees' included), each function's estimate, or the error that stopped it."""

    key: str
    knobs: dict[str, KnobValue]
    digest: str
    status: str  # ESTIMATED or FAILED
    error: str | None = None
    top: str | None = None
    latency: int | None = None
    interval: int | None = None
    resources: dict[str, int] = field(default_factory=dict)
    functions: tuple[FunctionEstimate, ...] = ()

    __hash__ = None  # type: ignore[assignment]  # dicts inside

    def objective(self, name: str) -> float | None:
        """`latency`, `interval` or a resource of the top (None when the point has no estimate)."""
        if self.status != ESTIMATED:
            return None
        value = {"latency": self.latency, "interval": self.interval}.get(name, self.resources.get(name))
        return None if value is None else float(value)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": POINT_KIND,
            "key": self.key,
            "knobs": self.knobs,
            "digest": self.digest,
            "status": self.status,
            "error": self.error,
            "label": "estimated",  # the figures are the model's, never csynth's
            "top": self.top,
            "latency": self.latency,
            "interval": self.interval,
            "resources": self.resources,
            "functions": [estimate.to_json() for estimate in self.functions],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PointResult:
        return cls(
            key=str(data["key"]),
            knobs=dict(data["knobs"]),
            digest=str(data["digest"]),
            status=str(data["status"]),
            error=data.get("error"),
            top=data.get("top"),
            latency=data.get("latency"),
            interval=data.get("interval"),
            resources={str(k): int(v) for k, v in (data.get("resources") or {}).items()},
            functions=tuple(FunctionEstimate.from_json(f) for f in data.get("functions") or []),
        )


def read_point(path: Path) -> PointResult | None:
    """The point a file holds, or None when it holds none (missing, cut short, another kind)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("kind") != POINT_KIND:
            return None
        return PointResult.from_json(data)
    except (OSError, ValueError, KeyError, TypeError, HCLError):
        return None


def point_digest(
    project: Project, inputs: list[str], fingerprint: str, knobs: Mapping[str, KnobValue]
) -> str:
    """sha256 of what a point's estimate follows from: hclbuild's sources (their fingerprint), the
    project's kernel.py and sibling modules (`inputs`, the plan's; project.toml is left out, its
    settings that matter are hashed instead), the settings the estimate reads, the knob values."""
    config = project.config
    digest = hashlib.sha256()
    settings = {
        "fingerprint": fingerprint,
        "model": MODEL_VERSION,
        "top": config.top,
        "sizes": config.sizes,
        "part": config.part,
        "clock_ns": config.clock_period_ns,
        "vitis_version": config.vitis_version,
        "knobs": {name: [type(value).__name__, value] for name, value in knobs.items()},
    }
    digest.update(json.dumps(settings, sort_keys=True).encode())
    for path in sorted(inputs):
        if Path(path).name == PROJECT_FILE:
            continue
        digest.update(path.encode() + b"\0")
        digest.update(Path(path).read_bytes())
    return digest.hexdigest()


def at_point(project: Project, knobs: Mapping[str, KnobValue]) -> Project:
    """The project as a build with [knobs] = knobs sees it."""
    return dataclasses.replace(project, config=dataclasses.replace(project.config, knobs=dict(knobs)))


def evaluate_point(project: Project, knobs: Mapping[str, KnobValue], digest: str) -> PointResult:
    """Compile and estimate the point in a child process (runtime.isolate: kernel.py's code never
    runs in the explorer's own process); an error of the point's is its result, one line naming it."""
    key = point_key(knobs)
    where = f"{project.name}@{key}"
    try:
        top, estimates = run_isolated(
            _estimate_point,
            at_point(project, knobs),
            what=f"{where}: compile and estimate",
            timeout=project.config.reference_timeout,
        )
    except CsimError:
        # killed, timed out or crashed (a signal): not the point's lasting outcome, so not recorded;
        # the task fails and the next exploration tries the point again
        raise
    except HCLError as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        error = reason if reason.startswith(where) else f"{where}: {reason}"
        return PointResult(key, dict(knobs), digest, FAILED, error=error)
    return _estimated(knobs, digest, top, estimates)


def evaluate_point_here(project: Project, knobs: Mapping[str, KnobValue], digest: str = "") -> PointResult:
    """evaluate_point in this process (kernel.py's code runs here, an error is raised, not kept):
    for measurements that estimate many points, where a child a point would cost more than the
    compile (bench/explore_search_large.py)."""
    top, estimates = _estimate_point(at_point(project, knobs))
    return _estimated(knobs, digest, top, estimates)


def _estimated(
    knobs: Mapping[str, KnobValue], digest: str, top: str, estimates: list[dict[str, Any]]
) -> PointResult:
    functions = tuple(FunctionEstimate.from_json(data) for data in estimates)
    top_estimate = next(f for f in functions if f.function == top)
    return PointResult(
        point_key(knobs),
        dict(knobs),
        digest,
        ESTIMATED,
        top=top,
        latency=top_estimate.latency_max,
        interval=top_estimate.interval,
        resources=top_estimate.resources.to_json(),
        functions=functions,
    )


def evaluate_point_in(
    folder: Path, project: Project, knobs: Mapping[str, KnobValue], digest: str
) -> PointResult:
    """evaluate_point with the project's files in `folder` (a Dask worker's copy of them)."""
    _warm_once()
    moved = dataclasses.replace(project, dir=folder, kernel_path=folder / KERNEL_FILE)
    return evaluate_point(moved, knobs, digest)


def _estimate_point(project: Project) -> tuple[str, list[dict[str, Any]]]:
    # in the child: the estimates go back as JSON (plain data pickles across the pipe)
    design = compile_schedule(kernel_schedule(project))
    top = rename_reserved_top(design)
    config = project.config
    estimates = estimate_module(
        design.module, part=config.part, clock_ns=config.clock_period_ns, vitis_version=config.vitis_version
    )
    return top, [estimates[name].to_json() for name in estimates]


def write_point(path: Path, result: PointResult) -> None:
    write_text_atomic(path, json.dumps(result.to_json(), indent=1) + "\n")


@functools.cache
def _warm_once() -> None:
    # a Dask worker evaluates many points: warm its process once (see warm_compiler)
    warm_compiler()


def warm_compiler() -> None:
    """Compile and estimate a four-element design here, before doit forks its workers: MLIR's first
    compile in a process costs about 0.9 s (contexts, pass registration), which every point's child
    would otherwise pay again; forked from a warm process, a point takes about 0.1 s."""
    init()
    source = placeholder((4,), "A")
    schedule = create_schedule(
        [source], lambda A: compute((4,), lambda i: A[i] + 1, name="B"), name="warm", schedule_class=Schedule
    )
    design = compile_schedule(schedule)
    estimate_module(design.module, part=DEFAULT_PART, clock_ns=DEFAULT_CLOCK_PERIOD_NS)
    init()
