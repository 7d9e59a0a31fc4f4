"""create_schedule, Schedule and Stage: primitives recorded as data, applied by the builder."""

from __future__ import annotations

import enum
import numbers
from dataclasses import dataclass, field
from typing import Any, Callable

from hclbuild.dsl.expr import Reduce, Var
from hclbuild.dsl.stmt import ComputeLoops, StageStmt
from hclbuild.dsl.tensor import Tensor, normalize_shape
from hclbuild.dsl.trace import Program, program_scope
from hclbuild.errors import APIError, HCLNotImplementedError
from hclbuild.schedule import memory as M
from hclbuild.schedule.loops import LoopNest


class Partition(enum.IntEnum):
    """hcl.Partition.Complete / Block / Cyclic (HeteroCL values)."""

    Complete = 0
    Block = 1
    Cyclic = 2


@dataclass(frozen=True)
class LoopHandle:
    """A loop of a stage, as returned by stage.axis, split, fuse."""

    stage: str
    name: str

    def __repr__(self) -> str:
        return f"Loop({self.stage}.{self.name})"


@dataclass
class OutlineRequest:
    groups: list[Any]  # each: ("set", [stage names]) or ("range", start, end)
    unify: bool


@dataclass(frozen=True)
class AxisOutline:
    """s[stage].outline(axis=...): the body below loop `axis` becomes a function.

    `unify` is False, True (share any earlier outlined function that fits) or a function's name.
    """

    stage: str
    axis: str
    unify: bool | str = False


@dataclass
class StageFunction:
    """What s.outline returns: the name of the function a group becomes."""

    name: str
    stages: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"StageFunction({self.name!r})"


def _reduces(stmts: list[Any]) -> list[Reduce]:
    """Reduce expressions of a stage body (nested ones too), outermost first, in program order."""
    found: list[Reduce] = []

    def visit(node: Any) -> None:
        if isinstance(node, Reduce):
            found.append(node)
        if isinstance(node, (list, tuple)):
            for item in node:
                visit(item)
            return
        if hasattr(node, "__dataclass_fields__") and not isinstance(node, (Tensor, StageStmt)):
            for name in node.__dataclass_fields__:
                value = getattr(node, name)
                if isinstance(value, (list, tuple)) or hasattr(value, "__dataclass_fields__"):
                    visit(value)

    visit(stmts)
    return found


def _reduce_axes(stmts: list[Any]) -> list[Var]:
    """Reduction axes used in a stage body, in first-use order."""
    found: list[Var] = []
    for node in _reduces(stmts):
        for ax in node.axes:
            if all(ax is not f for f in found):
                found.append(ax)
    return found


def _leaf_names(expr: object) -> set[str]:
    """The loop names an index expression of a LoopNest binding uses."""
    if not isinstance(expr, tuple) or not expr:
        return set()
    if expr[0] == "leaf":
        return {expr[1]}
    found: set[str] = set()
    for part in expr[1:]:
        found |= _leaf_names(part)
    return found


