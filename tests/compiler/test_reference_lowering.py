"""How the reference is lowered and compiled: work estimates, optnone tiers, zeroed buffers, per-function objects."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from mlir import ir

from hclbuild.code_units import unresolved
from hclbuild.compiler.passes.split_llvm_units import split_llvm_units
from hclbuild.compiler.signature import top_signature
from hclbuild.compiler.to_llvm import RUN_ONCE_OPTNONE_WORK, lower_to_llvm_ir, lower_to_llvm_units
from hclbuild.compiler.work_estimate import UNKNOWN, function_work
from hclbuild.runtime import llvm_objects
from hclbuild.runtime.llvm import JITModule, _host_cpu, _target_machine
from hclbuild.runtime.llvm_objects import compile_objects

DESIGN = """
func.func private @small(%A: memref<4x4xf32>, %B: memref<4x4xf32>) attributes {hcl.outlined} {
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 4 {
      %a = memref.load %A[%i, %j] : memref<4x4xf32>
      memref.store %a, %B[%i, %j] : memref<4x4xf32>
    }
  }
  return
}
func.func private @big(%A: memref<512x512xf32>) attributes {hcl.outlined} {
  %two = arith.constant 2.0 : f32
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 512 {
      %a = memref.load %A[%i, %j] : memref<512x512xf32>
      %b = arith.mulf %a, %two : f32
      memref.store %b, %A[%i, %j] : memref<512x512xf32>
    }
  }
  return
}
func.func @top(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<512x512xf32>)
    attributes {hcl.top, hcl.arg_names = ["A", "B", "C"],
                hcl.arg_types = ["float32", "float32", "float32"]} {
  %T = memref.alloc() {hcl.name = "T"} : memref<4x4xf32>
  affine.for %r = 0 to 3 {
    func.call @small(%A, %T) : (memref<4x4xf32>, memref<4x4xf32>) -> ()
  }
  func.call @small(%T, %B) : (memref<4x4xf32>, memref<4x4xf32>) -> ()
  func.call @big(%C) : (memref<512x512xf32>) -> ()
  return
}
"""


def parse(text: str) -> ir.Module:
    return ir.Module.parse(text, ir.Context())


def test_work_counts_accesses_times_trips_and_calls() -> None:
    module = parse(DESIGN)
    with module.context:
        work = function_work(module)
    assert work == {"small": 4 * 4 * 2 * (3 + 1), "big": 512 * 512 * 2, "top": 0}


def test_unknown_trip_counts_are_large() -> None:
    module = parse("""
