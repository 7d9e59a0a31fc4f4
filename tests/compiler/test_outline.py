"""Tests of the outline pass on hand-written IR that follows docs/IR.md."""

from __future__ import annotations

import ctypes
import importlib.util

import numpy as np
import pytest
from mlir.ir import Context, Location, Module, WalkOrder, WalkResult

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.passes.outline import OutlinePass, outline_stages
from hclbuild.errors import APIError
from hclbuild.schedule.schedule import StageRange

M, K, N, P = 4, 5, 6, 3


def matmul_stage(name: str, lhs: str, rhs: str, out: str, m: int, k: int, n: int, attrs: str = "") -> str:
    """A stage `out = lhs @ rhs` with its reduction accumulator allocated inside."""
    return f"""
    affine.for %i = 0 to {m} {{
      affine.for %j = 0 to {n} {{
        %acc = memref.alloc() {{hcl.name = "sum", hcl.dtype = "float32"}} : memref<1xf32>
        memref.store %zero, %acc[%c0] : memref<1xf32>
        affine.for %r = 0 to {k} {{
          %a = memref.load %{lhs}[%i, %r] : memref<{m}x{k}xf32>
          %b = memref.load %{rhs}[%r, %j] : memref<{k}x{n}xf32>
          %p = arith.mulf %a, %b : f32
          %s = memref.load %acc[%c0] : memref<1xf32>
          %t = arith.addf %s, %p : f32
          memref.store %t, %acc[%c0] : memref<1xf32>
        }} {{hcl.loop_name = "k"}}
        %v = memref.load %acc[%c0] : memref<1xf32>
        memref.store %v, %{out}[%i, %j] : memref<{m}x{n}xf32>
      }} {{hcl.loop_name = "j"{attrs}}}
    }} {{hcl.loop_name = "i", hcl.op_name = "{name}"}}"""


def ewise_stage(name: str, out: str, lhs: str, rhs: str, m: int, n: int, op: str = "addf") -> str:
    """A stage `out[i, j] = lhs[i, j] <op> rhs[i, j]`."""
    return f"""
    affine.for %i = 0 to {m} {{
      affine.for %j = 0 to {n} {{
        %x = memref.load %{lhs}[%i, %j] : memref<{m}x{n}xf32>
        %y = memref.load %{rhs}[%i, %j] : memref<{m}x{n}xf32>
        %z = arith.{op} %x, %y : f32
        memref.store %z, %{out}[%i, %j] : memref<{m}x{n}xf32>
      }} {{hcl.loop_name = "j"}}
    }} {{hcl.loop_name = "i", hcl.op_name = "{name}"}}"""


def module_text(args: list[tuple[str, str]], allocs: list[tuple[str, str]], body: str) -> str:
    """A top function with memref args (name, shape), named allocs and the stages in `body`."""
    params = ", ".join(f"%{n}: memref<{s}xf32>" for n, s in args)
    names = ", ".join(f'"{n}"' for n, _ in args)
    types = ", ".join('"float32"' for _ in args)
    alloc_text = "".join(
        f'\n    %{n} = memref.alloc() {{hcl.name = "{n}", hcl.dtype = "float32"}} : memref<{s}xf32>'
        for n, s in allocs
    )
    return f"""module {{
  func.func @top({params}) attributes {{hcl.top, hcl.arg_names = [{names}], hcl.arg_types = [{types}]}} {{{alloc_text}
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32{body}
    return
  }}
}}"""


TWO_MM = module_text(
    [("A", f"{M}x{K}"), ("B", f"{K}x{N}"), ("C", f"{N}x{P}"), ("D", f"{M}x{P}"), ("E", f"{M}x{P}")],
    [("out_AB", f"{M}x{N}"), ("out_ABC", f"{M}x{P}")],
    matmul_stage("out_AB", "A", "B", "out_AB", M, K, N)
    + matmul_stage("out_ABC", "out_AB", "C", "out_ABC", M, N, P, ", hcl.pipeline_ii = 1 : i32")
    + ewise_stage("E", "E", "out_ABC", "D", M, P),
)


@pytest.fixture
def ctx():
    with Context() as context, Location.unknown():
        yield context


