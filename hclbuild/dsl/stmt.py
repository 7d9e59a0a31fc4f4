"""Statements of a traced program: what the algorithm did, in order, as plain data (no behaviour:
the expressions and tensors that record them build on this module)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # statements hold expressions and tensors, whose modules record statements (this one is below them)
    from hclbuild.dsl.compound import Var
    from hclbuild.dsl.expr import Expr
    from hclbuild.dsl.tensor import Tensor


class Stmt:
    """Base of statements."""


@dataclass(eq=False)
class Store(Stmt):
    tensor: Tensor
    indices: tuple[Expr, ...]
    value: Expr


@dataclass(eq=False)
class StoreBits(Stmt):
    """Set bits lo .. lo+width-1 of one element to `value` (a UInt(width)); with width None, bits
    lo .. hi-1 to the low bits of `value` (a UInt of the element's width)."""

    tensor: Tensor
    indices: tuple[Expr, ...]
    lo: Expr
    width: int | None
    hi: Expr | None
    value: Expr


@dataclass(eq=False)
class For(Stmt):
    var: Var
    lo: Expr
    hi: Expr
    step: int | Expr  # an Expr: a runtime step, assumed positive
    body: list[Stmt] = field(default_factory=list)
    name: str = ""
    max_trip: int | None = None  # runtime bounds: the most trips the body's subscripts allow


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    body: list[Stmt] = field(default_factory=list)
    orelse: list[Stmt] = field(default_factory=list)
    # how the imperative DSL built it: an elif_ (the only statement of its parent's else), and
    # whether an elif_ or else_ may still follow (until hcl.else_ closes the chain)
    is_elif: bool = False
    chain_open: bool = False


@dataclass(eq=False)
class While(Stmt):
    cond: Expr
    body: list[Stmt] = field(default_factory=list)


@dataclass(eq=False)
class Return(Stmt):
    value: Expr | None


@dataclass(eq=False)
class CallStmt(Stmt):
    """A def_ function called for its effect (its value, if any, is dropped)."""

    function: Any
    args: tuple[Any, ...]


@dataclass(eq=False)
class Print(Stmt):
    """printf(format, args...): each arg already has the dtype its conversion reads (dsl/printing)."""

    format: str
    args: tuple[Expr, ...]


@dataclass(eq=False)
class Alloc(Stmt):
    """A tensor created inside a body (compute in a def_ or imperative code)."""

    tensor: Tensor


@dataclass(eq=False)
class ComputeLoops(Stmt):
    """The loop nest of a compute/update/mutate: axes, then body per point.

    The schedule's loop transforms (split, reorder, fuse, tile) apply to `axes`;
    reduction loops come from Reduce expressions inside the body.
    """

    axes: list[Var]
    body: list[Stmt]


@dataclass(eq=False)
class StageStmt(Stmt):
    """One stage: a named unit the schedule and the outline pass address by `name`."""

    name: str
    kind: str  # "compute" | "update" | "mutate" | "imperative" | "scalar" | "call"
    body: list[Stmt]
    output: Tensor | None = None
    inputs: list[Tensor] = field(default_factory=list)
    has_return: bool = False
    # the name given by the user when a tensor held it (hcl.update(mean, ..., name="mean"), a
    # compute "B" beside a placeholder "B"): the stage is `mean_0`, and kernel.mean reaches it too
    alias: str = ""


def contains_return(stmts: list[Stmt]) -> bool:
    """True when a Return is anywhere in stmts (not inside nested stages' own bodies)."""
    for stmt in stmts:
        if isinstance(stmt, Return):
            return True
        for child in (getattr(stmt, "body", None), getattr(stmt, "orelse", None)):
            if isinstance(child, list) and not isinstance(stmt, StageStmt) and contains_return(child):
                return True
    return False
