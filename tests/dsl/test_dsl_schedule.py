"""Schedule primitives applied by the builder: results still equal numpy, and the loops and
attributes in hcl.lower(s) are what docs/IR.md promises."""

from __future__ import annotations

import re

import numpy as np
import pytest
from dsl_helpers import loops
from flow_helpers import check_numpy_llvm_cpp

import hclbuild as hcl
from hclbuild.compiler import attrs

M, N, K = 10, 12, 7


def gemm_schedule(name: str = "C"):
    """C[i, j] = sum_k A[i, k] * B[k, j] + 1 (int32); returns (schedule, stage)."""
    A = hcl.placeholder((M, K), "A")
    B = hcl.placeholder((K, N), "B")

    def kernel(A, B):
        k = hcl.reduce_axis(0, K, "k")
        return hcl.compute((M, N), lambda i, j: hcl.sum(A[i, k] * B[k, j], axis=k) + 1, name)

    s = hcl.create_schedule([A, B], kernel)
    return s, getattr(kernel, name)


@pytest.fixture
def gemm_data():
    rng = np.random.default_rng(7)
    a = rng.integers(-50, 50, (M, K), dtype=np.int32)
    b = rng.integers(-50, 50, (K, N), dtype=np.int32)
    return a, b, a @ b + 1


def loop_names(s) -> list[str]:
    return [attrs["hcl.loop_name"].strip('"') for _, attrs in loops(s)]


# ---- lower(s) text ------------------------------------------------------------------------


def test_every_loop_has_loop_name_and_every_stage_root_has_op_name():
    A = hcl.placeholder((4, 5), "A")
    L = hcl.placeholder((1,), "L")

    def kernel(A, L):
        r = hcl.reduce_axis(0, 5, "r")
        B = hcl.compute((4,), lambda i: hcl.sum(A[i, r], axis=r), "B")
        C = hcl.compute((4, 5), lambda i, j: A[i, j] * B[i], "C")
        total = hcl.scalar(0, "total")
        with hcl.for_(0, L[0], name="dyn") as i:
            total.v = total.v + B[i]
        c = hcl.scalar(0, "c")
        with hcl.while_(c.v < 3):
            c.v = c.v + 1
        return C

    s = hcl.create_schedule([A, L], kernel)
    found = loops(s)
    assert {kind for kind, _ in found} == {"affine.for", "scf.for", "scf.while"}
    assert all("hcl.loop_name" in attrs for _, attrs in found)
    text = str(hcl.lower(s))
    assert '{hcl.loop_name = "i", hcl.op_name = "B"}' in text
    assert '{hcl.loop_name = "r"}' in text
    assert '{hcl.loop_name = "i", hcl.op_name = "C"}' in text
    assert 'hcl.loop_name = "dyn"' in text
    assert '{hcl.loop_name = "x", hcl.op_name = "total"}' in text  # a scalar is a one-trip compute
    module = hcl.lower(s)
    top = attrs.top_functions(module)[0]
    roots = [
        op
        for op in top.regions[0].blocks[0].operations
        if op.name != "memref.alloc" and op.name != "func.return"
    ]
    names = [attrs.stage_name(op) for op in roots]
    # top-level imperative code becomes a stage of its own, wrapped in a one-trip loop
    assert names == [
        "B",
        "C",
        "total",
        "dyn",
        "c",
        "stage",
    ]  # a top-level for_ is a stage named after its loop
    assert '{hcl.loop_name = "stage_stage", hcl.op_name = "stage"}' in text


# ---- split --------------------------------------------------------------------------------


def test_split_factor_divisible_results(run, gemm_data):
    a, b, expected = gemm_data
    s, C = gemm_schedule()
    xo, xi = s[C].split(C.axis[1], factor=4)
    assert (xo.name, xi.name) == ("j.outer", "j.inner")
    np.testing.assert_array_equal(run(s, a, b), expected)


