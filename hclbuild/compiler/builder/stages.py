"""Stages and loop nests: a stage becomes one root op of the top function (docs/IR.md), its loops
the nest its schedule chose (split/fuse/reorder/tile leaves, pragma and dataflow attributes).
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir
from mlir.dialects import affine, arith, scf

from hclbuild.compiler import attrs
from hclbuild.compiler.builder.state import FunctionState, ReturnTarget
from hclbuild.compiler.builder.statements import is_affine_for
from hclbuild.dsl import stmt as S
from hclbuild.errors import CompileError
from hclbuild.schedule.loops import LoopNest
from hclbuild.schedule.schedule import Stage


class StageLowering(FunctionState):
    """Stage roots, compute loop nests and the index expressions of scheduled loops."""

    def stmt_StageStmt(self, stage: S.StageStmt, top_level: bool = False) -> ir.Operation | None:
        sched_stage = self.mb.schedule.stages.get(stage.name)
        if sched_stage is not None and (
            sched_stage.stmt is not stage or self.scope is not self.mb.schedule.program.top
        ):
            sched_stage = None  # a stage of a def_ body, or a wrapper made here: no schedule of its own
        block = self.entry if top_level else None
        # len() and indexing count in C++; list(block.operations) wrapped every op in Python, once
        # per stage over the whole top function: quadratic in the number of stages
        before = len(block.operations) if block is not None else 0
        point = None if top_level or sched_stage is None else ir.InsertionPoint.current
        nested = point.block if point is not None and point.ref_operation is None else None  # appending
        nested_before = len(nested.operations) if nested is not None else 0
        if stage.has_return:
            self.returns.append(None)  # set per element in ComputeLoops
        saved_plans = self.loop_plans  # nested stages schedule their own hcl.for_ loops
        self.loop_plans = sched_stage.loop_plans if sched_stage is not None else {}
        try:
            if (
                len(stage.body) == 1
                and isinstance(stage.body[0], S.ComputeLoops)
                and sched_stage is not None
                and sched_stage.merged_reductions
            ):
                self.emit_merged_reduction(stage, stage.body[0], sched_stage)
            elif len(stage.body) == 1 and isinstance(stage.body[0], S.ComputeLoops):
                self.emit_compute_loops(stage, stage.body[0], sched_stage)
            elif len(stage.body) == 1 and is_affine_for(stage.body[0]):
                self.stmt_For(stage.body[0])  # a top-level hcl.for_ with constant bounds is its own root
            else:
                loop = affine.AffineForOp(0, 1, 1)
                attrs.set_loop_name(loop, f"{stage.name}_stage")
                with ir.InsertionPoint(loop.body):
                    self.emit_block(stage.body)
                    affine.AffineYieldOp([])
        finally:
            self.loop_plans = saved_plans
            if stage.has_return:
                self.returns.pop()
        if block is None:
            if nested is not None and len(nested.operations) == nested_before + 1:
                # a stage nested in another's body (docs/IR.md): reuse_at finds it by this name
                attrs.set_nested_stage(nested.operations[nested_before], stage.name)
            return None
        after = len(block.operations)
        if after - before != 1:
            raise CompileError(
                f"builder: stage {stage.name!r} produced {after - before} top-level ops, expected 1"
            )
        root = block.operations[before]
        attrs.set_stage_name(root, stage.name)
        if sched_stage is not None and sched_stage.is_dataflow and sched_stage.dataflow_loop is None:
            attrs.mark_dataflow(root)
        return root

    def stmt_ComputeLoops(self, loops: S.ComputeLoops) -> None:
        self.emit_compute_loops(None, loops, None)

    def emit_compute_loops(
        self, stage: S.StageStmt | None, loops: S.ComputeLoops, sched: Stage | None
    ) -> None:
        nest = (
            sched.spatial
            if sched is not None and sched.spatial is not None
            else LoopNest.of_axes([(ax.name, ax.extent) for ax in loops.axes])
        )
        self._reductions = sched.reductions if sched is not None else {}
        dataflow_loop = sched.dataflow_loop if sched is not None else None

        def body(values: dict[str, ir.Value]) -> None:
            for ax in loops.axes:
                self.vars[id(ax)] = values[ax.name]
            # hcl.return_ in a compute or update body (the stages with an output) stores into it
            if stage is not None and stage.has_return and stage.output is not None:
                flag = self.accumulators[id(stage)]
                self.store_const_bool(flag, False)
                out = stage.output
                self.returns[-1] = ReturnTarget(
                    flag, self.buffer(out), [values[ax.name] for ax in loops.axes], out.dtype
                )
            self.emit_block(loops.body)

        self.emit_nest(nest, body, dataflow_loop)

    def emit_nest(
        self, nest: LoopNest, body: Callable[[dict[str, ir.Value]], None], dataflow_loop: str | None = None
    ) -> None:
        leaf_values: dict[str, ir.Value] = {}

        def level(k: int) -> None:
            if k == len(nest.leaves):
                values = {axis: self.index_expr(expr, leaf_values) for axis, expr in nest.binding.items()}
                if nest.guards:
                    cond = None
                    for expr, bound in nest.guards:
                        check = arith.CmpIOp(
                            arith.CmpIPredicate.ult,
                            self.index_expr(expr, leaf_values),
                            self.index_const(bound),
                        ).result
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
            attrs.set_loop_name(loop, leaf.name)
            attrs.set_loop_directives(loop, leaf.directives)
            if dataflow_loop == leaf.name:
                attrs.mark_dataflow(loop)
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
