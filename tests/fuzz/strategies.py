"""Hypothesis strategies for random valid hclbuild programs (program.Program) and their schedules.

A program is a chain of stages (elementwise, reduction, stencil, imperative with if_/for_/while_)
over random shapes and dtypes; each stage reads earlier tensors or new inputs made for it. Floats
carry a magnitude bound so that no value overflows and every float -> int conversion is defined;
integer divisors are positive by construction. Schedules are legal by construction: reorder only
where the order of iterations cannot matter, reuse_at only on stencils.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from . import program as P
from .semantics import FLOAT32, INDEX, OVERFLOW_MODES, QUANTIZATION_MODES, Int, Ty, TypeTooWide

INT_WIDTHS = (1, 2, 5, 8, 8, 12, 16, 16, 31, 32, 32, 32, 33, 48, 63, 64, 64, 65, 100, 128)
FLOAT_LIMIT = 1e30
ARITH = ("add", "sub", "mul")


def converts(bound: float, ty: Ty) -> bool:
    """Whether every float up to `bound` in magnitude has a defined value as `ty`: always as a float
    or fixed point (converted exactly, then rounded and brought into range by its modes), as an
    int only inside int64 (fptosi beyond it is undefined)."""
    return ty.is_float or ty.is_fixed or bound < 2.0**62


@dataclass
class Ctx:
    """What an expression may use: loop variables (name, extent, kind var|scalar)."""

    vars: list[tuple[str, int, str]]
    depth: int = 3


@dataclass
class Expr:
    e: Any
    ty: Ty
    bound: float = 0.0  # floats: an upper bound of |value|


@dataclass
class _State:
    draw: Any
    inputs: list[P.Tensor] = field(default_factory=list)
    stages: list[Any] = field(default_factory=list)
    tensors: list[P.Tensor] = field(default_factory=list)  # readable, in creation order
    counter: int = 0
    stencils: list[tuple[str, str, list[int]]] = field(default_factory=list)  # (stage, source, sliding dims)
    writable: dict[str, str] = field(default_factory=dict)  # tensor -> kind, for imperative stages
    bounds: dict[str, float] = field(default_factory=dict)  # float tensors: a bound of |element|


class Generator:
    def __init__(self, draw: Any, max_stages: int):
        self.s = _State(draw)
        self.draw = draw
        self.max_stages = max_stages
        self.types = P.Types({})

    def fresh(self, prefix: str) -> str:
        self.s.counter += 1
        return f"{prefix}{self.s.counter}"

    def pick(self, options: list | tuple) -> Any:
        return self.draw(st.sampled_from(list(options)))

    def chance(self, p: float) -> bool:
        return self.draw(st.floats(0, 1)) < p

    def refresh_types(self) -> None:
        self.types = P.Types({t.name: t for t in self.s.tensors})

    # ---- types and shapes ----------------------------------------------------------------------
    def exact_type(self) -> Ty:
        kind = self.pick(["int", "int", "uint", "fixed", "ufixed"])
        if kind in ("int", "uint"):
            return Ty(kind, self.pick(INT_WIDTHS))
        bits = self.pick((4, 8, 12, 16, 24, 32, 40, 64, 80))
        frac = self.draw(st.integers(0, min(bits, 24)))
        if self.chance(0.35):  # ap_fixed's modes: rounding and saturation where values convert
            return Ty(kind, bits, frac, self.pick(QUANTIZATION_MODES), self.pick(OVERFLOW_MODES))
        return Ty(kind, bits, frac)

    def value_type(self) -> Ty:
        return FLOAT32 if self.chance(0.2) else self.exact_type()

    def shape(self) -> tuple[int, ...]:
        rank = self.pick([1, 1, 2])
        return tuple(self.draw(st.integers(2, 8 if rank == 1 else 5)) for _ in range(rank))

    def new_input(self, shape: tuple[int, ...], ty: Ty) -> P.Tensor:
        tensor = P.Tensor(self.fresh("in"), shape, ty)
        self.s.inputs.append(tensor)
        self.s.tensors.append(tensor)
        self.s.writable[tensor.name] = "input"
        self.s.bounds[tensor.name] = 4.0
        self.refresh_types()
        return tensor

    # ---- leaves --------------------------------------------------------------------------------
    def access(self, tensor: P.Tensor, ctx: Ctx) -> tuple[P.Subscript, ...] | None:
        index = []
        for dim in tensor.shape:
            options: list[P.Subscript] = []
            for name, extent, kind in ctx.vars:
                for offset in range(dim - extent + 1):
                    options.append(P.IVar(name, offset) if kind == "var" else P.IScalar(name, offset))
            if not options:
                if self.chance(0.5):
                    return None
                options = [P.IConst(c) for c in range(dim)]
            exact = [o for o in options if getattr(o, "offset", 1) == 0]
            index.append(self.pick(exact) if exact and self.chance(0.7) else self.pick(options))
        return tuple(index)

    def leaf(self, ctx: Ctx, want_float: bool) -> Expr:
        usable = [t for t in self.s.tensors if t.ty.is_float == want_float and t.shape != (1,)]
        recent = list(reversed(usable))[:4]
        if recent and not self.chance(0.15):
            tensor = self.pick(recent)
            index = self.access(tensor, ctx)
            if index is not None:
                return Expr(P.Load(tensor.name, index), tensor.ty, self.s.bounds.get(tensor.name, 0.0))
        dims = [extent for _, extent, _ in ctx.vars][:2] or [4]
        order = self.draw(st.permutations(dims)) if len(dims) > 1 else dims
        ty = FLOAT32 if want_float else self.exact_type()
        tensor = self.new_input(tuple(order), ty)
        index = self.access(tensor, ctx)
        assert index is not None
        return Expr(P.Load(tensor.name, index), ty, 4.0)

    # ---- expressions ---------------------------------------------------------------------------
    def expr(self, ctx: Ctx, want_float: bool, depth: int | None = None) -> Expr:
        depth = ctx.depth if depth is None else depth
        if depth <= 0 or self.chance(0.25):
            if not want_float and ctx.vars and self.chance(0.12):
                name, _, kind = self.pick(ctx.vars)
                return Expr(
                    P.VarRef(name) if kind == "var" else P.ScalarRef(name),
                    INDEX if kind == "var" else Int(32),
                )
            return self.leaf(ctx, want_float)
        kinds = ["arith", "arith", "arith", "cmp_select", "cast", "abs"]
        if not want_float:
            kinds += ["bitwise", "shift", "divide", "bits", "logic"]
        kind = self.pick(kinds)
        try:
            built = getattr(self, f"_{kind}")(ctx, want_float, depth - 1)
        except TypeTooWide:
            built = None
        if built is None:
            return self.leaf(ctx, want_float)
        return built

    def _typed(self, e: Any, bound: float = 0.0) -> Expr:
        return Expr(e, self.types.of(e), bound)

    def literal(self, like: Ty) -> P.Lit | None:
        if like.is_float:
            return P.Lit(self.pick([0.5, 1.5, -2.0, 3.0, 0.25, -0.75]))
        if like.is_fixed:
            # out of the operand's range too: a literal keeps its value (x * 2 on a Fixed(4, 3))
            values = [
                v for v in (0.5, 1, 2, -1, 0.25, 3, -0.5, 100, -7.5) if float(v * 2**like.frac).is_integer()
            ]
            return P.Lit(self.pick(values)) if values else None
        if like.is_index:
            return P.Lit(self.pick([1, 2, 3]))
        return P.Lit(self.pick([0, 1, 2, 3, 7, -1, -5, 100, 255, 65535, 1 << 31, -(1 << 40), (1 << 70) + 3]))

    def _arith(self, ctx: Ctx, want_float: bool, depth: int) -> Expr | None:
        op = self.pick(ARITH)
        a = self.expr(ctx, want_float, depth)
        if self.chance(0.3):
            lit = self.literal(a.ty)
            if lit is None:
                return None
            lhs, rhs = (lit, a.e) if self.chance(0.3) else (a.e, lit)
            bound = abs(float(lit.value))
        else:
            b = self.expr(ctx, want_float, depth)
            lhs, rhs, bound = a.e, b.e, b.bound
        if want_float:
            total = a.bound * bound if op == "mul" else a.bound + bound
            if total > FLOAT_LIMIT:
                return None
            if op != "mul" and not (isinstance(lhs, P.Lit) or isinstance(rhs, P.Lit)) and self.chance(0.15):
                divisor = P.Lit(self.pick([2.0, -4.0, 0.5]))
                return self._typed(P.Bin("div", a.e, divisor), a.bound * 2)
            return self._typed(P.Bin(op, lhs, rhs), total)
        return self._typed(P.Bin(op, lhs, rhs))

    def _bitwise(self, ctx: Ctx, want_float: bool, depth: int) -> Expr | None:
        a, b = self.expr(ctx, False, depth), self.expr(ctx, False, depth)
        if a.ty.is_fixed or b.ty.is_fixed:
            return None
        return self._typed(P.Bin(self.pick(["and", "or", "xor"]), a.e, b.e))

    def _shift(self, ctx: Ctx, want_float: bool, depth: int) -> Expr | None:
        a = self.expr(ctx, False, depth)
        width = self._typed(P.Shift("shl", a.e, 0)).ty.bits
        return self._typed(
            P.Shift(self.pick(["shl", "shr"]), a.e, self.draw(st.integers(0, min(width - 1, 40))))
        )

    def _divide(self, ctx: Ctx, want_float: bool, depth: int) -> Expr | None:
        a = self.expr(ctx, False, depth)
        if a.ty.is_fixed:
            return None
        if self.chance(0.5):
            divisor: Any = P.Lit(self.pick([1, 2, 3, 7, 16]))
        else:  # (b & 7) + 1 is in 1..8 whatever b is
            b = self.expr(ctx, False, depth)
            if b.ty.is_fixed:
                return None
            divisor = P.Bin("add", P.Bin("and", b.e, P.Lit(7)), P.Lit(1))
        return self._typed(P.Bin(self.pick(["div", "floordiv", "mod"]), a.e, divisor))

    def condition(self, ctx: Ctx, depth: int) -> Expr:
        want_float = self.chance(0.2)
        a = self.expr(ctx, want_float, depth)
        if self.chance(0.4):
            lit = self.literal(a.ty)
            b: Any = lit if lit is not None else self.expr(ctx, want_float, depth).e
        else:
            b = self.expr(ctx, want_float, depth).e
        op = self.pick(["lt", "le", "gt", "ge", "eq", "ne"])
        try:
            return self._typed(P.Cmp(op, a.e, b))
        except TypeTooWide:
            return self._typed(P.Cmp(op, a.e, a.e))

    def _cmp_select(self, ctx: Ctx, want_float: bool, depth: int) -> Expr | None:
        cond = self.condition(ctx, depth)
        if not want_float and self.chance(0.3):
            return cond
        a, b = self.expr(ctx, want_float, depth), self.expr(ctx, want_float, depth)
        return self._typed(P.Select(cond.e, a.e, b.e), max(a.bound, b.bound))

    def _logic(self, ctx: Ctx, want_float: bool, depth: int) -> Expr | None:
        op = self.pick(["and", "or", "not"])
        count = 1 if op == "not" else 2
        return self._typed(P.Logic(op, tuple(self.condition(ctx, depth).e for _ in range(count))))

    def _bits(self, ctx: Ctx, want_float: bool, depth: int) -> Expr | None:
        a = self.expr(ctx, False, depth)
        if a.ty.is_index:
            return None
        lo = self.draw(st.integers(0, a.ty.bits - 1))
        if self.chance(0.4):
            return self._typed(P.Bit(a.e, lo))
        return self._typed(P.Slice(a.e, lo, self.draw(st.integers(lo + 1, a.ty.bits))))

    def _abs(self, ctx: Ctx, want_float: bool, depth: int) -> Expr | None:
        a = self.expr(ctx, want_float, depth)
        return self._typed(P.Abs(a.e), a.bound)

    def _cast(self, ctx: Ctx, want_float: bool, depth: int) -> Expr | None:
        if want_float:  # an exact value as float: bounded by its type's range
            a = self.expr(ctx, False, depth)
            bound = 2.0 ** (a.ty.bits - a.ty.frac) if not a.ty.is_index else 2.0**31
            return self._typed(P.Cast(FLOAT32, a.e), bound) if bound < FLOAT_LIMIT else None
        target = self.exact_type()
        if self.chance(0.25):
            a = self.expr(ctx, True, depth)
            if not converts(a.bound, target):
                return None
            return self._typed(P.Cast(target, a.e))
        return self._typed(P.Cast(target, self.expr(ctx, False, depth).e))
