"""Per-function state of the builder: the buffers, scalars, loop variables and accumulators of one
func.func being built, allocs, subscripts of reshaped buffers, constants, and hcl.return_ flags.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, is_dataclass
from typing import TYPE_CHECKING, Any

from mlir import ir
from mlir.dialects import arith, func, memref, scf

from hclbuild.compiler import attrs
from hclbuild.compiler.attrs import ArrayPartition
from hclbuild.dsl import compound
from hclbuild.dsl import expr as E
from hclbuild.dsl import stmt as S
from hclbuild.dsl.functions import ScalarParam, TracedFunction
from hclbuild.dsl.tensor import Tensor
from hclbuild.dsl.types import DType, UInt
from hclbuild.errors import APIError, CompileError
from hclbuild.schedule.loops import LoopNest

if TYPE_CHECKING:
    from hclbuild.compiler.builder.module import ModuleBuilder
    from hclbuild.schedule.schedule import Stage


def mlir_type(dtype: DType) -> ir.Type:
    if dtype.is_float:
        return ir.F32Type.get() if dtype.bits == 32 else ir.F64Type.get()
    if dtype.is_index:
        return ir.IndexType.get()
    return ir.IntegerType.get_signless(dtype.bits)


def walk_nodes(node: Any, visit: Callable[[Any], None]) -> None:
    """Visit every expression/statement below node, not entering other functions or tensors."""
    if isinstance(node, (list, tuple)):
        for item in node:
            walk_nodes(item, visit)
        return
    if not is_dataclass(node) or isinstance(node, (TracedFunction, ScalarParam)):
        return
    visit(node)
    for f in fields(node):
        value = getattr(node, f.name)
        if isinstance(value, (list, tuple)) or (is_dataclass(value) and not isinstance(value, type)):
            walk_nodes(value, visit)


def _enclosing_stages(body: list[S.Stmt]) -> dict[int, str]:
    """The innermost stage holding each node below `body`, by id: accumulators are named after it
    (`conv_sum`), which is how an HLS engineer finds them in the C++ and the Vitis reports."""
    stages: dict[int, str] = {}
    for stage in _stages_outermost_first(body):

        def record(node: Any, name: str = stage.name) -> None:
            stages[id(node)] = name

        walk_nodes(stage.body, record)
    return stages


def _stages_outermost_first(body: list[S.Stmt]) -> list[S.StageStmt]:
    found: list[S.StageStmt] = []
    walk_nodes(body, lambda node: found.append(node) if isinstance(node, S.StageStmt) else None)
    return found


@dataclass
class ReturnTarget:
    """Where hcl.return_ writes: an element of a tensor (compute body) or a function's result slot."""

    flag: ir.Value
    slot: ir.Value
    indices: list[ir.Value]
    dtype: DType


