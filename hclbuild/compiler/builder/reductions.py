"""Reductions: hcl.sum/max/min/reducer with an accumulator and their own loops, and reductions whose
loops the schedule reordered among the stage's spatial loops (accumulated in the output tensor).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mlir import ir
from mlir.dialects import affine, arith, memref, scf

from hclbuild.compiler import attrs
from hclbuild.compiler.builder.state import FunctionState, ReturnTarget, walk_nodes
from hclbuild.dsl import compound
from hclbuild.dsl import expr as E
from hclbuild.dsl import stmt as S
from hclbuild.dsl.types import DType
from hclbuild.errors import HCLNotImplementedError
from hclbuild.schedule.loops import LoopNest
from hclbuild.schedule.schedule import Stage


class ReductionLowering(FunctionState):
    """compound.Reduce nodes and merged (reordered) reductions."""

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
        attrs.set_loop_name(wrapper, f"{stage.name}_stage")
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

    def expr_Reduce(self, expr: compound.Reduce) -> ir.Value:
        here = ir.InsertionPoint.current.block
        known = self.reduce_values.get(id(expr))
        if known is not None and _encloses(known[1], here):
            return known[0]  # computed earlier in this block or an enclosing one: it dominates here
        value = self._emit_reduce(expr)
        self.reduce_values[id(expr)] = (value, here)
        return value

    def _emit_reduce(self, expr: compound.Reduce) -> ir.Value:
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

    def expr_ImperativeValue(self, expr: compound.ImperativeValue) -> ir.Value:
        """A reducer function's statements run with a return slot (allocated by prepare): the value
        is what their hcl.return_ stored, else the default (the running accumulator)."""
        slot, flag = self.accumulators[id(expr)]
        zero = [self.index_const(0)]
        self.store_const_bool(flag, False)
        memref.StoreOp(self.convert(self.ev(expr.default), expr.default.dtype, expr.dtype), slot, zero)
        self.returns.append(ReturnTarget(flag, slot, zero, expr.dtype))
        try:
            self.emit_block(expr.body)
        finally:
            self.returns.pop()
        return memref.LoadOp(slot, zero).result

    def reduce_step(
        self, expr: compound.Reduce, acc: ir.Value, subscripts: Callable[[], list[ir.Value]]
    ) -> None:
        """acc[subscripts] = combine(acc[subscripts], value), under expr.where; acc holds expr.dtype."""

        def step() -> None:
            zero = subscripts()
            current = memref.LoadOp(acc, zero).result
            value = self.convert(self.ev(expr.value), expr.value.dtype, expr.dtype)
            dt = expr.dtype
            if expr.kind == "sum" and dt.is_fixed and dt.has_modes:
                # ap_fixed's acc += x: the exact sum, converted back into the accumulator by its
                # modes (a saturating accumulator saturates)
                exact = DType(dt.kind, dt.bits + 1, dt.frac)
                total = arith.AddIOp(self.resize(current, dt, exact.bits), self.resize(value, dt, exact.bits))
                new = self.convert(total.result, exact, dt)
            elif expr.kind == "sum":
                new = self.fixed((arith.AddFOp if dt.is_float else arith.AddIOp)(current, value).result, dt)
            elif expr.kind in ("max", "min"):
                if dt.is_float:
                    pred = arith.CmpFPredicate.OGT if expr.kind == "max" else arith.CmpFPredicate.OLT
                    better = arith.CmpFOp(pred, value, current).result
                else:
                    sign = "s" if dt.is_signed else "u"
                    pred = getattr(arith.CmpIPredicate, f"{sign}{'gt' if expr.kind == 'max' else 'lt'}")
                    better = arith.CmpIOp(pred, value, current).result
                new = self.fixed(arith.SelectOp(better, value, current).result, dt)
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


def _encloses(outer: ir.Block, block: ir.Block) -> bool:
    """True when block is outer or nested in an op of outer (within one function)."""
    while True:
        if block == outer:
            return True
        owner = block.owner
        if owner is None or owner.operation.name == "func.func":
            return False
        block = owner.operation.block


def _merged_reduce_form(
    stage: S.StageStmt, loops: S.ComputeLoops, sched: Stage
) -> tuple[S.Store, compound.Reduce]:
    """The Store and its Reduce of a stage whose reduction was reordered among its spatial loops,
    or HCLNotImplementedError when the stage is not of the one supported form."""
    merged = list(sched.merged_reductions)
    supported = (
        f"reordering reduction loops {merged} among the spatial loops of stage {stage.name!r} "
        "is supported when the stage stores exactly one reduction (hcl.sum/max/min or an "
        "hcl.reducer, with or without where=) over the merged axes, e.g. "
        "hcl.compute(shape, lambda i, j: hcl.sum(A[i, k] * B[k, j], axis=k))"
    )
    if stage.kind not in ("compute", "update") or stage.has_return or len(loops.body) != 1:
        raise HCLNotImplementedError(supported)
    store = loops.body[0]
    if not isinstance(store, S.Store) or not isinstance(store.value, compound.Reduce):
        raise HCLNotImplementedError(supported + "; here the stored value is not a bare reduction")
    reduce = store.value
    if {ax.name for ax in reduce.axes} != set(merged):
        raise HCLNotImplementedError(
            supported
            + f"; here the reduction is over {[ax.name for ax in reduce.axes]} (merge all of its axes)"
        )
    if reduce.dtype != store.tensor.dtype:
        raise HCLNotImplementedError(
            f"stage {stage.name!r}: reordering a reduction needs the compute dtype equal to the accumulator "
            f"dtype (the output {store.tensor.name!r} is {store.tensor.dtype.name}, the reduction accumulates "
            f"in {reduce.dtype.name}); give hcl.compute dtype={reduce.dtype.name!r} or the reduction "
            f"dtype={store.tensor.dtype.name!r}"
        )
    reads_output: list[bool] = []

    def visit(node: Any) -> None:
        if isinstance(node, E.Load) and node.tensor is store.tensor:
            reads_output.append(True)
        if isinstance(node, compound.Call) and any(arg is store.tensor for arg in node.args):
            reads_output.append(True)

    walk_nodes([reduce.init, reduce.value, reduce.where, reduce.combine], visit)
    if reads_output:
        raise HCLNotImplementedError(
            supported + f"; here the reduction reads {store.tensor.name!r}, which then holds partial results"
        )
    return store, reduce
