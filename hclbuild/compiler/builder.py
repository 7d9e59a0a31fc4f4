"""Traced program + schedule -> MLIR module (func, affine, scf, memref, arith, math), per docs/IR.md.

Built through the upstream Python bindings' op builders, never by printing text and parsing it.
Schedule primitives are applied here, while loops are generated: split/fuse/reorder/tile choose
the loop nest, pragmas become loop attributes, partitions and reshapes shape the buffers.
"""

from __future__ import annotations

import math as pymath
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, Callable

from mlir import ir
from mlir.dialects import affine, arith, func, math, memref, scf

from hclbuild.dsl import expr as E
from hclbuild.dsl import stmt as S
from hclbuild.dsl.functions import ScalarParam, ScalarRef, TracedFunction
from hclbuild.dsl.tensor import Tensor
from hclbuild.dsl.types import DType, Int, UInt
from hclbuild.errors import APIError, CompileError, HCLNotImplementedError
from hclbuild.schedule.loops import LoopNest
from hclbuild.schedule.schedule import Schedule, Stage


def mlir_type(dtype: DType) -> ir.Type:
    if dtype.is_float:
        return ir.F32Type.get() if dtype.bits == 32 else ir.F64Type.get()
    if dtype.is_index:
        return ir.IndexType.get()
    return ir.IntegerType.get_signless(dtype.bits)


def _str_array(values: list[str]) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.StringAttr.get(v) for v in values])


def _walk(node: Any, visit: Callable[[Any], None]) -> None:
    """Visit every expression/statement below node, not entering other functions or tensors."""
    if isinstance(node, (list, tuple)):
        for item in node:
            _walk(item, visit)
        return
    if not is_dataclass(node) or isinstance(node, (TracedFunction, ScalarParam)):
        return
    visit(node)
    for f in fields(node):
        value = getattr(node, f.name)
        if isinstance(value, (list, tuple)) or (is_dataclass(value) and not isinstance(value, type)):
            _walk(value, visit)


@dataclass
class ReturnTarget:
    """Where hcl.return_ writes: an element of a tensor (compute body) or a function's result slot."""

    flag: ir.Value
    slot: ir.Value
    indices: list[ir.Value]
    dtype: DType