def parse(text: str) -> Module:
    module = Module.parse(text)
    assert module.operation.verify()
    return module


def funcs(module: Module) -> dict[str, object]:
    return upstream.symbols(module)


def top_level(func_op) -> list:
    return [op.operation for op in func_op.regions[0].blocks[0].operations]


def calls(func_op) -> list[tuple[str, list[str]]]:
    """(callee, names of the caller values passed) of each call in the function, in order."""
    out = []
    for op in top_level(func_op):
        if op.name == "func.call":
            out.append(("@" + upstream.callee(op), [operand.get_name() for operand in op.operands]))
    return out


def op_names(func_op) -> list[str]:
    found = []

    def visit(op):
        if attrs.stage_name(op) is not None:
            found.append(attrs.stage_name(op))
        return WalkResult.ADVANCE

    func_op.walk(visit, WalkOrder.PRE_ORDER)
    return found


def allocs_in(func_op) -> list[str]:
    return [attrs.buffer_name(op) for op in top_level(func_op) if op.name == "memref.alloc"]


# ---------------------------------------------------------------- structure


def test_single_stage_groups_become_two_functions_with_right_call_targets(ctx):
    module = parse(TWO_MM)
    names = outline_stages(module, [["out_AB"], ["out_ABC"]])
    assert names == ["Stage_out_AB", "Stage_out_ABC"]
    assert module.operation.verify()
    fs = funcs(module)
    assert list(fs) == ["Stage_out_AB", "Stage_out_ABC", "top"]
    # each call goes to its own function (HeteroCL's proposal called @Stage_out_AB twice)
    assert calls(fs["top"]) == [
        ("@Stage_out_AB", ["%arg0", "%arg1", "%alloc"]),
        ("@Stage_out_ABC", ["%alloc", "%arg2", "%alloc_0"]),
    ]
    ab, abc = fs["Stage_out_AB"], fs["Stage_out_ABC"]
    assert attrs.is_outlined(ab) and not upstream.is_public(ab)
    assert attrs.outlined_stages(ab) == ["out_AB"]
    assert attrs.arg_names(ab) == ["A", "B", "out_AB"]
    assert attrs.arg_names(abc) == ["out_AB", "C", "out_ABC"]
    assert attrs.arg_types(abc) == ["float32"] * 3
    assert op_names(fs["top"]) == ["E"]
    assert op_names(abc) == ["out_ABC"]
    # the accumulator stays inside its stage; the constants are cloned into each function
    assert "memref<1xf32>" in str(ab) and "arith.constant 0 : index" in str(ab)
    assert "arith.constant 0.000000e+00 : f32" in str(abc)


def test_stage_attributes_travel_with_the_stage(ctx):
    module = parse(TWO_MM)
    outline_stages(module, [["out_ABC"]])
    text = str(funcs(module)["Stage_out_ABC"])
    assert 'loop_name = "j", hcl.pipeline_ii = 1 : i32' in text
    assert 'loop_name = "i", hcl.op_name = "out_ABC"' in text


def test_group_internalizes_buffer_produced_and_consumed_inside(ctx):
    module = parse(TWO_MM)
    assert outline_stages(module, [["out_ABC", "out_AB"]]) == ["Stage_out_AB_out_ABC"]
    assert module.operation.verify()
    fs = funcs(module)
    fn = fs["Stage_out_AB_out_ABC"]
    assert attrs.outlined_stages(fn) == ["out_AB", "out_ABC"]
    assert op_names(fn) == ["out_AB", "out_ABC"]  # program order, not the order given
    assert attrs.arg_names(fn) == ["A", "B", "C", "out_ABC"]
    assert allocs_in(fn) == ["out_AB"]
    alloc = next(op for op in top_level(fn) if op.name == "memref.alloc")
    assert attrs.buffer_dtype(alloc) == "float32"
    assert allocs_in(fs["top"]) == ["out_ABC"]
    assert [c for c, _ in calls(fs["top"])] == ["@Stage_out_AB_out_ABC"]
    # the call stands where the last stage was: before stage E
    kinds = [op.name for op in top_level(fs["top"])][-3:]
    assert kinds == ["func.call", "affine.for", "func.return"]


