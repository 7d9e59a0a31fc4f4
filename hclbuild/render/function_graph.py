"""The function graph of report.html as inline SVG, laid out here (no Graphviz, no matplotlib).

Each function is one box (`<g class="fn" data-function=...>`), coloured by its csim verdict, with
the functions it calls nested inside it and its own stages as small pills; an arrow is a tensor
from the stage that writes it to each stage that reads it, drawn between the outermost boxes that
hold the two ends inside the box of their common caller, dashed for a stream. Inside a box the
items stand in columns by the longest chain of tensors that leads to them, in program order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape, quoteattr

INPUTS, OUTPUTS = "inputs", "outputs"
ROOT = ""  # the level around the top function, where the design's inputs and outputs stand
CHAR_WIDTH = 7.2  # px per character of the 12 px sans-serif labels
PAD, HEADER = 12, 26
COLUMN_GAP, ROW_GAP = 56, 18
STAGE_HEIGHT = 26
STATUS_CLASSES = {"pass": "pass", "FAIL": "fail", "not run": "notrun"}


@dataclass
class _Item:
    """A box or pill placed inside its parent: `key` is "fn:<name>", "stage:<name>" or an end node."""

    key: str
    label: str
    width: float = 0.0
    height: float = 0.0
    x: float = 0.0  # relative to the parent's content origin
    y: float = 0.0
    children: list[_Item] = field(default_factory=list)


def function_graph_svg(
    graph: Mapping[str, Any], states: Mapping[str, str], reasons: Mapping[str, str]
) -> str:
    """The SVG text of a design graph (compiler.design_graph's dict); `states[f]` is f's csim verdict."""
    parents: dict[str, str] = dict(graph["parents"])
    for function in graph["functions"]:
        parents.setdefault(function, graph["top"])
    parents[graph["top"]] = ROOT
    stage_function = {stage["name"]: stage["function"] for stage in graph["stages"]}

    def chain(node: str) -> list[str]:
        """The keys from ROOT down to `node`: its function's callers, its function, the node itself."""
        if node in (INPUTS, OUTPUTS):
            return [node]
        keys = [f"stage:{node}"]
        function = stage_function[node]
        while function != ROOT:
            keys.append(f"fn:{function}")
            function = parents.get(function, ROOT)
        return keys[::-1]

    # each edge belongs to the level where the chains of its two ends part
    level_edges: dict[str, list[tuple[str, str, str, bool]]] = {}
    level_items: dict[str, list[str]] = {}
    for function in [ROOT, *graph["functions"]]:
        level_items[function] = []
    level_items[ROOT].append(INPUTS)
    order = [s["name"] for s in graph["stages"]]
    for stage in order:
        keys = chain(stage)
        owners = [ROOT] + [key[3:] for key in keys[:-1]]
        for owner, key in zip(owners, keys):
            if key not in level_items[owner]:
                level_items[owner].append(key)
    level_items[ROOT].append(OUTPUTS)
    for edge in graph["edges"]:
        source, target = chain(edge["source"]), chain(edge["target"])
        common = 0
        while common < min(len(source), len(target)) and source[common] == target[common]:
            common += 1
        if common == min(len(source), len(target)):
            continue  # one end holds the other: a call's own argument, drawn by the nesting
        owner = ROOT if common == 0 else source[common - 1][3:]
        level_edges.setdefault(owner, []).append(
            (source[common], target[common], edge["tensor"], edge["stream"])
        )

    def build(owner: str, key: str) -> _Item:
        label = key.split(":", 1)[-1]
        item = _Item(key, label)
        if not key.startswith("fn:"):
            item.width, item.height = max(60.0, len(label) * CHAR_WIDTH + 20), STAGE_HEIGHT
            return item
        name = key[3:]
        item.children = [build(name, child) for child in level_items.get(name, [])]
        _place(item.children, level_edges.get(name, []))
        content_w = max((c.x + c.width for c in item.children), default=0.0)
        content_h = max((c.y + c.height for c in item.children), default=0.0)
        status = states.get(name, "not run")
        header_w = (len(name) + len(status) + 3) * CHAR_WIDTH
        item.width = max(content_w, header_w) + 2 * PAD
        item.height = HEADER + content_h + PAD + (0 if item.children else 4)
        return item

    root = _Item("root", "")
    root.children = [build(ROOT, key) for key in level_items[ROOT]]
    _place(root.children, level_edges.get(ROOT, []))
    width = max((c.x + c.width for c in root.children), default=0.0) + 2 * PAD
    height = max((c.y + c.height for c in root.children), default=0.0) + 2 * PAD

    body: list[str] = []
    edges: list[str] = []
    positions: dict[str, tuple[float, float, float, float]] = {}

    def draw(item: _Item, ox: float, oy: float, owner: str) -> None:
        x, y = ox + item.x, oy + item.y
        positions[item.key] = (x, y, item.width, item.height)
        if item.key.startswith("fn:"):
            name = item.key[3:]
            status = states.get(name, "not run")
            tip = f"{name}: csim {status}" + (f": {reasons[name]}" if reasons.get(name) else "")
            body.append(
                f'<g class="fn {STATUS_CLASSES.get(status, "notrun")}" data-function={quoteattr(name)} '
                f"data-csim={quoteattr(status)}><title>{escape(tip)}</title>"
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{item.width:.1f}" height="{item.height:.1f}" rx="8"/>'
                f'<text x="{x + PAD:.1f}" y="{y + 17:.1f}" class="fn-name">{escape(name)}'
                f'<tspan class="fn-status"> · {escape(status)}</tspan></text></g>'
            )
            for child in item.children:
                draw(child, x + PAD, y + HEADER, name)
            _draw_edges(edges, level_edges.get(name, []), positions)
        elif item.key.startswith("stage:"):
            body.append(
                f'<g class="stage" data-stage={quoteattr(item.label)}>'
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{item.width:.1f}" height="{item.height:.1f}" rx="13"/>'
                f'<text x="{x + item.width / 2:.1f}" y="{y + 17:.1f}" text-anchor="middle">'
                f"{escape(item.label)}</text></g>"
            )
        else:
            body.append(
                f'<text class="end" x="{x + item.width / 2:.1f}" y="{y + 17:.1f}" '
                f'text-anchor="middle">{escape(item.label)}</text>'
            )

    for child in root.children:
        draw(child, PAD, PAD, ROOT)
    _draw_edges(edges, level_edges.get(ROOT, []), positions)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="function-graph" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'width="{width:.0f}" height="{height:.0f}" role="img" aria-label="function graph">'
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z"/></marker></defs>'
        + "".join(body)
        + "".join(edges)
        + "</svg>"
    )


