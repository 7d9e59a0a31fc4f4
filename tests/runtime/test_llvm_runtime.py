"""hclbuild.runtime.llvm: IR-contract modules lowered by to_llvm and run through llvmlite, vs numpy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from mlir import ir

import hclbuild.runtime.llvm as runtime_llvm
from hclbuild.compiler.signature import signature_of, top_signature
from hclbuild.compiler.to_llvm import lower_to_llvm_ir
from hclbuild.dsl.array import Array, asarray
from hclbuild.dsl.types import Float, Int, parse_dtype
from hclbuild.errors import APIError, CompileError
from hclbuild.runtime.llvm import JITModule, read_buffer
from hclbuild.schedule.signature import ArgSpec, FunctionSignature


def parse(text: str) -> ir.Module:
    return ir.Module.parse(text, ir.Context())


def compile_top(text: str, **jit_options):
    """Parse, lower and JIT a module; returns (JITModule, callable of the hcl.top function)."""
    module = parse(text)
    jit = JITModule(lower_to_llvm_ir(module), **jit_options)
    return jit, jit.function(top_signature(module))


def elementwise(n: int, inputs: list[tuple[str, str]], outputs: list[tuple[str, str]], body: str) -> str:
    """An hcl.top over n elements: loads %<input>, runs `body`, stores %out_<output> into each output."""

    def memref(dtype_name: str) -> str:
        return f"memref<{n}x{parse_dtype(dtype_name).mlir}>"

    # input buffers are %<name>_buf so that %<name> can be the loaded element
    params = [f"%{name}_buf: {memref(t)}" for name, t in inputs] + [
        f"%{name}: {memref(t)}" for name, t in outputs
    ]
    names = ", ".join(f'"{name}"' for name, _ in inputs + outputs)
    types = ", ".join(f'"{t}"' for _, t in inputs + outputs)
    loads = "\n".join(f"      %{name} = memref.load %{name}_buf[%i] : {memref(t)}" for name, t in inputs)
    stores = "\n".join(f"      memref.store %out_{name}, %{name}[%i] : {memref(t)}" for name, t in outputs)
    return f"""