def test_split_factor_not_divisible_results_and_guard(run, gemm_data):
    a, b, expected = gemm_data
    s, C = gemm_schedule()
    s[C].split(C.axis[0], factor=3)  # 10 rows: 4 outer trips, the last one partial
    np.testing.assert_array_equal(run(s, a, b), expected)
    text = str(hcl.lower(s))
    assert re.search(r"affine\.for %\w+ = 0 to 4 \{", text)
    assert re.search(r"affine\.for %\w+ = 0 to 3 \{", text)
    assert "scf.if" in text  # the guard of the partial tile


def test_split_nparts_results(run, gemm_data):
    a, b, expected = gemm_data
    s, C = gemm_schedule()
    outer, inner = s[C].split(C.axis[1], nparts=5)
    np.testing.assert_array_equal(run(s, a, b), expected)
    assert (outer.name, inner.name) == ("j.outer", "j.inner")
    assert loop_names(s) == ["i", "j.outer", "j.inner", "k"]
    # 12 in 5 parts: 5 outer trips of ceil(12 / 5) = 3
    assert re.search(r"0 to 5 \{\s*affine\.for %\w+ = 0 to 3 \{", str(hcl.lower(s)))


def test_split_nparts_not_divisible(run, gemm_data):
    a, b, expected = gemm_data
    s, C = gemm_schedule()
    s[C].split(C.axis[0], nparts=3)  # 10 = 3 parts of ceil(10/3) = 4, guarded
    np.testing.assert_array_equal(run(s, a, b), expected)


def test_split_loop_names_in_lowered_text():
    s, C = gemm_schedule()
    s[C].split(C.axis[0], factor=5)
    names = loop_names(s)
    assert names == ["i.outer", "i.inner", "j", "k"]
    text = str(hcl.lower(s))
    assert '{hcl.loop_name = "i.outer", hcl.op_name = "C"}' in text
    assert '{hcl.loop_name = "i.inner"}' in text


def test_split_reduction_axis(run, gemm_data):
    a, b, expected = gemm_data
    s, C = gemm_schedule()
    ko, ki = s[C].split(C.axis[2], factor=2)
    assert (ko.name, ki.name) == ("k.outer", "k.inner")
    np.testing.assert_array_equal(run(s, a, b), expected)
    assert loop_names(s) == ["i", "j", "k.outer", "k.inner"]


# ---- reorder, fuse, tile ------------------------------------------------------------------------


def test_reorder_results_and_names(run, gemm_data):
    a, b, expected = gemm_data
    s, C = gemm_schedule()
    i, j = C.axis[0], C.axis[1]
    s[C].reorder(j, i)
    np.testing.assert_array_equal(run(s, a, b), expected)
    text = str(hcl.lower(s))
    assert '{hcl.loop_name = "j", hcl.op_name = "C"}' in text
    assert loop_names(s) == ["j", "i", "k"]
    assert re.search(r"affine\.for %\w+ = 0 to 12 \{\s*affine\.for %\w+ = 0 to 10 \{", text)


def test_fuse_results_and_names(run, gemm_data):
    a, b, expected = gemm_data
    s, C = gemm_schedule()
    fused = s[C].fuse(C.axis[0], C.axis[1])
    assert fused.name == "i_j_fused"
    np.testing.assert_array_equal(run(s, a, b), expected)
    text = str(hcl.lower(s))
    assert '{hcl.loop_name = "i_j_fused", hcl.op_name = "C"}' in text
    assert re.search(r"affine\.for %\w+ = 0 to 120 \{", text)
    assert loop_names(s) == ["i_j_fused", "k"]


def test_split_then_fuse_inner_loops(run, gemm_data):
    a, b, expected = gemm_data
    s, C = gemm_schedule()
    jo, ji = s[C].split(C.axis[1], factor=4)
    s[C].fuse(jo, ji)
    np.testing.assert_array_equal(run(s, a, b), expected)
    assert loop_names(s) == ["i", "j.outer_j.inner_fused", "k"]


def test_tile_results_and_names(run, gemm_data):
    a, b, expected = gemm_data
    s, C = gemm_schedule()
    handles = s[C].tile(C.axis[0], C.axis[1], 4, 5)  # neither divides: guarded tiles
    assert [h.name for h in handles] == ["i.outer", "j.outer", "i.inner", "j.inner"]
    np.testing.assert_array_equal(run(s, a, b), expected)
    assert loop_names(s) == ["i.outer", "j.outer", "i.inner", "j.inner", "k"]


