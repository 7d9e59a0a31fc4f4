"""reuse_at: shift registers, line buffers and window buffers give numpy's numbers (LLVM and g++)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memory_helpers import csim_flow

import hclbuild as hcl
from hclbuild.errors import APIError

Reuse = Callable[[Any, Any, Any], list[Any]]


def _at(axis: int) -> Reuse:
    return lambda s, k, A: [s.reuse_at(A, s[k.B], k.B.axis[axis])]


def _line_then_window(s: Any, k: Any, A: Any) -> list[Any]:
    lb = s.reuse_at(A, s[k.B], k.B.axis[0], "LB")
    return [lb, s.reuse_at(lb, s[k.B], k.B.axis[1], "WB")]


def _all_three(s: Any, k: Any, A: Any) -> list[Any]:
    y = s.reuse_at(A, s[k.B], k.B.axis[0], "RB_y")
    x = s.reuse_at(y, s[k.B], k.B.axis[1], "RB_x")
    return [y, x, s.reuse_at(x, s[k.B], k.B.axis[2], "RB_z")]


def _conv(A: Any) -> Any:
    r, c = hcl.reduce_axis(0, 3, "r"), hcl.reduce_axis(0, 3, "c")
    return hcl.compute((8, 8), lambda y, x: hcl.sum(A[y + r, x + c], axis=[r, c]), name="B")


def _conv_np(a: np.ndarray) -> np.ndarray:
    return sum(a[r : r + 8, c : c + 8] for r in range(3) for c in range(3))


def _stencil(A: Any) -> Any:
    return hcl.compute(
        (8, 8),
        lambda y, x: A[y, x + 1] + A[y + 1, x] + A[y + 1, x + 1] * 4 + A[y + 1, x + 2] + A[y + 2, x + 1],
        name="B",
    )


def _stencil_np(a: np.ndarray) -> np.ndarray:
    return a[:8, 1:9] + a[1:9, :8] + 4 * a[1:9, 1:9] + a[1:9, 2:10] + a[2:10, 1:9]


CASES: dict[str, tuple[tuple[int, ...], Callable, Reuse, Callable, list[tuple[int, ...]]]] = {
    "shift_register_1d": (
        (10,),
        lambda A: hcl.compute((8,), lambda x: A[x] + A[x + 1] + A[x + 2], name="B"),
        _at(0),
        lambda a: a[:8] + a[1:9] + a[2:],
        [(3,)],
    ),
    "blur_x": (
        (10, 10),
        lambda A: hcl.compute((10, 8), lambda y, x: A[y, x] + A[y, x + 1] + A[y, x + 2], name="B"),
        _at(1),
        lambda a: a[:, :8] + a[:, 1:9] + a[:, 2:],
        [(3,)],
    ),
    "blur_y": (
        (10, 10),
        lambda A: hcl.compute((8, 10), lambda y, x: A[y, x] + A[y + 1, x] + A[y + 2, x], name="B"),
        _at(0),
        lambda a: a[:8] + a[1:9] + a[2:],
        [(3, 10)],
    ),
    "blur_diagonal": (
        (10, 10),
        lambda A: hcl.compute((8, 8), lambda y, x: A[y, x] + A[y + 1, x + 1] + A[y + 2, x + 2], name="B"),
        _line_then_window,
        lambda a: a[:8, :8] + a[1:9, 1:9] + a[2:, 2:],
        [(3, 10), (3, 3)],
    ),
    "conv_line_buffer": ((10, 10), _conv, _at(0), _conv_np, [(3, 10)]),
    "conv_window_buffer": ((10, 10), _conv, _at(1), _conv_np, [(3, 3)]),
    "conv_line_and_window": ((10, 10), _conv, _line_then_window, _conv_np, [(3, 10), (3, 3)]),
    "neighbours_line_and_window": ((10, 10), _stencil, _line_then_window, _stencil_np, [(3, 10), (3, 3)]),
    "neighbours_line_buffer": ((10, 10), _stencil, _at(0), _stencil_np, [(3, 10)]),
    "blur_x_3d": (
        (10, 10, 2),
        lambda A: hcl.compute(
            (10, 8, 2), lambda y, x, c: A[y, x, c] + A[y, x + 1, c] + A[y, x + 2, c], name="B"
        ),
        _at(1),
        lambda a: a[:, :8] + a[:, 1:9] + a[:, 2:],
        [(3, 2)],
    ),
    "blur_y_3d": (
        (10, 10, 2),
        lambda A: hcl.compute(
            (8, 10, 2), lambda y, x, c: A[y, x, c] + A[y + 1, x, c] + A[y + 2, x, c], name="B"
        ),
        _at(0),
        lambda a: a[:8] + a[1:9] + a[2:],
        [(3, 10, 2)],
    ),
    "blur_xyz_3d": (
        (10, 8, 6),
        lambda A: hcl.compute(
            (8, 6, 4), lambda y, x, z: A[y, x, z] + A[y + 1, x + 1, z + 1] + A[y + 2, x + 2, z + 2], name="B"
        ),
        _all_three,
        lambda a: a[:8, :6, :4] + a[1:9, 1:7, 1:5] + a[2:, 2:, 2:],
        [(3, 8, 6), (3, 3, 6), (3, 3, 3)],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_reuse_buffers_compute_what_numpy_computes(case: str, run: Any, rng: np.random.Generator) -> None:
    shape, algorithm, reuse, model, buffer_shapes = CASES[case]
    A = hcl.placeholder(shape, "A")

    def kernel(A: Any) -> Any:
        return algorithm(A)

    s = hcl.create_schedule([A], kernel)
    buffers = reuse(s, kernel, A)
    a = rng.integers(-50, 50, shape).astype(np.int32)
    np.testing.assert_array_equal(run(s, a), model(a))
    assert [b.shape for b in buffers] == buffer_shapes


def test_split_and_reordered_loops_get_a_line_buffer_per_tile(run: Any, rng: np.random.Generator) -> None:
    # HeteroCL's test_conv2D_lb_wb_schedule: x split in tiles of 4, the tile loop outermost
    A = hcl.placeholder((10, 10), "A")

    def kernel(A: Any) -> Any:
        return _conv(A)

    s = hcl.create_schedule([A], kernel)
    B = kernel.B
    y = B.axis[0]
    xo, xi = s[B].split(B.axis[1], 4)
    s[B].reorder(xo, y, xi)
    lb = s.reuse_at(A, s[B], y)
    wb = s.reuse_at(lb, s[B], xi)
    s.partition(lb, dim=2)
    s[B].pipeline(y)
    a = rng.integers(0, 10, (10, 10)).astype(np.int32)
    np.testing.assert_array_equal(run(s, a), _conv_np(a))
    assert lb.shape == (3, 6) and wb.shape == (3, 3)  # a tile of 4 columns needs 6


def test_fir_taps_are_a_shift_register(run: Any, rng: np.random.Generator) -> None:
    hcl.init(hcl.Float())
    X, H = hcl.placeholder((20,), "X"), hcl.placeholder((5,), "H")

    def fir(X: Any, H: Any) -> Any:
        k = hcl.reduce_axis(0, 5, "k")
        return hcl.compute((16,), lambda n: hcl.sum(X[n + k] * H[k], axis=k), name="Y")

    s = hcl.create_schedule([X, H], fir)
    taps = s.reuse_at(X, s[fir.Y], fir.Y.axis[0], "taps")
    x, h = rng.uniform(-1, 1, 20).astype(np.float32), rng.uniform(-1, 1, 5).astype(np.float32)
    expected = np.array([np.dot(x[n : n + 5], h) for n in range(16)], np.float32)
    np.testing.assert_allclose(run(s, x, h), expected, rtol=1e-5, atol=1e-6)
    assert taps.shape == (5,)


def _conv_schedule(partition: bool = True) -> tuple[Any, Any, Any]:
    hcl.init(hcl.Int())
    A = hcl.placeholder((10, 10), "A")

    def kernel(A: Any) -> Any:
        return _conv(A)

    s = hcl.create_schedule([A], kernel)
    lb = s.reuse_at(A, s[kernel.B], kernel.B.axis[0], "LB")
    wb = s.reuse_at(lb, s[kernel.B], kernel.B.axis[1], "WB")
    if partition:
        s.partition(lb, dim=1)
        s.partition(wb)
    s[kernel.B].pipeline(kernel.B.axis[1])
    return s, lb, wb


def test_line_and_window_buffers_in_the_ir() -> None:
    s, lb, wb = _conv_schedule(partition=False)
    assert lb.shape is None  # known once lowered
    text = str(hcl.lower(s))
    assert re.search(r'hcl.name = "LB", hcl.partition = \["complete:1:0"\]\} : memref<3x10xi32>', text)
    assert re.search(
        r'hcl.name = "WB", hcl.partition = \["complete:0:0"\], hcl.zero_init\} : memref<3x3xi32>', text
    )
    # both loops run two iterations more than the 8 outputs, to fill the buffers
    assert re.search(
        r"affine.for %\w+ = 0 to 10 \{.*\n(.*\n)*.*\} \{hcl.loop_name = \"x\", hcl.pipeline_ii = 1", text
    )
    assert re.search(r'\} \{hcl.loop_name = "y", hcl.op_name = "B"\}', text)
    assert (lb.shape, wb.shape) == ((3, 10), (3, 3))


def test_line_buffer_shift_joins_the_window_loop_in_cpp() -> None:
    s, _, _ = _conv_schedule()
    code = hcl.build(s, target="vhls")
    assert "int32_t LB[3][10];" in code and "int32_t WB[3][3] = {};" in code
    assert "#pragma HLS array_partition variable=LB type=complete dim=1" in code
    assert "#pragma HLS array_partition variable=WB type=complete dim=0" in code
    # one x loop does it all: shift the line buffer, shift the window, compute when both are full
    assert len(re.findall(r"for \(int x = 0; x < 10; x\+\+\)", code)) == 1
    body = code[code.index("l_B_x:") :]
    assert body.index("LB[2][x] = ") < body.index("if (") < body.index("WB[WB_d0][2] = ")
    assert "#pragma HLS pipeline II=1" in body.splitlines()[1]
    # A is read once, straight into the line buffer
    assert "A[" not in code.split("LB[2][x] = A[y][x];")[1]


def test_a_user_partition_replaces_the_automatic_one() -> None:
    hcl.init()
    A = hcl.placeholder((10,), "A")
    s = hcl.create_schedule([A], lambda A: hcl.compute((8,), lambda x: A[x] + A[x + 2], name="B"))
    buffer = s.reuse_at(A, s["B"], 0)
    s.partition(buffer, hcl.Partition.Cyclic, factor=3)
    code = hcl.build(s, target="vhls")
    assert "#pragma HLS array_partition variable=A_reuse_0 type=cyclic factor=3 dim=0" in code
    assert "complete" not in code


@pytest.mark.slow
def test_the_conv_csims_with_partitioned_buffers_and_pipeline(tmp_path: Path) -> None:
    s, _, _ = _conv_schedule()
    s.outline(s["B"])
    results = csim_flow(s, tmp_path, "conv3x3", model=lambda a: _conv_np(a.astype(np.int64)).astype(np.int32))
    assert set(results) == {"top", "Stage_B"}


@pytest.mark.slow
def test_fixed_point_shift_register_csims(tmp_path: Path) -> None:
    hcl.init(hcl.Fixed(12, 4))
    A = hcl.placeholder((12,), "A")
    s = hcl.create_schedule([A], lambda A: hcl.compute((10,), lambda x: A[x] + A[x + 1] + A[x + 2], name="B"))
    s.reuse_at(A, s["B"], 0)
    s["B"].pipeline(0)
    csim_flow(s, tmp_path, "fixed_taps")


def _two_taps() -> Any:
    """The fuzzer's case: a 2-element shift register shifts lane 1 before it was ever loaded."""
    A = hcl.placeholder((8,), "A")
    s = hcl.create_schedule([A], lambda A: hcl.compute((7,), lambda i: A[i] + A[i + 1], name="B"))
    s.reuse_at(A, s["B"], 0, "rb")
    return s


