"""The module builder: def_ functions first, then the top function with one root op per stage;
the schedule's reshapes and partitions become buffer shapes and attributes here.
"""

from __future__ import annotations

from typing import Any

from mlir import ir
from mlir.dialects import arith, func, memref

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.attrs import ArrayPartition
from hclbuild.compiler.builder.bits import BitLowering
from hclbuild.compiler.builder.constants import ConstantLowering, dense_values, writes_argument
from hclbuild.compiler.builder.conversions import ConversionLowering
from hclbuild.compiler.builder.expressions import ExpressionLowering
from hclbuild.compiler.builder.reductions import ReductionLowering
from hclbuild.compiler.builder.stages import StageLowering
from hclbuild.compiler.builder.state import ReturnTarget, mlir_type
from hclbuild.compiler.builder.statements import StatementLowering
from hclbuild.compiler.context import new_context
from hclbuild.dsl import compound
from hclbuild.dsl import stmt as S
from hclbuild.dsl.functions import TracedFunction
from hclbuild.dsl.tensor import Tensor
from hclbuild.dsl.types import UInt
from hclbuild.errors import CompileError
from hclbuild.schedule.schedule import Schedule


class FunctionBuilder(
    StatementLowering,
    StageLowering,
    ReductionLowering,
    ExpressionLowering,
    BitLowering,
    ConstantLowering,
    ConversionLowering,
):
    """Emits one func.func body from a Scope's statements."""