def test_axes_by_int_index_on_a_3d_stage(run, rng):
    A = hcl.placeholder((3, 4, 5), "A")

    def kernel(A):
        return hcl.compute((3, 4, 5), lambda x, y, z: A[x, y, z] * 10 + x, "B")

    s = hcl.create_schedule([A], kernel)
    s[kernel.B].reorder(2, 0)
    s[kernel.B].split(1, factor=3)
    assert loop_names(s) == ["z", "y.outer", "y.inner", "x"]
    a = rng.integers(-9, 9, (3, 4, 5), dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), a * 10 + np.arange(3)[:, None, None])


# ---- pragmas ------------------------------------------------------------------------------------


@pytest.mark.parametrize("pragma", ["unroll", "pipeline", "parallel"])
@pytest.mark.parametrize("loop", [0, 1, 2], ids=["i", "j", "k"])
def test_pragma_keeps_results(run, gemm_data, pragma, loop):
    a, b, expected = gemm_data
    s, C = gemm_schedule()
    getattr(s[C], pragma)(C.axis[loop])
    text = str(hcl.lower(s))
    assert {
        "unroll": "hcl.unroll = 0 : i32",
        "pipeline": "hcl.pipeline_ii = 1 : i32",
        "parallel": "hcl.parallel}",
    }[pragma] in text
    np.testing.assert_array_equal(run(s, a, b), expected)


def test_unroll_pipeline_parallel_together_keep_results(run, gemm_data):
    a, b, expected = gemm_data
    s, C = gemm_schedule()
    s[C].parallel(C.axis[0])
    s[C].pipeline(C.axis[1], 2)
    s[C].unroll(C.axis[2], 4)
    np.testing.assert_array_equal(run(s, a, b), expected)


def test_pipeline_attribute():
    s, C = gemm_schedule()
    s[C].pipeline(C.axis[1], initiation_interval=2)
    text = str(hcl.lower(s))
    assert '{hcl.loop_name = "j", hcl.pipeline_ii = 2 : i32}' in text


def test_pipeline_default_ii_is_one():
    s, C = gemm_schedule()
    s[C].pipeline(C.axis[1])
    assert dict(loops(s)[1][1])["hcl.pipeline_ii"] == "1 : i32"


def test_unroll_attribute_factor_and_full():
    s, C = gemm_schedule()
    s[C].unroll(C.axis[2], 4)
    s[C].unroll(C.axis[1])
    text = str(hcl.lower(s))
    assert '{hcl.loop_name = "k", hcl.unroll = 4 : i32}' in text
    assert '{hcl.loop_name = "j", hcl.unroll = 0 : i32}' in text


def test_parallel_attribute():
    s, C = gemm_schedule()
    s[C].parallel(C.axis[0])
    text = str(hcl.lower(s))
    assert '{hcl.loop_name = "i", hcl.op_name = "C", hcl.parallel}' in text


def test_pragmas_on_split_loops():
    s, C = gemm_schedule()
    jo, ji = s[C].split(C.axis[1], factor=4)
    s[C].pipeline(jo)
    s[C].unroll(ji, 4)
    text = str(hcl.lower(s))
    assert '{hcl.loop_name = "j.outer", hcl.pipeline_ii = 1 : i32}' in text
    assert '{hcl.loop_name = "j.inner", hcl.unroll = 4 : i32}' in text


# ---- partition, reshape --------------------------------------------------------------------------


def _two_stage():
    A = hcl.placeholder((8, 6), "A")

    def kernel(A):
        B = hcl.compute((8, 6), lambda i, j: A[i, j] * 2, "B")
        return hcl.compute((8, 6), lambda i, j: B[i, j] + B[7 - i, 5 - j], "C")

    return hcl.create_schedule([A], kernel), kernel


