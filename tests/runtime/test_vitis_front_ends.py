"""The Vitis HLS front ends (runtime/vitis/front_ends.py): what each runs for which steps, and that
everything else takes the list of front ends from there. No tool runs here (test_vitis_flow.py runs
them with the stand-in tools of tests/fake_vitis)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hclbuild.errors import ConfigError, ToolError
from hclbuild.project.config import load_config
from hclbuild.runtime.vitis import FRONT_ENDS, NAMES, VitisTools, choose_front_end, find_vitis, report_dirs

BIN = Path("/opt/Xilinx/bin")
ALL = VitisTools({name: BIN / name for name in ("vitis_hls", "vitis-run", "v++")})


def argvs(name: str, folder: Path, steps: list[str], tools: VitisTools = ALL) -> list[list[str]]:
    front_end = choose_front_end(tools, name)
    return [command.argv for command in front_end.commands(folder, "vadd", steps, tools)]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "run_hls.tcl").write_text("exit\n")
    (tmp_path / "hls_config.cfg").write_text("syn.top=vadd\n")
    return tmp_path


def test_vitis_hls_runs_the_script_once_with_the_steps_as_tclargs(folder: Path) -> None:
    assert argvs("vitis_hls", folder, ["csynth", "cosim"]) == [
        [str(BIN / "vitis_hls"), "-f", "run_hls.tcl", "-tclargs", "csynth", "cosim"]
    ]


def test_vitis_run_runs_the_script_once_and_passes_no_steps_on_its_command_line(folder: Path) -> None:
    assert argvs("vitis-run", folder, ["csynth", "cosim"]) == [
        [str(BIN / "vitis-run"), "--mode", "hls", "--tcl", "run_hls.tcl"]
    ]


def test_vpp_synthesizes_with_vpp_then_runs_each_other_step_with_vitis_run(folder: Path) -> None:
    run = [str(BIN / "vitis-run"), "--mode", "hls"]
    config = ["--config", "hls_config.cfg", "--work_dir", "vadd_comp"]
    assert argvs("v++", folder, ["csim", "csynth", "cosim", "export", "impl"]) == [
        [*run, "--csim", *config],
        [str(BIN / "v++"), "-c", "--mode", "hls", *config],
        [*run, "--cosim", *config],
        [*run, "--package", *config],
        [*run, "--impl", *config],
    ]


def test_a_missing_script_or_config_is_named_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"run_hls.tcl: Tcl script not found"):
        argvs("vitis_hls", tmp_path, ["csynth"])
    with pytest.raises(ToolError, match=r"hls_config.cfg: HLS config not found"):
        argvs("v++", tmp_path, ["csynth"])


def test_each_front_end_is_available_with_its_own_executable_alone() -> None:
    for front_end in FRONT_ENDS:
        alone = VitisTools({e.name: BIN / e.name for e in front_end.executables[:1]})
        assert front_end.available(alone), front_end.name
        assert choose_front_end(alone).name == front_end.name


def test_project_toml_takes_every_front_end_and_auto_and_nothing_else(tmp_path: Path) -> None:
    for tool in ("auto", *NAMES):
        (tmp_path / "project.toml").write_text(f'[hls]\ntool = "{tool}"\n')
        assert load_config(tmp_path / "project.toml").hls_tool == tool
    (tmp_path / "project.toml").write_text('[hls]\ntool = "vivado_hls"\n')
    with pytest.raises(ConfigError, match=r"hls.tool must be one of"):
        load_config(tmp_path / "project.toml")


def test_find_vitis_looks_for_every_executable_of_every_front_end(tmp_path: Path) -> None:
    for executable in dict.fromkeys(e for front_end in FRONT_ENDS for e in front_end.executables):
        if True:
            home = tmp_path / executable.name
            (home / "bin").mkdir(parents=True)
            tool = home / "bin" / executable.name
            tool.write_text("#!/bin/sh\n")
            tool.chmod(0o755)
            found = find_vitis({"PATH": "", executable.homes[0]: str(home)})
            assert found is not None and found.path(executable.name) == tool


def test_reports_are_searched_in_every_front_ends_layout(tmp_path: Path) -> None:
    roots = report_dirs(tmp_path, "vadd")
    assert roots == [tmp_path / "vadd_prj" / "solution1", tmp_path / "vadd_comp" / "hls"]
    assert {front_end.report_root(tmp_path, "vadd") for front_end in FRONT_ENDS} == set(roots)
