"""Stage handles of a schedule: loop lookup, loop transforms and pragmas, recorded as plans."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from hclbuild.dsl.compound import Reduce, Var
from hclbuild.dsl.expr import Const
from hclbuild.dsl.stage_block import StageBlock
from hclbuild.dsl.stmt import ComputeLoops, For, StageStmt
from hclbuild.dsl.tensor import Tensor
from hclbuild.errors import APIError, HCLNotImplementedError
from hclbuild.schedule import memory as M
from hclbuild.schedule.directives import LoopDirectives
from hclbuild.schedule.loops import LoopNest
from hclbuild.schedule.outlines import AxisOutline, StageFunction

if TYPE_CHECKING:
    from hclbuild.schedule.schedule import Schedule


@dataclass(frozen=True)
class LoopSplit:
    """How a split made a loop: HeteroCL lets its handles name the loops on a schedule of the same
    algorithm made afterwards (its tutorial 04 reorders a new schedule with an old split's
    handles), where the split is made again when the loop is not there yet."""

    parent: str
    factor: int | None
    nparts: int | None


@dataclass(frozen=True)
class LoopFuse:
    """How a fuse made a loop (see LoopSplit)."""

    parts: tuple[str, ...]


@dataclass(frozen=True)
class LoopHandle:
    """A loop of a stage, as returned by stage.axis, split, fuse."""

    stage: str
    name: str
    made_by: LoopSplit | LoopFuse | None = field(default=None, compare=False)

    def __repr__(self) -> str:
        return f"Loop({self.stage}.{self.name})"


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


class Stage:
    """A stage of the schedule (s[kernel.B], kernel.B): loop transforms and pragmas on its loops."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if not args or isinstance(args[0], str) or args[0] is None:
            # hcl.Stage("name"): HeteroCL's older imperative block, a stage of the algorithm
            return StageBlock(*args, **kwargs)
        return super().__new__(cls)

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
                raise APIError(
                    f"stage {self.name!r}: two different reduction axes are named {ax.name!r}; "
                    "give each hcl.reduce_axis its own name"
                )
            self.reductions[ax.name] = LoopNest.of_axes([(ax.name, ax.extent)])
        # hcl.for_ loops inside the stage's body (not in nested stages), outermost first: each with
        # constant bounds and a positive step gets a plan of its own (split, pipeline, unroll...)
        self.for_loops = _for_loops(stmt.body)
        self.loop_plans: dict[str, LoopNest] = {
            loop.name: LoopNest.of_axes([(loop.name, trips)])
            for loop in self.for_loops
            if (trips := _trip_count(loop)) is not None
        }
        # HeteroCL fixes a stage's axes when it is created: axis[k] names the k-th original loop
        # whatever split/fuse did since (the standard tiling splits axis[0], then axis[1]). A
        # compute or update has its spatial and reduction axes; a mutate, like an imperative
        # stage, is a loop nest whose hcl.for_ loops follow its own axes (HeteroCL's floyd-warshall
        # pipelines L1.axis[1] of mutate((1,), ...), its first for_)
        own = [ax.name for ax in loops.axes] + list(self.reductions) if loops is not None else []
        nested = [loop.name for loop in self.for_loops] if loops is None or stmt.kind == "mutate" else []
        self._axes = own + [name for name in nested if name not in own]
        # reduction axes whose loop nest was merged into the spatial nest (by a reorder across
        # them), in merge order; the builder then accumulates straight into the output tensor
        self.merged_reductions: list[str] = []
        self.dataflow_loop: str | None = None
        self.is_dataflow = False
        self.children: dict[str, Any] = {}  # nested stages, named loops, tensors written (attributes)

    def __getattr__(self, name: str) -> Any:
        children = self.__dict__.get("children")
        if children is not None and name in children:
            return children[name]
        raise AttributeError(
            f"stage {self.__dict__.get('name')!r} has no loop, nested stage or tensor {name!r}"
        )

    # ---- loop lookup ---------------------------------------------------------
    @property
    def axis(self) -> list[LoopHandle]:
        """The stage's loops as created (HeteroCL): spatial axes, then reduction axes; the
        hcl.for_ loops of an imperative stage. Split/fuse results are the handles they return."""
        return [LoopHandle(self.name, n) for n in self._axes]

    @property
    def op(self) -> Stage:
        return self

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of the tensor the stage computes (HeteroCL's `kernel.A.shape`)."""
        if self.stmt.output is None:
            raise AttributeError(f"stage {self.name!r} computes no tensor of its own, so it has no shape")
        return self.stmt.output.shape

    @property
    def dtype(self) -> Any:
        """The dtype of the tensor the stage computes (HeteroCL's `kernel.A.dtype`)."""
        if self.stmt.output is None:
            raise AttributeError(f"stage {self.name!r} computes no tensor of its own, so it has no dtype")
        return self.stmt.output.dtype

    def _loop_name(self, axis: object) -> str:
        if isinstance(axis, LoopHandle):
            if axis.stage != self.name:
                raise APIError(f"stage {self.name!r}: loop {axis.name!r} belongs to stage {axis.stage!r}")
            if axis.made_by is not None and axis.name not in self.leaf_names():
                # a split's or fuse's handle from another schedule of the same algorithm
                if isinstance(axis.made_by, LoopSplit):
                    self.split(axis.made_by.parent, axis.made_by.factor, axis.made_by.nparts)
                else:
                    self.fuse(*axis.made_by.parts)
            return axis.name
        if isinstance(axis, Var):
            return axis.name
        if isinstance(axis, numbers.Integral) and not isinstance(axis, bool):
            loops = self.axis  # integers name the original loops, as HeteroCL's do
            if not 0 <= int(axis) < len(loops):
                raise APIError(f"stage {self.name!r} has {len(loops)} loops, no loop {axis}")
            return loops[int(axis)].name
        if isinstance(axis, str):
            return axis
        raise APIError(f"stage {self.name!r}: {axis!r} is not a loop (use stage.axis[k], a handle or an int)")

    def _nest_of(self, name: str) -> LoopNest:
        if self.spatial is not None and self.spatial.has_leaf(name):
            return self.spatial
        for nest in list(self.reductions.values()) + list(self.loop_plans.values()):
            if nest.has_leaf(name):
                return nest
        raise APIError(f"stage {self.name!r} has no loop {name!r} (loops: {', '.join(self.leaf_names())})")

    def leaf_names(self) -> list[str]:
        """Every loop the stage has now (after split/fuse), spatial first."""
        nests = (
            ([self.spatial] if self.spatial else [])
            + list(self.reductions.values())
            + list(self.loop_plans.values())
        )
        return [leaf.name for nest in nests for leaf in nest.leaves]

    # ---- loop transforms -----------------------------------------------------
    def split(
        self, parent: object, factor: int | None = None, nparts: int | None = None, mode: str = "transform"
    ) -> tuple[LoopHandle, LoopHandle]:
        """split(axis, factor=None, nparts=None) -> (outer, inner), named x.outer / x.inner."""
        name = self._loop_name(parent)
        outer, inner = self._nest_of(name).split(name, factor, nparts)
        made_by = LoopSplit(name, factor, nparts)
        return LoopHandle(self.name, outer, made_by), LoopHandle(self.name, inner, made_by)

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
        if len(nests) != 1 and not self._merge_for_loops(names):
            if self.spatial is None:
                # each reduction of an imperative stage is a band of its own
                raise HCLNotImplementedError(
                    f"reorder of {', '.join(names)} in stage {self.name!r}: they come from hcl.for_ loops that are "
                    "not perfectly nested or from reductions, which do not interchange (reorder the loops a split "
                    "made of one loop, or for_ loops each the only statement of the one above)"
                )
            self._merge_reductions([n for n in names if not self.spatial.has_leaf(n)])
        self._nest_of(names[0]).reorder(names)

    def _merge_for_loops(self, loop_names: list[str]) -> bool:
        """Make one band of the hcl.for_ loops holding loop_names and the for_ loops between them,
        when they are perfectly nested (each the only statement of the one above, all with constant
        bounds), as HeteroCL reorders and fuses them; the builder then emits the band and binds every
        merged loop's variable. False (nothing changed) when they are not."""
        owners = []
        for name in loop_names:
            owner = next((key for key, nest in self.loop_plans.items() if nest.has_leaf(name)), None)
            if owner is None:
                return False
            owners.append(owner)
        wanted = set(owners)
        order = [loop.name for loop in self.for_loops]
        outer = next(loop for loop in self.for_loops if loop.name in wanted)
        chain = [outer.name]
        loop = outer
        while not wanted <= set(chain):
            inner = loop.body[0] if len(loop.body) == 1 else None
            if not isinstance(inner, For) or inner.name not in self.loop_plans:
                return False
            chain.append(inner.name)
            loop = inner
        if order.index(chain[-1]) - order.index(chain[0]) != len(chain) - 1:
            return False
        band = self.loop_plans[chain[0]]
        for name in chain[1:]:
            band.merge(self.loop_plans.pop(name))
        return True

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
                raise APIError(
                    f"stage {self.name!r}: reduction axis {axis!r} cannot join the spatial loops, "
                    f"a loop named {sorted(taken & names)[0]!r} is already there; rename the axis"
                )
            taken |= names
        for axis in order:
            self.spatial.merge(self.reductions[axis])
            del self.reductions[axis]
            self.merged_reductions.append(axis)

    def fuse(self, *axes: object) -> LoopHandle:
        """fuse(*axes) -> one loop named x_y_fused."""
        names = [self._loop_name(a) for a in axes]
        if len({id(self._nest_of(n)) for n in names}) != 1 and not self._merge_for_loops(names):
            what = (
                "hcl.for_ loops that are not perfectly nested"
                if self.spatial is None
                else "spatial and reduction loops"
            )
            raise HCLNotImplementedError(f"fuse of {', '.join(names)} in stage {self.name!r}: across {what}")
        return LoopHandle(self.name, self._nest_of(names[0]).fuse(names), LoopFuse(tuple(names)))

    def tile(
        self, x_parent: object, y_parent: object, x_factor: int, y_factor: int
    ) -> tuple[LoopHandle, ...]:
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
        self._direct(var, lambda directives: replace(directives, unroll=factor))

    def pipeline(self, var: object, initiation_interval: int = 1) -> None:
        """pipeline(axis, initiation_interval=1)."""
        if (
            not isinstance(initiation_interval, int)
            or isinstance(initiation_interval, bool)
            or initiation_interval < 1
        ):
            raise APIError(f"pipeline: initiation_interval must be an int >= 1, got {initiation_interval!r}")
        self._direct(var, lambda directives: replace(directives, pipeline_ii=initiation_interval))

    def parallel(self, var: object) -> None:
        """parallel(axis): mark the loop parallel (the LLVM reference runs it in order; the HLS emitter
        refuses it, Vitis HLS has no parallel pragma: see docs/schedule.md)."""
        self._direct(var, lambda directives: replace(directives, parallel=True))

    def _direct(self, var: object, change: Callable[[LoopDirectives], LoopDirectives]) -> None:
        name = self._loop_name(var)
        leaf = self._nest_of(name).leaf(name)
        leaf.directives = change(leaf.directives)

    def dataflow(self, axis: object = None) -> None:
        """dataflow(): #pragma HLS dataflow in this stage's outermost loop (or the given loop)."""
        self.is_dataflow = True
        self.dataflow_loop = None if axis is None else self._loop_name(axis)

    # ---- not implemented here -------------------------------------------------
    def reduction_loop_names(self) -> frozenset[str]:
        """Names of the loops that run this stage's reductions (merged among the spatial loops too)."""
        names = {leaf.name for nest in self.reductions.values() for leaf in nest.leaves}
        if self.spatial is not None:
            for axis in self.merged_reductions:
                names |= _leaf_names(self.spatial.binding.get(axis, ()))
        return frozenset(names)

    def current_loop(self, name: str) -> str:
        """`name`, or the innermost loop a later split made of it (x -> x.inner: HeteroCL's attach point)."""
        leaves = self.leaf_names()
        if name in leaves:
            return name
        derived = [leaf for leaf in leaves if leaf.startswith(name + ".")]
        return derived[-1] if derived else name

    def spatial_loop(self, axis: object, what: str) -> str:
        """The name of a spatial loop of this stage (a reduction loop or an unknown one is an error)."""
        name = self._loop_name(axis)
        if self.spatial is None:
            if isinstance(axis, str) or any(loop.name == name for loop in self.for_loops):
                return name  # an hcl.for_ stage (s_S.i or "i"): its loops are known to the builder by name
            raise APIError(
                f"{what}: stage {self.name!r} has no compute loops; name an hcl.for_ loop as a string"
            )
        if not self.spatial.has_leaf(name):
            self._nest_of(name)  # unknown loops get the list of loops
            raise APIError(
                f"{what}: loop {name!r} of stage {self.name!r} is a reduction loop; give a spatial loop"
            )
        return name

    def compute_at(self, parent: object, axis: object) -> None:
        """compute_at(parent, axis): compute this stage inside loop `axis` of stage `parent`, on demand;
        a stage `parent` does not read shares its loops down to `axis` instead (loop fusion)."""
        consumer = self._schedule.stage_of(parent)
        loop = consumer.spatial_loop(axis, "compute_at")
        tensor = self.stmt.output
        if consumer is self:
            raise APIError(f"compute_at: stage {self.name!r} cannot be computed at itself")
        if tensor is None:
            raise APIError(f"compute_at: stage {self.name!r} writes no tensor of its own")
        if not M.reads(consumer.stmt, tensor):
            # HeteroCL fuses the loops of two stages neither of which reads what the other writes
            mine, theirs = M.tensor_uses(self.stmt), M.tensor_uses(consumer.stmt)
            if mine["write"] & (theirs["read"] | theirs["write"]) or theirs["write"] & mine["read"]:
                raise APIError(
                    f"compute_at: stage {consumer.name!r} does not read {tensor.name!r} of stage "
                    f"{self.name!r} but shares another tensor with it; it cannot fuse their loops"
                )
            self._schedule.record_compute_at(M.FuseAt(self.name, consumer.name, loop))
            return
        self._schedule.record_compute_at(M.ComputeAt(self.name, consumer.name, loop, tensor))

    def systolic(self) -> None:
        raise HCLNotImplementedError("systolic is not implemented")

    def outline(self, axis: object = None, unify: object = None, name: object = None) -> StageFunction:
        """s[stage].outline(axis=None, unify=None, name=None): the stage, or only the body below loop
        `axis`, becomes a function (named `name`, default Stage_<stage>); `unify` (a StageFunction,
        or True) shares an earlier function whose body differs at most in constant loop bounds
        (they become index arguments)."""
        if axis is None:
            return self._schedule.outline(self, unify=unify is not None and unify is not False, name=name)
        loop = self._loop_name(axis)
        if self.spatial is not None and not isinstance(axis, str):
            self._nest_of(loop)  # an unknown loop is an error here, naming the stage's loops
        if isinstance(unify, StageFunction):
            if name is not None:
                raise APIError(
                    f"outline: name={name!r} with unify={unify.name}: the body joins that function"
                )
            self._schedule.record_axis_outline(AxisOutline(self.name, loop, unify.name))
            return unify
        if unify is not None and not isinstance(unify, bool):
            raise APIError(f"outline: unify must be a StageFunction or a bool, got {unify!r}")
        function = self._schedule.function_names.propose(name, [self.name])
        self._schedule.record_axis_outline(AxisOutline(self.name, loop, bool(unify), function))
        return StageFunction(function, [self.name])

    def __repr__(self) -> str:
        return f"Stage({self.name!r})"


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


def _for_loops(stmts: list[Any]) -> list[For]:
    """hcl.for_ loops in stmts, outermost first, not entering nested stages."""
    found: list[For] = []

    def visit(items: list[Any]) -> None:
        for stmt in items:
            if isinstance(stmt, StageStmt):
                continue
            if isinstance(stmt, For):
                found.append(stmt)
            if isinstance(stmt, ComputeLoops):
                visit(stmt.body)
            for child in ("body", "orelse"):
                value = getattr(stmt, child, None)
                if isinstance(value, list) and not isinstance(stmt, ComputeLoops):
                    visit(value)

    visit(stmts)
    return found


def _trip_count(loop: For) -> int | None:
    """Trips of a for_ with constant bounds and a positive step, else None (no plan)."""
    if (
        not (isinstance(loop.lo, Const) and isinstance(loop.hi, Const))
        or not isinstance(loop.step, int)
        or loop.step <= 0
    ):
        return None
    return max(0, -(-(int(loop.hi.value) - int(loop.lo.value)) // loop.step))