func.func @top({", ".join(params)})
    attributes {{hcl.top, hcl.arg_names = [{names}], hcl.arg_types = [{types}]}} {{
    affine.for %i = 0 to {n} {{
{loads}
{body}
{stores}
    }} {{hcl.loop_name = "i", hcl.op_name = "S"}}
    return
}}
"""


ADD_F32 = elementwise(
    6, [("A", "float32"), ("B", "float32")], [("C", "float32")], "      %out_C = arith.addf %A, %B : f32"
)


# ---- numbers ---------------------------------------------------------------------------------


def test_elementwise_add_f32() -> None:
    _, add = compile_top(ADD_F32)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(6).astype(np.float32), rng.standard_normal(6).astype(np.float32)
    c = np.zeros(6, np.float32)
    assert add(a, b, c) is None
    np.testing.assert_array_equal(c, a + b)


def test_elementwise_add_f32_with_arrays() -> None:
    _, add = compile_top(ADD_F32)
    a, b, c = (
        asarray(np.arange(6.0), "float32"),
        asarray(np.ones(6), "float32"),
        asarray(np.zeros(6), "float32"),
    )
    add(a, b, c)
    np.testing.assert_array_equal(c.asnumpy(), np.arange(6.0) + 1)


MATMUL = """
func.func @top(%A: memref<16x24xf32>, %B: memref<24x20xf32>, %C: memref<16x20xf32>)
    attributes {hcl.top, hcl.arg_names = ["A", "B", "C"], hcl.arg_types = ["float32", "float32", "float32"]} {
  %acc = memref.alloc() {hcl.name = "acc", hcl.dtype = "float32"} : memref<1xf32>
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 20 {
      memref.store %zero, %acc[%c0] : memref<1xf32>
      affine.for %k = 0 to 24 {
        %a = memref.load %A[%i, %k] : memref<16x24xf32>
        %b = memref.load %B[%k, %j] : memref<24x20xf32>
        %m = arith.mulf %a, %b : f32
        %s = memref.load %acc[%c0] : memref<1xf32>
        %t = arith.addf %s, %m : f32
        memref.store %t, %acc[%c0] : memref<1xf32>
      } {hcl.loop_name = "k"}
      %r = memref.load %acc[%c0] : memref<1xf32>
      memref.store %r, %C[%i, %j] : memref<16x20xf32>
    } {hcl.loop_name = "j"}
  } {hcl.loop_name = "i", hcl.op_name = "C"}
  memref.dealloc %acc : memref<1xf32>
  return
}
"""


def test_matmul_f32() -> None:
    _, matmul = compile_top(MATMUL)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((16, 24)).astype(np.float32)
    b = rng.standard_normal((24, 20)).astype(np.float32)
    c = np.zeros((16, 20), np.float32)
    matmul(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_int32_wraps_around() -> None:
    body = """      %out_S = arith.addi %A, %B : i32
      %out_P = arith.muli %A, %B : i32"""
    _, kernel = compile_top(
        elementwise(4, [("A", "int32"), ("B", "int32")], [("S", "int32"), ("P", "int32")], body)
    )
    a = np.array([2**31 - 1, -(2**31), 65536, -7], np.int32)
    b = np.array([1, -1, 65536, 3], np.int32)
    s, p = np.zeros(4, np.int32), np.zeros(4, np.int32)
    kernel(a, b, s, p)
    np.testing.assert_array_equal(s, [Int(32).wrap_int(int(x) + int(y)) for x, y in zip(a, b)])
    np.testing.assert_array_equal(p, [Int(32).wrap_int(int(x) * int(y)) for x, y in zip(a, b)])
    assert s[0] == -(2**31) and p[2] == 0


def _c_div(x: int, y: int) -> int:
    """C division: truncate toward zero."""
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


def test_signed_and_unsigned_division() -> None:
    body = """      %out_Q = arith.divsi %A, %B : i32
      %out_R = arith.remsi %A, %B : i32
      %out_F = arith.floordivsi %A, %B : i32
      %out_E = arith.ceildivsi %A, %B : i32
      %ua = arith.addi %A, %A : i32
      %out_UQ = arith.divui %UA, %UB : i32
      %out_UR = arith.remui %UA, %UB : i32"""
    outputs = [
        ("Q", "int32"),
        ("R", "int32"),
        ("F", "int32"),
        ("E", "int32"),
        ("UQ", "uint32"),
        ("UR", "uint32"),
    ]
    text = elementwise(6, [("A", "int32"), ("B", "int32"), ("UA", "uint32"), ("UB", "uint32")], outputs, body)
    _, kernel = compile_top(text)
    a = np.array([7, -7, 7, -7, 0, -(2**31) + 1], np.int32)
    b = np.array([2, 2, -2, -2, 5, 3], np.int32)
    ua, ub = a.view(np.uint32).copy(), b.view(np.uint32).copy()
    outs = {name: np.zeros(6, parse_dtype(t).np_storage) for name, t in outputs}
    kernel(a, b, ua, ub, *outs.values())
    pairs = [(int(x), int(y)) for x, y in zip(a, b)]
    np.testing.assert_array_equal(outs["Q"], [_c_div(x, y) for x, y in pairs])
    np.testing.assert_array_equal(outs["R"], [x - _c_div(x, y) * y for x, y in pairs])
    np.testing.assert_array_equal(outs["F"], [x // y for x, y in pairs])
    np.testing.assert_array_equal(outs["E"], [-(-x // y) for x, y in pairs])
    np.testing.assert_array_equal(outs["UQ"], [int(x) // int(y) for x, y in zip(ua, ub)])
    np.testing.assert_array_equal(outs["UR"], [int(x) % int(y) for x, y in zip(ua, ub)])


def test_int12_arithmetic_with_array_storage() -> None:
    body = """      %out_S = arith.addi %A, %B : i12
      %out_P = arith.muli %A, %B : i12
      %c1 = arith.constant 1 : i12
      %out_H = arith.shrsi %A, %c1 : i12
      %out_U = arith.shrui %A, %c1 : i12
      %out_L = arith.cmpi slt, %A, %B : i12"""
    outputs = [("S", "int12"), ("P", "int12"), ("H", "int12"), ("U", "uint12"), ("L", "uint1")]
    _, kernel = compile_top(elementwise(5, [("A", "int12"), ("B", "int12")], outputs, body))
    a_values = [2047, -2048, -5, 100, -1]
    b_values = [1, -1, 3, 41, -1]
    a, b = asarray(a_values, "int12"), asarray(b_values, "int12")
    outs = [asarray(np.zeros(5), t) for _, t in outputs]
    kernel(a, b, *outs)
    int12, uint12 = parse_dtype("int12"), parse_dtype("uint12")
    assert outs[0].asnumpy().tolist() == [int12.wrap_int(x + y) for x, y in zip(a_values, b_values)]
    assert outs[1].asnumpy().tolist() == [int12.wrap_int(x * y) for x, y in zip(a_values, b_values)]
    assert outs[2].asnumpy().tolist() == [x >> 1 for x in a_values]
    assert outs[3].asnumpy().tolist() == [uint12.wrap_int(x) >> 1 for x in a_values]
    assert outs[4].asnumpy().tolist() == [int(x < y) for x, y in zip(a_values, b_values)]
    # storage stays raw bits, zero-extended above bit 12 (what golden files and to_storage expect)
    assert all(0 <= int(v) < 4096 for v in outs[0].storage.view(np.uint16))
    assert outs[0].storage.dtype == np.int16


def test_int12_plain_numpy_holds_numbers() -> None:
    body = "      %out_S = arith.addi %A, %B : i12"
    _, kernel = compile_top(elementwise(3, [("A", "int12"), ("B", "int12")], [("S", "int12")], body))
    a = np.array([-5, 2047, -2048], np.int16)
    b = np.array([2, 1, -1], np.int16)
    s = np.full(3, 1234, np.int16)
    kernel(a, b, s)
    assert s.tolist() == [-3, -2048, 2047]
    assert a.tolist() == [-5, 2047, -2048]  # inputs read back as the same numbers


def test_int1_logic() -> None:
    body = """      %out_X = arith.xori %A, %B : i1
      %out_N = arith.andi %A, %B : i1
      %out_M = arith.extui %A : i1 to i8"""
    outputs = [("X", "uint1"), ("N", "int1"), ("M", "uint8")]
    _, kernel = compile_top(elementwise(4, [("A", "uint1"), ("B", "uint1")], outputs, body))
    a, b = np.array([0, 1, 0, 1], bool), asarray([0, 0, 1, 1], "uint1")
    x, n, m = asarray(np.zeros(4), "uint1"), asarray(np.zeros(4), "int1"), np.zeros(4, np.uint8)
    kernel(a, b, x, n, m)
    assert x.asnumpy().tolist() == [0, 1, 1, 0]
    assert n.asnumpy().tolist() == [0, 0, 0, -1]  # Int(1): the one set bit is the sign
    assert m.tolist() == [0, 1, 0, 1]


def test_int128_arithmetic_with_array_storage() -> None:
    body = """      %out_P = arith.muli %A, %B : i128
      %out_Q = arith.divsi %A, %B : i128"""
    outputs = [("P", "int128"), ("Q", "int128")]
    _, kernel = compile_top(elementwise(3, [("A", "int128"), ("B", "int128")], outputs, body))
    a_values = [2**100 + 12345, -(2**120), 3 * 2**64 + 1]
    b_values = [2**27 - 1, 2**64 + 7, -3]
    a, b = (
        asarray(np.array(a_values, dtype=object), "int128"),
        asarray(np.array(b_values, dtype=object), "int128"),
    )
    p, q = asarray(np.zeros(3), "int128"), asarray(np.zeros(3), "int128")
    kernel(a, b, p, q)
    int128 = parse_dtype("int128")
    assert p.asnumpy().tolist() == [int128.wrap_int(x * y) for x, y in zip(a_values, b_values)]
    assert q.asnumpy().tolist() == [_c_div(x, y) for x, y in zip(a_values, b_values)]


def test_misaligned_int128_views_are_handled() -> None:
    body = "      %out_S = arith.addi %A, %A : i128"
    _, kernel = compile_top(elementwise(3, [("A", "int128")], [("S", "int128")], body))
    int128 = parse_dtype("int128")

    def misaligned(values: list[int]) -> Array:
        raw = np.zeros(16 * len(values) + 8, np.uint8)
        storage = raw[8 : 8 + 16 * len(values)].view(int128.np_storage)
        storage[...] = asarray(np.array(values, dtype=object), int128).storage
        return Array(storage, int128)

    a, s = misaligned([1, -(2**100), 2**126 - 1]), misaligned([0, 0, 0])
    assert a.storage.ctypes.data % 16 == 8
    kernel(a, s)
    assert s.asnumpy().tolist() == [2, -(2**101), int128.wrap_int(2**127 - 2)]


def test_int100_odd_wide_width() -> None:
    body = "      %out_D = arith.subi %A, %B : i100"
    _, kernel = compile_top(elementwise(2, [("A", "int100"), ("B", "int100")], [("D", "int100")], body))
    a, b = (
        asarray(np.array([0, 2**98], dtype=object), "int100"),
        asarray(np.array([1, -(2**98)], dtype=object), "int100"),
    )
    d = asarray(np.zeros(2), "int100")
    kernel(a, b, d)
    assert d.asnumpy().tolist() == [-1, -(2**99)]  # the second wraps from 2**99
    high_words = d.storage.view(np.uint64).reshape(2, 2)[:, 1]
    assert all(int(h) < 2**36 for h in high_words)  # zero-extended above bit 100


def test_fixed_point_raw_bit_add_and_mul() -> None:
    body = """      %out_S = arith.addi %A, %B : i16
      %wa = arith.extsi %A : i16 to i32
      %wb = arith.extsi %B : i16 to i32
      %wp = arith.muli %wa, %wb : i32
      %c8 = arith.constant 8 : i32
      %ws = arith.shrsi %wp, %c8 : i32
      %out_P = arith.trunci %ws : i32 to i16"""
    outputs = [("S", "fixed16_8"), ("P", "fixed16_8")]
    _, kernel = compile_top(elementwise(4, [("A", "fixed16_8"), ("B", "fixed16_8")], outputs, body))
    a_values = np.array([1.5, -2.25, 127.5, 0.00390625])
    b_values = np.array([2.75, 0.5, 1.0, -3.0])
    a, b = asarray(a_values, "fixed16_8"), asarray(b_values, "fixed16_8")
    s, p = asarray(np.zeros(4), "fixed16_8"), asarray(np.zeros(4), "fixed16_8")
    kernel(a, b, s, p)
    np.testing.assert_array_equal(s.asnumpy(), [4.25, -1.75, -127.5, -2.99609375])  # 127.5 + 1 wraps
    np.testing.assert_array_equal(p.asnumpy(), np.floor(a_values * b_values * 256) / 256)


def test_math_ops() -> None:
    body = """      %out_E = math.exp %X : f32
      %ax = math.absf %X : f32
      %out_Q = math.sqrt %ax : f32
      %out_T = math.tanh %X : f32
      %out_W = math.powf %ax, %Y : f32
      %out_F = math.absf %Y : f32
      %out_I = math.absi %N : i32"""
    outputs = [
        ("E", "float32"),
        ("Q", "float32"),
        ("T", "float32"),
        ("W", "float32"),
        ("F", "float32"),
        ("I", "int32"),
    ]
    inputs = [("X", "float32"), ("Y", "float32"), ("N", "int32")]
    _, kernel = compile_top(elementwise(5, inputs, outputs, body))
    x = np.array([-2.0, -0.5, 0.0, 0.75, 3.0], np.float32)
    y = np.array([2.0, -1.5, 3.0, 0.5, -0.25], np.float32)
    n = np.array([-(2**31) + 1, -3, 0, 5, -1], np.int32)
    outs = {name: np.zeros(5, parse_dtype(t).np_storage) for name, t in outputs}
    kernel(x, y, n, *outs.values())
    np.testing.assert_allclose(outs["E"], np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(outs["Q"], np.sqrt(np.abs(x)), rtol=1e-6)
    np.testing.assert_allclose(outs["T"], np.tanh(x), rtol=1e-6, atol=1e-7)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(outs["W"], np.power(np.abs(x), y), rtol=1e-6)
    np.testing.assert_array_equal(outs["F"], np.abs(y))
    np.testing.assert_array_equal(outs["I"], np.abs(n))


DEF_CALL = """
func.func private @square_plus(%x: i32, %y: i32) -> i32
    attributes {hcl.def, hcl.arg_names = ["x", "y"], hcl.arg_types = ["int32", "int32"],
                hcl.ret_type = "int32"} {
  %sq = arith.muli %x, %x : i32
  %r = arith.addi %sq, %y : i32
  return %r : i32
}
func.func @top(%A: memref<4xi32>, %C: memref<4xi32>)
    attributes {hcl.top, hcl.arg_names = ["A", "C"], hcl.arg_types = ["int32", "int32"]} {
  %c3 = arith.constant 3 : i32
  affine.for %i = 0 to 4 {
    %a = memref.load %A[%i] : memref<4xi32>
    %v = func.call @square_plus(%a, %c3) : (i32, i32) -> i32
    memref.store %v, %C[%i] : memref<4xi32>
  } {hcl.loop_name = "i", hcl.op_name = "C"}
  return
}
"""


def test_private_scalar_function_called_from_top() -> None:
    jit, top = compile_top(DEF_CALL)
    a, c = np.array([1, -2, 3, 40000], np.int32), np.zeros(4, np.int32)
    top(a, c)
    np.testing.assert_array_equal(c, [Int(32).wrap_int(int(v) * int(v) + 3) for v in a])
    assert jit.function_names == ["top"]  # private functions get no C entry point


SCALAR_RESULTS = """
func.func @total(%A: memref<5xi32>, %bias: i33) -> i64
    attributes {hcl.arg_names = ["A", "bias"], hcl.arg_types = ["int32", "int33"], hcl.ret_type = "int64"} {
  %acc = memref.alloc() {hcl.name = "acc", hcl.dtype = "int64"} : memref<1xi64>
  %c0 = arith.constant 0 : index
  %b = arith.extsi %bias : i33 to i64
  memref.store %b, %acc[%c0] : memref<1xi64>
  affine.for %i = 0 to 5 {
    %a = memref.load %A[%i] : memref<5xi32>
    %w = arith.extsi %a : i32 to i64
    %s = memref.load %acc[%c0] : memref<1xi64>
    %t = arith.addi %s, %w : i64
    memref.store %t, %acc[%c0] : memref<1xi64>
  } {hcl.loop_name = "i", hcl.op_name = "total"}
  %r = memref.load %acc[%c0] : memref<1xi64>
  return %r : i64
}
func.func @wide(%x: i128, %y: i128) -> i128
    attributes {hcl.arg_names = ["x", "y"], hcl.arg_types = ["int128", "int128"], hcl.ret_type = "int128"} {
  %p = arith.muli %x, %y : i128
  return %p : i128
}
func.func @scale(%x: f32, %k: i12) -> f64
    attributes {hcl.arg_names = ["x", "k"], hcl.arg_types = ["float32", "int12"], hcl.ret_type = "float64"} {
  %xd = arith.extf %x : f32 to f64
  %kd = arith.sitofp %k : i12 to f64
  %r = arith.mulf %xd, %kd : f64
  return %r : f64
}
func.func @half(%x: i16) -> i16
    attributes {hcl.arg_names = ["x"], hcl.arg_types = ["fixed16_8"], hcl.ret_type = "fixed16_8"} {
  %c1 = arith.constant 1 : i16
  %r = arith.shrsi %x, %c1 : i16
  return %r : i16
}
"""


def test_public_functions_return_scalars() -> None:
    module = parse(SCALAR_RESULTS)
    jit = JITModule(lower_to_llvm_ir(module))
    functions = {op.attributes["sym_name"].value: op for op in module.body.operations}
    total = jit.function(signature_of(functions["total"]))
    assert total(np.array([1, 2, 3, 4, 2**31 - 1], np.int32), -(2**32)) == 10 + 2**31 - 1 - 2**32
    wide = jit.function(signature_of(functions["wide"]))
    assert wide(2**70 + 3, -(2**40)) == -(2**110) - 3 * 2**40
    scale = jit.function(signature_of(functions["scale"]))
    assert scale(1.5, -7) == -10.5
    half = jit.function(signature_of(functions["half"]))
    assert half(-3.5) == -1.75  # fixed-point scalars go in and come out as values


# ---- argument checking ------------------------------------------------------------------------


@pytest.fixture
def add_f32():
    return compile_top(ADD_F32)[1]


def _good_args() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.ones(6, np.float32), np.ones(6, np.float32), np.full(6, -1.0, np.float32)


def test_wrong_argument_count_raises(add_f32) -> None:
    a, b, _ = _good_args()
    with pytest.raises(APIError, match=r"top: expected 3 arguments \(A, B, C\), got 2"):
        add_f32(a, b)


def test_shape_mismatch_names_the_argument(add_f32) -> None:
    a, _, c = _good_args()
    with pytest.raises(APIError, match=r"argument 'B' has shape \(5,\), expected \(6,\)"):
        add_f32(a, np.ones(5, np.float32), c)
    with pytest.raises(APIError, match="argument 'B' has shape"):
        add_f32(a, np.ones((6, 1), np.float32), c)
    assert (c == -1).all()  # nothing ran


def test_dtype_mismatch_names_the_argument(add_f32) -> None:
    a, b, c = _good_args()
    with pytest.raises(APIError, match="argument 'B' has numpy dtype float64, expected float32"):
        add_f32(a, b.astype(np.float64), c)
    with pytest.raises(APIError, match="argument 'A' has dtype int32, expected float32"):
        add_f32(asarray([1, 2, 3, 4, 5, 6], "int32"), b, c)
    with pytest.raises(APIError, match="argument 'C': expected a numpy array"):
        add_f32(a, b, [0.0] * 6)
    assert (c == -1).all()


def test_non_contiguous_names_the_argument(add_f32) -> None:
    a, b, _ = _good_args()
    strided = np.zeros(12, np.float32)[::2]
    with pytest.raises(APIError, match="argument 'C' is not C-contiguous"):
        add_f32(a, b, strided)
    with pytest.raises(APIError, match="argument 'A' is read-only"):
        readonly = a.copy()
        readonly.flags.writeable = False
        add_f32(readonly, b, strided)
    assert (strided == 0).all()


def test_fixed_point_needs_an_array() -> None:
    body = "      %out_S = arith.addi %A, %A : i16"
    _, kernel = compile_top(elementwise(2, [("A", "fixed16_8")], [("S", "fixed16_8")], body))
    with pytest.raises(APIError, match=r"argument 'A' is fixed16_8: pass hcl.asarray"):
        kernel(np.zeros(2, np.int16), asarray(np.zeros(2), "fixed16_8"))
    with pytest.raises(APIError, match="argument 'S' has dtype fixed16_4, expected fixed16_8"):
        kernel(asarray(np.zeros(2), "fixed16_8"), asarray(np.zeros(2), "fixed16_4"))


def test_bad_scalar_names_the_argument() -> None:
    module = parse(SCALAR_RESULTS)
    jit = JITModule(lower_to_llvm_ir(module))
    total = jit.function(signature_of(module.body.operations[0]))
    a = np.zeros(5, np.int32)
    with pytest.raises(APIError, match="argument 'bias': expected a int33 number, got str"):
        total(a, "3")
    with pytest.raises(APIError, match=r"argument 'bias': 0.5 is not an integer"):
        total(a, 0.5)


def test_signature_must_match_compiled_function(add_f32) -> None:
    jit = JITModule(lower_to_llvm_ir(parse(ADD_F32)))
    f32 = Float(32)
    with pytest.raises(CompileError, match="the signature has 2 arguments, the compiled function 3"):
        jit.function(FunctionSignature("top", [ArgSpec("A", f32, (6,)), ArgSpec("B", f32, (6,))]))
    with pytest.raises(APIError, match="no public function 'nope'"):
        jit.function(FunctionSignature("nope", []))


def test_invalid_llvm_ir_raises_compile_error() -> None:
    with pytest.raises(CompileError, match="LLVM IR does not parse or verify"):
        JITModule("define i32 @f() {\n  ret i64 0\n}\n")


def test_unresolved_symbol_raises_compile_error() -> None:
    text = "declare i32 @hcl_no_such_symbol(i32)\ndefine i32 @_mlir_ciface_f(i32 %x) {\n"
    text += "  %r = call i32 @hcl_no_such_symbol(i32 %x)\n  ret i32 %r\n}\n"
    with pytest.raises(CompileError, match="unresolved external symbols: hcl_no_such_symbol"):
        JITModule(text)


def test_same_ir_is_compiled_once() -> None:
    text = lower_to_llvm_ir(parse(ADD_F32))
    assert JITModule(text)._compiled is JITModule(text)._compiled
    assert JITModule(text, opt_level=0)._compiled is not JITModule(text)._compiled


# ---- a cached .ll without MLIR -----------------------------------------------------------------


def test_ll_file_runs_in_a_process_without_mlir(tmp_path: Path) -> None:
    module = parse(ADD_F32)
    (tmp_path / "top.ll").write_text(lower_to_llvm_ir(module))
    (tmp_path / "top.json").write_text(json.dumps(top_signature(module).to_json()))
    script = tmp_path / "run.py"
    script.write_text(
        """
