"""Schedule: primitives recorded as data, applied by the builder (schedule.tracing makes one)."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, overload

from hclbuild.dsl.stmt import StageStmt, Store, StoreBits
from hclbuild.dsl.tensor import Tensor, check_name, normalize_shape
from hclbuild.dsl.trace import (
    Program,
)
from hclbuild.errors import APIError, HCLNotImplementedError
from hclbuild.hls_interface import MAX_AXI_BURST, STORAGE_TYPES
from hclbuild.schedule import memory as M
from hclbuild.schedule.directives import ArrayPartition
from hclbuild.schedule.function_names import FunctionNames, requested_names
from hclbuild.schedule.outlines import (
    AxisOutline,
    OutlineGroup,
    OutlineRequest,
    StageFunction,
    StageRange,
    StageSet,
)
from hclbuild.schedule.stage import LoopHandle, Stage

__all__ = [
    "LoopHandle",
    "OutlineGroup",
    "Partition",
    "Schedule",
    "Stage",
    "StageFunction",
    "StageRange",
    "StageSet",
]


class Partition(enum.IntEnum):
    """hcl.Partition.Complete / Block / Cyclic (HeteroCL values)."""

    Complete = 0
    Block = 1
    Cyclic = 2


class Schedule:
    """A traced algorithm plus the primitives applied to it (HeteroCL's Schedule)."""

    def __init__(self, program: Program, inputs: list[Tensor], outputs: list[Tensor], func: Callable | None):
        self.program = program
        self.name = program.name
        self.inputs = inputs
        self.outputs = outputs
        self.func = func
        # every stage, nested ones too (a compute inside a mutate body is schedulable); nested
        # stages, named loops and written tensors are attributes of their parent stage
        self.stages: dict[str, Stage] = {}
        self.parents: dict[str, str] = {}  # nested stage name -> its parent stage's name
        for stmt in program.top.body:
            if isinstance(stmt, StageStmt):
                self._add_stage(stmt, None)
        M.check_inferred_slices([stmt for stmt in program.top.body if isinstance(stmt, StageStmt)])
        self.partitions: dict[int, list[ArrayPartition]] = {}  # id(tensor) -> its partitions
        self.storage_types: dict[int, str] = {}  # id(tensor) -> the RAM it is bound to (bind_storage)
        self.reshapes: dict[int, tuple[int, ...]] = {}
        self.outlines: list[OutlineRequest] = []
        self.axis_outlines: list[AxisOutline] = []
        self.outlined: set[str] = set()
        self.function_names = FunctionNames(self.name, (f.name for f in program.functions))
        self.top_dataflow = False
        # memory customizations and streams, applied in this order after the loop nests are built
        self.memory: list[M.MemoryRecord] = []
        self.data_movement: dict[int, tuple[str, int | None]] = {}  # s.to(tensor, platform device)

    def _add_stage(self, stmt: StageStmt, parent: Stage | None) -> None:
        stage = Stage(self, stmt)
        self.stages[stmt.name] = stage
        if parent is not None:
            self.parents[stmt.name] = parent.name
            parent.children.setdefault(stmt.name, stage)
        for loop in stage.for_loops:
            stage.children.setdefault(loop.name, LoopHandle(stage.name, loop.name))
        for nested in _nested_stages(stmt.body):
            self._add_stage(nested, stage)
        for tensor in _written_tensors(stmt.body):
            if tensor.name:
                stage.children.setdefault(tensor.name, tensor)

    @property
    def ast(self) -> Program:
        """The traced program (HeteroCL's s.ast; print it for a summary)."""
        return self.program

    @property
    def DataflowGraph(self) -> Any:
        raise _MissingAttribute(
            "s.DataflowGraph (HeteroCL's graph of stages and tensors) is not implemented; "
            "report:<project> draws the design graph (design.dot)"
        )

    # ---- lookup --------------------------------------------------------------
    def stage_of(self, target: object) -> Stage:
        if isinstance(target, Stage):
            if target.name in self.stages and self.stages[target.name] is target:
                return target
            target = target.name
        if isinstance(target, StageStmt):
            target = target.name
        if isinstance(target, Tensor):
            if target.stage is None or target.stage.name not in self.stages:
                raise APIError(f"tensor {target.name!r} is not produced by a stage of schedule {self.name!r}")
            target = target.stage.name
        if isinstance(target, str):
            if target not in self.stages:
                raise APIError(
                    f"schedule {self.name!r} has no stage {target!r} (stages: {', '.join(self.stages)})"
                )
            return self.stages[target]
        raise APIError(f"{target!r} is not a stage (give kernel.B, s[kernel.B], the tensor, or a name)")

    def __getitem__(self, target: object) -> Stage:
        return self.stage_of(target)

    def _tensor(self, target: object, what: str) -> Tensor:
        if isinstance(target, Stage):
            target = target.stmt.output
        if isinstance(target, StageStmt):
            target = target.output
        if not isinstance(target, Tensor):
            raise APIError(f"{what}: expected a tensor, got {target!r}")
        return target

    # ---- memory primitives ------------------------------------------------------
    def partition(
        self, target: object, partition_type: int = Partition.Complete, dim: int = 0, factor: int = 0
    ) -> None:
        """partition(tensor, partition_type=Partition.Complete, dim=0, factor=0): dim is 1-based, 0 = all."""
        tensor = self._tensor(target, "partition")
        kind = {0: "complete", 1: "block", 2: "cyclic"}.get(int(partition_type))
        if kind is None:
            raise APIError(f"partition: unknown partition_type {partition_type!r}")
        if isinstance(tensor, M.BufferTensor) and tensor.shape is None:
            pass  # its rank is known once the buffer exists; the emitter checks dim then
        elif not isinstance(dim, int) or not 0 <= dim <= len(self.reshapes.get(id(tensor), tensor.shape)):
            # after s.reshape the dimensions are the new shape's
            shape = self.reshapes.get(id(tensor), tensor.shape)
            raise APIError(f"partition: dim {dim!r} out of range for {tensor.name!r} of shape {shape}")
        if kind != "complete" and (not isinstance(factor, int) or factor < 1):
            raise APIError(f"partition: {kind} partitioning of {tensor.name!r} needs a factor >= 1")
        self.partitions.setdefault(id(tensor), []).append(
            ArrayPartition(kind, dim, 0 if kind == "complete" else factor)
        )

    def bind_storage(self, target: object, storage_type: str) -> None:
        """bind_storage(tensor, "RAM_2P"): the RAM a local buffer is (RAM_1P, RAM_2P or RAM_T2P), as
        `#pragma HLS bind_storage`. An argument's RAM is project.toml's [interface] storage_type."""
        tensor = self._tensor(target, "bind_storage")
        if tensor.kind in ("placeholder", "const"):
            where = "an argument's is [interface.<arg>] storage_type" if tensor.kind == "placeholder" else ""
            raise APIError(
                f"bind_storage: {tensor.name!r} is not a local buffer"
                + (f" ({where} in project.toml)" if where else " (a constant is a ROM)")
            )
        if not isinstance(storage_type, str) or storage_type.lower() not in STORAGE_TYPES:
            names = ", ".join(name.upper() for name in STORAGE_TYPES)
            raise APIError(
                f"bind_storage: storage type {storage_type!r} of {tensor.name!r} is not one of {names}"
            )
        self.storage_types[id(tensor)] = storage_type.lower()

    def reshape(self, target: object, shape: object) -> None:
        """reshape(tensor, shape): same elements in row-major order, new shape."""
        tensor = self._tensor(target, "reshape")
        new_shape = normalize_shape(shape, f"reshape {tensor.name!r}")
        old = 1
        for d in tensor.shape:
            old *= d
        new = 1
        for d in new_shape:
            new *= d
        if old != new:
            raise APIError(f"reshape: {tensor.name!r} has {old} elements, shape {new_shape} has {new}")
        self.reshapes[id(tensor)] = new_shape

    def dataflow(self) -> None:
        """dataflow(): #pragma HLS dataflow in the top function."""
        self.top_dataflow = True

    def to(
        self,
        tensor: object,
        dst: object = None,
        src: object = None,
        axis: int = 0,
        mode: object = None,
        depth: int | None = None,
        fifo_depth: int | None = None,
        burst_len: int | None = None,
        name: str | None = None,
    ) -> Tensor:
        """to(tensor, dst, src=None, depth=N): between stages a FIFO; towards a device, data movement.

        `s.to(kernel.B, s[kernel.C], depth=4)` makes B an hls::stream from the stage that writes it
        (or `src`) to stage C (HeteroCL's `fifo_depth` is the same as `depth`; default 2, as Vitis).
        """
        if isinstance(dst, (Stage, StageStmt)):
            return self._stream(tensor, dst, src, depth, fifo_depth)
        kind = getattr(dst, "kind", None)
        if kind in ("host", "xcel"):  # a platform's device (hclbuild/platform.py)
            return self._move(tensor, kind, burst_len)
        if isinstance(dst, (list, tuple)) and dst and all(isinstance(d, (Stage, StageStmt)) for d in dst):
            # HeteroCL's fork (test_fork_join): one FIFO per consumer
            raise HCLNotImplementedError(
                f"s.to(tensor, {list(dst)!r}): a stream to several stages is not implemented; a stream has one "
                "consumer (stream to one stage, or copy the tensor once per consumer)"
            )
        raise HCLNotImplementedError(
            f"s.to(tensor, {dst!r}): moving data to a device or the host is not implemented"
        )

    def _move(self, targets: object, device: str, burst_len: int | None) -> Any:
        """s.to(tensors, platform.xcel|host, burst_len=n): where arguments' data moves (recorded in
        data_movement: tensor id -> (device, burst length)); returns the tensor(s)."""
        if burst_len is not None and (
            isinstance(burst_len, bool) or not isinstance(burst_len, int) or burst_len < 1
        ):
            raise APIError(f"s.to: burst_len must be a positive int, got {burst_len!r}")
        if burst_len is not None and burst_len > MAX_AXI_BURST:
            raise APIError(
                f"s.to: burst_len {burst_len} is longer than one AXI4 burst ({MAX_AXI_BURST} beats)"
            )
        items = targets if isinstance(targets, (list, tuple)) else [targets]
        tensors = [self._tensor(item, "s.to") for item in items]
        for tensor in tensors:
            self.data_movement[id(tensor)] = (device, burst_len)
        return tensors if isinstance(targets, (list, tuple)) else tensors[0]

    def _stream(
        self, target: object, dst: object, src: object, depth: int | None, fifo_depth: int | None
    ) -> Tensor:
        tensor = self._tensor(target, "s.to")
        consumer = self.stage_of(dst)
        if depth is not None and fifo_depth is not None and depth != fifo_depth:
            raise APIError(f"s.to({tensor.name!r}): depth={depth} and fifo_depth={fifo_depth} disagree")
        fifo = depth if depth is not None else fifo_depth if fifo_depth is not None else 2
        if isinstance(fifo, bool) or not isinstance(fifo, int) or fifo < 1:
            raise APIError(f"s.to({tensor.name!r}): depth must be an int >= 1, got {fifo!r}")
        if src is not None:
            producer = self.stage_of(src)
        elif tensor.stage is not None and tensor.stage.name in self.stages:
            producer = self.stages[tensor.stage.name]
        else:
            raise APIError(
                f"s.to: no stage produces {tensor.name!r} (an input of the design); a stream "
                "connects the stage that writes a tensor to the stage that reads it"
            )
        if not M.writes(producer.stmt, tensor):
            raise APIError(
                f"s.to: stage {producer.name!r} does not write {tensor.name!r}; it cannot feed a stream"
            )
        if consumer is producer or not M.reads(consumer.stmt, tensor):
            raise APIError(
                f"s.to: stage {consumer.name!r} does not read {tensor.name!r} written by stage "
                f"{producer.name!r}; a stream connects a producer to a consumer"
            )
        if any(t is tensor for t in self.outputs) or any(t is tensor for t in self.inputs):
            raise APIError(
                f"s.to: {tensor.name!r} is an argument of the design; only a tensor between two "
                "stages can become a stream"
            )
        for other in self.stages.values():
            if other is producer or other is consumer:
                continue
            uses = M.tensor_uses(other.stmt)
            if id(tensor) in uses["read"] or id(tensor) in uses["write"]:
                raise APIError(
                    f"s.to: stage {other.name!r} also uses {tensor.name!r}; a stream has one "
                    f"producer ({producer.name!r}) and one consumer ({consumer.name!r})"
                )
        if any(isinstance(r, M.StreamTo) and r.tensor is tensor for r in self.memory):
            raise APIError(f"s.to: {tensor.name!r} is already a stream")
        self.memory.append(M.StreamTo(tensor, producer.name, consumer.name, fifo))
        return tensor

    def _buffer_record(
        self, primitive: str, target: object, parent: object, axis: object, name: str | None
    ) -> tuple[Tensor, Stage, str, M.BufferTensor]:
        tensor = self._tensor(target, primitive)
        stage = self.stage_of(parent)
        loop = stage.spatial_loop(axis, primitive)
        if isinstance(tensor, M.BufferTensor):
            if tensor.owner_stage != stage.name:
                raise APIError(
                    f"{primitive}: {tensor.name!r} is a buffer of stage {tensor.owner_stage!r}, "
                    f"not of stage {stage.name!r}"
                )
        else:
            uses = M.tensor_uses(stage.stmt)
            wanted = uses["read"] if primitive == "reuse_at" else uses["read"] | uses["write"]
            if id(tensor) not in wanted:
                verb = "read" if primitive == "reuse_at" else "read or write"
                raise APIError(f"{primitive}: stage {stage.name!r} does not {verb} tensor {tensor.name!r}")
        position = [h.name for h in stage.axis].index(loop) if loop in [h.name for h in stage.axis] else 0
        kind = "reuse" if primitive == "reuse_at" else "buffer"
        if name is None:
            name = self.program.unique_name(f"{tensor.name}_{kind}_{position}")
        elif check_name(name, primitive) in self.program.used_names:
            raise APIError(f"{primitive}: the name {name!r} is already taken")
        else:
            self.program.used_names.add(name)
        return tensor, stage, loop, M.BufferTensor(name, tensor.dtype, kind, stage.name, tensor)

    def reuse_at(self, target: object, parent: object, axis: object, name: str | None = None) -> Tensor:
        """reuse_at(tensor, stage, axis, name=None) -> the reuse buffer (shift register, line or window buffer).

        The reads of `tensor` in loop `axis` of `stage` go through a buffer that keeps what the next
        iteration reads again; a second reuse_at on that buffer at an inner loop makes a window buffer.
        """
        tensor, stage, loop, buffer = self._buffer_record("reuse_at", target, parent, axis, name)
        self.memory.append(M.ReuseAt(tensor, stage.name, loop, buffer))
        return buffer

    def buffer_at(self, target: object, parent: object, axis: object, name: str | None = None) -> Tensor:
        """buffer_at(tensor, stage, axis, name=None) -> a local buffer of the slice one `axis` iteration uses.

        Writes go to the buffer and are flushed into `tensor` after the iteration; reads come from it.
        """
        tensor, stage, loop, buffer = self._buffer_record("buffer_at", target, parent, axis, name)
        self.memory.append(M.BufferAt(tensor, stage.name, loop, buffer))
        return buffer

    def record_compute_at(self, record: M.ComputeAt | M.FuseAt) -> None:
        if record.producer in self.outlined:
            raise APIError(
                f"compute_at: stage {record.producer!r} is outlined; it cannot also move into "
                f"stage {record.consumer!r}"
            )
        if any(isinstance(r, (M.ComputeAt, M.FuseAt)) and r.producer == record.producer for r in self.memory):
            raise APIError(f"compute_at: stage {record.producer!r} is already computed at another stage")
        self.memory.append(record)

    # ---- outlining ---------------------------------------------------------------
    def record_axis_outline(self, request: AxisOutline) -> None:
        if request.stage in self.outlined:
            raise APIError(f"stage {request.stage!r} is outlined twice")
        if any(isinstance(r, (M.ComputeAt, M.FuseAt)) and r.producer == request.stage for r in self.memory):
            raise APIError(f"stage {request.stage!r} was moved into another stage by compute_at")
        self.outlined.add(request.stage)
        self.axis_outlines.append(request)
        if request.function:
            self.function_names.claim(request.function, [request.stage])

    # one argument (a stage, or a list of stages) is one group, so one function handle
    @overload
    def outline(
        self, stage: object, /, *, unify: bool = False, axis: object = None, name: object = None
    ) -> StageFunction: ...
    @overload
    def outline(
        self, *stage_list: object, unify: bool = False, axis: object = None, name: object = None
    ) -> StageFunction | list[StageFunction]: ...
    def outline(
        self, *stage_list: object, unify: bool = False, axis: object = None, name: object = None
    ) -> StageFunction | list[StageFunction]:
        """outline(stage), outline(start, end), outline([stages], [stages], ...) -> the function
        handle, or a list of them for several groups (HeteroCL's return).
        outline(stage, axis=loop) outlines only the body below that loop (see Stage.outline).

        A single stage becomes @Stage_<name>; two stages (not in lists) are a start..end range
        of the dataflow graph, @Stage_<start>_<end>; each list becomes one function. `name=`
        names the function instead (a list of names, or None for the default, for several groups).
        """
        if not stage_list:
            raise APIError("outline needs at least one stage")
        if axis is not None:
            if len(stage_list) != 1 or isinstance(stage_list[0], (list, tuple)):
                raise APIError("outline(..., axis=...) takes exactly one stage")
            return self.stage_of(stage_list[0]).outline(axis=axis, unify=unify, name=name)
        groups: list[OutlineGroup] = []
        labels: list[list[str]] = []  # the stages each group's default name is made of
        if all(not isinstance(x, (list, tuple)) for x in stage_list):
            names = [self.stage_of(x).name for x in stage_list]
            if len(names) == 1:
                groups.append(StageSet(tuple(names)))
            elif len(names) == 2:
                groups.append(StageRange(names[0], names[1]))
            else:
                raise APIError("outline(a, b, c): give one stage, a start and end stage, or lists of stages")
            labels.append(names)
        else:
            for item in stage_list:
                items = item if isinstance(item, (list, tuple)) else [item]
                names = [self.stage_of(x).name for x in items]
                if not names:
                    raise APIError("outline: an empty list of stages")
                groups.append(StageSet(tuple(names)))
                labels.append(names)
        functions: list[str] = []
        for requested, stages in zip(requested_names(name, len(groups)), labels):
            functions.append(self.function_names.propose(requested, stages, functions))
        handles = [StageFunction(func, stages) for func, stages in zip(functions, labels)]
        for group in groups:
            names = list(group.stages)
            seen: set[str] = set()
            moved = {r.producer: r.consumer for r in self.memory if isinstance(r, (M.ComputeAt, M.FuseAt))}
            for stage in names:
                if stage in moved:
                    raise APIError(
                        f"stage {stage!r} was moved into stage {moved[stage]!r} by compute_at; "
                        f"outline {moved[stage]!r} instead"
                    )
                if stage in self.outlined or stage in seen:
                    raise APIError(f"stage {stage!r} is outlined twice")
                seen.add(stage)
            self.outlined.update(names)
        self.outlines.append(OutlineRequest(groups, unify, functions))
        for func, stages in zip(functions, labels):
            self.function_names.claim(func, stages)
        return handles[0] if len(handles) == 1 else handles


class _MissingAttribute(HCLNotImplementedError, AttributeError):
    """A HeteroCL attribute hclbuild does not implement (an AttributeError too: hasattr() is False)."""


def _visit_statements(stmts: list[Any], visit: Callable[[Any], bool]) -> None:
    """Call visit on every statement of stmts and of their bodies; visit returns False to not
    look inside a statement."""
    for stmt in stmts:
        if not visit(stmt):
            continue
        for child in ("body", "orelse"):
            value = getattr(stmt, child, None)
            if isinstance(value, list):
                _visit_statements(value, visit)


def _nested_stages(stmts: list[Any]) -> list[StageStmt]:
    """Stages directly inside a stage's body (at any depth of loops and branches, not deeper stages)."""
    found: list[StageStmt] = []

    def visit(stmt: Any) -> bool:
        if isinstance(stmt, StageStmt):
            found.append(stmt)
            return False
        return True

    _visit_statements(stmts, visit)
    return found


def _written_tensors(stmts: list[Any]) -> list[Tensor]:
    """Tensors stored to anywhere in stmts (nested stages included), in first-store order."""
    found: list[Tensor] = []

    def visit(stmt: Any) -> bool:
        if isinstance(stmt, (Store, StoreBits)) and all(stmt.tensor is not t for t in found):
            found.append(stmt.tensor)
        return True

    _visit_statements(stmts, visit)
    return found
