"""Dead stages (a result nothing reads) are kept, compile under csim's -Werror, and a function that
computes nothing observable says so in its csim result instead of a plain pass."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import hclbuild as hcl
from hclbuild.project.config import ProjectConfig
from hclbuild.project.flow import compile_design, csim_function, emit_design_function
from hclbuild.project.layout import BuildLayout
from hclbuild.project.reference import reference_design

N = 8


def _schedule(outline: Any = None) -> tuple[Any, Any]:
    A = hcl.placeholder((N,), "A")

    def kernel(A):
        hcl.compute((N,), lambda i: A[i] * 2, name="D")  # nothing reads D
        B = hcl.compute((N,), lambda i: A[i] + 1, name="B")
        return hcl.compute((N,), lambda i: B[i] * 3, name="C")

    s = hcl.create_schedule([A], kernel)
    if outline is not None:
        outline(s, kernel)
    return s, lambda a: (a + 1) * 3


def _flow(schedule: Any, model: Any, tmp_path: Path) -> tuple[Any, dict[str, Any]]:
    layout = BuildLayout(tmp_path, "dead")
    config = ProjectConfig(name="dead", seed=3)
    manifest = compile_design(schedule, layout, "dead").design
    assert reference_design(layout, "dead", config, None, model).model_checked is True
    project = SimpleNamespace(name="dead", config=config)
    results = {}
    for func in manifest.functions:
        emit_design_function(layout, config, func)
        results[func] = csim_function(project, layout, func)
        saved = json.loads(layout.csim_json(func).read_text())
        assert saved["pass"] is True and saved["outputs_compared"] == results[func].outputs_compared
    return manifest, results


def _cpp(tmp_path: Path, func: str) -> str:
    return (tmp_path / "dead" / "hls" / func / f"{func}.cpp").read_text()


@pytest.mark.slow
def test_a_dead_stage_in_top_compiles_and_top_compares_its_output(tmp_path: Path) -> None:
    schedule, model = _schedule()
    manifest, results = _flow(schedule, model, tmp_path)
    assert manifest.functions == ["top"]
    assert "(void)D;" in _cpp(tmp_path, "top")  # kept, as the user wrote it
    assert "l_D_i: for" in _cpp(tmp_path, "top")
    assert results["top"].outputs == ["C"] and results["top"].outputs_compared == N
    assert results["top"].summary == f"dead/top: csim passed ({2 * N} elements, max abs err 0)"


@pytest.mark.slow
def test_a_dead_stage_inside_an_outlined_group_compiles(tmp_path: Path) -> None:
    schedule, model = _schedule(lambda s, k: s.outline([k.D, k.B]))
    manifest, results = _flow(schedule, model, tmp_path)
    assert manifest.writes["Stage_D_B"] == ["B"]
    assert "(void)D;" in _cpp(tmp_path, "Stage_D_B")
    assert results["Stage_D_B"].outputs_compared == N
    assert "0 output elements" not in results["Stage_D_B"].summary


@pytest.mark.slow
def test_an_outlined_function_that_computes_nothing_observable_says_so(tmp_path: Path) -> None:
    schedule, model = _schedule(lambda s, k: s.outline(k.D))
    manifest, results = _flow(schedule, model, tmp_path)
    assert manifest.writes == {"top": ["C"], "Stage_D": []}
    assert "void Stage_D(int32_t A[8])" in _cpp(tmp_path, "Stage_D")  # the function still exists
    dead = results["Stage_D"]
    assert dead.passed and dead.outputs == [] and dead.outputs_compared == 0 and dead.compared == N
    assert dead.summary == (
        "dead/Stage_D: csim passed with 0 output elements compared: Stage_D writes none of its arguments, "
        f"so nothing it computes is observable ({N} input elements came back unchanged)"
    )


@pytest.mark.slow
def test_a_scalar_written_but_never_read_compiles(tmp_path: Path) -> None:
    A = hcl.placeholder((N,), "A")

    def kernel(A):
        last = hcl.scalar(0, "last")
        with hcl.for_(0, N, name="loop") as i:
            last.v = A[i]  # a debugging leftover: never read
        return hcl.compute((N,), lambda i: A[i] - 1, name="B")

    s = hcl.create_schedule([A], kernel)
    _, results = _flow(s, lambda a: a - 1, tmp_path)
    assert results["top"].outputs_compared == N


@pytest.mark.parametrize("written", [True, False])
def test_written_arguments_follow_calls(written: bool) -> None:
    from hclbuild.compiler.pipeline import compile_schedule
    from hclbuild.compiler.written_args import written_arguments

    A = hcl.placeholder((N,), "A")
    B = hcl.placeholder((N,), "B")

    def kernel(A, B):
        if written:
            hcl.update(B, lambda i: A[i] + B[i], name="U")
        else:
            hcl.compute((N,), lambda i: A[i] + B[i], name="U")
        return hcl.compute((N,), lambda i: A[i] * 2, name="C")

    s = hcl.create_schedule([A, B], kernel)
    s.outline(kernel.U)
    writes = written_arguments(compile_schedule(s).module)
    assert writes["Stage_U"] == (["B"] if written else [])
    assert writes["top"] == (["B", "C"] if written else ["C"])
