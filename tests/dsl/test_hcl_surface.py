"""HeteroCL's API surface: schemes, module aliases, loop nests, host arguments, older imperative
forms (hcl.Stage, nested stages, runtime trip counts) and the bugs of issue #10."""

from __future__ import annotations

import numpy as np
import pytest
from dsl_helpers import loops

import hclbuild as hcl
from hclbuild.errors import APIError

# ---- schemes: downsize / quantize --------------------------------------------------------------


def _two_stage(A):
    B = hcl.compute(A.shape, lambda x: A[x] * 3, "B")
    return hcl.compute(A.shape, lambda x: B[x] + 1, "C")


def test_downsize_retypes_an_intermediate_and_an_output(rng):
    A = hcl.placeholder((8,), "A")
    sm = hcl.create_scheme([A], _two_stage)
    sm.downsize([_two_stage.B, _two_stage.C], hcl.UInt(4))
    s = hcl.create_schedule_from_scheme(sm)
    assert s[_two_stage.C].stmt.output.dtype == hcl.UInt(4)
    a = rng.integers(0, 100, 8, dtype=np.int32)
    c = np.zeros(8, np.uint8)
    hcl.build(s)(a, c)
    np.testing.assert_array_equal(c, ((a * 3) % 16 + 1) % 16)


def test_quantize_stores_fixed_point_with_truncation_toward_minus_infinity(rng):
    hcl.init(hcl.Float())
    A = hcl.placeholder((10,), "A")

    def kernel(A):
        return hcl.compute(A.shape, lambda x: hcl.tanh(A[x]), "B")

    sm = hcl.create_scheme([A], kernel)
    sm.quantize(kernel.B, hcl.Fixed(10, 8))
    s = hcl.create_schedule_from_scheme(sm)
    a = (rng.random(10) * 2 - 1).astype(np.float32)
    out = hcl.asarray(np.zeros(10), dtype=hcl.Fixed(10, 8))
    hcl.build(s)(a, out)
    # AP_TRN (hclbuild's deliberate difference from HeteroCL's round-toward-zero)
    np.testing.assert_array_equal(out.asnumpy(), np.floor(np.tanh(a).astype(np.float64) * 256) / 256)


def test_scheme_checks_the_kind_of_type():
    A = hcl.placeholder((4,), "A")
    sm = hcl.create_scheme(A, _two_stage)
    with pytest.raises(APIError, match="not an integer type"):
        sm.downsize(_two_stage.B, hcl.Fixed(8, 4))
    with pytest.raises(APIError, match="not a fixed-point type"):
        sm.quantize(_two_stage.B, hcl.Int(8))


@pytest.mark.parametrize("inputs", [3, [3], ["A"]], ids=["int", "list of int", "list of str"])
def test_create_scheme_refuses_inputs_that_are_not_placeholders(inputs):
    """Found by mypy (list() of an `object`): a number was a TypeError, a list of numbers an
    AttributeError, each a traceback; now the APIError create_schedule gives for the same input."""
    with pytest.raises(APIError, match=r"create_scheme: inputs must be a list of hcl\.placeholder tensors"):
        hcl.create_scheme(inputs, _two_stage)


def _add_algorithm(A, B):
    @hcl.def_([A.shape, B.shape, ()])
    def add(A, B, x):
        hcl.return_(A[x] + B[x])

    return hcl.compute(A.shape, lambda x: add(A, B, x), "C")


def test_downsize_a_def_function_and_its_parameter_like_heterocls_test_dsl_def(rng):
    """kernel.add is the def_ function (it was "'function' object has no attribute 'add'"): a scheme
    downsizes its return value (kernel.add) or one parameter (kernel.add.A)."""
    hcl.init()
    A, B = hcl.placeholder((10,), "A"), hcl.placeholder((10,), "B")
    sm = hcl.create_scheme([A, B], _add_algorithm)
    sm.downsize([_add_algorithm.add, _add_algorithm.C], hcl.UInt(2))
    f = hcl.build(hcl.create_schedule_from_scheme(sm))
    assert "ap_uint<2> add(" in hcl.build(hcl.create_schedule_from_scheme(sm), target="vhls")
    a, b = rng.integers(0, 100, 10, dtype=np.int32), rng.integers(0, 100, 10, dtype=np.int32)
    out = hcl.asarray(np.zeros(10), hcl.UInt(2))
    f(a, b, out)
    np.testing.assert_array_equal(out.asnumpy(), (a + b) % 4)

    A, B = hcl.placeholder((10,), "A", dtype=hcl.UInt(2)), hcl.placeholder((10,), "B")
    sm = hcl.create_scheme([A, B], _add_algorithm)
    sm.downsize([_add_algorithm.add.A], hcl.UInt(2))
    assert "int32_t add(ap_uint<2> A[10]" in hcl.build(hcl.create_schedule_from_scheme(sm), target="vhls")
    with pytest.raises(AttributeError, match="def_ function 'add' has no parameter 'Z'"):
        _add_algorithm.add.Z


