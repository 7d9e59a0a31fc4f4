"""Fixed-point values as ap_fixed C++: loads, conversions, + - *, shifts, compares and selects on
ap_fixed values where that gives the IR's bits (fixed_plan.py says where), as an HLS engineer
writes them: `conv1_sum = conv1_sum + image[ci][v2][v7] * w_conv1[co][ci][r][c];`.

A value is an expression (FixedValue) until something needs it as a name: a conversion that keeps
the value is no code at all, and one that truncates or wraps is written once, where its value is
assigned (`ap_fixed<16, 8> y = acc;`). A value whose bits an integer op reads gets a raw view
`int32_t v_bits = v.range(31, 0);`, with a comment saying why.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from mlir import ir

from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.emit_hls.c_types import BOOL, CppUses, c_int, ctype_of, wide_literal
from hclbuild.compiler.emit_hls.core import EmitterCore, Handler, Memory, Scalar, self_compare
from hclbuild.compiler.emit_hls.fixed_plan import (
    FixedPlan,
    Form,
    converts_through,
    exact_result,
    fixed,
    holds,
    raw_reason,
)
from hclbuild.compiler.emit_hls.value_names import readable_in_place
from hclbuild.compiler.passes.outline_analysis import defining_op
from hclbuild.dsl.types import DType

_CMPI_SYMBOLS = {0: "==", 1: "!=", 2: "<", 3: "<=", 4: ">", 5: ">=", 6: "<", 7: "<=", 8: ">", 9: ">="}
_ARITH = {"arith.addi": "+", "arith.subi": "-", "arith.muli": "*"}
# C++ binding strength of the operators a fixed expression has at its top (higher binds tighter)
_PRECEDENCE = {
    "*": 6,
    "+": 5,
    "-": 5,
    "<<": 4,
    ">>": 4,
    "<": 3,
    "<=": 3,
    ">": 3,
    ">=": 3,
    "==": 2,
    "!=": 2,
    "?": 1,
}
_SIZING = frozenset({"arith.extsi", "arith.extui", "arith.trunci"})
_SIDE_EFFECTS = frozenset({"memref.store", "affine.store", "func.call"})
_EXACT_DOUBLE_BITS = 53  # a literal is written as the double it equals when that is exact
# an expression kept unnamed stays this narrow, so what reads it stays within AP_INT_MAX_W (1024)
MAX_INLINE_BITS = 256


@dataclass(frozen=True)
class FixedValue:
    """A fixed-point SSA value as C++: `expr`, whose every value `exact` holds; the SSA value is
    expr itself, or (`into` set) expr converted into `into` (AP_TRN, AP_WRAP: floor, then wrap)."""

    expr: str
    exact: DType
    into: DType | None = None
    local: bool = False  # expr reads the same wherever it is written (a local, argument, literal)
    typed: bool = False  # expr is a name of C++ type `exact` (a local, argument, element)
    cheap: bool = False  # repeating expr costs nothing (not so an element: each is a memory read)
    operator: str = ""  # the operator at the top of expr ("+", "-", "*", "?"), "" for an atom

    def converted(self, into: DType | None) -> FixedValue:
        """The same expression converted into `into` (None: it is the value)."""
        return FixedValue(self.expr, self.exact, into, self.local, self.typed, self.cheap, self.operator)


class FixedOps(EmitterCore):
    """Handlers of the ops fixed_plan writes as ap_fixed, and the fixed values' C++ expressions."""

    if TYPE_CHECKING:
        fixed_plan: FixedPlan

    # ---- dispatch ------------------------------------------------------------------------------

    def _handler(self, operation: ir.Operation) -> Handler | None:
        form = self.fixed_plan.forms.get(operation)
        if form is None:
            return super()._handler(operation)
        if form.kind == "compare":
            return FixedOps._fixed_compare
        if form.kind == "select":
            return FixedOps._fixed_select
        if form.kind == "arith":
            return FixedOps._fixed_arith
        if form.kind == "shift":
            return FixedOps._fixed_shift
        return FixedOps._fixed_convert

    # ---- values --------------------------------------------------------------------------------

    def _readers(self, value: ir.Value) -> list[ir.OpOperand]:
        """The uses of `value` whose ops read it (emitted, and not a compare with itself)."""
        return [use for use in value.uses if use.owner.operation not in self.dead and not self_compare(use)]

    def _fixed_operand(self, value: ir.Value, as_type: DType | None) -> FixedValue:
        """An operand of a fixed-form op: its FixedValue, or a literal of the constant it is."""
        known = self.fixed.get(value)
        if known is not None:
            return known
        scalar = self._scalar(value)
        assert as_type is not None and scalar.const is not None, "fixed_plan admits constants only"
        return fixed_literal(scalar.const, as_type, self.uses)

    def _exact_text(self, state: FixedValue, symbol: str, right: bool = False) -> str:
        """The expression as an operand of `symbol` (+ - * or a compare, which need the value itself),
        in parentheses where C++ would otherwise group it otherwise."""
        assert state.into is None, "a converted value is named before an operator reads it"
        inner, outer = _PRECEDENCE.get(state.operator, 9), _PRECEDENCE.get(symbol, 0)
        return state.expr if inner > outer or (inner == outer and not right) else f"({state.expr})"

    def _as_type(self, state: FixedValue, dtype: DType) -> str:
        """The expression converted into exactly `dtype` (the two sides of ?: must have one type)."""
        if state.typed and state.into is None and state.exact == dtype:
            return state.expr
        return f"{self.uses.c_type(dtype)}({state.expr})"

    def _fixed_result(self, result: ir.Value, state: FixedValue, name: str | None = None) -> None:
        """Bind `result` to `state`: kept an expression when its readers take it so, else a local
        `T name = expr;`; a raw view for readers of its bits."""
        dtype = self.fixed_plan.types[result]
        uses = self._readers(result)
        raw = [use for use in uses if not self.fixed_plan.fixed_use(use)]
        if uses and not raw and self._inline(result, state, uses):
            self.fixed[result] = state
            return
        if not (state.local and state.typed and state.into is None and state.exact == dtype):
            local = self.names.fresh(name) if name is not None else self._temp()
            self._line(f"{self.uses.c_type(dtype)} {local} = {state.expr};")
            state = FixedValue(local, dtype, local=True, typed=True, cheap=True)
        self.fixed[result] = state
        if raw:
            self._raw_view(result, state, dtype)

    def _raw_view(self, value: ir.Value, state: FixedValue, dtype: DType) -> None:
        self._raw_bits(value, state.expr, dtype, f"{state.expr}_bits")

    def _raw_bits(self, value: ir.Value, source: str, dtype: DType, base: str) -> None:
        """`value` as the raw bits of the ap_fixed `source` of `dtype`: an integer local named after
        `base`, with the comment that says why."""
        ctype = ctype_of(value.type, dtype.is_signed)
        bits = self.names.fresh(base)
        comment = self._raw_comment(value, reading=True)
        self._line(f"{self.uses.spell(ctype)} {bits} = {source}.range({dtype.bits - 1}, 0);{comment}")
        self.values[value] = Scalar(ctype, bits)

    def _inline(self, result: ir.Value, state: FixedValue, uses: list[ir.OpOperand]) -> bool:
        """Whether every reader takes `result` as its expression: one reader (or a name), each one
        in the same block with nothing written in between, and a converted value only by what
        converts it on (or assigns it whole to its own type)."""
        if (not state.cheap and len(uses) != 1) or state.exact.bits > MAX_INLINE_BITS:
            return False
        defining = defining_op(result)
        for use in uses:
            reader = use.owner.operation
            if not state.local and (defining is None or not _nothing_written_between(defining, reader)):
                return False
            if state.into is not None and not self._takes_converted(use, state):
                return False
        return True

    def _takes_converted(self, use: ir.OpOperand, state: FixedValue) -> bool:
        assert state.into is not None
        reader = use.owner.operation
        form = self.fixed_plan.forms.get(reader)
        if form is not None and form.kind == "convert":
            return converts_through(state.exact, state.into, self.fixed_plan.types[reader.results[0]])
        if form is not None and form.kind in ("select", "shift"):
            return True  # it converts its operand(s) into the result's type, of the same bits
        # a store (argument, return) of the same bits: its assignment converts as `into` does
        target = self.fixed_plan.whole.get((reader, use.operand_number))
        return target is not None and not target.has_modes

    # ---- handlers ------------------------------------------------------------------------------

    def _fixed_convert(self, op: ir.Operation) -> None:
        form: Form = self.fixed_plan.forms[op]
        result = op.results[0]
        into = self.fixed_plan.types[result]
        source, operand_type = op.operands[0], form.operands[0]
        assert operand_type is not None
        if source in self.fixed or self._scalar(source).const is not None:
            state = self._fixed_operand(source, operand_type)
        else:  # an integer into a fixed type with no fraction bits (fixed_plan._cast_form)
            assert operand_type.frac == 0
            text = self._view(source, operand_type.is_signed)
            state = FixedValue(text, operand_type, local=True, cheap=text.isidentifier())
        # a converted operand: _takes_converted checked that its conversion and this one are one
        self._fixed_result(result, state.converted(None if holds(into, state.exact) else into))

    def _fixed_arith(self, op: ir.Operation) -> None:
        form: Form = self.fixed_plan.forms[op]
        symbol = _ARITH[op.name]
        (lhs, rhs), (lhs_type, rhs_type) = op.operands, form.operands
        a, b = self._fixed_operand(lhs, lhs_type), self._fixed_operand(rhs, rhs_type)
        exact = exact_result(symbol, a.exact, b.exact)
        into = self.fixed_plan.types[op.results[0]]
        expr = f"{self._exact_text(a, symbol)} {symbol} {self._exact_text(b, symbol, right=True)}"
        state = FixedValue(expr, exact, None if holds(into, exact) else into, operator=symbol)
        self._fixed_result(op.results[0], state)

    def _fixed_shift(self, op: ir.Operation) -> None:
        """`x >> 6` in x's ap_fixed type (the DSL's shift of a fixed value: its bits move)."""
        form: Form = self.fixed_plan.forms[op]
        into = self.fixed_plan.types[op.results[0]]
        amount = self._scalar(op.operands[1]).const
        symbol = "<<" if op.name == "arith.shli" else ">>"
        text = self._as_type(self._fixed_operand(op.operands[0], form.operands[0]), into)
        self._fixed_result(op.results[0], FixedValue(f"{text} {symbol} {amount}", into, operator=symbol))

    def _fixed_compare(self, op: ir.Operation) -> None:
        form: Form = self.fixed_plan.forms[op]
        (lhs, rhs), (lhs_type, rhs_type) = op.operands, form.operands
        symbol = _CMPI_SYMBOLS[upstream.compare_predicate(op)]
        a, b = self._fixed_operand(lhs, lhs_type), self._fixed_operand(rhs, rhs_type)
        if a.exact.is_signed != b.exact.is_signed:
            # ap_fixed compares a signed with an unsigned value wrongly for some widths (0 > -1.5 is
            # false for ap_ufixed<32, 32> and ap_fixed<43, 33>): the unsigned side goes signed first
            a, b = (self._signed(x) if not x.exact.is_signed else x for x in (a, b))
        self._define(
            op.results[0], BOOL, f"{self._exact_text(a, symbol)} {symbol} {self._exact_text(b, symbol, True)}"
        )

    def _signed(self, state: FixedValue) -> FixedValue:
        """An unsigned exact value as the signed ap_fixed one bit wider, which holds it."""
        exact = fixed(True, state.exact.bits + 1, state.exact.frac)
        return FixedValue(
            f"{self.uses.c_type(exact)}({state.expr})", exact, local=state.local, cheap=state.cheap
        )

    def _fixed_select(self, op: ir.Operation) -> None:
        form: Form = self.fixed_plan.forms[op]
        condition, *choices = op.operands
        into = self.fixed_plan.types[op.results[0]]
        texts = [self._as_type(self._fixed_operand(v, t), into) for v, t in zip(choices, form.operands[1:])]
        expr = f"{self._view(condition)} ? {texts[0]} : {texts[1]}"
        self._fixed_result(op.results[0], FixedValue(expr, into, operator="?"))

    # ---- loads, stores, arguments ----------------------------------------------------------------

    def _fixed_source(
        self, value: ir.Value, element: str, name: str, local: bool = False, cheap: bool = False
    ) -> bool:
        """A load, argument or call result of an ap_fixed type as that ap_fixed (`local`: `element`
        is a name nothing assigns again; `cheap`: reading it twice costs nothing, unlike an
        array element); False when all its readers read its bits instead."""
        dtype = self.fixed_plan.types.get(value)
        uses = self._readers(value)
        if dtype is None or not any(self.fixed_plan.fixed_use(use) for use in uses):
            return False
        state = FixedValue(element, dtype, local=local, typed=True, cheap=local or cheap)
        if local:
            self.fixed[value] = state
            raw = [use for use in uses if not self.fixed_plan.fixed_use(use)]
            if raw:
                self._raw_view(value, state, dtype)
            return True
        self._fixed_result(value, state, name)
        return True

    def _reads_fixed(self, value: ir.Value) -> bool:
        """Whether an op reads `value` as an ap_fixed (fixed_plan)."""
        return value in self.fixed_plan.types and any(
            self.fixed_plan.fixed_use(use) for use in self._readers(value)
        )

    def _raw_comment(self, value: ir.Value, reading: bool) -> str:
        """`  // raw bits: why`, for a fixed value an integer op reads (`reading`) or made."""
        if reading:
            name = self._raw_reader(value)
        else:
            # the op that computed the bits, past the extensions and truncations that only size them
            owner = defining_op(value)
            while owner is not None and owner.name in _SIZING and owner not in self.fixed_plan.forms:
                owner = defining_op(owner.operands[0])
            name = owner.name if owner is not None else "block argument"
        return f"  // raw bits: {raw_reason(name)}"

    def _raw_reader(self, value: ir.Value) -> str:
        """The op that reads a fixed value's bits as an integer, past the extensions that only size
        them (a conversion to an integer extends, then divides); a truncation there is a bit slice."""
        readers = [use for use in self._readers(value) if not self.fixed_plan.fixed_use(use)]
        reader = readers[0].owner.operation if readers else None
        while reader is not None and reader.name in ("arith.extsi", "arith.extui"):
            onward = self._readers(reader.results[0])
            if not onward or onward[0].owner.operation in self.fixed_plan.forms:
                break
            reader = onward[0].owner.operation
        return reader.name if reader is not None else ""

    def _fixed_load(self, op: ir.Operation, memory: Memory, element: str, name: str) -> None:
        """A load of ap_fixed memory: the ap_fixed element (read() of a stream, once, where the load
        is), or its raw bits when only integer ops read them."""
        result = op.results[0]
        if self._reads_fixed(result):
            if memory.stream:
                local = self.names.fresh(name)
                self._line(f"{self.uses.c_type(memory.dtype)} {local} = {element};")
                self._fixed_source(result, local, local, local=True)
            elif memory.scalar and readable_in_place(op, op.operands[0]):
                self._fixed_source(result, memory.name, name, local=True, cheap=True)
            else:
                self._fixed_source(result, element, name)
            return
        self._raw_bits(result, element, memory.dtype, f"{memory.name}_bits" if memory.scalar else name)

    def _fixed_call_result(self, result: ir.Value, returned: str, dtype: DType) -> None:
        """The ap_fixed a call returned (the local `returned`), or its raw bits."""
        if self._fixed_source(result, returned, returned, local=True):
            return
        self._raw_bits(result, returned, dtype, f"{returned}_bits")

    def _fixed_stored(self, op: ir.Operation, operand: int, dtype: DType) -> str:
        """The C++ of the value `op` stores (writes, passes, returns) into ap_fixed `dtype`: an
        ap_fixed value whole, a literal of its value, or raw bits put back through an ap_fixed local."""
        value = op.operands[operand]
        state = self.fixed.get(value)
        if (op, operand) in self.fixed_plan.whole and state is not None:
            return state.expr
        scalar = self._scalar(value)
        if scalar.const is not None:
            return fixed_literal(scalar.const, dtype, self.uses).expr
        return self._fixed_from_bits(dtype, self._view(value), self._raw_comment(value, reading=False))

    def _fixed_from_bits(self, dtype: DType, text: str, comment: str) -> str:
        """An ap_fixed local holding the raw bits `text`, for a store, write, argument or result.

        The value is built whole in a local: a part-select assignment to an array element
        (`Y[i].range(31, 0) = v`) is a read-modify-write of the element in HLS, which turns a
        write-only RAM port into a read/write one and stops m_axi write bursts.
        """
        temp = self._temp()
        self._line(f"{self.uses.c_type(dtype)} {temp};")
        self._line(f"{temp}.range({dtype.bits - 1}, 0) = {text};{comment}")
        return temp