def test_registers_are_zeroed_and_line_buffers_are_not() -> None:
    assert "int32_t rb[2] = {};" in hcl.build(_two_taps(), target="vhls")
    code = hcl.build(_conv_schedule()[0], target="vhls")
    assert "int32_t LB[3][10];" in code and "int32_t WB[3][3] = {};" in code


@pytest.mark.slow
def test_a_two_tap_shift_register_csims_under_werror(tmp_path: Path) -> None:
    """g++ -Werror once stopped on "'rb[1]' may be used uninitialized" (found by the fuzzer)."""
    hcl.init()
    csim_flow(_two_taps(), tmp_path, "two_taps", model=lambda a: a[:7] + a[1:])


def _time_steps(steps: int) -> Any:
    """Jacobi-1D: a time loop around two sweeps, nested stages, each reading through a shift register."""
    hcl.init(hcl.Float())
    A, B = hcl.placeholder((12,), "A"), hcl.placeholder((12,), "B")

    def kernel(A: Any, B: Any) -> None:
        def sweep(dst: Any, src: Any, name: str) -> None:
            def point(i: Any) -> None:
                dst[i + 1] = src[i] + src[i + 1] * 2 + src[i + 2]

            hcl.mutate((10,), point, name=name)

        def step(t: Any) -> None:
            sweep(B, A, "sweep_B")
            sweep(A, B, "sweep_A")

        hcl.mutate((steps,), step, name="time")

    s = hcl.create_schedule([A, B], kernel)
    for sweep, src in ((kernel.time.sweep_B, A), (kernel.time.sweep_A, B)):
        s.reuse_at(src, s[sweep], sweep.axis[0])
    return s


