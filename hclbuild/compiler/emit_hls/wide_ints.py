"""Conversions of integers wider than 64 bits to floats, rounded once to nearest-even as LLVM's
sitofp/uitofp round (ap_int's own to_double keeps 64 bits, and summing words rounds twice)."""

from __future__ import annotations

from mlir import ir

from hclbuild.compiler.emit_hls.c_types import CType
from hclbuild.compiler.emit_hls.core import EmitterCore, Scalar


class WideIntOps(EmitterCore):
    """Helpers of scalar handlers for ap_int values beyond 64 bits."""

    def _wide_int_to_float(self, result: ir.Value, ctype: CType, value: ir.Value, signed: bool) -> None:
        """magnitude -> its top 64 bits with a sticky bit for everything below (one rounding when
        that uint64 converts) -> scaled back by the dropped bits' count -> sign."""
        source = self._scalar(value).ctype
        bits = source.bits
        text = self._view(value, signed)
        unsigned = self.uses.spell(CType("int", bits, False))
        magnitude, negative, shift, top, out = (self._temp() for _ in range(5))
        if signed:
            self._line(f"bool {negative} = {text} < 0;")
            self._line(f"{unsigned} {magnitude} = {negative} ? ({unsigned})(-{text}) : ({unsigned}){text};")
        else:
            self._line(f"{unsigned} {magnitude} = {text};")
        self._line(f"int {shift} = {bits} - {magnitude}.countLeadingZeros() - 64;")
        self._line(f"uint64_t {top} = {magnitude}.to_uint64();")
        self._line(f"if ({shift} > 0) {{")
        self._line(
            f"  {top} = ({magnitude} >> {shift}).to_uint64() |"
            f" ((({magnitude} << ({bits} - {shift})) != 0) ? 1 : 0);"
        )
        self._line("} else {")
        self._line(f"  {shift} = 0;")
        self._line("}")
        scaled = f"std::ldexp(({self.uses.spell(ctype)}){top}, {shift})"
        self._line(
            f"{self.uses.spell(ctype)} {out} = {f'{negative} ? -{scaled} : {scaled}' if signed else scaled};"
        )
        self.values[result] = Scalar(ctype, out)
