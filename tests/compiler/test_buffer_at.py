"""buffer_at: the slice one iteration uses lives in a local buffer, flushed after the iteration."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import hclbuild as hcl
from hclbuild.errors import APIError


def _gemm() -> tuple[Any, Any, Any]:
    hcl.init(hcl.Float())
    A, B = hcl.placeholder((16, 12), "A"), hcl.placeholder((12, 10), "B")

    def kernel(A: Any, B: Any) -> Any:
        k = hcl.reduce_axis(0, 12, "k")
        return hcl.compute((16, 10), lambda i, j: hcl.sum(A[i, k] * B[k, j], axis=k), "C")

    return hcl.create_schedule([A, B], kernel), kernel, (A, B)


def _inputs(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    return rng.uniform(-1, 1, (16, 12)).astype(np.float32), rng.uniform(-1, 1, (12, 10)).astype(np.float32)


@pytest.mark.parametrize(("axis", "shape"), [(0, (10,)), (1, (1,))])
def test_buffer_at_the_output_of_a_gemm(
    axis: int, shape: tuple[int, ...], run: Any, rng: np.random.Generator
) -> None:
    s, kernel, _ = _gemm()
    buffer = s.buffer_at(kernel.C, s[kernel.C], kernel.C.axis[axis])
    a, b = _inputs(rng)
    np.testing.assert_allclose(run(s, a, b), a @ b, rtol=1e-5, atol=1e-6)
    assert buffer.shape == shape


def test_buffer_at_with_interleaved_accumulation(run: Any, rng: np.random.Generator) -> None:
    # HeteroCL's gemm_interleaving_accu: i, k, j order, C's row accumulated in a buffer
    s, kernel, _ = _gemm()
    C = kernel.C
    s[C].reorder(C.axis[0], C.axis[2], C.axis[1])
    buffer = s.buffer_at(C, s[C], C.axis[0], name="row")
    s[C].pipeline(C.axis[2])
    a, b = _inputs(rng)
    np.testing.assert_allclose(run(s, a, b), a @ b, rtol=1e-5, atol=1e-6)
    code = hcl.build(s, target="vhls")
    assert buffer.shape == (10,) and "float row[10];" in code
    body = code[code.index("l_C_i:") :]
    # read the row in, accumulate into it over k and j, write it back
    assert body.index("row[j_init] = ") < body.index("l_C_k:") < body.index("C[i][j_back] = ")
    assert "C[i][j] " not in body


def test_buffer_at_a_tensor_the_stage_reads(run: Any, rng: np.random.Generator) -> None:
    X = hcl.placeholder((8, 6), "X")
    s = hcl.create_schedule([X], lambda X: hcl.compute((8, 6), lambda i, j: X[i, j] + X[i, 5 - j], "Y"))
    buffer = s.buffer_at(X, s["Y"], 0)
    x = rng.integers(-100, 100, (8, 6)).astype(np.int32)
    np.testing.assert_array_equal(run(s, x), x + x[:, ::-1])
    code = hcl.build(s, target="vhls")
    assert buffer.shape == (6,)
    assert "X_buffer_0[j_init] = " in code and "X[i][j]" not in code
    assert "X[i][j_back]" not in code  # read only: nothing is written back


def test_buffer_at_the_innermost_loop() -> None:
    X = hcl.placeholder((8, 6), "X")
    s = hcl.create_schedule([X], lambda X: hcl.compute((8, 6), lambda i, j: X[i, j] * 2, "Y"))
    s.buffer_at(X, s["Y"], 1)
    with pytest.raises(APIError, match=r"buffer_at: loop 'j' is the innermost loop of stage 'Y'"):
        hcl.lower(s)


def test_buffer_at_a_tensor_the_stage_does_not_use() -> None:
    X = hcl.placeholder((8, 6), "X")

    def kernel(X: Any) -> Any:
        Y = hcl.compute((8, 6), lambda i, j: X[i, j] * 2, "Y")
        return hcl.compute((8, 6), lambda i, j: Y[i, j] + 1, "Z")

    s = hcl.create_schedule([X], kernel)
    with pytest.raises(APIError, match=r"buffer_at: stage 'Z' does not read or write tensor 'X'"):
        s.buffer_at(X, s[kernel.Z], 0)