def test_customize_operation_and_report_are_heterocl_names():
    assert hcl.customize is hcl.create_schedule
    assert hcl.operation.compute is hcl.compute and hcl.operation.placeholder is hcl.placeholder
    assert callable(hcl.report.parse_xml)


# ---- loop nests and the module of a schedule ------------------------------------------------------


def test_get_affine_loop_nests_has_heterocls_shape():
    A = hcl.placeholder((8, 6), "A")

    def kernel(A):
        B = hcl.compute((8, 6), lambda i, j: A[i, j] + 1, "B")
        return hcl.compute((8, 6), lambda x, y: B[x, y] * 2, "C")

    s = hcl.create_schedule([A], kernel)
    s[kernel.B].split(kernel.B.axis[1], 3)
    nests = hcl.get_affine_loop_nests(s.top_func)
    assert [[loop["name"] for loop in nest] for nest in nests] == [["i", "j.outer", "j.inner"], ["x", "y"]]
    assert nests[1][0]["body"].name == "affine.for"


def test_device_top_and_device_module_are_heterocls_older_names():
    """HeteroCL's schedule tests read get_affine_loop_nests(s.device_top); both names had been
    AttributeErrors. s.DataflowGraph says it is not implemented (and hasattr() stays False)."""
    A = hcl.placeholder((4, 5), "A")
    s = hcl.create_schedule([A], lambda A: hcl.compute((4, 5), lambda i, j: A[i, j] + 1, "B"))
    s[s.stages["B"]].reorder(1, 0)
    nests = hcl.get_affine_loop_nests(s.device_top)
    assert [[loop["name"] for loop in nest] for nest in nests] == [["j", "i"]]
    assert str(s.device_module) == str(s.module)
    with pytest.raises(
        hcl.HCLNotImplementedError,
        match=r"s.DataflowGraph \(HeteroCL's graph of stages and "
        r"tensors\) is not implemented",
    ):
        s.DataflowGraph
    assert not hasattr(s, "DataflowGraph")


# ---- host arguments ---------------------------------------------------------------------------------


def test_python_number_for_a_zero_dim_placeholder(rng):
    a = hcl.placeholder((), "a")
    A = hcl.placeholder((3, 4), "A")

    def kernel(a, A):
        return hcl.compute(A.shape, lambda x, y: A[x, y] + a, "B")

    f = hcl.build(hcl.create_schedule([a, A], kernel))
    arr = rng.integers(0, 50, (3, 4), dtype=np.int32)
    out = np.zeros((3, 4), np.int32)
    f(10, arr, out)
    np.testing.assert_array_equal(out, arr + 10)
    f(np.int64(-3), arr, out)
    np.testing.assert_array_equal(out, arr - 3)


def test_a_number_for_a_shaped_placeholder_is_still_refused():
    A = hcl.placeholder((1,), "A")
    f = hcl.build(hcl.create_schedule([A], lambda A: hcl.compute((1,), lambda i: A[i], "B")))
    with pytest.raises(APIError, match="expected a numpy array"):
        f(3, np.zeros(1, np.int32))


def test_same_width_other_signedness_is_reinterpreted_in_place():
    A = hcl.placeholder((4,), "A", hcl.UInt(32))

    def kernel(A):
        return hcl.compute((4,), lambda i: A[i] + 1, "B", dtype=hcl.UInt(32))

    f = hcl.build(hcl.create_schedule([A], kernel))
    a = np.array([1, 2, 3, 4], np.int32)
    b = np.zeros(4, np.int32)  # the output too: written through a view
    f(a, b)
    np.testing.assert_array_equal(b, [2, 3, 4, 5])
    with pytest.raises(APIError, match="numpy dtype int64"):
        f(np.zeros(4, np.int64), b)


# ---- older and imperative forms ----------------------------------------------------------------------


def test_stage_block_names_an_imperative_stage_with_its_loops(rng):
    A = hcl.placeholder((10,), "A")

    def kernel(A):
        with hcl.Stage("S"), hcl.for_(0, 10, name="i") as i:
            A[i] = A[i] * 2 - 10

    s = hcl.create_schedule([A], kernel)
    stage = kernel.S
    assert stage.i == stage.axis[0]
    _outer, inner = s[stage].split(stage.i, 4)
    s[stage].unroll(inner)
    names = [attrs["hcl.loop_name"] for _, attrs in loops(s)]
    assert names == ['"i.outer"', '"i.inner"']
    a = rng.integers(-9, 9, 10, dtype=np.int32)
    expected = a * 2 - 10
    hcl.build(s)(a)
    np.testing.assert_array_equal(a, expected)


