"""Algorithms written at module level (HeteroCL's TVM style): no algorithm function, the listed
tensors (outputs included) are the arguments, and every schedule primitive works on them."""

from __future__ import annotations

import numpy as np
import pytest
from dsl_helpers import loops

import hclbuild as hcl
from hclbuild.errors import APIError


def _build_run(s, *arrays):
    """Run hcl.build(s) on the arrays (every argument, outputs included) and return them."""
    hcl.build(s)(*arrays)
    return arrays


def test_compute_chain_with_the_output_listed(rng):
    A = hcl.placeholder((6, 5), "A")
    B = hcl.compute(A.shape, lambda i, j: A[i, j] * 3, "B")
    C = hcl.compute(A.shape, lambda i, j: B[i, j] - A[i, j], "C")
    s = hcl.create_schedule([A, C])
    assert hcl.build(s).signature.arg_names == ["A", "C"]
    a = rng.integers(-50, 50, (6, 5), dtype=np.int32)
    c = np.zeros((6, 5), np.int32)
    _build_run(s, a, c)
    np.testing.assert_array_equal(c, a * 2)


def test_an_output_left_out_of_the_list_is_named_when_the_call_passes_it():
    """HeteroCL's schedule tests write create_schedule([A]) and call f(A, B): the error says to list B."""
    A = hcl.placeholder((4,), "A")
    hcl.compute((4,), lambda i: A[i] + 1, "B")
    s = hcl.create_schedule([A])
    with pytest.raises(
        APIError,
        match=r"^top: expected 1 arguments \(A\), got 2: the design's arguments are the "
        r"tensors create_schedule lists, outputs too, for an algorithm written at "
        r"module level \(hcl.create_schedule\(\[A, B\]\)\)$",
    ):
        hcl.build(s)(np.zeros(4, np.int32), np.zeros(4, np.int32))


def test_output_listed_before_an_input_keeps_the_list_order(rng):
    A = hcl.placeholder((4,), "A")
    B = hcl.placeholder((4,), "B")
    C = hcl.compute((4,), lambda i: A[i] + B[i], "C")
    s = hcl.create_schedule([A, C, B])
    assert hcl.build(s).signature.arg_names == ["A", "C", "B"]
    a, b = rng.integers(0, 9, 4, dtype=np.int32), rng.integers(0, 9, 4, dtype=np.int32)
    c = np.zeros(4, np.int32)
    hcl.build(s)(a, c, b)
    np.testing.assert_array_equal(c, a + b)


def test_stage_is_reached_through_the_tensor():
    A = hcl.placeholder((8,), "A")
    B = hcl.compute((8,), lambda i: A[i] + 1, "B")
    s = hcl.create_schedule([A, B])
    assert s[B] is s["B"]
    assert s[B].name == "B"


def test_update_at_module_level(rng):
    A = hcl.placeholder((5, 3), "A")
    B = hcl.placeholder((5, 3), "B")
    hcl.update(B, lambda i, j: A[i, j] * A[i, j] + B[i, j], "U")
    s = hcl.create_schedule([A, B])
    a = rng.integers(-9, 9, (5, 3), dtype=np.int32)
    b = rng.integers(-9, 9, (5, 3), dtype=np.int32)
    expected = a * a + b
    _build_run(s, a, b)
    np.testing.assert_array_equal(b, expected)
    assert "U" in s.stages


