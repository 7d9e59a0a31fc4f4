"""Tests of verify_module: MLIR verification, call targets and signatures, outlined stages."""

from __future__ import annotations

import pytest
from mlir.ir import Context, FlatSymbolRefAttr, FunctionType, Location, Module, StringAttr, TypeAttr

from hclbuild.compiler.passes.outline import outline_stages
from hclbuild.compiler.passes.verify import VerifyPass, verify_module
from hclbuild.errors import CompileError

STAGES = """module {
  func.func private @Stage_a(%x: memref<4xf32>) attributes {hcl.outlined, hcl.stages = ["a"],
      hcl.arg_names = ["x"], hcl.arg_types = ["float32"]} {
    return
  }
  func.func private @Stage_b(%x: memref<8xf32>) attributes {hcl.outlined, hcl.stages = ["b"],
      hcl.arg_names = ["x"], hcl.arg_types = ["float32"]} {
    return
  }
  func.func @top(%A: memref<4xf32>, %B: memref<8xf32>) attributes {hcl.top, hcl.arg_names = ["A", "B"],
      hcl.arg_types = ["float32", "float32"]} {
    func.call @Stage_a(%A) : (memref<4xf32>) -> ()
    func.call @Stage_b(%B) : (memref<8xf32>) -> ()
    affine.for %i = 0 to 4 {
      %v = memref.load %A[%i] : memref<4xf32>
      memref.store %v, %B[%i] : memref<8xf32>
    } {hcl.loop_name = "i", hcl.op_name = "c"}
    return
  }
}"""

ONE_STAGE = """module {
  func.func @top(%A: memref<4xf32>, %B: memref<4xf32>) attributes {hcl.top, hcl.arg_names = ["A", "B"],
      hcl.arg_types = ["float32", "float32"]} {
    affine.for %i = 0 to 4 {
      %v = memref.load %A[%i] : memref<4xf32>
      memref.store %v, %B[%i] : memref<4xf32>
    } {hcl.loop_name = "i", hcl.op_name = "copy"}
    return
  }
}"""


@pytest.fixture
def ctx():
    with Context() as context, Location.unknown():
        yield context


def named(module: Module, name: str):
    return next(
        op.operation for op in module.body.operations if StringAttr(op.attributes["sym_name"]).value == name
    )


def calls_of(func_op) -> list:
    return [
        op.operation for op in func_op.regions[0].blocks[0].operations if op.operation.name == "func.call"
    ]


def test_well_formed_module_passes(ctx):
    module = Module.parse(STAGES)
    verify_module(module)
    VerifyPass().run(module)
    assert VerifyPass.name == "verify"


def test_outlined_module_passes(ctx):
    module = Module.parse(ONE_STAGE)
    outline_stages(module, [["copy"]])
    verify_module(module)


def test_deleted_definition_is_reported(ctx):
    module = Module.parse(ONE_STAGE)
    outline_stages(module, [["copy"]])
    named(module, "Stage_copy").erase()
    with pytest.raises(CompileError, match=r"^verify: call from @top to @Stage_copy: no definition$"):
        verify_module(module)


def test_signature_mismatch_is_reported(ctx):
    module = Module.parse(STAGES)
    first_call = calls_of(named(module, "top"))[0]
    first_call.attributes["callee"] = FlatSymbolRefAttr.get("Stage_b")
    with pytest.raises(
        CompileError,
        match=r"^verify: signature mismatch: call from @top to @Stage_b passes "
        r"\(memref<4xf32>\) -> \(\), @Stage_b takes \(memref<8xf32>\) -> \(\)$",
    ):
        verify_module(module)


def test_stage_left_in_caller_is_reported(ctx):
    module = Module.parse(STAGES.replace('op_name = "c"', 'op_name = "b"'))
    with pytest.raises(CompileError, match=r"stage 'b' was outlined into @Stage_b but is still in @top"):
        verify_module(module)


def test_mlir_verifier_failure_is_one_line(ctx):
    module = Module.parse(ONE_STAGE)
    top = named(module, "top")
    f32_4 = top.regions[0].blocks[0].arguments[0].type
    top.attributes["function_type"] = TypeAttr.get(FunctionType.get([f32_4], []))
    with pytest.raises(CompileError) as info:
        verify_module(module)
    message = str(info.value)
    assert message.startswith("verify: ") and "\n" not in message
    assert "entry block" in message
