"""reorder across spatial and reduction loops (GEMM in i, k, j order): the reduction's loop nest is
merged into the stage's spatial nest, the output is initialised by a plain `<axis>_init` nest and
accumulated in place, all inside one `<stage>_stage` root; results still equal numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from dsl_helpers import loops
from flow_helpers import check_numpy_llvm_cpp

import hclbuild as hcl
from hclbuild.compiler import attrs

M, N, K = 10, 12, 7


def gemm(dtype=None, out_dtype=None, name: str = "C", value=None):
    """C[i, j] = sum_k A[i, k] * B[k, j]; returns (schedule, stage, k)."""
    A = hcl.placeholder((M, K), "A", dtype=dtype)
    B = hcl.placeholder((K, N), "B", dtype=dtype)
    made = {}

    def kernel(A, B):
        k = hcl.reduce_axis(0, K, "k")
        made["k"] = k
        if value is None:
            return hcl.compute((M, N), lambda i, j: hcl.sum(A[i, k] * B[k, j], axis=k), name, dtype=out_dtype)
        return hcl.compute((M, N), lambda i, j: value(A, B, k, i, j), name, dtype=out_dtype)

    s = hcl.create_schedule([A, B], kernel)
    return s, getattr(kernel, name), made["k"]


def int_data(seed: int = 7):
    rng = np.random.default_rng(seed)
    return rng.integers(-50, 50, (M, K), dtype=np.int32), rng.integers(-50, 50, (K, N), dtype=np.int32)


def loop_names(s) -> list[str]:
    return [attrs["hcl.loop_name"].strip('"') for _, attrs in loops(s)]


def loop_attrs(s, name: str) -> dict[str, str]:
    return next(attrs for _, attrs in loops(s) if attrs["hcl.loop_name"].strip('"') == name)


def top_roots(s) -> list[str]:
    module = hcl.lower(s)
    top = attrs.top_functions(module)[0]
    ops = [op for op in top.regions[0].blocks[0].operations if op.name not in ("memref.alloc", "func.return")]
    return [attrs.stage_name(op) for op in ops]


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


# ---- GEMM in i, k, j order -----------------------------------------------------------------


def test_gemm_f32_ikj_pipelined_j(run):
    hcl.init(hcl.Float())
    s, C, k = gemm()
    s[C].reorder(C.axis[0], k, C.axis[1])
    assert [h.name for h in C.axis] == ["i", "j", "k"]  # fixed at creation (HeteroCL), whatever the reorder
    s[C].pipeline(C.axis[1])
    assert loop_names(s) == ["C_stage", "i_init", "j_init", "i", "k", "j"]
    assert loop_attrs(s, "j")["hcl.pipeline_ii"] == "1 : i32"
    text = str(hcl.lower(s))
    assert '{hcl.loop_name = "j", hcl.pipeline_ii = 1 : i32}' in text
    assert '{hcl.loop_name = "C_stage", hcl.op_name = "C"}' in text
    assert "sum_acc" not in text  # accumulates in C itself
    assert top_roots(s) == ["C"]  # still one root op per stage (docs/IR.md)
    rng = np.random.default_rng(3)
    a = rng.random((M, K), dtype=np.float32)
    b = rng.random((K, N), dtype=np.float32)
    # the same f32 additions in the same k order as the un-reordered stage: bit-identical
    s0, _C0, _ = gemm()
    np.testing.assert_array_equal(run(s, a, b), run(s0, a, b))
    np.testing.assert_allclose(run(s, a, b), a.astype(np.float64) @ b, rtol=1e-5)


def test_gemm_reorder_with_string_and_handles(run):
    a, b = int_data()
    s, C, _ = gemm()
    i, j, k = C.axis
    assert k.name == "k"
    s[C].reorder(i, k, j)
    assert loop_names(s)[3:] == ["i", "k", "j"]
    np.testing.assert_array_equal(run(s, a, b), a @ b)
    s, C, _ = gemm()
    s[C].reorder("k", C.axis[0])  # k takes i's place and i k's: k, j, i
    assert loop_names(s)[3:] == ["k", "j", "i"]
    np.testing.assert_array_equal(run(s, a, b), a @ b)


def test_gemm_int32_split_k_then_reorder(run):
    a, b = int_data()
    s, C, k = gemm()
    ko, ki = s[C].split(k, factor=3)  # 7 = 3 trips of 3, guarded
    s[C].pipeline(ki)
    s[C].reorder(C.axis[0], ko, C.axis[1], ki)
    assert loop_names(s)[3:] == ["i", "k.outer", "j", "k.inner"]
    assert loop_attrs(s, "k.inner")["hcl.pipeline_ii"] == "1 : i32"  # kept through the merge
    assert "scf.if" in str(hcl.lower(s))  # the split's guard came along
    np.testing.assert_array_equal(run(s, a, b), a @ b)


def test_primitives_after_the_merge(run):
    a, b = int_data()
    s, C, k = gemm()
    s[C].reorder(C.axis[0], k, C.axis[1])
    jo, ji = s[C].split(C.axis[1], factor=5)
    s[C].pipeline(ji)
    s[C].unroll(k, 2)
    s[C].parallel(C.axis[0])
    assert loop_names(s)[3:] == ["i", "k", "j.outer", "j.inner"]
    assert loop_attrs(s, "k")["hcl.unroll"] == "2 : i32"
    assert loop_attrs(s, "j.inner")["hcl.pipeline_ii"] == "1 : i32"
    assert "hcl.parallel" in loop_attrs(s, "i")
    np.testing.assert_array_equal(run(s, a, b), a @ b)
    # and a second reorder inside the merged nest
    s[C].reorder(jo, k)
    assert loop_names(s)[3:] == ["i", "j.outer", "k", "j.inner"]
    np.testing.assert_array_equal(run(s, a, b), a @ b)


def test_reorder_with_unroll_on_k(run):
    a, b = int_data()
    s, C, k = gemm()
    s[C].unroll(k, 4)  # set before the merge: kept
    s[C].reorder(C.axis[1], k, C.axis[0])
    assert loop_names(s)[3:] == ["j", "k", "i"]
    assert loop_attrs(s, "k")["hcl.unroll"] == "4 : i32"
    np.testing.assert_array_equal(run(s, a, b), a @ b)
    s, C, k = gemm()
    s[C].reorder(C.axis[0], k, C.axis[1])
    s[C].unroll(k)
    assert loop_attrs(s, "k")["hcl.unroll"] == "0 : i32"
    np.testing.assert_array_equal(run(s, a, b), a @ b)


def test_tile_over_a_reduction_axis(run):
    a, b = int_data()
    s, C, k = gemm()
    s[C].tile(C.axis[1], k, 4, 2)
    assert loop_names(s)[3:] == ["i", "j.outer", "k.outer", "j.inner", "k.inner"]
    np.testing.assert_array_equal(run(s, a, b), a @ b)


# ---- other reductions ---------------------------------------------------------------------------


def test_max_reduction_reordered(run, rng):
    A = hcl.placeholder((6, 9, 5), "A")
    made = {}

    def kernel(A):
        r = hcl.reduce_axis(0, 9, "r")
        made["r"] = r
        return hcl.compute((6, 5), lambda i, j: hcl.max(A[i, r, j], axis=r), "C")

    s = hcl.create_schedule([A], kernel)
    C = kernel.C
    s[C].reorder(C.axis[0], made["r"], C.axis[1])
    s[C].pipeline(C.axis[1])
    assert loop_names(s) == ["C_stage", "i_init", "j_init", "i", "r", "j"]
    a = rng.integers(-1000, 1000, (6, 9, 5), dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), a.max(axis=1))


def test_min_float_reduction_with_lower_bound_reordered(run, rng):
    hcl.init(hcl.Float())
    A = hcl.placeholder((4, 10), "A")
    made = {}

    def kernel(A):
        r = hcl.reduce_axis(3, 10, "r")  # lo != 0
        made["r"] = r
        return hcl.compute((4,), lambda i: hcl.min(A[i, r], axis=r), "C")

    s = hcl.create_schedule([A], kernel)
    s[kernel.C].reorder(made["r"], kernel.C.axis[0])
    assert loop_names(s) == ["C_stage", "i_init", "r", "i"]
    a = rng.random((4, 10), dtype=np.float32)
    np.testing.assert_array_equal(run(s, a), a[:, 3:].min(axis=1))


def test_sum_with_where_reordered(run):
    a, b = int_data(11)

    def value(A, B, k, i, j):
        return hcl.sum(A[i, k] * B[k, j], axis=k, where=A[i, k] > j)

    s, C, k = gemm(value=value)
    s[C].reorder(C.axis[0], k, C.axis[1])
    assert loop_names(s)[3:] == ["i", "k", "j"]
    mask = a[:, :, None] > np.arange(N)[None, None, :]
    expected = (np.where(mask, a[:, :, None] * b[None, :, :], 0)).sum(axis=1)
    np.testing.assert_array_equal(run(s, a, b), expected)


def test_custom_reducer_reordered_keeps_the_order(run):
    # acc * 3 + x (wrapping int32) depends on the order of k: the merge must keep it per element
    a, b = int_data(5)
    fold = hcl.reducer(1, lambda x, acc: acc * 3 + x, dtype=hcl.Int(32))

    def value(A, B, k, i, j):
        return fold(A[i, k] - B[k, j], axis=k)

    s, C, k = gemm(value=value)
    s[C].reorder(k, C.axis[0])
    assert loop_names(s)[3:] == ["k", "j", "i"]
    expected = np.ones((M, N), dtype=np.int64)
    for kk in range(K):
        expected = (expected * 3 + (a[:, kk][:, None] - b[kk][None, :])) & 0xFFFFFFFF
    expected = np.where(expected >= 2**31, expected - 2**32, expected).astype(np.int32)
    np.testing.assert_array_equal(run(s, a, b), expected)


def test_two_axis_reduction_merges_both_axes(run, rng):
    A = hcl.placeholder((5, 4, 3), "A")
    made = {}

    def kernel(A):
        r = hcl.reduce_axis(0, 4, "r")
        q = hcl.reduce_axis(0, 3, "q")
        made.update(r=r, q=q)
        return hcl.compute((5,), lambda i: hcl.sum(A[i, r, q], axis=[r, q]), "C")

    s = hcl.create_schedule([A], kernel)
    s[kernel.C].reorder(made["r"], kernel.C.axis[0])  # q comes along, innermost
    assert [h.name for h in kernel.C.axis] == ["i", "r", "q"]  # as created; the loops are below
    assert loop_names(s) == ["C_stage", "i_init", "r", "i", "q"]
    a = rng.integers(-99, 99, (5, 4, 3), dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), a.sum(axis=(1, 2)))


def test_update_stage_reordered(run, rng):
    A = hcl.placeholder((6, 8), "A")
    made = {}

    def kernel(A):
        B = hcl.compute((6,), lambda i: 100, "B")
        r = hcl.reduce_axis(0, 8, "r")
        made["r"] = r
        hcl.update(B, lambda i: hcl.sum(A[i, r], axis=r), "U")
        return B

    s = hcl.create_schedule([A], kernel)
    s[kernel.U].reorder(made["r"], kernel.U.axis[0])
    assert top_roots(s) == ["B", "U"]
    a = rng.integers(-99, 99, (6, 8), dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), a.sum(axis=1))


def test_reduction_not_merged_keeps_its_accumulator(run):
    # only reorders across bands merge: a plain reorder of spatial loops changes nothing else
    a, b = int_data()
    s, C, _ = gemm()
    s[C].reorder(C.axis[1], C.axis[0])
    assert loop_names(s) == ["j", "i", "k"]
    assert "C_sum" in str(hcl.lower(s))  # the accumulator, named after its stage
    np.testing.assert_array_equal(run(s, a, b), a @ b)


def test_reordered_stage_outlined_and_consumed(run):
    a, b = int_data(9)
    A = hcl.placeholder((M, K), "A")
    B = hcl.placeholder((K, N), "B")
    made = {}

    def kernel(A, B):
        k = hcl.reduce_axis(0, K, "k")
        made["k"] = k
        C = hcl.compute((M, N), lambda i, j: hcl.sum(A[i, k] * B[k, j], axis=k), "C")
        return hcl.compute((M, N), lambda i, j: C[i, j] - i, "D")

    s = hcl.create_schedule([A, B], kernel)
    s[kernel.C].reorder(kernel.C.axis[0], made["k"], kernel.C.axis[1])
    s.outline(kernel.C)
    text = str(hcl.lower(s))
    assert "func.func private @Stage_C" in text
    assert text.index('{hcl.loop_name = "C_stage", hcl.op_name = "C"}') < text.index("func.func @top")
    np.testing.assert_array_equal(run(s, a, b), a @ b - np.arange(M)[:, None])


# ---- not supported ------------------------------------------------------------------------------


def test_value_not_a_bare_reduction_raises():
    def value(A, B, k, i, j):
        return hcl.sum(A[i, k] * B[k, j], axis=k) * 2

    s, C, k = gemm(value=value)
    s[C].reorder(C.axis[0], k, C.axis[1])  # recorded; the builder says what it supports
    with pytest.raises(hcl.HCLNotImplementedError, match=r"stage 'C'.*exactly one reduction"):
        hcl.lower(s)


def test_dtype_mismatch_raises():
    def value(A, B, k, i, j):
        return hcl.sum(A[i, k] * B[k, j], axis=k, dtype=hcl.Int(64))

    s, C, k = gemm(value=value)  # output int32, accumulator int64
    s[C].reorder(C.axis[0], k, C.axis[1])
    with pytest.raises(hcl.HCLNotImplementedError, match="compute dtype equal to the accumulator dtype"):
        hcl.lower(s)


def test_float_sum_into_int_output_raises():
    hcl.init(hcl.Float())
    s, C, k = gemm(out_dtype=hcl.Int(32))
    s[C].reorder(C.axis[0], k, C.axis[1])
    with pytest.raises(hcl.HCLNotImplementedError, match=r"stage 'C'.*accumulator dtype"):
        hcl.build(s)


def test_update_reading_its_output_raises():
    A = hcl.placeholder((6, 8), "A")
    made = {}

    def kernel(A):
        B = hcl.compute((6,), lambda i: 1, "B")
        r = hcl.reduce_axis(0, 8, "r")
        made["r"] = r
        hcl.update(B, lambda i: hcl.sum(A[i, r] * B[i], axis=r), "U")
        return B

    s = hcl.create_schedule([A], kernel)
    s[kernel.U].reorder(made["r"], kernel.U.axis[0])
    with pytest.raises(hcl.HCLNotImplementedError, match="reads 'B'"):
        hcl.lower(s)


def test_mutate_with_reduction_raises():
    A = hcl.placeholder((6, 8), "A")
    made = {}

    def kernel(A):
        B = hcl.compute((6,), lambda i: 0, "B")
        r = hcl.reduce_axis(0, 8, "r")
        made["r"] = r

        def body(i):
            B[i] = hcl.sum(A[i, r], axis=r)

        hcl.mutate((6,), body, "M")
        return B

    s = hcl.create_schedule([A], kernel)
    s[kernel.M].reorder(made["r"], kernel.M.axis[0])
    with pytest.raises(hcl.HCLNotImplementedError, match="stage 'M'"):
        hcl.lower(s)


def test_fuse_across_bands_still_raises():
    s, C, k = gemm()
    with pytest.raises(
        hcl.HCLNotImplementedError, match=r"fuse of j, k in stage .C.: across spatial and reduction loops"
    ):
        s[C].fuse(C.axis[1], k)


# ---- HLS C++ -----------------------------------------------------------------------------------


def _gemm_ikj_f32():
    hcl.init(hcl.Float())
    A, B = hcl.placeholder((8, 12), "A"), hcl.placeholder((12, 10), "B")
    made = {}

    def algo(A, B):
        k = hcl.reduce_axis(0, 12, "k")
        made["k"] = k
        return hcl.compute((8, 10), lambda i, j: hcl.sum(A[i, k] * B[k, j], axis=k), name="C")

    s = hcl.create_schedule([A, B], algo)
    s[algo.C].reorder(algo.C.axis[0], made["k"], algo.C.axis[1])
    s[algo.C].pipeline(algo.C.axis[1])
    return s


def test_vhls_labels_in_ikj_order_with_pipeline_in_j():
    lines = _lines(hcl.build(_gemm_ikj_f32(), target="vhls"))
    loop_i = lines.index("l_C_i: for (int i = 0; i < 8; i++) {")
    loop_k = lines.index("l_C_k: for (int k = 0; k < 12; k++) {")
    loop_j = lines.index("l_C_j: for (int j = 0; j < 10; j++) {")
    # A[i][k] does not change in the pipelined j loop: it is read once in front of it
    assert loop_i + 1 == loop_k and lines[loop_k + 1] == "float A_i_k = A[i][k];" and loop_k + 2 == loop_j
    assert lines[loop_j + 1] == "#pragma HLS pipeline II=1"
    init_i = lines.index("l_C_i_init: for (int i_init = 0; i_init < 8; i_init++) {")
    assert init_i < loop_i
    assert "#pragma HLS pipeline II=1" not in lines[:loop_j]


def test_csim_gemm_ikj_agrees_with_llvm_and_numpy(tmp_path: Path) -> None:
    s = _gemm_ikj_f32()
    check_numpy_llvm_cpp(s, "gemm_ikj", tmp_path, None, lambda a, b: a.astype(np.float64) @ b)
