"""Statement lowering: one stmt_<Class> method per dsl.stmt node (stores, loops, conditionals,
hcl.return_, calls); emit_stmt dispatches on the node's class name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeGuard

from mlir import ir
from mlir.dialects import affine, arith, func, memref, scf

from hclbuild.compiler import attrs
from hclbuild.compiler.attrs import LoopDirectives
from hclbuild.compiler.builder.state import FunctionState
from hclbuild.dsl import expr as E
from hclbuild.dsl import stmt as S
from hclbuild.errors import APIError, CompileError


def _affine_yield() -> Any:
    return affine.AffineYieldOp([])


def _scf_yield() -> Any:
    return scf.YieldOp([])


class StatementLowering(FunctionState):
    """dsl.stmt nodes -> affine/scf/memref ops."""

    def emit_block(self, stmts: list[S.Stmt]) -> None:
        for k, stmt in enumerate(stmts):
            self.emit_stmt(stmt)
            rest = stmts[k + 1 :]
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

    def stmt_Store(self, stmt: S.Store) -> None:
        value = self.convert(self.ev(stmt.value), stmt.value.dtype, stmt.tensor.dtype)
        memref.StoreOp(value, self.buffer(stmt.tensor), self.subscripts(stmt.tensor, stmt.indices))

    def stmt_For(self, stmt: S.For) -> None:
        plan = self.loop_plans.get(stmt.name)
        if plan is not None and (len(plan.leaves) != 1 or plan.leaves[0].name != stmt.name):
            self.emit_planned_for(stmt, plan)  # split or fused by the schedule
            return
        pragmas = plan.leaves[0].directives if plan is not None else LoopDirectives()
        lo, hi, step = stmt.lo, stmt.hi, stmt.step
        if isinstance(step, E.Expr):
            self.emit_runtime_step_for(stmt, step, pragmas)
            return
        static = isinstance(lo, E.Const) and isinstance(hi, E.Const)
        if static and step > 0:
            loop = affine.AffineForOp(int(lo.value), int(hi.value), step)
            iv = loop.induction_variable
            body_block = loop.body
            terminator: Callable[[], Any] = _affine_yield
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
            terminator = _scf_yield
        attrs.set_loop_name(loop, stmt.name)
        attrs.set_loop_directives(loop, pragmas)
        if iv is None and stmt.max_trip is not None:
            attrs.set_max_trip(loop, stmt.max_trip)
        with ir.InsertionPoint(body_block):
            if iv is None:
                k = loop.induction_variable
                offset = arith.MulIOp(k, self.index_const(step)).result
                iv = arith.AddIOp(lo_v, offset).result
            self.emit_loop_body(stmt, iv)
            terminator()

    def emit_loop_body(self, stmt: S.For, iv: ir.Value) -> None:
        """The body of an hcl.for_ with its variable bound to iv (guarded after a possible return_)."""
        self.vars[id(stmt.var)] = iv
        if self.returns and S.contains_return(stmt.body):
            with self.unless_returned():
                self.emit_block(stmt.body)
        else:
            self.emit_block(stmt.body)

    def emit_runtime_step_for(self, stmt: S.For, step: E.Expr, pragmas: LoopDirectives) -> None:
        """hcl.for_(lo, hi, step) with a runtime step (positive, as HeteroCL's scf.for needs):
        max(0, ceil((hi - lo) / step)) trips of scf.for, the variable lo + k * step."""
        lo_v, hi_v, step_v = self.ev_index(stmt.lo), self.ev_index(stmt.hi), self.ev_index(step)
        count = arith.CeilDivSIOp(arith.SubIOp(hi_v, lo_v).result, step_v).result
        count = arith.MaxSIOp(count, self.index_const(0)).result
        loop = scf.ForOp(self.index_const(0), count, self.index_const(1))
        attrs.set_loop_name(loop, stmt.name)
        attrs.set_loop_directives(loop, pragmas)
        with ir.InsertionPoint(loop.body):
            offset = arith.MulIOp(loop.induction_variable, step_v).result
            self.emit_loop_body(stmt, arith.AddIOp(lo_v, offset).result)
            scf.YieldOp([])

    def emit_planned_for(self, stmt: S.For, plan: Any) -> None:
        """A constant-bound hcl.for_ through its schedule plan (split, pragmas): the loop variable
        is lo + step * (the plan's index of the loop). A plan that merged the for_ loops nested in
        this one (a reorder or fuse across them) binds theirs too, and the innermost body follows."""

        def body(values: dict[str, ir.Value]) -> None:
            loop = stmt
            while True:
                lo, step = int(loop.lo.value), loop.step
                if not isinstance(step, int):
                    # a plan is made only for loops with constant bounds and step (is_affine_for)
                    raise CompileError(f"builder: loop {loop.name!r} has a schedule plan but a runtime step")
                iv = values[loop.name]
                if step != 1:
                    iv = arith.MulIOp(iv, self.index_const(step)).result
                if lo != 0:
                    iv = arith.AddIOp(iv, self.index_const(lo)).result
                inner = loop.body[0] if len(loop.body) == 1 else None
                if not (isinstance(inner, S.For) and inner.name in values):
                    self.emit_loop_body(loop, iv)
                    return
                self.vars[id(loop.var)] = iv
                loop = inner

        self.emit_nest(plan, body)

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
        attrs.set_loop_name(op, self.mb.fresh_loop_name("while"))
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

    def stmt_Print(self, stmt: S.Print) -> None:
        """A call of the module's printf declaration for this format and these argument types."""
        values = [self.ev(arg) for arg in stmt.args]
        callee = self.mb.print_function(stmt.format, [arg.dtype for arg in stmt.args])
        func.CallOp([], ir.FlatSymbolRefAttr.get(callee), values)

    def stmt_CallStmt(self, stmt: S.CallStmt) -> None:
        self.emit_call(stmt.function, stmt.args)

    def stmt_Alloc(self, stmt: S.Alloc) -> None:
        if id(stmt.tensor) not in self.buffers:
            raise CompileError(f"builder: tensor {stmt.tensor.name!r} was not allocated")


def is_affine_for(stmt: S.Stmt) -> TypeGuard[S.For]:
    """A for_ that becomes one affine.for (constant bounds, positive step) and nothing before it."""
    return (
        isinstance(stmt, S.For)
        and isinstance(stmt.lo, E.Const)
        and isinstance(stmt.hi, E.Const)
        and isinstance(stmt.step, int)
        and stmt.step > 0
    )
