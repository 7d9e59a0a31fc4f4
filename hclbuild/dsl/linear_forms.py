"""Linear forms of index expressions: the width of a bit slice x[lo:hi] is hi - lo when both bounds,
read as sums of coefficient * term plus a constant, have the same terms (`x[4*i : 4*i + 4]` is 4
bits wide), as HeteroCL's simplifier finds it; docs/dsl.md states the rule for users.

Separate from hclbuild.dsl.expr, which builds the slices with it, and below it: expr's nodes say what
their form is (Expr._linear_form: constants, index casts, loads of a linearly defined compute tensor,
add/sub/mul), and this module combines those forms without knowing the node classes, so neither
imports the other back (the two had formed an import cycle when this was dsl/bits.py).
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING, Any

from hclbuild.dsl.stmt import ComputeLoops, Store
from hclbuild.dsl.types import DType

if TYPE_CHECKING:
    # annotations only: expr imports this module to build its slices
    from hclbuild.dsl.compound import Var
    from hclbuild.dsl.expr import Expr, Load

# (term -> coefficient, constant); a term is a term_key, its coefficient never 0
LinearForm = tuple[dict[Any, int], int]


def term_key(node: Any) -> Any:
    """A hashable description of an expression: equal keys compute equal values."""
    # looked up on the class: a struct value's instance attributes are its fields
    if getattr(type(node), "_compared_by_identity", False) or not is_dataclass(node):
        if isinstance(node, (list, tuple)):
            return tuple(term_key(item) for item in node)
        if isinstance(node, (int, float, str, DType)) or node is None:
            return node
        return ("id", id(node))  # tensors, functions, loop variables: by identity
    return (type(node).__name__,) + tuple(term_key(getattr(node, f.name)) for f in fields(node))


def linear_form(expr: Expr, inlined: list[Any] | None = None) -> LinearForm:
    """expr as (term -> coefficient, constant), terms being the sub-expressions it adds up. With
    `inlined` (a list), an element of a compute tensor whose definition is linear in its axes is read
    through that definition, as HeteroCL's simplifier does; the tensors so read are appended."""
    return expr._linear_form(inlined)


def opaque_term(expr: Expr) -> LinearForm:
    """The form of an expression that is one term: 1 * expr."""
    return {term_key(expr): 1}, 0


def combine(op: str, lhs: LinearForm, rhs: LinearForm) -> LinearForm | None:
    """The form of lhs <op> rhs for op add, sub or mul; None for a product of two non-constants."""
    (lt, lc), (rt, rc) = lhs, rhs
    if op == "mul":
        if not lt:
            return {k: v * lc for k, v in rt.items()}, lc * rc
        if not rt:
            return {k: v * rc for k, v in lt.items()}, lc * rc
        return None
    sign = 1 if op == "add" else -1
    terms = dict(lt)
    for k, v in rt.items():
        terms[k] = terms.get(k, 0) + sign * v
    return {k: v for k, v in terms.items() if v}, lc + sign * rc


def read_through_definition(load: Load, inlined: list[Any]) -> LinearForm | None:
    """The form of load's element through its tensor's linear definition (appending the tensor to
    `inlined`), or None when the tensor has no such definition."""
    definition = _definition(load.tensor)
    if definition is None:
        return None
    axes, (terms, const) = definition
    indices = [linear_form(index, inlined) for index in load.indices]
    result: dict[Any, int] = {}
    for axis, (index_terms, index_const) in zip(axes, indices):
        coefficient = terms.get(term_key(axis), 0)
        const += coefficient * index_const
        for k, v in index_terms.items():
            result[k] = result.get(k, 0) + coefficient * v
    inlined.append(load.tensor)
    return {k: v for k, v in result.items() if v}, const


def _definition(tensor: Any) -> tuple[list[Var], LinearForm] | None:
    """(axes, linear form over them) of a compute tensor `A[i, j] = <linear in i, j>` whose values
    all fit its dtype (so storing them wraps nothing), else None."""
    stage = getattr(tensor, "stage", None)
    if getattr(tensor, "kind", None) != "compute" or stage is None or stage.has_return:
        return None
    body = stage.body
    if len(body) != 1 or not isinstance(body[0], ComputeLoops) or len(body[0].body) != 1:
        return None
    axes, store = body[0].axes, body[0].body[0]
    if not isinstance(store, Store) or store.tensor is not tensor or list(store.indices) != list(axes):
        return None
    terms, const = linear_form(store.value)
    extents = {term_key(axis): axis for axis in axes}
    if any(k not in extents for k in terms) or not tensor.dtype.is_int:
        return None
    low = high = const
    for k, coefficient in terms.items():
        axis = extents[k]
        ends = (coefficient * int(axis.lo), coefficient * (int(axis.hi) - 1))
        low, high = low + min(ends), high + max(ends)
    dtype = tensor.dtype
    lowest = -(1 << (dtype.bits - 1)) if dtype.is_signed else 0
    if not lowest <= low <= high < lowest + (1 << dtype.bits):
        return None
    return list(axes), (terms, const)


def constant_distance(lo: Expr, hi: Expr) -> int | None:
    """hi - lo when it does not depend on what the bounds read, else None."""
    (lt, lc), (ht, hc) = linear_form(lo), linear_form(hi)
    return hc - lc if lt == ht else None


def inferred_distance(lo: Expr, hi: Expr) -> tuple[int, tuple[Any, ...]] | None:
    """hi - lo read through the definitions of the compute tensors the bounds read (HeteroCL's
    width of x[A[0] : A[4]] for A = compute(lambda i: i)), with those tensors; else None."""
    inlined: list[Any] = []
    (lt, lc), (ht, hc) = linear_form(lo, inlined), linear_form(hi, inlined)
    if lt != ht or not inlined:
        return None
    unique = tuple({id(t): t for t in inlined}.values())
    return hc - lc, unique
