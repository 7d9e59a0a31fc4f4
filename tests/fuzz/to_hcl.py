"""A Program as an hclbuild schedule: the algorithm traced through the public DSL, then the
schedule records applied. Every expression's DSL dtype is checked against semantics.py's."""

from __future__ import annotations

from typing import Any

import hclbuild as hcl

from . import program as P
from .semantics import Ty


class ModelTypeMismatch(Exception):
    """The DSL typed an expression differently from the fuzzer's reading of the README."""


def hcl_type(ty: Ty) -> Any:
    if ty.kind == "int":
        return hcl.Int(ty.bits)
    if ty.kind == "uint":
        return hcl.UInt(ty.bits)
    if ty.is_fixed:
        make = hcl.Fixed if ty.kind == "fixed" else hcl.UFixed
        return make(ty.bits, ty.frac, quantization=ty.quantization, overflow=ty.overflow)
    return hcl.Float(ty.bits)


class _Tracer:
    def __init__(self, program: P.Program):
        self.program = program
        self.types = P.Types(program.tensors())
        self.tensors: dict[str, Any] = {}
        self.vars: dict[str, Any] = {}

    # ---- expressions ---------------------------------------------------------------------------
    def index(self, index: tuple[P.Subscript, ...]) -> tuple[Any, ...]:
        out = []
        for sub in index:
            if isinstance(sub, P.IVar):
                var = self.vars[sub.name]
                if sub.plus:
                    var = var + self.vars[sub.plus]
                out.append(var + sub.offset if sub.offset else var)
            elif isinstance(sub, P.IConst):
                out.append(sub.value)
            else:
                counter = self.tensors[sub.name].v
                out.append(counter + sub.offset if sub.offset else counter)
        return tuple(out)

    def expr(self, e: Any) -> Any:
        built = self._expr(e)
        if not isinstance(e, P.Lit):
            want = self.types.of(e).name
            if built.dtype.name != want:
                raise ModelTypeMismatch(f"{e}: the DSL types it {built.dtype.name}, the fuzzer {want}")
        return built

    def _operand(self, e: Any) -> Any:
        return e.value if isinstance(e, P.Lit) else self.expr(e)

    def _expr(self, e: Any) -> Any:
        if isinstance(e, P.Load):
            return self.tensors[e.tensor][self.index(e.index)]
        if isinstance(e, P.ScalarRef):
            return self.tensors[e.name].v
        if isinstance(e, P.VarRef):
            return self.vars[e.name]
        if isinstance(e, P.Bin):
            a, b = self._operand(e.a), self._operand(e.b)
            return {
                "add": lambda: a + b,
                "sub": lambda: a - b,
                "mul": lambda: a * b,
                "div": lambda: a / b,
                "floordiv": lambda: a // b,
                "mod": lambda: a % b,
                "and": lambda: a & b,
                "or": lambda: a | b,
                "xor": lambda: a ^ b,
            }[e.op]()
        if isinstance(e, P.Shift):
            a = self.expr(e.a)
            return a << e.amount if e.op == "shl" else a >> e.amount
        if isinstance(e, P.Cmp):
            a, b = self._operand(e.a), self._operand(e.b)
            return {
                "lt": lambda: a < b,
                "le": lambda: a <= b,
                "gt": lambda: a > b,
                "ge": lambda: a >= b,
                "eq": lambda: a == b,
                "ne": lambda: a != b,
            }[e.op]()
        if isinstance(e, P.Select):
            return hcl.select(self.expr(e.cond), self._operand(e.a), self._operand(e.b))
        if isinstance(e, P.Cast):
            return hcl.cast(hcl_type(e.ty), self._operand(e.a))
        if isinstance(e, P.Bit):
            return self.expr(e.a)[e.index]
        if isinstance(e, P.Slice):
            return self.expr(e.a)[e.lo : e.hi]
        if isinstance(e, P.Logic):
            args = [self.expr(a) for a in e.args]
            return {"and": hcl.and_, "or": hcl.or_, "not": hcl.not_}[e.op](*args)
        if isinstance(e, P.Abs):
            return hcl.abs(self.expr(e.a))
        if isinstance(e, P.Reduce):
            axes = [hcl.reduce_axis(0, extent, name) for name, extent in e.axes]
            self.vars.update((name, axis) for (name, _), axis in zip(e.axes, axes))
            value = self.expr(e.value)
            where = True if e.where is None else self.expr(e.where)
            fn = {"sum": hcl.sum, "max": hcl.max, "min": hcl.min}[e.kind]
            dtype = None if e.ty is None else hcl_type(e.ty)
            return fn(value, axis=axes if len(axes) > 1 else axes[0], where=where, dtype=dtype)
        raise TypeError(e)

    # ---- statements ----------------------------------------------------------------------------
    def block(self, stmts: tuple[Any, ...]) -> None:
        for stmt in stmts:
            if isinstance(stmt, P.Store):
                self.tensors[stmt.tensor][self.index(stmt.index)] = self.expr(stmt.value)
            elif isinstance(stmt, P.SetScalar):
                self.tensors[stmt.name].v = self.expr(stmt.value)
            elif isinstance(stmt, P.If):
                with hcl.if_(self.expr(stmt.cond)):
                    self.block(stmt.then)
                if stmt.orelse:
                    with hcl.else_():
                        self.block(stmt.orelse)
            elif isinstance(stmt, P.For):
                with hcl.for_(stmt.lo, stmt.hi, stmt.step, name=stmt.var) as var:
                    self.vars[stmt.var] = var
                    self.block(stmt.body)
            elif isinstance(stmt, P.While):
                with hcl.while_(self.expr(stmt.cond)):
                    self.block(stmt.body)
            else:
                raise TypeError(stmt)

    def stage(self, stage: Any) -> None:
        if isinstance(stage, P.Compute):

            def body(*axes: Any) -> Any:
                self.vars.update(zip(stage.axes, axes))
                if stage.branch is None:
                    return self.expr(stage.value)
                cond, then, other = stage.branch
                with hcl.if_(self.expr(cond)):
                    hcl.return_(self.expr(then))
                with hcl.else_():
                    hcl.return_(self.expr(other))
                return None

            body.__signature__ = _signature(stage.axes)  # type: ignore[attr-defined]
            self.tensors[stage.name] = hcl.compute(
                stage.shape, body, name=stage.name, dtype=hcl_type(stage.ty)
            )
        elif isinstance(stage, P.Scalar):
            self.tensors[stage.name] = hcl.scalar(stage.init, stage.name, dtype=hcl_type(stage.ty))
        elif isinstance(stage, P.Mutate):

            def body(*axes: Any) -> None:
                self.vars.update(zip(stage.axes, axes))
                self.block(stage.body)

            body.__signature__ = _signature(stage.axes)  # type: ignore[attr-defined]
            hcl.mutate(stage.shape, body, name=stage.name)
        elif isinstance(stage, P.ForStage):
            with hcl.for_(stage.lo, stage.hi, stage.step, name=stage.name) as var:
                self.vars[stage.name] = var
                self.block(stage.body)
        else:
            raise TypeError(stage)