class ModuleBuilder:
    """Builds the whole module: def_ functions first, then the top function."""

    def __init__(self, schedule: Schedule, context: ir.Context | None = None):
        self.schedule = schedule
        self.context = context or new_context()
        self.function_ops: dict[int, func.FuncOp] = {}
        self.loop_counter = 0
        self.reshape_of = schedule.reshapes
        self.partition_of = schedule.partitions
        self.storage_type_of = schedule.storage_types
        self.module: ir.Module | None = None
        self.globals: dict[int, str] = {}  # id(const tensor) -> its memref.global's symbol
        self.prints: dict[tuple, str] = {}  # (format, arg dtype names) -> hcl.print declaration

    def fresh_loop_name(self, base: str) -> str:
        self.loop_counter += 1
        return f"{base}_{self.loop_counter - 1}"

    def shape_of(self, tensor: Tensor) -> tuple[int, ...]:
        return self.reshape_of.get(id(tensor), tensor.shape)

    def partitions_of(self, tensor: Tensor) -> list[ArrayPartition]:
        return list(self.partition_of.get(id(tensor), []))

    def declare_global(self, tensor: Tensor) -> str:
        """The symbol of the constant memref.global holding a const tensor, created at the module's
        start the first time a function reads the tensor (tensor names are unique in a program)."""
        if id(tensor) not in self.globals:
            symbol = f"hcl_const_{tensor.name}"
            with ir.InsertionPoint.at_block_begin(self._module_body()):
                memref.GlobalOp(
                    symbol,
                    ir.MemRefType.get(list(tensor.shape), mlir_type(tensor.dtype)),
                    sym_visibility="private",
                    initial_value=dense_values(tensor),
                    constant=True,
                )
            self.globals[id(tensor)] = symbol
        return self.globals[id(tensor)]

    def _module_body(self) -> ir.Block:
        if self.module is None:
            raise CompileError("builder: a module-level symbol was declared outside build()")
        return self.module.body

    def print_function(self, fmt: str, dtypes: list[Any]) -> str:
        """The private declaration `@hcl_print_<k>(args)` {hcl.print = fmt} that hcl.print calls;
        to_llvm defines it with printf, the C++ emitter prints in place (docs/IR.md, "Calls")."""
        key = (fmt, tuple(d.name for d in dtypes))
        if key not in self.prints:
            name = f"hcl_print_{len(self.prints)}"
            with ir.InsertionPoint.at_block_begin(self._module_body()):
                op = func.FuncOp(name, ir.FunctionType.get([mlir_type(d) for d in dtypes], []))
            upstream.set_private(op)
            attrs.set_print_format(op, fmt)
            attrs.set_arg_names(op, [f"v{k}" for k in range(len(dtypes))])
            attrs.set_arg_types(op, [d.name for d in dtypes])
            self.prints[key] = name
        return self.prints[key]

    def writes_argument(self, callee: str, index: int) -> bool:
        """Whether the def_ function @callee (built already: callees come first) writes argument index."""
        ops = {upstream.symbol_name(op): op for op in self.function_ops.values()}
        return writes_argument(ops, callee, index)

    def param_type(self, param: Any) -> ir.Type:
        if isinstance(param, Tensor):
            return ir.MemRefType.get(list(self.shape_of(param)), mlir_type(param.dtype))
        return mlir_type(param.dtype)

    def build(self) -> ir.Module:
        with self.context, ir.Location.unknown(self.context):
            module = ir.Module.create()
            self.module = module
            with ir.InsertionPoint(module.body):
                for traced in self.schedule.program.functions:
                    self.build_function(traced)
                self.build_top()
            return module

    def _func(self, name: str, params: list[Any], results: list[ir.Type]) -> func.FuncOp:
        ftype = ir.FunctionType.get([self.param_type(p) for p in params], results)
        op = func.FuncOp(name, ftype)
        attrs.set_arg_names(op, [p.name for p in params])
        attrs.set_arg_types(op, [p.dtype.name for p in params])
        attrs.set_arg_partitions(op, [self.partitions_of(p) if isinstance(p, Tensor) else [] for p in params])
        return op

    def build_function(self, traced: TracedFunction) -> None:
        scope = traced.scope
        results = [mlir_type(traced.ret_dtype)] if traced.ret_dtype is not None else []
        op = self._func(traced.name, scope.params, results)
        upstream.set_private(op)
        attrs.mark_def(op)
        if traced.ret_dtype is not None:
            attrs.set_ret_type(op, traced.ret_dtype.name)
        self.function_ops[id(traced)] = op
        fb = FunctionBuilder(self, op, scope, scope.params)
        with ir.InsertionPoint(fb.entry):
            fb.prepare(scope.body, scope.allocs, set())
            if traced.ret_dtype is not None:
                slot = fb.alloc(f"{traced.name}_result", traced.ret_dtype, (1,))
                flag = fb.alloc(f"{traced.name}_returned", UInt(1), (1,))
                fb.store_const_bool(flag, False)
                memref.StoreOp(
                    fb.int_const(0, traced.ret_dtype)
                    if not traced.ret_dtype.is_float
                    else arith.ConstantOp(
                        mlir_type(traced.ret_dtype), ir.FloatAttr.get(mlir_type(traced.ret_dtype), 0.0)
                    ).result,
                    slot,
                    [fb.index_const(0)],
                )
                fb.returns.append(ReturnTarget(flag, slot, [fb.index_const(0)], traced.ret_dtype))
                fb.emit_block(scope.body)
                result = memref.LoadOp(slot, [fb.index_const(0)]).result
                func.ReturnOp([result])
            else:
                fb.emit_block(scope.body)
                func.ReturnOp([])

    def _call_root(self, fb: FunctionBuilder, stmt: S.CallStmt, taken: set[str]) -> bool:
        """A def_ call straight in the algorithm is a stage whose root is the func.call itself,
        when it needs no argument conversions; False (nothing emitted) otherwise."""
        if any(not isinstance(arg, Tensor) for arg in stmt.args):
            return False
        # len() and indexing count in C++ (a Python list of every op, per call, was quadratic)
        before = len(fb.entry.operations)
        fb.emit_call(stmt.function, stmt.args)
        made = len(fb.entry.operations) - before
        if made != 1:
            raise CompileError(f"builder: call of {stmt.function.name!r} produced {made} ops, expected 1")
        attrs.set_stage_name(fb.entry.operations[before], _call_root_name(taken, stmt))
        return True

    def build_top(self) -> None:
        sched = self.schedule
        params = list(sched.inputs) + list(sched.outputs)
        op = self._func(sched.name, params, [])
        attrs.mark_top(op)
        # 0-d placeholders: candidates for C scalars by value (passes/scalar_args.py keeps the read-only ones)
        attrs.set_scalar_args(op, [p.name for p in params if isinstance(p, Tensor) and p.zero_dim])
        if sched.top_dataflow:
            attrs.mark_dataflow(op)
        scope = sched.program.top
        fb = FunctionBuilder(self, op, scope, params)
        # the Reduce of each top-level stage whose reduction loops were reordered among its spatial
        # loops accumulates in the output tensor: it gets no accumulator
        for stmt in scope.body:
            stage = sched.stages.get(stmt.name) if isinstance(stmt, S.StageStmt) else None
            if stage is None or stage.stmt is not stmt or not stage.merged_reductions:
                continue
            body = stmt.body
            if len(body) == 1 and isinstance(body[0], S.ComputeLoops):
                stored = body[0].body
                if (
                    len(stored) == 1
                    and isinstance(stored[0], S.Store)
                    and isinstance(stored[0].value, compound.Reduce)
                ):
                    fb.merged_reduces.add(id(stored[0].value))
        with ir.InsertionPoint(fb.entry):
            fb.prepare(scope.body, scope.allocs, {id(t) for t in params})
            # stage names are picked from a copy of the traced names: the program is not changed by
            # building, so lowering a schedule twice gives the same IR (and the same JIT cache key)
            taken = set(sched.program.used_names)
            for stmt in scope.body:
                if isinstance(stmt, S.StageStmt):
                    fb.stmt_StageStmt(stmt, top_level=True)
                elif isinstance(stmt, S.CallStmt) and self._call_root(fb, stmt, taken):
                    continue
                else:
                    # imperative code straight in the algorithm: its own stage, wrapped in a 1-trip loop
                    name = _fresh_name(taken, "stage")
                    wrapper = S.StageStmt(name, "imperative", [stmt])
                    fb.stmt_StageStmt(wrapper, top_level=False)
                    last = fb.entry.operations[len(fb.entry.operations) - 1]
                    attrs.set_stage_name(last, name)
            func.ReturnOp([])


def _call_root_name(taken: set[str], stmt: S.CallStmt) -> str:
    return _fresh_name(taken, f"call_{stmt.function.name}")


def _fresh_name(taken: set[str], base: str) -> str:
    """base, else base_1, base_2, ...: the first name not in taken, which it is added to."""
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    return name


def build_module(schedule: Schedule) -> ir.Module:
    """The schedule's program as an MLIR module (before outlining), per docs/IR.md."""
    return ModuleBuilder(schedule).build()
