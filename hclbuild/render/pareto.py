"""An exploration's results as text and a picture: pareto.md (the non-dominated points, each with
its knobs and estimated figures) and pareto.png (latency against each resource, every point, the
front highlighted). Both read plain rows (explore/pareto.json's): {"n", "key", "knobs",
"latency", "interval", "resources": {...}, "csim": optional}. Every figure is an estimate and is
labelled so."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hclbuild.render.graph import DPI, _png_bytes, _pyplot

RESOURCE_COLUMNS = ("DSP", "BRAM_18K", "FF", "LUT")


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def pareto_markdown(
    project: str,
    summary: Mapping[str, Any],
    front: Sequence[Mapping[str, Any]],
    failed: Sequence[Mapping[str, Any]],
) -> str:
    """pareto.md: how the space was searched, then one row per front point (`n` is what --apply takes)."""
    knob_names = list(front[0]["knobs"]) if front else list(summary.get("knobs", []))
    objectives = ", ".join(summary["objectives"])
    lines = [
        f"# {project}: design-space exploration (estimated)",
        "",
        f"{summary['evaluated']} of {summary['space_size']} points evaluated ({summary['method']}"
        + (f", seed {summary['seed']}" if summary["method"] != "exhaustive" else "")
        + f"), {summary['estimated']} estimated, {len(failed)} failed. Objectives (all minimized): {objectives}.",
        "",
        "Every figure is hclbuild's QoR estimate (a model, not Vitis csynth) at "
        f"{summary['part']}, {summary['clock_ns']:g} ns. `hclbuild explore --apply N` writes point N's "
        "knobs into project.toml's [knobs].",
        "",
        f"## Pareto front ({len(front)} points, estimated)",
        "",
    ]
    verified = any("csim" in row for row in front)
    header = [
        "n",
        *knob_names,
        "latency (cycles, est.)",
        "interval (est.)",
        *(f"{r} (est.)" for r in RESOURCE_COLUMNS),
    ]
    if verified:
        header.append("csim")
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "|".join("---" for _ in header) + "|")
    for row in front:
        cells = [
            str(row["n"]),
            *(_cell(row["knobs"].get(name)) for name in knob_names),
            _cell(row["latency"]),
            _cell(row["interval"]),
            *(_cell(row["resources"].get(name)) for name in RESOURCE_COLUMNS),
        ]
        if verified:
            cells.append(_cell(row.get("csim")))
        lines.append("| " + " | ".join(cells) + " |")
    if failed:
        lines += ["", "## Points that failed", ""]
        lines += [f"- {row['error']}" for row in failed]
    return "\n".join(lines) + "\n"


def pareto_png(
    project: str,
    points: Sequence[Mapping[str, Any]],
    front: Sequence[Mapping[str, Any]],
    resources: Sequence[str],
) -> bytes:
    """Estimated latency against each resource objective: every point grey, the front's points red
    and numbered as in pareto.md. HCLNotImplementedError without matplotlib (the `[plot]` extra)."""
    plt = _pyplot()
    shown = list(resources) or ["DSP"]
    figure, axes_row = plt.subplots(1, len(shown), figsize=(4.2 * len(shown), 3.8), dpi=DPI, squeeze=False)
    for axes, resource in zip(axes_row[0], shown):
        every = [(p["resources"].get(resource), p["latency"]) for p in points if p["latency"] is not None]
        axes.scatter([x for x, _ in every], [y for _, y in every], s=14, color="#b0b0b0", label="points")
        best = [(p["resources"].get(resource), p["latency"], p["n"]) for p in front]
        axes.scatter(
            [x for x, _, _ in best], [y for _, y, _ in best], s=22, color="#c44e52", label="Pareto front"
        )
        for x, y, number in best:
            axes.annotate(str(number), (x, y), textcoords="offset points", xytext=(3, 3), fontsize=7)
        axes.set_xlabel(f"{resource} (estimated)")
        axes.set_ylabel("latency, cycles (estimated)")
        axes.set_yscale("log")
        axes.grid(True, alpha=0.3)
    axes_row[0][0].legend(fontsize=7)
    figure.suptitle(f"{project}: design points, estimated by hclbuild's QoR model (not csynth)", fontsize=10)
    figure.tight_layout()
    return _png_bytes(figure)
