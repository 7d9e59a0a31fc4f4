"""Which fixed-point values of a function the HLS emitter writes as ap_fixed C++, found before it writes.

In the IR a fixed-point value is the integer of its raw bits (docs/IR.md); the builder records the
fixed type an arith op's result holds (hcl.fixed). Loads of ap_fixed memory, fixed arguments and
call results hold their dtype too. An op is written as ap_fixed C++ (its *form*) when the ap_fixed
operation on its operands' values gives the op's bits, which these rules check from the types alone:

- ext{s,u}i, trunci: the same fraction bits (an extension that matches the operand's sign): the
  ap_fixed conversion into the result type (AP_TRN, AP_WRAP) keeps the value, or wraps it as
  truncating the bits does; an integer extended into a fixed type with no fraction is one too;
- shli / shr{s,u}i by a constant k: the result has k more / fewer fraction bits at the same width
  (a conversion: shifting the bits left wraps, right floors, as AP_WRAP and AP_TRN do), or the same
  ones (the DSL's `x << k`, `x >> k`: ap_fixed's shift in the result's type moves its bits so);
- addi, subi, muli: ap_fixed's exact result (fraction bits aligned for +/-, added for *), then
  wrapped into the result type, is the sum / product of the bits modulo 2**width;
- cmpi: operands of one sign and fraction, a predicate of that sign: the values compare as the bits;
- select: both choices of the result's width and fraction.

Everything else (bit slices and masks, bitcasts, shifts by a variable amount, conversions with
quantization or overflow modes, to or from floats and integers, loop-carried values) computes on
the raw bits, as before; the emitter says why in a comment where it takes or puts back the bits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mlir import ir

from hclbuild.compiler import attrs
from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.emit_hls.c_types import CSignature, integer_attr_value
from hclbuild.compiler.emit_hls.core import walk
from hclbuild.compiler.passes.outline_analysis import defining_op
from hclbuild.dsl.types import DType, parse_dtype
from hclbuild.errors import DTypeError

_LOADS = frozenset({"memref.load", "affine.load"})
_STORES = frozenset({"memref.store", "affine.store"})
_CONSTANT_CASTS = frozenset({"arith.extsi", "arith.extui", "arith.trunci"})
_ARITH = {"arith.addi": "+", "arith.subi": "-", "arith.muli": "*"}
_SIGNED_PREDICATES = frozenset({2, 3, 4, 5})  # slt, sle, sgt, sge
_UNSIGNED_PREDICATES = frozenset({6, 7, 8, 9})
# ap_fixed refuses widths beyond AP_INT_MAX_W (1024 unless raised): an exact result must fit it
MAX_EXACT_BITS = 512


# ---- the types' arithmetic ---------------------------------------------------------------------


def fixed(signed: bool, bits: int, frac: int) -> DType:
    return DType("fixed" if signed else "ufixed", bits, frac)


def as_fixed(dtype: DType) -> DType:
    """An integer type as the fixed type of its bits with no fraction; a fixed type without modes."""
    if dtype.is_fixed:
        return dtype.without_modes
    return fixed(dtype.is_signed, dtype.bits, 0)


def holds(outer: DType, inner: DType) -> bool:
    """Every value of `inner` is one of `outer` (conversion into it keeps the value)."""
    if outer.frac < inner.frac:
        return False
    if outer.is_signed:
        return outer.int_bits >= inner.int_bits + (0 if inner.is_signed else 1)
    return not inner.is_signed and outer.int_bits >= inner.int_bits


def converts_through(exact: DType, first: DType, then: DType) -> bool:
    """Whether converting a value of `exact` into `first` and that into `then` (AP_TRN, AP_WRAP) gives
    what converting it into `then` directly gives: `first` drops no fraction bit `then` keeps, and
    wraps no integer bit `then` keeps."""
    if then.has_modes:  # only a conversion that keeps the value is the same under any modes
        return holds(first, exact) and holds(then, exact)
    fraction_kept = exact.frac <= first.frac or then.frac <= first.frac
    range_kept = fixed(exact.is_signed, exact.int_bits + first.frac, first.frac)
    integers_kept = holds(first, range_kept) or then.int_bits <= first.int_bits
    return fraction_kept and integers_kept


def exact_result(symbol: str, a: DType, b: DType) -> DType:
    """The type of ap_fixed's exact a + b, a - b or a * b (its full-precision result)."""
    if symbol == "*":
        return fixed(a.is_signed or b.is_signed, a.bits + b.bits, a.frac + b.frac)
    signed = a.is_signed or b.is_signed or symbol == "-"
    ia = a.int_bits + (1 if signed and not a.is_signed else 0)
    ib = b.int_bits + (1 if signed and not b.is_signed else 0)
    frac = max(a.frac, b.frac)
    return fixed(signed, max(ia, ib) + 1 + frac, frac)


# ---- the plan ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Form:
    """How an op is written as ap_fixed: its kind and the fixed type each operand is read as."""

    kind: str  # "convert" | "shift" | "arith" | "compare" | "select"
    operands: tuple[DType | None, ...]  # None: not a fixed operand (a select's condition)


