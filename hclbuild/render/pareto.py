"""An exploration's results as text and a picture: pareto.md (the non-dominated points, each with
its knobs and estimated figures) and pareto.png (latency against each resource, every point, the
front highlighted). Both read plain rows (explore/pareto.json's): {"n", "key", "knobs",
"latency", "interval", "resources": {...}, "csim": optional, "csynth": optional}. The row's own
figures are estimates and labelled "(est.)"; the figures under "csynth" (explore --csynth) come from
a Vitis HLS csynth report and are labelled "(csynth)", in columns of their own, never mixed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hclbuild.render.graph import DPI, _png_bytes, _pyplot

RESOURCE_COLUMNS = ("DSP", "BRAM_18K", "FF", "LUT")
SYNTHESIZED = "synthesized"  # a csynth row's status when its report holds figures (explore_results')


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
    synthesized = any("csynth" in row for row in front)
    lines = [
        f"# {project}: design-space exploration (estimated{', confirmed by csynth' if synthesized else ''})",
        "",
        f"{summary['evaluated']} of {summary['space_size']} points evaluated ({summary['method']}"
        + (f", seed {summary['seed']}" if summary["method"] != "exhaustive" else "")
        + f"), {summary['estimated']} estimated, {len(failed)} failed. Objectives (all minimized): {objectives}.",
        "",
        (
            "A figure marked (est.) is hclbuild's QoR estimate (a model, not Vitis csynth); one marked "
            "(csynth) is read from the Vitis HLS csynth report of that point's own build "
            "(`explore/front/build/`), at "
            if synthesized
            else "Every figure is hclbuild's QoR estimate (a model, not Vitis csynth) at "
        )
        + f"{summary['part']}, {summary['clock_ns']:g} ns. `hclbuild explore --apply N` writes point N's "
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
    if synthesized:
        header += [
            "latency (cycles, csynth)",
            "interval (csynth)",
            *(f"{r} (csynth)" for r in RESOURCE_COLUMNS),
        ]
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
        if synthesized:
            cells += _csynth_cells(row.get("csynth"))
        lines.append("| " + " | ".join(cells) + " |")
    unconfirmed = [row for row in front if "csynth" in row and row["csynth"]["status"] != SYNTHESIZED]
    if unconfirmed:
        lines += ["", "## Points without a csynth report", ""]
        lines += [
            f"- {row['n']} ({row['key']}): csynth {row['csynth']['status']}: {row['csynth'].get('problem')}"
            for row in unconfirmed
        ]
    if failed:
        lines += ["", "## Points that failed", ""]
        lines += [f"- {row['error']}" for row in failed]
    return "\n".join(lines) + "\n"


def _csynth_cells(csynth: Mapping[str, Any] | None) -> list[str]:
    # a figure only from a report csynth wrote; a point without one shows its status, never a number
    if csynth is None or csynth["status"] != SYNTHESIZED:
        status = "-" if csynth is None else str(csynth["status"])
        return [status, *("-" for _ in range(1 + len(RESOURCE_COLUMNS)))]
    resources = csynth.get("resources") or {}
    return [
        _cell(csynth.get("latency")),
        _cell(csynth.get("interval")),
        *(_cell(resources.get(name)) for name in RESOURCE_COLUMNS),
    ]


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
