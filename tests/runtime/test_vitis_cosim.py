"""C/RTL co-simulation through doit with the stand-in tools of tests/fake_vitis (no Vitis runs): a
cosim reuses its function's synthesis instead of making a second one, which for a top assembled from
blackboxes also kept the functions' RTL (that the top's synthesis read) from changing under it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from kernels import TWO_STAGES
from vitis_helpers import stand_in_project, synthesized, vadd_folder, vadd_project

from hclbuild.cli import run_doit
from hclbuild.project.layout import BuildLayout

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the stand-in tools are POSIX executables")


@pytest.mark.slow
@pytest.mark.parametrize("tool", ["vitis_hls", "v++"])
def test_cosim_of_a_blackbox_top_synthesizes_each_function_once(
    fake_vitis, tmp_path: Path, tool: str
) -> None:
    folder = stand_in_project(
        fake_vitis,
        tmp_path / "projects" / "asm",
        TWO_STAGES,
        f'[hls]\ntool = "{tool}"\ntop_assembly = "blackbox"\n',
    )
    build = tmp_path / "build"
    functions = ["top", "Stage_doubled", "Stage_shifted"]
    assert run_doit([f"cosim:asm/{func}" for func in functions], [folder], build) == 0
    # the top's synthesis took the functions' RTL: a second synthesis of a function (the one its
    # cosim made) rewrote that RTL after the top had read it
    assert sorted(synthesized(fake_vitis.calls())) == sorted(functions)
    layout = BuildLayout(build, "asm")
    for func in functions:
        assert layout.cosim_result(func).is_file() and layout.csynth_result(func).is_file()
    # the stand-in rewrites a function's Verilog whenever it synthesizes (the Tcl flow decides by
    # itself whether the solution's synthesis can be reused): a cosim after a csynth leaves it alone
    verilog = {path: path.stat().st_mtime_ns for path in (build / "asm" / "hls").rglob("syn/verilog/*.v")}
    assert len(verilog) == 3
    for func in functions:
        layout.cosim_result(func).unlink()
    assert run_doit([f"cosim:asm/{func}" for func in functions], [folder], build) == 0
    assert {path: path.stat().st_mtime_ns for path in verilog} == verilog
    assert sorted(synthesized(fake_vitis.calls())) == sorted(functions)
    # nothing changed: nothing runs again
    count = len(fake_vitis.calls())
    assert run_doit([f"cosim:asm/{func}" for func in functions], [folder], build) == 0
    assert len(fake_vitis.calls()) == count


def test_a_cosim_without_a_current_synthesis_says_which_task_to_run(fake_vitis, tmp_path: Path) -> None:
    from hclbuild.errors import ToolError
    from hclbuild.project.synthesis import synthesize_function

    fake_vitis.install("vitis_hls")
    project, layout = vadd_project(tmp_path)
    inputs = [layout.hls_cpp("vadd"), layout.hls_tcl("vadd")]
    with pytest.raises(
        ToolError,
        match=r"^demo/vadd: cosim needs the synthesis of the files now in .*/hls/vadd, "
        r"and there is none: run csynth:demo/vadd first$",
    ):
        synthesize_function(project, layout, "vadd", ["cosim"], inputs=inputs, reuse_synthesis=True)
    assert fake_vitis.calls() == []
    synthesize_function(project, layout, "vadd", ["csynth"], inputs=inputs)
    synthesize_function(project, layout, "vadd", ["cosim"], inputs=inputs, reuse_synthesis=True)
    assert [call["argv"][-1] for call in fake_vitis.calls()] == ["csynth", "cosim"]
    # a changed source makes the synthesis another design's
    layout.hls_cpp("vadd").write_text(layout.hls_cpp("vadd").read_text() + "// edited\n")
    with pytest.raises(ToolError, match="run csynth:demo/vadd first"):
        synthesize_function(project, layout, "vadd", ["cosim"], inputs=inputs, reuse_synthesis=True)
    assert not layout.cosim_result("vadd").exists()  # the last cosim was of the design before


@pytest.mark.parametrize("tool", ["vitis_hls", "v++"])
def test_before_the_reference_run_csynth_runs_and_cosim_is_refused(
    fake_vitis, tmp_path: Path, tool: str
) -> None:
    import shutil

    from hclbuild.errors import ToolError
    from hclbuild.runtime.vitis import run_hls_steps

    fake_vitis.install(tool, "vitis-run")
    folder = vadd_folder(tmp_path)
    shutil.rmtree(folder / "data")
    # hls_config.cfg's tb.file=data names a folder: the unified flow gets an empty one
    run_hls_steps(folder, "vadd", ["csynth"], flow=tool, timeout=60)
    assert (
        [path.name for path in (folder / "data").iterdir()] == []
        if tool == "v++"
        else not (folder / "data").exists()
    )
    shutil.rmtree(folder / "data", ignore_errors=True)
    count = len(fake_vitis.calls())
    for steps in (["cosim"], ["csim", "csynth"]):
        with pytest.raises(
            ToolError,
            match=rf"^{folder / 'data'}: missing, and {steps[0]} runs the testbench on the "
            r"golden vectors the reference run writes there \(doit reference:<project>\)$",
        ):
            run_hls_steps(folder, "vadd", steps, flow=tool, timeout=60)
    assert len(fake_vitis.calls()) == count
