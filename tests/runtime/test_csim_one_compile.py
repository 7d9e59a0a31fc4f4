"""A function's csim compiles its testbench part and its own definition in one g++ run (exact argv),
links with gold where installed (and with the default linker when gold refuses), and still names
the testbench's own lines when that part does not compile."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import hclbuild as hcl
from hclbuild.errors import ToolError
from hclbuild.project.config import ProjectConfig
from hclbuild.project.flow import compile_design, emit_design_function
from hclbuild.project.layout import BuildLayout
from hclbuild.project.reference import reference_design
from hclbuild.runtime import testbench_build
from hclbuild.runtime.csim import run_csim

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not on PATH")

NAME = "single"
FLAGS = "-std=c++17 -fwrapv -Wall -Werror -Wno-unknown-pragmas -Wno-unused-label -O1"


@pytest.fixture
def design(tmp_path: Path) -> BuildLayout:
    """One function, top, built, run and emitted in tmp_path/build."""
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8,), "A")
    s = hcl.create_schedule([A], lambda A: hcl.compute((8,), lambda i: A[i] * 3 + 1, name="B"), name="top")
    layout = BuildLayout(tmp_path / "build", NAME)
    config = ProjectConfig(name=NAME)
    compiled = compile_design(s, layout, NAME)
    reference_design(layout, NAME, config)
    for func in compiled.design.functions:
        emit_design_function(layout, config, func)
    return layout


def _gxx_lines(layout: BuildLayout) -> list[str]:
    log = layout.hls_dir("top") / "out" / "compile.log"
    return [line for line in log.read_text().splitlines() if line.startswith("/")]


def _object(layout: BuildLayout, stem: str) -> Path:
    [found] = (layout.csim_cache / "objects").glob(f"{stem}-*.o")
    return found


def test_the_testbench_part_and_the_definition_compile_in_one_gxx_run(design: BuildLayout) -> None:
    result = run_csim(
        design.hls_dir("top"), design.csim_json("top"), project=NAME, cache_root=design.csim_cache
    )
    assert result.passed, result.summary
    gxx = shutil.which("g++")
    harness, joined = _object(design, "hclbuild_tb"), _object(design, "tb_top+top")
    gold = "-fuse-ld=gold " if shutil.which("ld.gold") else ""
    assert _gxx_lines(design) == [
        f"{gxx} {FLAGS} -c hclbuild_tb.cpp -o {harness}",
        f"{gxx} {FLAGS} -iquote . -x c++ - -c -o {joined}",
        f"{gxx} {gold}{harness} {joined} -o out/tb_top",
    ]
    # the old way, behind the switch: one g++ run each
    testbench_build.ONE_COMPILE = False
    try:
        shutil.rmtree(design.csim_cache)
        assert run_csim(
            design.hls_dir("top"), design.csim_json("top"), project=NAME, cache_root=design.csim_cache
        ).passed
    finally:
        testbench_build.ONE_COMPILE = True
    compiled = [
        Path(line.split()[-1]).name.rsplit("-", 1)[0] for line in _gxx_lines(design) if " -c " in line
    ]
    assert compiled == ["hclbuild_tb", "tb_top", "top"]


def test_a_broken_testbench_part_is_reported_at_its_own_line(design: BuildLayout) -> None:
    path = design.hls_dir("top") / "tb_top.cpp"
    path.write_text(path.read_text() + "int broken = ;\n")
    lines = len(path.read_text().splitlines())
    with pytest.raises(ToolError) as info:
        run_csim(design.hls_dir("top"), design.csim_json("top"), project=NAME, cache_root=design.csim_cache)
    assert (
        f"g++ failed (exit 1): tb_top.cpp:{lines}:14: error: expected primary-expression before ';' token"
        in str(info.value)
    )


def test_a_linker_gold_refuses_leaves_the_default_one(design: BuildLayout, monkeypatch) -> None:
    monkeypatch.setattr(testbench_build, "_gold", lambda: ("-fuse-ld=no-such-linker",))
    result = run_csim(
        design.hls_dir("top"), design.csim_json("top"), project=NAME, cache_root=design.csim_cache
    )
    assert result.passed, result.summary
    harness, joined = _object(design, "hclbuild_tb"), _object(design, "tb_top+top")
    assert _gxx_lines(design)[-1] == f"{shutil.which('g++')} {harness} {joined} -o out/tb_top"
