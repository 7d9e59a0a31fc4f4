"""run_hls.tcl under plain tclsh with the Vitis commands stubbed, hls_config.cfg text, folder writing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from vitis_helpers import CPP, HEADER, write_vadd

from hclbuild.atomic import sweep_stale_temps
from hclbuild.errors import CompileError
from hclbuild.project.config import ProjectConfig
from hclbuild.project.hls_project import (
    FunctionArg,
    format_clock,
    function_project_files,
    write_function_project,
)

TCLSH = shutil.which("tclsh")
# scripts/setup.sh installs tclsh; in CI a missing one is a failure, not a reason to skip
needs_tclsh = pytest.mark.skipif(
    TCLSH is None and not os.environ.get("CI"), reason="tclsh is not on PATH (scripts/setup.sh installs it)"
)

VITIS_COMMANDS = (
    "open_project",
    "set_top",
    "add_files",
    "open_solution",
    "set_part",
    "create_clock",
    "set_clock_uncertainty",
    "config_interface",
    "csim_design",
    "csynth_design",
    "cosim_design",
    "export_design",
)

# Each stubbed Vitis command appends its name and arguments to a list; `exit` prints the list, the
# working directory and the exit code, then really exits. argv is set the way vitis_hls sets it for
# `vitis_hls -f run_hls.tcl -tclargs <words>`: the words after -tclargs.
HARNESS = """
set ::harness_calls {}
foreach ::harness_name {@COMMANDS@} {
    proc $::harness_name {args} [format {
        if {$::harness_fail eq "%1$s"} { error "stub failure" }
        lappend ::harness_calls [linsert $args 0 %1$s]
    } $::harness_name]
}
rename exit harness_exit
proc exit {{code 0}} {
    foreach call $::harness_calls { puts $call }
    puts "cwd [pwd]"
    puts "exit $code"
    harness_exit $code
}
set ::harness_script [lindex $argv 0]
set ::harness_fail [lindex $argv 1]
set argv [lrange $argv 2 end]
set argc [llength $argv]
set argv0 vitis_hls
source $::harness_script
puts "no exit"
""".replace("@COMMANDS@", " ".join(VITIS_COMMANDS))


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "build" / "demo" / "hls" / "vadd"
    write_vadd(folder, ProjectConfig(name="demo"))
    return folder


def run_tcl(
    script: Path, *argv: str, fail: str = "", cwd: Path | None = None, steps_env: str | None = None
) -> subprocess.CompletedProcess:
    harness = script.parent.parent / "harness.tcl"
    harness.write_text(HARNESS)
    env = {k: v for k, v in os.environ.items() if k != "HCLBUILD_STEPS"}
    if steps_env is not None:
        env["HCLBUILD_STEPS"] = steps_env
    return subprocess.run(
        [TCLSH or "tclsh", str(harness), str(script), fail, *argv],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd or script.parent.parent,
        check=False,
        env=env,
    )


def setup_calls(
    folder: Path, flow_target: str = "vivado", part: str = "xcu250-figd2104-2L-e", clock: str = "10"
) -> list[str]:
    return [
        "open_project -reset vadd_prj",
        "set_top vadd",
        "add_files vadd.cpp",
        f"add_files -tb tb_vadd.cpp -cflags -I{folder}",
        f"add_files -tb hclbuild_tb.cpp -cflags -I{folder}",
        "add_files -tb data",
        f"open_solution -reset solution1 -flow_target {flow_target}",
        f"set_part {part}",
        f"create_clock -period {clock} -name default",
    ]


def recorded(done: subprocess.CompletedProcess) -> list[str]:
    return done.stdout.splitlines()


@needs_tclsh
@pytest.mark.parametrize(
    ("argv", "steps"),
    [
        ((), ["csim_design", "csynth_design"]),
        (("csim",), ["csim_design"]),
        (("csynth",), ["csynth_design"]),
        (
            ("csim", "csynth", "cosim", "export"),
            ["csim_design", "csynth_design", "cosim_design", "export_design -format ip_catalog"],
        ),
        (("export", "csim"), ["csim_design", "csynth_design", "export_design -format ip_catalog"]),
        (("cosim",), ["csynth_design", "cosim_design"]),
        (("-f", "run_hls.tcl", "-tclargs", "csim"), ["csim_design"]),
        (("impl",), ["csynth_design", "export_design -flow impl -format ip_catalog"]),
        (("export", "impl"), ["csynth_design", "export_design -flow impl -format ip_catalog"]),
    ],
)
def test_steps_come_from_argv(project_dir: Path, argv: tuple[str, ...], steps: list[str]) -> None:
    done = run_tcl(project_dir / "run_hls.tcl", *argv)
    assert done.returncode == 0, done.stderr
    assert recorded(done) == [*setup_calls(project_dir), *steps, f"cwd {project_dir}", "exit 0"]


@needs_tclsh
def test_script_works_from_another_directory(project_dir: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = run_tcl(project_dir / "run_hls.tcl", "csim", cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    assert recorded(done)[-2] == f"cwd {project_dir}"


@needs_tclsh
def test_unknown_step_exits_2_before_any_command(project_dir: Path) -> None:
    done = run_tcl(project_dir / "run_hls.tcl", "csim", "synth")
    assert done.returncode == 2
    assert recorded(done) == [f"cwd {project_dir}", "exit 2"]
    assert done.stderr.strip() == (
        "run_hls.tcl (demo/vadd): unknown step 'synth' (expected csim, csynth, cosim, export or impl)"
    )


@needs_tclsh
def test_steps_from_environment_when_argv_has_none(project_dir: Path) -> None:
    # vitis-run --mode hls --tcl has no -tclargs: the runner passes the steps in HCLBUILD_STEPS
    done = run_tcl(project_dir / "run_hls.tcl", steps_env="cosim")
    assert done.returncode == 0, done.stderr
    assert recorded(done) == [
        *setup_calls(project_dir),
        "csynth_design",
        "cosim_design",
        f"cwd {project_dir}",
        "exit 0",
    ]


def synthesized_before(folder: Path, seconds: float = 10.0) -> Path:
    """The csynth report a synthesis of vadd leaves in solution1, older than the sources by `seconds`."""
    report = folder / "vadd_prj" / "solution1" / "syn" / "report" / "vadd_csynth.xml"
    report.parent.mkdir(parents=True)
    report.write_text("<profile/>")
    newest = max((folder / name).stat().st_mtime for name in ("vadd.cpp", "vadd.h", "run_hls.tcl"))
    os.utime(report, (newest + seconds, newest + seconds))
    return report


@needs_tclsh
@pytest.mark.parametrize("steps", [("cosim",), ("cosim", "export")])
def test_a_synthesis_newer_than_the_sources_is_reused(project_dir: Path, steps: tuple[str, ...]) -> None:
    # open_solution -reset had discarded it, and cosim synthesized every function a second time
    synthesized_before(project_dir)
    done = run_tcl(project_dir / "run_hls.tcl", *steps)
    assert done.returncode == 0, done.stderr
    setup = setup_calls(project_dir)
    setup[setup.index("open_solution -reset solution1 -flow_target vivado")] = (
        "open_solution solution1 -flow_target vivado"
    )
    after = ["cosim_design"] + (["export_design -format ip_catalog"] if "export" in steps else [])
    assert recorded(done) == [*setup, *after, f"cwd {project_dir}", "exit 0"]


@needs_tclsh
def test_a_synthesis_older_than_a_source_is_redone(project_dir: Path) -> None:
    synthesized_before(project_dir, seconds=-10.0)
    done = run_tcl(project_dir / "run_hls.tcl", "cosim")
    assert recorded(done) == [
        *setup_calls(project_dir),
        "csynth_design",
        "cosim_design",
        f"cwd {project_dir}",
        "exit 0",
    ]
    # csynth among the steps always synthesizes
    done = run_tcl(project_dir / "run_hls.tcl", "csynth", "cosim")
    assert recorded(done)[6:9] == [
        "open_solution -reset solution1 -flow_target vivado",
        "set_part xcu250-figd2104-2L-e",
        "create_clock -period 10 -name default",
    ]


@needs_tclsh
def test_without_golden_vectors_csynth_runs_and_csim_cosim_stop(project_dir: Path) -> None:
    # before the reference run there is no data/: `add_files -tb data` named a file that does not exist
    shutil.rmtree(project_dir / "data")
    done = run_tcl(project_dir / "run_hls.tcl", "csynth")
    assert done.returncode == 0, done.stderr
    assert recorded(done) == [
        *(c for c in setup_calls(project_dir) if c != "add_files -tb data"),
        "csynth_design",
        f"cwd {project_dir}",
        "exit 0",
    ]
    for steps in (("csim",), ("cosim",), ("csynth", "csim")):
        done = run_tcl(project_dir / "run_hls.tcl", *steps)
        assert done.returncode == 1
        assert recorded(done) == [f"cwd {project_dir}", "exit 1"]
        assert done.stderr.strip() == (
            "run_hls.tcl (demo/vadd): data/ is missing: the testbench reads the golden "
            "vectors the reference run writes there (doit reference:demo)"
        )


@needs_tclsh
def test_argv_steps_win_over_the_environment(project_dir: Path) -> None:
    done = run_tcl(project_dir / "run_hls.tcl", "csim", steps_env="cosim")
    assert recorded(done)[-3:] == ["csim_design", f"cwd {project_dir}", "exit 0"]


@needs_tclsh
def test_unknown_step_in_environment_exits_2(project_dir: Path) -> None:
    done = run_tcl(project_dir / "run_hls.tcl", steps_env="csynth bogus")
    assert done.returncode == 2
    assert "unknown step 'bogus'" in done.stderr


@needs_tclsh
def test_failing_step_exits_1_and_stops(project_dir: Path) -> None:
    done = run_tcl(project_dir / "run_hls.tcl", "csim", "csynth", "cosim", fail="csynth_design")
    assert done.returncode == 1
    assert recorded(done) == [*setup_calls(project_dir), "csim_design", f"cwd {project_dir}", "exit 1"]
    assert done.stderr.strip() == "run_hls.tcl (demo/vadd): csynth_design failed: stub failure"


@needs_tclsh
def test_vitis_flow_target_part_and_clock(tmp_path: Path) -> None:
    folder = tmp_path / "hls" / "vadd"
    write_vadd(
        folder,
        ProjectConfig(name="demo", flow_target="vitis", part="xcvu9p-flga2104-2-i", clock_period_ns=3.333),
    )
    done = run_tcl(folder / "run_hls.tcl", "csynth", "export")
    assert done.returncode == 0, done.stderr
    assert recorded(done) == [
        *setup_calls(folder, "vitis", "xcvu9p-flga2104-2-i", "3.333"),
        "csynth_design",
        "export_design -format xo",
        f"cwd {folder}",
        "exit 0",
    ]


BLACKBOXES = ["Stage_a", "Stage_b"]


@needs_tclsh
def test_blackbox_top_adds_each_function_rtl_and_hides_their_bodies(tmp_path: Path) -> None:
    folder = tmp_path / "hls" / "vadd"
    write_vadd(folder, ProjectConfig(name="demo", top_assembly="blackbox"), blackboxes=BLACKBOXES)
    for func in BLACKBOXES:
        (folder / f"{func}_blackbox.json").write_text("{}\n")
    done = run_tcl(folder / "run_hls.tcl", "csynth")
    assert done.returncode == 0, done.stderr
    calls = setup_calls(folder)
    calls[2:3] = [
        "add_files vadd.cpp -cflags -DHCLBUILD_RTL_BLACKBOX",
        "add_files -blackbox Stage_a_blackbox.json",
        "add_files -blackbox Stage_b_blackbox.json",
    ]
    assert recorded(done) == [*calls, "csynth_design", f"cwd {folder}", "exit 0"]


@needs_tclsh
def test_blackbox_top_stops_when_a_function_was_not_synthesized(tmp_path: Path) -> None:
    folder = tmp_path / "hls" / "vadd"
    write_vadd(folder, ProjectConfig(name="demo", top_assembly="blackbox"), blackboxes=BLACKBOXES)
    (folder / "Stage_a_blackbox.json").write_text("{}\n")
    done = run_tcl(folder / "run_hls.tcl", "csim", "csynth")
    assert done.returncode == 1
    assert recorded(done) == ["open_project -reset vadd_prj", "set_top vadd", f"cwd {folder}", "exit 1"]
    assert done.stderr.strip() == (
        "run_hls.tcl (demo/vadd): Stage_b_blackbox.json is missing: synthesize the "
        "outlined functions first (doit csynth:demo/vadd does)"
    )


@needs_tclsh
def test_function_made_for_a_blackbox_has_a_clock_enable_and_block_ports(tmp_path: Path) -> None:
    folder = tmp_path / "hls" / "vadd"
    write_vadd(
        folder, ProjectConfig(name="demo", flow_target="vitis", top_assembly="blackbox"), as_blackbox=True
    )
    done = run_tcl(folder / "run_hls.tcl", "csynth", "export")
    assert done.returncode == 0, done.stderr
    # the vivado flow keeps ap_memory ports and an active-High reset, which a blackbox needs
    assert recorded(done) == [
        *setup_calls(folder, "vivado"),
        "config_interface -clock_enable",
        "csynth_design",
        "export_design -format ip_catalog",
        f"cwd {folder}",
        "exit 0",
    ]


def test_hls_config_cfg_of_a_blackbox_top_and_function(tmp_path: Path) -> None:
    write_vadd(tmp_path / "top", ProjectConfig(name="demo", top_assembly="blackbox"), blackboxes=BLACKBOXES)
    lines = [
        line
        for line in (tmp_path / "top" / "hls_config.cfg").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert lines[5:12] == [
        "syn.top=vadd",
        "syn.file_cflags=vadd.cpp,-DHCLBUILD_RTL_BLACKBOX",
        "syn.file_csimflags=vadd.cpp,-DHCLBUILD_RTL_BLACKBOX",
        "syn.blackbox.file=Stage_a_blackbox.json",
        "syn.blackbox.file=Stage_b_blackbox.json",
        "tb.file=tb_vadd.cpp",
        "tb.file=hclbuild_tb.cpp",
    ]
    write_vadd(
        tmp_path / "func",
        ProjectConfig(name="demo", flow_target="vitis", top_assembly="blackbox"),
        as_blackbox=True,
    )
    text = (tmp_path / "func" / "hls_config.cfg").read_text()
    assert "flow_target=vivado\n" in text and "\nsyn.interface.clock_enable=true\n" in text
    assert text.endswith("package.output.format=ip_catalog\n")


def test_hls_config_cfg_lines(project_dir: Path) -> None:
    text = (project_dir / "hls_config.cfg").read_text()
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert lines == [
        "part=xcu250-figd2104-2L-e",
        "[hls]",
        "flow_target=vivado",
        "clock=10ns",
        "syn.file=vadd.cpp",
        "syn.top=vadd",
        "tb.file=tb_vadd.cpp",
        "tb.file=hclbuild_tb.cpp",
        "tb.file=data/in_a.bin",
        "tb.file=data/in_b.bin",
        "tb.file=data/out_a.bin",
        "tb.file=data/out_b.bin",
        "package.output.format=ip_catalog",
    ]


@needs_tclsh
def test_a_clock_uncertainty_is_set_in_both_front_ends(tmp_path: Path) -> None:
    write_vadd(tmp_path, ProjectConfig(name="demo", clock_period_ns=4.0, clock_uncertainty_ns=0.5))
    done = run_tcl(tmp_path / "run_hls.tcl", "csynth")
    assert recorded(done) == [
        *setup_calls(tmp_path, clock="4"),
        "set_clock_uncertainty 0.5",
        "csynth_design",
        f"cwd {tmp_path}",
        "exit 0",
    ]
    assert "clock=4ns\nclock_uncertainty=0.5ns\n" in (tmp_path / "hls_config.cfg").read_text()
    write_vadd(tmp_path, ProjectConfig(name="demo", clock_period_ns=4.0))  # Vitis's default: no line
    assert (
        "uncertainty"
        not in (tmp_path / "run_hls.tcl").read_text() + (tmp_path / "hls_config.cfg").read_text()
    )


def test_hls_config_cfg_for_vitis_kernel(tmp_path: Path) -> None:
    write_vadd(tmp_path, ProjectConfig(name="demo", flow_target="vitis", clock_period_ns=4.0))
    text = (tmp_path / "hls_config.cfg").read_text()
    assert "flow_target=vitis\nclock=4ns\n" in text
    assert text.endswith("package.output.format=xo\n")


@pytest.mark.parametrize(
    ("version", "key"),
    [
        ("2023.2", "syn.output.format"),
        ("2024.2", "syn.output.format"),
        ("2025.1", "package.output.format"),
        ("2025.2", "package.output.format"),
    ],
)
def test_cfg_export_key_follows_vitis_version(tmp_path: Path, version: str, key: str) -> None:
    write_vadd(tmp_path, ProjectConfig(name="demo", vitis_version=version))
    text = (tmp_path / "hls_config.cfg").read_text()
    assert text.endswith(f"\n{key}=ip_catalog\n")
    assert f"Keys spelled for Vitis {version}." in text


def test_format_clock() -> None:
    assert [format_clock(x) for x in (10.0, 3.333, 5, 2.5)] == ["10", "3.333", "5", "2.5"]


def test_folder_contents(project_dir: Path) -> None:
    names = sorted(p.relative_to(project_dir).as_posix() for p in project_dir.rglob("*") if p.is_file())
    assert names == [
        "Makefile",
        "README.md",
        "data/in_a.bin",
        "data/in_b.bin",
        "data/manifest.json",
        "data/out_a.bin",
        "data/out_b.bin",
        "hclbuild_tb.cpp",
        "hclbuild_tb.h",
        "hls_config.cfg",
        "run_hls.tcl",
        "tb_vadd.cpp",
        "vadd.cpp",
        "vadd.h",
    ]
    assert all(path.is_file() for path in function_project_files(project_dir, "vadd"))
    assert (project_dir / "vadd.cpp").read_text() == CPP
    assert (project_dir / "vadd.h").read_text() == HEADER


def test_rewrite_keeps_timestamps(tmp_path: Path) -> None:
    folder = tmp_path / "vadd"
    first = write_vadd(folder, ProjectConfig(name="demo"))
    old = 1_000_000_000
    for path in first:
        os.utime(path, (old, old))
    second = write_vadd(folder, ProjectConfig(name="demo"))
    assert second == first
    assert all(path.stat().st_mtime == old for path in second)
    # a config change touches only the files that print it
    write_vadd(folder, ProjectConfig(name="demo", clock_period_ns=5.0))
    changed = sorted(p.name for p in first if p.stat().st_mtime != old)
    assert changed == ["README.md", "hls_config.cfg", "run_hls.tcl"]


def test_makefile_adds_ap_types_only_when_needed(tmp_path: Path) -> None:
    write_vadd(tmp_path / "plain", ProjectConfig(name="demo"))
    plain = (tmp_path / "plain" / "Makefile").read_text()
    assert "INCLUDES := -I.\n" in plain and "isystem" not in plain

    write_function_project(
        tmp_path / "ap",
        "inc12",
        '#include "inc12.h"\nvoid inc12(ap_int<12> a[4]) {}\n',
        "#pragma once\n#include <ap_int.h>\nvoid inc12(ap_int<12> a[4]);\n",
        [FunctionArg("a", "ap_int<12>", "int12", (4,))],
        ProjectConfig(name="demo"),
        ap_include_dir="/opt/ap_types",
    )
    made = (tmp_path / "ap" / "Makefile").read_text()
    # a Vitis installation's headers, else $(AP_TYPES), else the folder found when it was generated
    assert (
        "ifneq ($(XILINX_HLS),)\nAP_TYPES_DIR := $(XILINX_HLS)/include\nelse ifneq ($(AP_TYPES),)\n"
        "AP_TYPES_DIR := $(AP_TYPES)\nelse\nAP_TYPES_DIR := /opt/ap_types\nendif\n"
        "INCLUDES := -I. -isystem $(AP_TYPES_DIR)\n"
    ) in made
    assert " -Wno-uninitialized -Wno-maybe-uninitialized\n" in made
    assert "#include <ap_int.h>" in (tmp_path / "ap" / "tb_inc12.cpp").read_text()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not on PATH")
def test_a_makefile_made_where_no_ap_types_were_found_asks_for_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("hclbuild.project.hls_project.ap_types_include_dir", lambda: None)
    write_function_project(
        tmp_path,
        "inc12",
        '#include "inc12.h"\nvoid inc12(ap_int<12> a[4]) {}\n',
        "#pragma once\n#include <ap_int.h>\nvoid inc12(ap_int<12> a[4]);\n",
        [FunctionArg("a", "ap_int<12>", "int12", (4,))],
        ProjectConfig(name="demo"),
    )
    clean = {k: v for k, v in os.environ.items() if k not in ("XILINX_HLS", "AP_TYPES")}
    dry = subprocess.run(
        ["make", "-n", "csim"], cwd=tmp_path, capture_output=True, text=True, env=clean, check=False
    )
    assert dry.returncode != 0
    assert "set XILINX_HLS (a Vitis installation) or AP_TYPES (a folder holding ap_int.h)" in dry.stderr
    named = subprocess.run(
        ["make", "-n", "csim"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**clean, "AP_TYPES": "/opt/x"},
        check=False,
    )
    assert named.returncode == 0 and "-isystem /opt/x " in named.stdout


def test_makefile_targets(project_dir: Path) -> None:
    text = (project_dir / "Makefile").read_text()
    assert '\tulimit -s "$$(ulimit -H -s)" 2>/dev/null; ./out/tb_$(FUNC) data out\n' in text
    assert "vitis-csim:\n\t$(call RUN_HLS_TCL,csim)\n" in text
    assert "csynth:\n\t$(call RUN_HLS_TCL,csynth)\n" in text
    assert "cosim:\n\t$(call RUN_HLS_TCL,csynth cosim)\n" in text
    # hclbuild's own csim stops at a warning; a user's make csim (another g++, an edited file) does not
    assert (
        "HCLBUILD_CXXFLAGS := -std=c++17 -O1 -fwrapv -Wall -Wno-unknown-pragmas -Wno-unused-label\n" in text
    )


def test_testbench_bakes_in_tolerances(tmp_path: Path) -> None:
    write_vadd(tmp_path, ProjectConfig(name="demo", rtol=0.001, atol=2e-7))
    text = (tmp_path / "tb_vadd.cpp").read_text()
    assert '  const Function function = {"vadd", 0.001, 2e-07, 10, args, 2, call};\n' in text


def test_c_type_must_hold_dtype(tmp_path: Path) -> None:
    with pytest.raises(CompileError, match=r"^demo/vadd: argument a: C type int16_t does not hold int32$"):
        write_function_project(
            tmp_path,
            "vadd",
            CPP,
            HEADER,
            [FunctionArg("a", "int16_t", "int32", (4,))],
            ProjectConfig(name="demo"),
        )


def test_a_returned_value_takes_the_dtype_its_signature_declares(tmp_path: Path) -> None:
    from types import SimpleNamespace

    args = [FunctionArg("x", "int16_t", "int16", (4,))]
    signature = SimpleNamespace(name="total", args=args, ret_c_type="int32_t", ret_dtype="int32")
    write_function_project(tmp_path, "total", "", "", signature, ProjectConfig(name="demo"))
    assert "ret_value = total(arg_x);" in (tmp_path / "tb_total.cpp").read_text()
    undeclared = SimpleNamespace(name="total", args=args, ret_c_type="int32_t")
    with pytest.raises(
        CompileError, match=r"^demo/total: the function returns int32_t, of a dtype its signature"
    ):
        write_function_project(tmp_path, "total", "", "", undeclared, ProjectConfig(name="demo"))


def test_the_folder_holds_no_data_until_the_reference_links_it(tmp_path: Path) -> None:
    args = [FunctionArg("a", "int32_t", "int32", (4,)), FunctionArg("b", "int32_t", "int32", (4,))]
    write_function_project(tmp_path / "vadd", "vadd", CPP, HEADER, args, ProjectConfig(name="demo"))
    assert not (tmp_path / "vadd" / "data").exists() and (tmp_path / "vadd" / "tb_vadd.cpp").is_file()


_WRITE_WITH_CACHE = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[3])
from vitis_helpers import write_vadd
from hclbuild.project.config import ProjectConfig
from hclbuild.project.golden import write_golden
from hclbuild.project.templates import _environment, keep_compiled_templates
keep_compiled_templates(Path(sys.argv[1]))
compiled = []
original = _environment().compile
_environment().compile = lambda *a, **k: compiled.append(a[1]) or original(*a, **k)
write_vadd(Path(sys.argv[2]), ProjectConfig(name="demo"))
print(sorted(name for name in compiled if name))
"""


