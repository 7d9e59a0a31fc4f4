"""hclbuild.compiler.to_llvm and hclbuild.compiler.signature: lowering, diagnostics, op coverage."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from mlir import ir

from hclbuild.compiler.signature import signature_of, top_signature
from hclbuild.compiler.to_llvm import lower_to_llvm_ir
from hclbuild.dsl.array import asarray
from hclbuild.dsl.types import Fixed, Float, Int, UInt, parse_dtype
from hclbuild.errors import CompileError
from hclbuild.runtime.llvm import JITModule
from hclbuild.schedule.signature import ArgSpec, FunctionSignature


def parse(text: str) -> ir.Module:
    return ir.Module.parse(text, ir.Context())


def run_top(text: str, *args, opt_level: int = 2):
    module = parse(text)
    return JITModule(lower_to_llvm_ir(module, opt_level=opt_level)).function(top_signature(module))(*args)


SCALE = """
func.func @top(%A: memref<2x3xf32>, %B: memref<2x3xf32>)
    attributes {hcl.top, hcl.dataflow, hcl.arg_names = ["A", "B"], hcl.arg_types = ["float32", "float32"],
                hcl.arg_partitions = [["complete:1:0"], []]} {
  %two = arith.constant 2.0 : f32
  affine.for %i = 0 to 2 {
    affine.for %j = 0 to 3 {
      %a = memref.load %A[%i, %j] : memref<2x3xf32>
      %b = arith.mulf %a, %two : f32
      memref.store %b, %B[%i, %j] : memref<2x3xf32>
    } {hcl.loop_name = "j", hcl.pipeline_ii = 1 : i32}
  } {hcl.loop_name = "i", hcl.op_name = "B", hcl.unroll = 0 : i32}
  return
}
"""


def test_lowering_leaves_the_module_unchanged() -> None:
    module = parse(SCALE)
    before = str(module)
    text = lower_to_llvm_ir(module)
    assert str(module) == before
    assert "define void @_mlir_ciface_top(ptr" in text
    assert "hcl." not in text and "loop_name" not in text and "dataflow" not in text
    a, b = np.arange(6, dtype=np.float32).reshape(2, 3), np.zeros((2, 3), np.float32)
    run_top(SCALE, a, b)
    np.testing.assert_array_equal(b, 2 * a)


def test_in_place_lowering_gives_the_same_llvm_ir_and_consumes_the_module() -> None:
    copied = lower_to_llvm_ir(parse(SCALE), run_once=True)
    module = parse(SCALE)
    assert lower_to_llvm_ir(module, run_once=True, in_place=True) == copied
    assert "llvm.func @top" in str(module) and "affine.for" not in str(module)
    with pytest.raises(CompileError, match=r"in_place lowering needs an ir.Module"):
        lower_to_llvm_ir(parse(SCALE).operation, in_place=True)


@pytest.mark.parametrize("opt_level", [0, 3])
def test_opt_levels_agree(opt_level: int) -> None:
    a, b = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3), np.zeros((2, 3), np.float32)
    run_top(SCALE, a, b, opt_level=opt_level)
    np.testing.assert_array_equal(b, 2 * a)


def test_bad_opt_level() -> None:
    with pytest.raises(CompileError, match=r"opt_level must be 0..3"):
        lower_to_llvm_ir(parse(SCALE), opt_level=5)


def test_verification_failure_raises_compile_error() -> None:
    module = parse(SCALE)
    body = module.body.operations[0].regions[0].blocks[0]
    list(body.operations)[-1].operation.erase()  # the func.return
    with pytest.raises(CompileError) as caught:
        lower_to_llvm_ir(module)
    first_line = str(caught.value).splitlines()[0]
    assert first_line.startswith("to_llvm: the module does not verify:")
    assert "block with no terminator" in first_line


def test_unlowerable_op_raises_compile_error() -> None:
    module = parse(
        """
