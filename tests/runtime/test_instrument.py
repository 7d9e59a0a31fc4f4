"""Tests of instrument_calls: probes around outlined calls for golden-vector capture."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest
from mlir.ir import Context, IntegerAttr, Location, Module, StringAttr

from hclbuild.compiler.passes.instrument import InstrumentPass, ProbeSite, instrument_calls
from hclbuild.compiler.passes.outline import outline_stages
from hclbuild.compiler.passes.verify import verify_module

# out = A + B (stage "s"), then C = out * out (stage "t")
TEXT = """module {
  func.func @top(%A: memref<4x3xf32>, %B: memref<4x3xf32>, %C: memref<4x3xf32>) attributes {hcl.top,
      hcl.arg_names = ["A", "B", "C"], hcl.arg_types = ["float32", "float32", "float32"]} {
    %out = memref.alloc() {hcl.name = "out", hcl.dtype = "float32"} : memref<4x3xf32>
    affine.for %i = 0 to 4 {
      affine.for %j = 0 to 3 {
        %a = memref.load %A[%i, %j] : memref<4x3xf32>
        %b = memref.load %B[%i, %j] : memref<4x3xf32>
        %s = arith.addf %a, %b : f32
        memref.store %s, %out[%i, %j] : memref<4x3xf32>
      } {hcl.loop_name = "j"}
    } {hcl.loop_name = "i", hcl.op_name = "s"}
    affine.for %i = 0 to 4 {
      affine.for %j = 0 to 3 {
        %o = memref.load %out[%i, %j] : memref<4x3xf32>
        %p = arith.mulf %o, %o : f32
        memref.store %p, %C[%i, %j] : memref<4x3xf32>
      } {hcl.loop_name = "j"}
    } {hcl.loop_name = "i", hcl.op_name = "t"}
    return
  }
}"""


@pytest.fixture
def ctx():
    with Context() as context, Location.unknown():
        yield context


def outlined_copy() -> Module:
    module = Module.parse(TEXT)
    outline_stages(module, [["s"], ["t"]])
    # the pass works in place: instrument a copy, as the reference build does
    return Module.parse(str(module))


def top_ops(module: Module) -> list:
    top = next(op for op in module.body.operations if "hcl.top" in op.attributes)
    return [op.operation for op in top.regions[0].blocks[0].operations]


def constant(value) -> int:
    op = value.owner
    assert op.name == "arith.constant"
    return IntegerAttr(op.attributes["value"]).value


def test_probe_calls_surround_each_outlined_call(ctx):
    module = outlined_copy()
    sites = instrument_calls(module)
    verify_module(module)
    ops = top_ops(module)
    sequence = []
    for op in ops:
        if op.name != "func.call":
            continue
        callee = str(op.attributes["callee"])
        if callee == "@hcl_probe":
            site, phase, arg = (constant(v) for v in list(op.operands)[:3])
            cast = op.operands[3].owner
            assert cast.name == "arith.index_cast" and str(op.operands[3].type) == "i64"
            assert cast.operands[0].owner.name == "memref.extract_aligned_pointer_as_index"
            sequence.append((site, phase, arg))
        else:
            sequence.append(callee)
    assert sequence == [
        (0, 0, 0),
        (0, 0, 1),
        (0, 0, 2),
        "@Stage_s",
        (0, 1, 0),
        (0, 1, 1),
        (0, 1, 2),
        (1, 0, 0),
        (1, 0, 1),
        "@Stage_t",
        (1, 1, 0),
        (1, 1, 1),
    ]
    probe = next(
        op for op in module.body.operations if StringAttr(op.attributes["sym_name"]).value == "hcl_probe"
    )
    assert str(probe.attributes["function_type"]) == "(i64, i64, i64, i64) -> ()"
    assert StringAttr(probe.attributes["sym_visibility"]).value == "private"
    assert sites == [
        ProbeSite(
            0,
            "Stage_s",
            (("A", "float32", (4, 3)), ("B", "float32", (4, 3)), ("out", "float32", (4, 3))),
            ("s",),
        ),
        ProbeSite(1, "Stage_t", (("out", "float32", (4, 3)), ("C", "float32", (4, 3))), ("t",)),
    ]


def test_probed_pointer_is_of_the_probed_argument(ctx):
    module = outlined_copy()
    instrument_calls(module)
    ops = top_ops(module)
    call = next(op for op in ops if op.name == "func.call" and str(op.attributes["callee"]) == "@Stage_s")
    probes = [op for op in ops if op.name == "func.call" and str(op.attributes["callee"]) == "@hcl_probe"]
    for probe in probes[:3]:
        k = constant(probe.operands[2])
        buffer = probe.operands[3].owner.operands[0].owner.operands[0]
        assert buffer == call.operands[k]


def test_probe_site_json_round_trip(ctx):
    module = outlined_copy()
    sites = InstrumentPass().run(module)
    text = json.dumps([s.to_json() for s in sites])
    assert [ProbeSite.from_json(d) for d in json.loads(text)] == sites
    assert ProbeSite.from_json(json.dumps(sites[0].to_json())) == sites[0]


def test_nothing_to_probe_leaves_module_alone(ctx):
    module = Module.parse(TEXT)
    before = str(module)
    assert instrument_calls(module) == []
    assert str(module) == before


def test_instrumentation_is_deterministic(ctx):
    texts = []
    for _ in range(2):
        module = outlined_copy()
        instrument_calls(module)
        texts.append(str(module))
    assert texts[0] == texts[1]


@pytest.mark.skipif(
    not (
        importlib.util.find_spec("hclbuild.compiler.to_llvm")
        and importlib.util.find_spec("hclbuild.runtime.llvm")
    ),
    reason="hclbuild.compiler.to_llvm / hclbuild.runtime.llvm not available",
)
def test_probes_see_buffers_before_and_after_each_call(ctx):
    from hclbuild.compiler.signature import top_signature
    from hclbuild.compiler.to_llvm import lower_to_llvm_ir
    from hclbuild.dsl.types import parse_dtype
    from hclbuild.runtime.llvm import JITModule, read_buffer

    module = outlined_copy()
    sites = instrument_calls(module)
    seen: dict[tuple[int, int, int], np.ndarray] = {}

    def handler(site: int, phase: int, arg: int, ptr: int) -> None:
        _, dtype, shape = sites[site].args[arg]
        seen[(site, phase, arg)] = read_buffer(ptr, parse_dtype(dtype), shape)

    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((4, 3)).astype(np.float32)
    c = np.zeros((4, 3), np.float32)
    JITModule(lower_to_llvm_ir(module), probe=handler).function(top_signature(module))(a, b, c)
    assert len(seen) == 10
    np.testing.assert_array_equal(seen[(0, 0, 0)], a)
    np.testing.assert_allclose(seen[(0, 1, 2)], a + b, rtol=1e-6)
    np.testing.assert_allclose(seen[(1, 0, 0)], a + b, rtol=1e-6)
    np.testing.assert_allclose(seen[(1, 1, 1)], (a + b) ** 2, rtol=1e-6)
    np.testing.assert_allclose(c, (a + b) ** 2, rtol=1e-6)


def add_stage(name: str, out: str, lhs: str, rhs: str) -> str:
    return f"""
    affine.for %i = 0 to 4 {{
      %x = memref.load %{lhs}[%i] : memref<4xf32>
      %y = memref.load %{rhs}[%i] : memref<4xf32>
      %z = arith.addf %x, %y : f32
      memref.store %z, %{out}[%i] : memref<4xf32>
    }} {{hcl.loop_name = "i", hcl.op_name = "{name}"}}"""


def test_unified_calls_report_their_own_stages(ctx):
    text = f"""module {{
  func.func @top(%A: memref<4xf32>, %B: memref<4xf32>, %C: memref<4xf32>) attributes {{hcl.top,
      hcl.arg_names = ["A", "B", "C"], hcl.arg_types = ["float32", "float32", "float32"]}} {{
    {add_stage("s", "C", "A", "B")}{add_stage("t", "B", "C", "A")}
    return
  }}
}}"""
    module = Module.parse(text)
    assert outline_stages(module, [["s"], ["t"]], unify=True) == ["Stage_s", "Stage_s"]
    sites = instrument_calls(module)
    verify_module(module)
    assert [(s.callee, s.stages) for s in sites] == [("Stage_s", ("s",)), ("Stage_s", ("t",))]
    assert [a[0] for a in sites[1].args] == ["A", "B", "C"]  # the callee's argument names