def test_partition_keeps_results_and_sets_attributes(run, rng):
    s, kernel = _two_stage()
    s.partition(kernel.B, hcl.Partition.Cyclic, dim=1, factor=4)
    s.partition(kernel.B, hcl.Partition.Complete, dim=2)
    a = rng.integers(-99, 99, (8, 6), dtype=np.int32)
    b = a * 2
    np.testing.assert_array_equal(run(s, a), b + b[::-1, ::-1])
    text = str(hcl.lower(s))
    assert 'hcl.partition = ["cyclic:1:4", "complete:2:0"]' in text


def test_partition_of_placeholder_goes_to_arg_partitions():
    s, _ = _two_stage()
    A = s.inputs[0]
    s.partition(A, hcl.Partition.Block, dim=2, factor=3)
    text = str(hcl.lower(s))
    assert 'hcl.arg_partitions = [["block:2:3"], []]' in text


def test_reshape_intermediate_keeps_results(run, rng):
    s, kernel = _two_stage()
    s.reshape(kernel.B, (4, 12))
    a = rng.integers(-99, 99, (8, 6), dtype=np.int32)
    b = a * 2
    np.testing.assert_array_equal(run(s, a), b + b[::-1, ::-1])
    text = str(hcl.lower(s))
    assert re.search(r'memref\.alloc\(\) \{hcl\.dtype = "int32", hcl.name = "B"\} : memref<4x12xi32>', text)


def test_reshape_to_1d_keeps_results(run, rng):
    s, kernel = _two_stage()
    s.reshape(kernel.B, (48,))
    a = rng.integers(-99, 99, (8, 6), dtype=np.int32)
    b = a * 2
    np.testing.assert_array_equal(run(s, a), b + b[::-1, ::-1])
    assert "memref<48xi32>" in str(hcl.lower(s))


# ---- more ---------------------------------------------------------------------------------------


def test_lowering_twice_gives_the_same_text():
    A = hcl.placeholder((3,), "A")

    def kernel(A):
        with hcl.if_(A[0] > A[1]):
            A[0] = 1
        with hcl.for_(0, 3, name="loop") as i:
            A[i] = A[i] + 1
        c = hcl.scalar(0, "c")
        with hcl.while_(c.v < 3):
            c.v = c.v + 1

    s = hcl.create_schedule([A], kernel)
    first = str(hcl.lower(s))
    assert '{hcl.loop_name = "stage_stage", hcl.op_name = "stage"}' in first
    assert 'op_name = "stage_1"' in first
    assert first == str(hcl.lower(s))


def test_split_with_the_tensor_axis_variables(run, gemm_data):
    a, b, expected = gemm_data
    A = hcl.placeholder((M, K), "A")
    B = hcl.placeholder((K, N), "B")
    made = {}

    def kernel(A, B):
        k = hcl.reduce_axis(0, K, "k")
        C = hcl.compute((M, N), lambda i, j: hcl.sum(A[i, k] * B[k, j], axis=k) + 1, "C")
        made["C"] = C
        return C

    s = hcl.create_schedule([A, B], kernel)
    C = made["C"]
    s[C].split(C.axis[1], factor=5)
    assert loop_names(s) == ["i", "j.outer", "j.inner", "k"]
    np.testing.assert_array_equal(run(s, a, b), expected)


def test_dataflow_attributes():
    s, kernel = _two_stage()
    s.dataflow()
    s[kernel.B].dataflow()
    text = str(hcl.lower(s))
    assert re.search(
        r"func\.func @top\(.*\) attributes \{hcl\.arg_names = .*, hcl\.dataflow, hcl\.top\}", text
    )
    assert '{hcl.dataflow, hcl.loop_name = "i", hcl.op_name = "B"}' in text
    assert '{hcl.loop_name = "i", hcl.op_name = "C"}' in text


def test_reshape_of_an_output_changes_the_interface(rng):
    s, kernel = _two_stage()
    s.reshape(kernel.C, (12, 4))
    fn = hcl.build(s)
    assert fn.signature.args[1].shape == (12, 4)
    a = rng.integers(-99, 99, (8, 6), dtype=np.int32)
    out = np.zeros((12, 4), dtype=np.int32)
    fn(a, out)
    b = a * 2
    np.testing.assert_array_equal(out, (b + b[::-1, ::-1]).reshape(12, 4))