def test_range_outlines_every_stage_on_a_path(ctx):
    module = parse(TWO_MM)
    assert outline_stages(module, [StageRange("out_AB", "E")]) == ["Stage_out_AB_E"]
    assert module.operation.verify()
    fs = funcs(module)
    fn = fs["Stage_out_AB_E"]
    assert op_names(fn) == ["out_AB", "out_ABC", "E"]
    assert attrs.arg_names(fn) == ["A", "B", "C", "D", "E"]
    assert allocs_in(fn) == ["out_AB", "out_ABC"]
    assert op_names(fs["top"]) == []


def test_range_leaves_out_stages_off_the_path(ctx):
    text = module_text(
        [("A", "4x3"), ("B", "4x3"), ("C", "4x3")],
        [("X", "4x3"), ("Y", "4x3"), ("Z", "4x3")],
        ewise_stage("x", "X", "A", "A", 4, 3)
        + ewise_stage("side", "Z", "B", "B", 4, 3)
        + ewise_stage("y", "Y", "X", "X", 4, 3)
        + ewise_stage("out", "C", "Y", "Z", 4, 3),
    )
    module = parse(text)
    assert outline_stages(module, [StageRange("x", "y")]) == ["Stage_x_y"]
    assert module.operation.verify()
    fs = funcs(module)
    assert op_names(fs["Stage_x_y"]) == ["x", "y"]
    assert op_names(fs["top"]) == ["side", "out"]
    assert attrs.arg_names(fs["Stage_x_y"]) == ["A", "Y"]


def test_independent_producers_grouped(ctx):
    text = module_text(
        [("A", "4x3"), ("B", "4x3"), ("C", "4x3")],
        [("X", "4x3"), ("Y", "4x3")],
        ewise_stage("px", "X", "A", "A", 4, 3)
        + ewise_stage("py", "Y", "B", "B", 4, 3, "mulf")
        + ewise_stage("sum", "C", "X", "Y", 4, 3),
    )
    module = parse(text)
    assert outline_stages(module, [["px", "py"]]) == ["Stage_px_py"]
    assert module.operation.verify()
    fs = funcs(module)
    # X and Y are read after the call, so they stay in the caller and are written through args
    assert attrs.arg_names(fs["Stage_px_py"]) == ["A", "B", "X", "Y"]
    assert calls(fs["top"])[0][0] == "@Stage_px_py"
    assert op_names(fs["top"]) == ["sum"]


def test_in_place_update_is_one_argument_in_read_position(ctx):
    update = """
    affine.for %i = 0 to 4 {
      affine.for %j = 0 to 3 {
        %w = memref.load %W[%i, %j] : memref<4x3xf32>
        %x = memref.load %E[%i, %j] : memref<4x3xf32>
        %y = arith.addf %x, %w : f32
        memref.store %y, %E[%i, %j] : memref<4x3xf32>
        memref.store %y, %F[%i, %j] : memref<4x3xf32>
      } {hcl.loop_name = "j"}
    } {hcl.loop_name = "i", hcl.op_name = "upd"}"""
    text = module_text([("D", "4x3"), ("W", "4x3"), ("E", "4x3"), ("F", "4x3")], [], update)
    module = parse(text)
    outline_stages(module, [["upd"]])
    fn = funcs(module)["Stage_upd"]
    assert attrs.arg_names(fn) == ["W", "E", "F"]
    assert str(fn.attributes["function_type"]).count("memref") == 3


