"""What a DSL expression is not: a Python number or truth value. It has no value while the kernel is
traced, so int(), float(), use as an index or range() bound, round(), divmod() and `if x:` are
refused, each saying what to write in the kernel instead.

Separate from hclbuild.dsl.expr, whose Expr inherits these refusals: they need no node, and expr.py,
which keeps every node class and Python operator together, stays under the module size rule.
"""

from __future__ import annotations

from typing import NoReturn

from hclbuild.errors import APIError


class TracedValue:
    """Base of Expr: Python's conversions of a value the kernel computes, refused."""

    def __int__(self) -> NoReturn:
        raise APIError(
            "int() of a DSL expression: it has no value while the kernel is traced; "
            "hcl.cast(hcl.Int(32), x) converts it in the kernel"
        )

    def __float__(self) -> NoReturn:
        raise APIError(
            "float() of a DSL expression: it has no value while the kernel is traced; "
            "hcl.cast(hcl.Float(), x) converts it in the kernel"
        )

    def __index__(self) -> NoReturn:
        raise APIError(
            "a DSL expression used as a Python index or range() bound: it has no value while the "
            "kernel is traced (index a tensor with it, or loop with hcl.for_)"
        )

    def __round__(self, ndigits: object = None) -> NoReturn:
        raise APIError("round() of a DSL expression is not supported: hcl.cast to an integer type truncates")

    def __divmod__(self, other: object) -> NoReturn:
        raise APIError("divmod() of a DSL expression is not supported: use // and % (two expressions)")

    __rdivmod__ = __divmod__

    def __bool__(self) -> NoReturn:
        raise APIError(
            "a DSL expression has no Python truth value: use hcl.if_/hcl.select for conditions "
            "and hcl.and_/hcl.or_/hcl.not_ instead of and/or/not"
        )
