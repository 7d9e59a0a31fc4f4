"""hclbuild.render without a browser: the estimate reader, summary.json records, the function graph's
SVG, report.html's rows and labels, and the design graph of a real stream design (dashed streams)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from hclbuild.errors import ToolError
from hclbuild.render.function_graph import function_graph_svg
from hclbuild.render.graph import graph_dot
from hclbuild.render.html import index_html, relative_error, report_html
from hclbuild.render.summary import (
    ESTIMATE,
    FunctionSummary,
    ProjectSummary,
    estimate_figures,
    read_summaries,
    summary_from_json,
    summary_to_json,
)
from hclbuild.runtime.report import parse_estimate_json

REPO = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"

ESTIMATE_FILE = {
    "kind": "estimate",
    "model_version": "1",
    "function": "Stage_mm",
    "part": "xcu250-figd2104-2L-e",
    "clock_ns": 10.0,
    "latency_min": 4100,
    "latency_max": 4113,
    "interval": 4114,
    "loops": [
        {
            "label": "i",
            "trip_count": 64,
            "ii_requested": 1,
            "ii": 2,
            "limited_by": "memory ports of A",
            "iteration_latency": 9,
            "latency": 135,
        }
    ],
    "resources": {"DSP": 3, "BRAM_18K": 2, "FF": 410, "LUT": 520},
}

# two functions called by the top, connected by a stream, and a plain tensor to a top stage
GRAPH = {
    "top": "top",
    "functions": ["top", "Stage_a", "Stage_b"],
    "parents": {"Stage_a": "top", "Stage_b": "top"},
    "stages": [
        {"name": "a", "function": "Stage_a"},
        {"name": "b", "function": "Stage_b"},
        {"name": "c", "function": "top"},
    ],
    "edges": [
        {"source": "inputs", "target": "a", "tensor": "A", "stream": False},
        {"source": "a", "target": "b", "tensor": "s", "stream": True},
        {"source": "b", "target": "c", "tensor": "t", "stream": False},
        {"source": "c", "target": "outputs", "tensor": "C", "stream": False},
    ],
}


def write_estimate(path: Path, **changes: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**ESTIMATE_FILE, **changes}))
    return path


def test_estimate_file_is_read_with_every_field(tmp_path: Path) -> None:
    report = parse_estimate_json(write_estimate(tmp_path / "e.json"))
    assert (report.function, report.latency_min, report.latency_max, report.interval) == (
        "Stage_mm",
        4100,
        4113,
        4114,
    )
    assert report.resources == {"DSP": 3, "BRAM_18K": 2, "FF": 410, "LUT": 520}
    loop = report.loops[0]
    assert (loop.label, loop.trip_count, loop.ii_requested, loop.ii, loop.limited_by) == (
        "i",
        64,
        1,
        2,
        "memory ports of A",
    )
    figures = estimate_figures(report)
    assert figures.source == ESTIMATE and figures.label == "estimated"
    assert (figures.metric("latency"), figures.metric("interval"), figures.metric("DSP")) == (4113, 4114, 3)


def test_a_file_that_is_not_an_estimate_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "e.json"
    bad.write_text("{")
    with pytest.raises(ToolError, match=r"e.json: not an hclbuild estimate \(invalid JSON"):
        parse_estimate_json(bad)
    with pytest.raises(ToolError, match=r'not an hclbuild estimate \(no "kind": "estimate"\)'):
        parse_estimate_json(write_estimate(tmp_path / "k.json", kind="csynth"))


def summary_with_estimate() -> ProjectSummary:
    from hclbuild.runtime.report import estimate_from_dict

    estimate = estimate_figures(estimate_from_dict(ESTIMATE_FILE, "e"))
    return ProjectSummary(
        project="demo",
        graph=GRAPH,
        functions=[
            FunctionSummary("top", "pass", csim={"compared": 1, "max_abs_err": 0.0}),
            FunctionSummary("Stage_a", "FAIL", reason="demo/Stage_a: csim failed: 3 of 8 elements differ"),
            FunctionSummary("Stage_b", "not run", reason="csim:demo/Stage_b has not run", estimate=estimate),
        ],
    )


def test_summary_json_round_trip(tmp_path: Path) -> None:
    summary = summary_with_estimate()
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(summary_to_json(summary), sort_keys=True))
    (back,) = read_summaries(path)
    assert back == summary
    with pytest.raises(ToolError, match=r"not an hclbuild summary\.json of format 2"):
        summary_from_json({"project": "old", "functions": {}}, "old.json")


def test_function_graph_has_one_node_per_function_and_dashed_streams() -> None:
    svg = function_graph_svg(GRAPH, {"top": "pass", "Stage_a": "FAIL"}, {"Stage_a": "3 differ"})
    root = ET.fromstring(svg)
    nodes = [g for g in root.iter(f"{SVG}g") if "fn" in g.get("class", "").split()]
    assert [(g.get("data-function"), g.get("data-csim")) for g in nodes] == [
        ("top", "pass"),
        ("Stage_a", "FAIL"),
        ("Stage_b", "not run"),
    ]
    assert [g.get("class") for g in nodes] == ["fn pass", "fn fail", "fn notrun"]
    edges = {g.get("data-tensors"): g for g in root.iter(f"{SVG}g") if "edge" in g.get("class", "")}
    assert set(edges) == {"A", "s", "t", "C"}
    assert edges["s"].get("class") == "edge stream"
    assert edges["s"].find(f"{SVG}path").get("stroke-dasharray") == "6 4"
    assert edges["t"].find(f"{SVG}path").get("stroke-dasharray") is None
    # the callees sit inside the top's box
    top, a = (node.find(f"{SVG}rect") for node in nodes[:2])
    assert float(top.get("x")) < float(a.get("x")) and float(a.get("x")) + float(a.get("width")) < float(
        top.get("x")
    ) + float(top.get("width"))


def test_report_html_labels_estimates_and_shows_the_error_against_csynth() -> None:
    from hclbuild.render.summary import CSYNTH, Figures

    summary = summary_with_estimate()
    stage_b = summary.functions[2]
    stage_b.csynth = Figures(CSYNTH, latency_min=3900, latency_max=3900, interval=3901, resources={"DSP": 4})
    stage_b.files = ["hls/Stage_b/Stage_b.cpp", "csim/Stage_b.json"]
    page = report_html(summary)
    assert "Latency (estimated)" in page and "Latency (csynth)" in page
    assert "Latency</th>" not in page  # never an unlabelled figure
    row = re.search(r'<tr class="function notrun" data-function="Stage_b">(.*?)</tr>', page, re.S).group(1)
    assert '<td data-sort="4113">4\u2009113</td>' in row
    # csynth 3900 cycles; the estimate 4113 is 5.5% above it
    assert '<td data-sort="3900">3\u2009900<small>estimate +5.5%</small></td>' in row
    assert '<a href="../hls/Stage_b/Stage_b.cpp">hls/Stage_b/Stage_b.cpp</a>' in page
    assert "memory ports of A" in page  # what limited the loop's II
    assert "demo/Stage_a: csim failed: 3 of 8 elements differ" in page
    assert (
        "<script>" in page
        and "<style>" in page
        and "http" not in page.replace("http://www.w3.org/2000/svg", "")
    )
    assert relative_error(4113, 3900) == pytest.approx(5.4615, abs=1e-3)
    assert relative_error(1, 0) is None


def test_index_html_has_a_row_per_project() -> None:
    one = summary_with_estimate()
    two = ProjectSummary("other", functions=[FunctionSummary("top", "pass")])
    page = index_html([one, two], "build")
    assert re.findall(r'data-project="([^"]+)"', page) == ["demo", "other"]
    assert '<a href="demo/reports/report.html">demo</a>' in page
    assert '<tr class="project fail" data-project="demo">' in page


def test_stream_design_graph_draws_streams_dashed(tmp_path: Path) -> None:
    """The README's promise (issue 34): design.dot draws the tensors `s.to` made streams dashed."""
    from hclbuild.project.config import load_project
    from hclbuild.project.flow import write_project_ir
    from hclbuild.project.layout import BuildLayout

    project = load_project(REPO / "projects" / "stream_pipeline")
    layout = BuildLayout(tmp_path, project.name)
    graph = write_project_ir(project, layout).graph
    streams = {(e["source"], e["target"], e["tensor"]) for e in graph["edges"] if e["stream"]}
    assert streams == {("gray", "blur", "gray"), ("blur", "binarize", "blur")}
    dot = graph_dot(graph, project.name)
    assert '"stage:gray" -> "stage:blur" [style=dashed, label="gray (stream)"];' in dot
    assert '"stage:blur" -> "stage:binarize" [style=dashed, label="blur (stream)"];' in dot
    assert '"inputs" -> "stage:gray" [label="rgb"];' in dot  # a plain tensor stays solid