func.func @top(%A: memref<?xf32>, %n: index) attributes {hcl.top} {
  affine.for %i = 0 to %n {
    %a = memref.load %A[%i] : memref<?xf32>
    memref.store %a, %A[%i] : memref<?xf32>
  }
  return
}""")
    with module.context:
        assert function_work(module)["top"] == UNKNOWN


def _attributes(text: str, name: str) -> str:
    define = next(line for line in text.splitlines() if line.startswith("define") and f"@{name}(" in line)
    groups = re.findall(r"#\d+", define[define.rfind(")") :])
    return " ".join(re.search(rf"^attributes {g} = \{{(.*)\}}$", text, re.M).group(1) for g in groups)


def test_run_once_leaves_light_functions_unoptimised() -> None:
    module = parse(DESIGN)
    text = lower_to_llvm_ir(module, run_once=True)
    assert "optnone" in _attributes(text, "small").split()
    assert "optnone" in _attributes(text, "top").split()
    assert "optnone" not in _attributes(text, "big").split()  # 512*512*2 > RUN_ONCE_OPTNONE_WORK
    assert 512 * 512 * 2 > RUN_ONCE_OPTNONE_WORK >= 4 * 4 * 2 * 4
    assert "optnone" not in lower_to_llvm_ir(module)  # a callable used many times is optimised


def test_run_once_buffers_start_zeroed_and_results_match_numpy() -> None:
    module = parse(DESIGN)
    text = lower_to_llvm_ir(module, run_once=True)
    assert "call ptr @calloc(i64 1," in text and "@malloc" not in text
    a = np.arange(16, dtype=np.float32).reshape(4, 4)
    b = np.zeros((4, 4), np.float32)
    c = np.ones((512, 512), np.float32)
    JITModule(lower_to_llvm_units(module, run_once=True)).function(top_signature(module))(a, b, c)
    np.testing.assert_array_equal(b, a)
    np.testing.assert_array_equal(c, 2 * np.ones((512, 512), np.float32))


def test_units_are_one_per_function_with_callee_declarations() -> None:
    units = {unit.name: unit for unit in lower_to_llvm_units(parse(DESIGN), run_once=True)}
    assert list(units) == ["small", "big", "top", "_mlir_ciface_top"]
    top = units["top"]
    assert re.search(r"^declare void @small\(", top.text, re.M) and re.search(
        r"^declare void @big\(", top.text, re.M
    )
    assert "define void @small(" not in top.text
    # the zeroing allocator is internal: the unit using it gets its own copy, calling calloc/free
    assert "define internal ptr @_mlir_memref_to_llvm_alloc(i64 %0)" in top.text
    assert top.defines == ("top",) and set(top.externals) == {"small", "big", "calloc", "free"}
    assert units["_mlir_ciface_top"].entry and not top.entry
    assert units["small"].light and units["top"].light and not units["big"].light
    assert unresolved(list(units.values())) == {"calloc", "free"}


LOWERED = """
llvm.mlir.global private constant @table(dense<[1, 2]> : tensor<2xi32>) : !llvm.array<2 x i32>
llvm.mlir.global internal @{counter}() : i32
llvm.func @f() -> i32 {
  %p = llvm.mlir.addressof @table : !llvm.ptr
  %v = llvm.load %p : !llvm.ptr -> i32
  llvm.return %v : i32
}
llvm.func @g() -> i32 {
  %v = llvm.call @f() : () -> i32
  llvm.return %v : i32
}
"""


def test_a_constant_global_goes_with_each_unit_reading_it() -> None:
    module = parse(LOWERED.replace("llvm.mlir.global internal @{counter}() : i32\n", ""))
    with module.context:
        units = {unit.name: unit for unit in split_llvm_units(module)}
    assert list(units) == ["f", "g"]
    assert "@table = private constant [2 x i32] [i32 1, i32 2]" in units["f"].text
    assert "@table" not in units["g"].text and units["g"].externals == ("f",)


def test_a_module_with_a_global_it_writes_is_one_unit() -> None:
    module = parse(LOWERED.replace("{counter}", "counter"))
    with module.context:
        units = split_llvm_units(module)
    assert [(unit.name, unit.defines) for unit in units] == [("<module>", ("f", "g"))]


def test_objects_on_disk_are_reused_and_only_a_changed_function_recompiles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(llvm_objects, "_OBJECTS", {})  # the process cache would hide the disk cache
    JITModule("")  # sets up LLVM
    machines = {0: _target_machine(0), 3: _target_machine(3)}
    cpu, features = _host_cpu()
    units = lower_to_llvm_units(parse(DESIGN), run_once=True)
    _, compiled = compile_objects(units, 3, machines, cpu, features, tmp_path)
    assert compiled == len(units) == len(list(tmp_path.glob("*.o")))
    monkeypatch.setattr(llvm_objects, "_OBJECTS", {})
    _, compiled = compile_objects(units, 3, machines, cpu, features, tmp_path)
    assert compiled == 0
    changed = lower_to_llvm_units(parse(DESIGN.replace("2.0 : f32", "3.0 : f32")), run_once=True)
    _, compiled = compile_objects(changed, 3, machines, cpu, features, tmp_path)
    assert compiled == 1  # only @big
    assert len(list(tmp_path.glob("*.o"))) == len(units)  # the old @big object was removed
