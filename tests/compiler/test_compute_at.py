"""compute_at: the producer runs inside the consumer's loop, its tensor shrinks as in HeteroCL."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memory_helpers import csim_flow

import hclbuild as hcl
from hclbuild.errors import APIError


def _three_d() -> tuple[Any, Any]:
    A = hcl.placeholder((10, 20, 30), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute(A.shape, lambda i, j, m: A[i, j, m] * 2, "B")
        return hcl.compute(B.shape, lambda ii, jj, mm: B[ii, jj, mm] + 1, "C")

    return hcl.create_schedule([A], kernel), kernel


def _shape_of(s: Any, name: str) -> str:
    found = re.findall(rf'name = "{name}"\}} : memref<([0-9x]+)xi32>', str(hcl.lower(s)))
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize(("axis", "shape"), [(0, "1x20x30"), (1, "1x1x30"), (2, "1x1x1")])
def test_compute_at_each_axis_shrinks_the_intermediate(
    axis: int, shape: str, run: Any, rng: np.random.Generator
) -> None:
    s, kernel = _three_d()
    s[kernel.B].compute_at(s[kernel.C], kernel.C.axis[axis])
    a = rng.integers(0, 100, (10, 20, 30)).astype(np.int32)
    np.testing.assert_array_equal(run(s, a), a * 2 + 1)
    assert _shape_of(s, "B") == shape


@pytest.mark.parametrize("transform", ["fuse", "split", "reorder"])
def test_compute_at_then_loop_transforms_of_the_consumer(
    transform: str, run: Any, rng: np.random.Generator
) -> None:
    s, kernel = _three_d()
    C = kernel.C
    s[kernel.B].compute_at(s[C], C.axis[2])
    if transform == "fuse":
        s[C].fuse(C.axis[0], C.axis[1])
    elif transform == "split":
        s[C].split(C.axis[0], factor=3)  # 10 = 3 * 4 - 2: the tail iterations are guarded
        s[C].split(C.axis[1], factor=3)
    else:
        s[C].reorder(C.axis[1], C.axis[0])
    a = rng.integers(0, 100, (10, 20, 30)).astype(np.int32)
    np.testing.assert_array_equal(run(s, a), a * 2 + 1)
    assert _shape_of(s, "B") == "1x1x1"


def test_compute_at_chain(run: Any, rng: np.random.Generator) -> None:
    A = hcl.placeholder((10, 20, 30), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute(A.shape, lambda i, j, m: A[i, j, m] * 2, "B")
        C = hcl.compute(B.shape, lambda ii, jj, mm: B[ii, jj, mm] + 1, "C")
        return hcl.compute(C.shape, lambda i, j, m: C[i, j, m] % 3, "D")

    s = hcl.create_schedule([A], kernel)
    s[kernel.B].compute_at(s[kernel.C], kernel.C.axis[1])
    s[kernel.C].compute_at(s[kernel.D], 2)
    a = rng.integers(0, 100, (10, 20, 30)).astype(np.int32)
    np.testing.assert_array_equal(run(s, a), (a * 2 + 1) % 3)
    assert (_shape_of(s, "B"), _shape_of(s, "C")) == ("1x1x30", "1x1x1")


def _stencil_of_a_producer() -> tuple[Any, Any]:
    def kernel() -> Any:
        A = hcl.compute((10, 10), lambda y, x: x + y, "A")
        return hcl.compute((8, 8), lambda y, x: A[y, x] + A[y + 1, x + 1] + A[y + 2, x + 2], "B")

    return hcl.create_schedule([], kernel), kernel


def test_compute_at_a_stencil_keeps_the_window(run: Any) -> None:
    s, kernel = _stencil_of_a_producer()
    s[kernel.A].compute_at(s[kernel.B], kernel.B.axis[1])
    s[kernel.B].split(kernel.B.axis[1], 4)
    a = np.fromfunction(lambda i, j: i + j, (10, 10), dtype=np.int32)
    np.testing.assert_array_equal(run(s), a[:8, :8] + a[1:9, 1:9] + a[2:, 2:])
    assert _shape_of(s, "A") == "3x3"


def test_a_producer_with_a_reduction_moves_whole(run: Any, rng: np.random.Generator) -> None:
    A = hcl.placeholder((8, 6), "A")

    def kernel(A: Any) -> Any:
        r = hcl.reduce_axis(0, 6, "r")
        total = hcl.compute((8,), lambda i: hcl.sum(A[i, r], axis=r), "total")
        return hcl.compute((8, 6), lambda i, j: A[i, j] - total[i], "centered")

    s = hcl.create_schedule([A], kernel)
    s[kernel.total].compute_at(s[kernel.centered], kernel.centered.axis[0])
    a = rng.integers(0, 100, (8, 6)).astype(np.int32)
    np.testing.assert_array_equal(run(s, a), a - a.sum(1, keepdims=True))
    assert _shape_of(s, "total") == "1"
    code = hcl.build(s, target="vhls")
    body = code[code.index("l_centered_i:") :]
    assert body.index("l_centered_r:") < body.index("l_centered_j:")  # the sum, then its use, per row


@pytest.mark.slow
def test_compute_at_then_outline_csims(tmp_path: Path) -> None:
    hcl.init(hcl.Int(16))
    A = hcl.placeholder((6, 12), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((6, 12), lambda y, x: A[y, x] * 3, "B")
        C = hcl.compute((6, 10), lambda y, x: B[y, x] + B[y, x + 1] + B[y, x + 2], "C")
        return hcl.compute((6, 10), lambda y, x: C[y, x] - 1, "D")

    s = hcl.create_schedule([A], kernel)
    s[kernel.B].compute_at(s[kernel.C], kernel.C.axis[1])
    s[kernel.C].pipeline(kernel.C.axis[1])
    s.outline(kernel.C)

    def model(a: np.ndarray) -> np.ndarray:
        b = a.astype(np.int64) * 3
        return ((b[:, :10] + b[:, 1:11] + b[:, 2:] - 1 + 2**15) % 2**16 - 2**15).astype(np.int16)

    results = csim_flow(s, tmp_path, "compute_at_outline", model=model)
    assert set(results) == {"top", "Stage_C"}


# ---- errors --------------------------------------------------------------------------------


def test_compute_at_into_a_stage_that_does_not_read_it_fuses_their_loops(run: Any) -> None:
    """HeteroCL's compute_at of independent stages: the nests share their loops down to the axis."""
    A = hcl.placeholder((4, 6), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((4, 6), lambda i, j: A[i, j] + 1, "B")
        C = hcl.compute((4, 6), lambda i, j: A[i, j] * 2, "C")
        return hcl.compute((4, 6), lambda i, j: B[i, j] + C[i, j], "D")

    s = hcl.create_schedule([A], kernel)
    s[kernel.B].compute_at(s[kernel.C], kernel.C.axis[1])
    nests = hcl.get_affine_loop_nests(s.top_func)
    assert [[loop["name"] for loop in nest] for nest in nests] == [["i", "j"], ["i", "j"]]
    inner = [op.operation.name for op in nests[0][1]["body"].body.operations]
    assert inner.count("memref.store") == 2  # B's element, then C's, in one loop body
    a = np.arange(24, dtype=np.int32).reshape(4, 6)
    np.testing.assert_array_equal(run(s, a), (a + 1) + a * 2)


def test_compute_at_cannot_fuse_stages_that_share_a_written_tensor() -> None:
    A = hcl.placeholder((4,), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((4,), lambda i: A[i] + 1, "B")
        hcl.update(A, lambda i: A[i] * 2, "C")
        return B

    s = hcl.create_schedule([A], kernel)
    with pytest.raises(
        APIError,
        match=r"compute_at: stage 'C' does not read 'B' of stage 'B' but shares another tensor with it",
    ):
        s[kernel.B].compute_at(s[kernel.C], kernel.C.axis[0])


def test_compute_at_when_another_stage_reads_the_tensor_too() -> None:
    A = hcl.placeholder((4,), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((4,), lambda i: A[i] + 1, "B")
        C = hcl.compute((4,), lambda i: B[i] * 2, "C")
        return hcl.compute((4,), lambda i: B[i] + C[i], "D")

    s = hcl.create_schedule([A], kernel)
    s[kernel.B].compute_at(s[kernel.C], kernel.C.axis[0])
    with pytest.raises(
        APIError, match=r"compute_at: stage 'D' also uses 'B'; only its consumer 'C' may read it"
    ):
        hcl.lower(s)


def test_compute_at_of_a_design_output() -> None:
    A = hcl.placeholder((4,), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((4,), lambda i: A[i] + 1, "B")
        return B, hcl.compute((4,), lambda i: B[i] * 2, "C")

    s = hcl.create_schedule([A], kernel)
    s[kernel.B].compute_at(s[kernel.C], 0)
    with pytest.raises(APIError, match=r"'B' of stage 'B' is an argument of the design"):
        hcl.lower(s)


def test_a_stage_moved_by_compute_at_cannot_be_outlined() -> None:
    s, kernel = _three_d()
    s[kernel.B].compute_at(s[kernel.C], kernel.C.axis[0])
    with pytest.raises(APIError, match=r"stage 'B' was moved into stage 'C' by compute_at; outline 'C'"):
        s.outline(kernel.B)