def _signature(names: tuple[str, ...]) -> Any:
    """fcompute's parameter names are the loop names (hcl.compute reads them)."""
    import inspect

    return inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])


def build_schedule(program: P.Program, name: str = "top") -> Any:
    """Trace the program and apply its schedule records; returns the hcl schedule."""
    hcl.init(hcl.Int(32))
    tracer = _Tracer(program)
    placeholders = [hcl.placeholder(t.shape, t.name, dtype=hcl_type(t.ty)) for t in program.inputs]

    def kernel(*args: Any) -> Any:
        tracer.tensors.update((t.name, arg) for t, arg in zip(program.inputs, args))
        for stage in program.stages:
            tracer.stage(stage)
        return [tracer.tensors[n] for n in program.outputs]

    s = hcl.create_schedule(placeholders, kernel, name=name)
    for record in program.schedule:
        apply_record(s, record, tracer.tensors)
    return s


def apply_record(s: Any, record: tuple, tensors: dict[str, Any]) -> None:
    """One schedule primitive; loops are named by string (their names after earlier transforms)."""
    kind = record[0]
    if kind == "split":
        _, stage, loop, factor = record
        s[stage].split(loop, factor=factor)
    elif kind == "reorder":
        s[record[1]].reorder(*record[2])
    elif kind == "fuse":
        s[record[1]].fuse(*record[2])
    elif kind == "unroll":
        s[record[1]].unroll(record[2], factor=record[3])
    elif kind == "pipeline":
        s[record[1]].pipeline(record[2], initiation_interval=record[3])
    elif kind == "partition":
        _, tensor, partition_type, dim, factor = record
        s.partition(tensors[tensor], partition_type=partition_type, dim=dim, factor=factor)
    elif kind == "reuse_at":
        _, tensor, stage, loop, buffer = record
        tensors[buffer] = s.reuse_at(tensors[tensor], s[stage], loop, buffer)
    elif kind == "outline":
        s.outline(*[list(group) for group in record[1]])
    else:
        raise ValueError(record)