def _write_in_a_new_process(cache: Path, folder: Path) -> str:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _WRITE_WITH_CACHE,
            str(cache),
            str(folder),
            str(Path(__file__).resolve().parents[1]),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout.strip()


def test_compiled_templates_are_kept_and_a_damaged_one_is_compiled_again(tmp_path: Path) -> None:
    cache = tmp_path / ".templates"
    every = "['Makefile.j2', 'README.md.j2', 'hls_config.cfg.j2', 'run_hls.tcl.j2', 'tb.cpp.j2']"
    assert _write_in_a_new_process(cache, tmp_path / "first") == every
    assert len(list(cache.iterdir())) == 5
    assert _write_in_a_new_process(cache, tmp_path / "second") == "[]"  # none compiled: all loaded
    for entry in cache.iterdir():
        entry.write_bytes(entry.read_bytes()[:20] + b"damaged")
    assert _write_in_a_new_process(cache, tmp_path / "third") == every
    for name in ("tb_vadd.cpp", "Makefile", "run_hls.tcl"):
        assert (tmp_path / "third" / name).read_bytes() == (tmp_path / "first" / name).read_bytes()
    assert _write_in_a_new_process(cache, tmp_path / "fourth") == "[]"  # rewritten whole


def test_a_template_cache_folder_removed_since_costs_only_the_compile(tmp_path: Path) -> None:
    from hclbuild.project.templates import _environment, keep_compiled_templates

    environment = _environment()
    kept = environment.bytecode_cache
    try:
        keep_compiled_templates(tmp_path / "gone")
        shutil.rmtree(tmp_path / "gone")
        environment.cache.clear()  # as in a process whose first render comes after the removal
        write_vadd(tmp_path / "vadd", ProjectConfig(name="demo"))
        assert (tmp_path / "vadd" / "tb_vadd.cpp").is_file() and not (tmp_path / "gone").exists()
    finally:
        environment.bytecode_cache = kept
        environment.cache.clear()