func.func @top(%A: memref<4xf32>) attributes {hcl.top, hcl.arg_names = ["A"], hcl.arg_types = ["float32"]} {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%A : memref<4xf32>)
  return
}"""
    )
    with pytest.raises(CompileError, match=r"linalg.fill at .* has no LLVM lowering"):
        lower_to_llvm_ir(module)


INT_OPS = """
func.func @top(%A: memref<6xi33>, %B: memref<6xi33>, %F: memref<6xi33>, %E: memref<6xi33>,
               %U: memref<6xi33>, %X: memref<6xi33>, %N: memref<6xi33>, %XU: memref<6xi33>,
               %NU: memref<6xi33>, %ABS: memref<6xi33>, %POW: memref<6xi33>)
    attributes {hcl.top, hcl.arg_names = ["A", "B", "F", "E", "U", "X", "N", "XU", "NU", "ABS", "POW"],
                hcl.arg_types = ["int33", "int33", "int33", "int33", "uint33", "int33", "int33",
                                 "uint33", "uint33", "int33", "int33"]} {
  affine.for %i = 0 to 6 {
    %a = memref.load %A[%i] : memref<6xi33>
    %b = memref.load %B[%i] : memref<6xi33>
    %f = arith.floordivsi %a, %b : i33
    memref.store %f, %F[%i] : memref<6xi33>
    %e = arith.ceildivsi %a, %b : i33
    memref.store %e, %E[%i] : memref<6xi33>
    %u = arith.ceildivui %a, %b : i33
    memref.store %u, %U[%i] : memref<6xi33>
    %x = arith.maxsi %a, %b : i33
    memref.store %x, %X[%i] : memref<6xi33>
    %n = arith.minsi %a, %b : i33
    memref.store %n, %N[%i] : memref<6xi33>
    %xu = arith.maxui %a, %b : i33
    memref.store %xu, %XU[%i] : memref<6xi33>
    %nu = arith.minui %a, %b : i33
    memref.store %nu, %NU[%i] : memref<6xi33>
    %abs = math.absi %a : i33
    memref.store %abs, %ABS[%i] : memref<6xi33>
    %c3 = arith.constant 3 : i33
    %pow = math.ipowi %b, %c3 : i33
    memref.store %pow, %POW[%i] : memref<6xi33>
  } {hcl.loop_name = "i", hcl.op_name = "S"}
  return
}
"""


def test_integer_ops_at_odd_width() -> None:
    module = parse(INT_OPS)
    signature = top_signature(module)
    a_values = [7, -7, 7, -7, -(2**32), 2**32 - 1]
    b_values = [2, 2, -2, -2, 3, -5]
    args = [asarray(a_values, "int33"), asarray(b_values, "int33")]
    args += [asarray(np.zeros(6), spec.dtype) for spec in signature.args[2:]]
    JITModule(lower_to_llvm_ir(module)).function(signature)(*args)
    out = {spec.name: arr.asnumpy().tolist() for spec, arr in zip(signature.args, args)}
    int33, uint33 = Int(33), UInt(33)
    pairs = list(zip(a_values, b_values))
    unsigned = [(uint33.wrap_int(a), uint33.wrap_int(b)) for a, b in pairs]
    assert out["F"] == [a // b for a, b in pairs]
    assert out["E"] == [-(-a // b) for a, b in pairs]
    assert out["U"] == [-(-a // b) for a, b in unsigned]
    assert out["X"] == [max(a, b) for a, b in pairs]
    assert out["N"] == [min(a, b) for a, b in pairs]
    assert out["XU"] == [max(a, b) for a, b in unsigned]
    assert out["NU"] == [min(a, b) for a, b in unsigned]
    assert out["ABS"] == [int33.wrap_int(abs(a)) for a in a_values]
    assert out["POW"] == [int33.wrap_int(b**3) for b in b_values]


SUB_BYTE = """
func.func @top(%A: memref<4xi4>, %B: memref<4xi4>, %S: memref<4xi4>, %U: memref<4xi7>, %L: memref<4xi1>)
    attributes {hcl.top, hcl.arg_names = ["A", "B", "S", "U", "L"],
                hcl.arg_types = ["int4", "int4", "int4", "uint7", "uint1"]} {
  %tmp = memref.alloc() {hcl.name = "tmp", hcl.dtype = "uint1"} : memref<4xi1>
  affine.for %i = 0 to 4 {
    %a = memref.load %A[%i] : memref<4xi4>
    %b = memref.load %B[%i] : memref<4xi4>
    %s = arith.addi %a, %b : i4
    memref.store %s, %S[%i] : memref<4xi4>
    %wa = arith.extsi %a : i4 to i7
    %wb = arith.extui %b : i4 to i7
    %u = arith.muli %wa, %wb : i7
    memref.store %u, %U[%i] : memref<4xi7>
    %l = arith.cmpi ult, %a, %b : i4
    affine.store %l, %tmp[%i] : memref<4xi1>
  } {hcl.loop_name = "i", hcl.op_name = "S"}
  affine.for %i = 0 to 4 {
    %l = affine.load %tmp[%i] : memref<4xi1>
    memref.store %l, %L[%i] : memref<4xi1>
  } {hcl.loop_name = "i", hcl.op_name = "L"}
  return
}
"""


def test_sub_byte_memrefs() -> None:
    # MLIR 22 aborts on sub-byte memref stores; to_llvm widens them to one byte per element
    a_values, b_values = [7, -8, -1, 3], [1, -1, 15 - 16, 5]
    a, b = asarray(a_values, "int4"), asarray(b_values, "int4")
    s, u, low = asarray(np.zeros(4), "int4"), asarray(np.zeros(4), "uint7"), asarray(np.zeros(4), "uint1")
    run_top(SUB_BYTE, a, b, s, u, low)
    assert s.asnumpy().tolist() == [Int(4).wrap_int(x + y) for x, y in zip(a_values, b_values)]
    assert u.asnumpy().tolist() == [
        UInt(7).wrap_int(x * UInt(4).wrap_int(y)) for x, y in zip(a_values, b_values)
    ]
    assert low.asnumpy().tolist() == [
        int(UInt(4).wrap_int(x) < UInt(4).wrap_int(y)) for x, y in zip(a_values, b_values)
    ]


FLOAT_OPS = """
func.func @top(%X: memref<4xf64>, %P: memref<4xf64>, %I: memref<4xf64>, %E: memref<4xf64>, %C: memref<4xf64>,
               %R: memref<4xf64>, %FL: memref<4xf64>, %AT: memref<4xf64>, %LG: memref<4xf64>)
    attributes {hcl.top, hcl.arg_names = ["X", "P", "I", "E", "C", "R", "FL", "AT", "LG"],
                hcl.arg_types = ["float64", "float64", "float64", "float64", "float64", "float64", "float64",
                                 "float64", "float64"]} {
  %half = arith.constant 0.5 : f64
  %three = arith.constant 3 : i32
  affine.for %i = 0 to 4 {
    %x = memref.load %X[%i] : memref<4xf64>
    %ax = math.absf %x : f64
    %p = math.powf %ax, %half : f64
    memref.store %p, %P[%i] : memref<4xf64>
    %n = math.fpowi %x, %three : f64, i32
    memref.store %n, %I[%i] : memref<4xf64>
    %e = math.erf %x : f64
    memref.store %e, %E[%i] : memref<4xf64>
    %c = math.cbrt %x : f64
    memref.store %c, %C[%i] : memref<4xf64>
    %r = math.rsqrt %ax : f64
    memref.store %r, %R[%i] : memref<4xf64>
    %fl = math.floor %x : f64
    memref.store %fl, %FL[%i] : memref<4xf64>
    %at = math.atan2 %x, %half : f64
    memref.store %at, %AT[%i] : memref<4xf64>
    %lg = math.log %ax : f64
    memref.store %lg, %LG[%i] : memref<4xf64>
  } {hcl.loop_name = "i", hcl.op_name = "S"}
  return
}
"""


def test_float_math_ops() -> None:
    x = np.array([-2.5, -0.25, 0.75, 8.0])
    outs = [np.zeros(4) for _ in range(8)]
    run_top(FLOAT_OPS, x, *outs)
    p, i, e, c, r, fl, at, lg = outs
    np.testing.assert_allclose(p, np.sqrt(np.abs(x)), rtol=1e-12)
    np.testing.assert_allclose(i, x**3, rtol=1e-12)
    np.testing.assert_allclose(e, [math.erf(v) for v in x], rtol=1e-12)
    np.testing.assert_allclose(c, np.cbrt(x), rtol=1e-12)
    np.testing.assert_allclose(r, 1 / np.sqrt(np.abs(x)), rtol=1e-12)
    np.testing.assert_array_equal(fl, np.floor(x))
    np.testing.assert_allclose(at, np.arctan2(x, 0.5), rtol=1e-12)
    np.testing.assert_allclose(lg, np.log(np.abs(x)), rtol=1e-12)


DYNAMIC_LOOPS = """
func.func @top(%A: memref<8xi32>, %n: i32, %C: memref<8xi32>)
    attributes {hcl.top, hcl.arg_names = ["A", "n", "C"], hcl.arg_types = ["int32", "int32", "int32"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %k = memref.alloc() {hcl.name = "k", hcl.dtype = "int32"} : memref<1xi32>
  %ub = arith.index_cast %n : i32 to index
  scf.for %i = %c0 to %ub step %c1 {
    %a = memref.load %A[%i] : memref<8xi32>
    %neg = arith.cmpi slt, %a, %zero : i32
    scf.if %neg {
      %m = arith.subi %zero, %a : i32
      memref.store %m, %C[%i] : memref<8xi32>
    } else {
      memref.store %a, %C[%i] : memref<8xi32>
    }
  } {hcl.loop_name = "i", hcl.op_name = "C"}
  memref.store %n, %k[%c0] : memref<1xi32>
  scf.while : () -> () {
    %kv = memref.load %k[%c0] : memref<1xi32>
    %more = arith.cmpi slt, %kv, %one : i32
    %in = arith.cmpi sge, %kv, %zero : i32
    %go = arith.andi %more, %in : i1
    scf.condition(%go)
  } do {
    %kv = memref.load %k[%c0] : memref<1xi32>
    %idx = arith.index_cast %kv : i32 to index
    memref.store %one, %C[%idx] : memref<8xi32>
    %next = arith.addi %kv, %one : i32
    memref.store %next, %k[%c0] : memref<1xi32>
    scf.yield
  } attributes {hcl.loop_name = "w", hcl.op_name = "W"}
  return
}
"""


def test_dynamic_loops_and_conditionals() -> None:
    a = np.array([-3, 4, -5, 6, -7, 8, 9, 10], np.int32)
    c = np.full(8, -1, np.int32)
    run_top(DYNAMIC_LOOPS, a, 5, c)
    assert c.tolist() == [3, 4, 5, 6, 7, -1, -1, -1]
    c = np.full(8, -1, np.int32)
    run_top(DYNAMIC_LOOPS, a, 0, c)  # no for iteration; the while loop stores C[0] = 1 once
    assert c.tolist() == [1, -1, -1, -1, -1, -1, -1, -1]


# ---- signatures ----------------------------------------------------------------------------------

SIGNATURES = """
func.func private @clamp(%x: i12, %lut: memref<4x?xi16>) -> i12
    attributes {hcl.def, hcl.arg_names = ["x", "lut"], hcl.arg_types = ["uint12", "fixed16_8"],
                hcl.ret_type = "uint12"} {
  return %x : i12
}
func.func @top(%A: memref<3x4xf32>, %s: f64, %B: memref<1xi128>)
    attributes {hcl.top, hcl.arg_names = ["A", "s", "B"], hcl.arg_types = ["float32", "float64", "uint128"]} {
  return
}
"""


def test_signature_of_reads_names_types_and_shapes() -> None:
    module = parse(SIGNATURES)
    clamp = signature_of(module.body.operations[0])
    assert clamp == FunctionSignature(
        "clamp", [ArgSpec("x", UInt(12), ()), ArgSpec("lut", Fixed(16, 8), (4, -1))], UInt(12)
    )
    top = top_signature(module)
    assert top == FunctionSignature(
        "top",
        [
            ArgSpec("A", Float(32), (3, 4)),
            ArgSpec("s", Float(64), ()),
            ArgSpec("B", parse_dtype("uint128"), (1,)),
        ],
    )
    assert top.arg_names == ["A", "s", "B"]


def test_signature_json_round_trip() -> None:
    top = top_signature(parse(SIGNATURES))
    text = json.dumps(top.to_json())
    assert FunctionSignature.from_json(json.loads(text)) == top
    assert FunctionSignature.from_json(text) == top
    spec = top.args[0]
    assert ArgSpec.from_json(json.dumps(spec.to_json())) == spec
    assert spec.to_json() == {"name": "A", "dtype": "float32", "shape": [3, 4]}


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        ('hcl.arg_names = ["x"], hcl.arg_types = ["int16"]', "dtype int16 does not match the MLIR type i12"),
        (
            'hcl.arg_names = ["x"], hcl.arg_types = ["float32"]',
            "dtype float32 does not match the MLIR type i12",
        ),
        ('hcl.arg_names = ["x"], hcl.arg_types = ["int7_3"]', "unknown data type"),
        ('hcl.arg_names = ["x", "y"], hcl.arg_types = ["int12"]', "1 arguments but 2 hcl.arg_names"),
        ('hcl.arg_types = ["int12"]', "missing the hcl.arg_names attribute"),
    ],
)
def test_signature_of_rejects_inconsistent_attributes(attributes: str, message: str) -> None:
    module = parse(f"func.func @f(%x: i12) attributes {{{attributes}}} {{\n  return\n}}")
    with pytest.raises(CompileError, match=message):
        signature_of(module.body.operations[0])


def test_signature_of_needs_ret_type() -> None:
    module = parse(
        'func.func @f(%x: i12) -> i12 attributes {hcl.arg_names = ["x"], hcl.arg_types = ["int12"]} {\n'
        "  return %x : i12\n}"
    )
    with pytest.raises(CompileError, match=r"no hcl.ret_type"):
        signature_of(module.body.operations[0])