import json, sys
import numpy as np
from hclbuild.runtime.llvm import JITModule
from hclbuild.schedule.signature import FunctionSignature

signature = FunctionSignature.from_json(open(sys.argv[2]).read())
add = JITModule(open(sys.argv[1]).read()).function(signature)
a, b, c = np.arange(6, dtype=np.float32), np.full(6, 0.5, np.float32), np.zeros(6, np.float32)
add(a, b, c)
assert np.array_equal(c, a + b), c
assert not [name for name in sys.modules if name == "mlir" or name.startswith("mlir.")]
print("ran", c.sum())
"""
    )
    package_root = str(Path(runtime_llvm.__file__).resolve().parents[2])
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))
    )
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "top.ll"), str(tmp_path / "top.json")],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ran 18.0"


# ---- probes ---------------------------------------------------------------------------------------

PROBED = """
func.func private @hcl_probe(i64, i64, i64, i64)
func.func private @Stage_C(%A: memref<4xi32>, %C: memref<4xi32>)
    attributes {hcl.outlined, hcl.stages = ["C"], hcl.arg_names = ["A", "C"],
                hcl.arg_types = ["int32", "int32"]} {
  affine.for %i = 0 to 4 {
    %a = memref.load %A[%i] : memref<4xi32>
    %c = memref.load %C[%i] : memref<4xi32>
    %m = arith.muli %a, %a : i32
    %s = arith.addi %m, %c : i32
    memref.store %s, %C[%i] : memref<4xi32>
  } {hcl.loop_name = "i", hcl.op_name = "C"}
  return
}
func.func @top(%A: memref<4xi32>, %C: memref<4xi32>)
    attributes {hcl.top, hcl.arg_names = ["A", "C"], hcl.arg_types = ["int32", "int32"]} {
  %site = arith.constant 7 : i64
  %before = arith.constant 0 : i64
  %after = arith.constant 1 : i64
  %arg1 = arith.constant 1 : i64
  %p = memref.extract_aligned_pointer_as_index %C : memref<4xi32> -> index
  %pi = arith.index_cast %p : index to i64
  func.call @hcl_probe(%site, %before, %arg1, %pi) : (i64, i64, i64, i64) -> ()
  func.call @Stage_C(%A, %C) : (memref<4xi32>, memref<4xi32>) -> ()
  func.call @hcl_probe(%site, %after, %arg1, %pi) : (i64, i64, i64, i64) -> ()
  return
}
"""


def test_probe_records_buffers_around_a_call() -> None:
    records: list[tuple[int, int, int, list[int]]] = []

    def handler(site: int, phase: int, argidx: int, ptr: int) -> None:
        records.append((site, phase, argidx, read_buffer(ptr, Int(32), (4,)).tolist()))

    jit, top = compile_top(PROBED, probe=handler)
    assert jit.has_probe
    a, c = np.array([1, 2, 3, -4], np.int32), np.array([10, 20, 30, 40], np.int32)
    top(a, c)
    assert records == [(7, 0, 1, [10, 20, 30, 40]), (7, 1, 1, [11, 24, 39, 56])]
    assert c.tolist() == [11, 24, 39, 56]


def test_probing_context_and_handler_errors() -> None:
    jit, top = compile_top(PROBED)
    a, c = np.ones(4, np.int32), np.zeros(4, np.int32)
    top(a, c)  # no handler: probes are no-ops
    seen: list[int] = []
    with jit.probing(lambda site, phase, argidx, ptr: seen.append(phase)):
        top(a, c)
    top(a, c)
    assert seen == [0, 1]

    def failing(site: int, phase: int, argidx: int, ptr: int) -> None:
        raise ValueError("probe failed")

    with jit.probing(failing), pytest.raises(ValueError, match="probe failed"):
        top(a, c)
    assert c.tolist() == [4, 4, 4, 4]  # the call itself completed


# stream probes (phases 4 write, 5 read) around an ordinary one (phase 0): element k at address 1000
STREAM_PROBED = """
func.func private @hcl_probe(i64, i64, i64, i64)
func.func @top(%A: memref<4xi32>) attributes {hcl.top, hcl.arg_names = ["A"], hcl.arg_types = ["int32"]} {
  %check = arith.constant 3 : i64
  %write = arith.constant 4 : i64
  %read = arith.constant 5 : i64
  %before = arith.constant 0 : i64
  %address = arith.constant 1000 : i64
  %zero = arith.constant 0 : i64
  affine.for %k = 0 to 3 {
    %e = arith.index_cast %k : index to i64
    func.call @hcl_probe(%check, %write, %e, %address) : (i64, i64, i64, i64) -> ()
    func.call @hcl_probe(%check, %before, %zero, %zero) : (i64, i64, i64, i64) -> ()
    func.call @hcl_probe(%check, %read, %e, %address) : (i64, i64, i64, i64) -> ()
  }
  return
}
"""


def test_stream_probes_come_after_the_call_whole_or_one_by_one() -> None:
    jit, top = compile_top(STREAM_PROBED)
    a = np.zeros(4, np.int32)
    seen: list[tuple[int, int, int, int]] = []
    with jit.probing(lambda *event: seen.append(event)):
        top(a)
    # the other phases at once, the stream's from the native record once the call returns, in order
    assert seen == [(3, 0, 0, 0)] * 3 + [
        (3, 4, 0, 1000),
        (3, 5, 0, 1000),
        (3, 4, 1, 1000),
        (3, 5, 1, 1000),
        (3, 4, 2, 1000),
        (3, 5, 2, 1000),
    ]

    def handler(*event: int) -> None:
        assert event[1] < 4, f"a stream event came one by one: {event}"

    taken: list[list[list[int]]] = []
    handler.stream_events = lambda events: taken.append(events.tolist())  # type: ignore[attr-defined]
    with jit.probing(handler):
        top(a)
        top(a)  # each call hands over its own events: the record is emptied
    assert taken == [[[3, 4, k // 2, 1000] if k % 2 == 0 else [3, 5, k // 2, 1000] for k in range(6)]] * 2

    def failing(events: np.ndarray) -> None:
        raise ValueError("stream events refused")

    handler.stream_events = failing  # type: ignore[attr-defined]
    with jit.probing(handler), pytest.raises(ValueError, match="stream events refused"):
        top(a)


def test_stream_events_past_the_record_limit_fail_the_run_in_one_line(monkeypatch) -> None:
    from hclbuild.errors import CsimError
    from hclbuild.runtime.stream_events import recorder_ir

    # a record of 5 events; the call makes 6 (3 writes, 3 reads). The address differs from
    # STREAM_PROBED's so that this IR is compiled anew, with the small record
    monkeypatch.setattr(runtime_llvm, "RECORDER_IR", recorder_ir(5))
    jit, top = compile_top(STREAM_PROBED.replace("1000", "2000"))
    a = np.zeros(4, np.int32)
    with jit.probing(lambda *event: None), pytest.raises(CsimError) as raised:
        top(a)
    assert str(raised.value) == (
        "the reference run made more than 5 stream reads and writes (or memory ran out "
        "recording them): a stream is read once per value written"
    )
    with jit.probing(lambda *event: None), pytest.raises(CsimError):
        top(a)  # the failed call's record is emptied, so this one fails for its own 6 events
    # exactly at the limit: every event is kept, in order
    monkeypatch.setattr(runtime_llvm, "RECORDER_IR", recorder_ir(6))
    jit, top = compile_top(STREAM_PROBED.replace("1000", "3000"))
    seen: list[tuple[int, ...]] = []
    with jit.probing(lambda *event: seen.append(event)):
        top(a)
    assert seen[3:] == [
        (3, 4, 0, 3000),
        (3, 5, 0, 3000),
        (3, 4, 1, 3000),
        (3, 5, 1, 3000),
        (3, 4, 2, 3000),
        (3, 5, 2, 3000),
    ]


def test_read_buffer_of_wide_and_odd_types() -> None:
    array = asarray(np.array([-1, 2**90], dtype=object), "int128")
    copied = read_buffer(array.storage.ctypes.data, array.dtype, (2,))
    assert Array(copied, array.dtype).asnumpy().tolist() == [-1, 2**90]
    odd = asarray([-3, 5, 7, -2048], "int12")
    assert Array(read_buffer(odd.storage.ctypes.data, odd.dtype, (2, 2)), odd.dtype).asnumpy().tolist() == [
        [-3, 5],
        [7, -2048],
    ]
