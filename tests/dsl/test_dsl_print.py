"""hcl.print: printf in the LLVM run (what the process prints, checked exactly), its IR (a call of
an hcl.print declaration) and its C++ (printf under #ifndef __SYNTHESIS__, arguments cast to what
the format reads); formats that cannot be honoured are errors."""

from __future__ import annotations

import numpy as np
import pytest

import hclbuild as hcl
from hclbuild.errors import APIError


def _kernel(A):
    hcl.print((A[0, 1], A[1, 2] * 0.5), "a=%d b=%.2f\n")
    hcl.print((), "text only\n")
    hcl.print(A)
    hcl.mutate((3,), lambda i: hcl.print((i, hcl.cast(hcl.UInt(40), A[0, i]) << 20), "%u:%llx "), "loop")
    hcl.print(A[1, 0] - 10)
    return hcl.compute((2, 3), lambda i, j: A[i, j] + 1, "B")


def test_print_in_the_llvm_run(capfd):
    A = hcl.placeholder((2, 3), "A")
    f = hcl.build(hcl.create_schedule([A], _kernel))
    out = np.zeros((2, 3), np.int32)
    capfd.readouterr()
    f(np.arange(6, dtype=np.int32).reshape(2, 3), out)
    assert capfd.readouterr().out == (
        "a=1 b=2.50\ntext only\n[[0, 1, 2],\n [3, 4, 5]]\n0:0 1:100000 2:200000 -7 \n"
    )
    np.testing.assert_array_equal(out, np.arange(1, 7).reshape(2, 3))


def test_print_is_a_call_of_a_print_declaration():
    A = hcl.placeholder((2, 3), "A")
    text = str(hcl.lower(hcl.create_schedule([A], _kernel)))
    assert (
        'func.func private @hcl_print_0(i32, f64) attributes {hcl.arg_names = ["v0", "v1"], '
        'hcl.arg_types = ["int32", "float64"], hcl.print = "a=%d b=%.2f\\0A"}' in text
    )
    assert "func.call @hcl_print_0(" in text


def test_print_in_the_cpp_is_for_simulation_only():
    A = hcl.placeholder((2, 3), "A")
    code = hcl.build(hcl.create_schedule([A], _kernel), target="vhls")
    assert "#include <cstdio>" in code
    assert '#ifndef __SYNTHESIS__\n    std::printf("a=%d b=%.2f\\n", (int)A_0_1, (double)v2);\n#endif' in code
    assert 'std::printf("%u:%llx ", (unsigned)' in code and "(unsigned long long)" in code


def test_formats_that_cannot_print_dsl_values():
    A = hcl.placeholder((2,), "A")
    for fmt, message in [
        ("%s\n", "'%s' cannot print"),
        ("%*d", "cannot print"),
        ("%d %d", "reads 2 values, 1 given"),
    ]:
        with pytest.raises(APIError, match=message):
            hcl.create_schedule([A], lambda A, fmt=fmt: hcl.print(A[0], fmt))
    with pytest.raises(APIError, match="a tensor's format prints one element at a time; '%d %d' reads 2"):
        hcl.create_schedule([A], lambda A: hcl.print(A, "%d %d"))


def test_heterocls_print_formats(capfd):
    """No format: each value on its own line after a space; a tensor between brackets like numpy,
    each element with the format given (up to a NUL, where printf stops reading), in order with
    what Python prints around the call."""
    A = hcl.placeholder((2, 2), "A", dtype=hcl.Float())
    B = hcl.placeholder((2,), "B")

    def kernel(A, B):
        hcl.print(5)
        hcl.print((A[0, 0], 7))
        hcl.print(A, "%.1f\0 ignored")
        hcl.print(B)

    f = hcl.build(hcl.create_schedule([A, B], kernel))
    capfd.readouterr()
    print("before", end="\n", flush=False)
    f(np.array([[0.5, 1.25], [2.0, -3.0]], dtype=np.float32), np.array([2, -3], dtype=np.int32))
    print("after")
    assert capfd.readouterr().out == ("before\n5 \n0.500 \n7 \n[[0.5, 1.2],\n [2.0, -3.0]]\n[2, -3]\nafter\n")