class Stage:
    """A stage of the schedule (s[kernel.B], kernel.B): loop transforms and pragmas on its loops."""

    def __init__(self, schedule: Schedule, stmt: StageStmt):
        self._schedule = schedule
        self.stmt = stmt
        self.name = stmt.name
        loops = stmt.body[0] if stmt.body and isinstance(stmt.body[0], ComputeLoops) else None
        self.spatial = LoopNest.of_axes([(ax.name, ax.extent) for ax in loops.axes]) if loops else None
        self.reductions: dict[str, LoopNest] = {}
        for ax in _reduce_axes(stmt.body):
            if ax.name in self.reductions:
                # loops are found by name: two axes of one name would share one loop nest
                raise APIError(f"stage {self.name!r}: two different reduction axes are named {ax.name!r}; "
                               "give each hcl.reduce_axis its own name")
            self.reductions[ax.name] = LoopNest.of_axes([(ax.name, ax.extent)])
        # reduction axes whose loop nest was merged into the spatial nest (by a reorder across
        # them), in merge order; the builder then accumulates straight into the output tensor
        self.merged_reductions: list[str] = []
        self.dataflow_loop: str | None = None
        self.is_dataflow = False

    # ---- loop lookup ---------------------------------------------------------
    @property
    def axis(self) -> list[LoopHandle]:
        """Current loops: spatial leaves outermost first, then reduction loops."""
        names = [leaf.name for leaf in self.spatial.leaves] if self.spatial else []
        for nest in self.reductions.values():
            names.extend(leaf.name for leaf in nest.leaves)
        return [LoopHandle(self.name, n) for n in names]

    @property
    def op(self) -> Stage:
        return self

    def _loop_name(self, axis: object) -> str:
        if isinstance(axis, LoopHandle):
            if axis.stage != self.name:
                raise APIError(f"stage {self.name!r}: loop {axis.name!r} belongs to stage {axis.stage!r}")
            return axis.name
        if isinstance(axis, Var):
            return axis.name
        if isinstance(axis, numbers.Integral) and not isinstance(axis, bool):
            loops = self.axis
            if not 0 <= int(axis) < len(loops):
                raise APIError(f"stage {self.name!r} has {len(loops)} loops, no loop {axis}")
            return loops[int(axis)].name
        if isinstance(axis, str):
            return axis
        raise APIError(f"stage {self.name!r}: {axis!r} is not a loop (use stage.axis[k], a handle or an int)")

    def _nest_of(self, name: str) -> LoopNest:
        if self.spatial is not None and self.spatial.has_leaf(name):
            return self.spatial
        for nest in self.reductions.values():
            if nest.has_leaf(name):
                return nest
        raise APIError(f"stage {self.name!r} has no loop {name!r} (loops: {', '.join(h.name for h in self.axis)})")

    # ---- loop transforms -----------------------------------------------------
    def split(self, parent: object, factor: int | None = None, nparts: int | None = None,
              mode: str = "transform") -> tuple[LoopHandle, LoopHandle]:
        """split(axis, factor=None, nparts=None) -> (outer, inner), named x.outer / x.inner."""
        name = self._loop_name(parent)
        outer, inner = self._nest_of(name).split(name, factor, nparts)
        return LoopHandle(self.name, outer), LoopHandle(self.name, inner)

    def reorder(self, *axes: object) -> None:
        """reorder(*axes): the named loops take each other's places in the given order.

        Loops of reductions may be placed among the spatial loops (GEMM in i, k, j order): each
        reduction involved has its loop nest (with its splits and pragmas) merged, innermost, into
        the spatial nest first, together with the other axes of every Reduce that uses it, and the
        reorder then happens in the merged nest. The builder supports a merged reduction when the
        stage stores exactly one Reduce expression over the merged axes (see builder.py).
        """
        names = [self._loop_name(a) for a in axes]
        nests = {id(self._nest_of(n)) for n in names}
        if len(nests) != 1:
            if self.spatial is None:
                raise HCLNotImplementedError(
                    f"reorder across reduction loops of different reductions in stage {self.name!r} "
                    "(reorder within one band)")
            self._merge_reductions([n for n in names if not self.spatial.has_leaf(n)])
        self._nest_of(names[0]).reorder(names)

    def _merge_reductions(self, loop_names: list[str]) -> None:
        """Merge the reduction nests holding loop_names (and the other axes of the Reduces that use
        them) into the spatial nest, innermost, in the order the stage's reductions were found."""
        assert self.spatial is not None
        wanted: set[str] = set()
        for loop in loop_names:
            for axis, nest in self.reductions.items():
                if nest.has_leaf(loop):
                    wanted.add(axis)
        # a Reduce is never half merged: its other axes come along
        changed = True
        while changed:
            changed = False
            for node in _reduces(self.stmt.body):
                axis_names = {ax.name for ax in node.axes}
                if axis_names & wanted and not axis_names <= wanted | set(self.merged_reductions):
                    wanted |= axis_names - set(self.merged_reductions)
                    changed = True
        order = [a for a in self.reductions if a in wanted]
        taken = set(self.spatial.extents) | {leaf.name for leaf in self.spatial.leaves}
        for axis in order:  # checked before anything changes
            nest = self.reductions[axis]
            names = set(nest.extents) | {leaf.name for leaf in nest.leaves}
            if taken & names:
                raise APIError(f"stage {self.name!r}: reduction axis {axis!r} cannot join the spatial loops, "
                               f"a loop named {sorted(taken & names)[0]!r} is already there; rename the axis")
            taken |= names
        for axis in order:
            self.spatial.merge(self.reductions[axis])
            del self.reductions[axis]
            self.merged_reductions.append(axis)

    def fuse(self, *axes: object) -> LoopHandle:
        """fuse(*axes) -> one loop named x_y_fused."""
        names = [self._loop_name(a) for a in axes]
        if len({id(self._nest_of(n)) for n in names}) != 1:
            raise HCLNotImplementedError(f"fuse across spatial and reduction loops in stage {self.name!r}")
        return LoopHandle(self.name, self._nest_of(names[0]).fuse(names))

    def tile(self, x_parent: object, y_parent: object, x_factor: int, y_factor: int) -> tuple[LoopHandle, ...]:
        """tile(x, y, xf, yf) -> (x.outer, y.outer, x.inner, y.inner)."""
        xo, xi = self.split(x_parent, x_factor)
        yo, yi = self.split(y_parent, y_factor)
        self.reorder(xo, yo, xi, yi)
        return xo, yo, xi, yi

    # ---- pragmas -------------------------------------------------------------
    def unroll(self, var: object, factor: int = 0) -> None:
        """unroll(axis, factor=0): 0 unrolls fully."""
        if not isinstance(factor, int) or isinstance(factor, bool) or factor < 0:
            raise APIError(f"unroll: factor must be an int >= 0, got {factor!r}")
        name = self._loop_name(var)
        self._nest_of(name).leaf(name).attrs["unroll"] = factor

    def pipeline(self, var: object, initiation_interval: int = 1) -> None:
        """pipeline(axis, initiation_interval=1)."""
        if not isinstance(initiation_interval, int) or isinstance(initiation_interval, bool) or initiation_interval < 1:
            raise APIError(f"pipeline: initiation_interval must be an int >= 1, got {initiation_interval!r}")
        name = self._loop_name(var)
        self._nest_of(name).leaf(name).attrs["pipeline_ii"] = initiation_interval

    def parallel(self, var: object) -> None:
        """parallel(axis): mark the loop parallel."""
        name = self._loop_name(var)
        self._nest_of(name).leaf(name).attrs["parallel"] = True

    def dataflow(self, axis: object = None) -> None:
        """dataflow(): #pragma HLS dataflow in this stage's outermost loop (or the given loop)."""
        self.is_dataflow = True
        self.dataflow_loop = None if axis is None else self._loop_name(axis)

    def reduction_loop_names(self) -> frozenset[str]:
        """Names of the loops that run this stage's reductions (merged among the spatial loops too)."""
        names = {leaf.name for nest in self.reductions.values() for leaf in nest.leaves}
        if self.spatial is not None:
            for axis in self.merged_reductions:
                names |= _leaf_names(self.spatial.binding.get(axis, ()))
        return frozenset(names)

    def current_loop(self, name: str) -> str:
        """`name`, or the innermost loop a later split made of it (x -> x.inner: HeteroCL's attach point)."""
        leaves = [h.name for h in self.axis]
        if name in leaves:
            return name
        derived = [leaf for leaf in leaves if leaf.startswith(name + ".")]
        return derived[-1] if derived else name

    def spatial_loop(self, axis: object, what: str) -> str:
        """The name of a spatial loop of this stage (a reduction loop or an unknown one is an error)."""
        name = self._loop_name(axis)
        if self.spatial is None:
            if isinstance(axis, str):
                return name  # an hcl.for_ stage: its loops are known to the builder by name
            raise APIError(f"{what}: stage {self.name!r} has no compute loops; name an hcl.for_ loop as a string")
        if not self.spatial.has_leaf(name):
            self._nest_of(name)  # unknown loops get the list of loops
            raise APIError(f"{what}: loop {name!r} of stage {self.name!r} is a reduction loop; give a spatial loop")
        return name

    def compute_at(self, parent: object, axis: object) -> None:
        """compute_at(parent, axis): compute this stage inside loop `axis` of stage `parent`, on demand."""
        consumer = self._schedule.stage_of(parent)
        loop = consumer.spatial_loop(axis, "compute_at")
        tensor = self.stmt.output
        if consumer is self:
            raise APIError(f"compute_at: stage {self.name!r} cannot be computed at itself")
        if tensor is None or not M.reads(consumer.stmt, tensor):
            what = f"its tensor {tensor.name!r}" if tensor is not None else "a tensor"
            raise APIError(f"compute_at: stage {consumer.name!r} does not consume stage {self.name!r} "
                           f"(it never reads {what})")
        self._schedule.record_compute_at(M.ComputeAt(self.name, consumer.name, loop, tensor))

    # ---- not implemented here -------------------------------------------------

    def systolic(self) -> None:
        raise HCLNotImplementedError("systolic is not implemented")

    def outline(self, axis: object = None, unify: object = None) -> StageFunction:
        """s[stage].outline(axis=None, unify=None): the stage, or only the body below loop `axis`,
        becomes a function; `unify` (a StageFunction, or True) shares an earlier function whose
        body differs at most in constant loop bounds (they become index arguments)."""
        if axis is None:
            return self._schedule.outline(self, unify=unify is not None and unify is not False)[0]
        loop = self._loop_name(axis)
        if self.spatial is not None and not isinstance(axis, str):
            self._nest_of(loop)  # an unknown loop is an error here, naming the stage's loops
        if isinstance(unify, StageFunction):
            target: bool | str = unify.name
        elif unify is None or isinstance(unify, bool):
            target = bool(unify)
        else:
            raise APIError(f"outline: unify must be a StageFunction or a bool, got {unify!r}")
        self._schedule.record_axis_outline(AxisOutline(self.name, loop, target))
        return unify if isinstance(unify, StageFunction) else StageFunction(f"Stage_{self.name}", [self.name])

    def __repr__(self) -> str:
        return f"Stage({self.name!r})"