def test_partition_complete_all_dims_on_output():
    s, kernel = _two_stage()
    s.partition(kernel.C)
    assert 'hcl.arg_partitions = [[], ["complete:0:0"]]' in str(hcl.lower(s))


def _xyz_schedule():
    A = hcl.placeholder((5, 6, 7), "A")

    def kernel(A):
        return hcl.compute((5, 6, 7), lambda x, y, z: A[x, y, z] * 3 + x * 100 + y * 10 + z, "B")

    return hcl.create_schedule([A], kernel), kernel.B


def _split_fuse(st, B):
    xo, xi = st.split(B.axis[0], 3)
    st.fuse(xo, xi)


def _split_reorder(st, B):
    zo, zi = st.split(B.axis[2], 4)
    st.reorder(zi, B.axis[0], zo)


def _fuse_split(st, B):
    st.split(st.fuse(B.axis[1], B.axis[2]), 5)


def _tile_fuse_pipeline(st, B):
    xo, yo, _xi, yi = st.tile(B.axis[0], B.axis[1], 2, 4)
    st.fuse(xo, yo)
    st.pipeline(yi)


@pytest.mark.parametrize(
    "transform, names",
    [
        (lambda st, B: st.fuse(0, 1, 2), ["x_y_z_fused"]),
        (_split_fuse, ["x.outer_x.inner_fused", "y", "z"]),
        (
            lambda st, B: st.split(st.split(B.axis[2], 3)[0], 2),
            ["x", "y", "z.outer.outer", "z.outer.inner", "z.inner"],
        ),
        (_split_reorder, ["z.inner", "y", "x", "z.outer"]),
        (_fuse_split, ["x", "y_z_fused.outer", "y_z_fused.inner"]),
        (_tile_fuse_pipeline, ["x.outer_y.outer_fused", "x.inner", "y.inner", "z"]),
    ],
    ids=["fuse3", "split_fuse", "split_twice", "split_reorder", "fuse_split", "tile_fuse_pipeline"],
)
def test_combined_loop_transforms(run, transform, names):
    s, B = _xyz_schedule()
    transform(s[B], B)
    assert loop_names(s) == names
    a = np.random.default_rng(3).integers(-50, 50, (5, 6, 7), dtype=np.int32)
    x, y, z = np.indices((5, 6, 7))
    np.testing.assert_array_equal(run(s, a), a * 3 + x * 100 + y * 10 + z)


def test_primitives_on_mutate_and_update_stages(run, rng):
    A = hcl.placeholder((6, 8), "A")

    def kernel(A):
        B = hcl.compute((6,), lambda i: 0, "B")

        def body(i, j):
            B[i] = B[i] * 2 + A[i, j]  # order-dependent: a split must keep the order

        hcl.mutate((6, 8), body, "M")
        r = hcl.reduce_axis(0, 8, "r")
        hcl.update(B, lambda i: B[i] + hcl.sum(A[i, r], axis=r), "U")
        return B

    s = hcl.create_schedule([A], kernel)
    s[kernel.M].split(kernel.M.axis[1], 3)
    s[kernel.U].pipeline(kernel.U.axis[0], 3)
    s[kernel.U].unroll("r", 2)
    text = str(hcl.lower(s))
    assert '{hcl.loop_name = "j.outer"}' in text
    assert '{hcl.loop_name = "r", hcl.unroll = 2 : i32}' in text
    assert '{hcl.loop_name = "i", hcl.op_name = "U", hcl.pipeline_ii = 3 : i32}' in text
    a = rng.integers(0, 2, (6, 8), dtype=np.int32)
    np.testing.assert_array_equal(run(s, a), a @ (2 ** np.arange(7, -1, -1)) + a.sum(axis=1))


