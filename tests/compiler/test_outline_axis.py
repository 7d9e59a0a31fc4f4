"""outline(stage, axis=...): the body below a loop becomes a function; unify shares it across bounds."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memory_helpers import csim_flow

import hclbuild as hcl
from hclbuild.errors import APIError


def _matvec() -> tuple[Any, Any]:
    hcl.init(hcl.Float())
    A, W = hcl.placeholder((8, 12), "A"), hcl.placeholder((12,), "W")

    def kernel(A: Any, W: Any) -> Any:
        r = hcl.reduce_axis(0, 12, "r")
        return hcl.compute((8, 6), lambda i, j: hcl.sum(A[i, r] * W[r], axis=r) + j, "B")

    return hcl.create_schedule([A, W], kernel), kernel


def _matvec_np(a: np.ndarray, w: np.ndarray) -> np.ndarray:
    return ((a @ w)[:, None] + np.arange(6)).astype(np.float32)


def test_the_body_below_the_axis_is_a_function_of_the_loop_indices(
    run: Any, rng: np.random.Generator
) -> None:
    s, kernel = _matvec()
    handle = s[kernel.B].outline(axis=kernel.B.axis[1])
    a, w = rng.uniform(-1, 1, (8, 12)).astype(np.float32), rng.uniform(-1, 1, 12).astype(np.float32)
    np.testing.assert_allclose(run(s, a, w), _matvec_np(a, w), rtol=1e-5, atol=1e-6)
    assert handle.name == "Stage_B"
    text = str(hcl.lower(s))
    assert re.search(
        r"func.func private @Stage_B\(%arg0: memref<8x12xf32>, %arg1: memref<12xf32>, "
        r"%arg2: memref<8x6xf32>, %arg3: index, %arg4: index\)",
        text,
    )
    assert 'hcl.arg_names = ["A", "W", "B", "i", "j"]' in text
    # the accumulator moved into the function; the loops i and j stay in the stage
    assert text.index('hcl.name = "B_sum"') < text.index("func.func @top")
    assert re.search(
        r"func.call @Stage_B\(%arg0, %arg1, %arg2, %arg3, %arg4\) \{hcl.stages = \[\"B\"\]\}", text
    )


def test_outline_at_the_outer_axis_takes_one_index(run: Any, rng: np.random.Generator) -> None:
    s, kernel = _matvec()
    s.outline(kernel.B, axis=kernel.B.axis[0])
    a, w = rng.uniform(-1, 1, (8, 12)).astype(np.float32), rng.uniform(-1, 1, 12).astype(np.float32)
    np.testing.assert_allclose(run(s, a, w), _matvec_np(a, w), rtol=1e-5, atol=1e-6)
    code = hcl.build(s, target="vhls")
    assert "void Stage_B(float A[8][12], float W[12], float B[8][6], int64_t i);" in code
    assert re.search(r"l_B_i: for \(int i = 0; i < 8; i\+\+\) \{\n\s+Stage_B\(A, W, B, i\);", code)


@pytest.mark.slow
def test_an_axis_outlined_function_csims_with_the_indices_of_its_first_call(tmp_path: Path) -> None:
    s, kernel = _matvec()
    s[kernel.B].outline(axis=kernel.B.axis[1])
    results = csim_flow(s, tmp_path, "axis_outline", model=_matvec_np)
    assert set(results) == {"top", "Stage_B"}
    golden = tmp_path / "axis_outline" / "golden" / "Stage_B"
    assert (golden / "in_i.bin").read_bytes() == bytes(8) and (golden / "in_j.bin").read_bytes() == bytes(8)


def _two_loops() -> tuple[Any, Any, Any]:
    hcl.init()
    A, B, C = (hcl.placeholder((8, 10), n) for n in "ABC")

    def kernel(A: Any, B: Any, C: Any) -> None:
        with hcl.for_(0, 8, name="rows1") as i, hcl.for_(0, 6, name="cols1") as j:
            B[i, j] = A[i, j] * 2
        with hcl.for_(0, 8, name="rows2") as i, hcl.for_(0, 10, name="cols2") as j:
            C[i, j] = A[i, j] * 2

    return hcl.create_schedule([A, B, C], kernel), kernel, (A, B, C)


def _two_loops_np(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    b, c = b.copy(), c.copy()
    b[:, :6] = a[:, :6] * 2
    c[:] = a * 2
    return b, c


def test_unify_makes_differing_loop_bounds_arguments(rng: np.random.Generator) -> None:
    s, _, _ = _two_loops()
    first = s["rows1"].outline(axis="rows1")
    assert s["rows2"].outline(axis="rows2", unify=first) is first
    a, b, c = (rng.integers(-50, 50, (8, 10)).astype(np.int32) for _ in range(3))
    want_b, want_c = _two_loops_np(a, b, c)
    f = hcl.build(s)
    f(a, b, c)
    np.testing.assert_array_equal(b, want_b)
    np.testing.assert_array_equal(c, want_c)
    code = hcl.build(s, target="vhls")
    assert code.count("void Stage_rows1(") == 2 and "Stage_rows2" not in code  # prototype and definition
    assert "for (int cols1 = 0; cols1 < cols1_bound_bits; cols1++)" in code
    assert "Stage_rows1(A, B, rows1, 6);" in code and "Stage_rows1(A, C, rows2, 10);" in code


@pytest.mark.slow
def test_a_unified_function_csims(tmp_path: Path) -> None:
    s, _, _ = _two_loops()
    s["rows2"].outline(axis="rows2", unify=s["rows1"].outline(axis="rows1"))
    results = csim_flow(s, tmp_path, "unified", model=lambda a, b, c: dict(zip("BC", _two_loops_np(a, b, c))))
    assert set(results) == {"top", "Stage_rows1"}


def test_unify_with_a_body_that_differs_beyond_bounds() -> None:
    hcl.init()
    A, B = hcl.placeholder((8,), "A"), hcl.placeholder((8,), "B")

    def kernel(A: Any, B: Any) -> None:
        with hcl.for_(0, 2, name="p") as i, hcl.for_(0, 4, name="q") as j:
            B[i * 4 + j] = A[i * 4 + j] + 1
        with hcl.for_(0, 2, name="u") as i, hcl.for_(0, 4, name="v") as j:
            B[i * 4 + j] = A[i * 4 + j] * 3

    s = hcl.create_schedule([A, B], kernel)
    first = s["p"].outline(axis="p")
    s["u"].outline(axis="u", unify=first)
    with pytest.raises(
        APIError,
        match=r"@Stage_u cannot unify with @Stage_p: their bodies differ beyond "
        r"constant loop bounds",
    ):
        hcl.lower(s)


def test_a_stage_outlined_whole_and_at_an_axis() -> None:
    s, kernel = _matvec()
    s.outline(kernel.B)
    with pytest.raises(APIError, match=r"stage 'B' is outlined twice"):
        s[kernel.B].outline(axis=kernel.B.axis[0])


def test_a_line_buffer_stays_in_the_caller_of_an_axis_outlined_body(
    run: Any, rng: np.random.Generator
) -> None:
    # the line and window buffers carry values from one iteration to the next: they must persist
    hcl.init()
    A = hcl.placeholder((8, 10), "A")

    def kernel(A: Any) -> Any:
        r, c = hcl.reduce_axis(0, 3, "r"), hcl.reduce_axis(0, 3, "c")
        return hcl.compute((6, 8), lambda y, x: hcl.sum(A[y + r, x + c], axis=[r, c]), "B")

    s = hcl.create_schedule([A], kernel)
    line = s.reuse_at(A, s[kernel.B], kernel.B.axis[0], "LB")
    s.reuse_at(line, s[kernel.B], kernel.B.axis[1], "WB")
    s[kernel.B].outline(axis=kernel.B.axis[1])
    a = rng.integers(-50, 50, (8, 10)).astype(np.int32)
    np.testing.assert_array_equal(run(s, a), sum(a[r : r + 6, c : c + 8] for r in range(3) for c in range(3)))
    code = hcl.build(s, target="vhls")
    assert re.search(r"void Stage_B\(int32_t LB\[3\]\[10\], int32_t A\[8\]\[10\], int32_t WB\[3\]\[3\]", code)
    top = code[code.index("void top(") :]
    assert "int32_t LB[3][10];" in top and "int32_t WB[3][3] = {};" in top


def test_a_stream_into_an_axis_outlined_body() -> None:
    hcl.init()
    A = hcl.placeholder((4, 4), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((4, 4), lambda i, j: A[i, j] + 1, "B")
        return hcl.compute((4, 4), lambda i, j: B[i, j] * 2, "C")

    s = hcl.create_schedule([A], kernel)
    s.to(kernel.B, s[kernel.C])
    s[kernel.C].outline(axis=kernel.C.axis[0])
    with pytest.raises(hcl.HCLNotImplementedError, match=r"a stream reaches @Stage_C, a loop body outlined"):
        hcl.lower(s)