_DIE_BEFORE_THE_RENAME = """
import os, sys
from pathlib import Path
sys.path.insert(0, sys.argv[3])
from vitis_helpers import write_vadd
from hclbuild.project.config import ProjectConfig
from hclbuild.project.templates import keep_compiled_templates
keep_compiled_templates(Path(sys.argv[1]))
os.replace = lambda *args: os._exit(9)  # SIGKILL between writing a cache entry and its rename
write_vadd(Path(sys.argv[2]), ProjectConfig(name="demo"))
"""


def test_a_killed_writer_leaves_a_template_cache_entry_the_next_build_sweeps(tmp_path: Path) -> None:
    # jinja2's own temporary, `__jinja2_<hash>.cache<random>.tmp`, names no process: a SIGKILLed
    # build left it in build/.templates for good (the SIGKILL test of test_interrupts.py found one)
    cache = tmp_path / ".templates"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _DIE_BEFORE_THE_RENAME,
            str(cache),
            str(tmp_path / "v"),
            str(Path(__file__).resolve().parents[1]),
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 9, done.stderr
    (left,) = cache.iterdir()
    assert left.name.startswith(".__jinja2_") and left.name.endswith(".tmp")
    assert sweep_stale_temps(cache) == [left] and list(cache.iterdir()) == []