class FunctionBuilder:
    """Emits one func.func body from a Scope's statements."""

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
        self.returns: list[ReturnTarget] = []
        self.merged_reduces: set[int] = set()  # Reduce ids that need no accumulator (top function)
        # the reduction loop nests (split/pipeline/unroll) of the stage being emitted
        self._reductions: dict[str, LoopNest] = {}
        for param, arg in zip(params, self.entry.arguments):
            if isinstance(param, Tensor):
                self.buffers[id(param)] = arg
                self.shapes[id(param)] = module_builder.shape_of(param)
            else:
                self.scalars[id(param)] = arg

    # ---- buffers -------------------------------------------------------------
    def alloc(self, name: str, dtype: DType, shape: tuple[int, ...], partitions: list[str] | None = None) -> ir.Value:
        op = memref.AllocOp(ir.MemRefType.get(list(shape), mlir_type(dtype)), [], [])
        op.attributes["name"] = ir.StringAttr.get(name)
        op.attributes["hcl.dtype"] = ir.StringAttr.get(dtype.name)
        if partitions:
            op.attributes["hcl.partition"] = _str_array(partitions)
        return op.result

    def prepare(self, body: list[S.Stmt], local_tensors: list[Tensor], skip: set[int]) -> None:
        """Allocate, at the top of the function, every buffer its body uses: tensors, accumulators,
        and the flags of hcl.return_ (kept at the top so outlining finds them as plain allocs)."""
        for tensor in local_tensors:
            if id(tensor) in skip or id(tensor) in self.buffers:
                continue
            self.buffers[id(tensor)] = self.alloc(tensor.name, tensor.dtype, self.mb.shape_of(tensor),
                                                  self.mb.partitions_of(tensor))
            self.shapes[id(tensor)] = self.mb.shape_of(tensor)

        def visit(node: Any) -> None:
            if isinstance(node, E.Reduce) and id(node) not in self.accumulators and \
                    id(node) not in self.merged_reduces:  # those accumulate in their output tensor
                self.accumulators[id(node)] = self.alloc(node.name, node.dtype, (1,))
            if isinstance(node, S.StageStmt) and node.has_return and id(node) not in self.accumulators:
                self.accumulators[id(node)] = self.alloc(f"{node.name}_returned", UInt(1), (1,))

        _walk(body, visit)

    # ---- statements ------------------------------------------------------------
    def emit_block(self, stmts: list[S.Stmt]) -> None:
        for k, stmt in enumerate(stmts):
            self.emit_stmt(stmt)
            rest = stmts[k + 1:]
            if rest and self.returns and S.contains_return([stmt]):
                # statements after a possible hcl.return_ run only while nothing has returned
                with self.unless_returned():
                    self.emit_block(rest)
                return

    def emit_stmt(self, stmt: S.Stmt) -> None:
        handler = getattr(self, f"stmt_{type(stmt).__name__}", None)
        if handler is None:
            raise CompileError(f"builder: no lowering for statement {type(stmt).__name__}")
        handler(stmt)

    def stmt_StageStmt(self, stage: S.StageStmt, top_level: bool = False) -> ir.Operation:
        sched_stage = self.mb.schedule.stages.get(stage.name) if top_level else None
        block = self.entry if top_level else None
        before = len(list(block.operations)) if block is not None else 0
        if stage.has_return:
            self.returns.append(None)  # type: ignore[arg-type]  # filled per element in ComputeLoops
        try:
            if (len(stage.body) == 1 and isinstance(stage.body[0], S.ComputeLoops) and sched_stage is not None
                    and sched_stage.merged_reductions):
                self.emit_merged_reduction(stage, stage.body[0], sched_stage)
            elif len(stage.body) == 1 and isinstance(stage.body[0], S.ComputeLoops):
                self.emit_compute_loops(stage, stage.body[0], sched_stage)
            elif len(stage.body) == 1 and _is_affine_for(stage.body[0]):
                self.stmt_For(stage.body[0])  # a top-level hcl.for_ with constant bounds is its own root
            else:
                loop = affine.AffineForOp(0, 1, 1)
                loop.attributes["loop_name"] = ir.StringAttr.get(f"{stage.name}_stage")
                with ir.InsertionPoint(loop.body):
                    self.emit_block(stage.body)
                    affine.AffineYieldOp([])
        finally:
            if stage.has_return:
                self.returns.pop()
        if block is None:
            return None  # type: ignore[return-value]
        ops = list(block.operations)[before:]
        if len(ops) != 1:
            raise CompileError(f"builder: stage {stage.name!r} produced {len(ops)} top-level ops, expected 1")
        root = ops[0]
        root.attributes["op_name"] = ir.StringAttr.get(stage.name)
        if sched_stage is not None and sched_stage.is_dataflow and sched_stage.dataflow_loop is None:
            root.attributes["dataflow"] = ir.UnitAttr.get()
        return root

    def stmt_ComputeLoops(self, loops: S.ComputeLoops) -> None:
        self.emit_compute_loops(None, loops, None)

    def emit_compute_loops(self, stage: S.StageStmt | None, loops: S.ComputeLoops, sched: Stage | None) -> None:
        nest = sched.spatial if sched is not None and sched.spatial is not None else \
            LoopNest.of_axes([(ax.name, ax.extent) for ax in loops.axes])
        self._reductions = sched.reductions if sched is not None else {}
        dataflow_loop = sched.dataflow_loop if sched is not None else None

        def body(values: dict[str, ir.Value]) -> None:
            for ax in loops.axes:
                self.vars[id(ax)] = values[ax.name]
            if stage is not None and stage.has_return:
                flag = self.accumulators[id(stage)]
                self.store_const_bool(flag, False)
                out = stage.output
                self.returns[-1] = ReturnTarget(flag, self.buffer(out), [values[ax.name] for ax in loops.axes],
                                                out.dtype)
            self.emit_block(loops.body)

        self.emit_nest(nest, body, dataflow_loop)

    def emit_merged_reduction(self, stage: S.StageStmt, loops: S.ComputeLoops, sched: Stage) -> None:
        """A stage whose reduction loops were reordered among its spatial loops (docs/IR.md: still one
        root op). `out[idx] = R(value, axis=...)` becomes, inside `affine.for 0 to 1 {<stage>_stage}`:
        a plain nest over the spatial axes (loops `<axis>_init`) storing R's init into out, then the
        scheduled merged nest doing `out[idx] = combine(out[idx], value)` (under `where`)."""
        store, reduce = _merged_reduce_form(stage, loops, sched)
        out = store.tensor
        assert sched.spatial is not None
        self._reductions = sched.reductions  # reductions nested in the value keep their own loops
        wrapper = affine.AffineForOp(0, 1, 1)
        wrapper.attributes["loop_name"] = ir.StringAttr.get(f"{stage.name}_stage")
        with ir.InsertionPoint(wrapper.body):
            init_nest = LoopNest.of_axes([(f"{ax.name}_init", ax.extent) for ax in loops.axes])

            def init_body(values: dict[str, ir.Value]) -> None:
                for ax in loops.axes:
                    self.vars[id(ax)] = values[f"{ax.name}_init"]
                value = self.convert(self.ev(reduce.init), reduce.init.dtype, out.dtype)
                memref.StoreOp(value, self.buffer(out), self.subscripts(out, store.indices))

            self.emit_nest(init_nest, init_body)

            def main_body(values: dict[str, ir.Value]) -> None:
                for ax in loops.axes:
                    self.vars[id(ax)] = values[ax.name]
                for ax in reduce.axes:
                    offset = values[ax.name]
                    if int(ax.lo) != 0:
                        offset = arith.AddIOp(offset, self.index_const(int(ax.lo))).result
                    self.vars[id(ax)] = offset
                self.reduce_step(reduce, self.buffer(out), lambda: self.subscripts(out, store.indices))

            self.emit_nest(sched.spatial, main_body, sched.dataflow_loop)
            affine.AffineYieldOp([])

    def emit_nest(self, nest: LoopNest, body: Callable[[dict[str, ir.Value]], None],
                  dataflow_loop: str | None = None) -> None:
        leaf_values: dict[str, ir.Value] = {}

        def level(k: int) -> None:
            if k == len(nest.leaves):
                values = {axis: self.index_expr(expr, leaf_values) for axis, expr in nest.binding.items()}
                if nest.guards:
                    cond = None
                    for expr, bound in nest.guards:
                        check = arith.CmpIOp(arith.CmpIPredicate.ult, self.index_expr(expr, leaf_values),
                                             self.index_const(bound)).result
                        cond = check if cond is None else arith.AndIOp(cond, check).result
                    guard = scf.IfOp(cond)
                    with ir.InsertionPoint(guard.then_block):
                        body(values)
                        scf.YieldOp([])
                else:
                    body(values)
                return
            leaf = nest.leaves[k]
            loop = affine.AffineForOp(0, leaf.extent, 1)
            loop.attributes["loop_name"] = ir.StringAttr.get(leaf.name)
            for key, value in leaf.attrs.items():
                if value is True:
                    loop.attributes[key] = ir.UnitAttr.get()
                else:
                    loop.attributes[key] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(value))
            if dataflow_loop == leaf.name:
                loop.attributes["dataflow"] = ir.UnitAttr.get()
            leaf_values[leaf.name] = loop.induction_variable
            with ir.InsertionPoint(loop.body):
                level(k + 1)
                affine.AffineYieldOp([])

        level(0)

    def index_expr(self, expr: tuple, leaves: dict[str, ir.Value]) -> ir.Value:
        kind = expr[0]
        if kind == "leaf":
            return leaves[expr[1]]
        if kind == "split":
            outer = self.index_expr(expr[1], leaves)
            inner = self.index_expr(expr[2], leaves)
            scaled = arith.MulIOp(outer, self.index_const(expr[3])).result
            return arith.AddIOp(scaled, inner).result
        if kind == "fused":
            fused = self.index_expr(expr[1], leaves)
            quotient = arith.DivUIOp(fused, self.index_const(expr[2])).result if expr[2] != 1 else fused
            return arith.RemUIOp(quotient, self.index_const(expr[3])).result
        raise CompileError(f"builder: unknown loop index expression {kind!r}")

    def stmt_Store(self, stmt: S.Store) -> None:
        value = self.convert(self.ev(stmt.value), stmt.value.dtype, stmt.tensor.dtype)
        memref.StoreOp(value, self.buffer(stmt.tensor), self.subscripts(stmt.tensor, stmt.indices))

    def stmt_StoreBits(self, stmt: S.StoreBits) -> None:
        tensor = stmt.tensor
        dt = tensor.dtype
        width_t = ir.IntegerType.get_signless(dt.bits)
        subs = self.subscripts(tensor, stmt.indices)
        old = memref.LoadOp(self.buffer(tensor), subs).result
        nbits = stmt.hi - stmt.lo
        ones = (1 << nbits) - 1
        if stmt.index is not None:
            shift = self.convert(self.ev(stmt.index), stmt.index.dtype, DType("uint", dt.bits))
        else:
            shift = self.int_const(stmt.lo, DType("uint", dt.bits))
        mask = arith.ShLIOp(self.int_const(ones, DType("uint", dt.bits)), shift).result
        value = self.convert(self.ev(stmt.value), stmt.value.dtype, UInt(nbits))
        value = arith.ExtUIOp(width_t, value).result if nbits < dt.bits else value
        placed = arith.ShLIOp(value, shift).result
        all_ones = self.int_const(-1, DType("int", dt.bits))
        cleared = arith.AndIOp(old, arith.XOrIOp(mask, all_ones).result).result
        new = arith.OrIOp(cleared, arith.AndIOp(placed, mask).result).result
        memref.StoreOp(new, self.buffer(tensor), subs)

    def stmt_For(self, stmt: S.For) -> None:
        lo, hi, step = stmt.lo, stmt.hi, stmt.step
        static = isinstance(lo, E.Const) and isinstance(hi, E.Const)
        if static and step > 0:
            loop = affine.AffineForOp(int(lo.value), int(hi.value), step)
            iv = loop.induction_variable
            body_block = loop.body
            terminator: Callable[[], Any] = lambda: affine.AffineYieldOp([])
            lo_v = None
        else:
            lo_v = self.ev_index(lo)
            hi_v = self.ev_index(hi)
            if step > 0:
                span = arith.SubIOp(hi_v, lo_v).result
            else:
                span = arith.SubIOp(lo_v, hi_v).result
            mag = abs(step)
            # trip count = max(0, ceil(span / |step|)); scf.for needs a positive step
            count = arith.CeilDivSIOp(span, self.index_const(mag)).result
            count = arith.MaxSIOp(count, self.index_const(0)).result
            loop = scf.ForOp(self.index_const(0), count, self.index_const(1))
            body_block = loop.body
            iv = None
            terminator = lambda: scf.YieldOp([])
        loop.attributes["loop_name"] = ir.StringAttr.get(stmt.name)
        with ir.InsertionPoint(body_block):
            if iv is None:
                k = loop.induction_variable
                offset = arith.MulIOp(k, self.index_const(step)).result
                iv = arith.AddIOp(lo_v, offset).result
            self.vars[id(stmt.var)] = iv
            if self.returns and S.contains_return(stmt.body):
                with self.unless_returned():
                    self.emit_block(stmt.body)
            else:
                self.emit_block(stmt.body)
            terminator()

    def stmt_If(self, stmt: S.If) -> None:
        cond = self.ev(stmt.cond)
        op = scf.IfOp(cond, [], has_else=bool(stmt.orelse))
        with ir.InsertionPoint(op.then_block):
            self.emit_block(stmt.body)
            scf.YieldOp([])
        if stmt.orelse:
            with ir.InsertionPoint(op.else_block):
                self.emit_block(stmt.orelse)
                scf.YieldOp([])

    def stmt_While(self, stmt: S.While) -> None:
        op = scf.WhileOp([], [])
        op.attributes["loop_name"] = ir.StringAttr.get(self.mb.fresh_loop_name("while"))
        before = op.before.blocks.append()
        after = op.after.blocks.append()
        with ir.InsertionPoint(before):
            cond = self.ev(stmt.cond)
            if self.returns and S.contains_return(stmt.body):
                cond = arith.AndIOp(cond, self.not_returned()).result
            scf.ConditionOp(cond, [])
        with ir.InsertionPoint(after):
            self.emit_block(stmt.body)
            scf.YieldOp([])

    def stmt_Return(self, stmt: S.Return) -> None:
        if not self.returns or self.returns[-1] is None:
            raise APIError("hcl.return_ outside a compute body or def_ function")
        target = self.returns[-1]
        with self.unless_returned():
            if stmt.value is not None:
                value = self.convert(self.ev(stmt.value), stmt.value.dtype, target.dtype)
                memref.StoreOp(value, target.slot, target.indices)
            self.store_const_bool(target.flag, True)

    def stmt_CallStmt(self, stmt: S.CallStmt) -> None:
        self.emit_call(stmt.function, stmt.args)

    def stmt_Alloc(self, stmt: S.Alloc) -> None:
        if id(stmt.tensor) not in self.buffers:
            raise CompileError(f"builder: tensor {stmt.tensor.name!r} was not allocated")

    # ---- return flags ------------------------------------------------------------
    def store_const_bool(self, flag: ir.Value, value: bool) -> None:
        memref.StoreOp(self.int_const(int(value), UInt(1)), flag, [self.index_const(0)])

    def not_returned(self) -> ir.Value:
        flag = memref.LoadOp(self.returns[-1].flag, [self.index_const(0)]).result
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

    # ---- expressions ---------------------------------------------------------------
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
            raise APIError(f"tensor {tensor.name!r} has {len(tensor.shape)} dimensions, indexed with {len(indices)}")
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

    def ev_index(self, expr: E.Expr) -> ir.Value:
        return self.convert(self.ev(expr), expr.dtype, DType("index", 64))

    def ev(self, expr: E.Expr) -> ir.Value:
        handler = getattr(self, f"expr_{type(expr).__name__}", None)
        if handler is None:
            raise CompileError(f"builder: no lowering for expression {type(expr).__name__}")
        return handler(expr)

    def expr_Const(self, expr: E.Const) -> ir.Value:
        dt = expr.dtype
        if dt.is_float:
            return arith.ConstantOp(mlir_type(dt), ir.FloatAttr.get(mlir_type(dt), float(expr.value))).result
        if dt.is_fixed:
            return self.int_const(pymath.floor(float(expr.value) * 2**dt.frac), dt)
        return self.int_const(int(expr.value), dt)

    def expr_Var(self, expr: E.Var) -> ir.Value:
        try:
            return self.vars[id(expr)]
        except KeyError:
            raise APIError(f"loop variable {expr.name!r} is used outside its loop") from None

    def expr_ScalarRef(self, expr: ScalarRef) -> ir.Value:
        try:
            return self.scalars[id(expr.param)]
        except KeyError:
            raise APIError(f"parameter {expr.param.name!r} used outside its def_ function") from None

    def expr_Load(self, expr: E.Load) -> ir.Value:
        return memref.LoadOp(self.buffer(expr.tensor), self.subscripts(expr.tensor, expr.indices)).result

    def expr_AccRef(self, expr: E.AccRef) -> ir.Value:
        return self.acc_values[-1]

    def expr_Cast(self, expr: E.Cast) -> ir.Value:
        return self.convert(self.ev(expr.value), expr.value.dtype, expr.dtype)

    def expr_Binary(self, expr: E.Binary) -> ir.Value:
        dt = expr.dtype
        op = expr.op
        if op in ("shl", "shr"):
            lhs = self.convert(self.ev(expr.lhs), expr.lhs.dtype, dt)
            amount_dt = DType("uint", dt.bits) if not dt.is_index else dt
            rhs = self.convert(self.ev(expr.rhs), expr.rhs.dtype, amount_dt)
            if op == "shl":
                return arith.ShLIOp(lhs, rhs).result
            return (arith.ShRSIOp if dt.is_signed else arith.ShRUIOp)(lhs, rhs).result
        if dt.is_fixed and op == "mul":
            # the raw product of the operands' raw bits: fractions add up, as in ap_fixed
            factors = []
            for operand in (expr.lhs, expr.rhs):
                src = operand.dtype if not operand.dtype.is_index else Int(32)
                raw = self.convert(self.ev(operand), operand.dtype, src)
                factors.append(self.resize(raw, src, dt.bits))
            return arith.MulIOp(factors[0], factors[1]).result
        lhs = self.convert(self.ev(expr.lhs), expr.lhs.dtype, dt)
        rhs = self.convert(self.ev(expr.rhs), expr.rhs.dtype, dt)
        if dt.is_float:
            return self.float_binary(op, lhs, rhs)
        if dt.is_fixed:
            return {"add": arith.AddIOp, "sub": arith.SubIOp}[op](lhs, rhs).result
        signed = dt.is_signed
        ops: dict[str, Any] = {
            "add": arith.AddIOp, "sub": arith.SubIOp, "mul": arith.MulIOp,
            "div": arith.DivSIOp if signed else arith.DivUIOp,
            "floordiv": arith.FloorDivSIOp if signed else arith.DivUIOp,
            "mod": arith.RemSIOp if signed else arith.RemUIOp,
            "and": arith.AndIOp, "or": arith.OrIOp, "xor": arith.XOrIOp,
        }
        if op == "floordiv" and signed and dt.bits > 64:
            return self.wide_floordiv(lhs, rhs, dt)
        return ops[op](lhs, rhs).result

    def wide_floordiv(self, lhs: ir.Value, rhs: ir.Value, dt: DType) -> ir.Value:
        """Floor division built from divsi/remsi: the LLVM lowering of arith.floordivsi returns
        wrong results beyond 64 bits (its expansion keeps only the low 64 bits)."""
        quotient = arith.DivSIOp(lhs, rhs).result
        remainder = arith.RemSIOp(lhs, rhs).result
        zero = self.int_const(0, dt)
        inexact = arith.CmpIOp(arith.CmpIPredicate.ne, remainder, zero).result
        signs_differ = arith.XOrIOp(arith.CmpIOp(arith.CmpIPredicate.slt, remainder, zero).result,
                                    arith.CmpIOp(arith.CmpIPredicate.slt, rhs, zero).result).result
        step = arith.ExtUIOp(mlir_type(dt), arith.AndIOp(inexact, signs_differ).result).result
        return arith.SubIOp(quotient, step).result

    def float_binary(self, op: str, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
        if op == "floordiv":
            return math.FloorOp(arith.DivFOp(lhs, rhs).result).result
        table = {"add": arith.AddFOp, "sub": arith.SubFOp, "mul": arith.MulFOp, "div": arith.DivFOp,
                 "mod": arith.RemFOp}
        if op not in table:
            raise CompileError(f"builder: '{op}' is not defined on floats")
        return table[op](lhs, rhs).result

    def expr_Compare(self, expr: E.Compare) -> ir.Value:
        dt = expr.operand_dtype
        lhs = self.convert(self.ev(expr.lhs), expr.lhs.dtype, dt)
        rhs = self.convert(self.ev(expr.rhs), expr.rhs.dtype, dt)
        if dt.is_float:
            pred = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "eq": "oeq", "ne": "une"}[expr.op]
            # the bindings spell float predicates in upper case (OLT), integer ones in lower (slt)
            return arith.CmpFOp(getattr(arith.CmpFPredicate, pred.upper()), lhs, rhs).result
        sign = "s" if dt.is_signed else "u"
        pred = {"lt": f"{sign}lt", "le": f"{sign}le", "gt": f"{sign}gt", "ge": f"{sign}ge", "eq": "eq",
                "ne": "ne"}[expr.op]
        return arith.CmpIOp(getattr(arith.CmpIPredicate, pred), lhs, rhs).result

    def expr_Logical(self, expr: E.Logical) -> ir.Value:
        values = [self.ev(a) for a in expr.args]
        if expr.op == "not":
            return arith.XOrIOp(values[0], self.int_const(1, UInt(1))).result
        combine = arith.AndIOp if expr.op == "and" else arith.OrIOp
        result = values[0]
        for value in values[1:]:
            result = combine(result, value).result
        return result

    def expr_Select(self, expr: E.Select) -> ir.Value:
        cond = self.ev(expr.cond)
        tv = self.convert(self.ev(expr.true_value), expr.true_value.dtype, expr.dtype)
        fv = self.convert(self.ev(expr.false_value), expr.false_value.dtype, expr.dtype)
        return arith.SelectOp(cond, tv, fv).result

    def expr_Intrinsic(self, expr: E.Intrinsic) -> ir.Value:
        args = [self.convert(self.ev(a), a.dtype, expr.dtype) for a in expr.args]
        if expr.name == "abs":
            if expr.dtype.is_float:
                return math.AbsFOp(args[0]).result
            return math.AbsIOp(args[0]).result
        if expr.name == "power":
            return math.PowFOp(args[0], args[1]).result
        table = {"exp": math.ExpOp, "log": math.LogOp, "log2": math.Log2Op, "log10": math.Log10Op,
                 "sqrt": math.SqrtOp, "sin": math.SinOp, "cos": math.CosOp, "tanh": math.TanhOp}
        return table[expr.name](args[0]).result

    def expr_GetBit(self, expr: E.GetBit) -> ir.Value:
        dt = expr.value.dtype
        value = self.ev(expr.value)
        amount = self.convert(self.ev(expr.index), expr.index.dtype, DType("uint", dt.bits))
        shifted = arith.ShRUIOp(value, amount).result
        return arith.TruncIOp(ir.IntegerType.get_signless(1), shifted).result if dt.bits > 1 else shifted

    def expr_GetSlice(self, expr: E.GetSlice) -> ir.Value:
        dt = expr.value.dtype
        value = self.ev(expr.value)
        if expr.lo:
            value = arith.ShRUIOp(value, self.int_const(expr.lo, DType("uint", dt.bits))).result
        width = expr.hi - expr.lo
        if width < dt.bits:
            value = arith.TruncIOp(ir.IntegerType.get_signless(width), value).result
        return value

    def expr_Reduce(self, expr: E.Reduce) -> ir.Value:
        acc = self.accumulators[id(expr)]
        zero = [self.index_const(0)]
        memref.StoreOp(self.convert(self.ev(expr.init), expr.init.dtype, expr.dtype), acc, zero)
        nests = self._reductions
        axes = list(expr.axes)

        def nest_for(k: int) -> None:
            if k == len(axes):
                self.reduce_step(expr, acc, lambda: [self.index_const(0)])
                return
            ax = axes[k]
            nest = nests.get(ax.name) or LoopNest.of_axes([(ax.name, ax.extent)])

            def body(values: dict[str, ir.Value]) -> None:
                offset = values[ax.name]
                if int(ax.lo) != 0:
                    offset = arith.AddIOp(offset, self.index_const(int(ax.lo))).result
                self.vars[id(ax)] = offset
                nest_for(k + 1)

            self.emit_nest(nest, body)

        nest_for(0)
        return memref.LoadOp(acc, zero).result

    def reduce_step(self, expr: E.Reduce, acc: ir.Value, subscripts: Callable[[], list[ir.Value]]) -> None:
        """acc[subscripts] = combine(acc[subscripts], value), under expr.where; acc holds expr.dtype."""
        def step() -> None:
            zero = subscripts()
            current = memref.LoadOp(acc, zero).result
            value = self.convert(self.ev(expr.value), expr.value.dtype, expr.dtype)
            dt = expr.dtype
            if expr.kind == "sum":
                new = (arith.AddFOp if dt.is_float else arith.AddIOp)(current, value).result
            elif expr.kind in ("max", "min"):
                if dt.is_float:
                    pred = arith.CmpFPredicate.OGT if expr.kind == "max" else arith.CmpFPredicate.OLT
                    better = arith.CmpFOp(pred, value, current).result
                else:
                    sign = "s" if dt.is_signed else "u"
                    pred = getattr(arith.CmpIPredicate, f"{sign}{'gt' if expr.kind == 'max' else 'lt'}")
                    better = arith.CmpIOp(pred, value, current).result
                new = arith.SelectOp(better, value, current).result
            else:
                self.acc_values.append(current)
                try:
                    new = self.convert(self.ev(expr.combine), expr.combine.dtype, dt)
                finally:
                    self.acc_values.pop()
            memref.StoreOp(new, acc, zero)

        if expr.where is not None:
            op = scf.IfOp(self.ev(expr.where))
            with ir.InsertionPoint(op.then_block):
                step()
                scf.YieldOp([])
        else:
            step()

    def expr_Call(self, expr: E.Call) -> ir.Value:
        return self.emit_call(expr.function, expr.args)

    def emit_call(self, traced: TracedFunction, args: tuple[Any, ...]) -> ir.Value | None:
        values = []
        for param, arg in zip(traced.scope.params, args):
            if isinstance(param, Tensor):
                values.append(self.buffer(arg))
            else:
                values.append(self.convert(self.ev(arg), arg.dtype, param.dtype))
        results = [mlir_type(traced.ret_dtype)] if traced.ret_dtype is not None else []
        call = func.CallOp(results, ir.FlatSymbolRefAttr.get(traced.name), values)
        return call.results[0] if results else None

    # ---- conversions -----------------------------------------------------------------
    def resize(self, value: ir.Value, src: DType, bits: int) -> ir.Value:
        """Sign/zero-extend or truncate an integer value of dtype src to `bits` bits."""
        if src.bits == bits:
            return value
        ty = ir.IntegerType.get_signless(bits)
        if src.bits > bits:
            return arith.TruncIOp(ty, value).result
        return (arith.ExtSIOp if src.is_signed else arith.ExtUIOp)(ty, value).result

    def convert(self, value: ir.Value, src: DType, dst: DType | None) -> ir.Value:
        """value of dtype src as dtype dst: ints wrap, fixed truncates (floor) and wraps, like ap types."""
        if dst is None or src == dst:
            return value
        if src.is_index:
            if dst.is_index:
                return value
            as_i64 = arith.IndexCastOp(ir.IntegerType.get_signless(64), value).result
            return self.convert(as_i64, Int(64), dst)
        if dst.is_index:
            as_i64 = self.convert(value, src, Int(64))
            return arith.IndexCastOp(ir.IndexType.get(), as_i64).result
        if src.is_float and dst.is_float:
            if src.bits < dst.bits:
                return arith.ExtFOp(mlir_type(dst), value).result
            return arith.TruncFOp(mlir_type(dst), value).result
        if src.is_int and dst.is_int:
            return self.resize(value, src, dst.bits)
        if src.is_int and dst.is_float:
            op = arith.SIToFPOp if src.is_signed else arith.UIToFPOp
            return op(mlir_type(dst), value).result
        if src.is_float and dst.is_int:
            # an i64 fptosi overflows for UInt(64) values >= 2**63 and for wider types: use i128 there
            wide = 64 if dst.bits < 64 or (dst.bits == 64 and dst.is_signed) else 128
            as_int = arith.FPToSIOp(ir.IntegerType.get_signless(wide), value).result
            return self.resize(as_int, Int(wide), dst.bits)
        if src.is_int and dst.is_fixed:
            work = max(dst.bits, src.bits + dst.frac) + 1
            wide = self.resize(value, src, work)
            if dst.frac:
                wide = arith.ShLIOp(wide, self.int_const(dst.frac, DType("uint", work))).result
            return self.resize(wide, DType("int", work), dst.bits)
        if src.is_fixed and dst.is_int:
            # C-native conversion: truncate toward zero
            work = max(src.bits + 2, dst.bits)
            wide = self.resize(value, src, work)
            if src.frac:
                divisor = self.int_const(1 << src.frac, DType("int", work))
                wide = (arith.DivSIOp if src.is_signed else arith.DivUIOp)(wide, divisor).result
            return self.resize(wide, DType("int" if src.is_signed else "uint", work), dst.bits)
        if src.is_fixed and dst.is_fixed:
            shift = dst.frac - src.frac
            work = max(src.bits, dst.bits) + abs(shift) + 1
            wide = self.resize(value, src, work)
            if shift > 0:
                wide = arith.ShLIOp(wide, self.int_const(shift, DType("uint", work))).result
            elif shift < 0:
                op = arith.ShRSIOp if src.is_signed else arith.ShRUIOp
                wide = op(wide, self.int_const(-shift, DType("uint", work))).result
            return self.resize(wide, DType("int", work), dst.bits)
        if src.is_fixed and dst.is_float:
            f64 = ir.F64Type.get()
            as_float = (arith.SIToFPOp if src.is_signed else arith.UIToFPOp)(f64, value).result
            scale = arith.ConstantOp(f64, ir.FloatAttr.get(f64, 2.0 ** -src.frac)).result
            scaled = arith.MulFOp(as_float, scale).result
            return self.convert(scaled, DType("float", 64), dst)
        if src.is_float and dst.is_fixed:
            f64 = ir.F64Type.get()
            value = self.convert(value, src, DType("float", 64))
            scale = arith.ConstantOp(f64, ir.FloatAttr.get(f64, float(2**dst.frac))).result
            floored = math.FloorOp(arith.MulFOp(value, scale).result).result
            as_int = arith.FPToSIOp(ir.IntegerType.get_signless(64), floored).result
            return self.resize(as_int, Int(64), dst.bits)
        raise CompileError(f"builder: no conversion from {src!r} to {dst!r}")


