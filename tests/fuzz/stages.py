"""Stages, schedules and outline groups of random programs: the `programs()` strategy."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from . import program as P
from .semantics import Int, Ty, TypeTooWide
from .strategies import Ctx, Expr, Generator, converts


class ProgramGenerator(Generator):
    # ---- stages -------------------------------------------------------------------------------
    def add_compute(self, stage: P.Compute, bound: float = 0.0) -> None:
        self.s.bounds[stage.name] = bound if stage.ty.is_float else 0.0
        self.s.stages.append(stage)
        self.s.tensors.append(P.Tensor(stage.name, stage.shape, stage.ty))
        self.s.writable[stage.name] = "compute"
        self.refresh_types()

    def stored_value(self, ctx: Ctx, out: Ty) -> Expr:
        """A value for a tensor of type `out`: floats only when their conversion is defined."""
        want_float = self.chance(0.6 if out.is_float else 0.1)
        value = self.expr(ctx, want_float)
        if want_float and not converts(value.bound, out):
            return self.expr(ctx, False)
        return value

    def axes_for(self, shape: tuple[int, ...]) -> tuple[str, ...]:
        return tuple(self.fresh("i") for _ in shape)

    def elementwise(self) -> None:
        shapes = [t.shape for t in self.s.tensors if t.shape != (1,)]
        shape = self.pick(shapes) if shapes and self.chance(0.8) else self.shape()
        axes = self.axes_for(shape)
        ctx = Ctx([(a, n, "var") for a, n in zip(axes, shape)])
        ty = self.value_type()
        name = self.fresh("s")
        if self.chance(0.15):  # if_/else_ with return_
            cond = self.condition(ctx, 1)
            then, other = self.stored_value(ctx, ty), self.stored_value(ctx, ty)
            self.add_compute(
                P.Compute(name, shape, ty, axes, None, (cond.e, then.e, other.e)),
                max(_bound(then), _bound(other)),
            )
            return
        value = self.stored_value(ctx, ty)
        self.add_compute(P.Compute(name, shape, ty, axes, value.e), _bound(value))

    def reduction(self) -> None:
        shapes = [t.shape for t in self.s.tensors if t.shape != (1,) and len(t.shape) == 1]
        shape = self.pick(shapes) if shapes and self.chance(0.5) else self.shape()
        axes = self.axes_for(shape)
        raxes = tuple((self.fresh("r"), self.draw(st.integers(1, 5))) for _ in range(self.pick([1, 1, 2])))
        ctx = Ctx([(a, n, "var") for a, n in zip(axes, shape)] + [(r, n, "var") for r, n in raxes], depth=2)
        kind = self.pick(["sum", "sum", "max", "min"])
        want_float = self.chance(0.25)
        inner = self.expr(ctx, want_float)
        acc = None
        if self.chance(0.3):
            acc = self.value_type() if not want_float else self.pick([None, Int(32)])
            if acc is not None and want_float and not converts(inner.bound, acc):
                acc = None
        # a float max/min over nothing (where= never true) would be an infinity
        allows_where = kind == "sum" or not (want_float or (acc is not None and acc.is_float))
        where = self.condition(Ctx(ctx.vars, 1), 1).e if allows_where and self.chance(0.25) else None
        reduce = P.Reduce(kind, inner.e, raxes, acc, where)
        try:
            reduce_ty = self.types.of(reduce)
        except TypeTooWide:
            return
        bound = inner.bound * 25
        ty = (
            reduce_ty
            if self.chance(0.4) and not reduce_ty.is_index and not (reduce_ty.is_float and bound > 1e30)
            else self.value_type()
        )
        if reduce_ty.is_float and not converts(bound, ty):
            ty = reduce_ty
        self.add_compute(
            P.Compute(self.fresh("s"), shape, ty, axes, reduce),
            bound if reduce_ty.is_float else 2.0**reduce_ty.int_bits,
        )

    def stencil(self) -> None:
        sources = [t for t in self.s.tensors if t.shape != (1,) and all(n >= 3 for n in t.shape)]
        if sources and self.chance(0.6):
            source = self.pick(sources)
        else:
            rank = self.pick([1, 2])
            source = self.new_input(
                tuple(self.draw(st.integers(4, 9 if rank == 1 else 6)) for _ in range(rank)),
                self.value_type(),
            )
        window = tuple(self.draw(st.integers(1, 3)) for _ in source.shape)
        if all(w == 1 for w in window):
            window = window[:-1] + (2,)
        shape = tuple(n - w + 1 for n, w in zip(source.shape, window))
        axes = self.axes_for(shape)
        ty = source.ty if self.chance(0.5) else self.value_type()
        if source.ty.is_float and not converts(4.0 * 9, ty):
            ty = source.ty
        if self.chance(0.5):  # hcl.sum over the window's reduce axes
            raxes = tuple((self.fresh("r"), w) for w in window)
            index = tuple(P.IVar(a, 0, r) for a, (r, _) in zip(axes, raxes))
            value: Any = P.Reduce("sum", P.Load(source.name, index), raxes, None)
            sliding = [k for k, w in enumerate(window) if w > 1]
        else:  # explicit taps, some weighted
            value = None
            taps = self.draw(st.integers(2, 4))
            used: list[tuple[int, ...]] = []
            for _ in range(taps):
                offsets = tuple(self.draw(st.integers(0, w - 1)) for w in window)
                used.append(offsets)
                term: Any = P.Load(source.name, tuple(P.IVar(a, o) for a, o in zip(axes, offsets)))
                if self.chance(0.3):
                    weight = 2 if not source.ty.is_fixed or source.ty.int_bits > 3 else 1
                    term = P.Bin("mul", term, P.Lit(float(weight) if source.ty.is_float else weight))
                value = term if value is None else P.Bin("add", value, term)
            # reuse_at only along a dimension the taps slide along (else nothing is reused)
            sliding = [k for k in range(len(window)) if len({o[k] for o in used}) > 1]
        name = self.fresh("s")
        try:
            self.types.of(value)
        except TypeTooWide:
            return
        self.add_compute(
            P.Compute(name, shape, ty, axes, value),
            self.s.bounds.get(source.name, 0.0) * 18 if source.ty.is_float else 2.0**126,
        )
        self.s.stencils.append((name, source.name, sliding))

    def imperative(self) -> None:
        targets = [t for t in self.s.tensors if t.shape != (1,) and t.name in self.s.writable]
        if not targets:
            self.elementwise()
            return
        target = self.pick(list(reversed(targets))[:3])
        form = self.pick(["mutate", "for", "while"])
        if form == "mutate":
            axes = self.axes_for(target.shape)
            ctx = Ctx([(a, n, "var") for a, n in zip(axes, target.shape)], depth=2)
            self.s.stages.append(
                P.Mutate(self.fresh("m"), target.shape, axes, (self.store_block(target, ctx),))
            )
        elif form == "for":
            var = self.fresh("f")
            extent = target.shape[0]
            step = self.pick([1, 1, 2, -1])
            lo, hi = (0, extent) if step > 0 else (extent - 1, -1)
            body: tuple[Any, ...]
            if len(target.shape) == 2 and self.chance(0.6):
                inner = self.fresh("f")
                ctx = Ctx([(var, extent, "var"), (inner, target.shape[1], "var")], depth=2)
                body = (P.For(inner, 0, target.shape[1], 1, (self.store_block(target, ctx),)),)
            else:
                ctx = Ctx(
                    [(var, extent, "var")] + [(self.fresh("f"), n, "var") for n in target.shape[1:]], depth=2
                )
                body = (self.store_block(target, Ctx(ctx.vars[:1], 2), fixed_rest=True),)
            self.s.stages.append(P.ForStage(var, lo, hi, step, body))
        else:
            counter = self.fresh("k")
            self.s.stages.append(P.Scalar(counter, Int(32), 0))
            self.s.tensors.append(P.Tensor(counter, (1,), Int(32)))
            self.refresh_types()
            extent = target.shape[0]
            step = self.pick([1, 2])
            ctx = Ctx([(counter, extent, "scalar")], depth=2)
            store = self.store_block(target, ctx, fixed_rest=True)
            bump = P.SetScalar(counter, P.Bin("add", P.ScalarRef(counter), P.Lit(step)))
            loop = P.While(P.Cmp("lt", P.ScalarRef(counter), P.Lit(extent)), (store, bump))
            self.s.stages.append(P.Mutate(self.fresh("m"), (1,), (self.fresh("z"),), (loop,)))

    def store_block(self, target: P.Tensor, ctx: Ctx, fixed_rest: bool = False) -> Any:
        """if_(cond) target[...] = v [else_ target[...] = w], or a bare store."""

        def store() -> P.Store:
            index = self.access(target, ctx) if not fixed_rest else None
            if index is None:
                first = ctx.vars[0]
                sub = P.IVar(first[0]) if first[2] == "var" else P.IScalar(first[0])
                index = (sub,) + tuple(P.IConst(self.draw(st.integers(0, n - 1))) for n in target.shape[1:])
            return P.Store(target.name, index, self.stored_value(ctx, target.ty).e)

        if self.chance(0.6):
            cond = self.condition(ctx, 1)
            orelse = (store(),) if self.chance(0.5) else ()
            return P.If(cond.e, (store(),), orelse)
        return store()

    # ---- schedule ------------------------------------------------------------------------------
    def schedule(self) -> list[tuple]:
        records: list[tuple] = []
        stencil_stages = {name for name, _, _ in self.s.stencils}
        for stage in self.s.stages:
            if (
                isinstance(stage, (P.Compute, P.Mutate))
                and stage.name not in stencil_stages
                and self.chance(0.5)
            ):
                records += self.loop_records(stage)
        for name, source, sliding in self.s.stencils:
            stage = next(s for s in self.s.stages if s.name == name)
            if sliding and self.chance(0.6):
                first = self.pick(sliding)
                records.append(("reuse_at", source, name, stage.axes[first], self.fresh("rb")))
                if first == 0 and len(sliding) == 2 and self.chance(0.5):
                    records.append(("reuse_at", records[-1][4], name, stage.axes[1], self.fresh("wb")))
            if self.chance(0.4):
                records.append(("pipeline", name, stage.axes[-1], 1))
        for tensor in self.s.tensors:
            if tensor.shape != (1,) and self.chance(0.15):
                kind = self.pick([0, 1, 2])
                records.append(
                    (
                        "partition",
                        tensor.name,
                        kind,
                        self.draw(st.integers(0, len(tensor.shape))),
                        0 if kind == 0 else self.pick([2, 3]),
                    )
                )
        groups = self.outline_groups()
        if groups:
            records.append(("outline", groups))
        return records

    def loop_records(self, stage: Any) -> list[tuple]:
        spatial = list(stage.axes)
        reductions: list[list[str]] = []
        if isinstance(stage, P.Compute) and isinstance(stage.value, P.Reduce):
            reductions = [[name] for name, _ in stage.value.axes]
        reorderable = isinstance(stage, P.Compute)  # element order cannot matter there
        records = []
        for _ in range(self.draw(st.integers(1, 3))):
            op = self.pick(["split", "split", "fuse", "reorder", "unroll", "pipeline"])
            nests = [spatial] + reductions
            nest = self.pick(nests) if op in ("split", "unroll") else spatial
            if op == "split":
                loop = self.pick(nest)
                k = nest.index(loop)
                nest[k : k + 1] = [f"{loop}.outer", f"{loop}.inner"]
                records.append(("split", stage.name, loop, self.draw(st.integers(2, 4))))
            elif op == "fuse" and len(spatial) >= 2:
                k = self.draw(st.integers(0, len(spatial) - 2))
                pair = spatial[k : k + 2]
                spatial[k : k + 2] = ["_".join(pair) + "_fused"]
                records.append(("fuse", stage.name, tuple(pair)))
            elif op == "reorder" and reorderable and len(spatial) >= 2:
                order = list(self.draw(st.permutations(spatial)))
                spatial[:] = order
                records.append(("reorder", stage.name, tuple(order)))
            elif op == "unroll":
                records.append(("unroll", stage.name, self.pick(nest), self.pick([0, 2])))
            elif op == "pipeline":
                records.append(("pipeline", stage.name, spatial[-1], self.pick([1, 2])))
        return records

    def outline_groups(self) -> list[list[str]]:
        names = [s.name for s in self.s.stages]
        if not names or not self.chance(0.6):
            return []
        groups: list[list[str]] = []
        start = 0
        while start < len(names):
            length = self.draw(st.integers(1, min(3, len(names) - start)))
            if self.chance(0.5):
                groups.append(names[start : start + length])
            start += length
        return groups

    # ---- the program ---------------------------------------------------------------------------
    def program(self) -> P.Program:
        count = self.draw(st.integers(1, self.max_stages))
        for _ in range(count):
            kind = self.pick(["elementwise", "elementwise", "reduction", "stencil", "imperative"])
            getattr(self, kind)()
        computes = [s.name for s in self.s.stages if isinstance(s, P.Compute)]
        if not computes:
            self.elementwise()
            computes = [self.s.stages[-1].name]
        outputs = [computes[-1]] + [n for n in computes[:-1] if self.chance(0.3)]
        return P.Program(
            self.s.inputs, self.s.stages, outputs, self.schedule(), self.draw(st.integers(0, 2**16))
        )


def _bound(value: Expr) -> float:
    """|value| at most this once stored as a float (an exact value: its type's range)."""
    if value.ty.is_float:
        return value.bound
    return 2.0**31 if value.ty.is_index else 2.0**value.ty.int_bits


@st.composite
def programs(draw: Any, max_stages: int = 4) -> P.Program:
    """A random valid program with its schedule and outline groups."""
    return ProgramGenerator(draw, max_stages).program()
