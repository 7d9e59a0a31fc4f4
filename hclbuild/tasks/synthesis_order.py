"""The order of the csynth tasks: longest estimated first, when every function has an estimate.

doit starts ready tasks in the order they were defined, so on a cluster of W workers the order of
the csynth tasks decides how long the last worker runs after the others have nothing left: bench/
cluster_sim.py simulates a 1,000-function design and finds longest first 6-31 % shorter than the
design's order from 16 to 128 workers (BENCHMARKS.md, "Cluster makespan, simulated"). How long a
csynth takes is estimated by the size hclbuild's QoR estimate gives the function (LUT + FF in
estimate/<func>.json, as hclbuild.runtime.report.estimate writes it); without an estimate for
every function the design's order stays.

Read with json alone: this runs on every doit run where a Vitis tool is found, and the report
package's XML readers cost a quarter of a second to import.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from hclbuild.project.layout import BuildLayout

SIZE_RESOURCES = ("LUT", "FF")  # what the size of a synthesized function is counted in


def estimated_size(layout: BuildLayout, func: str) -> float | None:
    """LUT + FF of estimate/<func>.json, or None when there is no readable estimate with both."""
    try:
        document = json.loads(layout.estimate_json(func).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    resources = document.get("resources") if isinstance(document, dict) else None
    if not isinstance(resources, dict) or document.get("kind") != "estimate":
        return None
    values = [resources.get(name) for name in SIZE_RESOURCES]
    if not all(isinstance(value, (int, float)) and not isinstance(value, bool) for value in values):
        return None
    return float(sum(values))  # type: ignore[arg-type]


def longest_estimated_first(layout: BuildLayout, functions: Sequence[str]) -> list[str] | None:
    """`functions` by estimated size, largest first (the design's order among equals), or None when
    a function has no estimate."""
    sizes = {}
    for func in functions:
        size = estimated_size(layout, func)
        if size is None:
            return None
        sizes[func] = size
    return sorted(functions, key=lambda func: -sizes[func])