class ModuleBuilder:
    """Builds the whole module: def_ functions first, then the top function."""

    def __init__(self, schedule: Schedule, context: ir.Context | None = None):
        self.schedule = schedule
        self.context = context or ir.Context()
        self.function_ops: dict[int, func.FuncOp] = {}
        self.loop_counter = 0
        self.reshape_of = schedule.reshapes
        self.partition_of = schedule.partitions

    def fresh_loop_name(self, base: str) -> str:
        self.loop_counter += 1
        return f"{base}_{self.loop_counter - 1}"

    def shape_of(self, tensor: Tensor) -> tuple[int, ...]:
        return self.reshape_of.get(id(tensor), tensor.shape)

    def partitions_of(self, tensor: Tensor) -> list[str]:
        return [f"{kind}:{dim}:{factor}" for kind, dim, factor in self.partition_of.get(id(tensor), [])]

    def param_type(self, param: Any) -> ir.Type:
        if isinstance(param, Tensor):
            return ir.MemRefType.get(list(self.shape_of(param)), mlir_type(param.dtype))
        return mlir_type(param.dtype)

    def build(self) -> ir.Module:
        with self.context, ir.Location.unknown(self.context):
            module = ir.Module.create()
            with ir.InsertionPoint(module.body):
                for traced in self.schedule.program.functions:
                    self.build_function(traced)
                self.build_top()
            return module

    def _func(self, name: str, params: list[Any], results: list[ir.Type]) -> func.FuncOp:
        ftype = ir.FunctionType.get([self.param_type(p) for p in params], results)
        op = func.FuncOp(name, ftype)
        op.attributes["hcl.arg_names"] = _str_array([p.name for p in params])
        op.attributes["hcl.arg_types"] = _str_array([p.dtype.name for p in params])
        parts = [[s for s in self.partitions_of(p)] if isinstance(p, Tensor) else [] for p in params]
        if any(parts):
            op.attributes["hcl.arg_partitions"] = ir.ArrayAttr.get([_str_array(p) for p in parts])
        return op

    def build_function(self, traced: TracedFunction) -> None:
        scope = traced.scope
        results = [mlir_type(traced.ret_dtype)] if traced.ret_dtype is not None else []
        op = self._func(traced.name, scope.params, results)
        op.attributes["sym_visibility"] = ir.StringAttr.get("private")
        op.attributes["hcl.def"] = ir.UnitAttr.get()
        if traced.ret_dtype is not None:
            op.attributes["hcl.ret_type"] = ir.StringAttr.get(traced.ret_dtype.name)
        self.function_ops[id(traced)] = op
        fb = FunctionBuilder(self, op, scope, scope.params)
        with ir.InsertionPoint(fb.entry):
            fb.prepare(scope.body, scope.allocs, set())
            if traced.ret_dtype is not None:
                slot = fb.alloc(f"{traced.name}_result", traced.ret_dtype, (1,))
                flag = fb.alloc(f"{traced.name}_returned", UInt(1), (1,))
                fb.store_const_bool(flag, False)
                memref.StoreOp(fb.int_const(0, traced.ret_dtype) if not traced.ret_dtype.is_float else
                               arith.ConstantOp(mlir_type(traced.ret_dtype),
                                                ir.FloatAttr.get(mlir_type(traced.ret_dtype), 0.0)).result,
                               slot, [fb.index_const(0)])
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
        before = len(list(fb.entry.operations))
        fb.emit_call(stmt.function, stmt.args)
        ops = list(fb.entry.operations)[before:]
        if len(ops) != 1:
            raise CompileError(f"builder: call of {stmt.function.name!r} produced {len(ops)} ops, expected 1")
        ops[0].attributes["op_name"] = ir.StringAttr.get(_call_root_name(taken, stmt))
        return True

    def build_top(self) -> None:
        sched = self.schedule
        params = list(sched.inputs) + list(sched.outputs)
        op = self._func(sched.name, params, [])
        op.attributes["hcl.top"] = ir.UnitAttr.get()
        if sched.top_dataflow:
            op.attributes["dataflow"] = ir.UnitAttr.get()
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
                if len(stored) == 1 and isinstance(stored[0], S.Store) and isinstance(stored[0].value, E.Reduce):
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
                    last = list(fb.entry.operations)[-1]
                    last.attributes["op_name"] = ir.StringAttr.get(name)
            func.ReturnOp([])


