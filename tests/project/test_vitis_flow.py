"""Choosing and driving a Vitis HLS front end (vitis_hls, vitis-run --tcl, v++ + vitis-run), with the
stand-in tools of tests/fake_vitis: these test hclbuild's plumbing, not Vitis."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from kernels import TWO_STAGES
from vitis_helpers import stand_in_project, vadd_folder, vadd_project

from hclbuild.errors import ToolError
from hclbuild.project.attempts import read_attempt
from hclbuild.project.config import load_project
from hclbuild.project.layout import BuildLayout
from hclbuild.project.synthesis import function_reports, synthesize_function
from hclbuild.runtime.report import parse_cosim_rpt, parse_csynth_xml
from hclbuild.runtime.vitis import (
    VitisTools,
    choose_front_end,
    find_csynth_report,
    find_vitis,
    ordered_steps,
    output_format_key,
    run_hls_steps,
    version_of,
)

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(os.name != "posix", reason="the stand-in tools are POSIX executables")


def tools(*names: str) -> VitisTools:
    where = {name: Path("/opt/x/bin") / name for name in names}
    return VitisTools(where)


# ---- choosing a flow ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("installed", "chosen"),
    [
        (("vitis_hls", "vitis-run", "v++"), "vitis_hls"),
        (("vitis-run", "v++"), "vitis-run"),
        (("v++",), "v++"),
        (("v++", "vitis-run"), "vitis-run"),
    ],
)
def test_auto_prefers_vitis_hls_then_vitis_run_then_vpp(installed: tuple[str, ...], chosen: str) -> None:
    assert choose_front_end(tools(*installed)).name == chosen


def test_project_choice_wins_when_installed() -> None:
    assert choose_front_end(tools("vitis_hls", "vitis-run", "v++"), "v++").name == "v++"


def test_project_choice_that_is_missing_is_an_error() -> None:
    with pytest.raises(ToolError, match=r"asks for \[hls\] tool = 'v\+\+', which is not on PATH"):
        choose_front_end(tools("vitis_hls"), "v++")


def test_no_tool_is_an_error() -> None:
    with pytest.raises(ToolError, match="no Vitis HLS tool"):
        choose_front_end(None)


def test_steps_are_ordered_and_synthesis_comes_first() -> None:
    assert ordered_steps(["export", "csim"]) == ["csim", "csynth", "export"]
    assert ordered_steps(["cosim"]) == ["csynth", "cosim"]
    with pytest.raises(ToolError, match="unknown HLS step 'synth'"):
        ordered_steps(["synth"])


# ---- versions -------------------------------------------------------------------------------------


def test_version_from_the_install_path(tmp_path: Path) -> None:
    assert version_of(tmp_path / "Xilinx" / "Vitis" / "2024.2" / "bin" / "v++") == "2024.2"


def test_version_from_the_tool_output(fake_vitis) -> None:
    bin_dir = fake_vitis.install("v++", version="2025.2")
    assert version_of(bin_dir / "v++") == "2025.2"
    assert fake_vitis.calls() == []  # --version is not a recorded run


@pytest.mark.parametrize(
    ("version", "key"),
    [
        (None, "package.output.format"),
        ("2023.2", "syn.output.format"),
        ("2024.2", "syn.output.format"),
        ("2025.1", "package.output.format"),
    ],
)
def test_output_format_key(version: str | None, key: str) -> None:
    assert output_format_key(version) == key


# ---- running each flow ----------------------------------------------------------------------------


def test_vitis_hls_gets_the_steps_as_tclargs(fake_vitis, tmp_path: Path) -> None:
    fake_vitis.install("vitis_hls", "vitis-run", "v++")
    folder = vadd_folder(tmp_path)
    runs = run_hls_steps(folder, "vadd", ["csynth"], timeout=60)
    assert [call["argv"] for call in fake_vitis.calls()] == [["-f", "run_hls.tcl", "-tclargs", "csynth"]]
    assert fake_vitis.calls()[0]["cwd"] == str(folder)
    assert runs[0].log_path == folder / "run_hls.log"
    report = find_csynth_report(folder, "vadd")
    assert report == folder / "vadd_prj" / "solution1" / "syn" / "report" / "vadd_csynth.xml"
    assert parse_csynth_xml(report).worst_latency == 1234


def test_vitis_run_tcl_gets_the_steps_in_the_environment(fake_vitis, tmp_path: Path) -> None:
    fake_vitis.install("vitis-run")
    folder = vadd_folder(tmp_path)
    run_hls_steps(folder, "vadd", ["cosim"], timeout=60)
    (call,) = fake_vitis.calls()
    assert (call["tool"], call["argv"], call["steps"]) == (
        "vitis-run",
        ["--mode", "hls", "--tcl", "run_hls.tcl"],
        "csynth cosim",
    )
    cosim = folder / "vadd_prj" / "solution1" / "sim" / "report" / "vadd_cosim.rpt"
    assert parse_cosim_rpt(cosim).passed


def test_unified_flow_synthesizes_with_vpp_then_cosims_with_vitis_run(fake_vitis, tmp_path: Path) -> None:
    fake_vitis.install("v++", "vitis-run")
    folder = vadd_folder(tmp_path)
    runs = run_hls_steps(folder, "vadd", ["cosim"], flow="v++", timeout=60)
    calls = [(call["tool"], call["argv"]) for call in fake_vitis.calls()]
    assert calls == [
        ("v++", ["-c", "--mode", "hls", "--config", "hls_config.cfg", "--work_dir", "vadd_comp"]),
        ("vitis-run", ["--mode", "hls", "--cosim", "--config", "hls_config.cfg", "--work_dir", "vadd_comp"]),
    ]
    assert [run.log_path.name for run in runs] == ["v++_csynth.log", "vitis-run_cosim.log"]
    assert (
        find_csynth_report(folder, "vadd")
        == folder / "vadd_comp" / "hls" / "syn" / "report" / "vadd_csynth.xml"
    )


def test_unified_csim_package_and_impl_options(fake_vitis, tmp_path: Path) -> None:
    fake_vitis.install("v++", "vitis-run")
    folder = vadd_folder(tmp_path)
    run_hls_steps(folder, "vadd", ["csim", "export", "impl"], flow="v++", timeout=60)
    assert [call["argv"][2] for call in fake_vitis.calls()] == ["--csim", "hls", "--package", "--impl"]


def test_unified_steps_after_synthesis_need_vitis_run(fake_vitis, tmp_path: Path) -> None:
    fake_vitis.install("v++")
    folder = vadd_folder(tmp_path)
    with pytest.raises(ToolError, match=r"cannot run cosim .* vitis-run is not on PATH"):
        run_hls_steps(folder, "vadd", ["cosim"], timeout=60)


def test_cfg_spelled_for_another_release_is_refused_before_running(fake_vitis, tmp_path: Path) -> None:
    fake_vitis.install("v++", version="2024.2")
    folder = vadd_folder(tmp_path)  # default spelling: package.output.format (2025.1+)
    with pytest.raises(
        ToolError,
        match=r"v\+\+ is Vitis 2024.2, which reads syn.output.format: "
        r'set \[hls\] vitis_version = "2024.2"',
    ):
        run_hls_steps(folder, "vadd", ["csynth"], timeout=60)
    assert fake_vitis.calls() == []
    matching = vadd_folder(tmp_path / "matching", vitis_version="2024.2")
    run_hls_steps(matching, "vadd", ["csynth"], timeout=60)
    assert len(fake_vitis.calls()) == 1


def test_failing_tool_is_a_one_line_error(fake_vitis, tmp_path: Path) -> None:
    fake_vitis.install("vitis_hls", fail_with=3)
    folder = vadd_folder(tmp_path)
    with pytest.raises(ToolError, match=r"vitis_hls exited with code 3 .*told to fail with code 3") as info:
        run_hls_steps(folder, "vadd", ["csynth"], timeout=60)
    assert "\n" not in str(info.value)
    assert find_csynth_report(folder, "vadd") is None


# ---- publishing a function's reports -------------------------------------------------------------


def test_a_tool_that_writes_no_report_never_publishes_the_last_runs(fake_vitis, tmp_path: Path) -> None:
    fake_vitis.install("vitis_hls")
    project, layout = vadd_project(tmp_path)
    synthesize_function(project, layout, "vadd", ["csynth", "cosim"], timeout=60)
    assert layout.csynth_result("vadd").is_file() and layout.cosim_result("vadd").is_file()

    def silent(folder: Path, *args, **kwargs) -> list:
        return []  # exited 0 and wrote nothing

    with pytest.raises(ToolError, match=r"^demo/vadd: the tool exited 0 but left no csynth report in "):
        synthesize_function(project, layout, "vadd", ["csynth"], runner=silent)
    # neither the old copies nor the reports the earlier run left in hls/vadd/ count as this run's
    assert function_reports(layout, "vadd") == (None, None)
    assert not layout.csynth_inputs("vadd").exists()


def test_a_failed_cosim_fails_the_task_and_is_published_as_failed(fake_vitis, tmp_path: Path) -> None:
    fake_vitis.install("vitis_hls")
    project, layout = vadd_project(tmp_path)

    def failing_cosim(folder: Path, *args, **kwargs) -> list:
        runs = run_hls_steps(folder, *args, **kwargs)
        rpt = folder / "vadd_prj" / "solution1" / "sim" / "report" / "vadd_cosim.rpt"
        rpt.write_text(rpt.read_text().replace("|   Verilog|      Pass|", "|   Verilog|      Fail|"))
        return runs

    with pytest.raises(
        ToolError, match=r"^demo/vadd: C/RTL co-simulation did not pass \(VHDL NA, Verilog Fail; "
    ):
        synthesize_function(project, layout, "vadd", ["cosim"], timeout=60, runner=failing_cosim)
    assert parse_cosim_rpt(layout.cosim_result("vadd")).status == "Fail"


def test_a_truncated_csynth_report_is_not_published(fake_vitis, tmp_path: Path) -> None:
    fake_vitis.install("vitis_hls")
    project, layout = vadd_project(tmp_path)

    def truncating(folder: Path, *args, **kwargs) -> list:
        runs = run_hls_steps(folder, *args, **kwargs)
        for xml in (folder / "vadd_prj" / "solution1" / "syn" / "report").glob("*.xml"):
            xml.write_text(xml.read_text()[:900])
        return runs

    with pytest.raises(ToolError, match=r"vadd_csynth.xml: not an HLS csynth report \(XML parse error"):
        synthesize_function(project, layout, "vadd", ["csynth"], timeout=60, runner=truncating)
    assert not layout.csynth_result("vadd").exists()


# ---- finding reports ------------------------------------------------------------------------------


def test_reports_are_found_in_both_layouts(tmp_path: Path) -> None:
    layout = BuildLayout(tmp_path, "demo")
    folder = layout.hls_dir("vadd")
    assert function_reports(layout, "vadd") == (None, None)
    unified = folder / "vadd_comp" / "hls" / "syn" / "report" / "csynth.xml"
    unified.parent.mkdir(parents=True)
    unified.write_text("<profile/>")
    assert function_reports(layout, "vadd") == (unified, None)
    classic = layout.csynth_xml("vadd")
    classic.parent.mkdir(parents=True)
    classic.write_text("<profile/>")
    os.utime(unified, (1, 1))  # the classic one is newer
    cosim = folder / "vadd_prj" / "solution1" / "sim" / "report" / "vadd_cosim.rpt"
    cosim.parent.mkdir(parents=True)
    cosim.write_text("x")
    assert function_reports(layout, "vadd") == (classic, cosim)
    published = layout.csynth_result("vadd")
    published.parent.mkdir(parents=True)
    published.write_text("<profile/>")
    assert function_reports(layout, "vadd")[0] == published


# ---- the whole path: doit csynth -> report --------------------------------------------------------

KERNEL = """
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8,), "A")

    def kernel(A):
        doubled = hcl.compute((8,), lambda i: A[i] * 2, name="doubled")
        return hcl.compute((8,), lambda i: doubled[i] + 1, name="out")

    s = hcl.create_schedule([A], kernel, name="top")
    s.outline(kernel.doubled)
    return s