# ---- make csynth through whichever Vitis front end is on PATH ---------------------------------------


def _make(folder: Path, target: str, bin_dir: Path) -> subprocess.CompletedProcess:
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    env = {k: v for k, v in os.environ.items() if k not in ("VITIS_HLS", "VITIS_RUN", "HCLBUILD_STEPS")}
    # the stand-ins and the shell's own tools only: no other Vitis can be found
    env["PATH"] = os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"])
    return subprocess.run(
        [make, target], cwd=folder, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_make_csynth_runs_vitis_run_when_it_is_the_only_tool(project_dir: Path, fake_vitis) -> None:
    bin_dir = fake_vitis.install("vitis-run", version="2025.2")
    done = _make(project_dir, "csynth", bin_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [(c["tool"], c["argv"], c["steps"]) for c in fake_vitis.calls()] == [
        ("vitis-run", ["--mode", "hls", "--tcl", "run_hls.tcl"], "csynth")
    ]
    assert (project_dir / "vadd_prj" / "solution1" / "syn" / "report" / "vadd_csynth.xml").is_file()
    assert _make(project_dir, "cosim", bin_dir).returncode == 0
    assert fake_vitis.calls()[-1]["steps"] == "csynth cosim"


def test_make_csynth_prefers_vitis_hls_where_it_exists(project_dir: Path, fake_vitis) -> None:
    bin_dir = fake_vitis.install("vitis_hls", "vitis-run", version="2024.1")
    done = _make(project_dir, "csynth", bin_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [(c["tool"], c["argv"]) for c in fake_vitis.calls()] == [
        ("vitis_hls", ["-f", "run_hls.tcl", "-tclargs", "csynth"])
    ]


def test_make_csynth_with_no_vitis_tool_fails(project_dir: Path, fake_vitis) -> None:
    bin_dir = fake_vitis.install("v++")  # the unified compiler alone cannot run the Tcl script
    done = _make(project_dir, "csynth", bin_dir)
    assert done.returncode != 0 and "vitis-run" in done.stderr
    assert fake_vitis.calls() == []