class Schedule:
    """A traced algorithm plus the primitives applied to it (HeteroCL's Schedule)."""

    def __init__(self, program: Program, inputs: list[Tensor], outputs: list[Tensor], func: Callable | None):
        self.program = program
        self.name = program.name
        self.inputs = inputs
        self.outputs = outputs
        self.func = func
        self.stages: dict[str, Stage] = {name: Stage(self, st) for name, st in program.stages.items()}
        self.partitions: dict[int, list[tuple[str, int, int]]] = {}
        self.reshapes: dict[int, tuple[int, ...]] = {}
        self.outlines: list[OutlineRequest] = []
        self.axis_outlines: list[AxisOutline] = []
        self.outlined: set[str] = set()
        self.top_dataflow = False
        # memory customizations and streams, applied in this order after the loop nests are built
        self.memory: list[M.MemoryRecord] = []

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
                raise APIError(f"schedule {self.name!r} has no stage {target!r} (stages: {', '.join(self.stages)})")
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
    def partition(self, target: object, partition_type: int = Partition.Complete, dim: int = 0,
                  factor: int = 0) -> None:
        """partition(tensor, partition_type=Partition.Complete, dim=0, factor=0): dim is 1-based, 0 = all."""
        tensor = self._tensor(target, "partition")
        kind = {0: "complete", 1: "block", 2: "cyclic"}.get(int(partition_type))
        if kind is None:
            raise APIError(f"partition: unknown partition_type {partition_type!r}")
        if isinstance(tensor, M.BufferTensor) and tensor.shape is None:
            pass  # its rank is known once the buffer exists; the emitter checks dim then
        elif not isinstance(dim, int) or not 0 <= dim <= len(tensor.shape):
            raise APIError(f"partition: dim {dim!r} out of range for {tensor.name!r} of shape {tensor.shape}")
        if kind != "complete" and (not isinstance(factor, int) or factor < 1):
            raise APIError(f"partition: {kind} partitioning of {tensor.name!r} needs a factor >= 1")
        self.partitions.setdefault(id(tensor), []).append((kind, dim, 0 if kind == "complete" else factor))

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

    def to(self, tensor: object, dst: object = None, src: object = None, axis: int = 0, mode: object = None,
           depth: int | None = None, fifo_depth: int | None = None, burst_len: int | None = None,
           name: str | None = None) -> Tensor:
        """to(tensor, dst, src=None, depth=N): between stages a FIFO; towards a device, data movement.

        `s.to(kernel.B, s[kernel.C], depth=4)` makes B an hls::stream from the stage that writes it
        (or `src`) to stage C (HeteroCL's `fifo_depth` is the same as `depth`; default 2, as Vitis).
        """
        if isinstance(dst, (Stage, StageStmt)):
            return self._stream(tensor, dst, src, depth, fifo_depth)
        raise HCLNotImplementedError(
            f"s.to(tensor, {dst!r}): moving data to a device or the host is not implemented")

    def _stream(self, target: object, dst: object, src: object, depth: int | None,
                fifo_depth: int | None) -> Tensor:
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
            raise APIError(f"s.to: no stage produces {tensor.name!r} (an input of the design); a stream "
                           "connects the stage that writes a tensor to the stage that reads it")
        if not M.writes(producer.stmt, tensor):
            raise APIError(f"s.to: stage {producer.name!r} does not write {tensor.name!r}; it cannot feed a stream")
        if consumer is producer or not M.reads(consumer.stmt, tensor):
            raise APIError(f"s.to: stage {consumer.name!r} does not read {tensor.name!r} written by stage "
                           f"{producer.name!r}; a stream connects a producer to a consumer")
        if any(t is tensor for t in self.outputs) or any(t is tensor for t in self.inputs):
            raise APIError(f"s.to: {tensor.name!r} is an argument of the design; only a tensor between two "
                           "stages can become a stream")
        for other in self.stages.values():
            if other is producer or other is consumer:
                continue
            uses = M.tensor_uses(other.stmt)
            if id(tensor) in uses["read"] or id(tensor) in uses["write"]:
                raise APIError(f"s.to: stage {other.name!r} also uses {tensor.name!r}; a stream has one "
                               f"producer ({producer.name!r}) and one consumer ({consumer.name!r})")
        if any(isinstance(r, M.StreamTo) and r.tensor is tensor for r in self.memory):
            raise APIError(f"s.to: {tensor.name!r} is already a stream")
        self.memory.append(M.StreamTo(tensor, producer.name, consumer.name, fifo))
        return tensor

    def _buffer_record(self, primitive: str, target: object, parent: object, axis: object,
                       name: str | None) -> tuple[Tensor, Stage, str, M.BufferTensor]:
        tensor = self._tensor(target, primitive)
        stage = self.stage_of(parent)
        loop = stage.spatial_loop(axis, primitive)
        if isinstance(tensor, M.BufferTensor):
            if tensor.owner_stage != stage.name:
                raise APIError(f"{primitive}: {tensor.name!r} is a buffer of stage {tensor.owner_stage!r}, "
                               f"not of stage {stage.name!r}")
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
        elif not isinstance(name, str) or not name.isidentifier():
            raise APIError(f"{primitive}: name {name!r} must be a C identifier")
        elif name in self.program.used_names:
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

    def record_compute_at(self, record: M.ComputeAt) -> None:
        if record.producer in self.outlined:
            raise APIError(f"compute_at: stage {record.producer!r} is outlined; it cannot also move into "
                           f"stage {record.consumer!r}")
        if any(isinstance(r, M.ComputeAt) and r.producer == record.producer for r in self.memory):
            raise APIError(f"compute_at: stage {record.producer!r} is already computed at another stage")
        self.memory.append(record)

    # ---- outlining ---------------------------------------------------------------
    def record_axis_outline(self, request: AxisOutline) -> None:
        if request.stage in self.outlined:
            raise APIError(f"stage {request.stage!r} is outlined twice")
        if any(isinstance(r, M.ComputeAt) and r.producer == request.stage for r in self.memory):
            raise APIError(f"stage {request.stage!r} was moved into another stage by compute_at")
        self.outlined.add(request.stage)
        self.axis_outlines.append(request)

    def outline(self, *stage_list: object, unify: bool = False, axis: object = None) -> list[StageFunction]:
        """outline(stage), outline(start, end), outline([stages], [stages], ...) -> function handles.

        A single stage becomes @Stage_<name>; two stages (not in lists) are a start..end range
        of the dataflow graph, @Stage_<start>_<end>; each list becomes one function.
        outline(stage, axis=loop) outlines only the body below that loop (see Stage.outline).
        """
        if not stage_list:
            raise APIError("outline needs at least one stage")
        if axis is not None:
            if len(stage_list) != 1 or isinstance(stage_list[0], (list, tuple)):
                raise APIError("outline(..., axis=...) takes exactly one stage")
            return [self.stage_of(stage_list[0]).outline(axis=axis, unify=unify)]
        groups: list[Any] = []
        handles: list[StageFunction] = []
        if all(not isinstance(x, (list, tuple)) for x in stage_list):
            names = [self.stage_of(x).name for x in stage_list]
            if len(names) == 1:
                groups.append(("set", names))
                handles.append(StageFunction(f"Stage_{names[0]}", names))
            elif len(names) == 2:
                groups.append(("range", names[0], names[1]))
                handles.append(StageFunction(f"Stage_{names[0]}_{names[1]}", names))
            else:
                raise APIError("outline(a, b, c): give one stage, a start and end stage, or lists of stages")
        else:
            for item in stage_list:
                items = item if isinstance(item, (list, tuple)) else [item]
                names = [self.stage_of(x).name for x in items]
                if not names:
                    raise APIError("outline: an empty list of stages")
                groups.append(("set", names))
                handles.append(StageFunction("Stage_" + "_".join(names), names))
        for group in groups:
            names = group[1] if group[0] == "set" else list(group[1:])
            seen: set[str] = set()
            moved = {r.producer: r.consumer for r in self.memory if isinstance(r, M.ComputeAt)}
            for name in names:
                if name in moved:
                    raise APIError(f"stage {name!r} was moved into stage {moved[name]!r} by compute_at; "
                                   f"outline {moved[name]!r} instead")
                if name in self.outlined or name in seen:
                    raise APIError(f"stage {name!r} is outlined twice")
                seen.add(name)
            self.outlined.update(names)
        self.outlines.append(OutlineRequest(groups, unify))
        return handles


