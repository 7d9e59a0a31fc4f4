"""The outlining issue's "done means": HeteroCL's two failing def_ programs, and s.outline on 2MM."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from kernels import TWO_MM_SIZES
from kernels import two_mm as _two_mm

import hclbuild as hcl
from hclbuild.errors import APIError, CompileError

REPO = Path(__file__).resolve().parents[2]
P, Q, R, S = TWO_MM_SIZES

SUBMODULE = """
import hclbuild as hcl
from hclbuild.dsl import def_

@def_([(10, 10)])
def submodule(A):
    A = hcl.compute(A.shape, lambda *args: A[args] + 1)
"""

MAIN = """
import sys
import numpy as np
import hclbuild as hcl
from submodule import submodule   # module-level import: the case that segfaulted in HeteroCL
target = sys.argv[1]
hcl.init()
def main():
    A = hcl.placeholder((10, 10), name="A")
    B = hcl.placeholder((10, 10), name="B")
    def algo(A, B):
        submodule(A)
        hcl.update(B, lambda *args: B[args] + A[args])
    s = hcl.create_schedule([A, B], func=algo, name="main")
    f = hcl.build(s, target=target, name="main")
    if target == "llvm":
        rng = np.random.default_rng(3)
        a = rng.integers(-100, 100, (10, 10)).astype(np.int32)
        b = rng.integers(-100, 100, (10, 10)).astype(np.int32)
        expected = a + b
        f(a, b)
        assert (b == expected).all(), (b, expected)
        print("SUM", int(b.sum()), int(expected.sum()))
    else:
        print(f)
if __name__ == "__main__":
    main()
