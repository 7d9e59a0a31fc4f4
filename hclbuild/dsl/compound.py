"""Expressions that hcl functions build, not Python's operators: loop variables (the axes of
hcl.compute, hcl.reduce_axis, hcl.for_), hcl.select, hcl.and_/or_/not_, reductions (hcl.sum,
hcl.reducer), def_ calls and the value of imperative code.

The nodes that operators build (constants, loads, arithmetic, comparisons, casts, bits) and the
type rules are in hclbuild.dsl.expr.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from hclbuild.dsl.expr import Expr
from hclbuild.dsl.types import DType, Index, UInt


@dataclass(eq=False)
class Var(Expr):
    """A loop variable (compute axis, reduce axis, for_ variable); dtype Index."""

    name: str
    lo: Any = 0
    hi: Any = None
    kind: str = "loop"  # "loop" | "reduce"
    dtype: DType = field(default_factory=Index)

    _compared_by_identity: ClassVar[bool] = True

    @property
    def extent(self) -> int:
        return int(self.hi) - int(self.lo)


@dataclass(eq=False)
class Logical(Expr):
    op: str  # and or not
    args: tuple[Expr, ...]
    dtype: DType = field(default_factory=lambda: UInt(1))


@dataclass(eq=False)
class Select(Expr):
    cond: Expr
    true_value: Expr
    false_value: Expr
    dtype: DType


@dataclass(eq=False)
class Reduce(Expr):
    """sum/max/min/reducer over reduce axes; the builder makes the accumulator and loops."""

    kind: str  # "sum" | "max" | "min" | "custom"
    init: Expr
    value: Expr
    axes: tuple[Var, ...]
    where: Expr | None
    dtype: DType
    name: str
    combine: Any = None  # custom: Python function (acc_expr, value_expr) -> Expr
    # the user gave the reduction its name; otherwise the C++ accumulator is named after its stage
    named: bool = True

    _compared_by_identity: ClassVar[bool] = True


@dataclass(eq=False)
class Call(Expr):
    """A call of a def_ function that returns a value."""

    function: Any  # hclbuild.dsl.functions.TracedFunction
    args: tuple[Any, ...]  # Tensor or Expr, already converted to the parameter types
    dtype: DType

    _compared_by_identity: ClassVar[bool] = True


@dataclass(eq=False)
class AccRef(Expr):
    """The running accumulator inside a custom reducer (builder-internal)."""

    dtype: DType

    _compared_by_identity: ClassVar[bool] = True


@dataclass(eq=False)
class ImperativeValue(Expr):
    """The value of imperative code: run `body` (statements); its hcl.return_ gives the value, and
    `default` when no return_ runs (a reducer whose function uses hcl.if_ / hcl.return_)."""

    body: list  # statements (hclbuild.dsl.stmt)
    default: Expr
    dtype: DType