@dataclass
class FixedPlan:
    """The fixed-point values of one function written as ap_fixed, and the ops written as it."""

    types: dict[ir.Value, DType] = field(default_factory=dict)  # value -> its ap_fixed type
    forms: dict[ir.Operation, Form] = field(default_factory=dict)
    # stores, call arguments and returns that take a fixed value whole: (op, operand number) -> the
    # type they assign it to
    whole: dict[tuple[ir.Operation, int], DType] = field(default_factory=dict)

    def fixed_use(self, use: ir.OpOperand) -> bool:
        """Whether the op using the value reads it as ap_fixed (else it reads its raw bits)."""
        owner = use.owner.operation
        form = self.forms.get(owner)
        if form is not None:
            return form.operands[use.operand_number] is not None
        return (owner, use.operand_number) in self.whole


def plan_fixed_values(
    func: ir.Operation, signature: CSignature, signatures: dict[str, CSignature], dead: set[ir.Operation]
) -> FixedPlan:
    """The plan of one func.func (see the module docstring for the rules)."""
    plan = FixedPlan()
    block = func.regions[0].blocks[0]
    memories: dict[ir.Value, DType] = {}
    for arg, value in zip(signature.args, block.arguments):
        dtype = _dtype(arg.dtype)
        if dtype is not None and dtype.is_fixed:
            if isinstance(value.type, ir.MemRefType):
                memories[value] = dtype
            else:
                plan.types[value] = dtype
    ret = _dtype(signature.ret_dtype)
    for op in walk(func):
        if op in dead:
            continue
        name = op.name
        if name in ("memref.alloc", "memref.alloca", "memref.get_global"):
            dtype = _dtype(attrs.buffer_dtype(op))
            if dtype is not None and dtype.is_fixed:
                memories[op.results[0]] = dtype
        elif name in _LOADS and op.operands[0] in memories:
            plan.types[op.results[0]] = memories[op.operands[0]]
        elif name in _STORES:
            target = memories.get(op.operands[1])
            if target is not None and _takes_whole(target, plan.types.get(op.operands[0])):
                plan.whole[(op, 0)] = target
        elif name == "func.call":
            callee = signatures.get(upstream.callee(op))
            if callee is None:
                continue
            for k, (param, value) in enumerate(zip(callee.args, op.operands)):
                dtype = _dtype(param.dtype)
                if not param.is_array and dtype is not None and _takes_whole(dtype, plan.types.get(value)):
                    plan.whole[(op, k)] = dtype
            result = _dtype(callee.ret_dtype)
            if result is not None and result.is_fixed and len(op.results):
                plan.types[op.results[0]] = result
        elif name == "func.return" and len(op.operands) and ret is not None:
            if _takes_whole(ret, plan.types.get(op.operands[0])):
                plan.whole[(op, 0)] = ret
        else:
            form = _form(op, plan.types)
            if form is not None:
                plan.forms[op] = form
                if form.kind != "compare":
                    plan.types[op.results[0]] = _recorded(op)  # type: ignore[assignment]
    return plan


def _dtype(name: str | None) -> DType | None:
    if name is None:
        return None
    try:
        return parse_dtype(name)
    except DTypeError:
        return None


def _takes_whole(target: DType, value: DType | None) -> bool:
    """A store (argument, return) of a value of type `value` into `target` is the ap_fixed assignment."""
    if value is None or not target.is_fixed:
        return False
    same = target.bits == value.bits and target.frac == value.frac
    return same and (target.is_signed == value.is_signed or not target.has_modes)


def _recorded(op: ir.Operation) -> DType | None:
    """The fixed type the builder recorded on an op, when its result is an integer of its width."""
    dtype = _dtype(attrs.fixed_type(op))
    if dtype is None or not dtype.is_fixed or dtype.has_modes or len(op.results) != 1:
        return None
    result = op.results[0].type
    if not isinstance(result, ir.IntegerType) or result.width != dtype.bits:
        return None
    return dtype


def is_constant(value: ir.Value) -> bool:
    """An integer constant the emitter keeps as a literal (64 bits at most, maybe extended or truncated)."""
    owner = defining_op(value)
    if owner is None:
        return False
    if owner.name == "arith.constant":
        return isinstance(value.type, ir.IntegerType) and value.type.width <= 64
    return owner.name in _CONSTANT_CASTS and is_constant(owner.operands[0])


