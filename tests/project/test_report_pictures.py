"""The pictures of report:<project>: the design graph (DOT, then SVG through dot or PNG through
matplotlib) and the per-function csynth chart, drawn from real designs and real csynth reports."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest
from shared_fixtures import real_report

from hclbuild.project.config import load_project
from hclbuild.project.flow import compile_project, write_report
from hclbuild.project.layout import BuildLayout
from hclbuild.render.graph import graph_dot, graph_size, png_size
from hclbuild.render.markdown import FunctionReport
from hclbuild.runtime.report import parse_csynth_xml

REPO = Path(__file__).resolve().parents[2]
needs_matplotlib = pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None, reason="matplotlib (the [plot] extra) is not installed"
)
WHICH = shutil.which


@pytest.fixture(scope="module")
def two_mm(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    project = load_project(REPO / "tests" / "data" / "projects" / "two_mm")  # frozen copy
    layout = BuildLayout(tmp_path_factory.mktemp("build"), project.name)
    manifest = compile_project(project, layout).design
    return project, layout, manifest


def graph_of(layout: BuildLayout) -> dict:
    from mlir import ir

    from hclbuild.compiler.design_graph import design_graph

    with ir.Context():
        return design_graph(ir.Module.parse(layout.top_mlir.read_text())).to_json()


def test_graph_of_two_mm(two_mm) -> None:
    _, layout, manifest = two_mm
    graph = graph_of(layout)
    assert graph["functions"] == manifest.functions == ["top", "Stage_out_AB", "Stage_out_ABC"]
    assert graph["parents"] == {"Stage_out_AB": "top", "Stage_out_ABC": "top"}
    assert [(s["name"], s["function"]) for s in graph["stages"]] == [
        ("out_AB", "Stage_out_AB"),
        ("out_ABC", "Stage_out_ABC"),
        ("E", "top"),
    ]
    assert [(e["source"], e["target"], e["tensor"]) for e in graph["edges"]] == [
        ("inputs", "out_AB", "A"),
        ("inputs", "out_AB", "B"),
        ("out_AB", "out_ABC", "out_AB"),
        ("inputs", "out_ABC", "C"),
        ("out_ABC", "E", "out_ABC"),
        ("inputs", "E", "D"),
        ("E", "outputs", "E"),
    ]
    assert not any(e["stream"] for e in graph["edges"])


def test_dot_source_has_every_function_as_a_box_around_its_stages(two_mm) -> None:
    _, layout, manifest = two_mm
    dot = graph_dot(graph_of(layout), "two_mm")
    for func in manifest.functions:
        assert f'subgraph "cluster_{func}" {{' in dot
        assert f'label="{func}";' in dot
    # the outlined boxes sit inside the top's box, each around its own stage
    top_box = dot.index('subgraph "cluster_top"')
    assert (
        top_box < dot.index('subgraph "cluster_Stage_out_AB"') < dot.index('"stage:out_AB" [label="out_AB"]')
    )
    assert '"stage:out_AB" -> "stage:out_ABC" [label="out_AB"];' in dot
    assert '"stage:E" -> "outputs" [label="E"];' in dot


def test_the_graph_of_a_streamed_design_marks_its_stream_edges() -> None:
    import hclbuild as hcl
    from hclbuild.compiler.design_graph import design_graph

    hcl.init()
    A = hcl.placeholder((4, 8), "A")

    def kernel(A):
        B = hcl.compute((4, 8), lambda i, j: A[i, j] + 1, "B")
        return hcl.compute((4, 8), lambda i, j: B[i, j] * 2, "C")

    s = hcl.create_schedule([A], kernel)
    s.to(kernel.B, s[kernel.C], depth=4)
    s.outline(kernel.B)
    graph = design_graph(hcl.lower(s)).to_json()
    assert [(e["source"], e["target"], e["tensor"], e["stream"]) for e in graph["edges"]] == [
        ("inputs", "B", "A", False),
        ("B", "C", "B", True),
        ("C", "outputs", "C", False),
    ]


def test_stream_edges_are_dashed() -> None:
    graph = {
        "top": "top",
        "functions": ["top"],
        "parents": {},
        "stages": [{"name": "a", "function": "top"}, {"name": "b", "function": "top"}],
        "edges": [{"source": "a", "target": "b", "tensor": "t", "stream": True}],
    }
    assert '"stage:a" -> "stage:b" [style=dashed, label="t (stream)"];' in graph_dot(graph, "s")


@needs_matplotlib
def test_graph_png_has_the_size_of_its_layout(two_mm) -> None:
    from hclbuild.render.graph import graph_png

    _, layout, _ = two_mm
    graph = graph_of(layout)
    data = graph_png(graph, "two_mm")
    # 5 columns (inputs, out_AB, out_ABC, E, outputs) of 2.4 in + 2 in margins, at 100 dpi;
    # one row of 1.1 in + margins + the bow of the arcs that skip columns
    assert png_size(data) == graph_size(graph)
    assert graph_size(graph)[0] == 1400
    assert graph_png(graph, "two_mm") == data  # no time stamp: same graph, same bytes


@needs_matplotlib
def test_csynth_chart_of_real_reports() -> None:
    from hclbuild.render.charts import chart_size, csynth_chart_png

    paths = [
        real_report("vitis2022.1_division_hls/csynth.xml"),
        real_report("vitis2020.2_gaussian/csynth.xml"),
    ]
    rows = [
        FunctionReport("division_hls", parse_csynth_xml(paths[0])),
        FunctionReport("gaussian", parse_csynth_xml(paths[1])),
        FunctionReport("not_synthesized"),
    ]
    data = csynth_chart_png(rows, "chart")
    assert png_size(data) == chart_size(2) == (1100, 270)
    assert csynth_chart_png([FunctionReport("x")], "none") is None


@needs_matplotlib
def test_report_md_links_the_pictures(two_mm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project, built, manifest = two_mm
    layout = BuildLayout(tmp_path, project.name)
    shutil.copytree(built.ir_dir, layout.ir_dir)
    fixture = real_report("vitis2022.1_division_hls/csynth.xml")
    layout.csynth_result("Stage_out_AB").parent.mkdir(parents=True)
    shutil.copyfile(fixture, layout.csynth_result("Stage_out_AB"))
    monkeypatch.setattr(
        shutil, "which", lambda name, *a, **k: None if name == "dot" else WHICH(name, *a, **k)
    )
    write_report(project, layout, manifest.functions)
    text = layout.report_markdown.read_text()
    assert "![design graph: stages, tensors, one box per function](design.png)" in text
    assert "![C synthesis: latency and utilization per function](csynth.png)" in text
    for name in ("design.png", "csynth.png"):
        assert png_size((layout.reports_dir / name).read_bytes())[0] > 0
    assert (layout.reports_dir / "design.dot").read_text().startswith('digraph "two_mm" {')


@pytest.mark.skipif(
    shutil.which("dot") is None, reason="Graphviz dot is not installed (the PNG path is tested)"
)
def test_svg_through_graphviz(two_mm) -> None:
    from hclbuild.render.graph import graph_files

    _, layout, manifest = two_mm
    files = graph_files(graph_of(layout), "two_mm")
    svg = files["design.svg"]
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert all(f">{func}<" in svg for func in manifest.functions)


def test_without_matplotlib_or_dot_the_report_says_how(
    two_mm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hclbuild.render.graph as graph_module
    from hclbuild.errors import HCLNotImplementedError

    project, built, manifest = two_mm
    layout = BuildLayout(tmp_path, project.name)
    shutil.copytree(built.ir_dir, layout.ir_dir)

    def no_matplotlib():
        raise HCLNotImplementedError("drawing PNG reports needs matplotlib: pip install 'hclbuild[plot]'")

    monkeypatch.setattr(graph_module, "_pyplot", no_matplotlib)
    monkeypatch.setattr(graph_module.shutil, "which", lambda name, *a, **k: None)
    write_report(project, layout, manifest.functions)
    text = layout.report_markdown.read_text()
    assert "The design graph is [design.dot](design.dot) (Graphviz source)." in text
    assert "- design graph: drawing PNG reports needs matplotlib: pip install 'hclbuild[plot]'" in text
    assert not (layout.reports_dir / "design.png").exists()
