"""Scalar op handlers of the HLS emitter: arith and math on integers, floats and index values.

Each SSA result becomes a local of the C type of its width (the declaration truncates); see the
package docstring for how signedness, overflow and shifts are kept defined in C.
"""

from __future__ import annotations

import re

from mlir import ir

from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.emit_hls.c_types import (
    BOOL,
    INDEX,
    CType,
    ctype_of,
    float_literal,
    integer_attr_value,
    wide_literal,
)
from hclbuild.compiler.emit_hls.core import Handler, Scalar, with_args
from hclbuild.compiler.emit_hls.wide_ints import WideIntOps

_CMPI = {  # predicate -> (C operator, signed view: True/False, None = either, same for both)
    0: ("==", None),
    1: ("!=", None),
    2: ("<", True),
    3: ("<=", True),
    4: (">", True),
    5: (">=", True),
    6: ("<", False),
    7: ("<=", False),
    8: (">", False),
    9: (">=", False),
}

_CMPF = {  # predicate -> C expression; unordered predicates are the negation of the ordered opposite
    0: "false",
    1: "{a} == {b}",
    2: "{a} > {b}",
    3: "{a} >= {b}",
    4: "{a} < {b}",
    5: "{a} <= {b}",
    6: "({a} < {b} || {a} > {b})",
    7: "(!std::isnan({a}) && !std::isnan({b}))",
    8: "!({a} < {b} || {a} > {b})",
    9: "!({a} <= {b})",
    10: "!({a} < {b})",
    11: "!({a} >= {b})",
    12: "!({a} > {b})",
    13: "{a} != {b}",
    14: "(std::isnan({a}) || std::isnan({b}))",
    15: "true",
}

_CMPI_REFLEXIVE = frozenset({0, 3, 5, 7, 9})  # eq, sle, sge, ule, uge: true for x vs x

_INT_BINARY = {
    "arith.addi": "+",
    "arith.subi": "-",
    "arith.muli": "*",
    "arith.andi": "&",
    "arith.ori": "|",
    "arith.xori": "^",
}
_BOOL_BINARY = {"+": "^", "-": "^", "*": "&", "&": "&", "|": "|", "^": "^"}
_INT_DIVISION = {
    "arith.divsi": ("/", True),
    "arith.divui": ("/", False),
    "arith.remsi": ("%", True),
    "arith.remui": ("%", False),
}
_INT_MINMAX = {
    "arith.maxsi": (">", True),
    "arith.minsi": ("<", True),
    "arith.maxui": (">", False),
    "arith.minui": ("<", False),
}
_FLOAT_BINARY = {"arith.addf": "+", "arith.subf": "-", "arith.mulf": "*", "arith.divf": "/"}
_FLOAT_CALL = {
    "math.exp": "std::exp",
    "math.exp2": "std::exp2",
    "math.expm1": "std::expm1",
    "math.log": "std::log",
    "math.log2": "std::log2",
    "math.log10": "std::log10",
    "math.log1p": "std::log1p",
    "math.sqrt": "std::sqrt",
    "math.cbrt": "std::cbrt",
    "math.sin": "std::sin",
    "math.cos": "std::cos",
    "math.tan": "std::tan",
    "math.asin": "std::asin",
    "math.acos": "std::acos",
    "math.atan": "std::atan",
    "math.sinh": "std::sinh",
    "math.cosh": "std::cosh",
    "math.tanh": "std::tanh",
    "math.erf": "std::erf",
    "math.absf": "std::fabs",
    "math.floor": "std::floor",
    "math.ceil": "std::ceil",
    "math.trunc": "std::trunc",
    "math.round": "std::round",
    "math.roundeven": "std::nearbyint",
    "math.powf": "std::pow",
    "math.atan2": "std::atan2",
    "math.copysign": "std::copysign",
    "math.fma": "std::fma",
    "arith.remf": "std::fmod",
    "arith.maxnumf": "std::fmax",
    "arith.minnumf": "std::fmin",
}