def test_nested_stages_are_attributes_and_schedulable(rng):
    A = hcl.placeholder((4, 6), "A")
    T = hcl.placeholder((4,), "T")

    def kernel(A, T):
        def body(_):
            with hcl.for_(0, 4, name="n") as n:
                T[n] = 0
            part = hcl.compute((4, 6), lambda x, y: A[x, y] * 2, "part")

            def add_row(r):
                with hcl.for_(0, 6, name="d") as d:
                    T[r] += part[r, d]

            hcl.mutate((4,), add_row, "add_row")

        hcl.mutate((2,), body, "main")

    s = hcl.create_schedule([A, T], kernel)
    main = kernel.main
    assert main.add_row is s[main.add_row] and main.n.name == "n" and main.T is T
    s[main].pipeline(main.n)
    s[main.part].unroll(1)
    s[main.add_row].pipeline(0)
    s.partition(main.part, dim=2)
    attrs = {a["hcl.loop_name"].strip('"'): a for _, a in loops(s)}
    assert attrs["n"]["hcl.pipeline_ii"] == "1 : i32" and attrs["y"]["hcl.unroll"] == "0 : i32"
    assert attrs["r"]["hcl.pipeline_ii"] == "1 : i32" and "hcl.partition" not in attrs["r"]
    a = rng.integers(-9, 9, (4, 6), dtype=np.int32)
    t = np.zeros(4, np.int32)
    hcl.build(s)(a, t)
    np.testing.assert_array_equal(t, (a * 2).sum(axis=1))


def test_runtime_trip_count_from_a_zero_dim_placeholder(rng):
    A = hcl.placeholder((16,), "A")
    N = hcl.placeholder((), "N")

    def kernel(A, N):
        def bump(k):
            A[k] = A[k] + 100

        hcl.mutate((N,), bump, "calc")

    s = hcl.create_schedule([A, N], kernel)
    assert s["calc"].axis[0].name == "k"
    (attrs,) = [a for op, a in loops(s) if op == "scf.for"]
    assert attrs["hcl.max_trip"] == "16 : i32"  # k subscripts A's 16 elements
    assert "#pragma HLS loop_tripcount max=16" in hcl.build(s, target="vhls")
    a = rng.integers(0, 9, 16, dtype=np.int32)
    expected = a.copy()
    expected[:5] += 100
    hcl.build(s)(a, 5)
    np.testing.assert_array_equal(a, expected)


def test_for_with_a_runtime_step(rng):
    A = hcl.placeholder((12,), "A")
    S = hcl.placeholder((), "S")

    def kernel(A, S):
        with hcl.for_(1, 12, S) as i:
            A[i] = -1

    s = hcl.create_schedule([A, S], kernel)
    a = np.zeros(12, np.int32)
    hcl.build(s)(a, 4)
    np.testing.assert_array_equal(a, [0 if k % 4 != 1 else -1 for k in range(12)])


def test_scalar_tensors_read_as_values(rng):
    A = hcl.placeholder((6,), "A")

    def kernel(A):
        j = hcl.scalar(5, "j")
        with hcl.while_(j >= 1):
            A[j] = A[j - 1] + j
            j.v -= 1

    s = hcl.create_schedule([A], kernel)
    a = np.arange(6, dtype=np.int32)
    expected = a.copy()
    for k in range(5, 0, -1):
        expected[k] = expected[k - 1] + k
    hcl.build(s)(a)
    np.testing.assert_array_equal(a, expected)


# ---- bugs of issue #10 -------------------------------------------------------------------------------


def test_imperative_reducer_body(rng):
    def step(x, y):
        with hcl.if_(x > 5):
            hcl.return_(y + x)
        with hcl.else_():
            hcl.return_(y - x)

    my_sum = hcl.reducer(0, step)
    A = hcl.placeholder((4, 10), "A")

    def kernel(A):
        r = hcl.reduce_axis(0, 10, "r")
        return hcl.compute((4,), lambda i: my_sum(A[i, r], axis=r), "B")

    s = hcl.create_schedule([A], kernel)
    a = rng.integers(0, 12, (4, 10), dtype=np.int32)
    b = np.zeros(4, np.int32)
    hcl.build(s)(a, b)
    np.testing.assert_array_equal(b, np.where(a > 5, a, -a).sum(axis=1))