def fixed_literal(raw: int, dtype: DType, uses: CppUses) -> FixedValue:
    """The constant whose raw bits are `raw` in fixed type `dtype`, as a C++ literal of its value:
    signed where `dtype` is or the value is negative, else unsigned (`3U`, `ap_ufixed<..>(0.5)`),
    so that it compares with values of `dtype` in one signedness."""
    bits = raw & ((1 << dtype.bits) - 1)
    if dtype.is_signed and bits >> (dtype.bits - 1):
        bits -= 1 << dtype.bits
    signed = dtype.is_signed or bits < 0
    value = Fraction(bits, 1 << dtype.frac)
    magnitude = abs(bits).bit_length() + (1 if signed else 0)  # the bits of `bits` in its signedness
    exact = fixed(signed, max(magnitude, dtype.frac + 1), dtype.frac)
    if value.denominator == 1 and -(2**31) < value < 2**31:
        # (an int in ap_fixed arithmetic is 32 bits wide; its value is what `exact` bounds)
        return FixedValue(f"{int(value)}{'' if signed else 'U'}", exact, local=True, cheap=True)
    family = "ap_fixed" if signed else "ap_ufixed"
    if magnitude <= _EXACT_DOUBLE_BITS:
        number = repr(float(value)) if value.denominator != 1 else c_int(int(value))
        return FixedValue(
            f"{family}<{exact.bits}, {exact.int_bits}>({number})", exact, local=True, cheap=True
        )
    # beyond a double's 53 bits: the integer in a type with the fraction bits, shifted into them
    # (ap_fixed's >> keeps the type: the low bits it shifts out are zeros)
    # (beyond 64 bits, the integer is an ap_uint of the bits, which the conversion wraps into place)
    integer = c_int(bits) if -(2**63) <= bits < 2**64 else wide_literal(bits, magnitude, uses)
    spelled = f"{family}<{magnitude + dtype.frac}, {magnitude}>({integer})"
    return FixedValue(f"({spelled} >> {dtype.frac})", exact, local=True, cheap=True)


def _nothing_written_between(first: ir.Operation, last: ir.Operation) -> bool:
    """`last` follows `first` in its block with no store, call or nested region between them."""
    if first.block != last.block:
        return False
    between = False
    for inner in first.block.operations:
        operation = inner.operation
        if operation == first:
            between = True
            continue
        if operation == last:
            return between
        if between and (operation.name in _SIDE_EFFECTS or len(operation.regions)):
            return False
    return False