def test_partitions_and_duplicate_names(ctx):
    text = """module {
  func.func @top(%A: memref<8xi32>, %B: memref<8xi32>) attributes {hcl.top, hcl.arg_names = ["A", "B"],
      hcl.arg_types = ["int32", "uint8"], hcl.arg_partitions = [["cyclic:1:2"], []]} {
    %t = memref.alloc() {hcl.name = "t", hcl.dtype = "int16", hcl.partition = ["complete:0:0"]} : memref<8xi32>
    %u = memref.alloc() {hcl.name = "t", hcl.dtype = "int32"} : memref<8xi32>
    affine.for %i = 0 to 8 {
      %a = memref.load %A[%i] : memref<8xi32>
      %b = memref.load %B[%i] : memref<8xi32>
      memref.store %a, %t[%i] : memref<8xi32>
      memref.store %b, %u[%i] : memref<8xi32>
    } {hcl.loop_name = "i", hcl.op_name = "s"}
    affine.for %i = 0 to 8 {
      %x = memref.load %t[%i] : memref<8xi32>
      memref.store %x, %u[%i] : memref<8xi32>
    } {hcl.loop_name = "i", hcl.op_name = "s2"}
    return
  }
}"""
    module = parse(text)
    outline_stages(module, [["s"]])
    fn = funcs(module)["Stage_s"]
    assert attrs.arg_names(fn) == ["A", "B", "t", "t_1"]
    assert attrs.arg_types(fn) == ["int32", "uint8", "int16", "int32"]
    parts = [[attrs.format_partition(p) for p in a] for a in attrs.arg_partitions(fn)]
    assert parts == [["cyclic:1:2"], [], ["complete:0:0"], []]


def test_outline_pass_dataclass(ctx):
    module = parse(TWO_MM)
    pass_ = OutlinePass([["out_AB"], StageRange("out_ABC", "E")])
    assert pass_.name == "outline"
    assert pass_.run(module) == ["Stage_out_AB", "Stage_out_ABC_E"]
    assert list(funcs(module)) == ["Stage_out_AB", "Stage_out_ABC_E", "top"]


# ---------------------------------------------------------------- errors


def chain_module() -> str:
    return module_text(
        [("A", "4x3"), ("D", "4x3")],
        [("X", "4x3"), ("Y", "4x3")],
        ewise_stage("a", "X", "A", "A", 4, 3)
        + ewise_stage("b", "Y", "X", "X", 4, 3)
        + ewise_stage("c", "D", "Y", "X", 4, 3),
    )


@pytest.mark.parametrize(
    ("groups", "message"),
    [
        ([["nope"]], "unknown stage 'nope'"),
        ([["a"], ["b", "a"]], "stage 'a' is outlined twice"),
        ([["a", "a"]], "stage 'a' is listed twice"),
        ([StageRange("c", "a")], "start stage 'c' comes after end stage 'a'"),
        ([["a", "c"]], "not convex: stage 'b' consumes from the group and feeds into it"),
        ([[]], "non-empty list"),
    ],
)
def test_group_errors_name_the_stage(ctx, groups, message):
    module = parse(chain_module())
    before = str(module)
    with pytest.raises(APIError, match=message):
        outline_stages(module, groups)
    assert str(module) == before  # nothing was changed


def test_range_not_connected(ctx):
    text = module_text(
        [("A", "4x3"), ("B", "4x3"), ("C", "4x3"), ("D", "4x3")],
        [],
        ewise_stage("p", "C", "A", "A", 4, 3) + ewise_stage("q", "D", "B", "B", 4, 3),
    )
    module = parse(text)
    with pytest.raises(APIError, match=r"is not connected: no dataflow path from 'p' to 'q'"):
        outline_stages(module, [StageRange("p", "q")])


def test_moving_past_a_writer_of_an_input_is_refused(ctx):
    # s1 reads A; s2 overwrites A; grouping s1 with s3 would make s1 read the new A
    text = module_text(
        [("A", "4x3"), ("B", "4x3"), ("C", "4x3")],
        [("X", "4x3")],
        ewise_stage("s1", "X", "A", "A", 4, 3)
        + ewise_stage("s2", "A", "B", "B", 4, 3)
        + ewise_stage("s3", "C", "X", "X", 4, 3),
    )
    module = parse(text)
    with pytest.raises(APIError, match=r"cannot move stage 's1'.*'s2' writes 'A' that 's1' reads"):
        outline_stages(module, [["s1", "s3"]])


def test_name_clash_is_refused(ctx):
    module = parse(TWO_MM)
    outline_stages(module, [["out_AB"]])
    text = str(module)
    module2 = parse(text.replace('op_name = "out_ABC"', 'op_name = "out_AB"'))
    with pytest.raises(APIError, match="already exists"):
        outline_stages(module2, [["out_AB"]])


# ---------------------------------------------------------------- determinism, unify