def test_repeated_names_count_from_zero_like_heterocl():
    A = hcl.placeholder((2,), "A")

    def kernel(A):
        first = hcl.scalar(0, "tmp")
        second = hcl.scalar(1, "tmp")
        third = hcl.scalar(2, "tmp")
        return hcl.compute((2,), lambda i: A[i] + first.v + second.v + third.v, "B")

    s = hcl.create_schedule([A], kernel)
    assert [n for n in s.stages if n.startswith("tmp")] == ["tmp", "tmp_0", "tmp_1"]


def test_a_stage_named_like_a_placeholder_is_still_its_kernels_attribute(rng):
    """HeteroCL's memory tutorial names its input and its convolution "B": the stage is B_0 (the
    placeholder holds the name), and kernel.B had been missing ("'function' object has no
    attribute 'B'"). A second stage of a taken stage name does not take the first's attribute."""
    A = hcl.placeholder((10, 10), "B")
    F = hcl.placeholder((3, 3), "F")

    def kernel(A, F):
        r, c = hcl.reduce_axis(0, 3), hcl.reduce_axis(0, 3)
        out = hcl.compute((8, 8), lambda y, x: hcl.sum(A[y + r, x + c] * F[r, c], axis=[r, c]), "B")
        hcl.update(out, lambda y, x: out[y, x] + 1, "T")
        hcl.update(out, lambda y, x: out[y, x] * 2, "T")
        return out

    s = hcl.create_schedule([A, F], kernel)
    assert (kernel.B.name, kernel.T.name) == ("B_0", "T")
    LB = s.reuse_at(A, s[kernel.B], kernel.B.axis[0])
    s.reuse_at(LB, s[kernel.B], kernel.B.axis[1])
    a, f = rng.integers(0, 10, (10, 10), dtype=np.int32), rng.integers(0, 10, (3, 3), dtype=np.int32)
    out = np.zeros((8, 8), np.int32)
    hcl.build(s)(a, f, out)
    conv = sum(a[r : r + 8, c : c + 8] * f[r, c] for r in range(3) for c in range(3))
    np.testing.assert_array_equal(out, (conv + 1) * 2)


def test_partition_after_reshape_uses_the_new_shape():
    A = hcl.placeholder((10, 10), "A")

    def kernel(A):
        return hcl.compute((10, 10), lambda i, j: A[i, j] + 1, "B")

    s = hcl.create_schedule([A], kernel)
    s.reshape(kernel.B, (10, 2, 5))
    s.partition(kernel.B, dim=3)
    assert '"complete:3:0"' in str(hcl.lower(s))
    with pytest.raises(APIError, match=r"dim 4 out of range .* \(10, 2, 5\)"):
        s.partition(kernel.B, dim=4)


# ---- hcl.all / hcl.any -------------------------------------------------------------------------


def test_all_and_any_are_the_logical_and_or_of_their_conditions(rng):
    # HeteroCL's hlib pads with hcl.select(hcl.all(*not_zero), ...) and counts with hcl.cast(.., hcl.all(..))
    A = hcl.placeholder((6, 6), "A")

    def kernel(A):
        inside = hcl.compute(
            (6, 6), lambda y, x: hcl.select(hcl.all(y >= 1, y < 5, x >= 1, x < 5), A[y, x], 0), "inside"
        )
        edge = hcl.compute((6, 6), lambda y, x: hcl.cast(hcl.Int(32), hcl.any(y == 0, x == 5)), "edge")
        one = hcl.compute((6,), lambda i: hcl.cast(hcl.Int(32), hcl.all(A[i, i] > 3)), "one")
        return inside, edge, one

    a = rng.integers(0, 9, (6, 6), dtype=np.int32)
    inside, edge, one = (np.zeros((6, 6), np.int32), np.zeros((6, 6), np.int32), np.zeros(6, np.int32))
    hcl.build(hcl.create_schedule([A], kernel))(a, inside, edge, one)
    y, x = np.indices((6, 6))
    np.testing.assert_array_equal(inside, np.where((y >= 1) & (y < 5) & (x >= 1) & (x < 5), a, 0))
    np.testing.assert_array_equal(edge, ((y == 0) | (x == 5)).astype(np.int32))
    np.testing.assert_array_equal(one, (np.diag(a) > 3).astype(np.int32))


def test_all_and_any_of_nothing_are_refused_as_in_heterocl():
    with pytest.raises(APIError, match=r"hcl.all needs at least one condition"):
        hcl.all()
    with pytest.raises(APIError, match=r"hcl.any needs at least one condition"):
        hcl.any()


def test_all_and_any_do_not_replace_the_builtins_of_a_star_import():
    namespace: dict = {}
    exec("from hclbuild import *", namespace)
    assert "all" not in namespace and "any" not in namespace
    assert hcl.all is not all and hcl.any is not any