def test_a_nested_stage_reads_through_its_buffer_in_every_time_step(rng: np.random.Generator) -> None:
    s = _time_steps(3)
    assert re.search(r'hcl.loop_name = "i", hcl.nested_stage = "sweep_A"', str(hcl.lower(s)))
    code = hcl.build(s, target="vhls")
    assert code.count("= {};") == 2 and "src" not in code
    a, b = rng.random(12, dtype=np.float32), rng.random(12, dtype=np.float32)
    want_a, want_b = a.copy(), b.copy()
    for _ in range(3):
        want_b[1:-1] = want_a[:-2] + want_a[1:-1] * 2 + want_a[2:]
        want_a[1:-1] = want_b[:-2] + want_b[1:-1] * 2 + want_b[2:]
    hcl.build(s)(a, b)
    np.testing.assert_array_equal(a, want_a)
    np.testing.assert_array_equal(b, want_b)


# ---- errors --------------------------------------------------------------------------------


def _two_stages() -> tuple[Any, Any, Any]:
    A = hcl.placeholder((10, 10), "A")

    def kernel(A: Any) -> Any:
        B = hcl.compute((10, 8), lambda y, x: A[y, x] + A[y, x + 2], name="B")
        return hcl.compute((10, 8), lambda y, x: B[y, x] * 2, name="C")

    return A, kernel, hcl.create_schedule([A], kernel)