class ScalarOps(WideIntOps):
    """Handlers of arith.* and math.* ops (registered in SCALAR_HANDLERS below)."""

    # ---- arith: constants and integers ---------------------------------------------------------

    def _constant(self, op: ir.Operation) -> None:
        result = op.results[0]
        ctype = ctype_of(result.type)
        attr = upstream.constant_value(op)
        if ctype.kind == "float":
            self.values[result] = Scalar(ctype, float_literal(ir.FloatAttr(attr).value, ctype.bits))
            return
        if ctype.kind == "index":
            self.values[result] = Scalar(ctype, const=ir.IntegerAttr(attr).value)
            return
        value = integer_attr_value(attr, ctype.bits)
        if -(2**63) <= value < 2**63:
            self.values[result] = Scalar(ctype, const=value)
        else:
            self._define(result, ctype, wide_literal(value, ctype.bits, self.uses))

    def _int_binary(self, symbol: str, op: ir.Operation) -> None:
        lhs, rhs = op.operands
        result = op.results[0]
        ctype = self._result_type(result, [lhs, rhs])
        if ctype.is_bool:
            expr = f"{self._view(lhs)} {_BOOL_BINARY[symbol]} {self._view(rhs)}"
        elif (
            ctype.is_native_int
            and symbol in "+-*"
            and (ctype.bits >= 32 or (ctype.bits == 16 and symbol == "*"))
        ):
            # these could overflow int/int64_t: compute modulo 2**n in the unsigned type
            wide = "uint64_t" if ctype.bits == 64 else "uint32_t"
            left, right = self._modular(lhs, wide), self._modular(rhs, wide)
            if left == self._view(lhs) and right == self._view(rhs) and self._scalar(lhs).const is not None:
                left = f"({wide}){left}"
            expr = f"{left} {symbol} {right}"
        else:
            # bitwise ops read better with literals spelled in the result's signedness (x ^ 255)
            signed = ctype.signed if symbol in "&|^" and ctype.kind == "int" else None
            expr = f"{self._const_or_view(lhs, signed)} {symbol} {self._const_or_view(rhs, signed)}"
        self._define(result, ctype, expr)

    def _const_or_view(self, value: ir.Value, signed: bool | None) -> str:
        """Constants in the given signedness, locals as declared."""
        return self._view(value, signed if self._scalar(value).const is not None else None)

    def _modular(self, value: ir.Value, wide: str) -> str:
        """An operand for modular arithmetic in `wide`: unsigned locals as is, literals converted by C."""
        scalar = self._scalar(value)
        if scalar.const is not None:
            return self._view(value)
        if not scalar.ctype.signed and scalar.ctype.bits >= (64 if wide == "uint64_t" else 32):
            return scalar.expr
        return f"({wide}){scalar.expr}"

    def _int_division(self, symbol: str, signed: bool, op: ir.Operation) -> None:
        lhs, rhs = op.operands
        result = op.results[0]
        ctype = ctype_of(result.type, signed)
        a, b = self._view(lhs, signed), self._view(rhs, signed)
        expr = f"{a} / {b}" if symbol == "/" else _remainder(a, b, ctype)
        self._define(result, ctype, f"(({expr}) & 1) != 0" if ctype.is_bool else expr)

    def _floordivsi(self, op: ir.Operation) -> None:
        # C division truncates toward zero; step down when the remainder has the divisor's opposite sign
        a, b = (self._view(v, True) for v in op.operands)
        ctype = ctype_of(op.results[0].type)
        constant = self._scalar(op.operands[1]).const
        if op.operands[0] == op.operands[1]:
            adjust = "false"  # x / x is exact; the sign tests would be self-comparisons
        elif constant is not None and constant > 0:
            adjust = f"(({_remainder(a, b, ctype)}) != 0 && {a} < 0)"
        else:
            adjust = f"(({_remainder(a, b, ctype)}) != 0 && (({a} < 0) != ({b} < 0)))"
        self._define(op.results[0], ctype, f"({a} / {b}) - ({adjust} ? 1 : 0)")

    def _ceildivsi(self, op: ir.Operation) -> None:
        a, b = (self._view(v, True) for v in op.operands)
        ctype = ctype_of(op.results[0].type)
        constant = self._scalar(op.operands[1]).const
        if op.operands[0] == op.operands[1]:
            adjust = "false"
        elif constant is not None and constant > 0:
            adjust = f"(({_remainder(a, b, ctype)}) != 0 && {a} > 0)"
        else:
            adjust = f"(({_remainder(a, b, ctype)}) != 0 && (({a} < 0) == ({b} < 0)))"
        self._define(op.results[0], ctype, f"({a} / {b}) + ({adjust} ? 1 : 0)")

    def _ceildivui(self, op: ir.Operation) -> None:
        a, b = (self._view(v, False) for v in op.operands)
        ctype = ctype_of(op.results[0].type, False)
        self._define(op.results[0], ctype, f"({a} / {b}) + ((({_remainder(a, b, ctype)}) != 0) ? 1 : 0)")

    def _shift(self, symbol: str, signed: bool | None, op: ir.Operation) -> None:
        value, amount = op.operands
        result = op.results[0]
        ctype = self._result_type(result, [value]) if signed is None else ctype_of(result.type, signed)
        if ctype.kind == "index":
            expr = f"{self._view(value)} {symbol} {self._view(amount)}"
        elif ctype.is_bool:
            # shifting an i1 by 1 is poison; by 0 it keeps the bit
            expr = f"{self._view(value)} && !{self._view(amount)}"
        elif ctype.is_ap:
            expr = f"{self._typed_view(value, ctype)} {symbol} {self._ap_shift_amount(amount, ctype.bits)}"
        else:
            wide = "uint64_t" if ctype.bits == 64 else "uint32_t"
            if signed is None:
                # shift left in the unsigned type: shifting a negative int left is undefined
                base = self._modular(value, wide)
                if self._scalar(value).const is not None:
                    base = f"({wide}){base}"
            else:
                base = self._view(value, signed)
            expr = f"{base} {symbol} {self._shift_amount(amount, 63 if ctype.bits == 64 else 31)}"
        self._define(result, ctype, expr)

    def _shift_amount(self, amount: ir.Value, mask: int) -> str:
        """A shift amount within [0, mask]: shifting C types by >= their width is undefined."""
        scalar = self._scalar(amount)
        if scalar.const is not None:
            return str(scalar.const & mask)
        if scalar.ctype.is_ap:
            return f"({scalar.expr}.to_uint() & {mask})"
        return f"({scalar.expr} & {mask})"

    def _ap_shift_amount(self, amount: ir.Value, bits: int) -> str:
        """An unsigned shift amount for ap types (a signed amount would shift the other way)."""
        scalar = self._scalar(amount)
        if scalar.const is not None:
            return str(min(scalar.const & ((1 << scalar.ctype.bits) - 1), bits)) + "U"
        if scalar.ctype.is_ap:
            return f"{scalar.expr}.to_uint()"
        return f"(unsigned){self._view(amount, False)}"

    def _cmpi(self, op: ir.Operation) -> None:
        predicate = upstream.compare_predicate(op)
        symbol, signed = _CMPI[predicate]
        lhs, rhs = op.operands
        if lhs == rhs:
            # `x < x` trips -Wtautological-compare: the answer is known
            self.values[op.results[0]] = Scalar(BOOL, const=-1 if predicate in _CMPI_REFLEXIVE else 0)
            return
        if signed is None:
            # equality compares bits: both sides must have the same C type
            signed = next(
                (
                    self.values[v].ctype.signed
                    for v in (lhs, rhs)
                    if self.values[v].const is None and not self.values[v].ctype.is_bool
                ),
                True,
            )
            if self._scalar(lhs).ctype.is_bool:
                signed = None
        self._define(op.results[0], BOOL, f"{self._view(lhs, signed)} {symbol} {self._view(rhs, signed)}")

    def _cmpf(self, op: ir.Operation) -> None:
        template = _CMPF[upstream.compare_predicate(op)]
        a, b = (self._view(v) for v in op.operands)
        self._define(op.results[0], BOOL, template.format(a=a, b=b))

    def _select(self, op: ir.Operation) -> None:
        condition, true_value, false_value = op.operands
        result = op.results[0]
        ctype = self._result_type(result, [true_value, false_value])
        expr = f"{self._view(condition)} ? {self._typed_view(true_value, ctype)} : {self._typed_view(false_value, ctype)}"
        self._define(result, ctype, expr)

    def _int_minmax(self, symbol: str, signed: bool, op: ir.Operation) -> None:
        lhs, rhs = op.operands
        ctype = ctype_of(op.results[0].type, signed)
        a, b = self._typed_view(lhs, ctype), self._typed_view(rhs, ctype)
        # compare in the op's signedness (an i1 true is -1 for maxsi), pick in the result's type
        x, y = self._view(lhs, signed), self._view(rhs, signed)
        self._define(op.results[0], ctype, a if lhs == rhs else f"{x} {symbol} {y} ? {a} : {b}")

    def _absi(self, op: ir.Operation) -> None:
        (value,) = op.operands
        ctype = ctype_of(op.results[0].type, True)
        a = self._view(value, True)
        if ctype.is_native_int:
            # negate in the unsigned type: -INT_MIN overflows
            wide = "uint64_t" if ctype.bits == 64 else "uint32_t"
            expr = f"{a} < 0 ? 0U - ({wide}){a} : ({wide}){a}"
        elif ctype.is_ap:
            expr = f"{a} < 0 ? ({self.uses.spell(ctype)})(-{a}) : {a}"
        else:
            expr = a
        self._define(op.results[0], ctype, expr)

    # ---- arith: casts --------------------------------------------------------------------------

    def _extend(self, signed: bool, op: ir.Operation) -> None:
        (value,) = op.operands
        ctype = ctype_of(op.results[0].type, signed)
        source = self._scalar(value)
        if source.const is not None:
            unsigned = source.const & ((1 << source.ctype.bits) - 1)
            self.values[op.results[0]] = Scalar(ctype, const=source.const if signed else unsigned)
            return
        self._define(op.results[0], ctype, self._view(value, signed))

    def _trunci(self, op: ir.Operation) -> None:
        (value,) = op.operands
        source = self._scalar(value).ctype
        ctype = ctype_of(op.results[0].type, source.signed)
        constant = self._scalar(value).const
        if constant is not None:
            bits = ctype.bits
            wrapped = constant & ((1 << bits) - 1)
            self.values[op.results[0]] = Scalar(
                ctype, const=wrapped - (1 << bits) if wrapped >> (bits - 1) else wrapped
            )
            return
        if ctype.is_bool:
            expr = f"({self._view(value)} & 1) != 0"
        elif ctype.is_native_int:
            expr = self._native(value, source.signed)
        else:
            expr = self._view(value)
        self._define(op.results[0], ctype, expr)

    def _index_cast(self, signed: bool, op: ir.Operation) -> None:
        (value,) = op.operands
        result = op.results[0]
        source = self._scalar(value)
        if source.const is not None:
            folded = source.const
            if not signed and source.ctype.kind == "int":
                folded &= (1 << source.ctype.bits) - 1
            ctype = INDEX if isinstance(result.type, ir.IndexType) else ctype_of(result.type, signed)
            if ctype.kind == "int":
                folded &= (1 << ctype.bits) - 1
                folded = folded - (1 << ctype.bits) if folded >> (ctype.bits - 1) else folded
            self.values[result] = Scalar(ctype, const=folded)
            return
        if isinstance(result.type, ir.IndexType):
            expr = f"(int){self._native(value, signed)}" if source.ctype.is_ap else self._view(value, signed)
            self._define(result, INDEX, expr)
        else:
            ctype = ctype_of(result.type, signed)
            expr = f"({self._view(value)} & 1) != 0" if ctype.is_bool else self._view(value)
            self._define(result, ctype, expr)

    def _int_to_float(self, signed: bool, op: ir.Operation) -> None:
        (value,) = op.operands
        ctype = ctype_of(op.results[0].type)
        source = self._scalar(value).ctype
        text = self._view(value, signed)
        if source.is_ap and source.bits > 64 and self._scalar(value).const is None:
            self._wide_int_to_float(op.results[0], ctype, value, signed)
            return
        self._define(op.results[0], ctype, f"({self.uses.spell(ctype)}){text}")

    def _float_to_int(self, signed: bool, op: ir.Operation) -> None:
        (value,) = op.operands
        ctype = ctype_of(op.results[0].type, signed)
        a = self._view(value)
        if ctype.is_bool:
            expr = f"(int64_t){a} != 0"
        elif ctype.is_ap and ctype.bits <= 64:
            expr = f"({self.uses.spell(ctype)})({'int64_t' if signed else 'uint64_t'}){a}"
        elif ctype.is_ap:
            # ap_int's conversion from a double wider than 64 bits does not truncate toward zero
            # (ap_int<128>(-0.25f) is 1, found by the differential fuzzer): truncate first, as
            # fptosi does, so only whole values reach it
            expr = f"({self.uses.spell(ctype)})std::trunc({a})"
        else:
            expr = f"({self.uses.spell(ctype)}){a}"
        self._define(op.results[0], ctype, expr)

    def _float_cast(self, op: ir.Operation) -> None:
        ctype = ctype_of(op.results[0].type)
        self._define(op.results[0], ctype, f"({self.uses.spell(ctype)}){self._view(op.operands[0])}")

    def _bitcast(self, op: ir.Operation) -> None:
        (value,) = op.operands
        result = op.results[0]
        source = self._scalar(value)
        ctype = ctype_of(result.type, source.ctype.signed if source.ctype.kind == "int" else True)
        if source.ctype.kind == ctype.kind:
            self._define(result, ctype, self._view(value))
            return
        operand = source.expr
        if source.const is not None or not re.fullmatch(r"\w+", operand):
            operand = self._temp()
            self._line(f"{self.uses.spell(source.ctype)} {operand} = {self._view(value)};")
        name = self._temp()
        # a union reinterprets the bits, the form Vitis HLS documents for type punning (and HeteroCL
        # emitted); g++ defines reading the member not last written
        bits = self.names.fresh(f"{name}_bits")
        self._line(f"union {{ {self.uses.spell(source.ctype)} from; {self.uses.spell(ctype)} to;}} {bits};")
        self._line(f"{bits}.from = {operand};")
        self._line(f"{self.uses.spell(ctype)} {name} = {bits}.to;")
        self.values[result] = Scalar(ctype, name)

    # ---- arith/math: floats --------------------------------------------------------------------

    def _float_binary(self, symbol: str, op: ir.Operation) -> None:
        lhs, rhs = op.operands
        self._define(
            op.results[0], ctype_of(op.results[0].type), f"{self._view(lhs)} {symbol} {self._view(rhs)}"
        )

    def _float_call(self, function: str, op: ir.Operation) -> None:
        args = ", ".join(self._view(v) for v in op.operands)
        self._define(op.results[0], ctype_of(op.results[0].type), f"{function}({args})")

    def _negf(self, op: ir.Operation) -> None:
        self._define(op.results[0], ctype_of(op.results[0].type), f"-{self._view(op.operands[0])}")

    def _float_minmax(self, symbol: str, op: ir.Operation) -> None:
        # IEEE maximum/minimum: NaN wins, and -0 < +0 (std::fmax/fmin do neither)
        a, b = (self._view(v) for v in op.operands)
        zero_pick = (
            f"(std::signbit({a}) ? {b} : {a})" if symbol == ">" else f"(std::signbit({a}) ? {a} : {b})"
        )
        expr = (
            f"(std::isnan({a}) || std::isnan({b})) ? {a} + {b} : "
            f"({a} {symbol} {b} ? {a} : ({b} {symbol} {a} ? {b} : {zero_pick}))"
        )
        self._define(op.results[0], ctype_of(op.results[0].type), expr)

    def _fpowi(self, op: ir.Operation) -> None:
        base, exponent = op.operands
        ctype = ctype_of(op.results[0].type)
        self._define(
            op.results[0],
            ctype,
            f"std::pow({self._view(base)}, ({self.uses.spell(ctype)}){self._native(exponent, True)})",
        )


