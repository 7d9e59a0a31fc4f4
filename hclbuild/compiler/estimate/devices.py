"""Device families, and the latency, delay and DSP cost of each operator on each family and clock.

Vitis HLS schedules an operator either as a pipelined core of a fixed latency (float arithmetic,
wide multipliers, dividers) or as combinational logic with a delay, chained with its neighbours
inside one clock period (adds, compares, shifts, selects). The clock Vitis schedules against is
the period less its uncertainty (27 % of the period by default, UG1399 "Specifying the Clock
Frequency": 1.35 ns of 5 ns, 2.7 ns of 10 ns, as the calibration reports show).

Where the numbers come from, table by table:

- Float and double cores (fadd, fmul, fdiv, fsqrt, fexp, conversions): the latencies are those of
  the Floating-Point Operator cores Vitis instantiates, as their names in csynth reports give them
  (`fadd_32ns_32ns_32_4_full_dsp_1`: latency 4, full DSP) at the clock bands below. The
  UltraScale+ figures at 10 ns are checked against calibration/hlsfactory (Vitis 2023.2,
  xczu9eg, 10 ns): a 64-deep fadd chain has a pipeline depth of 263 cycles (fadd 4) and a
  4-fadd recurrence an II of 16; load, fmul, fadd, store in sequence a depth of 10 (fmul 3). DSP
  counts per core are UG1399's "full_dsp"/"max_dsp" defaults (fadd 2, fmul 3 on DSP48E1/E2; one
  DSPFP32 each on Versal's DSP58) and match gemm_0f87ed52's 512 DSP (128 fmul, 64 fadd).
- Integer division and remainder: a radix-2 divider of width + 3 cycles (UG1399's sdiv/udiv
  cores); calibration/lap/if_loop_3 (7-series, 5 ns) has a 32-bit division on a recurrence at II 35.
- Integer multiply: DSP48E1 (7-series) multiplies 25 x 18 bits, DSP48E2 (UltraScale+) 27 x 18,
  DSP58 (Versal) 27 x 24; a wider product takes several DSPs (a 32 x 32 product truncated to 32
  bits takes 3 on DSP48E1/E2: calibration/lap/fir, one multiply, 3 DSP). Its latency is that of
  Vitis's `mul_<w>s_<w>s_<w>_<L>_1` cores; the 7-series figure at 5 ns follows lap/fir's depth of
  9 (load 2, multiply, add, write back).
- Combinational delays (add, compare, select, logic) per family: Vitis's operator delay estimates
  as printed in its schedule viewer for a 32-bit operator (7-series -1 about 1.9 ns for an adder,
  UltraScale+ -2 about 0.9 ns, Versal about 0.8 ns), scaled by width.
- Block RAM: a read takes one clock edge and its data arrives after the RAM's clock-to-out
  (7-series 2.1 ns, UltraScale+ 1.2 ns, Versal 1.0 ns: the data sheets DS181, DS925, DS957); a
  write needs its data and address a setup time before the edge. hlsfactory's copy loop (load then
  store) has depth 2 at 10 ns, lap/jacobi_1d's the same loop depth 3 at 5 ns.
Versal's figures are not calibrated (no public report in calibration/): they are the data sheets'
and the DSP58's, and say so in every estimate's model version.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from hclbuild.errors import HCLNotImplementedError

SEVEN_SERIES = "7series"
ULTRASCALE_PLUS = "ultrascale_plus"
VERSAL = "versal"
FAMILIES = (SEVEN_SERIES, ULTRASCALE_PLUS, VERSAL)

# part-name prefixes (lower case, without the speed grade and package) -> family. UltraScale
# (without +) parts use the UltraScale+ table: the same DSP48E2 and BRAM36 blocks at close speeds.
_PART_FAMILIES: tuple[tuple[str, str], ...] = (
    (r"x[caq]7[zkavs]", SEVEN_SERIES),  # xc7z020, xc7k160t, xc7a35t, xa7a12t, xq7z...
    (r"x[caq]zu", ULTRASCALE_PLUS),  # Zynq UltraScale+ MPSoC / RFSoC: xczu9eg, xazu, xqzu
    (r"xck2[46]", ULTRASCALE_PLUS),  # Kria K26 / K24 SOMs
    (r"xcu\d", ULTRASCALE_PLUS),  # Alveo U50/U200/U250/U280 (UltraScale+ dies)
    (r"x[cq](vu|ku)\d+p", ULTRASCALE_PLUS),  # Virtex / Kintex UltraScale+
    (r"x[cq](vu|ku)\d+", ULTRASCALE_PLUS),  # UltraScale: DSP48E2 as UltraScale+
    (r"x[cq]au\d", ULTRASCALE_PLUS),  # Artix UltraScale+
    (r"x[caq]v[cmephn]\d", VERSAL),  # Versal AI Core / Prime / Premium / HBM / AI Edge: xcvc1902...
)


def part_family(part: str) -> str:
    """The family of a part name (`xczu9eg-ffvb1156-2-i` -> "ultrascale_plus");
    HCLNotImplementedError naming the part when no table covers it."""
    name = part.strip().lower()
    for pattern, family in _PART_FAMILIES:
        if re.match(pattern, name):
            return family
    raise HCLNotImplementedError(
        f"estimate: no operator tables for part '{part}' (known families: 7-series xc7*, UltraScale+ "
        "xczu*/xcu*/xck26/xcvu*p, Versal xcv[cmep]*)"
    )


def effective_period(clock_ns: float, uncertainty_ns: float | None = None) -> float:
    """The period Vitis schedules against: the clock less its uncertainty (27 % by default)."""
    return clock_ns - (0.27 * clock_ns if uncertainty_ns is None else uncertainty_ns)


@dataclass(frozen=True)
class Timing:
    """How one operator schedules: `latency` cycles of a pipelined core (0: combinational) and the
    delay its result takes after its inputs (combinational) or after its last edge (a core)."""

    latency: int
    delay_ns: float


# ---- float cores: latency by clock band (period < 4 ns, < 8 ns, >= 8 ns) -----------------------------
_BANDS = (4.0, 8.0)
_FLOAT_LATENCY: dict[str, dict[str, tuple[int, int, int]]] = {
    SEVEN_SERIES: {
        "fadd": (8, 5, 4), "fmul": (5, 4, 3), "fdiv": (28, 16, 10), "fsqrt": (28, 16, 10),
        "fexp": (20, 12, 8), "dadd": (8, 6, 5), "dmul": (9, 7, 5), "ddiv": (57, 31, 20),
        "dsqrt": (57, 31, 20), "dexp": (30, 20, 13), "fcvt": (6, 4, 3), "fcmp": (2, 1, 1),
    },
    ULTRASCALE_PLUS: {
        "fadd": (7, 4, 4), "fmul": (4, 3, 3), "fdiv": (16, 10, 9), "fsqrt": (16, 10, 8),
        "fexp": (12, 9, 7), "dadd": (7, 5, 5), "dmul": (8, 6, 5), "ddiv": (31, 22, 17),
        "dsqrt": (31, 22, 17), "dexp": (22, 16, 12), "fcvt": (5, 4, 3), "fcmp": (1, 1, 1),
    },
    VERSAL: {
        "fadd": (4, 3, 3), "fmul": (4, 3, 3), "fdiv": (14, 9, 8), "fsqrt": (14, 9, 7),
        "fexp": (11, 8, 6), "dadd": (6, 5, 4), "dmul": (7, 5, 4), "ddiv": (28, 20, 15),
        "dsqrt": (28, 20, 15), "dexp": (20, 14, 11), "fcvt": (4, 3, 3), "fcmp": (1, 1, 1),
    },
}  # fmt: skip

# DSPs of one float core (UG1399 defaults: fadd full_dsp, fmul max_dsp; Versal DSPFP32)
_FLOAT_DSP: dict[str, dict[str, int]] = {
    SEVEN_SERIES: {"fadd": 2, "fmul": 3, "dadd": 3, "dmul": 11, "fexp": 7, "dexp": 26},
    ULTRASCALE_PLUS: {"fadd": 2, "fmul": 3, "dadd": 3, "dmul": 8, "fexp": 7, "dexp": 26},
    VERSAL: {"fadd": 1, "fmul": 1, "dadd": 3, "dmul": 4, "fexp": 3, "dexp": 14},
}

# ---- combinational delays (ns) of a 32-bit operator; a w-bit one scales as 0.4 + 0.6 * w / 32 ----------
_DELAY_32: dict[str, dict[str, float]] = {
    SEVEN_SERIES: {"add": 1.9, "cmp": 1.7, "select": 0.8, "logic": 0.6, "shift": 1.4, "cast": 0.0},
    ULTRASCALE_PLUS: {"add": 0.9, "cmp": 0.8, "select": 0.4, "logic": 0.3, "shift": 0.7, "cast": 0.0},
    VERSAL: {"add": 0.8, "cmp": 0.7, "select": 0.35, "logic": 0.3, "shift": 0.6, "cast": 0.0},
}
# block RAM clock-to-out (read data after the edge) and write setup, ns
_BRAM_READ_NS = {SEVEN_SERIES: 2.1, ULTRASCALE_PLUS: 1.2, VERSAL: 1.0}
_BRAM_SETUP_NS = {SEVEN_SERIES: 1.7, ULTRASCALE_PLUS: 0.9, VERSAL: 0.8}
# the multiplier block: (a-port bits, b-port bits) of one DSP, signed
_DSP_PORTS = {SEVEN_SERIES: (25, 18), ULTRASCALE_PLUS: (27, 18), VERSAL: (27, 24)}
# latency of a multiplier that needs one DSP / several, by clock band (see the module docstring)
_MUL_LATENCY = {
    SEVEN_SERIES: ((3, 2, 1), (6, 5, 3)),
    ULTRASCALE_PLUS: ((3, 2, 1), (5, 3, 2)),
    VERSAL: ((3, 2, 1), (4, 3, 2)),
}


def _band(clock_ns: float) -> int:
    return sum(clock_ns >= edge for edge in _BANDS)


@dataclass(frozen=True)
class OperatorTable:
    """Every operator's timing and DSP cost on one family at one clock."""

    family: str
    clock_ns: float
    period_ns: float  # the clock less its uncertainty

    def float_core(self, name: str) -> Timing:
        return Timing(_FLOAT_LATENCY[self.family][name][_band(self.clock_ns)], 0.3)

    def float_dsp(self, name: str) -> int:
        return _FLOAT_DSP[self.family].get(name, 0)

    def combinational(self, kind: str, width: int) -> Timing:
        base = _DELAY_32[self.family][kind]
        return Timing(0, base * (0.4 + 0.6 * min(width, 128) / 32) if base else 0.0)

    def multiplier(self, width_a: int, width_b: int) -> Timing:
        several = self.mul_dsp(width_a, width_b) > 1
        return Timing(_MUL_LATENCY[self.family][several][_band(self.clock_ns)], 0.3)

    def divider(self, width: int) -> Timing:
        return Timing(width + 3, 0.3)

    def mul_dsp(self, width_a: int, width_b: int) -> int:
        """DSPs of a width_a x width_b signed product: tiles of the DSP's a x b multiplier."""
        a, b = _DSP_PORTS[self.family]
        big, small = max(width_a, width_b), min(width_a, width_b)
        if small <= 4:
            return 0  # a few bits: shifts and adds in LUTs
        if big <= a and small <= b:
            return 1
        # a product wider than one DSP splits into (a-1)-bit x (b-1)-bit unsigned partial products;
        # a 32 x 32 product truncated to 32 bits keeps three of the four
        tiles = math.ceil(big / (a - 1)) * math.ceil(small / (b - 1))
        return tiles - 1 if tiles == 4 else tiles

    @property
    def bram_read(self) -> Timing:
        """A block RAM read: one edge, then the clock-to-out."""
        return Timing(1, _BRAM_READ_NS[self.family])

    @property
    def bram_setup_ns(self) -> float:
        return _BRAM_SETUP_NS[self.family]


def operator_table(part: str, clock_ns: float) -> OperatorTable:
    """The operator table of a part's family at a clock period (ns)."""
    if clock_ns <= 0:
        raise HCLNotImplementedError(f"estimate: clock period {clock_ns} ns is not positive")
    return OperatorTable(part_family(part), clock_ns, effective_period(clock_ns))


__all__ = ["FAMILIES", "OperatorTable", "Timing", "effective_period", "operator_table", "part_family"]