def test_reuse_at_a_tensor_the_stage_does_not_read() -> None:
    A, kernel, s = _two_stages()
    with pytest.raises(APIError, match=r"reuse_at: stage 'C' does not read tensor 'A'"):
        s.reuse_at(A, s[kernel.C], kernel.C.axis[1])


def test_reuse_at_a_loop_the_reads_do_not_slide_along() -> None:
    A = hcl.placeholder((10, 10), "A")
    s = hcl.create_schedule([A], lambda A: hcl.compute((4, 8), lambda y, x: A[0, x] + A[1, x], name="B"))
    s.reuse_at(A, s["B"], 0)
    with pytest.raises(
        APIError, match=r"stage 'B' reads 'A' inside loop 'y', but no subscript depends on 'y'"
    ):
        hcl.lower(s)


def test_reuse_at_where_each_element_is_read_once() -> None:
    _A, kernel, s = _two_stages()
    s.reuse_at(kernel.B, s[kernel.C], kernel.C.axis[1])
    with pytest.raises(APIError, match=r"loop 'x' of stage 'C' reads each element of 'B' once"):
        hcl.lower(s)


def test_reuse_at_a_reduction_loop() -> None:
    A = hcl.placeholder((10,), "A")

    def kernel(A: Any) -> Any:
        k = hcl.reduce_axis(0, 3, "k")
        return hcl.compute((8,), lambda x: hcl.sum(A[x + k], axis=k), name="B")

    s = hcl.create_schedule([A], kernel)
    with pytest.raises(APIError, match=r"loop 'k' of stage 'B' is a reduction loop"):
        s.reuse_at(A, s[kernel.B], kernel.B.axis[1])


def test_a_buffer_of_another_stage() -> None:
    A, kernel, s = _two_stages()
    buffer = s.reuse_at(A, s[kernel.B], kernel.B.axis[1])
    with pytest.raises(APIError, match=r"'A_reuse_1' is a buffer of stage 'B', not of stage 'C'"):
        s.reuse_at(buffer, s[kernel.C], kernel.C.axis[1])
    with pytest.raises(APIError, match=r"the algorithm cannot index it"):
        buffer[0]