def create_schedule(inputs: object, func: Callable[..., Any] | None = None, name: str | None = None) -> Schedule:
    """hcl.create_schedule(inputs, func=None, name=None): trace func(*inputs) into a schedule."""
    if isinstance(inputs, Tensor):
        inputs = [inputs]
    if not isinstance(inputs, (list, tuple)) or not all(isinstance(t, Tensor) for t in inputs):
        raise APIError("create_schedule: inputs must be a list of hcl.placeholder tensors")
    if func is None:
        raise HCLNotImplementedError("create_schedule without func (HeteroCL's imperative mode)")
    if not callable(func):
        raise APIError("create_schedule: func must be callable")
    top_name = name or "top"
    if not top_name.isidentifier():
        raise APIError(f"create_schedule: name {top_name!r} must be a C identifier")
    program = Program(top_name)
    program.used_names.add(top_name)
    for k, tensor in enumerate(inputs):
        if tensor.kind != "placeholder":
            raise APIError(f"create_schedule: input {k} ({tensor.name!r}) is not a placeholder")
        if not tensor.name:
            tensor.name = program.auto_name("placeholder")
        elif tensor.name in program.used_names:
            raise APIError(f"create_schedule: two inputs are named {tensor.name!r}")
        else:
            program.used_names.add(tensor.name)
    with program_scope(program):
        program.top.params.extend(inputs)
        result = func(*inputs)
    outputs: list[Tensor] = []
    returned = result if isinstance(result, (list, tuple)) else ([] if result is None else [result])
    for item in returned:
        if not isinstance(item, Tensor):
            raise APIError(f"create_schedule: the algorithm returned {type(item).__name__}, expected tensors")
        if any(item is t for t in inputs) or any(item is t for t in outputs):
            continue
        outputs.append(item)
    schedule = Schedule(program, list(inputs), outputs, func)
    for stage_name, stage in schedule.stages.items():
        try:
            setattr(func, stage_name, stage)
        except (AttributeError, TypeError):
            pass  # builtins and bound methods take no attributes; s["name"] still works
    return schedule
