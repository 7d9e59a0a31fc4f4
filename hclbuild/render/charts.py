"""Per-function csynth results as one PNG (matplotlib, the `[plot]` extra): worst-case latency in
cycles, and LUT / FF / DSP / BRAM_18K use as a percentage of the part's resources from the report."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hclbuild.render.graph import DPI, _png_bytes, _pyplot

CHART_RESOURCES = ("LUT", "FF", "DSP", "BRAM_18K")
WIDTH_INCHES = 11.0
ROW_INCHES = 0.45
BASE_INCHES = 1.8


def chart_size(functions: int) -> tuple[int, int]:
    """Pixel (width, height) of the chart of `functions` functions."""
    return round(WIDTH_INCHES * DPI), round((BASE_INCHES + ROW_INCHES * max(functions, 1)) * DPI)


def csynth_chart_png(rows: Sequence[Any], title: str) -> bytes | None:
    """The chart of the FunctionReports that have a csynth report, or None when none has."""
    synthesized = [row for row in rows if row.csynth is not None]
    if not synthesized:
        return None
    plt = _pyplot()
    width, height = chart_size(len(synthesized))
    figure, (latency_axes, resource_axes) = plt.subplots(1, 2, figsize=(width / DPI, height / DPI), dpi=DPI)
    names = [row.name for row in synthesized]
    positions = list(range(len(names)))
    latencies = [
        row.csynth.worst_latency if row.csynth.worst_latency is not None else 0 for row in synthesized
    ]
    latency_axes.barh(positions, latencies, color="#4c72b0")
    latency_axes.set_yticks(positions, names, fontsize=8)
    latency_axes.invert_yaxis()
    latency_axes.set_xlabel("worst-case latency (cycles; 0 = undef)")
    for position, value in zip(positions, latencies):
        latency_axes.text(value, position, f" {value}", va="center", fontsize=7)
    bar = 0.8 / len(CHART_RESOURCES)
    colours = ("#55a868", "#c44e52", "#8172b2", "#ccb974")
    for k, (resource, colour) in enumerate(zip(CHART_RESOURCES, colours)):
        shares = [row.csynth.utilization.get(resource) or 0.0 for row in synthesized]
        resource_axes.barh(
            [p - 0.4 + bar * (k + 0.5) for p in positions], shares, height=bar, color=colour, label=resource
        )
    resource_axes.set_yticks(positions, names, fontsize=8)
    resource_axes.invert_yaxis()
    resource_axes.set_xlabel("utilization (% of the part's resources)")
    resource_axes.legend(fontsize=7, loc="lower right")
    figure.suptitle(title, fontsize=10)
    figure.subplots_adjust(
        left=0.14, right=0.98, wspace=0.45, bottom=0.7 / (height / DPI), top=1 - 0.45 / (height / DPI)
    )
    return _png_bytes(figure)