def test_running_twice_gives_identical_text(ctx):
    texts = []
    for _ in range(2):
        module = parse(TWO_MM)
        outline_stages(module, [["out_AB"], ["out_ABC", "E"]])
        texts.append(str(module))
    assert texts[0] == texts[1]


def test_function_text_depends_only_on_its_stages(ctx):
    one = parse(TWO_MM)
    outline_stages(one, [["out_ABC"]])
    two = parse(TWO_MM)
    outline_stages(two, [["out_AB"], ["out_ABC"], ["E"]])
    assert str(funcs(one)["Stage_out_ABC"]) == str(funcs(two)["Stage_out_ABC"])


def test_unify_reuses_identical_function(ctx):
    text = module_text(
        [("A", "4x3"), ("B", "4x3"), ("C", "4x3"), ("D", "4x3")],
        [],
        ewise_stage("p", "C", "A", "A", 4, 3) + ewise_stage("q", "D", "B", "B", 4, 3),
    )
    module = parse(text)
    assert outline_stages(module, [["p"], ["q"]], unify=True) == ["Stage_p", "Stage_p"]
    assert module.operation.verify()
    fs = funcs(module)
    assert list(fs) == ["Stage_p", "top"]
    assert calls(fs["top"]) == [("@Stage_p", ["%arg0", "%arg2"]), ("@Stage_p", ["%arg1", "%arg3"])]


def test_unify_keeps_different_bodies_apart(ctx):
    text = module_text(
        [("A", "4x3"), ("B", "4x3"), ("C", "4x3"), ("D", "4x3")],
        [],
        ewise_stage("p", "C", "A", "A", 4, 3) + ewise_stage("q", "D", "B", "B", 4, 3, "mulf"),
    )
    module = parse(text)
    assert outline_stages(module, [["p"], ["q"]], unify=True) == ["Stage_p", "Stage_q"]


# ---------------------------------------------------------------- numbers


def _jit_run(module: Module, arrays: list[np.ndarray]) -> None:
    """Lower and run `top` on `arrays` in place, through hclbuild's backend when it exists."""
    if importlib.util.find_spec("hclbuild.compiler.to_llvm") and importlib.util.find_spec(
        "hclbuild.runtime.llvm"
    ):
        from hclbuild.compiler.signature import top_signature
        from hclbuild.compiler.to_llvm import lower_to_llvm_ir
        from hclbuild.runtime.llvm import JITModule

        JITModule(lower_to_llvm_ir(module)).function(top_signature(module))(*arrays)
        return
    # fallback while the backend is not there: upstream lowering and ExecutionEngine
    from mlir.execution_engine import ExecutionEngine
    from mlir.ir import UnitAttr
    from mlir.passmanager import PassManager
    from mlir.runtime import get_ranked_memref_descriptor

    funcs(module)["top"].attributes["llvm.emit_c_interface"] = UnitAttr.get()
    pipeline = "builtin.module(lower-affine, convert-scf-to-cf, convert-to-llvm, reconcile-unrealized-casts)"
    PassManager.parse(pipeline).run(module.operation)
    engine = ExecutionEngine(module, opt_level=2)
    engine.invoke("top", *[ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(a))) for a in arrays])