def _place(items: list[_Item], edges: list[tuple[str, str, str, bool]]) -> None:
    """Columns by the longest chain of edges (items are in program order), rows top to bottom."""
    index = {item.key: k for k, item in enumerate(items)}
    column = dict.fromkeys(index, 0)
    for item in items:
        for source, target, _, _ in edges:
            if target == item.key and source in index and index[source] < index[target]:
                column[target] = max(column[target], column[source] + 1)
    # the gap after a column fits the longest label of the arrows leaving it
    labels: dict[tuple[str, str], int] = {}
    for source, target, tensor, stream in edges:
        labels[source, target] = labels.get((source, target), -2) + 2 + len(tensor) + (9 if stream else 0)
    gaps: dict[int, float] = {}
    for (source, _), length in labels.items():
        if source in column:
            gaps[column[source]] = max(gaps.get(column[source], COLUMN_GAP), length * CHAR_WIDTH * 0.95 + 24)
    widths: dict[int, float] = {}
    for item in items:
        widths[column[item.key]] = max(widths.get(column[item.key], 0.0), item.width)
    lefts, left = {}, 0.0
    for col in sorted(widths):
        lefts[col] = left
        left += widths[col] + gaps.get(col, COLUMN_GAP)
    tops: dict[int, float] = {}
    for item in items:
        col = column[item.key]
        item.x = lefts[col] + (widths[col] - item.width) / 2
        item.y = tops.get(col, 0.0)
        tops[col] = item.y + item.height + ROW_GAP


def _draw_edges(
    out: list[str],
    edges: list[tuple[str, str, str, bool]],
    positions: Mapping[str, tuple[float, float, float, float]],
) -> None:
    """One arrow per pair of items, labelled with every tensor it carries; dashed when all are streams."""
    grouped: dict[tuple[str, str], list[tuple[str, bool]]] = {}
    for source, target, tensor, stream in edges:
        grouped.setdefault((source, target), []).append((tensor, stream))
    for (source, target), tensors in grouped.items():
        if source not in positions or target not in positions:
            continue
        sx, sy, sw, sh = positions[source]
        tx, ty, tw, th = positions[target]
        if tx >= sx + sw:  # left to right: right side to left side
            x1, y1, x2, y2 = sx + sw, sy + sh / 2, tx, ty + th / 2
        else:  # same column: bottom to top
            x1, y1, x2, y2 = sx + sw / 2, sy + sh, tx + tw / 2, ty
        stream = all(is_stream for _, is_stream in tensors)
        label = ", ".join(tensor + (" (stream)" if is_stream else "") for tensor, is_stream in tensors)
        names = " ".join(tensor for tensor, _ in tensors)
        out.append(
            f'<g class="edge{" stream" if stream else ""}" data-tensors={quoteattr(names)}>'
            f'<path d="M {x1:.1f} {y1:.1f} L {x2:.1f} {y2:.1f}" marker-end="url(#arrow)"'
            + (' stroke-dasharray="6 4"' if stream else "")
            + f'/><text x="{(x1 + x2) / 2:.1f}" y="{(y1 + y2) / 2 - 5:.1f}" text-anchor="middle">'
            f"{escape(label)}</text></g>"
        )
