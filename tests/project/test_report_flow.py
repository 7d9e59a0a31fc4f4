"""report:<project> and the CLI summary pick up csim results and, where Vitis ran, csynth reports."""

from __future__ import annotations

import shutil
from pathlib import Path

from shared_fixtures import real_report

from hclbuild.cli import run_doit, summary_rows
from hclbuild.project.config import load_project
from hclbuild.project.flow import write_report
from hclbuild.project.layout import BuildLayout
from hclbuild.project.manifest import read_design_manifest

REPO = Path(__file__).resolve().parents[2]


def test_report_has_csim_and_csynth_columns(tmp_path: Path) -> None:
    fixture = real_report("vitis2022.1_division_hls/csynth.xml")
    project = load_project(REPO / "projects" / "two_mm")
    layout = BuildLayout(tmp_path / "build", project.name)
    # through the tasks: the report shows only verdicts of attempts they recorded
    assert run_doit(["csim"], [project.dir], tmp_path / "build") == 0
    manifest = read_design_manifest(layout)
    # stand in for a csynth run of one function with a real report (values below are the file's)
    xml = layout.csynth_xml("Stage_out_AB")
    xml.parent.mkdir(parents=True)
    shutil.copyfile(fixture, xml)
    write_report(project, layout, manifest.functions)
    rows = [
        line
        for line in layout.report_markdown.read_text().splitlines()
        if line.startswith("| Stage_out_AB |")
    ]
    assert len(rows) == 1
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    assert cells[1] == "pass"
    assert cells[3] == "15"  # Worst-caseLatency 15 cycles in the fixture
    assert cells[9] == "81 (0.15%)"  # LUT, of 53200 available
    assert cells[8] == "16 (0.02%)"  # FF, of 106400 available
    summary = summary_rows([REPO / "projects" / "two_mm"], tmp_path / "build")
    by_func = {row["function"]: row for row in summary}
    assert by_func["Stage_out_AB"]["latency"] == "15"
    assert "LUT 81" in by_func["Stage_out_AB"]["resources"]
    assert by_func["top"]["csim"] == "pass" and by_func["top"]["latency"] == "-"