def _form(op: ir.Operation, types: dict[ir.Value, DType]) -> Form | None:
    name = op.name
    if name == "arith.cmpi":
        return _compare_form(op, types)
    result = _recorded(op)
    if result is None:
        return None
    operands = list(op.operands)
    typed = [types.get(v) for v in operands]
    constants = [is_constant(v) for v in operands]
    if name in ("arith.extsi", "arith.extui", "arith.trunci"):
        return _cast_form(op, result, typed[0], constants[0])
    if name in ("arith.shli", "arith.shrsi", "arith.shrui"):
        return _shift_form(op, result, typed[0])
    if name in _ARITH:
        if all(constants) or any(t is None and not c for t, c in zip(typed, constants)):
            return None
        if name == "arith.muli":
            fracs = [t.frac if t is not None else None for t in typed]
            known = [f for f in fracs if f is not None]
            if len(known) == 2 and sum(known) != result.frac:
                return None
            a, b = (
                t if t is not None else fixed(result.is_signed, result.bits, result.frac - known[0])
                for t in typed
            )
            if a.frac < 0 or b.frac < 0:
                return None
        else:
            a, b = (t if t is not None else result for t in typed)
            if a.frac != result.frac or b.frac != result.frac:
                return None
        if exact_result(_ARITH[name], a, b).bits > MAX_EXACT_BITS:
            return None
        return Form("arith", (a, b))
    if name == "arith.select":
        if all(constants[1:]):
            return None
        choices = []
        for t, c in zip(typed[1:], constants[1:]):
            if t is None and not c:
                return None
            t = t if t is not None else result
            if t.bits != result.bits or t.frac != result.frac:
                return None
            choices.append(t)
        return Form("select", (None, *choices))
    return None


def _cast_form(op: ir.Operation, result: DType, operand: DType | None, constant: bool) -> Form | None:
    source = op.operands[0].type
    if not isinstance(source, ir.IntegerType):
        return None
    extend_signed = {"arith.extsi": True, "arith.extui": False}.get(op.name)
    if operand is None:
        if constant:
            signed = extend_signed if extend_signed is not None else result.is_signed
            operand = fixed(signed, source.width, result.frac)
        elif extend_signed is not None and result.frac == 0 and source.width > 1:
            # an integer extended into a fixed type with no fraction bits: its value
            return Form("convert", (fixed(extend_signed, source.width, 0),))
        else:
            return None
    if operand.frac != result.frac:
        return None
    if extend_signed is not None and extend_signed != operand.is_signed:
        return None
    return Form("convert", (operand,))


def _shift_form(op: ir.Operation, result: DType, operand: DType | None) -> Form | None:
    amount = defining_op(op.operands[1])
    if operand is None or amount is None or amount.name != "arith.constant":
        return None
    k = integer_attr_value(upstream.constant_value(amount), result.bits)
    if not 0 < k < result.bits or operand.bits != result.bits:
        return None
    if result.frac == operand.frac and (
        op.name == "arith.shli" or (op.name == "arith.shrsi") == result.is_signed
    ):
        # the DSL's x << k / x >> k on a fixed value: ap_fixed's shift in its type moves the bits
        return Form("shift", (operand,))
    if op.name == "arith.shli":
        ok = result.frac == operand.frac + k
    else:
        ok = result.frac == operand.frac - k and (op.name == "arith.shrsi") == operand.is_signed
    return Form("convert", (operand,)) if ok else None


def _compare_form(op: ir.Operation, types: dict[ir.Value, DType]) -> Form | None:
    if op.operands[0] == op.operands[1]:
        return None  # x < x: the integer handler knows the answer without reading x
    predicate = upstream.compare_predicate(op)
    typed = [types.get(v) for v in op.operands]
    constants = [is_constant(v) for v in op.operands]
    known = [t for t in typed if t is not None]
    if not known or any(t is None and not c for t, c in zip(typed, constants)):
        return None
    a, b = (t if t is not None else known[0] for t in typed)
    if a.frac != b.frac or a.is_signed != b.is_signed or a.bits != b.bits:
        return None
    if (predicate in _SIGNED_PREDICATES and not a.is_signed) or (
        predicate in _UNSIGNED_PREDICATES and a.is_signed
    ):
        return None
    return Form("compare", (a, b))


# why a fixed value is computed on its raw bits, by the op that reads (or made) them: the C++ comment
# ops on the bits; a truncation that reads a fixed value's bits is a slice of them (a conversion
# extends them first)
_BIT_OPS = frozenset(
    {"arith.andi", "arith.ori", "arith.xori", "arith.trunci", "arith.shli", "arith.shrsi", "arith.shrui"}
)
_RAW_REASONS: tuple[tuple[Callable[[str], bool], str], ...] = (
    (lambda name: name == "arith.bitcast", "a bitcast reinterprets them"),
    (lambda name: name in _BIT_OPS, "a bit slice, mask or shift works on them"),
    (
        lambda name: name.endswith("yield") or name in ("scf.condition", "block argument"),
        "a loop-carried or branch value holds them",
    ),
    (lambda name: name == "func.call", "hcl.print or a call reads them"),
    (
        lambda name: name in ("arith.divsi", "arith.divui"),
        "the conversion to an integer truncates them toward zero",
    ),
    (lambda name: name in ("arith.sitofp", "arith.uitofp"), "the conversion to a float scales them"),
)
# conversions with quantization/overflow modes, from floats and to integers are integer steps the
# builder does not mark (hcl.fixed), as is any op of IR written without the marks
DEFAULT_REASON = "an integer step not marked as ap_fixed arithmetic (hcl.fixed) computes them"


def raw_reason(op_name: str) -> str:
    """Why the op `op_name` reads (or made) a fixed value's raw bits, for the C++ comment."""
    return next((reason for test, reason in _RAW_REASONS if test(op_name)), DEFAULT_REASON)
