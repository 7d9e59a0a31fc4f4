"""Bad inputs raise hclbuild.errors exceptions with a message that says what is wrong."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import hclbuild as hcl
from hclbuild.errors import APIError, DTypeError, HCLError


def add_one_schedule():
    A = hcl.placeholder((4, 3), "A")

    def kernel(A):
        return hcl.compute((4, 3), lambda i, j: A[i, j] + 1, "B")

    return hcl.create_schedule([A], kernel)


# ---- algorithm definition --------------------------------------------------------------------


@pytest.mark.parametrize("fcompute", [lambda i: 0, lambda i, j, k: 0], ids=["too_few", "too_many"])
def test_wrong_fcompute_arity(fcompute):
    A = hcl.placeholder((4, 3), "A")

    def kernel(A):
        return hcl.compute((4, 3), fcompute, "B")

    with pytest.raises(APIError, match=r"compute 'B': fcompute takes \d argument\(s\) but the shape has 2"):
        hcl.create_schedule([A], kernel)


def test_wrong_update_arity():
    A = hcl.placeholder((4, 3), "A")

    def kernel(A):
        hcl.update(A, lambda i: 0, "U")

    with pytest.raises(APIError, match="update 'U': fcompute takes 1 argument"):
        hcl.create_schedule([A], kernel)


@pytest.mark.parametrize("shape", [(4, -1), (0,), (2.5,), ("3",), (True,), "abc"], ids=repr)
def test_bad_placeholder_shape(shape):
    with pytest.raises(APIError, match="shape"):
        hcl.placeholder(shape, "A")


@pytest.mark.parametrize("shape", [(2**63,), (2**64 + 5,), (2**40, 2**40), (2**62, 2)], ids=repr)
def test_shapes_whose_element_count_is_beyond_int64_are_refused(shape):
    # MLIR sizes memrefs in int64: such a shape had been a TypeError from MLIR or an abort inside it
    count = math.prod(shape)
    with pytest.raises(
        APIError, match=re.escape(f"placeholder A: shape {shape!r} has {count} elements, more than 2**63 - 1")
    ):
        hcl.placeholder(shape, "A")
    with pytest.raises(APIError, match=re.escape(f"compute 'B': shape {shape!r} has {count} elements")):
        hcl.create_schedule([hcl.placeholder((4,), "A")], lambda A: hcl.compute(shape, lambda *i: 0, "B"))
    assert hcl.placeholder((2**62, 1), "A").shape == (2**62, 1)  # a count that fits


@pytest.mark.parametrize("shape", [(3, -2), (1.5, 2)], ids=repr)
def test_bad_compute_shape(shape):
    A = hcl.placeholder((4,), "A")

    def kernel(A):
        return hcl.compute(shape, lambda *args: 0, "B")

    with pytest.raises(APIError, match="compute 'B': shape"):
        hcl.create_schedule([A], kernel)


def test_return_outside_a_compute_body():
    A = hcl.placeholder((4,), "A")

    def kernel(A):
        hcl.return_(A[0])

    with pytest.raises(APIError, match="return_ is only valid inside a compute"):
        hcl.create_schedule([A], kernel)


def test_return_outside_any_algorithm():
    with pytest.raises(APIError, match="return_ is only valid inside a compute"):
        hcl.return_(1)


def test_mutate_body_returning_a_value():
    A = hcl.placeholder((4,), "A")

    def kernel(A):
        def body(i):
            return A[i]

        hcl.mutate((4,), body, "M")

    with pytest.raises(APIError, match="mutate's fcompute must not return a value"):
        hcl.create_schedule([A], kernel)


def test_python_if_on_an_expression():
    A = hcl.placeholder((4,), "A")

    def kernel(A):
        def body(i):
            if A[i] > 0:
                return 1
            return 0

        return hcl.compute((4,), body, "B")

    with pytest.raises(APIError, match=r"no Python truth value.*hcl.if_"):
        hcl.create_schedule([A], kernel)


def test_python_and_on_expressions():
    A = hcl.placeholder((4,), "A")

    def kernel(A):
        return hcl.compute((4,), lambda i: hcl.select(A[i] > 0 and A[i] < 3, 1, 0), "B")

    with pytest.raises(APIError, match=r"hcl.and_"):
        hcl.create_schedule([A], kernel)


def test_python_not_on_an_expression():
    A = hcl.placeholder((4,), "A")

    def kernel(A):
        return hcl.compute((4,), lambda i: hcl.select(not A[i], 1, 0), "B")

    with pytest.raises(APIError, match=r"hcl.not_"):
        hcl.create_schedule([A], kernel)


@pytest.mark.parametrize("spec", ["int8x", "floot32", "float16x", "int_8", "complex64", "int0", "int2048"])
def test_unknown_or_unsupported_dtype_string(spec):
    with pytest.raises(DTypeError, match=r"data type|bit width|Float|out of range"):
        hcl.placeholder((2,), "A", dtype=spec)


def test_unknown_dtype_in_compute_and_init():
    A = hcl.placeholder((2,), "A")

    def kernel(A):
        return hcl.compute((2,), lambda i: A[i], "B", dtype="int32q")

    with pytest.raises(DTypeError, match="unknown data type 'int32q'"):
        hcl.create_schedule([A], kernel)
    with pytest.raises(DTypeError, match="unknown data type"):
        hcl.init("foo")


@pytest.mark.parametrize("bits", [0, 2048, 2.0])
def test_int_width_out_of_range(bits):
    with pytest.raises(DTypeError, match="Int"):
        hcl.Int(bits)


def test_float_width_unsupported():
    with pytest.raises(DTypeError, match=r"Float\(16\)"):
        hcl.Float(16)


def test_bitwise_on_float_is_a_dtype_error():
    A = hcl.placeholder((2,), "A", dtype=hcl.Float(32))

    def kernel(A):
        return hcl.compute((2,), lambda i: A[i] & 1, "B")

    with pytest.raises(DTypeError, match="bitwise 'and' needs integer operands"):
        hcl.create_schedule([A], kernel)


def test_bit_slice_out_of_range():
    A = hcl.placeholder((2,), "A", dtype=hcl.UInt(8))

    def kernel(A):
        return hcl.compute((2,), lambda i: A[i][4:9], "B")

    with pytest.raises(APIError, match=r"bit slice \[4:9\] is out of range"):
        hcl.create_schedule([A], kernel)


def test_too_many_indices():
    A = hcl.placeholder((2, 2), "A")

    def kernel(A):
        return hcl.compute((2,), lambda i: A[i, 0, 1], "B")

    with pytest.raises(APIError, match="'A' has 2 dimensions, indexed with 3"):
        hcl.create_schedule([A], kernel)


def test_reduce_axis_empty_range():
    with pytest.raises(APIError, match="empty range"):
        hcl.reduce_axis(5, 5)


def test_elif_without_if():
    A = hcl.placeholder((2,), "A")

    def kernel(A):
        with hcl.elif_(A[0] > 0):
            A[0] = 1

    with pytest.raises(APIError, match=r"elif_ must directly follow hcl.if_"):
        hcl.create_schedule([A], kernel)


def test_for_with_zero_step():
    A = hcl.placeholder((2,), "A")

    def kernel(A):
        with hcl.for_(0, 2, step=0) as i:
            A[i] = 0

    with pytest.raises(APIError, match="step must be a non-zero"):
        hcl.create_schedule([A], kernel)


def test_tan_is_an_mlir_limitation():
    A = hcl.placeholder((2,), "A", dtype=hcl.Float(32))

    def kernel(A):
        return hcl.compute((2,), lambda i: hcl.tan(A[i]), "B")

    with pytest.raises(hcl.MLIRLimitationError, match="tan"):
        hcl.create_schedule([A], kernel)


def test_create_schedule_with_non_placeholder_inputs():
    with pytest.raises(APIError, match="placeholder"):
        hcl.create_schedule([np.zeros(3)], lambda A: A)


def test_duplicate_input_names():
    A = hcl.placeholder((2,), "X")
    B = hcl.placeholder((2,), "X")
    with pytest.raises(APIError, match="two inputs are named 'X'"):
        hcl.create_schedule([A, B], lambda A, B: hcl.compute((2,), lambda i: A[i] + B[i], "C"))


def test_unknown_stage_lookup():
    s = add_one_schedule()
    with pytest.raises(APIError, match="no stage 'nope'"):
        s["nope"]


# ---- schedule primitives ---------------------------------------------------------------------


def test_split_needs_exactly_one_of_factor_and_nparts():
    s = add_one_schedule()
    stage = s["B"]
    with pytest.raises(APIError, match="exactly one of factor and nparts"):
        stage.split(stage.axis[0])
    with pytest.raises(APIError, match="exactly one of factor and nparts"):
        stage.split(stage.axis[0], factor=2, nparts=2)
    with pytest.raises(APIError, match="factor must be a positive int"):
        stage.split(stage.axis[0], factor=0)


def test_fuse_of_non_adjacent_loops():
    A = hcl.placeholder((2, 3, 4), "A")
    s = hcl.create_schedule([A], lambda A: hcl.compute((2, 3, 4), lambda i, j, k: A[i, j, k], "B"))
    with pytest.raises(APIError, match="adjacent"):
        s["B"].fuse(0, 2)


def test_loop_of_another_stage():
    A = hcl.placeholder((4,), "A")

    def kernel(A):
        B = hcl.compute((4,), lambda i: A[i], "B")
        return hcl.compute((4,), lambda i: B[i], "C")

    s = hcl.create_schedule([A], kernel)
    with pytest.raises(APIError, match="belongs to stage 'B'"):
        s[kernel.C].pipeline(kernel.B.axis[0])


def test_partition_bad_dim_and_reshape_bad_size():
    A = hcl.placeholder((4, 3), "A")
    s = hcl.create_schedule([A], lambda A: hcl.compute((4, 3), lambda i, j: A[i, j], "B"))
    with pytest.raises(APIError, match="dim 3 out of range"):
        s.partition(A, hcl.Partition.Block, dim=3, factor=2)
    with pytest.raises(APIError, match="has 12 elements, shape"):
        s.reshape(A, (5, 2))


def test_build_unknown_target():
    s = add_one_schedule()
    with pytest.raises(APIError, match="unknown target 'fpga'"):
        hcl.build(s, target="fpga")


def test_lower_of_not_a_schedule():
    with pytest.raises(APIError, match="expected a schedule"):
        hcl.lower("s")


# ---- calling the built function ---------------------------------------------------------------


def test_call_with_wrong_argument_count():
    fn = hcl.build(add_one_schedule())
    with pytest.raises(APIError, match=r"expected 2 arguments \(A, B\), got 1"):
        fn(np.zeros((4, 3), np.int32))
    with pytest.raises(APIError, match="expected 2 arguments"):
        fn(np.zeros((4, 3), np.int32), np.zeros((4, 3), np.int32), np.zeros((4, 3), np.int32))


def test_call_with_wrong_shape_names_the_argument():
    fn = hcl.build(add_one_schedule())
    a = np.zeros((4, 3), np.int32)
    with pytest.raises(APIError, match=r"argument 'B' has shape \(3, 4\), expected \(4, 3\)"):
        fn(a, np.zeros((3, 4), np.int32))
    with pytest.raises(APIError, match="argument 'A' has shape"):
        fn(np.zeros(12, np.int32), a)


def test_call_with_wrong_dtype_names_the_argument():
    fn = hcl.build(add_one_schedule())
    a = np.zeros((4, 3), np.int32)
    with pytest.raises(APIError, match="argument 'A' has numpy dtype float64, expected int32"):
        fn(np.zeros((4, 3)), a)
    with pytest.raises(APIError, match="argument 'B' has dtype uint8, expected int32"):
        fn(a, hcl.asarray(np.zeros((4, 3)), "uint8"))


def test_call_with_non_array_argument():
    fn = hcl.build(add_one_schedule())
    with pytest.raises(APIError, match="argument 'A': expected a numpy array"):
        fn([[0] * 3] * 4, np.zeros((4, 3), np.int32))


def test_failed_call_leaves_outputs_untouched():
    fn = hcl.build(add_one_schedule())
    out = np.full((4, 3), 9, np.int32)
    with pytest.raises(HCLError):
        fn(np.zeros((4, 3), np.int64), out)
    np.testing.assert_array_equal(out, 9)


def test_two_reduction_axes_with_one_name_in_a_stage():
    A = hcl.placeholder((3, 4, 5), "A")
    r = hcl.reduce_axis(0, 4, "k")
    c = hcl.reduce_axis(0, 5, "k")

    def kernel(A):
        return hcl.compute((3,), lambda i: hcl.sum(A[i, r, c], axis=[r, c]), "B")

    with pytest.raises(APIError, match="two different reduction axes are named 'k'"):
        hcl.create_schedule([A], kernel)


def test_module_level_calls_are_dropped_by_init():
    A = hcl.placeholder((2,), "A")
    hcl.compute((2,), lambda i: A[i])  # module-level algorithm, then abandoned
    hcl.init()
    with pytest.raises(APIError, match="received an empty algorithm"):
        hcl.create_schedule([A])


def test_fcompute_not_callable():
    A = hcl.placeholder((2,), "A")
    with pytest.raises(APIError, match="fcompute must be callable"):
        hcl.create_schedule([A], lambda A: hcl.compute((2,), 5, "B"))


def test_fcompute_returns_nothing():
    A = hcl.placeholder((2,), "A")

    def kernel(A):
        def body(i):
            A[i] + 1

        return hcl.compute((2,), body, "B")

    with pytest.raises(APIError, match="compute 'B': fcompute returned nothing"):
        hcl.create_schedule([A], kernel)


def test_fcompute_returns_a_string():
    A = hcl.placeholder((2,), "A")
    with pytest.raises(APIError, match="cannot use str"):
        hcl.create_schedule([A], lambda A: hcl.compute((2,), lambda i: "x", "B"))


def test_algorithm_returns_a_non_tensor():
    A = hcl.placeholder((2,), "A")
    with pytest.raises(APIError, match="returned int, expected tensors"):
        hcl.create_schedule([A], lambda A: 3)


def test_reorder_of_a_reduction_inside_an_expression_is_not_implemented():
    A = hcl.placeholder((3, 4), "A")

    def kernel(A):
        r = hcl.reduce_axis(0, 4, "r")
        return hcl.compute((3,), lambda i: hcl.sum(A[i, r], axis=r) * 2, "B")

    s = hcl.create_schedule([A], kernel)
    s[kernel.B].reorder(kernel.B.axis[1], kernel.B.axis[0])  # the schedule accepts it...
    with pytest.raises(hcl.HCLNotImplementedError, match="'B'"):
        hcl.lower(s)  # ...but only a stage storing exactly one reduction can be built that way


def test_break_is_not_supported():
    A = hcl.placeholder((2,), "A")

    def kernel(A):
        with hcl.for_(0, 2):
            hcl.break_()

    with pytest.raises(APIError, match="break_ is not supported"):
        hcl.create_schedule([A], kernel)


def test_bit_assignment_on_a_float_tensor():
    A = hcl.placeholder((2,), "A", dtype=hcl.Float(32))

    def kernel(A):
        A[0][1] = 1

    with pytest.raises(APIError, match="bit assignment needs an integer tensor"):
        hcl.create_schedule([A], kernel)


def test_python_abs_and_power_build_and_python_conversions_are_clear_errors() -> None:
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((4,), "A")

    def kernel(A):
        B = hcl.compute((4,), lambda i: abs(A[i] - 2), name="B")
        return hcl.compute((4,), lambda i: B[i] ** 2 + 2 ** A[i], name="C")

    f = hcl.build(hcl.create_schedule([A], kernel))
    a, c = hcl.asarray(np.array([0, 1, 5, -3], np.int32)), hcl.asarray(np.zeros(4, np.int32))
    f(a, c)
    assert c.asnumpy().tolist() == [5, 3, 41, 25]  # |a - 2| ** 2 + 2 ** a, 2 ** -3 truncated
    for bad, message in (
        (lambda i: int(A[i]), r"^int\(\) of a DSL expression"),
        (lambda i: round(A[i]), r"^round\(\) of a DSL expression"),
        (lambda i: divmod(A[i], 2)[0], r"^divmod\(\) of a DSL expression"),
        (lambda i: [1, 2, 3, 4][A[i]], r"^a DSL expression used as a Python index"),
    ):
        with pytest.raises(APIError, match=message):
            hcl.create_schedule([A], lambda A, bad=bad: hcl.compute((4,), bad, name="D"))


def test_heterocl_names_hclbuild_lacks_say_so_and_what_to_write() -> None:
    from hclbuild.errors import HCLNotImplementedError

    with pytest.raises(
        HCLNotImplementedError, match=r"^hcl.IO \(HeteroCL's data-movement modes\) is not impl"
    ):
        hcl.IO.Stream
    with pytest.raises(HCLNotImplementedError, match=r"^hcl.assert_ is not implemented"):
        hcl.assert_(True)
    assert not hasattr(hcl, "IO")  # still an AttributeError to hasattr and getattr(..., default)
