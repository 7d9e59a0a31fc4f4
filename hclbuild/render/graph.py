"""Draw a design graph (compiler.design_graph's data): Graphviz DOT text, then SVG through `dot` when
it is installed, else a PNG through matplotlib (the `[plot]` extra).

Stages are rounded boxes, tensors are edges labelled with their names (streams dashed), each
function is a box (a DOT cluster `cluster_<function>`) around its stages, nested as the calls are.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from typing import Any

from hclbuild import tool_processes
from hclbuild.errors import HCLNotImplementedError, ToolError

INPUTS = "inputs"
OUTPUTS = "outputs"
DPI = 100
# matplotlib layout: inches per column (stage depth) and per row, plus the margins
COLUMN_INCHES = 2.4
ROW_INCHES = 1.1
MARGIN_INCHES = 1.0
ARC_BOW = 0.15  # how far an edge that skips columns bows above the row, per inch of its length
_FUNCTION_COLOURS = ("#e8f0fb", "#fbeee8", "#eaf7ea", "#f6eafb", "#fbf7e6")


def graph_dot(graph: Mapping[str, Any], title: str) -> str:
    """The DOT text of a design graph (the dict of DesignGraph.to_json)."""
    stages_of: dict[str, list[str]] = {name: [] for name in graph["functions"]}
    for stage in graph["stages"]:
        stages_of.setdefault(stage["function"], []).append(stage["name"])
    children: dict[str, list[str]] = {name: [] for name in graph["functions"]}
    for child, parent in graph["parents"].items():
        children.setdefault(parent, []).append(child)
    lines = [
        f"digraph {_quote(title)} {{",
        "  rankdir=LR;",
        "  compound=true;",
        '  node [shape=box, style="rounded,filled", fillcolor=white, fontname="Helvetica"];',
        '  edge [fontname="Helvetica", fontsize=10];',
        f'  {_quote(INPUTS)} [shape=plaintext, style="", label="inputs"];',
        f'  {_quote(OUTPUTS)} [shape=plaintext, style="", label="outputs"];',
    ]

    def cluster(function: str, depth: int) -> None:
        pad = "  " * (depth + 1)
        colour = _FUNCTION_COLOURS[depth % len(_FUNCTION_COLOURS)]
        lines.append(f"{pad}subgraph {_quote('cluster_' + function)} {{")
        lines.append(f'{pad}  label={_quote(function)}; style="rounded,filled"; fillcolor="{colour}";')
        for stage in stages_of.get(function, []):
            lines.append(f"{pad}  {_quote(_node(stage))} [label={_quote(stage)}];")
        for child in children.get(function, []):
            cluster(child, depth + 1)
        lines.append(f"{pad}}}")

    cluster(graph["top"], 0)
    for edge in graph["edges"]:
        style = (
            ", style=dashed, label=" + _quote(edge["tensor"] + " (stream)")
            if edge["stream"]
            else ", label=" + _quote(edge["tensor"])
        )
        lines.append(f"  {_quote(_node(edge['source']))} -> {_quote(_node(edge['target']))} [{style[2:]}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def graph_files(graph: Mapping[str, Any], title: str) -> dict[str, str | bytes]:
    """{"design.dot": DOT text, plus "design.svg" (Graphviz dot) or "design.png" (matplotlib)}.

    Raises HCLNotImplementedError when neither dot nor matplotlib is installed (the DOT text is
    then the whole picture).
    """
    dot_text = graph_dot(graph, title)
    dot = shutil.which("dot")
    if dot is not None:
        done = tool_processes.run([dot, "-Tsvg"], input=dot_text, timeout=120)
        if done.returncode != 0:
            raise ToolError(f"dot -Tsvg failed: {done.stderr.strip()[:300]}")
        return {"design.dot": dot_text, "design.svg": done.stdout}
    return {"design.dot": dot_text, "design.png": graph_png(graph, title)}


def graph_layout(graph: Mapping[str, Any]) -> dict[str, tuple[int, int]]:
    """(column, row) of every node: column = longest path from the inputs, rows in program order."""
    nodes = [INPUTS] + [_node(stage["name"]) for stage in graph["stages"]] + [OUTPUTS]
    column = dict.fromkeys(nodes, 0)
    order = {name: k for k, name in enumerate(nodes)}
    edges = [(_node(e["source"]), _node(e["target"])) for e in graph["edges"]]
    # stages are in program order, so every edge goes forward and one pass in that order suffices
    for name in nodes:
        for source, target in edges:
            if target == name and source in column and order.get(source, 0) < order[name]:
                column[name] = max(column[name], column[source] + 1)
    last = max((column[n] for n in nodes if n != OUTPUTS), default=0)
    column[OUTPUTS] = last + 1
    rows: dict[int, int] = {}
    place = {}
    for name in nodes:
        row = rows.get(column[name], 0)
        rows[column[name]] = row + 1
        place[name] = (column[name], row)
    return place


def graph_size(graph: Mapping[str, Any]) -> tuple[int, int]:
    """Pixel (width, height) of the matplotlib drawing of a graph."""
    place = graph_layout(graph)
    columns = max(c for c, _ in place.values()) + 1
    rows = max(r for _, r in place.values()) + 1
    return (
        round((columns * COLUMN_INCHES + 2 * MARGIN_INCHES) * DPI),
        round((rows * ROW_INCHES + 2 * MARGIN_INCHES + _arc_headroom(graph, place)) * DPI),
    )


def _arc_headroom(graph: Mapping[str, Any], place: Mapping[str, tuple[int, int]]) -> float:
    """Inches above the first row that the arcs of column-skipping edges need."""
    spans = [abs(place[_node(e["target"])][0] - place[_node(e["source"])][0]) for e in graph["edges"]]
    return max((ARC_BOW * span * COLUMN_INCHES for span in spans if span > 1), default=0.0)


def graph_png(graph: Mapping[str, Any], title: str) -> bytes:
    """The graph drawn by matplotlib as PNG bytes (boxes per function, arrows per tensor)."""
    plt = _pyplot()
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    place = graph_layout(graph)
    width, height = graph_size(graph)
    figure = plt.figure(figsize=(width / DPI, height / DPI), dpi=DPI)
    axes = figure.add_axes((0, 0, 1, 1))
    axes.set_xlim(0, width / DPI)
    axes.set_ylim(height / DPI, 0)
    axes.axis("off")

    top_margin = MARGIN_INCHES + _arc_headroom(graph, place)

    def centre(name: str) -> tuple[float, float]:
        column, row = place[name]
        return (MARGIN_INCHES + (column + 0.5) * COLUMN_INCHES, top_margin + (row + 0.5) * ROW_INCHES)

    function_of = {_node(s["name"]): s["function"] for s in graph["stages"]}
    depth = {graph["top"]: 0}
    for function in graph["functions"]:
        parent = graph["parents"].get(function)
        if parent is not None:
            depth[function] = depth.get(parent, 0) + 1
    # function boxes, outermost first, around the stages of the function and of its callees
    for function in sorted(graph["functions"], key=lambda f: depth.get(f, 0)):
        members = [n for n, f in function_of.items() if _within(f, function, graph["parents"])]
        if not members:
            continue
        pad = 0.55 - 0.12 * depth.get(function, 0)
        xs = [centre(n)[0] for n in members]
        ys = [centre(n)[1] for n in members]
        box = FancyBboxPatch(
            (min(xs) - 0.9 - pad + 0.55, min(ys) - 0.3 - pad),
            max(xs) - min(xs) + 1.8 + 2 * pad - 1.1,
            max(ys) - min(ys) + 0.6 + 2 * pad,
            boxstyle="round,pad=0.02",
            linewidth=1.0,
            edgecolor="#5a6b85",
            facecolor=_FUNCTION_COLOURS[depth.get(function, 0) % len(_FUNCTION_COLOURS)],
        )
        axes.add_patch(box)
        axes.text(
            min(xs) - 0.9 - pad + 0.6,
            min(ys) - 0.3 - pad + 0.05,
            function,
            fontsize=8,
            va="top",
            ha="left",
            color="#2b3a55",
        )
    # one arrow per pair of nodes, labelled with every tensor it carries
    arrows: dict[tuple[str, str], list[Any]] = {}
    for edge in graph["edges"]:
        arrows.setdefault((_node(edge["source"]), _node(edge["target"])), []).append(edge)
    for (source, target), edges in arrows.items():
        start, end = centre(source), centre(target)
        skips = abs(place[target][0] - place[source][0]) > 1 or place[target][1] != place[source][1]
        stream = all(edge["stream"] for edge in edges)
        arrow = FancyArrowPatch(
            start,
            end,
            arrowstyle="-|>",
            mutation_scale=10,
            shrinkA=30,
            shrinkB=30,
            connectionstyle=f"arc3,rad={-2 * ARC_BOW if skips else 0.0}",
            linestyle="--" if stream else "-",
            color="#333333",
            linewidth=1.0,
        )
        axes.add_patch(arrow)
        lift = ARC_BOW * abs(end[0] - start[0]) + 0.05 if skips else 0.08
        label = ", ".join(e["tensor"] + (" (stream)" if e["stream"] else "") for e in edges)
        axes.text(
            (start[0] + end[0]) / 2,
            (start[1] + end[1]) / 2 - lift,
            label,
            fontsize=7,
            ha="center",
            va="bottom",
            color="#555555",
        )
    for name in place:
        x, y = centre(name)
        label = name if name in (INPUTS, OUTPUTS) else name.removeprefix("stage:")
        style = (
            {"boxstyle": "round,pad=0.3", "facecolor": "white", "edgecolor": "#333333"}
            if name not in (INPUTS, OUTPUTS)
            else {"boxstyle": "round,pad=0.2", "facecolor": "none", "edgecolor": "none"}
        )
        axes.text(x, y, label, ha="center", va="center", fontsize=9, bbox=style)
    axes.text(0.1, 0.1, title, fontsize=10, ha="left", va="top", weight="bold")
    return _png_bytes(figure)


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) of PNG bytes; ToolError when they are not a PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ToolError("not a PNG image")
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _within(function: str, ancestor: str, parents: Mapping[str, str]) -> bool:
    current: str | None = function
    while current is not None:
        if current == ancestor:
            return True
        current = parents.get(current)
    return False


def _node(stage: str) -> str:
    # stage names could collide with the two end nodes; stage nodes get a prefix
    return stage if stage in (INPUTS, OUTPUTS) else f"stage:{stage}"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise HCLNotImplementedError(
            "drawing PNG reports needs matplotlib: pip install 'hclbuild[plot]'"
        ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png_bytes(figure: Any) -> bytes:
    import io

    plt = _pyplot()
    buffer = io.BytesIO()
    # fixed metadata: the same graph gives the same bytes, so doit sees no change
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    plt.close(figure)
    return buffer.getvalue()