def test_reduction_at_module_level(rng):
    hcl.init(hcl.Float())
    A = hcl.placeholder((7, 9), "A")
    B = hcl.placeholder((9, 4), "B")
    k = hcl.reduce_axis(0, 9, "k")
    C = hcl.compute((7, 4), lambda i, j: hcl.sum(A[i, k] * B[k, j], axis=k), "C")
    s = hcl.create_schedule([A, B, C])
    a, b = rng.random((7, 9), np.float32), rng.random((9, 4), np.float32)
    c = np.zeros((7, 4), np.float32)
    _build_run(s, a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_mutate_and_tagged_for_loop_are_stages(rng):
    A = hcl.placeholder((10,), "A")
    B = hcl.placeholder((10,), "B")

    def body(i):
        B[i] = A[i] * 2

    hcl.mutate((10,), body, "M")
    with hcl.for_(0, 10, tag="S", name="i") as i, hcl.if_(A[i] > 0):
        B[i] = B[i] + 1
    s = hcl.create_schedule([A, B])
    assert {"M", "S"} <= set(s.stages)
    assert s["S"].axis[0].name == "i"
    s["S"].pipeline(s["S"].i)
    a = rng.integers(-5, 5, 10, dtype=np.int32)
    b = np.zeros(10, np.int32)
    _build_run(s, a, b)
    np.testing.assert_array_equal(b, a * 2 + (a > 0))
    stage_s = [attrs for _, attrs in loops(s) if attrs.get("hcl.op_name") == '"S"']
    assert stage_s[0]["hcl.loop_name"] == '"i"' and stage_s[0]["hcl.pipeline_ii"] == "1 : i32"


def test_imperative_code_and_scalars_at_module_level(rng):
    A = hcl.placeholder((8,), "A")
    total = hcl.placeholder((1,), "total")
    acc = hcl.scalar(0, "acc")
    with hcl.for_(0, 8, name="i") as i:
        acc.v = acc.v + A[i]
    total[0] = acc.v
    s = hcl.create_schedule([A, total])
    a = rng.integers(0, 100, 8, dtype=np.int32)
    t = np.zeros(1, np.int32)
    _build_run(s, a, t)
    assert t[0] == a.sum()


def test_split_reorder_tile_and_pragmas(rng):
    A = hcl.placeholder((8, 12), "A")
    B = hcl.compute((8, 12), lambda i, j: A[i, j] + 7, "B")
    C = hcl.compute((8, 12), lambda i, j: B[i, j] * 2, "C")
    s = hcl.create_schedule([A, C])
    io, ii = s[B].split(B.axis[0], 4)
    jo, ji = s[B].split(B.axis[1], 3)  # axis[1] is still j after the first split
    s[B].reorder(io, jo, ii, ji)
    s[B].unroll(ji)
    xo, _yo, _xi, yi = s[C].tile(C.axis[0], C.axis[1], 2, 4)
    s[C].pipeline(yi)
    s[C].parallel(xo)
    names = [attrs["hcl.loop_name"].strip('"') for _, attrs in loops(s)]
    assert names == ["i.outer", "j.outer", "i.inner", "j.inner", "i.outer", "j.outer", "i.inner", "j.inner"]
    a = rng.integers(-9, 9, (8, 12), dtype=np.int32)
    c = np.zeros((8, 12), np.int32)
    _build_run(s, a, c)
    np.testing.assert_array_equal(c, (a + 7) * 2)


def test_fuse_and_integer_axes(rng):
    A = hcl.placeholder((4, 6), "A")
    B = hcl.compute((4, 6), lambda i, j: A[i, j] - 1, "B")
    s = hcl.create_schedule([A, B])
    s[B].split(1, 2)  # the integer names the original loop j
    fused = s[B].fuse(0, "j.outer")
    assert fused.name == "i_j.outer_fused"
    a = rng.integers(-9, 9, (4, 6), dtype=np.int32)
    b = np.zeros((4, 6), np.int32)
    _build_run(s, a, b)
    np.testing.assert_array_equal(b, a - 1)


def test_partition_reshape_and_dataflow(rng):
    A = hcl.placeholder((4, 6), "A")
    B = hcl.compute((4, 6), lambda i, j: A[i, j] * 5, "B")
    C = hcl.compute((4, 6), lambda i, j: B[i, j] + 1, "C")
    s = hcl.create_schedule([A, C])
    s.partition(A, hcl.Partition.Cyclic, dim=2, factor=2)
    s.reshape(B, (2, 2, 6))
    s.partition(B, dim=3)
    s[C].dataflow()
    s.dataflow()
    text = str(hcl.lower(s))
    assert 'hcl.partition = ["complete:3:0"]' in text and '"cyclic:2:2"' in text
    assert "memref<2x2x6xi32>" in text
    a = rng.integers(-9, 9, (4, 6), dtype=np.int32)
    c = np.zeros((4, 6), np.int32)
    _build_run(s, a, c)
    np.testing.assert_array_equal(c, a * 5 + 1)


def test_outline_at_module_level(rng):
    A = hcl.placeholder((6,), "A")
    B = hcl.compute((6,), lambda i: A[i] + 2, "B")
    C = hcl.compute((6,), lambda i: B[i] * B[i], "C")
    s = hcl.create_schedule([A, C], name="mod")
    handle = s.outline(s[B])
    assert handle.name == "Stage_B"
    text = str(hcl.lower(s))
    assert "func.func private @Stage_B(" in text and "func.func @mod(" in text
    a = rng.integers(-9, 9, 6, dtype=np.int32)
    c = np.zeros(6, np.int32)
    _build_run(s, a, c)
    np.testing.assert_array_equal(c, (a + 2) ** 2)
    assert "void mod(" in hcl.build(s, target="vhls")


def test_create_schedule_can_be_called_again_on_a_module_level_algorithm(rng):
    # a second create_schedule of the same tensors (a notebook cell run twice, a kernel.py whose
    # schedule() is called twice) had been "received an empty algorithm"
    A = hcl.placeholder((8,), "A")
    B = hcl.compute((6,), lambda i: A[i] + A[i + 1] + A[i + 2], "B")
    C = hcl.compute((6,), lambda i: B[i] * 3, "C")
    first = hcl.create_schedule([A, C])
    second = hcl.create_schedule([A, C], name="again")
    third = hcl.create_schedule([A, C])
    # each schedule's primitives are its own: names taken by one are free in the others
    first.outline(first[B])
    first.reuse_at(A, first[B], first[B].axis[0], name="window")
    second[C].split(second[C].axis[0], 4)
    second.reuse_at(A, second[B], second[B].axis[0], name="window")
    assert "@Stage_B(" in str(hcl.lower(first)) and "Stage_B" not in str(hcl.lower(second))
    assert "func.func @again(" in str(hcl.lower(second)) and "func.func @top(" in str(hcl.lower(third))
    a = rng.integers(-9, 9, 8, dtype=np.int32)
    for s in (first, second, third):
        c = np.zeros(6, np.int32)
        _build_run(s, a, c)
        np.testing.assert_array_equal(c, (a[:6] + a[1:7] + a[2:]) * 3)


def test_the_algorithm_is_new_after_hcl_init_or_new_module_level_code():
    A = hcl.placeholder((3,), "A")
    B = hcl.compute((3,), lambda i: A[i], "B")
    hcl.create_schedule([A, B])
    C = hcl.compute((3,), lambda i: A[i] + 1, "C")  # written since: the next algorithm is C alone
    assert list(hcl.create_schedule([A, C]).stages) == ["C"]
    with pytest.raises(APIError, match="neither a placeholder nor a tensor computed at module level"):
        hcl.create_schedule([A, B, C])
    hcl.init()
    with pytest.raises(APIError, match="received an empty algorithm"):
        hcl.create_schedule([A, C])


def test_a_listed_tensor_must_belong_to_the_algorithm():
    A = hcl.placeholder((3,), "A")
    B = hcl.compute((3,), lambda i: A[i], "B")
    hcl.init()
    C = hcl.compute((3,), lambda i: A[i] + 1, "C")
    with pytest.raises(APIError, match="neither a placeholder nor a tensor computed at module level"):
        hcl.create_schedule([A, B, C])


def test_function_style_create_schedule_drops_module_level_ops(rng):
    A = hcl.placeholder((4,), "A")
    hcl.compute((4,), lambda i: A[i] * 100, "stray")

    def kernel(A):
        return hcl.compute((4,), lambda i: A[i] + 1, "B")

    s = hcl.create_schedule([A], kernel)
    assert list(s.stages) == ["B"]
    a = rng.integers(0, 9, 4, dtype=np.int32)
    b = np.zeros(4, np.int32)
    hcl.build(s)(a, b)
    np.testing.assert_array_equal(b, a + 1)


def test_schedule_module_and_top_func():
    A = hcl.placeholder((4,), "A")
    B = hcl.compute((4,), lambda i: A[i] + 1, "B")
    s = hcl.create_schedule([A, B])
    assert s.top_func.attributes["sym_name"].value == "top"
    assert "func.func @top(" in str(s.module)


def test_a_project_kernel_written_at_module_level(tmp_path):
    from hclbuild.project.config import load_project
    from hclbuild.project.kernel import kernel_schedule

    folder = tmp_path / "modlevel"
    folder.mkdir()
    (folder / "kernel.py").write_text(
        "import hclbuild as hcl\n"
        "hcl.init(hcl.Float())\n"
        "A = hcl.placeholder((4,), 'A')\n"
        "B = hcl.compute((4,), lambda i: A[i] * 2.0, 'B')\n"
        "def schedule():\n"
        "    return hcl.create_schedule([A, B])\n"
    )
    s = kernel_schedule(load_project(folder))
    assert list(s.stages) == ["B"] and hcl.build(s).signature.arg_names == ["A", "B"]