def _call_root_name(taken: set[str], stmt: S.CallStmt) -> str:
    return _fresh_name(taken, f"call_{stmt.function.name}")


def _merged_reduce_form(stage: S.StageStmt, loops: S.ComputeLoops, sched: Stage) -> tuple[S.Store, E.Reduce]:
    """The Store and its Reduce of a stage whose reduction was reordered among its spatial loops,
    or HCLNotImplementedError when the stage is not of the one supported form."""
    merged = list(sched.merged_reductions)
    supported = (f"reordering reduction loops {merged} among the spatial loops of stage {stage.name!r} "
                 "is supported when the stage stores exactly one reduction (hcl.sum/max/min or an "
                 "hcl.reducer, with or without where=) over the merged axes, e.g. "
                 "hcl.compute(shape, lambda i, j: hcl.sum(A[i, k] * B[k, j], axis=k))")
    if stage.kind not in ("compute", "update") or stage.has_return or len(loops.body) != 1:
        raise HCLNotImplementedError(supported)
    store = loops.body[0]
    if not isinstance(store, S.Store) or not isinstance(store.value, E.Reduce):
        raise HCLNotImplementedError(supported + "; here the stored value is not a bare reduction")
    reduce = store.value
    if {ax.name for ax in reduce.axes} != set(merged):
        raise HCLNotImplementedError(
            supported + f"; here the reduction is over {[ax.name for ax in reduce.axes]} (merge all of its axes)")
    if reduce.dtype != store.tensor.dtype:
        raise HCLNotImplementedError(
            f"stage {stage.name!r}: reordering a reduction needs the compute dtype equal to the accumulator "
            f"dtype (the output {store.tensor.name!r} is {store.tensor.dtype.name}, the reduction accumulates "
            f"in {reduce.dtype.name}); give hcl.compute dtype={reduce.dtype.name!r} or the reduction "
            f"dtype={store.tensor.dtype.name!r}")
    reads_output: list[bool] = []

    def visit(node: Any) -> None:
        if isinstance(node, E.Load) and node.tensor is store.tensor:
            reads_output.append(True)
        if isinstance(node, E.Call) and any(arg is store.tensor for arg in node.args):
            reads_output.append(True)

    _walk([reduce.init, reduce.value, reduce.where, reduce.combine], visit)
    if reads_output:
        raise HCLNotImplementedError(
            supported + f"; here the reduction reads {store.tensor.name!r}, which then holds partial results")
    return store, reduce


def _is_affine_for(stmt: S.Stmt) -> bool:
    """A for_ that becomes one affine.for (constant bounds, positive step) and nothing before it."""
    return (isinstance(stmt, S.For) and isinstance(stmt.lo, E.Const) and isinstance(stmt.hi, E.Const)
            and stmt.step > 0)


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

