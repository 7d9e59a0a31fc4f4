"""Traced program + schedule -> MLIR module (func, affine, scf, memref, arith, math), per docs/IR.md.

Built through the upstream Python bindings' op builders, never by printing text and parsing it.
Schedule primitives are applied here, while loops are generated: split/fuse/reorder/tile choose
the loop nest, pragmas become loop attributes, partitions and reshapes shape the buffers.

Package layout (one concern a module; FunctionBuilder is assembled from the mixins):
- module: ModuleBuilder (def_ functions, the top function and its stages; reshapes and partitions
  of the schedule as buffer shapes and attributes) and build_module.
- state: per-function state (buffers, scalars, loop variables, accumulators, hcl.return_ flags),
  allocs, subscripts of reshaped buffers, constants; mlir_type.
- statements: one stmt_<Class> method per dsl.stmt node (stores, for/if/while, return, calls).
- stages: stage roots and loop nests, where the schedule (split/fuse/reorder/tile, pragmas,
  dataflow) shapes the loops.
- reductions: hcl.sum/max/min/reducer, and reductions reordered among the spatial loops.
- expressions: one expr_<Class> method per dsl.expr node (arith/math/calls).
- bits: bit and slice reads and writes, bit reversal, bitcasts (struct fields are built on these).
- conversions: one dtype to another (ints, fixed point, floats, index).
A new statement or expression node is one stmt_<Class>/expr_<Class> method in the module of its
concern: emit_stmt and ev dispatch on the node's class name.
"""

from hclbuild.compiler.builder.module import FunctionBuilder, ModuleBuilder, build_module
from hclbuild.compiler.builder.state import FunctionState, ReturnTarget, mlir_type

__all__ = ["FunctionBuilder", "FunctionState", "ModuleBuilder", "ReturnTarget", "build_module", "mlir_type"]