class FunctionState:
    """What every lowering mixin of FunctionBuilder works on: one func.func body being built."""

    def __init__(self, module_builder: ModuleBuilder, fn: func.FuncOp, scope: Any, params: list[Any]):
        self.mb = module_builder
        self.fn = fn
        self.scope = scope
        self.entry = fn.add_entry_block()
        self.buffers: dict[int, ir.Value] = {}
        self.shapes: dict[int, tuple[int, ...]] = {}
        self.scalars: dict[int, ir.Value] = {}
        self.vars: dict[int, ir.Value] = {}
        self.acc_values: list[ir.Value] = []
        self.accumulators: dict[int, ir.Value] = {}
        # Reduce id -> (its value, the block it was computed in): a reduction used twice in one
        # expression (v = hcl.sum(...); hcl.select(v > 0, v, 0)) runs its loops once
        self.reduce_values: dict[int, tuple[ir.Value, ir.Block]] = {}
        # the innermost last; None while a stage with hcl.return_ is entered and until its loops
        # (ComputeLoops) set the element it returns into
        self.returns: list[ReturnTarget | None] = []
        self.merged_reduces: set[int] = set()  # Reduce ids that need no accumulator (top function)
        # the reduction loop nests (split/pipeline/unroll) of the stage being emitted
        self._reductions: dict[str, LoopNest] = {}
        # the plans of the hcl.for_ loops of the stage being emitted (schedule/stage.py)
        self.loop_plans: dict[str, LoopNest] = {}
        for param, arg in zip(params, self.entry.arguments):
            if isinstance(param, Tensor):
                self.buffers[id(param)] = arg
                self.shapes[id(param)] = module_builder.shape_of(param)
            else:
                self.scalars[id(param)] = arg

    if TYPE_CHECKING:
        # The lowerings call one another through self: FunctionBuilder (module.py) mixes them all in,
        # and each method named here is defined by the mixin in the comment beside it.
        def ev(self, expr: E.Expr) -> ir.Value: ...  # expressions.py
        def ev_index(self, expr: E.Expr) -> ir.Value: ...  # expressions.py
        def emit_call(self, traced: TracedFunction, args: tuple[Any, ...]) -> ir.Value | None: ...
        def convert(self, value: ir.Value, src: DType, dst: DType | None) -> ir.Value: ...  # conversions.py
        def resize(self, value: ir.Value, src: DType, bits: int) -> ir.Value: ...  # conversions.py
        def constant_buffer(self, tensor: Tensor) -> ir.Value: ...  # constants.py
        def check_read_only_arguments(  # constants.py
            self, callee: str, args: list[Any], values: list[ir.Value]
        ) -> None: ...
        def emit_block(self, stmts: list[S.Stmt]) -> None: ...  # statements.py
        def stmt_For(self, stmt: S.For) -> None: ...  # statements.py
        def emit_nest(  # stages.py
            self,
            nest: LoopNest,
            body: Callable[[dict[str, ir.Value]], None],
            dataflow_loop: str | None = None,
        ) -> None: ...
        def emit_merged_reduction(  # reductions.py
            self, stage: S.StageStmt, loops: S.ComputeLoops, sched: Stage
        ) -> None: ...

    # ---- buffers -------------------------------------------------------------
    def alloc(
        self, name: str, dtype: DType, shape: tuple[int, ...], partitions: list[ArrayPartition] | None = None
    ) -> ir.Value:
        op = memref.AllocOp(ir.MemRefType.get(list(shape), mlir_type(dtype)), [], [])
        attrs.set_buffer_name(op, name)
        attrs.set_buffer_dtype(op, dtype.name)
        attrs.set_buffer_partitions(op, partitions or [])
        return op.result

    def prepare(self, body: list[S.Stmt], local_tensors: list[Tensor], skip: set[int]) -> None:
        """Allocate, at the top of the function, every buffer its body uses: tensors, accumulators,
        and the flags of hcl.return_ (kept at the top so outlining finds them as plain allocs)."""
        for tensor in local_tensors:
            if id(tensor) in skip or id(tensor) in self.buffers:
                continue
            if tensor.kind == "const":  # hcl.const_tensor: a module-level constant global
                self.buffers[id(tensor)] = self.constant_buffer(tensor)
                self.shapes[id(tensor)] = tensor.shape
                continue
            self.buffers[id(tensor)] = self.alloc(
                tensor.name, tensor.dtype, self.mb.shape_of(tensor), self.mb.partitions_of(tensor)
            )
            attrs.set_storage_type(self.buffers[id(tensor)].owner, self.mb.storage_type_of.get(id(tensor)))
            self.shapes[id(tensor)] = self.mb.shape_of(tensor)

        def visit(node: Any) -> None:
            if (
                isinstance(node, compound.Reduce)
                and id(node) not in self.accumulators
                and id(node) not in self.merged_reduces
            ):  # those accumulate in their output tensor
                name = node.name if node.named else f"{stages.get(id(node), 'reduce')}_{node.kind}"
                self.accumulators[id(node)] = self.alloc(name, node.dtype, (1,))
            if isinstance(node, S.StageStmt) and node.has_return and id(node) not in self.accumulators:
                self.accumulators[id(node)] = self.alloc(f"{node.name}_returned", UInt(1), (1,))
            if isinstance(node, compound.ImperativeValue) and id(node) not in self.accumulators:
                self.accumulators[id(node)] = (
                    self.alloc("reducer_value", node.dtype, (1,)),
                    self.alloc("reducer_returned", UInt(1), (1,)),
                )

        stages = _enclosing_stages(body)
        walk_nodes(body, visit)

    # ---- return flags ------------------------------------------------------------
    def store_const_bool(self, flag: ir.Value, value: bool) -> None:
        memref.StoreOp(self.int_const(int(value), UInt(1)), flag, [self.index_const(0)])

    def not_returned(self) -> ir.Value:
        target = self.returns[-1] if self.returns else None
        if target is None:
            raise CompileError("builder: hcl.return_ outside a function or stage that returns")
        flag = memref.LoadOp(target.flag, [self.index_const(0)]).result
        return arith.XOrIOp(flag, self.int_const(1, UInt(1))).result

    def unless_returned(self) -> Any:
        builder = self

        class _Guard:
            def __enter__(self_inner) -> None:
                op = scf.IfOp(builder.not_returned())
                self_inner.ip = ir.InsertionPoint(op.then_block)
                self_inner.ip.__enter__()

            def __exit__(self_inner, *exc: Any) -> None:
                if exc[0] is None:
                    scf.YieldOp([])
                self_inner.ip.__exit__(*exc)

        return _Guard()

    # ---- buffers and constants ---------------------------------------------------------
    def buffer(self, tensor: Tensor) -> ir.Value:
        try:
            return self.buffers[id(tensor)]
        except KeyError:
            raise APIError(
                f"tensor {tensor.name!r} is used in function {self.scope.name!r} but is not one of its "
                "inputs, outputs or local tensors (pass it as an argument)"
            ) from None

    def subscripts(self, tensor: Tensor, indices: tuple[E.Expr, ...]) -> list[ir.Value]:
        if len(indices) != len(tensor.shape):
            raise APIError(
                f"tensor {tensor.name!r} has {len(tensor.shape)} dimensions, indexed with {len(indices)}"
            )
        values = [self.ev_index(i) for i in indices]
        shape = self.shapes.get(id(tensor), tensor.shape)
        if shape == tensor.shape:
            return values
        # reshaped buffer: row-major linear index, then the new shape's subscripts
        linear = values[0]
        for value, dim in zip(values[1:], tensor.shape[1:]):
            linear = arith.AddIOp(arith.MulIOp(linear, self.index_const(dim)).result, value).result
        subs = []
        stride = 1
        for dim in shape[1:]:
            stride *= dim
        for k, dim in enumerate(shape):
            quotient = arith.DivUIOp(linear, self.index_const(stride)).result if stride != 1 else linear
            subs.append(arith.RemUIOp(quotient, self.index_const(dim)).result if k else quotient)
            if k + 1 < len(shape):
                stride //= shape[k + 1]
        return subs

    def fixed(self, value: ir.Value, dtype: DType) -> ir.Value:
        """`value`, recorded as the raw bits of fixed-point `dtype` (hcl.fixed on the op making it):
        the HLS emitter writes ap_fixed arithmetic where that gives the op's bits. Types with
        quantization or overflow modes are not recorded: their conversions stay integer steps."""
        if dtype.is_fixed and not dtype.has_modes and isinstance(value, ir.OpResult):
            attrs.set_fixed_type(value.owner, dtype.name)
        return value

    def index_const(self, value: int) -> ir.Value:
        return arith.ConstantOp(ir.IndexType.get(), int(value)).result

    def int_const(self, value: int, dtype: DType) -> ir.Value:
        if dtype.is_index:
            return self.index_const(value)
        raw = int(value) & ((1 << dtype.bits) - 1)
        signed = raw - (1 << dtype.bits) if raw >> (dtype.bits - 1) else raw
        ty = ir.IntegerType.get_signless(dtype.bits)
        if dtype.bits <= 64:
            return arith.ConstantOp(ty, ir.IntegerAttr.get(ty, signed)).result
        return arith.ConstantOp(ty, ir.Attribute.parse(f"{signed} : i{dtype.bits}")).result
