"""Imperative code inside algorithms: if_/elif_/else_, for_, while_, return_ (HeteroCL's dsl.py)."""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hclbuild.dsl.compound import Var
from hclbuild.dsl.expr import Const, Expr, Load, as_expr, to_bool
from hclbuild.dsl.stmt import For, If, Return, StageStmt, Store, StoreBits, While
from hclbuild.dsl.tensor import Tensor
from hclbuild.dsl.trace import active_program, active_scope, at_scope_top, record, recording_into
from hclbuild.dsl.types import Index
from hclbuild.errors import APIError


@contextmanager
def if_(cond: object) -> Iterator[None]:
    """with hcl.if_(cond): ... runs the block when cond holds."""
    stmt = If(to_bool(cond), chain_open=True)
    record(stmt)
    with recording_into(stmt.body):
        yield


def _open_chain(what: str) -> If:
    """The last If of the current block whose else branch is still free (following elif_s)."""
    stmts = active_scope().stack[-1]
    if not stmts or not isinstance(stmts[-1], If):
        raise APIError(f"hcl.{what} must directly follow hcl.if_ or hcl.elif_")
    node = stmts[-1]
    while len(node.orelse) == 1 and isinstance(node.orelse[0], If) and node.orelse[0].is_elif:
        node = node.orelse[0]
    if not node.chain_open:
        raise APIError(f"hcl.{what} after hcl.else_")
    return node


@contextmanager
def elif_(cond: object) -> Iterator[None]:
    """with hcl.elif_(cond): ... after an if_/elif_ block."""
    node = _open_chain("elif_")
    inner = If(to_bool(cond), is_elif=True, chain_open=True)
    node.orelse.append(inner)
    with recording_into(inner.body):
        yield


@contextmanager
def else_() -> Iterator[None]:
    """with hcl.else_(): ... after an if_/elif_ block."""
    node = _open_chain("else_")
    node.chain_open = False
    with recording_into(node.orelse):
        yield


@contextmanager
def for_(
    begin: object, end: object, step: object = 1, tag: str | None = None, name: str | None = None
) -> Iterator[Var]:
    """with hcl.for_(lo, hi, step=1) as i: ... a loop (negative steps count down, hi exclusive)."""
    loop_step: int | Expr
    if isinstance(step, (Expr, Tensor)):
        loop_step = as_expr(step, Index())  # a runtime step (HeteroCL: scf.for), taken as positive
    elif isinstance(step, bool) or not isinstance(step, numbers.Integral) or step == 0:
        raise APIError(f"hcl.for_: step must be a non-zero int or a DSL expression, got {step!r}")
    else:
        loop_step = int(step)
    program = active_program()
    given = name or tag
    loop_name = program.unique_name(given) if given else program.auto_name("i")
    var = Var(loop_name, begin, end)
    stmt = For(var, as_expr(begin, Index()), as_expr(end, Index()), loop_step, name=loop_name)
    if tag is not None or (active_scope() is program.top and at_scope_top()):
        # a tagged loop (HeteroCL), or a loop straight in the algorithm, is a stage of its own,
        # named by the tag (else after the loop), so it can be scheduled and outlined by name
        stage_name = loop_name if tag is None or tag == loop_name else program.unique_name(tag)
        stage = StageStmt(stage_name, "imperative", [stmt])
        record(stage)
        if active_scope() is program.top and at_scope_top():
            program.stages[stage_name] = stage
    else:
        record(stmt)
    with recording_into(stmt.body):
        yield var
    if (
        isinstance(stmt.lo, Const)
        and int(stmt.lo.value) == 0
        and not isinstance(stmt.hi, Const)
        and stmt.step == 1
    ):
        stmt.max_trip = inferred_max_trip(stmt)


@contextmanager
def while_(cond: object) -> Iterator[None]:
    """with hcl.while_(cond): ... repeats while cond holds (cond is re-read every iteration)."""
    stmt = While(to_bool(cond))
    record(stmt)
    with recording_into(stmt.body):
        yield


def return_(expr: object = None) -> None:
    """hcl.return_(expr): the value of a compute element or of a def_ function (first one wins)."""
    scope = active_scope()
    if scope.return_depth <= 0:
        raise APIError("hcl.return_ is only valid inside a compute/update body or a def_ function")
    record(Return(None if expr is None else as_expr(expr)))


def break_() -> None:
    """hcl.break_ is not supported (as in HeteroCL)."""
    raise APIError("hcl.break_ is not supported; restructure the loop with hcl.while_")


def inferred_max_trip(loop: For) -> int | None:
    """For a loop with runtime bounds from 0: the smallest extent of a tensor dimension that the
    loop variable subscripts directly (C[step] with C of 63 elements: at most 63 trips), else None."""
    extents: list[int] = []

    def visit(node: Any) -> None:
        if isinstance(node, (list, tuple)):
            for item in node:
                visit(item)
            return
        if isinstance(node, (Load, Store, StoreBits)):
            for dim, index in enumerate(node.indices):
                if index is loop.var and dim < len(node.tensor.shape):
                    extents.append(node.tensor.shape[dim])
        if hasattr(node, "__dataclass_fields__") and not isinstance(node, StageStmt):
            for name in node.__dataclass_fields__:
                value = getattr(node, name)
                if name != "tensor" and (
                    isinstance(value, (list, tuple)) or hasattr(value, "__dataclass_fields__")
                ):
                    visit(value)

    visit(loop.body)
    return min(extents) if extents else None
