"""Cycles an operation takes in Vitis HLS: what a loop-carried chain of operations costs a pipeline.

Recurrence checks (compiler/recurrence_limits.py) add these along a cycle of dependences; an
operation missing here is taken as chained within its clock cycle (0), so a chain is never made
longer than the table says.

Provenance. The figures are those of Vitis HLS's default floating-point cores at the projects'
clocks (4-5 ns, UltraScale+ parts: `xcu250`, `xczu9eg`), where `fadd`/`fsub` bind a 4-stage
full-DSP core, `fmul` a 3-stage one and `fdiv` a 12-stage fabric one (the core names Vitis writes
into csynth.rpt's binding table carry the stage count: `fadd_32ns_32ns_32_4_full_dsp_1`). The one
float core of a real report at hand (github agustinsilva447/hls_div at f9389da,
solution1/syn/report/csynth.xml, Vitis 2022.1, xc7z020 at 10 ns, a slower family) binds `fdiv_32ns_32ns_32_16_no_dsp_1` with LATENCY="15":
a divider is the longest operator of the set at any clock. Doubles take one or two stages more for
add/mul and about twice the divider's. A store followed by the next iteration's load of the same
block RAM costs MEMORY_ROUND_TRIP: one cycle to write, two to read back (a BRAM read is registered).
These are estimates for warnings, not a substitute for csynth; the QoR estimate (issue 26) is
where a calibrated table belongs.
"""

from __future__ import annotations

from mlir import ir

# a store, then the next iteration's load of the same RAM element
MEMORY_ROUND_TRIP = 3

# (operation, element width) -> (the name a message gives it, cycles)
_FLOAT_LATENCY: dict[tuple[str, int], tuple[str, int]] = {
    ("arith.addf", 32): ("fadd", 4),
    ("arith.subf", 32): ("fsub", 4),
    ("arith.mulf", 32): ("fmul", 3),
    ("arith.divf", 32): ("fdiv", 12),
    ("arith.addf", 64): ("dadd", 5),
    ("arith.subf", 64): ("dsub", 5),
    ("arith.mulf", 64): ("dmul", 5),
    ("arith.divf", 64): ("ddiv", 28),
}
_INTEGER_DIVISIONS = {
    "arith.divsi": "sdiv",
    "arith.divui": "udiv",
    "arith.remsi": "srem",
    "arith.remui": "urem",
}
_INTEGER_MULTIPLY_CYCLES = 2  # a DSP48 multiplier registered once at 4 ns


def operator_latency(op: ir.Operation) -> tuple[str, int]:
    """(name, cycles) of one operation; cycles 0 for what chains within a clock cycle."""
    name = op.name
    if not len(op.results):
        return name, 0
    result_type = op.results[0].type
    width = _element_width(result_type)
    if name in ("arith.addf", "arith.subf", "arith.mulf", "arith.divf"):
        # f16/bf16 take the f32 core's stages; wider than 64 bits does not occur
        return _FLOAT_LATENCY.get((name, 64 if width > 32 else 32), (name, 0))
    if name == "arith.muli":
        return "mul", _INTEGER_MULTIPLY_CYCLES if width > 8 else 0
    if name in _INTEGER_DIVISIONS:
        # a radix-2 divider: one quotient bit a stage
        return _INTEGER_DIVISIONS[name], width
    return name, 0


def _element_width(value_type: ir.Type) -> int:
    if isinstance(value_type, ir.IntegerType):
        return int(value_type.width)
    if isinstance(value_type, ir.F64Type):
        return 64
    return 32


__all__ = ["MEMORY_ROUND_TRIP", "operator_latency"]