"""


def _run_program(tmp_path: Path, target: str) -> subprocess.CompletedProcess:
    (tmp_path / "submodule.py").write_text(SUBMODULE)
    (tmp_path / "main.py").write_text(MAIN)
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "main.py", target],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_global_import_def_runs_on_llvm(tmp_path: Path) -> None:
    proc = _run_program(tmp_path, "llvm")
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("SUM"))
    _, got, want = line.split()
    assert got == want


def test_global_import_def_is_emitted_for_hls(tmp_path: Path) -> None:
    proc = _run_program(tmp_path, "vhls")
    assert proc.returncode == 0, proc.stderr
    # the function HeteroCL silently dropped: defined, and called from main
    assert "void submodule(" in proc.stdout
    assert proc.stdout.count("submodule(") >= 3  # prototype, definition, call


def _max_program(inner: bool):
    def f1(A, B):
        def make():
            @hcl.def_([(10,), (10,), ()])
            def comp(A, B, x):
                with hcl.if_(A[x] > B[x]):
                    hcl.return_(A[x])
                hcl.return_(B[x])

            return comp

        outer_comp = None if inner else make()

        def do(A, B, x):
            comp = make() if inner else outer_comp
            return comp(A, B, x)

        hcl.update(B, lambda x: do(A, B, x), "f1")

    return f1


@pytest.mark.parametrize("inner", [False, True], ids=["comp_in_algorithm", "comp_inside_do"])
def test_def_with_conditional_return_is_elementwise_max(inner: bool) -> None:
    A = hcl.placeholder((10,), "A")
    B = hcl.placeholder((10,), "B")
    s = hcl.create_schedule([A, B], func=_max_program(inner), name="main")
    text = str(hcl.lower(s))
    # one function however many times it is traced from inside the update
    assert text.count("func.func private @comp") == 1
    f = hcl.build(s)
    rng = np.random.default_rng(7)
    a = rng.integers(-50, 50, 10).astype(np.int32)
    b = rng.integers(-50, 50, 10).astype(np.int32)
    expected = np.maximum(a, b)
    f(a, b)
    np.testing.assert_array_equal(b, expected)


def test_def_called_twice_with_two_signatures_gets_two_functions() -> None:
    @hcl.def_()
    def double(X):
        hcl.update(X, lambda i: X[i] * 2)

    A = hcl.placeholder((4,), "A")
    B = hcl.placeholder((6,), "B")

    def algo(A, B):
        double(A)
        double(B)
        double(A)

    s = hcl.create_schedule([A, B], algo)
    text = str(hcl.lower(s))
    assert text.count("func.func private @double") == 2
    assert text.count("call @double(") == 2 and text.count("call @double_0(") == 1
    f = hcl.build(s)
    a = np.arange(4, dtype=np.int32)
    b = np.arange(6, dtype=np.int32)
    f(a, b)
    np.testing.assert_array_equal(a, np.arange(4) * 4)
    np.testing.assert_array_equal(b, np.arange(6) * 2)


def test_def_recursion_is_an_api_error() -> None:
    @hcl.def_([(4,)])
    def forever(X):
        forever(X)

    A = hcl.placeholder((4,), "A")
    with pytest.raises(APIError, match="calls itself"):
        hcl.create_schedule([A], lambda A: forever(A))


def test_def_shape_mismatch_is_an_api_error() -> None:
    @hcl.def_([(10,)])
    def inc(X):
        hcl.update(X, lambda i: X[i] + 1)

    A = hcl.placeholder((8,), "A")
    with pytest.raises(APIError, match=r"argument 'X' has shape \(8,\), declared \(10,\)"):
        hcl.create_schedule([A], lambda A: inc(A))


def _run_two_mm(s) -> None:
    f = hcl.build(s)
    rng = np.random.default_rng(11)
    a, b, c, d = (rng.random(shape, dtype=np.float32) for shape in [(P, Q), (Q, R), (R, S), (P, S)])
    e = np.zeros((P, S), np.float32)
    f(a, b, c, d, e)
    np.testing.assert_allclose(e, a @ b @ c + d, rtol=1e-5)


def test_outline_each_product_calls_the_right_function() -> None:
    s, kernel = _two_mm()
    handles = [s.outline(kernel.out_AB), s.outline(s[kernel.out_ABC])]
    assert [h.name for h in handles] == ["Stage_out_AB", "Stage_out_ABC"]
    text = str(hcl.lower(s))
    # the shape of the proposal: stage functions first, then the top with allocs and calls
    assert text.index("func.func private @Stage_out_AB(") < text.index("func.func private @Stage_out_ABC(")
    assert text.index("func.func private @Stage_out_ABC(") < text.index("func.func @top(")
    top = text[text.index("func.func @top(") :]
    assert "call @Stage_out_AB(" in top and "call @Stage_out_ABC(" in top
    assert top.index("call @Stage_out_AB(") < top.index("call @Stage_out_ABC(")
    assert 'op_name = "out_AB"' not in top and 'op_name = "E"' in top
    _run_two_mm(s)


def test_outline_range_makes_one_function() -> None:
    s, kernel = _two_mm()
    handle = s.outline(kernel.out_AB, kernel.out_ABC)
    assert handle.name == "Stage_out_AB_out_ABC"
    text = str(hcl.lower(s))
    assert text.count("func.func private @Stage_") == 1
    body = text[text.index("@Stage_out_AB_out_ABC(") : text.index("func.func @top(")]
    assert 'name = "out_AB"' in body  # produced and consumed inside: a local buffer of the function
    _run_two_mm(s)


def test_outline_grouped_independent_producers() -> None:
    hcl.init()
    A = hcl.placeholder((8,), "A")

    def kernel(A):
        X = hcl.compute((8,), lambda i: A[i] + 1, name="X")
        Y = hcl.compute((8,), lambda i: A[i] * 3, name="Y")
        return hcl.compute((8,), lambda i: X[i] - Y[i], name="Z")

    s = hcl.create_schedule([A], kernel)
    handle = s.outline([kernel.X, kernel.Y])
    assert handle.name == "Stage_X_Y"
    text = str(hcl.lower(s))
    assert "call @Stage_X_Y(" in text
    f = hcl.build(s)
    a = np.arange(8, dtype=np.int32)
    z = np.zeros(8, np.int32)
    f(a, z)
    np.testing.assert_array_equal(z, (a + 1) - a * 3)


def test_outline_errors_name_the_stage() -> None:
    s, kernel = _two_mm()
    s.outline(kernel.out_AB)
    with pytest.raises(APIError, match="out_AB"):
        s.outline(kernel.out_AB)
    with pytest.raises(APIError, match="nope"):
        s.outline("nope")


def test_verifier_names_caller_and_callee_when_a_definition_is_missing() -> None:
    from hclbuild.compiler.passes.verify import verify_module

    s, kernel = _two_mm()
    s.outline(kernel.out_AB)
    module = hcl.lower(s)
    with module.context:
        for op in list(module.body.operations):
            if op.attributes["sym_name"].value == "Stage_out_AB":
                op.erase()
        with pytest.raises(CompileError, match="call from @top to @Stage_out_AB: no definition"):
            verify_module(module)


def test_top_level_for_loop_is_a_stage_that_can_be_outlined() -> None:
    hcl.init()
    A = hcl.placeholder((8,), "A")
    B = hcl.placeholder((8,), "B")

    def algo(A, B):
        with hcl.for_(0, 8, name="scan") as i:
            B[i] = A[i] * 2
        hcl.update(A, lambda i: A[i] + B[i], "mix")

    s = hcl.create_schedule([A, B], algo)
    handle = s.outline("scan")
    text = str(hcl.lower(s))
    assert handle.name == "Stage_scan" and "call @Stage_scan(" in text
    assert '{hcl.loop_name = "scan", hcl.op_name = "scan"}' in text
    f = hcl.build(s)
    a = np.arange(8, dtype=np.int32)
    b = np.zeros(8, np.int32)
    f(a, b)
    np.testing.assert_array_equal(b, np.arange(8) * 2)
    np.testing.assert_array_equal(a, np.arange(8) * 3)
