"""hcl.report: HeteroCL's csynth report displayer, over hclbuild's own csynth XML parser.

`parse_xml(path, prod_name, top, print_flag)` and a built function's `.report()` return a
Displayer; `display(loops=None, level=None, cols=None)` prints the loop table (latency, trip
count, pipeline II and depth) and returns it as text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hclbuild.errors import ToolError
from hclbuild.runtime.report.csynth import parse_csynth_xml
from hclbuild.runtime.vitis import find_csynth_report

COLUMNS = ("Trip Count", "Latency", "Iteration Latency", "Pipeline II", "Pipeline Depth")
_FIELDS = {
    "Trip Count": "trip_count",
    "Latency": "latency",
    "Iteration Latency": "iteration_latency",
    "Pipeline II": "pipeline_ii",
    "Pipeline Depth": "pipeline_depth",
}


class Displayer:
    """The loops of one csynth report, one row per loop (nested loops marked with '+')."""

    def __init__(self, report: Any):
        self.report = report
        self.unit = "clock cycles"
        self.rows: list[tuple[str, int, Any]] = []  # (name, depth, LoopReport)

        def walk(loops: list[Any], depth: int) -> None:
            for loop in loops:
                self.rows.append((loop.name, depth, loop))
                walk(loop.sub_loops, depth + 1)

        walk(report.loops, 0)

    def display(
        self, loops: list[str] | None = None, level: int | None = None, cols: list[str] | None = None
    ) -> str:
        """Print the rows whose name contains one of `loops`, down to nesting `level`, with `cols`."""
        columns = [c for c in COLUMNS if cols is None or any(want in c for want in cols)]
        rows = [
            (name, depth, loop)
            for name, depth, loop in self.rows
            if (loops is None or any(str(want) in name for want in loops))
            and (level is None or depth <= level)
        ]
        table = [["", *columns]]
        for name, depth, loop in rows:
            cells = []
            for column in columns:
                span = getattr(loop, _FIELDS[column])
                cells.append("N/A" if span is None else str(span))
            table.append([("+" * depth + " " if depth else "") + name, *cells])
        widths = [max(len(row[k]) for row in table) for k in range(len(table[0]))]
        lines = [
            " | ".join(
                cell.ljust(w) if k == 0 else cell.rjust(w) for k, (cell, w) in enumerate(zip(row, widths))
            )
            for row in table
        ]
        lines.insert(1, "-+-".join("-" * w for w in widths))
        text = "\n".join(lines) + f"\n* Units in {self.unit}"
        print(text)
        return text


def parse_xml(
    path: str | Path, prod_name: str = "Vitis HLS", top: str = "top", print_flag: bool = False
) -> Displayer:
    """HeteroCL's parse_xml: the csynth report of `top` found under the project folder `path`."""
    displayer = report_of(Path(path), top)
    if print_flag:
        r = displayer.report
        print(
            f"{prod_name} {r.version or ''}: {r.top} on {r.part}, latency {r.best_latency}~{r.worst_latency} "
            f"cycles, resources {r.resources}"
        )
    return displayer


def report_of(folder: str | Path, func: str) -> Displayer:
    """The Displayer of function `func`'s csynth report in its HLS project folder."""

    found = find_csynth_report(folder, func)
    if found is None:
        raise ToolError(
            f"no csynth report of {func!r} under {folder}: run csynth (mode 'csyn') with Vitis first"
        )
    return Displayer(parse_csynth_xml(found))