"""


@pytest.mark.slow
@pytest.mark.parametrize("tool", ["vitis_hls", "v++"])
def test_doit_csynth_then_report_with_stand_in_tools(fake_vitis, tmp_path: Path, tool: str) -> None:
    from hclbuild.cli import run_doit

    folder = stand_in_project(
        fake_vitis, tmp_path / "projects" / "twice", KERNEL, f'[hls]\ntool = "{tool}"\n'
    )
    assert find_vitis() is not None
    build = tmp_path / "build"
    assert run_doit(["csynth", "report"], [folder], build) == 0
    layout = BuildLayout(build, load_project(folder).name)
    synthesized = sorted(call["tool"] for call in fake_vitis.calls())
    assert synthesized == [tool, tool]  # one synthesis per function, with the chosen front end
    for func in ("top", "Stage_doubled"):
        assert parse_csynth_xml(layout.csynth_result(func)).top == func
    rows = [
        line
        for line in layout.report_markdown.read_text().splitlines()
        if line.startswith("| Stage_doubled |")
    ]
    assert [cell.strip() for cell in rows[0].strip("|").split("|")][3] == "1234"
    # a no-op rerun synthesizes nothing
    assert run_doit(["csynth"], [folder], build) == 0
    assert len(fake_vitis.calls()) == 2
    # a project that cannot be loaded fails `doit csynth` too, in one line, and synthesizes nothing
    (folder / "project.toml").write_text(f'[project]\nseed = 7\n\n[hls]\ntool = "{tool}"\n')
    assert run_doit(["csynth"], [folder], build) != 0
    assert "unknown key project.seed" in (read_attempt(layout, "compile").error or "")
    assert len(fake_vitis.calls()) == 2
    # other golden vectors (another seed) are no reason to synthesize again
    vectors = layout.hls_data_dir("top") / "in_A.bin"
    before = vectors.read_bytes()
    (folder / "project.toml").write_text(f'[reference]\nseed = 7\n\n[hls]\ntool = "{tool}"\n')
    assert run_doit(["csynth", "reference"], [folder], build) == 0
    assert vectors.read_bytes() != before and len(fake_vitis.calls()) == 2


# ---- top_assembly = "blackbox": csynth of each function -> its blackbox JSON -> csynth of the top ----

NOOP_CSYNTH = (
    "import sys\n"
    "from pathlib import Path\n"
    "from hclbuild.cli import run_doit\n"
    "code = run_doit(['csynth', 'blackbox'], [Path(sys.argv[1])], Path(sys.argv[2]))\n"
    "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('mlir', 'llvmlite', 'jinja2', 'numpy')\n"
    "               or m.startswith(('hclbuild.dsl', 'hclbuild.schedule', 'hclbuild.compiler')))\n"
    "print('HEAVY', heavy, 'CODE', code)\n"
)


@pytest.mark.slow
@pytest.mark.parametrize("tool", ["vitis_hls", "v++"])
def test_top_assembled_from_the_functions_rtl(fake_vitis, tmp_path: Path, tool: str) -> None:
    import json

    from hclbuild.cli import run_doit

    folder = stand_in_project(
        fake_vitis,
        tmp_path / "projects" / "asm",
        TWO_STAGES,
        f'[hls]\ntool = "{tool}"\ntop_assembly = "blackbox"\n',
    )
    build = tmp_path / "build"
    assert run_doit(["csim", "csynth", "report"], [folder], build) == 0
    layout = BuildLayout(build, "asm")
    calls = fake_vitis.calls()
    # each function first, the top last: it needs their RTL (the stand-in refuses a missing or
    # malformed blackbox JSON, or one naming files that are not there)
    assert [Path(call["cwd"]).name for call in calls][-1] == "top"
    assert sorted(Path(call["cwd"]).name for call in calls[:-1]) == ["Stage_doubled", "Stage_shifted"]
    description = json.loads(layout.blackbox_json("top", "Stage_shifted").read_text())
    where = "Stage_shifted_prj/solution1" if tool == "vitis_hls" else "Stage_shifted_comp/hls"
    assert description["c_files"] == [{"c_file": "../Stage_shifted/Stage_shifted.cpp", "cflag": ""}]
    assert description["rtl_files"] == [f"../Stage_shifted/{where}/syn/verilog/Stage_shifted.v"]
    assert [
        (p["c_name"], p["RAM_type"], p["rtl_ports"]["RAM_address"]) for p in description["c_parameters"]
    ] == [("doubled", "RAM_1P", "doubled_address0"), ("shifted", "RAM_1P", "shifted_address0")]
    assert description["rtl_common_signal"]["module_clock_enable"] == "ap_ce"
    assert description["rtl_common_signal"]["ap_ctrl_chain_protocol_continue"] == "ap_continue"
    assert description["rtl_performance"] == {"latency": "1234", "II": "1235"}
    top_cpp = layout.hls_cpp("top").read_text()
    assert top_cpp.count("#ifndef HCLBUILD_RTL_BLACKBOX") == 2
    assert json.loads(layout.csim_json("top").read_text())["pass"] is True  # g++ csim still has the bodies
    # the csynth and blackbox tasks load from build/.plans like the others: a no-op run in a fresh
    # process imports no MLIR, numpy or DSL and runs no tool
    out = subprocess.run(
        [sys.executable, "-c", NOOP_CSYNTH, str(folder), str(build)],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        check=False,
    )
    assert "HEAVY [] CODE 0" in out.stdout, out.stdout + out.stderr
    assert out.stdout.startswith("up to date: "), (
        out.stdout
    )  # every csynth and blackbox task checked, none ran
    assert len(fake_vitis.calls()) == len(calls)
    # a CI job that gets hls/ and csynth/ from other jobs (no doit state of their runs) synthesizes
    # only the top: the functions' reports carry the digest of what they were made from
    (build / ".doit.db").unlink()
    layout.csynth_result("top").unlink()
    assert run_doit(["csynth:asm/top"], [folder], build) == 0
    assert [Path(call["cwd"]).name for call in fake_vitis.calls()[len(calls) :]] == ["top"]
    # a changed function input is synthesized again; the top only when that changed the RTL it takes
    tcl = layout.hls_tcl("Stage_doubled")
    tcl.write_text(tcl.read_text() + "# edited\n")
    assert run_doit(["csynth:asm/top"], [folder], build) == 0
    assert [Path(call["cwd"]).name for call in fake_vitis.calls()[len(calls) + 1 :]] == ["Stage_doubled"]
    verilog = layout.hls_dir("Stage_shifted") / description["rtl_files"][0].removeprefix("../Stage_shifted/")
    verilog.write_text(verilog.read_text() + "// new RTL\n")
    assert run_doit(["csynth:asm/top"], [folder], build) == 0
    assert [Path(call["cwd"]).name for call in fake_vitis.calls()[len(calls) + 2 :]] == ["top"]