def _remainder(a: str, b: str, ctype: CType) -> str:
    """`a % b`; beyond 64 bits as a - (a / b) * b: ap_private's multi-word remainder is off in rare cases."""
    if ctype.is_ap and ctype.bits > 64:
        return f"{a} - ({a} / {b}) * {b}"
    return f"{a} % {b}"


SCALAR_HANDLERS: dict[str, Handler] = {
    "arith.constant": ScalarOps._constant,
    "arith.floordivsi": ScalarOps._floordivsi,
    "arith.ceildivsi": ScalarOps._ceildivsi,
    "arith.ceildivui": ScalarOps._ceildivui,
    "arith.shli": with_args(ScalarOps._shift, "<<", None),
    "arith.shrsi": with_args(ScalarOps._shift, ">>", True),
    "arith.shrui": with_args(ScalarOps._shift, ">>", False),
    "arith.cmpi": ScalarOps._cmpi,
    "arith.cmpf": ScalarOps._cmpf,
    "arith.select": ScalarOps._select,
    "arith.extsi": with_args(ScalarOps._extend, True),
    "arith.extui": with_args(ScalarOps._extend, False),
    "arith.trunci": ScalarOps._trunci,
    "arith.index_cast": with_args(ScalarOps._index_cast, True),
    "arith.index_castui": with_args(ScalarOps._index_cast, False),
    "arith.sitofp": with_args(ScalarOps._int_to_float, True),
    "arith.uitofp": with_args(ScalarOps._int_to_float, False),
    "arith.fptosi": with_args(ScalarOps._float_to_int, True),
    "arith.fptoui": with_args(ScalarOps._float_to_int, False),
    "arith.extf": ScalarOps._float_cast,
    "arith.truncf": ScalarOps._float_cast,
    "arith.negf": ScalarOps._negf,
    "arith.maximumf": with_args(ScalarOps._float_minmax, ">"),
    "arith.minimumf": with_args(ScalarOps._float_minmax, "<"),
    "arith.bitcast": ScalarOps._bitcast,
    "math.absi": ScalarOps._absi,
    "math.fpowi": ScalarOps._fpowi,
    **{name: with_args(ScalarOps._int_binary, symbol) for name, symbol in _INT_BINARY.items()},
    **{name: with_args(ScalarOps._int_division, *spec) for name, spec in _INT_DIVISION.items()},
    **{name: with_args(ScalarOps._int_minmax, *spec) for name, spec in _INT_MINMAX.items()},
    **{name: with_args(ScalarOps._float_binary, symbol) for name, symbol in _FLOAT_BINARY.items()},
    **{name: with_args(ScalarOps._float_call, function) for name, function in _FLOAT_CALL.items()},
}
