"""What one MLIR op costs: its kind (for resources), its timing and its DSPs, from the device table.

Index arithmetic (addresses, loop bounds) is wiring and small adders folded into the address path:
it costs nothing here. A multiply by a constant becomes shifts and adds (no DSP), as Vitis does for
constants of few set bits; an integer division is a sequential divider of width + 3 cycles. A
value the scheduler knows to be a constant (an element of a constant table read at a constant
address, schedule.py) counts as an arith.constant here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from mlir import ir

from hclbuild.compiler import upstream_attrs as upstream
from hclbuild.compiler.estimate.devices import OperatorTable, Timing
from hclbuild.compiler.estimate.structure import element_width

FREE = Timing(0, 0.0)

_FLOAT_KINDS = {
    "arith.addf": "add",
    "arith.subf": "add",
    "arith.mulf": "mul",
    "arith.divf": "div",
    "math.sqrt": "sqrt",
    "arith.sitofp": "cvt",
    "arith.uitofp": "cvt",
    "arith.fptosi": "cvt",
    "arith.fptoui": "cvt",
    "arith.extf": "cvt",
    "arith.truncf": "cvt",
    "arith.cmpf": "cmp",
    "arith.maximumf": "cmp",
    "arith.minimumf": "cmp",
    "arith.maxnumf": "cmp",
    "arith.minnumf": "cmp",
}
_COMBINATIONAL = {
    "arith.addi": "add",
    "arith.subi": "add",
    "arith.cmpi": "cmp",
    "arith.select": "select",
    "arith.andi": "logic",
    "arith.ori": "logic",
    "arith.xori": "logic",
    "arith.shli": "shift",
    "arith.shrsi": "shift",
    "arith.shrui": "shift",
    "arith.maxsi": "cmp",
    "arith.minsi": "cmp",
    "arith.maxui": "cmp",
    "arith.minui": "cmp",
    "arith.negf": "logic",
    "math.absf": "logic",
    "math.absi": "add",
}
_DIVIDERS = frozenset(
    {"arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.ceildivsi", "arith.floordivsi"}
)


@dataclass(frozen=True)
class OperatorCost:
    """An op's resource kind ("" for none), timing and DSPs."""

    kind: str
    timing: Timing
    dsp: int


NONE = OperatorCost("", FREE, 0)


def _width(value: ir.Value) -> int:
    """The width an integer operand really has (an extended narrower value keeps its width)."""
    if isinstance(value, ir.OpResult) and value.owner.name in ("arith.extsi", "arith.extui"):
        return _width(value.owner.operands[0])
    return element_width(value.type)


def _constant(value: ir.Value, known: Mapping[ir.Value, int]) -> int | None:
    """An integer operand's constant value: an arith.constant's, or one the scheduler folded (seen
    through a sign or zero extension), else None."""
    if isinstance(value, ir.OpResult) and value.owner.name in ("arith.extsi", "arith.extui"):
        value = value.owner.operands[0] if value.owner.operands[0] in known else value
    if value in known:
        return known[value]
    if isinstance(value, ir.OpResult) and value.owner.name == "arith.constant":
        try:
            return int(ir.IntegerAttr(upstream.constant_value(value.owner)).value)
        except (ValueError, TypeError):
            return None
    return None


def operator_cost(
    op: ir.Operation, table: OperatorTable, known: Mapping[ir.Value, int] | None = None
) -> OperatorCost:
    """The cost of one non-memory, non-structural op; `known` holds the values the scheduler folded."""
    known = known or {}
    name = op.name
    results = list(op.results)
    operands = list(op.operands)
    typed = results[0].type if results else (operands[0].type if operands else None)
    if typed is None or isinstance(typed, ir.IndexType):
        return NONE
    if operands and isinstance(operands[0].type, ir.IndexType) and name != "arith.index_cast":
        return NONE
    if name in _FLOAT_KINDS or name.startswith("math."):
        sample = operands[0].type if name in ("arith.cmpf", "arith.fptosi", "arith.fptoui") else typed
        double = isinstance(sample, ir.F64Type)
        if name in _COMBINATIONAL:
            return OperatorCost("", table.combinational(_COMBINATIONAL[name], 32), 0)
        kind = _FLOAT_KINDS.get(name, "exp")
        core = ("d" if double else "f") + kind if kind not in ("cvt", "cmp") else "f" + kind
        return OperatorCost(core, table.float_core(core), table.float_dsp(core))
    width = element_width(typed)
    if name == "arith.muli":
        constants = [c for c in (_constant(v, known) for v in operands) if c is not None]
        if constants and bin(abs(constants[0])).count("1") <= 3:
            return OperatorCost("", table.combinational("add", width), 0)
        wa, wb = (min(_width(v), width) for v in operands)
        dsp = table.mul_dsp(wa, wb)
        if dsp == 0:
            return OperatorCost("", table.combinational("add", width), 0)
        return OperatorCost(f"mul{wa}x{wb}", table.multiplier(wa, wb), dsp)
    if name in _DIVIDERS:
        if _constant(operands[1], known) is not None:
            return OperatorCost("", table.combinational("add", width), 0)
        return OperatorCost(f"div{width}", table.divider(width), 0)
    if name in _COMBINATIONAL:
        kind = _COMBINATIONAL[name]
        if kind == "shift" and _constant(operands[1], known) is not None:
            return NONE
        return OperatorCost("", table.combinational(kind, width), 0)
    return NONE


__all__ = ["NONE", "OperatorCost", "operator_cost"]
