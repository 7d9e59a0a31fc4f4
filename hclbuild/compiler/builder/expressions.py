"""Expression lowering: one expr_<Class> method per dsl.expr node (constants, variables, loads,
arithmetic, comparisons, intrinsics, calls; bit access is in bits.py); ev dispatches on the node's class name.
"""

from __future__ import annotations

from typing import Any

from mlir import ir
from mlir.dialects import arith, func, math, memref, scf

from hclbuild.compiler.builder.state import FunctionState, mlir_type, walk_nodes
from hclbuild.dsl import compound
from hclbuild.dsl import expr as E
from hclbuild.dsl.fixed_point import exact_requantize
from hclbuild.dsl.functions import ScalarRef, TracedFunction
from hclbuild.dsl.tensor import Tensor
from hclbuild.dsl.types import DType, Int, UInt
from hclbuild.errors import APIError, CompileError


class ExpressionLowering(FunctionState):
    """dsl.expr nodes -> arith/math/memref/func ops; each returns the node's value."""

    def ev_index(self, expr: E.Expr) -> ir.Value:
        return self.convert(self.ev(expr), expr.dtype, DType("index", 64))

    def ev(self, expr: E.Expr) -> ir.Value:
        handler = getattr(self, f"expr_{type(expr).__name__}", None)
        if handler is None:
            raise CompileError(f"builder: no lowering for expression {type(expr).__name__}")
        return handler(expr)

    def expr_Const(self, expr: E.Const) -> ir.Value:
        dt = expr.dtype
        if dt.is_float:
            return arith.ConstantOp(mlir_type(dt), ir.FloatAttr.get(mlir_type(dt), float(expr.value))).result
        if dt.is_fixed:
            # exact: a Fraction (the extremes of a wide fixed type) must not round through a float
            raw = exact_requantize(expr.value, dt.bits, dt.frac, dt.is_signed, dt.quantization, dt.overflow)
            return self.int_const(raw, dt)
        return self.int_const(int(expr.value), dt)

    def _shift_op(self, expr: E.Binary) -> ir.Value:
        """x << n, x >> n. An amount at or beyond the width (or negative) shifts everything out, as
        ap_int does: 0, or the sign for >> of a signed x. LLVM's shift is poison there, so the
        reference had computed x << (n % 64) where the C++ masked by 31 or saturated (an Int(48)
        shifted by 64 gave x in one and 0 in the other); an amount known in range is one shift."""
        dt = expr.dtype
        lhs = self.convert(self.ev(expr.lhs), expr.lhs.dtype, dt)
        signed_shr = expr.op == "shr" and dt.is_signed
        op = arith.ShLIOp if expr.op == "shl" else arith.ShRSIOp if signed_shr else arith.ShRUIOp
        if dt.is_index:  # address arithmetic: kept one op (affine analyses read it)
            return op(lhs, self.convert(self.ev(expr.rhs), expr.rhs.dtype, dt)).result
        width = dt.bits
        out_fill = (
            (lambda: arith.ShRSIOp(lhs, self.int_const(width - 1, dt)).result)
            if signed_shr
            else (lambda: self.int_const(0, dt))
        )
        if isinstance(expr.rhs, E.Const) and not expr.rhs.dtype.is_float:
            amount = int(expr.rhs.value)
            if not 0 <= amount < width:
                return out_fill()
            return self.fixed(op(lhs, self.int_const(amount, dt)).result, dt)  # ap_fixed's own x >> n
        # the amount as an unsigned value wide enough for both (a negative one is then huge)
        wide = DType("uint", max(width, expr.rhs.dtype.bits if not expr.rhs.dtype.is_index else 64))
        amount_wide = self.convert(self.ev(expr.rhs), expr.rhs.dtype, wide)
        amount = self.resize(amount_wide, wide, width) if wide.bits != width else amount_wide
        out = arith.CmpIOp(arith.CmpIPredicate.uge, amount_wide, self.int_const(width, wide)).result
        return arith.SelectOp(out, out_fill(), op(lhs, amount).result).result

    def expr_Var(self, expr: compound.Var) -> ir.Value:
        try:
            return self.vars[id(expr)]
        except KeyError:
            raise APIError(f"loop variable {expr.name!r} is used outside its loop") from None

    def expr_ScalarRef(self, expr: ScalarRef) -> ir.Value:
        try:
            return self.scalars[id(expr.param)]
        except KeyError:
            raise APIError(f"parameter {expr.param.name!r} used outside its def_ function") from None

    def expr_Load(self, expr: E.Load) -> ir.Value:
        return memref.LoadOp(self.buffer(expr.tensor), self.subscripts(expr.tensor, expr.indices)).result

    def expr_AccRef(self, expr: compound.AccRef) -> ir.Value:
        return self.acc_values[-1]

    def expr_Cast(self, expr: E.Cast) -> ir.Value:
        return self.convert(self.ev(expr.value), expr.value.dtype, expr.dtype)

    def expr_Binary(self, expr: E.Binary) -> ir.Value:
        dt = expr.dtype
        op = expr.op
        if op in ("shl", "shr"):
            return self._shift_op(expr)
        if dt.is_fixed and op == "mul":
            # the raw product of the operands' raw bits: fractions add up, as in ap_fixed
            factors = []
            for operand in (expr.lhs, expr.rhs):
                src = operand.dtype if not operand.dtype.is_index else Int(32)
                raw = self.convert(self.ev(operand), operand.dtype, src)
                factor = self.resize(raw, src, dt.bits)
                kind = "fixed" if src.is_signed else "ufixed"  # an int factor is a fixed one with no fraction
                factors.append(self.fixed(factor, DType(kind, dt.bits, src.frac if src.is_fixed else 0)))
            return self.fixed(arith.MulIOp(factors[0], factors[1]).result, dt)
        if dt.is_fixed and op == "div":
            return self._fixed_quotient(expr)
        lhs = self.convert(self.ev(expr.lhs), expr.lhs.dtype, dt)
        rhs = self.convert(self.ev(expr.rhs), expr.rhs.dtype, dt)
        if dt.is_float:
            return self.float_binary(op, lhs, rhs)
        if dt.is_fixed:
            return self.fixed({"add": arith.AddIOp, "sub": arith.SubIOp}[op](lhs, rhs).result, dt)
        signed = dt.is_signed
        ops: dict[str, Any] = {
            "add": arith.AddIOp,
            "sub": arith.SubIOp,
            "mul": arith.MulIOp,
            "div": arith.DivSIOp if signed else arith.DivUIOp,
            "floordiv": arith.FloorDivSIOp if signed else arith.DivUIOp,
            "mod": arith.RemSIOp if signed else arith.RemUIOp,
            "and": arith.AndIOp,
            "or": arith.OrIOp,
            "xor": arith.XOrIOp,
        }
        if op == "floordiv" and signed and dt.bits > 64:
            return self.wide_floordiv(lhs, rhs, dt)
        return ops[op](lhs, rhs).result

    def _fixed_quotient(self, expr: E.Binary) -> ir.Value:
        """a / b as ap_fixed divides: a's raw bits shifted left by b's fraction bits, divided by
        b's raw bits (truncating toward zero), so the quotient keeps a's fraction bits."""
        sources = [o.dtype if not o.dtype.is_index else Int(32) for o in (expr.lhs, expr.rhs)]
        raws = [self.convert(self.ev(o), o.dtype, src) for o, src in zip((expr.lhs, expr.rhs), sources)]
        shift = sources[1].frac
        # signed and one bit wider than both operands: unsigned ones stay non-negative
        work = max(expr.dtype.bits, sources[0].bits + shift, sources[1].bits) + 1
        dividend = self.resize(raws[0], sources[0], work)
        if shift:
            dividend = arith.ShLIOp(dividend, self.int_const(shift, DType("uint", work))).result
        divisor = self.resize(raws[1], sources[1], work)
        return self.resize(arith.DivSIOp(dividend, divisor).result, DType("int", work), expr.dtype.bits)

    def wide_floordiv(self, lhs: ir.Value, rhs: ir.Value, dt: DType) -> ir.Value:
        """Floor division built from divsi/remsi: the LLVM lowering of arith.floordivsi returns
        wrong results beyond 64 bits (its expansion keeps only the low 64 bits)."""
        quotient = arith.DivSIOp(lhs, rhs).result
        remainder = arith.RemSIOp(lhs, rhs).result
        zero = self.int_const(0, dt)
        inexact = arith.CmpIOp(arith.CmpIPredicate.ne, remainder, zero).result
        signs_differ = arith.XOrIOp(
            arith.CmpIOp(arith.CmpIPredicate.slt, remainder, zero).result,
            arith.CmpIOp(arith.CmpIPredicate.slt, rhs, zero).result,
        ).result
        step = arith.ExtUIOp(mlir_type(dt), arith.AndIOp(inexact, signs_differ).result).result
        return arith.SubIOp(quotient, step).result

    def float_binary(self, op: str, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
        if op == "floordiv":
            return math.FloorOp(arith.DivFOp(lhs, rhs).result).result
        table = {
            "add": arith.AddFOp,
            "sub": arith.SubFOp,
            "mul": arith.MulFOp,
            "div": arith.DivFOp,
            "mod": arith.RemFOp,
        }
        if op not in table:
            raise CompileError(f"builder: '{op}' is not defined on floats")
        return table[op](lhs, rhs).result

    def expr_Compare(self, expr: E.Compare) -> ir.Value:
        dt = expr.operand_dtype
        lhs = self.convert(self.ev(expr.lhs), expr.lhs.dtype, dt)
        rhs = self.convert(self.ev(expr.rhs), expr.rhs.dtype, dt)
        if dt.is_float:
            pred = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "eq": "oeq", "ne": "une"}[expr.op]
            # the bindings spell float predicates in upper case (OLT), integer ones in lower (slt)
            return arith.CmpFOp(getattr(arith.CmpFPredicate, pred.upper()), lhs, rhs).result
        sign = "s" if dt.is_signed else "u"
        pred = {
            "lt": f"{sign}lt",
            "le": f"{sign}le",
            "gt": f"{sign}gt",
            "ge": f"{sign}ge",
            "eq": "eq",
            "ne": "ne",
        }[expr.op]
        return arith.CmpIOp(getattr(arith.CmpIPredicate, pred), lhs, rhs).result

    def expr_Logical(self, expr: compound.Logical) -> ir.Value:
        # an operand after the first that reads memory, divides or calls is evaluated lazily
        values = [
            self.ev(a) if k == 0 or expr.op == "not" or not _may_fault(a) else None
            for k, a in enumerate(expr.args)
        ]
        if expr.op == "not":
            return arith.XOrIOp(values[0], self.int_const(1, UInt(1))).result
        combine = arith.AndIOp if expr.op == "and" else arith.OrIOp
        result = values[0]
        for arg, value in zip(expr.args[1:], values[1:]):
            result = (
                combine(result, value).result
                if value is not None
                else self._short_circuit(expr.op, result, arg)
            )
        return result

    def _short_circuit(self, op: str, decided: ir.Value, arg: E.Expr) -> ir.Value:
        """C's && / ||: `arg` is evaluated only when `decided` leaves the answer open, so
        `hcl.and_(j >= 0, A[j] > key)` never reads A[-1] (HeteroCL's insertion sort relies on it)."""
        if_op = scf.IfOp(decided, [ir.IntegerType.get_signless(1)], has_else=True)
        evaluated, fixed = (
            (if_op.then_block, if_op.else_block) if op == "and" else (if_op.else_block, if_op.then_block)
        )
        with ir.InsertionPoint(evaluated):
            scf.YieldOp([self.ev(arg)])
        with ir.InsertionPoint(fixed):
            scf.YieldOp([self.int_const(0 if op == "and" else 1, UInt(1))])
        return if_op.results[0]

    def expr_Select(self, expr: compound.Select) -> ir.Value:
        cond = self.ev(expr.cond)
        tv = self.convert(self.ev(expr.true_value), expr.true_value.dtype, expr.dtype)
        fv = self.convert(self.ev(expr.false_value), expr.false_value.dtype, expr.dtype)
        return self.fixed(arith.SelectOp(cond, tv, fv).result, expr.dtype)

    def expr_Intrinsic(self, expr: E.Intrinsic) -> ir.Value:
        args = [self.convert(self.ev(a), a.dtype, expr.dtype) for a in expr.args]
        if expr.name == "abs":
            if expr.dtype.is_float:
                return math.AbsFOp(args[0]).result
            return math.AbsIOp(args[0]).result
        if expr.name == "power":
            return math.PowFOp(args[0], args[1]).result
        table = {
            "exp": math.ExpOp,
            "log": math.LogOp,
            "log2": math.Log2Op,
            "log10": math.Log10Op,
            "sqrt": math.SqrtOp,
            "sin": math.SinOp,
            "cos": math.CosOp,
            "tanh": math.TanhOp,
        }
        return table[expr.name](args[0]).result

    def expr_Call(self, expr: compound.Call) -> ir.Value:
        return self.emit_call(expr.function, expr.args)

    def emit_call(self, traced: TracedFunction, args: tuple[Any, ...]) -> ir.Value | None:
        values = []
        for param, arg in zip(traced.scope.params, args):
            if isinstance(param, Tensor):
                values.append(self.buffer(arg))
            else:
                values.append(self.convert(self.ev(arg), arg.dtype, param.dtype))
        self.check_read_only_arguments(traced.name, list(args), values)
        results = [mlir_type(traced.ret_dtype)] if traced.ret_dtype is not None else []
        call = func.CallOp(results, ir.FlatSymbolRefAttr.get(traced.name), values)
        return call.results[0] if results else None


def _may_fault(expr: E.Expr) -> bool:
    """Whether evaluating expr reads a tensor, divides or calls: what C's && and || may skip."""
    faulting: list[Any] = []

    def visit(node: Any) -> None:
        if isinstance(node, (E.Load, compound.Call, compound.Reduce, compound.ImperativeValue)) or (
            isinstance(node, E.Binary) and node.op in ("div", "floordiv", "mod")
        ):
            faulting.append(node)

    walk_nodes(expr, visit)
    return bool(faulting)