@pytest.mark.parametrize(
    "groups",
    [[], [["out_AB"], ["out_ABC"]], [["out_AB", "out_ABC"]], [StageRange("out_AB", "E")], [["out_ABC", "E"]]],
)
def test_outlined_2mm_matches_numpy(ctx, groups):
    rng = np.random.default_rng(0)
    a, b, c, d = (rng.standard_normal(s).astype(np.float32) for s in [(M, K), (K, N), (N, P), (M, P)])
    e = np.zeros((M, P), np.float32)
    module = parse(TWO_MM)
    outline_stages(module, groups)
    assert module.operation.verify()
    _jit_run(module, [a, b, c, d, e])
    np.testing.assert_allclose(e, a @ b @ c + d, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- split_functions


def test_function_modules_hold_each_function_and_its_callees(ctx):
    from hclbuild.compiler.passes.split_functions import function_modules

    module = parse(TWO_MM)
    outline_stages(module, [["out_AB"], ["out_ABC"]])
    texts = function_modules(module)
    assert list(texts) == ["Stage_out_AB", "Stage_out_ABC", "top"]
    for name, text in texts.items():
        standalone = parse(text)
        held = list(funcs(standalone))
        assert held[-1] == name
    assert list(funcs(parse(texts["top"]))) == ["Stage_out_AB", "Stage_out_ABC", "top"]
    assert list(funcs(parse(texts["Stage_out_AB"]))) == ["Stage_out_AB"]


def test_function_modules_are_byte_stable_and_local(ctx):
    from hclbuild.compiler.passes.split_functions import function_modules

    runs = []
    for groups in ([["out_ABC"]], [["out_ABC"]], [["out_AB"], ["out_ABC"], ["E"]]):
        module = parse(TWO_MM)
        outline_stages(module, groups)
        runs.append(function_modules(module))
    assert runs[0] == runs[1]
    # the same stage outlined in another design gives the same file
    assert runs[0]["Stage_out_ABC"] == runs[2]["Stage_out_ABC"]
    assert runs[0]["top"] != runs[2]["top"]


# ---------------------------------------------------------------- calls, scalars, deallocs

DEF_CALL = """module {
  func.func private @scale(%x: memref<4xi32>, %y: memref<4xi32>) attributes {hcl.def,
      hcl.arg_names = ["x", "y"], hcl.arg_types = ["int32", "int32"]} {
    affine.for %i = 0 to 4 {
      %v = memref.load %x[%i] : memref<4xi32>
      %w = arith.addi %v, %v : i32
      memref.store %w, %y[%i] : memref<4xi32>
    } {hcl.loop_name = "i"}
    return
  }
  func.func @top(%A: memref<4xi32>, %B: memref<4xi32>, %C: memref<4xi32>) attributes {hcl.top,
      hcl.arg_names = ["A", "B", "C"], hcl.arg_types = ["int32", "int32", "int32"]} {
    %t = memref.alloc() {hcl.name = "t", hcl.dtype = "int32"} : memref<4xi32>
    %c3 = arith.constant 3 : i32
    %n = arith.index_cast %c3 : i32 to index
    affine.for %s = 0 to 1 {
      func.call @scale(%A, %t) : (memref<4xi32>, memref<4xi32>) -> ()
    } {hcl.loop_name = "p_stage", hcl.op_name = "p"}
    affine.for %i = 0 to 4 {
      %v = memref.load %t[%i] : memref<4xi32>
      %u = memref.load %A[%n] : memref<4xi32>
      %w = arith.addi %v, %u : i32
      memref.store %w, %B[%i] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "q"}
    affine.for %i = 0 to 4 {
      %v = memref.load %B[%i] : memref<4xi32>
      memref.store %v, %C[%i] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "r"}
    memref.dealloc %t : memref<4xi32>
    return
  }
}"""


def test_def_call_effects_scalar_args_and_deallocs(ctx):
    from hclbuild.compiler.passes.split_functions import function_modules

    module = parse(DEF_CALL)
    # the dataflow graph sees through the call: p writes t (through @scale), q reads it
    assert outline_stages(module, [StageRange("p", "q")]) == ["Stage_p_q"]
    assert module.operation.verify()
    fs = funcs(module)
    fn = fs["Stage_p_q"]
    # t is internal (its dealloc moves too); the index computed outside is a scalar argument
    assert attrs.arg_names(fn) == ["A", "B", "arg2"]
    assert attrs.arg_types(fn) == ["int32", "int32", "index"]
    assert allocs_in(fn) == ["t"]
    assert "memref.dealloc" in str(fn) and "memref.dealloc" not in str(fs["top"])
    assert [c for c, _ in calls(fs["top"])] == ["@Stage_p_q"]
    texts = function_modules(module)
    assert list(funcs(parse(texts["Stage_p_q"]))) == ["scale", "Stage_p_q"]
    assert list(funcs(parse(texts["top"]))) == ["scale", "Stage_p_q", "top"]
    assert list(funcs(parse(texts["scale"]))) == ["scale"]


def test_non_convex_through_a_def_call(ctx):
    module = parse(DEF_CALL)
    # p writes t only through @scale; q reads t and feeds r, so [p, r] would split around q
    with pytest.raises(APIError, match=r"not convex: stage 'q'"):
        outline_stages(module, [["p", "r"]])


# ---------------------------------------------------------------- one pass for many groups


def chain_of(n: int) -> str:
    """A top with n elementwise stages s0..s{n-1}, each reading the previous one's buffer."""
    allocs = [(f"t{k}", "4x3") for k in range(n - 1)]
    names = ["A"] + [f"t{k}" for k in range(n - 1)] + ["B"]
    body = "".join(ewise_stage(f"s{k}", names[k + 1], names[k], names[k], 4, 3) for k in range(n))
    return module_text([("A", "4x3"), ("B", "4x3")], allocs, body)


def test_twenty_single_stage_groups_analyse_the_program_once(ctx, monkeypatch):
    from hclbuild.compiler.passes import outline as outline_pass

    built = []
    real = outline_pass.StageProgram.__init__

    def counting(self, *args, **kwargs):
        built.append(1)
        real(self, *args, **kwargs)

    monkeypatch.setattr(outline_pass.StageProgram, "__init__", counting)
    module = parse(chain_of(20))
    names = outline_stages(module, [[f"s{k}"] for k in range(20)])
    assert names == [f"Stage_s{k}" for k in range(20)]
    assert len(built) == 1
    assert module.operation.verify()
    assert [c for c, _ in calls(funcs(module)["top"])] == [f"@Stage_s{k}" for k in range(20)]


def test_per_group_unify_flags(ctx):
    text = module_text(
        [("A", "4x3"), ("B", "4x3"), ("C", "4x3"), ("D", "4x3"), ("E", "4x3"), ("F", "4x3")],
        [],
        ewise_stage("p", "C", "A", "A", 4, 3)
        + ewise_stage("q", "D", "B", "B", 4, 3)
        + ewise_stage("r", "F", "E", "E", 4, 3),
    )
    module = parse(text)
    # q keeps its own function (no unify); r, identical to p, reuses Stage_p
    assert outline_stages(module, [["p"], ["q"], ["r"]], unify=[False, False, True]) == [
        "Stage_p",
        "Stage_q",
        "Stage_p",
    ]
    assert list(funcs(module)) == ["Stage_p", "Stage_q", "top"]
    with pytest.raises(APIError, match="2 unify flags for 3 groups"):
        outline_stages(parse(text), [["p"], ["q"], ["r"]], unify=[True, False])


def test_range_and_convexity_look_only_inside_the_group_window(ctx):
    module = parse(chain_of(12))
    # a range in the middle of a long chain and a convex pair next to it
    assert outline_stages(module, [StageRange("s3", "s6"), ["s7", "s8"]]) == ["Stage_s3_s6", "Stage_s7_s8"]
    fs = funcs(module)
    assert op_names(fs["Stage_s3_s6"]) == ["s3", "s4", "s5", "s6"]
    with pytest.raises(APIError, match="not convex: stage 's5' consumes from the group"):
        outline_stages(parse(chain_of(12)), [["s4", "s6"]])


def test_schedule_requests_are_outlined_in_one_pass() -> None:
    import hclbuild as hcl
    from hclbuild.compiler.pipeline import compile_schedule

    hcl.init(hcl.Float())
    A = hcl.placeholder((4, 3), "A")

    def kernel(A):
        t = A
        for k in range(6):
            prev = t
            t = hcl.compute((4, 3), lambda i, j, prev=prev, k=k: prev[i, j] * 2.0 + k, name=f"S{k}")
        return t

    s = hcl.create_schedule([A], kernel)
    s.outline(kernel.S0)
    s.outline(kernel.S1, kernel.S2)
    s.outline([kernel.S3], [kernel.S4], unify=True)
    design = compile_schedule(s)
    assert design.outlined == ["Stage_S0", "Stage_S1_S2", "Stage_S3", "Stage_S4"]
    f = hcl.build(s)
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = np.zeros((4, 3), np.float32)
    f(a, out)
    expected = a
    for k in range(6):
        expected = expected * 2 + k
    np.testing.assert_allclose(out, expected)
