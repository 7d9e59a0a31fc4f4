"""The picture files of a project's reports folder, beside report.md:

    design.dot + design.svg|design.png   the design graph (Graphviz dot when installed, else matplotlib)
    csynth.png                           per-function latency and utilization, once csynth ran

Each is linked from report.md (picture_links). Without matplotlib (the `[plot]` extra) and without
dot, the DOT text is written and report.md says how to get the drawings. Drawn from the design
graph's data (the compile's ir/manifest.json keeps it), never from MLIR.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hclbuild.atomic import write_if_changed
from hclbuild.errors import HCLNotImplementedError
from hclbuild.render.charts import csynth_chart_png
from hclbuild.render.graph import graph_dot, graph_files

GRAPH_IMAGES = ("design.svg", "design.png")
CHART = "csynth.png"
_NOTE = "pictures.txt"  # why a picture is missing, for report.md


def write_report_pictures(
    out: Path, name: str, graph: Mapping[str, Any] | None, rows: Sequence[Any]
) -> list[Path]:
    """Draw the design graph and, for FunctionReport rows with csynth, the chart, into folder `out`."""
    written: list[Path] = []
    notes: list[str] = []
    files: dict[str, str | bytes] = {}
    if graph is not None:
        try:
            files = graph_files(graph, name)
        except HCLNotImplementedError as exc:
            files = {"design.dot": graph_dot(graph, name)}
            notes.append(f"design graph: {exc}")
    for image in GRAPH_IMAGES:
        if image not in files:
            (out / image).unlink(missing_ok=True)
    try:
        chart = csynth_chart_png(rows, f"{name}: C synthesis per function")
    except HCLNotImplementedError as exc:
        chart = None
        notes.append(f"csynth chart: {exc}")
    if chart is not None:
        files[CHART] = chart
    else:
        (out / CHART).unlink(missing_ok=True)
    for file_name, data in files.items():
        write_if_changed(out / file_name, data)
        written.append(out / file_name)
    if notes:
        write_if_changed(out / _NOTE, "\n".join(notes) + "\n")
    else:
        (out / _NOTE).unlink(missing_ok=True)
    return written


def picture_links(out: Path) -> str:
    """The markdown of a "Pictures" section for the pictures in `out` (empty when none exists)."""
    lines = []
    image = next((name for name in GRAPH_IMAGES if (out / name).is_file()), None)
    if image is not None:
        lines.append(f"![design graph: stages, tensors, one box per function]({image})")
    elif (out / "design.dot").is_file():
        lines.append("The design graph is [design.dot](design.dot) (Graphviz source).")
    if (out / CHART).is_file():
        lines.append(f"![C synthesis: latency and utilization per function]({CHART})")
    if (out / _NOTE).is_file():
        lines += [f"- {line}" for line in (out / _NOTE).read_text(encoding="utf-8").splitlines() if line]
    return "\n## Pictures\n\n" + "\n\n".join(lines) + "\n" if lines else ""
