"""The compiler as one call: schedule -> MLIR (built, outlined, verified) -> LLVM IR or HLS C++."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.builder import build_module
from hclbuild.compiler.passes.buffer_at import BufferAtPass
from hclbuild.compiler.passes.common_values import merge_common_values
from hclbuild.compiler.passes.compute_at import ComputeAtPass
from hclbuild.compiler.passes.constant_divisor import check_constant_divisors
from hclbuild.compiler.passes.constant_subscript import check_constant_subscripts
from hclbuild.compiler.passes.fuse_at import FuseAtPass
from hclbuild.compiler.passes.hoist_invariant_loads import hoist_invariant_loads
from hclbuild.compiler.passes.outline import outline_stages
from hclbuild.compiler.passes.outline_axis import OutlineAxisPass
from hclbuild.compiler.passes.parallel_reads import partition_parallel_reads
from hclbuild.compiler.passes.reuse_at import ReuseAtPass, fuse_fill_loops
from hclbuild.compiler.passes.scalar_args import mark_scalar_arguments
from hclbuild.compiler.passes.stream import StreamPass, annotate_stream_arguments
from hclbuild.compiler.passes.verify import verify_module
from hclbuild.errors import CompileError
from hclbuild.schedule import memory as M
from hclbuild.schedule.directives import ArrayPartition
from hclbuild.schedule.schedule import Schedule


@dataclass
class CompiledDesign:
    """The verified module of a schedule and the names of its functions."""

    module: Any  # mlir.ir.Module
    top: str
    outlined: list[str]

    def top_function(self) -> Any:
        """The top func.func of the module (an OpView)."""
        return upstream.symbols(self.module)[self.top].opview


def compile_schedule(schedule: Schedule) -> CompiledDesign:
    """Build the module, apply s.outline() requests, verify calls; every backend starts here."""
    module = build_module(schedule)
    with module.context:
        if not module.operation.verify():
            raise CompileError(f"builder produced invalid IR for {schedule.name!r}")
        # known-wrong before anything runs: a divisor that is 0, a subscript outside its tensor
        check_constant_divisors(module)
        check_constant_subscripts(module)
        apply_memory_records(module, schedule)
        outlined: list[str] = []
        for axis_request in schedule.axis_outlines:
            outlined.append(
                OutlineAxisPass(
                    axis_request.stage, axis_request.axis, axis_request.unify, axis_request.function
                ).run(module)
            )
        # every s.outline() request in one pass: the program is analysed once, not once per request
        groups = [g for r in schedule.outlines for g in r.groups]
        unify = [bool(r.unify) for r in schedule.outlines for _ in r.groups]
        names = [name for r in schedule.outlines for name in r.names]  # the schedule named each group
        if groups:
            outlined.extend(outline_stages(module, groups, unify=unify, names=names))
        if any(isinstance(r, M.StreamTo) for r in schedule.memory):
            annotate_stream_arguments(module)
        merge_common_values(module)
        hoist_invariant_loads(module)
        partition_parallel_reads(module)
        mark_scalar_arguments(module)
        verify_module(module)
    return CompiledDesign(module, schedule.name, outlined)


def _partitions(schedule: Schedule, tensor: object) -> tuple[ArrayPartition, ...]:
    return tuple(schedule.partitions.get(id(tensor), []))


def apply_memory_records(module: Any, schedule: Schedule) -> None:
    """reuse_at, buffer_at, compute_at (and its fusion of independent stages) and s.to records, in
    the order the schedule made them."""
    for record in schedule.memory:
        if isinstance(record, M.ReuseAt):
            stage = schedule.stages[record.stage]
            shape = ReuseAtPass(
                record.target.name,
                record.stage,
                record.axis,
                record.buffer.name,
                stage.reduction_loop_names(),
                _partitions(schedule, record.buffer),
            ).run(module)
            record.buffer.shape = shape
        elif isinstance(record, M.BufferAt):
            record.buffer.shape = BufferAtPass(
                record.target.name,
                record.stage,
                record.axis,
                record.buffer.name,
                _partitions(schedule, record.buffer),
            ).run(module)
        elif isinstance(record, M.ComputeAt):
            axis = schedule.stages[record.consumer].current_loop(record.axis)
            ComputeAtPass(record.producer, record.consumer, axis, record.tensor.name).run(module)
        elif isinstance(record, M.FuseAt):
            axis = schedule.stages[record.consumer].current_loop(record.axis)
            FuseAtPass(record.producer, record.consumer, axis).run(module)
        else:
            StreamPass(record.tensor.name, record.src, record.dst, record.depth).run(module)
        if not module.operation.verify():
            raise CompileError(f"{type(record).__name__} produced invalid IR for {schedule.name!r}")
    if schedule.memory:
        fuse_fill_loops(module)