def test_the_for_loops_of_a_mutate_follow_its_axes_and_a_computes_do_not():
    """HeteroCL: a mutate is a loop nest whose for_ loops follow its own axes (they had been
    missing: L1.axis[1] an IndexError); a compute's axes are its spatial and reduction axes only."""
    A = hcl.placeholder((4, 3), "A")

    def kernel(A):
        def popcount(v):
            count = hcl.scalar(0, "count")
            with hcl.for_(0, 32, name="bit") as b:
                count.v += v[b]
            return count.v

        r = hcl.reduce_axis(0, 3, "r")
        P = hcl.compute((4,), lambda i: popcount(hcl.sum(A[i, r], axis=r)), "P")

        def body(x):
            with hcl.for_(0, 4, name="k") as k, hcl.if_(P[k] > P[x]):
                P[x] = P[k]

        hcl.mutate((4,), body, "M")
        return P

    s = hcl.create_schedule([A], kernel)
    assert [loop.name for loop in kernel.P.axis] == ["i", "r"]
    assert [loop.name for loop in kernel.M.axis] == ["x", "k"]
    s[kernel.M].unroll(kernel.M.axis[1], 2)
    assert '{hcl.loop_name = "k", hcl.unroll = 2 : i32}' in str(hcl.lower(s))


def popcounts(A, B):
    """HeteroCL's imperative popcount (test_schedule_imperative): x and y perfectly nested, the
    bit loop below a store; y runs 2, 4, ..., 12 (a for_ with a start and a step)."""
    with hcl.for_(0, 5, tag="C", name="x") as x, hcl.for_(2, 14, 2, name="y") as y:
        B[x, y // 2 - 1] = 0
        with hcl.for_(0, 32, name="b") as b:
            B[x, y // 2 - 1] += A[x, y // 2 - 1][b]


@pytest.mark.parametrize("schedule", ["reorder", "fuse", "split_reorder"])
def test_perfectly_nested_for_loops_reorder_and_fuse_as_one_band(schedule, tmp_path):
    A = hcl.placeholder((5, 6), "A")
    B = hcl.placeholder((5, 6), "B")
    s = hcl.create_schedule([A, B], popcounts)
    C = popcounts.C
    if schedule == "reorder":
        s[C].reorder(C.axis[1], C.axis[0])
        expected = ["y", "x", "b"]
    elif schedule == "fuse":
        s[C].pipeline(s[C].fuse(C.axis[0], C.axis[1]))
        expected = ["x_y_fused", "b"]
    else:
        yo, yi = s[C].split(C.axis[1], 3)
        s[C].reorder(yo, C.axis[0], yi)
        expected = ["y.outer", "x", "y.inner", "b"]
    assert loop_names(s) == expected
    a = np.random.default_rng(3).integers(-(2**31), 2**31, (5, 6), dtype=np.int32)
    b = np.zeros((5, 6), dtype=np.int32)
    hcl.build(s)(a, b)
    bits = ((a.astype(np.int64)[..., None] >> np.arange(32)) & 1).sum(-1)
    np.testing.assert_array_equal(b, bits)
    check_numpy_llvm_cpp(
        s,
        f"popcount_{schedule}",
        tmp_path,
        lambda rng: [a, np.zeros((5, 6), np.int32)],
        lambda a, b: {"B": bits},
    )


def test_reorder_of_for_loops_not_perfectly_nested_says_so():
    A = hcl.placeholder((4, 4), "A")

    def kernel(A):
        with hcl.Stage("S"), hcl.for_(0, 4, name="q") as q:
            A[q, 0] = 0
            with hcl.for_(1, 4, name="r") as r:
                A[q, r] = A[q, r] + 1

    s = hcl.create_schedule([A], kernel)
    with pytest.raises(
        hcl.errors.HCLNotImplementedError,
        match=r"reorder of r, q in stage 'S': they come from hcl.for_ loops that are not perfectly "
        r"nested",
    ):
        s[kernel.S].reorder(kernel.S.r, kernel.S.q)
    with pytest.raises(
        hcl.errors.HCLNotImplementedError,
        match=r"fuse of q, r in stage 'S': across hcl.for_ loops that are not perfectly nested",
    ):
        s[kernel.S].fuse(kernel.S.q, kernel.S.r)
