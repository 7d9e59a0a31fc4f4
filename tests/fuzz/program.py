"""A random program as plain data, its types (semantics.py's rules) and its numpy evaluation.

The evaluation interprets the program element by element on Python ints and numpy float32
scalars, in program order; it shares no code with hclbuild's compiler.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .semantics import (
    BOOL,
    INDEX,
    Int,
    Ty,
    arith,
    compare,
    convert,
    literal_type,
    literal_value,
    promote,
    wrap,
)

# ---- expressions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class IVar:
    """Subscript: loop variable `name` (plus loop variable `plus`) plus a constant offset."""

    name: str
    offset: int = 0
    plus: str | None = None


@dataclass(frozen=True)
class IConst:
    value: int


@dataclass(frozen=True)
class IScalar:
    """Subscript read from a scalar (a while loop's counter), plus a constant offset."""

    name: str
    offset: int = 0


Subscript = IVar | IConst | IScalar


@dataclass(frozen=True)
class Load:
    tensor: str
    index: tuple[Subscript, ...]


@dataclass(frozen=True)
class VarRef:
    name: str


@dataclass(frozen=True)
class ScalarRef:
    name: str


@dataclass(frozen=True)
class Lit:
    value: int | float


@dataclass(frozen=True)
class Bin:
    op: str  # add sub mul div floordiv mod and or xor
    a: Any
    b: Any


@dataclass(frozen=True)
class Shift:
    op: str  # shl shr
    a: Any
    amount: int


@dataclass(frozen=True)
class Cmp:
    op: str
    a: Any
    b: Any


@dataclass(frozen=True)
class Select:
    cond: Any
    a: Any
    b: Any


@dataclass(frozen=True)
class Cast:
    ty: Ty
    a: Any


@dataclass(frozen=True)
class Bit:
    a: Any
    index: int


@dataclass(frozen=True)
class Slice:
    a: Any
    lo: int
    hi: int


@dataclass(frozen=True)
class Logic:
    op: str  # and or not
    args: tuple[Any, ...]


@dataclass(frozen=True)
class Abs:
    a: Any


@dataclass(frozen=True)
class Reduce:
    kind: str  # sum max min
    value: Any
    axes: tuple[tuple[str, int], ...]  # (name, extent), from 0
    ty: Ty | None = None  # dtype=, else the expression's (at least 32 bits for ints)
    where: Any = None


# ---- statements and stages ------------------------------------------------------------------


@dataclass(frozen=True)
class Store:
    tensor: str
    index: tuple[Subscript, ...]
    value: Any


@dataclass(frozen=True)
class SetScalar:
    name: str
    value: Any


@dataclass(frozen=True)
class If:
    cond: Any
    then: tuple[Any, ...]
    orelse: tuple[Any, ...] = ()


@dataclass(frozen=True)
class For:
    var: str
    lo: int
    hi: int
    step: int
    body: tuple[Any, ...]


@dataclass(frozen=True)
class While:
    cond: Any
    body: tuple[Any, ...]


@dataclass(frozen=True)
class Compute:
    """hcl.compute(shape, lambda *axes: value, name, dtype); with `branch`, an if_/else_ of return_s."""

    name: str
    shape: tuple[int, ...]
    ty: Ty
    axes: tuple[str, ...]
    value: Any
    branch: tuple[Any, Any, Any] | None = None  # (cond, then value, else value)


@dataclass(frozen=True)
class Scalar:
    name: str
    ty: Ty
    init: int


@dataclass(frozen=True)
class Mutate:
    """hcl.mutate(shape, body) writing tensors made earlier."""

    name: str
    shape: tuple[int, ...]
    axes: tuple[str, ...]
    body: tuple[Any, ...]


@dataclass(frozen=True)
class ForStage:
    """A top-level hcl.for_ (a stage named after its loop)."""

    name: str
    lo: int
    hi: int
    step: int
    body: tuple[Any, ...]


@dataclass(frozen=True)
class Tensor:
    name: str
    shape: tuple[int, ...]
    ty: Ty


@dataclass
class Program:
    inputs: list[Tensor]
    stages: list[Any]
    outputs: list[str]
    schedule: list[tuple] = field(default_factory=list)
    seed: int = 0

    def tensors(self) -> dict[str, Tensor]:
        found = {t.name: t for t in self.inputs}
        for stage in self.stages:
            if isinstance(stage, Compute):
                found[stage.name] = Tensor(stage.name, stage.shape, stage.ty)
            elif isinstance(stage, Scalar):
                found[stage.name] = Tensor(stage.name, (1,), stage.ty)
        return found


# ---- types -------------------------------------------------------------------------------------


class Types:
    """type_of for one program: tensor and scalar types, loop variables are index."""

    def __init__(self, tensors: dict[str, Tensor]):
        self.tensors = tensors

    def of(self, e: Any) -> Ty:
        if isinstance(e, Load):
            return self.tensors[e.tensor].ty
        if isinstance(e, ScalarRef):
            return self.tensors[e.name].ty
        if isinstance(e, VarRef):
            return INDEX
        if isinstance(e, Lit):
            raise TypeError("a bare literal has the type of its neighbour")
        if isinstance(e, Bin):
            a, b = self.operands(e.a, e.b)
            return promote(a, b, e.op)
        if isinstance(e, Shift):
            base = self.of(e.a)
            return INDEX if base.is_index else base if base.is_fixed else promote(base, base)
        if isinstance(e, Cmp):
            promote(*self.operands(e.a, e.b), "cmp")  # the operands must have a common type
            return BOOL
        if isinstance(e, (Bit, Logic)):
            return BOOL
        if isinstance(e, Select):
            a, b = self.select_operands(e)
            return a if a == b else promote(a, b, "select")
        if isinstance(e, Cast):
            return e.ty
        if isinstance(e, Slice):
            return Ty("uint", e.hi - e.lo)
        if isinstance(e, Abs):
            base = self.of(e.a)
            return promote(base, base) if base.is_index else base
        if isinstance(e, Reduce):
            if e.ty is not None:
                return e.ty
            value = self.of(e.value)
            return promote(value, value) if value.is_int or value.is_index else value
        raise TypeError(e)

    def operands(self, a: Any, b: Any) -> tuple[Ty, Ty]:
        if isinstance(a, Lit):
            tb = self.of(b)
            return literal_type(a.value, tb), tb
        ta = self.of(a)
        return ta, literal_type(b.value, ta) if isinstance(b, Lit) else self.of(b)

    def select_operands(self, e: Select) -> tuple[Ty, Ty]:
        # hcl.select: the true value takes the false value's type, then the false value the true's
        if isinstance(e.a, Lit):
            tb = self.of(e.b)
            return literal_type(e.a.value, tb), tb
        ta = self.of(e.a)
        return ta, literal_type(e.b.value, ta) if isinstance(e.b, Lit) else self.of(e.b)


# ---- evaluation --------------------------------------------------------------------------------


class Evaluator:
    """Runs a Program on input values (object arrays of Python ints / float32): the numpy model."""

    def __init__(self, program: Program):
        self.program = program
        self.types = Types(program.tensors())
        self.memory: dict[str, np.ndarray] = {}
        self.vars: dict[str, int] = {}

    def run(self, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        for tensor in self.program.inputs:
            self.memory[tensor.name] = inputs[tensor.name].copy()
        for stage in self.program.stages:
            self.stage(stage)
        return self.memory

    # ---- stages --------------------------------------------------------------------------------
    def stage(self, stage: Any) -> None:
        if isinstance(stage, Compute):
            out = np.empty(stage.shape, dtype=object)
            self.memory[stage.name] = out
            for point in itertools.product(*(range(n) for n in stage.shape)):
                self.vars.update(zip(stage.axes, point))
                if stage.branch is None:
                    value, ty = self.value(stage.value), self.types.of(stage.value)
                else:
                    cond, then, other = stage.branch
                    chosen = then if self.truth(cond) else other
                    value, ty = self.value(chosen), self.types.of(chosen)
                out[point] = convert(value, ty, stage.ty)
        elif isinstance(stage, Scalar):
            self.memory[stage.name] = np.array([wrap(stage.init, stage.ty)], dtype=object)
        elif isinstance(stage, Mutate):
            for point in itertools.product(*(range(n) for n in stage.shape)):
                self.vars.update(zip(stage.axes, point))
                self.block(stage.body)
        elif isinstance(stage, ForStage):
            self.block((For(stage.name, stage.lo, stage.hi, stage.step, stage.body),))
        else:
            raise TypeError(stage)

    def block(self, stmts: tuple[Any, ...]) -> None:
        for stmt in stmts:
            if isinstance(stmt, Store):
                ty = self.types.tensors[stmt.tensor].ty
                self.memory[stmt.tensor][self.subscripts(stmt.index)] = convert(
                    self.value(stmt.value), self.types.of(stmt.value), ty
                )
            elif isinstance(stmt, SetScalar):
                ty = self.types.tensors[stmt.name].ty
                self.memory[stmt.name][0] = convert(self.value(stmt.value), self.types.of(stmt.value), ty)
            elif isinstance(stmt, If):
                self.block(stmt.then if self.truth(stmt.cond) else stmt.orelse)
            elif isinstance(stmt, For):
                for k in range(stmt.lo, stmt.hi, stmt.step):
                    self.vars[stmt.var] = k
                    self.block(stmt.body)
            elif isinstance(stmt, While):
                for _ in range(10_000):
                    if not self.truth(stmt.cond):
                        break
                    self.block(stmt.body)
                else:
                    raise RuntimeError("the fuzzer's while loop did not end")
            else:
                raise TypeError(stmt)

    def subscripts(self, index: tuple[Subscript, ...]) -> tuple[int, ...]:
        out = []
        for sub in index:
            if isinstance(sub, IVar):
                out.append(self.vars[sub.name] + sub.offset + (self.vars[sub.plus] if sub.plus else 0))
            elif isinstance(sub, IConst):
                out.append(sub.value)
            else:
                out.append(int(self.memory[sub.name][0]) + sub.offset)
        return tuple(out)

    def truth(self, cond: Any) -> bool:
        ty = self.types.of(cond)
        value = self.value(cond)
        return bool(value) if ty == BOOL else value != 0

    # ---- expressions ---------------------------------------------------------------------------
    def value(self, e: Any) -> Any:
        if isinstance(e, Load):
            return self.memory[e.tensor][self.subscripts(e.index)]
        if isinstance(e, ScalarRef):
            return self.memory[e.name][0]
        if isinstance(e, VarRef):
            return self.vars[e.name]
        if isinstance(e, Bin):
            ta, tb = self.types.operands(e.a, e.b)
            ty = promote(ta, tb, e.op)
            a, b = self.operand(e.a, ta), self.operand(e.b, tb)
            if ty.is_fixed and e.op == "mul":  # widths add: raw bits multiply, fractions add
                return wrap(convert(a, ta, _fixed(ta)) * convert(b, tb, _fixed(tb)), ty)
            return arith(e.op, convert(a, ta, ty), convert(b, tb, ty), ty)
        if isinstance(e, Shift):
            ty = self.types.of(e)
            a = convert(self.value(e.a), self.types.of(e.a), ty)
            if e.op == "shl":
                return wrap(a << e.amount, Int(64) if ty.is_index else ty)
            return a >> e.amount  # arithmetic on signed, logical on unsigned (a is read unsigned)
        if isinstance(e, Cmp):
            ta, tb = self.types.operands(e.a, e.b)
            ty = promote(ta, tb, "cmp")
            return compare(
                e.op, convert(self.operand(e.a, ta), ta, ty), convert(self.operand(e.b, tb), tb, ty)
            )
        if isinstance(e, Select):
            ta, tb = self.types.select_operands(e)
            ty = ta if ta == tb else promote(ta, tb, "select")
            chosen, chosen_ty = (e.a, ta) if self.truth(e.cond) else (e.b, tb)
            return convert(self.operand(chosen, chosen_ty), chosen_ty, ty)
        if isinstance(e, Cast):
            if isinstance(e.a, Lit):
                literal = literal_type(e.a.value, e.ty)
                return convert(literal_value(e.a.value, literal), literal, e.ty)
            return convert(self.value(e.a), self.types.of(e.a), e.ty)
        if isinstance(e, Bit):
            return (self.value(e.a) >> e.index) & 1
        if isinstance(e, Slice):
            return (self.value(e.a) >> e.lo) & ((1 << (e.hi - e.lo)) - 1)
        if isinstance(e, Logic):
            truths = [self.truth(arg) for arg in e.args]
            return int(all(truths) if e.op == "and" else any(truths) if e.op == "or" else not truths[0])
        if isinstance(e, Abs):
            ty = self.types.of(e)
            value = convert(self.value(e.a), self.types.of(e.a), ty)
            return np.abs(value) if ty.is_float else wrap(abs(value), ty)
        if isinstance(e, Reduce):
            return self.reduce(e)
        raise TypeError(e)

    def operand(self, e: Any, ty: Ty) -> Any:
        return literal_value(e.value, ty) if isinstance(e, Lit) else self.value(e)

    def reduce(self, e: Reduce) -> Any:
        ty = self.types.of(e)
        value_ty = self.types.of(e.value)
        if e.kind == "sum":
            acc = np.float32(0.0) if ty.is_float else 0
        elif ty.is_float:
            acc = np.float32(-np.inf if e.kind == "max" else np.inf)
        else:
            acc = ty.lowest() if e.kind == "max" else ty.highest()
        saved = dict(self.vars)
        for point in itertools.product(*(range(n) for _, n in e.axes)):
            self.vars.update(zip((name for name, _ in e.axes), point))
            if e.where is not None and not self.truth(e.where):
                continue
            value = convert(self.value(e.value), value_ty, ty)
            if e.kind == "sum" and ty.is_fixed and ty.has_modes:
                # acc += x on an ap_fixed with modes: the exact sum converted back into acc's type
                acc = convert(acc + value, Ty(ty.kind, ty.bits + 1, ty.frac), ty)
            elif e.kind == "sum":
                acc = arith("add", acc, value, ty)
            elif (value > acc) if e.kind == "max" else (value < acc):
                acc = value
        self.vars = saved
        return acc


def _fixed(ty: Ty) -> Ty:
    """An int type read as fixed point with no fraction bits (what a fixed multiply takes)."""
    return ty if ty.is_fixed or ty.is_float else Ty("fixed" if ty.signed else "ufixed", ty.bits, 0)


def evaluate(program: Program, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every tensor's values after running the program (inputs updated in place included)."""
    return Evaluator(program).run(inputs)
